/* SPDX-License-Identifier: Apache-2.0 */
/* The stats on the real ensemble: a known sequence of acquires, timeouts,
 * releases and an outsider's delete gives known counts and bucket
 * placements; the Prometheus text passes promtool's check; the event hook
 * hears what is counted; the client counts its sessions. One CTest entry
 * per case. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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
  assert_int_equal(sa.recipe, ZKC_RECIPE_MUTEX);
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
  OK(zkt_hold_node(zkc_mutex_hold(mb), node, sizeof node));
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
  assert_int_equal(sr.recipe, ZKC_RECIPE_READ);
  assert_int_equal(sw.recipe, ZKC_RECIPE_WRITE);
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

/* ---- the other recipes ---- */

typedef struct {
  zkc_sem_t *sem;
  atomic_int rc; /* the waiter's acquire: 1 while under way */
  zkc_lease_t *lease;
} sem_waiter_t;

static void *sem_wait_thread(void *arg) {
  sem_waiter_t *w = arg;
  atomic_store(&w->rc, zkc_sem_acquire(w->sem, 1, -1, &w->lease));
  return NULL;
}

static zkc_lock_stats_t sem_stats_of(const zkc_sem_t *s) {
  zkc_lock_stats_t st;
  OK(zkc_sem_stats(s, &st));
  return st;
}
static int sem_waiting(void *s) { return sem_stats_of(s).waiters == 1; }
static int sem_lost(void *s) {
  return sem_stats_of(s).lost[ZKC_LOST_DELETED] == 1;
}

/* One lease: a holds it 300 ms while b times out once, then waits and is
 * handed it; an outsider deletes b's lease node. Every count is known. */
static void semaphore_counts_a_known_sequence(void **state) {
  (void)state;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  char path[400], locks[420];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(locks, sizeof locks, "%s/locks", path);
  zkc_sem_t *sa = NULL, *sb = NULL;
  OK(zkc_sem_create(&sa, a, path, NULL));
  OK(zkc_sem_create(&sb, b, path, NULL));
  zkc_lease_t *la = NULL, *lb = NULL;
  OK(zkc_sem_acquire(sa, 1, -1, &la));
  assert_int_equal(zkc_sem_acquire(sb, 1, 0, &lb), ZKC_ETIMEDOUT);
  assert_int_equal(zkc_sem_acquire(sb, 2, -1, &lb), ZKC_EINVAL); /* uncounted */
  sem_waiter_t w = {.sem = sb, .rc = 1};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, sem_wait_thread, &w), 0);
  assert_true(zkt_await(sem_waiting, sb, zkt_ms(10000)));
  /* b at the queue's head, waiting for a's lease */
  assert_true(zkt_await_children_exactly(locks, 1, zkt_ms(10000)));
  hold_for_ms(300);
  OK(zkc_lease_release(la));
  pthread_join(t, NULL);
  OK(atomic_load(&w.rc));

  zkc_lock_stats_t s = sem_stats_of(sa);
  assert_int_equal(s.recipe, ZKC_RECIPE_SEMAPHORE);
  assert_string_equal(s.path, path);
  assert_int_equal(s.acquires, 1);
  assert_int_equal(s.releases, 1);
  assert_int_equal(s.holds, 0);
  assert_int_equal(s.handoff.count, 0);
  assert_true(s.hold.sum_us >= 300000);

  s = sem_stats_of(sb);
  assert_int_equal(s.acquires, 1);
  assert_int_equal(s.timeouts, 1);
  assert_int_equal(s.refusals, 0);
  assert_int_equal(s.holds, 1);
  assert_int_equal(s.waiters, 0);
  assert_true(s.wait.sum_us >= 300000);
  assert_int_equal(count_up_to(&s.wait, 250000), 0);
  assert_int_equal(s.handoff.count, 1);
  assert_true(s.handoff.sum_us <= s.wait.sum_us);

  char **nodes = NULL;
  size_t n = 0;
  OK(zkt_lease_nodes(w.lease, &nodes, &n));
  assert_int_equal(n, 1);
  assert_int_equal(zoo_delete(zkt_raw(), nodes[0], -1), ZOK);
  zkt_strings_free(nodes, n);
  assert_true(zkt_await(sem_lost, sb, zkt_ms(10000)));
  assert_int_equal(zkc_lease_free(w.lease), ZKC_ELOST);
  s = sem_stats_of(sb);
  assert_int_equal(s.releases, 1);
  assert_int_equal(s.holds, 0);
  assert_int_equal(s.lost[ZKC_LOST_DELETED], 1);
  OK(zkc_lease_free(la));
  OK(zkc_sem_destroy(sa));
  OK(zkc_sem_destroy(sb));
  zkc_client_close(a);
  zkc_client_close(b);
}

