/* SPDX-License-Identifier: Apache-2.0 */
/* Reads and compare-and-set writes under a hold (zkc_hold_fenced_get,
 * zkc_hold_fenced_cas) on the real ensemble: one CTest entry per case. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "kernel_door.h" /* the read pinned to one session, asked directly */
#include "session.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

/* The stored value of the protected node: a decimal count. */
static const char *data_path(void) {
  static char buf[600];
  snprintf(buf, sizeof buf, "%s", zkt_path("data"));
  return buf;
}

static void make_data(const char *value) {
  zkt_make_root();
  int rc = zoo_create(zkt_raw(), data_path(), value, (int)strlen(value),
                      &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  if (rc != ZOK) fail_msg("create %s: %s", data_path(), zerror(rc));
}

/* The node's data and version as the ensemble has them (the raw handle
 * syncs before it reads). */
static int32_t raw_version(void) {
  struct Stat st;
  assert_true(zkt_exists(data_path(), &st));
  return st.version;
}
static void assert_raw(const char *value, int32_t version) {
  char buf[64];
  assert_int_equal(zkt_get_data(data_path(), buf, sizeof buf), (int)strlen(value));
  assert_string_equal(buf, value);
  assert_int_equal(raw_version(), version);
}

/* A client on the n-th server (1..3) of the test ensemble only, so that
 * holders read through sessions on different servers. */
static zkc_client_t *open_on_server(int n) {
  char hosts[512], connect[512];
  const char *cs = zkt_connect();
  const char *chroot = cs + strcspn(cs, "/");
  snprintf(hosts, sizeof hosts, "%.*s", (int)(chroot - cs), cs);
  char *save = NULL, *h = strtok_r(hosts, ",", &save);
  for (int i = 1; h != NULL && i < n; i++) h = strtok_r(NULL, ",", &save);
  if (h == NULL) fail_msg("the test ensemble has no server %d", n);
  snprintf(connect, sizeof connect, "%s%s", h, chroot);
  zkc_client_t *c = NULL;
  int rc = zkc_client_open(&c, connect, NULL);
  if (rc != ZKC_OK) fail_msg("open %s: %s", connect, zkc_strerror(rc));
  return c;
}

static zkc_mutex_t *new_mutex(zkc_client_t *c) {
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, zkt_path("lock")));
  return m;
}

/* fenced_get of a decimal count; fails the test on any error. */
static long get_count(zkc_mutex_t *m, int32_t *version) {
  char *data = NULL;
  size_t len = 0;
  OK(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), &data, &len, version));
  assert_non_null(data);
  assert_int_equal(strlen(data), len);
  char *end;
  long v = strtol(data, &end, 10);
  assert_true(len > 0 && *end == '\0');
  free(data);
  return v;
}

static int put_count(zkc_mutex_t *m, long value, int32_t version,
                     int32_t *new_version) {
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%ld", value);
  return zkc_hold_fenced_cas(zkc_mutex_hold(m), data_path(), buf, (size_t)n, version,
                              new_version);
}

/* ---------------------------------------------------------------------- */

/* Holders on three servers take turns; each reads, through its hold, the
 * count the previous holder wrote through another server, and writes it
 * one higher. */
static void read_sees_writes_of_earlier_holds(void **state) {
  (void)state;
  make_data("0");
  zkc_client_t *c[3];
  zkc_mutex_t *m[3];
  for (int i = 0; i < 3; i++) {
    c[i] = open_on_server(i + 1);
    m[i] = new_mutex(c[i]);
  }
  for (int round = 0; round < 30; round++) {
    zkc_mutex_t *h = m[round % 3];
    OK(zkc_mutex_acquire(h));
    int32_t version = -7, next = -7;
    assert_int_equal(get_count(h, &version), round);
    assert_int_equal(version, round);
    OK(put_count(h, round + 1, version, &next));
    assert_int_equal(next, version + 1);
    OK(zkc_mutex_release(h));
  }
  assert_raw("30", 30);
  for (int i = 0; i < 3; i++) {
    OK(zkc_mutex_destroy(m[i]));
    zkc_client_close(c[i]);
  }
}

/* A compare-and-set with a version that is no longer the node's is
 * refused and changes nothing; the hold stands. */
