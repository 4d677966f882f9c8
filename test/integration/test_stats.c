/* SPDX-License-Identifier: Apache-2.0 */
/* The stats on the real ensemble: a known sequence of acquires, timeouts,
 * releases and an outsider's delete gives known counts and bucket
 * placements; the Prometheus text passes promtool's check; the event hook
 * hears what is counted; the client counts its sessions. One CTest entry
 * per case. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static zkc_mutex_t *new_mutex(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  return m;
}

static zkc_lock_stats_t stats_of(const zkc_mutex_t *m) {
  zkc_lock_stats_t s;
  OK(zkc_mutex_stats(m, &s));
  return s;
}

/* A duration the test makes itself (not a wait for something to happen):
 * a hold of known length. */
static void hold_for_ms(int64_t ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Values at most `bound_us` in h (bound_us one of the buckets' bounds). */
static uint64_t count_up_to(const zkc_histogram_t *h, int64_t bound_us) {
  uint64_t n = 0;
  for (size_t i = 0; i < ZKC_STATS_BUCKETS && zkc_stats_bucket_bound_us(i) <= bound_us; i++)
    n += h->buckets[i];
  return n;
}

static int waiting(void *m) { return stats_of(m).waiters == 1; }
static int lost_deleted(void *m) {
  return stats_of(m).lost[ZKC_LOST_DELETED] == 1;
}

/* a's side of the sequence, on a thread of its own (holds are per thread):
 * takes the lock (and once more, reentrant), then holds it 300 ms after b
 * queued behind it. */
typedef struct {
  zkc_mutex_t *ma, *mb;
  atomic_int held;
  atomic_int tried; /* b's try-once is over: a waiter now is b's acquire */
  int rc;
} holder_t;

static int holding(void *h) { return atomic_load(&((holder_t *)h)->held); }
static int tried(void *h) { return atomic_load(&((holder_t *)h)->tried); }

static void *hold_thread(void *arg) {
  holder_t *h = arg;
  int rc = zkc_mutex_acquire(h->ma);
  if (rc == ZKC_OK) rc = zkc_mutex_acquire(h->ma); /* reentry: not counted */
  if (rc == ZKC_OK) rc = zkc_mutex_release(h->ma);
  atomic_store(&h->held, 1);
  if (rc == ZKC_OK && !zkt_await(tried, h, zkt_ms(10000))) rc = -3;
  if (rc == ZKC_OK && !zkt_await(waiting, h->mb, zkt_ms(10000))) rc = -1;
  if (rc == ZKC_OK && !zkt_await_participants(h->ma, 2, zkt_ms(10000)))
    rc = -2;
  hold_for_ms(300);
  int released = zkc_mutex_release(h->ma);
  h->rc = rc == ZKC_OK ? released : rc;
  return NULL;
}

/* a holds 300 ms while b times out once, then waits and is handed the
 * lock; an outsider then deletes b's node. Every count is known. */
static void mutex_counts_a_known_sequence(void **state) {
  (void)state;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);

  holder_t h = {.ma = ma, .mb = mb, .rc = -99};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, hold_thread, &h), 0);
  assert_true(zkt_await(holding, &h, zkt_ms(10000)));
  int try_rc = zkc_mutex_acquire_timeout(mb, 0);
  atomic_store(&h.tried, 1);
  assert_int_equal(try_rc, ZKC_ETIMEDOUT);
  OK(zkc_mutex_acquire(mb));
  pthread_join(t, NULL);
  OK(h.rc);

  zkc_lock_stats_t sa = stats_of(ma);
  assert_int_equal(sa.recipe, ZKC_STATS_MUTEX);
  assert_string_equal(sa.path, path);
  assert_int_equal(sa.acquires, 1);
  assert_int_equal(sa.releases, 1);
  assert_int_equal(sa.timeouts, 0);
  assert_int_equal(sa.refusals, 0);
  assert_int_equal(sa.holds, 0);
  assert_int_equal(sa.waiters, 0);
  assert_int_equal(sa.wait.count, 1);
  assert_int_equal(sa.handoff.count, 0); /* it waited for no one */
  assert_int_equal(sa.hold.count, 1);
  assert_true(sa.hold.sum_us >= 300000);
  assert_int_equal(count_up_to(&sa.hold, 250000), 0);

  zkc_lock_stats_t sb = stats_of(mb);
  assert_int_equal(sb.acquires, 1);
  assert_int_equal(sb.timeouts, 1);
  assert_int_equal(sb.holds, 1);
  assert_int_equal(sb.waiters, 0);
  assert_int_equal(sb.wait.count, 1); /* the timeout is not timed */
  assert_true(sb.wait.sum_us >= 300000); /* it waited out a's hold */
  assert_int_equal(count_up_to(&sb.wait, 250000), 0);
  assert_int_equal(sb.handoff.count, 1);
  assert_true(sb.handoff.sum_us <= sb.wait.sum_us);

  /* An outsider deletes b's node: one loss, then the release ends it. */
  char node[1100];
  OK(zkc_mutex_lock_node(mb, node, sizeof node));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_true(zkt_await(lost_deleted, mb, zkt_ms(10000)));
  assert_int_equal(zkc_mutex_release(mb), ZKC_ELOST);
  sb = stats_of(mb);
  assert_int_equal(sb.lost[ZKC_LOST_DELETED], 1);
  assert_int_equal(sb.lost[ZKC_LOST_SESSION], 0);
  assert_int_equal(sb.releases, 1);
  assert_int_equal(sb.holds, 0);
  assert_int_equal(sb.hold.count, 1);

  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* The two sides of a read-write lock keep records of their own. */