static zkc_lock_stats_t ml_stats_of(const zkc_multilock_t *ml) {
  zkc_lock_stats_t st;
  OK(zkc_multilock_stats(ml, &st));
  return st;
}

/* A multi-lock counts the set: once per hold (reentry aside), under its
 * paths in order; a set refused at its deadline is a timeout. */
static void multilock_counts_the_set(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL), *other = zkt_open(NULL);
  char p1[400], p2[400], both[820];
  snprintf(p1, sizeof p1, "%s", zkt_path("ml-b"));
  snprintf(p2, sizeof p2, "%s", zkt_path("ml-a"));
  snprintf(both, sizeof both, "%s,%s", p2, p1); /* in byte order */
  zkc_mutex_t *locks[2] = {new_mutex(c, p1), new_mutex(c, p2)};
  zkc_multilock_t *ml = NULL;
  OK(zkc_multilock_create(&ml, locks, 2));
  OK(zkc_multilock_acquire(ml));
  OK(zkc_multilock_acquire(ml)); /* reentry: not counted */
  OK(zkc_multilock_release(ml));
  assert_int_equal(ml_stats_of(ml).releases, 0);
  hold_for_ms(300);
  OK(zkc_multilock_release(ml));

  zkc_mutex_t *blocker = new_mutex(other, p1);
  OK(zkc_mutex_acquire(blocker));
  assert_int_equal(zkc_multilock_acquire_timeout(ml, 0), ZKC_ETIMEDOUT);
  OK(zkc_mutex_release(blocker));

  zkc_lock_stats_t s = ml_stats_of(ml);
  assert_int_equal(s.recipe, ZKC_RECIPE_MULTILOCK);
  assert_string_equal(s.path, both);
  assert_int_equal(s.acquires, 1);
  assert_int_equal(s.releases, 1);
  assert_int_equal(s.timeouts, 1);
  assert_int_equal(s.holds, 0);
  assert_int_equal(s.waiters, 0);
  assert_true(s.hold.sum_us >= 300000);
  assert_int_equal(stats_of(locks[0]).acquires, 1); /* its parts count too */

  OK(zkc_multilock_destroy(ml));
  OK(zkc_mutex_destroy(locks[0]));
  OK(zkc_mutex_destroy(locks[1]));
  OK(zkc_mutex_destroy(blocker));
  zkc_client_close(c);
  zkc_client_close(other);
}

static zkc_lock_stats_t latch_stats_of(const zkc_latch_t *l) {
  zkc_lock_stats_t st;
  OK(zkc_latch_stats(l, &st));
  return st;
}
static int latch_led_twice(void *l) {
  return latch_stats_of(l).acquires == 2 && zkc_latch_has_leadership(l);
}

/* A latch counts each turn of leadership: led, lost to an outsider's
 * delete, given up, led again, given up at close. */
static void latch_counts_turns_of_leadership(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  const char *path = zkt_path("latch");
  zkc_latch_t *l = NULL;
  OK(zkc_latch_create(&l, c, path, "me", NULL));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, zkt_ms(10000)));
  char node[1100];
  OK(zkt_hold_node(zkc_latch_hold(l), node, sizeof node));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_true(zkt_await(latch_led_twice, l, zkt_ms(10000)));
  zkc_lock_stats_t s = latch_stats_of(l);
  assert_int_equal(s.recipe, ZKC_RECIPE_LATCH);
  assert_string_equal(s.path, path);
  assert_int_equal(s.lost[ZKC_LOST_DELETED], 1);
  assert_int_equal(s.releases, 1);
  assert_int_equal(s.holds, 1);
  OK(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  s = latch_stats_of(l);
  assert_int_equal(s.acquires, 2);
  assert_int_equal(s.releases, 2);
  assert_int_equal(s.holds, 0);
  assert_int_equal(s.waiters, 0);
  assert_int_equal(s.refusals, 0);
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
}