static void stale_version_changes_nothing(void **state) {
  (void)state;
  make_data("5");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c);
  OK(zkc_mutex_acquire(m));
  int32_t v = -1, v1 = -1, unchanged = 77;
  assert_int_equal(get_count(m, &v), 5);
  OK(put_count(m, 6, v, &v1));
  assert_int_equal(v1, v + 1);
  /* The version of the first read is stale now. */
  assert_int_equal(put_count(m, 99, v, &unchanged), ZKC_EBADVERSION);
  assert_int_equal(unchanged, 77);
  assert_raw("6", v1);
  /* A write by someone who does not take the lock makes v1 stale too. */
  assert_int_equal(zoo_set(zkt_raw(), data_path(), "40", 2, v1), ZOK);
  assert_int_equal(put_count(m, 7, v1, NULL), ZKC_EBADVERSION);
  assert_raw("40", v1 + 1);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  int32_t v2 = -1;
  assert_int_equal(get_count(m, &v2), 40);
  assert_int_equal(v2, v1 + 1);
  OK(put_count(m, 41, v2, NULL));
  assert_raw("41", v2 + 1);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* The lock node deleted by an outsider: the compare-and-set is refused in
 * the transaction (nothing set, even with the right version) and the hold
 * is lost. */
static void outside_delete_fails_cas_and_loses_hold(void **state) {
  (void)state;
  make_data("1");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c);
  OK(zkc_mutex_acquire(m));
  int32_t v = -1;
  assert_int_equal(get_count(m, &v), 1);
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_int_equal(put_count(m, 2, v, NULL), ZKC_ELOST);
  assert_raw("1", v);
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_true(zkc_mutex_is_owned_by_current_thread(m));
  char *data = (char *)1;
  size_t len = 0;
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), &data, &len, &v),
                   ZKC_ELOST);
  assert_null(data);
  assert_int_equal(put_count(m, 2, v, NULL), ZKC_ELOST);
  assert_raw("1", v);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* Another thread of the process, while the first holds the mutex. */
typedef struct other {
  zkc_mutex_t *m;
  int get_rc, cas_rc;
  char *data;
} other_t;
static void *other_thread(void *arg) {
  other_t *o = arg;
  size_t len = 0;
  int32_t v = 0;
  o->data = (char *)1;
  o->get_rc = zkc_hold_fenced_get(zkc_mutex_hold(o->m), data_path(), &o->data, &len, &v);
  o->cas_rc = zkc_hold_fenced_cas(zkc_mutex_hold(o->m), data_path(), "x", 1, 0, NULL);
  return NULL;
}

/* Calls that must be refused change nothing: without a hold, from a thread
 * that does not hold, with bad arguments, on a missing node. */
static void refusals_change_nothing(void **state) {
  (void)state;
  make_data("3");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c);
  char *data = (char *)1;
  size_t len = 0;
  int32_t v = 0;
  /* no hold */
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), &data, &len, &v),
                   ZKC_ENOTOWNER);
  assert_null(data);
  assert_int_equal(zkc_hold_fenced_cas(zkc_mutex_hold(m), data_path(), "9", 1, 0, NULL),
                   ZKC_ENOTOWNER);
  OK(zkc_mutex_acquire(m));
  /* another thread */
  other_t o = {.m = m};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, other_thread, &o), 0);
  pthread_join(t, NULL);
  assert_int_equal(o.get_rc, ZKC_ENOTOWNER);
  assert_null(o.data);
  assert_int_equal(o.cas_rc, ZKC_ENOTOWNER);
  /* bad arguments */
  data = (char *)1;
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(NULL), data_path(), &data, &len, &v),
                   ZKC_EINVAL);
  assert_null(data);
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), NULL, &data, &len, &v), ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), "data", &data, &len, &v), ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), NULL, &len, &v),
                   ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), &data, NULL, &v),
                   ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), &data, &len, NULL),
                   ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_cas(zkc_mutex_hold(NULL), data_path(), "9", 1, 0, NULL),
                   ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_cas(zkc_mutex_hold(m), "/a//b", "9", 1, 0, NULL), ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_cas(zkc_mutex_hold(m), data_path(), NULL, 1, 0, NULL),
                   ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_cas(zkc_mutex_hold(m), data_path(), "9", 1, -1, NULL),
                   ZKC_EINVAL);
  /* a missing node: neither read nor created */
  char missing[600];
  snprintf(missing, sizeof missing, "%s", zkt_path("missing"));
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), missing, &data, &len, &v), ZKC_ENONODE);
  assert_null(data);
  assert_int_equal(zkc_hold_fenced_cas(zkc_mutex_hold(m), missing, "9", 1, 0, NULL), ZKC_ENONODE);
  assert_false(zkt_exists(missing, NULL));
  /* none of it changed the node or the hold */
  assert_raw("3", 0);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_int_equal(get_count(m, &v), 3);
  OK(zkc_mutex_release(m));
  assert_int_equal(zkc_hold_fenced_cas(zkc_mutex_hold(m), data_path(), "9", 1, 0, NULL),
                   ZKC_ENOTOWNER);
  assert_raw("3", 0);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static int get_in_session(zkc_client_t *c, const char *path, int64_t session) {
  zkc__op_t op;
  OK(zkc__op_init(&op));
  zkc__send(c, &op,
            &(zkc__req_t){.kind = ZKC__REQ_GET_IN_SESSION,
                          .path = path,
                          .session = session});
  int rc = zkc__op_wait(&op);
  zkc__op_clear(&op);
  return rc;
}