static void rwlock_sides_count_apart(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw = NULL;
  OK(zkc_rwlock_create(&rw, c, zkt_path("rw")));
  zkc_mutex_t *r = zkc_rwlock_read_side(rw), *w = zkc_rwlock_write_side(rw);
  OK(zkc_mutex_acquire(w));
  OK(zkc_mutex_acquire(r)); /* the writer takes the read side too */
  OK(zkc_mutex_release(w));
  OK(zkc_mutex_release(r));
  zkc_lock_stats_t sr = stats_of(r), sw = stats_of(w);
  assert_int_equal(sr.recipe, ZKC_STATS_READ);
  assert_int_equal(sw.recipe, ZKC_STATS_WRITE);
  assert_int_equal(sr.acquires, 1);
  assert_int_equal(sw.acquires, 1);
  assert_int_equal(sr.releases, 1);
  assert_int_equal(sw.releases, 1);
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(c);
}

/* The exposition of a known sequence: its samples read the counts, and
 * promtool accepts it, quotes and backslashes in the path included. */
static void prometheus_text_passes_promtool(void **state) {
  (void)state;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("odd\"na\\me"));
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  OK(zkc_mutex_acquire(ma));
  assert_int_equal(zkc_mutex_acquire_timeout(mb, 0), ZKC_ETIMEDOUT);
  OK(zkc_mutex_release(ma));

  char *text = NULL;
  size_t len = 0;
  OK(zkc_client_prometheus(b, &text, &len));
  assert_non_null(text);
  assert_int_equal(strlen(text), len);
  char esc[700], want[900];
  size_t j = 0;
  for (const char *p = path; *p && j + 2 < sizeof esc; p++) {
    if (*p == '"' || *p == '\\') esc[j++] = '\\';
    esc[j++] = *p;
  }
  esc[j] = '\0';
  snprintf(want, sizeof want,
           "zkcoord_acquire_timeouts_total{recipe=\"mutex\",path=\"%s\"} 1\n",
           esc);
  assert_non_null(strstr(text, want));
  snprintf(want, sizeof want,
           "zkcoord_acquires_total{recipe=\"mutex\",path=\"%s\"} 0\n", esc);
  assert_non_null(strstr(text, want));
  snprintf(want, sizeof want,
           "zkcoord_wait_seconds_bucket{recipe=\"mutex\",path=\"%s\","
           "le=\"+Inf\"} 0\n",
           esc);
  assert_non_null(strstr(text, want));
  assert_non_null(strstr(text, "\nzkcoord_sessions_total 1\n"));
  assert_non_null(strstr(text, "zkcoord_connected 1\n"));
  assert_int_equal(zkt_promtool_check(text), 0);
  free(text);

  OK(zkc_client_prometheus(a, &text, NULL));
  snprintf(want, sizeof want,
           "zkcoord_hold_seconds_count{recipe=\"mutex\",path=\"%s\"} 1\n", esc);
  assert_non_null(strstr(text, want));
  assert_non_null(strstr(text, "# TYPE zkcoord_hold_seconds histogram\n"));
  assert_int_equal(zkt_promtool_check(text), 0);
  free(text);

  /* A malformed exposition fails the check: the check can fail. */
  assert_int_not_equal(zkt_promtool_check("zkcoord_x{path=\"a} 1\n"), 0);

  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