typedef struct {
  atomic_int leading, go;
} turn_t;

static int go_set(void *t) { return atomic_load(&((turn_t *)t)->go); }
static int is_leading(void *t) { return atomic_load(&((turn_t *)t)->leading); }

static void take_turn(void *ctx, zkc_selector_t *sel) {
  (void)sel;
  turn_t *t = ctx;
  atomic_store(&t->leading, 1);
  (void)zkt_await(go_set, t, zkt_ms(10000));
  atomic_store(&t->leading, 0);
}

static zkc_lock_stats_t sel_stats_of(const zkc_selector_t *s) {
  zkc_lock_stats_t st;
  OK(zkc_selector_stats(s, &st));
  return st;
}
static int sel_released(void *s) { return sel_stats_of(s).releases == 1; }

/* A selector counts a turn from queueing to take_leadership, and its end
 * when take_leadership returns. */
static void selector_counts_a_turn(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  const char *path = zkt_path("selector");
  turn_t t = {0};
  zkc_selector_t *sel = NULL;
  OK(zkc_selector_create(&sel, c, path, take_turn, &t, NULL));
  OK(zkc_selector_start(sel));
  assert_true(zkt_await(is_leading, &t, zkt_ms(10000)));
  zkc_lock_stats_t s = sel_stats_of(sel);
  assert_int_equal(s.recipe, ZKC_RECIPE_SELECTOR);
  assert_int_equal(s.acquires, 1);
  assert_int_equal(s.holds, 1);
  hold_for_ms(300);
  atomic_store(&t.go, 1);
  assert_true(zkt_await(sel_released, sel, zkt_ms(10000)));
  s = sel_stats_of(sel);
  assert_int_equal(s.holds, 0);
  assert_true(s.hold.sum_us >= 300000);
  assert_int_equal(s.lost[ZKC_LOST_DELETED] + s.lost[ZKC_LOST_SESSION], 0);
  OK(zkc_selector_destroy(sel));
  zkc_client_close(c);
}

typedef struct {
  pthread_mutex_t mu;
  int rc[4];
  zkc_hold_t *hold[4];
  int done[4];
} answers_t;

static answers_t answers = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void answered(void *ctx, int rc, zkc_hold_t *hold) {
  int i = (int)(intptr_t)ctx;
  pthread_mutex_lock(&answers.mu);
  answers.rc[i] = rc;
  answers.hold[i] = hold;
  answers.done[i] = 1;
  pthread_mutex_unlock(&answers.mu);
}

static int answer_in(void *ctx) {
  int i = (int)(intptr_t)ctx;
  pthread_mutex_lock(&answers.mu);
  int done = answers.done[i];
  pthread_mutex_unlock(&answers.mu);
  return done;
}

static zkc_lock_stats_t async_stats_of(zkc_async_t *a, const char *path) {
  zkc_lock_stats_t st;
  OK(zkc_async_stats(a, path, &st));
  return st;
}

typedef struct {
  zkc_async_t *a;
  const char *path;
} async_path_t;

static int async_lost(void *ctx) {
  async_path_t *ap = ctx;
  return async_stats_of(ap->a, ap->path).lost[ZKC_LOST_DELETED] == 1;
}

/* An async context counts per path: a grant, a timeout behind it, a
 * cancel, a release, and a loss to an outsider's delete. */