/* Once the hold's session is over, a read is refused, and never goes
 * through the client's new session (which did not see the grant). */
static void read_refused_once_session_replaced(void **state) {
  (void)state;
  make_data("8");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c);
  OK(zkc_mutex_acquire(m));
  int32_t v = -1;
  assert_int_equal(get_count(m, &v), 8);
  zkt_new_session_t ns = {c, zkt_expire_session(c)};
  char *data = (char *)1;
  size_t len = 0;
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), &data, &len, &v),
                   ZKC_ELOST);
  assert_null(data);
  assert_int_equal(put_count(m, 9, v, NULL), ZKC_ELOST);
  assert_true(zkt_await(zkt_has_new_session, &ns, zkt_ms(15000)));
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), data_path(), &data, &len, &v),
                   ZKC_ELOST);
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m)));
  /* The pinned read itself: refused on the new handle for the old
   * session, served for the current one. */
  int64_t now = 0;
  OK(zkc_client_session_id(c, &now));
  assert_int_equal(get_in_session(c, data_path(), ns.old), ZKC_ESESSIONEXPIRED);
  OK(get_in_session(c, data_path(), now));
  assert_raw("8", v);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* The check and set of every fenced write, asked on a handle whose
 * session has ended but that the client has not replaced yet (its LOST
 * listener holds the maintenance thread): refused, and nothing freed that
 * the caller owns (the 3.8 C client's zoo_amulti frees the check path on
 * such a handle: a double free here, under ASan or glibc's checks). */
typedef struct blocker {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int lost, go;
} blocker_t;
static int wait_flag(blocker_t *b, int *flag, int64_t timeout_ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += timeout_ms / 1000;
  pthread_mutex_lock(&b->mu);
  while (!*flag && pthread_cond_timedwait(&b->cv, &b->mu, &until) == 0) {
  }
  int got = *flag;
  pthread_mutex_unlock(&b->mu);
  return got;
}
static void set_flag(blocker_t *b, int *flag) {
  pthread_mutex_lock(&b->mu);
  *flag = 1;
  pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
}
static void hold_at_lost(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)c;
  blocker_t *b = ctx;
  if (st != ZKC_STATE_LOST) return;
  set_flag(b, &b->lost);
  wait_flag(b, &b->go, zkt_ms(30000));
}
static void check_set_on_ended_session_is_refused(void **state) {
  (void)state;
  make_data("0");
  zkc_client_t *c = zkt_open(NULL);
  blocker_t b = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  OK(zkc_client_add_listener(c, hold_at_lost, &b));
  zkt_new_session_t ns = {c, zkt_expire_session(c)};
  assert_true(wait_flag(&b, &b.lost, zkt_ms(15000)));
  char *check = strdup(data_path());
  zkc__call_t w = {.rq = {.kind = ZKC__REQ_CHECK_SET, .check = check,
                          .path = data_path(), .data = "x", .len = 1,
                          .version = -1},
                   .failed = 7};
  assert_int_equal(zkc__call(c, &w, 1, NULL), ZKC_ESESSIONEXPIRED);
  assert_int_equal(w.failed, -1);
  free(check);
  set_flag(&b, &b.go);
  assert_true(zkt_await(zkt_has_new_session, &ns, zkt_ms(15000)));
  OK(zkc_client_remove_listener(c, hold_at_lost, &b));
  assert_raw("0", 0);
  zkc_client_close(c);
}

/* The write side of a read-write lock writes by compare-and-set; its
 * readers read through their read holds; the read side cannot write. */