typedef struct {
  pthread_mutex_t mu;
  zkc_event_type_t types[16];
  int64_t hold_us[16];
  char path[16][600];
  int n;
} heard_t;

static void hear(void *ctx, const zkc_event_t *ev) {
  heard_t *h = ctx;
  pthread_mutex_lock(&h->mu);
  if (h->n < 16 && ev->type != ZKC_EVENT_STATE) {
    h->types[h->n] = ev->type;
    h->hold_us[h->n] = ev->hold_us;
    snprintf(h->path[h->n], sizeof h->path[0], "%s", ev->path);
    h->n++;
  }
  pthread_mutex_unlock(&h->mu);
}

/* The hook hears each counted event of the client, with its path. */
static void event_hook_hears_what_is_counted(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  heard_t heard = {.mu = PTHREAD_MUTEX_INITIALIZER};
  OK(zkc_client_set_event_hook(c, hear, &heard));
  const char *path = zkt_path("hooked");
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_release(m));
  OK(zkc_client_set_event_hook(c, NULL, NULL));
  OK(zkc_mutex_acquire(m)); /* no hook: not heard */
  OK(zkc_mutex_release(m));
  pthread_mutex_lock(&heard.mu);
  assert_int_equal(heard.n, 2);
  assert_int_equal(heard.types[0], ZKC_EVENT_ACQUIRED);
  assert_int_equal(heard.types[1], ZKC_EVENT_RELEASED);
  assert_string_equal(heard.path[0], path);
  assert_true(heard.hold_us[1] > 0);
  pthread_mutex_unlock(&heard.mu);
  assert_int_equal(stats_of(m).acquires, 2);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static int second_session(void *c) {
  zkc_client_stats_t s;
  return zkc_client_stats(c, &s) == ZKC_OK && s.sessions == 2 &&
         s.connected == 1;
}
static int janitor_done(void *c) {
  zkc_client_stats_t s;
  return zkc_client_stats(c, &s) == ZKC_OK && s.janitor_done >= 1 &&
         s.janitor_pending == 0;
}

/* The client counts its sessions and expiries; a hold lost with its
 * session is counted as such, and its node's delete by the janitor. */
static void client_counts_sessions_and_expiry(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_client_stats_t s;
  OK(zkc_client_stats(c, &s));
  assert_int_equal(s.sessions, 1);
  assert_int_equal(s.expiries, 0);
  assert_int_equal(s.connected, 1);
  zkc_mutex_t *m = new_mutex(c, zkt_path("expiring"));
  OK(zkc_mutex_acquire(m));
  OK(zkc_client_stats(c, &s));
  assert_true(s.requests > 0);
  zkt_expire_session(c);
  assert_true(zkt_await(second_session, c, zkt_ms(20000)));
  assert_true(zkt_await(janitor_done, c, zkt_ms(20000)));
  OK(zkc_client_stats(c, &s));
  assert_int_equal(s.expiries, 1);
  assert_int_equal(stats_of(m).lost[ZKC_LOST_SESSION], 1);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void bad_input_is_refused(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, zkt_path("bad"));
  zkc_lock_stats_t ls;
  zkc_client_stats_t cs;
  char *text = (char *)"untouched";
  assert_int_equal(zkc_mutex_stats(NULL, &ls), ZKC_EINVAL);
  assert_int_equal(zkc_mutex_stats(m, NULL), ZKC_EINVAL);
  assert_int_equal(zkc_client_stats(NULL, &cs), ZKC_EINVAL);
  assert_int_equal(zkc_client_stats(c, NULL), ZKC_EINVAL);
  assert_int_equal(zkc_client_prometheus(NULL, &text, NULL), ZKC_EINVAL);
  assert_null(text);
  assert_int_equal(zkc_client_prometheus(c, NULL, NULL), ZKC_EINVAL);
  assert_int_equal(zkc_client_foreach_lock_stats(c, NULL, NULL), ZKC_EINVAL);
  assert_int_equal(zkc_client_set_event_hook(NULL, NULL, NULL), ZKC_EINVAL);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mutex_counts_a_known_sequence),
      cmocka_unit_test(rwlock_sides_count_apart),
      cmocka_unit_test(prometheus_text_passes_promtool),
      cmocka_unit_test(event_hook_hears_what_is_counted),
      cmocka_unit_test(client_counts_sessions_and_expiry),
      cmocka_unit_test(bad_input_is_refused),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof tests[0], "stats");
}