static void async_counts_per_path(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  char path[400];
  snprintf(path, sizeof path, "%s", zkt_path("async"));
  zkc_async_t *a = NULL;
  OK(zkc_async_create(&a, c, NULL));
  zkc_lock_stats_t s = async_stats_of(a, path);
  assert_null(s.path); /* nothing asked for yet */
  assert_int_equal(s.acquires, 0);

  OK(zkc_async_acquire(a, path, -1, answered, (void *)0, NULL));
  assert_true(zkt_await(answer_in, (void *)0, zkt_ms(10000)));
  OK(answers.rc[0]);
  OK(zkc_async_acquire(a, path, 200, answered, (void *)1, NULL));
  assert_true(zkt_await(answer_in, (void *)1, zkt_ms(10000)));
  assert_int_equal(answers.rc[1], ZKC_ETIMEDOUT);
  uint64_t id = 0;
  OK(zkc_async_acquire(a, path, -1, answered, (void *)2, &id));
  OK(zkc_async_cancel(a, id));
  assert_true(zkt_await(answer_in, (void *)2, zkt_ms(10000)));
  assert_int_equal(answers.rc[2], ZKC_ECANCELED);
  OK(zkc_hold_release(a, answers.hold[0], NULL, NULL));
  OK(zkc_hold_free(answers.hold[0]));

  OK(zkc_async_acquire(a, path, -1, answered, (void *)3, NULL));
  assert_true(zkt_await(answer_in, (void *)3, zkt_ms(10000)));
  OK(answers.rc[3]);
  char node[1100];
  OK(zkt_hold_node(answers.hold[3], node, sizeof node));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  async_path_t ap = {a, path};
  assert_true(zkt_await(async_lost, &ap, zkt_ms(10000)));

  s = async_stats_of(a, path);
  assert_int_equal(s.recipe, ZKC_RECIPE_ASYNC);
  assert_string_equal(s.path, path);
  assert_int_equal(s.acquires, 2);
  assert_int_equal(s.timeouts, 1);
  assert_int_equal(s.refusals, 1);
  assert_int_equal(s.releases, 1);
  assert_int_equal(s.holds, 1);
  assert_int_equal(s.waiters, 0);
  assert_int_equal(s.wait.count, 2);
  zkc_hold_release(a, answers.hold[3], NULL, NULL); /* ZKC_OK or ELOST */
  OK(zkc_hold_free(answers.hold[3]));
  assert_int_equal(async_stats_of(a, path).holds, 0);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* Every recipe tells the hook outside its own locks: a hook that calls
 * each object's locking calls would hang otherwise (the case's timeout
 * fails it). */
typedef struct {
  zkc_client_t *c;
  zkc_latch_t *latch;
  zkc_selector_t *sel;
  zkc_sem_t *sem;
  zkc_multilock_t *ml;
  zkc_mutex_t *m;
  zkc_async_t *a;
  atomic_int heard[ZKC_RECIPE_ASYNC + 1];
} lockers_t;

static void hook_calls_back(void *ctx, const zkc_event_t *ev) {
  lockers_t *k = ctx;
  zkc_lock_stats_t st;
  switch (ev->recipe) {
    case ZKC_RECIPE_LATCH: (void)zkc_latch_has_leadership(k->latch); break;
    case ZKC_RECIPE_SELECTOR: (void)zkc_selector_has_leadership(k->sel); break;
    case ZKC_RECIPE_SEMAPHORE:
      (void)zkc_sem_set_lost_callback(k->sem, NULL, NULL);
      break;
    case ZKC_RECIPE_MULTILOCK: (void)zkc_hold_is_held(zkc_multilock_hold(k->ml)); break;
    case ZKC_RECIPE_MUTEX:
      (void)zkc_mutex_is_acquired_in_this_process(k->m);
      break;
    case ZKC_RECIPE_ASYNC: (void)zkc_async_cancel(k->a, 1); break;
    default: return;
  }
  zkc_client_stats_t cs;
  (void)zkc_client_stats(k->c, &cs);
  if (ev->path) (void)zkc_async_stats(k->a, ev->path, &st);
  atomic_fetch_add(&k->heard[ev->recipe], 1);
}

static int latch_leads(void *l) { return zkc_latch_has_leadership(l); }
static int latch_lost(void *l) {
  zkc_lock_stats_t s = latch_stats_of(l);
  return s.lost[ZKC_LOST_DELETED] == 1 && s.releases == 1;
}