static void rwlock_sides(void **state) {
  (void)state;
  make_data("0");
  zkc_client_t *a = open_on_server(1), *b = open_on_server(3);
  zkc_rwlock_t *rwa, *rwb;
  OK(zkc_rwlock_create(&rwa, a, zkt_path("lock")));
  OK(zkc_rwlock_create(&rwb, b, zkt_path("lock")));
  zkc_mutex_t *wr = zkc_rwlock_write_side(rwa), *rd = zkc_rwlock_read_side(rwb);
  for (int i = 0; i < 5; i++) {
    OK(zkc_mutex_acquire(wr));
    int32_t v = -1;
    assert_int_equal(get_count(wr, &v), i);
    OK(put_count(wr, i + 1, v, NULL));
    OK(zkc_mutex_release(wr));
    OK(zkc_mutex_acquire(rd));
    assert_int_equal(get_count(rd, &v), i + 1);
    assert_int_equal(v, i + 1);
    assert_int_equal(put_count(rd, 99, v, NULL), ZKC_EINVAL);
    OK(zkc_mutex_release(rd));
  }
  assert_raw("5", 5);
  OK(zkc_rwlock_destroy(rwa));
  OK(zkc_rwlock_destroy(rwb));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* A read-modify-write counter: threads of three clients (one per server,
 * two threads sharing each client's mutex) increment it under the lock
 * through a fenced read and a compare-and-set. No increment is lost, and
 * none is refused: under the lock the read is always the latest value. */
#define COUNTER_CLIENTS 3
#define COUNTER_THREADS 2
#define COUNTER_ROUNDS 25
typedef struct counter_worker {
  zkc_mutex_t *m;
  int failures;
  int first_rc;
} counter_worker_t;
static void *counter_loop(void *arg) {
  counter_worker_t *w = arg;
  for (int i = 0; i < COUNTER_ROUNDS; i++) {
    int rc = zkc_mutex_acquire_timeout(w->m, zkt_ms(60000));
    if (rc == ZKC_OK) {
      char *data = NULL;
      size_t len = 0;
      int32_t v = 0;
      rc = zkc_hold_fenced_get(zkc_mutex_hold(w->m), data_path(), &data, &len, &v);
      if (rc == ZKC_OK) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "%ld", strtol(data, NULL, 10) + 1);
        rc = zkc_hold_fenced_cas(zkc_mutex_hold(w->m), data_path(), buf, (size_t)n, v, NULL);
      }
      free(data);
      int rrc = zkc_mutex_release(w->m);
      if (rc == ZKC_OK) rc = rrc;
    }
    if (rc != ZKC_OK && w->failures++ == 0) w->first_rc = rc;
  }
  return NULL;
}
static void counter_under_contention(void **state) {
  (void)state;
  make_data("0");
  zkc_client_t *c[COUNTER_CLIENTS];
  zkc_mutex_t *m[COUNTER_CLIENTS];
  counter_worker_t w[COUNTER_CLIENTS * COUNTER_THREADS];
  pthread_t t[COUNTER_CLIENTS * COUNTER_THREADS];
  for (int i = 0; i < COUNTER_CLIENTS; i++) {
    c[i] = open_on_server(i % 3 + 1);
    m[i] = new_mutex(c[i]);
  }
  int n = COUNTER_CLIENTS * COUNTER_THREADS;
  for (int i = 0; i < n; i++) {
    w[i] = (counter_worker_t){.m = m[i % COUNTER_CLIENTS]};
    assert_int_equal(pthread_create(&t[i], NULL, counter_loop, &w[i]), 0);
  }
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < n; i++)
    if (w[i].failures)
      fail_msg("worker %d: %d increments failed, first with %s", i,
               w[i].failures, zkc_err_name(w[i].first_rc));
  char want[32];
  snprintf(want, sizeof want, "%d", n * COUNTER_ROUNDS);
  assert_raw(want, n * COUNTER_ROUNDS);
  for (int i = 0; i < COUNTER_CLIENTS; i++) {
    OK(zkc_mutex_destroy(m[i]));
    zkc_client_close(c[i]);
  }
}

/* An async acquire's result. */
typedef struct got {
  atomic_int done;
  int rc;
  zkc_hold_t *hold;
} got_t;
static void on_got(void *ctx, int rc, zkc_hold_t *hold) {
  got_t *g = ctx;
  g->rc = rc;
  g->hold = hold;
  atomic_store(&g->done, 1);
}
static int got_done(void *ctx) { return atomic_load(&((got_t *)ctx)->done); }

/* The data node of a lock's first use: created under the hold, its parents
 * with it; a second create finds it (nothing written); a read-modify-write
 * that starts from nothing (get: ZKC_ENONODE, create) works; the read side
 * of a read-write lock may not create. */