static void hook_runs_outside_library_locks(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  lockers_t k = {.c = c};
  OK(zkc_client_set_event_hook(c, hook_calls_back, &k));
  k.m = new_mutex(c, zkt_path("hm"));
  zkc_mutex_t *m2 = new_mutex(c, zkt_path("hm2"));
  zkc_mutex_t *set[2] = {k.m, m2};
  OK(zkc_multilock_create(&k.ml, set, 2));
  OK(zkc_sem_create(&k.sem, c, zkt_path("hsem"), NULL));
  OK(zkc_async_create(&k.a, c, NULL));
  OK(zkc_latch_create(&k.latch, c, zkt_path("hlatch"), NULL, NULL));
  turn_t t = {.go = 1};
  OK(zkc_selector_create(&k.sel, c, zkt_path("hsel"), take_turn, &t, NULL));

  OK(zkc_multilock_acquire(k.ml));
  OK(zkc_multilock_release(k.ml));
  zkc_lease_t *lease = NULL;
  OK(zkc_sem_acquire(k.sem, 1, -1, &lease));
  OK(zkc_lease_free(lease));
  answers_t *an = &answers;
  pthread_mutex_lock(&an->mu);
  memset(an->done, 0, sizeof an->done);
  pthread_mutex_unlock(&an->mu);
  OK(zkc_async_acquire(k.a, zkt_path("hasync"), -1, answered, (void *)0, NULL));
  assert_true(zkt_await(answer_in, (void *)0, zkt_ms(10000)));
  OK(an->rc[0]);
  OK(zkc_hold_release(k.a, an->hold[0], NULL, NULL));
  OK(zkc_hold_free(an->hold[0]));
  OK(zkc_latch_start(k.latch));
  assert_true(zkt_await(latch_leads, k.latch, zkt_ms(10000)));
  char node[1100];
  OK(zkt_hold_node(zkc_latch_hold(k.latch), node, sizeof node));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK); /* lost, told */
  assert_true(zkt_await(latch_lost, k.latch, zkt_ms(10000)));
  OK(zkc_selector_start(k.sel));
  assert_true(zkt_await(sel_released, k.sel, zkt_ms(10000)));
  OK(zkc_latch_close(k.latch, ZKC_CLOSE_SILENT));

  /* acquire + release each; the latch's loss and its turns besides */
  assert_int_equal(atomic_load(&k.heard[ZKC_RECIPE_MULTILOCK]), 2);
  assert_int_equal(atomic_load(&k.heard[ZKC_RECIPE_SEMAPHORE]), 2);
  assert_int_equal(atomic_load(&k.heard[ZKC_RECIPE_ASYNC]), 2);
  assert_true(atomic_load(&k.heard[ZKC_RECIPE_SELECTOR]) >= 2);
  assert_true(atomic_load(&k.heard[ZKC_RECIPE_LATCH]) >= 3);
  assert_int_equal(atomic_load(&k.heard[ZKC_RECIPE_MUTEX]), 4); /* the set's */

  OK(zkc_client_set_event_hook(c, NULL, NULL));
  OK(zkc_latch_destroy(k.latch));
  OK(zkc_selector_destroy(k.sel));
  OK(zkc_async_destroy(k.a));
  OK(zkc_sem_destroy(k.sem));
  OK(zkc_multilock_destroy(k.ml));
  OK(zkc_mutex_destroy(k.m));
  OK(zkc_mutex_destroy(m2));
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
  assert_int_equal(zkc_sem_stats(NULL, &ls), ZKC_EINVAL);
  assert_int_equal(zkc_multilock_stats(NULL, &ls), ZKC_EINVAL);
  assert_int_equal(zkc_latch_stats(NULL, &ls), ZKC_EINVAL);
  assert_int_equal(zkc_selector_stats(NULL, &ls), ZKC_EINVAL);
  assert_int_equal(zkc_async_stats(NULL, "/a", &ls), ZKC_EINVAL);
  zkc_async_t *a = NULL;
  OK(zkc_async_create(&a, c, NULL));
  assert_int_equal(zkc_async_stats(a, "no/slash", &ls), ZKC_EINVAL);
  assert_int_equal(zkc_async_stats(a, "/a", NULL), ZKC_EINVAL);
  OK(zkc_async_destroy(a));
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
      cmocka_unit_test(semaphore_counts_a_known_sequence),
      cmocka_unit_test(multilock_counts_the_set),
      cmocka_unit_test(latch_counts_turns_of_leadership),
      cmocka_unit_test(selector_counts_a_turn),
      cmocka_unit_test(async_counts_per_path),
      cmocka_unit_test(hook_runs_outside_library_locks),
      cmocka_unit_test(bad_input_is_refused),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof tests[0], "stats");
}