static void create_makes_the_data_node(void **state) {
  (void)state;
  zkt_make_root();
  char path[700];
  snprintf(path, sizeof path, "%s/shop/stock", zkt_root());
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c);
  assert_int_equal(zkc_hold_fenced_create(zkc_mutex_hold(m), path, "5", 1), ZKC_ENOTOWNER);
  assert_false(zkt_exists(path, NULL));
  OK(zkc_mutex_acquire(m));
  char *data = NULL;
  size_t len = 0;
  int32_t v = -1;
  assert_int_equal(zkc_hold_fenced_get(zkc_mutex_hold(m), path, &data, &len, &v), ZKC_ENONODE);
  OK(zkc_hold_fenced_create(zkc_mutex_hold(m), path, "5", 1));
  OK(zkc_hold_fenced_get(zkc_mutex_hold(m), path, &data, &len, &v));
  assert_string_equal(data, "5");
  assert_int_equal(v, 0);
  free(data);
  struct Stat st;
  assert_true(zkt_exists(path, &st));
  assert_int_equal(st.ephemeralOwner, 0); /* persistent: outlives the hold */
  /* there already: nothing written */
  assert_int_equal(zkc_hold_fenced_create(zkc_mutex_hold(m), path, "7", 1), ZKC_ENODEEXISTS);
  char buf[16];
  assert_int_equal(zkt_get_data(path, buf, sizeof buf), 1);
  assert_string_equal(buf, "5");
  OK(zkc_hold_fenced_cas(zkc_mutex_hold(m), path, "4", 1, 0, &v));
  assert_int_equal(v, 1);
  OK(zkc_mutex_release(m));
  /* the read side */
  zkc_rwlock_t *rw = NULL;
  OK(zkc_rwlock_create(&rw, c, zkt_path("rw")));
  zkc_mutex_t *rd = zkc_rwlock_read_side(rw);
  OK(zkc_mutex_acquire(rd));
  char other[700];
  snprintf(other, sizeof other, "%s/by-reader", zkt_root());
  assert_int_equal(zkc_hold_fenced_create(zkc_mutex_hold(rd), other, "x", 1), ZKC_EINVAL);
  assert_non_null(strstr(zkc_last_error_message(), "read side"));
  assert_false(zkt_exists(other, NULL));
  OK(zkc_mutex_release(rd));
  /* an async hold creates the same way */
  zkc_async_t *a = NULL;
  OK(zkc_async_create(&a, c, NULL));
  got_t g = {0};
  OK(zkc_async_acquire(a, zkt_path("lock"), zkt_ms(5000), on_got, &g, NULL));
  assert_true(zkt_await(got_done, &g, zkt_ms(10000)));
  OK(g.rc);
  snprintf(other, sizeof other, "%s/async/node", zkt_root());
  OK(zkc_hold_fenced_create(g.hold, other, "a", 1));
  assert_int_equal(zkc_hold_fenced_create(g.hold, other, "b", 1),
                   ZKC_ENODEEXISTS);
  assert_int_equal(zkt_get_data(other, buf, sizeof buf), 1);
  assert_string_equal(buf, "a");
  zkc_hold_free(g.hold);
  OK(zkc_async_destroy(a));
  OK(zkc_rwlock_destroy(rw));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* A holder whose lock node is gone creates nothing: the check and the
 * create are one transaction. */
static void create_after_loss_creates_nothing(void **state) {
  (void)state;
  zkt_make_root();
  char path[700];
  snprintf(path, sizeof path, "%s/late", zkt_root());
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c);
  OK(zkc_mutex_acquire(m));
  char node[700];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  /* someone deletes our lock node (an operator, a second holder's cure) */
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_int_equal(zkc_hold_fenced_create(zkc_mutex_hold(m), path, "x", 1), ZKC_ELOST);
  assert_false(zkt_exists(path, NULL));
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m)));
  (void)zkc_mutex_release(m);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(read_sees_writes_of_earlier_holds),
      cmocka_unit_test(stale_version_changes_nothing),
      cmocka_unit_test(outside_delete_fails_cas_and_loses_hold),
      cmocka_unit_test(refusals_change_nothing),
      cmocka_unit_test(read_refused_once_session_replaced),
      cmocka_unit_test(check_set_on_ended_session_is_refused),
      cmocka_unit_test(rwlock_sides),
      cmocka_unit_test(counter_under_contention),
      cmocka_unit_test(create_makes_the_data_node),
      cmocka_unit_test(create_after_loss_creates_nothing),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof tests[0], "fenced");
}
