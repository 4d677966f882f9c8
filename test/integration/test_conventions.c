/* SPDX-License-Identifier: Apache-2.0 */
/* Rules that hold across the whole API, on the real ensemble: every
 * timeout_ms reads the same way (< 0 without limit, 0 one try, > 0 that
 * many milliseconds: zkcoord/common.h), tried on each call that takes one;
 * and the library's default log output stays a few lines through an
 * outage (the ZooKeeper client's own lines only at ZKC_LOG_DEBUG). One
 * CTest entry per case. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static int64_t long_op(void) { return zkt_ms(20000); }

/* ---- a blocking call on a thread of its own ---- */

typedef struct call {
  pthread_t thread;
  int (*fn)(struct call *);
  void *obj;        /* what fn works on */
  int64_t timeout;  /* the timeout_ms it passes */
  atomic_int done;  /* 1 once fn returned */
  int rc;
} call_t;

static void *call_main(void *arg) {
  call_t *k = arg;
  k->rc = k->fn(k);
  atomic_store(&k->done, 1);
  return NULL;
}

static void call_start(call_t *k, int (*fn)(call_t *), void *obj,
                       int64_t timeout) {
  k->fn = fn;
  k->obj = obj;
  k->timeout = timeout;
  atomic_store(&k->done, 0);
  assert_int_equal(pthread_create(&k->thread, NULL, call_main, k), 0);
}

static int call_done(void *k) { return atomic_load(&((call_t *)k)->done); }

/* Waits for the call to return and gives its result. */
static int call_join(call_t *k) {
  assert_true(zkt_await(call_done, k, long_op()));
  pthread_join(k->thread, NULL);
  return k->rc;
}

/* ---- mutex ---- */

/* Acquires and, when granted, releases again on the same thread. */
static int mutex_call(call_t *k) {
  int rc = zkc_mutex_acquire_timeout(k->obj, k->timeout);
  if (rc == ZKC_OK) rc = zkc_mutex_release(k->obj);
  return rc;
}

/* 0: one try (ETIMEDOUT at once, no node left); -1: waits, in the queue,
 * until the holder releases (was ZKC_EINVAL). */
static void mutex_negative_timeout_waits(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *held, *m;
  OK(zkc_mutex_create(&held, a, path));
  OK(zkc_mutex_create(&m, b, path));
  OK(zkc_mutex_acquire_timeout(held, long_op()));
  call_t k;
  call_start(&k, mutex_call, m, 0);
  assert_int_equal(call_join(&k), ZKC_ETIMEDOUT);
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  call_start(&k, mutex_call, m, -1);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  assert_false(call_done(&k)); /* queued, not refused */
  OK(zkc_mutex_release(held));
  OK(call_join(&k)); /* took it, then released it */
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_mutex_destroy(held));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(b);
  zkc_client_close(a);
}

/* ---- multi-lock ---- */

static int multilock_call(call_t *k) {
  int rc = zkc_multilock_acquire_timeout(k->obj, k->timeout);
  if (rc == ZKC_OK) rc = zkc_multilock_release(k->obj);
  return rc;
}

static void multilock_negative_timeout_waits(void **state) {
  (void)state;
  char p1[600], p2[600];
  snprintf(p1, sizeof p1, "%s", zkt_path("a"));
  snprintf(p2, sizeof p2, "%s", zkt_path("b"));
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *held, *m[2];
  OK(zkc_mutex_create(&held, a, p2));
  OK(zkc_mutex_create(&m[0], b, p1));
  OK(zkc_mutex_create(&m[1], b, p2));
  zkc_multilock_t *ml;
  OK(zkc_multilock_create(&ml, m, 2));
  OK(zkc_mutex_acquire_timeout(held, long_op()));
  call_t k;
  call_start(&k, multilock_call, ml, 0);
  assert_int_equal(call_join(&k), ZKC_ETIMEDOUT);
  call_start(&k, multilock_call, ml, -1);
  assert_true(zkt_await_children_exactly(p2, 2, long_op()));
  assert_false(call_done(&k));
  OK(zkc_mutex_release(held));
  OK(call_join(&k)); /* took both, then released them */
  assert_int_equal(zkt_children_count(p1), 0);
  assert_int_equal(zkt_children_count(p2), 0);
  OK(zkc_multilock_destroy(ml));
  for (int i = 0; i < 2; i++) OK(zkc_mutex_destroy(m[i]));
  OK(zkc_mutex_destroy(held));
  zkc_client_close(b);
  zkc_client_close(a);
}

/* ---- semaphore ---- */

typedef struct {
  zkc_sem_t *sem;
  zkc_lease_t *lease;
} sem_call_t;

static int sem_call(call_t *k) {
  sem_call_t *s = k->obj;
  return zkc_sem_acquire(s->sem, 1, k->timeout, &s->lease);
}

static void sem_negative_timeout_waits(void **state) {
  (void)state;
  char path[600], leases[700];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(leases, sizeof leases, "%s/leases", path);
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_sem_t *sa, *sb;
  OK(zkc_sem_create(&sa, a, path, NULL)); /* a limit of 1 */
  OK(zkc_sem_create(&sb, b, path, NULL));
  zkc_lease_t *held;
  OK(zkc_sem_acquire(sa, 1, long_op(), &held));
  sem_call_t s = {.sem = sb};
  call_t k;
  call_start(&k, sem_call, &s, 0);
  assert_int_equal(call_join(&k), ZKC_ETIMEDOUT);
  call_start(&k, sem_call, &s, -1);
  /* The waiting head's own lease node sits beside the held one. */
  assert_true(zkt_await_children_exactly(leases, 2, long_op()));
  assert_false(call_done(&k));
  OK(zkc_lease_free(held));
  OK(call_join(&k));
  assert_true(zkc_hold_is_held(zkc_lease_hold(s.lease)));
  OK(zkc_lease_free(s.lease));
  OK(zkc_sem_destroy(sa));
  OK(zkc_sem_destroy(sb));
  zkc_client_close(b);
  zkc_client_close(a);
}

/* ---- asynchronous acquire ---- */

typedef struct {
  atomic_int calls;
  int rc;
  zkc_hold_t *hold;
} acquired_t;

static void on_acquired(void *ctx, int rc, zkc_hold_t *hold) {
  acquired_t *r = ctx;
  r->rc = rc;
  r->hold = hold;
  atomic_store(&r->calls, 1);
}

static int acquired(void *ctx) { return atomic_load(&((acquired_t *)ctx)->calls); }

static void async_negative_timeout_waits(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *held;
  OK(zkc_mutex_create(&held, a, path));
  OK(zkc_mutex_acquire_timeout(held, long_op()));
  zkc_async_t *as;
  OK(zkc_async_create(&as, b, NULL));
  acquired_t r0 = {0}, r = {0};
  OK(zkc_async_acquire(as, path, 0, on_acquired, &r0, NULL));
  assert_true(zkt_await(acquired, &r0, long_op()));
  assert_int_equal(r0.rc, ZKC_ETIMEDOUT);
  OK(zkc_async_acquire(as, path, -1, on_acquired, &r, NULL));
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  assert_false(acquired(&r));
  OK(zkc_mutex_release(held));
  assert_true(zkt_await(acquired, &r, long_op()));
  OK(r.rc);
  assert_true(zkc_hold_is_held(r.hold));
  OK(zkc_hold_release(as, r.hold, NULL, NULL));
  OK(zkc_hold_free(r.hold));
  OK(zkc_async_destroy(as));
  OK(zkc_mutex_destroy(held));
  zkc_client_close(b);
  zkc_client_close(a);
}

/* ---- leader latch ---- */

static int latch_call(call_t *k) { return zkc_latch_await(k->obj, k->timeout); }

static void latch_await_negative_timeout_waits(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_latch_t *first, *second;
  OK(zkc_latch_create(&first, a, path, "first", NULL));
  OK(zkc_latch_start(first));
  OK(zkc_latch_await(first, long_op()));
  OK(zkc_latch_create(&second, b, path, "second", NULL));
  OK(zkc_latch_start(second));
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  call_t k;
  call_start(&k, latch_call, second, 0);
  assert_int_equal(call_join(&k), ZKC_ETIMEDOUT);
  call_start(&k, latch_call, second, -1);
  assert_false(call_done(&k));
  OK(zkc_latch_close(first, ZKC_CLOSE_SILENT));
  OK(call_join(&k));
  assert_true(zkc_latch_has_leadership(second));
  OK(zkc_latch_destroy(second));
  OK(zkc_latch_destroy(first));
  zkc_client_close(b);
  zkc_client_close(a);
}

/* ---- default log output through an outage ---- */

typedef struct {
  pthread_mutex_t mu;
  int lines, zk_lines;
  char first[512];
} counted_t;

static void count_line(void *ctx, zkc_log_level_t level, const char *msg) {
  (void)level;
  counted_t *n = ctx;
  pthread_mutex_lock(&n->mu);
  if (n->lines++ == 0) snprintf(n->first, sizeof n->first, "%s", msg);
  n->zk_lines += strstr(msg, ":ZOO_") != NULL;
  pthread_mutex_unlock(&n->mu);
}

static int connected(void *c) {
  zkc_state_t st;
  return zkc_client_state(c, &st) == ZKC_OK &&
         (st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED);
}

static int suspended(void *c) {
  zkc_state_t st;
  return zkc_client_state(c, &st) == ZKC_OK && st == ZKC_STATE_SUSPENDED;
}

/* Connections the proxy accepted so far (refused ones too). */
static long proxy_accepted(zkt_proc_t *proxy) {
  char line[256];
  zkt_send(proxy, "stats");
  assert_true(zkt_expect(proxy, "STATS ", line, sizeof line, long_op()));
  const char *a = strstr(line, "accepted=");
  assert_non_null(a);
  return atol(a + 9);
}

/* The hold stands again: the mutex learns the reconnect from the client's
 * listener thread, a moment after the client's own state says so. */
static int held_again(void *m) { return zkc_hold_is_held(zkc_mutex_hold(m)); }

typedef struct {
  zkt_proc_t *proxy;
  long want;
} accepted_t;

static int accepted_enough(void *ctx) {
  accepted_t *a = ctx;
  return proxy_accepted(a->proxy) >= a->want;
}

/* A client with the default options (log level ERROR) through an outage
 * in which the ZooKeeper client tries to reconnect again and again: the
 * library's output is a few lines, not one or more per attempt, and none
 * of the ZooKeeper client's own (those come at ZKC_LOG_DEBUG only). The
 * lock held meanwhile survives (the session does). */
static void default_log_quiet_through_outage(void **state) {
  (void)state;
  counted_t n = {.mu = PTHREAD_MUTEX_INITIALIZER};
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = count_line;
  o.log_ctx = &n;
  o.session_timeout_ms = 30000; /* outlives the outage */
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *c = NULL;
  OK(zkc_client_open(&c, zkt_proxy_connect(&proxy), &o));
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, zkt_path("lock")));
  OK(zkc_mutex_acquire_timeout(m, long_op()));
  long before = proxy_accepted(&proxy);
  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  assert_true(zkt_await(suspended, c, long_op()));
  /* Ten reconnect attempts refused. */
  accepted_t attempts = {&proxy, before + 10};
  assert_true(zkt_await(accepted_enough, &attempts, long_op()));
  zkt_proxy_cmd(&proxy, "refuse off");
  assert_true(zkt_await(connected, c, long_op()));
  assert_true(zkt_await(held_again, m, long_op()));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
  pthread_mutex_lock(&n.mu);
  printf("figure: %d line(s) at the default level through 10 refused "
         "reconnects%s%s\n", n.lines, n.lines ? ", first: " : "", n.first);
  assert_int_equal(n.zk_lines, 0);
  assert_true(n.lines <= 3);
  pthread_mutex_unlock(&n.mu);
}

/* Connected again after a drop: the cut is over for this client (its
 * state alone may still say connected before it noticed the cut). */
static int reconnected(void *c) {
  zkc_client_stats_t st;
  return zkc_client_stats(c, &st) == ZKC_OK && st.reconnects > 0 &&
         connected(c);
}

/* The same client at ZKC_LOG_DEBUG gets the ZooKeeper client's lines. */
static void zookeeper_lines_at_debug_only(void **state) {
  (void)state;
  counted_t dbg = {.mu = PTHREAD_MUTEX_INITIALIZER},
            info = {.mu = PTHREAD_MUTEX_INITIALIZER};
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = count_line;
  o.log_ctx = &info;
  o.log_level = ZKC_LOG_INFO;
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *ci = NULL, *cd = NULL;
  OK(zkc_client_open(&ci, zkt_proxy_connect(&proxy), &o));
  o.log_ctx = &dbg;
  o.log_level = ZKC_LOG_DEBUG;
  OK(zkc_client_open(&cd, zkt_proxy_connect(&proxy), &o));
  zkt_proxy_cmd(&proxy, "cut");
  assert_true(zkt_await(reconnected, ci, long_op()));
  assert_true(zkt_await(reconnected, cd, long_op()));
  zkc_client_close(cd);
  zkc_client_close(ci);
  zkt_proxy_stop(&proxy);
  assert_true(dbg.zk_lines > 0);
  assert_int_equal(info.zk_lines, 0);
}

/* ---- one path, one recipe: a recipe refuses a path that holds another
 * recipe's nodes (ZKC_ELAYOUT), leaves nothing there and changes nothing
 * of the recipe that holds it ---- */

#define OKL(expr) assert_int_equal((expr), ZKC_OK)

static int children(const char *path) { return zkt_children_count(path); }

static void message_names(const char *path) {
  const char *msg = zkc_last_error_message();
  if (strstr(msg, path) == NULL || strstr(msg, "refused") == NULL)
    fail_msg("message '%s' does not name %s and the refusal", msg, path);
}

/* The case: a semaphore on a mutex's path is refused; the mutex
 * stays held, and no locks/ or leases/ is left under its path. */
static void layout_semaphore_refused_on_mutex_path(void **state) {
  (void)state;
  zkt_make_root();
  char p[600];
  snprintf(p, sizeof p, "%s", zkt_path("shared"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OKL(zkc_mutex_create(&m, c, p));
  OKL(zkc_mutex_acquire(m));
  zkc_sem_t *sem = NULL;
  OKL(zkc_sem_create(&sem, c, p, NULL));
  zkc_lease_t *lease = NULL;
  assert_int_equal(zkc_sem_acquire(sem, 1, zkt_ms(2000), &lease), ZKC_ELAYOUT);
  assert_null(lease);
  message_names(p);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_int_equal(children(p), 1); /* the mutex's node only */
  OKL(zkc_mutex_release(m));
  OKL(zkc_sem_destroy(sem));
  OKL(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static int selector_failed(void *ctx) {
  return zkc_selector_error((zkc_selector_t *)ctx) == ZKC_ELAYOUT;
}
static void never_leads(void *ctx, zkc_selector_t *sel) {
  (void)sel;
  atomic_store((atomic_int *)ctx, 1);
}
typedef struct acq_result {
  atomic_int done;
  int rc;
} acq_result_t;
static void acq_done(void *ctx, int rc, zkc_hold_t *hold) {
  acq_result_t *r = ctx;
  r->rc = rc;
  zkc_hold_free(hold);
  atomic_store(&r->done, 1);
}
static int acq_finished(void *ctx) {
  return atomic_load(&((acq_result_t *)ctx)->done);
}
/* The plain-lock recipes besides the mutex m on path p (a multi-lock with
 * m, an async acquire, a selector): each refused with ZKC_ELAYOUT, nothing
 * taken. plain_locks_free ends them. */
typedef struct plain_locks {
  zkc_mutex_t *other;
  zkc_multilock_t *ml;
  zkc_async_t *a;
  zkc_selector_t *sel;
  atomic_int led;
} plain_locks_t;

static void plain_locks_refused(plain_locks_t *pl, zkc_client_t *c,
                                zkc_mutex_t *m, const char *p) {
  memset(pl, 0, sizeof *pl);
  OKL(zkc_mutex_create(&pl->other, c, zkt_path("free")));
  zkc_mutex_t *set[2] = {pl->other, m};
  OKL(zkc_multilock_create(&pl->ml, set, 2));
  assert_int_equal(zkc_multilock_acquire_timeout(pl->ml, zkt_ms(2000)),
                   ZKC_ELAYOUT);
  assert_false(
      zkc_mutex_is_acquired_in_this_process(pl->other)); /* all or nothing */

  OKL(zkc_async_create(&pl->a, c, NULL));
  acq_result_t r = {0};
  OKL(zkc_async_acquire(pl->a, p, zkt_ms(2000), acq_done, &r, NULL));
  assert_true(zkt_await(acq_finished, &r, zkt_ms(10000)));
  assert_int_equal(r.rc, ZKC_ELAYOUT);

  OKL(zkc_selector_create(&pl->sel, c, p, never_leads, &pl->led, NULL));
  OKL(zkc_selector_start(pl->sel));
  assert_true(zkt_await(selector_failed, pl->sel, zkt_ms(10000)));
  assert_int_equal(atomic_load(&pl->led), 0);
}

static void plain_locks_free(plain_locks_t *pl) {
  zkc_selector_destroy(pl->sel);
  OKL(zkc_async_destroy(pl->a));
  zkc_multilock_destroy(pl->ml);
  OKL(zkc_mutex_destroy(pl->other));
}

/* Every lock-queue recipe (mutex, both sides of a read-write lock, a
 * multi-lock over it, the async acquire, the leader selector) and the
 * leader latch refuse a semaphore's path; the lease stays held and the
 * path keeps exactly locks/ and leases/, with the one lease. */
static void layout_locks_refused_on_semaphore_path(void **state) {
  (void)state;
  zkt_make_root();
  char p[600];
  snprintf(p, sizeof p, "%s", zkt_path("sem"));
  char leases[700];
  snprintf(leases, sizeof leases, "%s/leases", p);
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *sem = NULL;
  OKL(zkc_sem_create(&sem, c, p, NULL));
  zkc_lease_t *lease = NULL;
  OKL(zkc_sem_acquire(sem, 1, zkt_ms(5000), &lease));

  zkc_mutex_t *m = NULL;
  OKL(zkc_mutex_create(&m, c, p));
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(2000)), ZKC_ELAYOUT);
  message_names(p);
  assert_int_equal(zkc_mutex_acquire(m), ZKC_ELAYOUT); /* no limit: at once */
  assert_false(zkc_mutex_is_acquired_in_this_process(m));

  zkc_rwlock_t *rw = NULL;
  OKL(zkc_rwlock_create(&rw, c, p));
  assert_int_equal(
      zkc_mutex_acquire_timeout(zkc_rwlock_write_side(rw), zkt_ms(2000)),
      ZKC_ELAYOUT);
  assert_int_equal(
      zkc_mutex_acquire_timeout(zkc_rwlock_read_side(rw), zkt_ms(2000)),
      ZKC_ELAYOUT);

  plain_locks_t pl;
  plain_locks_refused(&pl, c, m, p);

  zkc_latch_t *l = NULL;
  OKL(zkc_latch_create(&l, c, p, "a", NULL));
  OKL(zkc_latch_start(l));
  assert_int_equal(zkc_latch_await(l, zkt_ms(10000)), ZKC_ELAYOUT);
  assert_int_equal(zkc_latch_error(l), ZKC_ELAYOUT);

  /* the semaphore stands as it was */
  assert_true(zkc_hold_is_held(zkc_lease_hold(lease)));
  assert_int_equal(children(p), 2); /* locks/ and leases/ only */
  assert_int_equal(children(leases), 1);

  OKL(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  zkc_latch_destroy(l);
  plain_locks_free(&pl);
  OKL(zkc_rwlock_destroy(rw));
  OKL(zkc_mutex_destroy(m));
  zkc_lease_free(lease);
  OKL(zkc_sem_destroy(sem));
  zkc_client_close(c);
}

/* A leader election's path refuses locks and semaphores; a lock's path
 * refuses a latch. The holder in place keeps leading or holding. */
static void layout_election_and_lock_paths(void **state) {
  (void)state;
  zkt_make_root();
  char ep[600], lp[600];
  snprintf(ep, sizeof ep, "%s", zkt_path("election"));
  snprintf(lp, sizeof lp, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *l = NULL;
  OKL(zkc_latch_create(&l, c, ep, "leader", NULL));
  OKL(zkc_latch_start(l));
  OKL(zkc_latch_await(l, zkt_ms(10000)));
  zkc_mutex_t *m = NULL;
  OKL(zkc_mutex_create(&m, c, ep));
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(2000)), ZKC_ELAYOUT);
  message_names(ep);
  zkc_sem_t *sem = NULL;
  OKL(zkc_sem_create(&sem, c, ep, NULL));
  zkc_lease_t *lease = NULL;
  assert_int_equal(zkc_sem_acquire(sem, 1, zkt_ms(2000), &lease), ZKC_ELAYOUT);
  assert_true(zkc_latch_has_leadership(l));
  assert_int_equal(children(ep), 1); /* the latch's node only */

  zkc_mutex_t *holder = NULL;
  OKL(zkc_mutex_create(&holder, c, lp));
  OKL(zkc_mutex_acquire(holder));
  zkc_latch_t *l2 = NULL;
  OKL(zkc_latch_create(&l2, c, lp, "b", NULL));
  OKL(zkc_latch_start(l2));
  assert_int_equal(zkc_latch_await(l2, zkt_ms(10000)), ZKC_ELAYOUT);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(holder)));
  assert_int_equal(children(lp), 1);

  OKL(zkc_latch_close(l2, ZKC_CLOSE_SILENT));
  zkc_latch_destroy(l2);
  OKL(zkc_mutex_release(holder));
  OKL(zkc_mutex_destroy(holder));
  OKL(zkc_sem_destroy(sem));
  OKL(zkc_mutex_destroy(m));
  OKL(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  zkc_latch_destroy(l);
  zkc_client_close(c);
}

/* A kazoo or Curator mutex's node is a lock's: a zkcoord mutex queues
 * behind it (no refusal), a semaphore is refused. */
static void layout_peer_mutex_is_a_lock(void **state) {
  (void)state;
  zkt_make_root();
  char p[600];
  snprintf(p, sizeof p, "%s", zkt_path("peer"));
  assert_int_equal(
      zoo_create(zkt_raw(), p, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0),
      ZOK);
  char kazoo[700], made[800];
  snprintf(kazoo, sizeof kazoo, "%s/0123456789abcdef0123456789abcdef__lock__",
           p);
  assert_int_equal(zoo_create(zkt_raw(), kazoo, "k", 1, &ZOO_OPEN_ACL_UNSAFE,
                              ZOO_EPHEMERAL_SEQUENTIAL, made, sizeof made),
                   ZOK);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OKL(zkc_mutex_create(&m, c, p));
  assert_int_equal(zkc_mutex_acquire_timeout(m, 0), ZKC_ETIMEDOUT);
  zkc_sem_t *sem = NULL;
  OKL(zkc_sem_create(&sem, c, p, NULL));
  zkc_lease_t *lease = NULL;
  assert_int_equal(zkc_sem_acquire(sem, 1, zkt_ms(2000), &lease), ZKC_ELAYOUT);
  assert_int_equal(children(p), 1); /* the peer's node only */
  assert_int_equal(zoo_delete(zkt_raw(), made, -1), ZOK);
  OKL(zkc_sem_destroy(sem));
  OKL(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* A plain lock and a read-write lock refuse each other's path: peers'
 * readers would join a mutex's holder, peers' mutexes a reader. Every
 * plain-lock recipe (mutex, multi-lock, async acquire, selector) refuses
 * a path where zkcoord's readers and writers hold; the readers hold on and
 * nothing else is left there. */
static void layout_plain_locks_refused_on_read_write_path(void **state) {
  (void)state;
  zkt_make_root();
  char p[600];
  snprintf(p, sizeof p, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw = NULL;
  OKL(zkc_rwlock_create(&rw, c, p));
  OKL(zkc_mutex_acquire(zkc_rwlock_read_side(rw)));

  zkc_mutex_t *m = NULL;
  OKL(zkc_mutex_create(&m, c, p));
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(2000)), ZKC_ELAYOUT);
  message_names(p);
  assert_non_null(strstr(zkc_last_error_message(), "read-write lock"));
  /* the refusal, written deep in the run, still names the call first */
  assert_int_equal(strncmp(zkc_last_error_message(), "zkc_mutex_acquire_timeout: ",
                           strlen("zkc_mutex_acquire_timeout: ")), 0);
  assert_int_equal(zkc_mutex_acquire(m), ZKC_ELAYOUT); /* no limit: at once */

  plain_locks_t pl;
  plain_locks_refused(&pl, c, m, p);

  /* a writer's node is refused alike */
  OKL(zkc_mutex_release(zkc_rwlock_read_side(rw)));
  OKL(zkc_mutex_acquire(zkc_rwlock_write_side(rw)));
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(2000)), ZKC_ELAYOUT);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(zkc_rwlock_write_side(rw))));
  assert_int_equal(children(p), 1); /* the writer's node only */
  OKL(zkc_mutex_release(zkc_rwlock_write_side(rw)));

  plain_locks_free(&pl);
  OKL(zkc_mutex_destroy(m));
  OKL(zkc_rwlock_destroy(rw));
  zkc_client_close(c);
}

/* Both sides of a read-write lock refuse a path where a zkcoord mutex
 * holds; the mutex holds on and nothing else is left there. */
static void layout_read_write_lock_refused_on_mutex_path(void **state) {
  (void)state;
  zkt_make_root();
  char p[600];
  snprintf(p, sizeof p, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OKL(zkc_mutex_create(&m, c, p));
  OKL(zkc_mutex_acquire(m));
  zkc_rwlock_t *rw = NULL;
  OKL(zkc_rwlock_create(&rw, c, p));
  assert_int_equal(
      zkc_mutex_acquire_timeout(zkc_rwlock_read_side(rw), zkt_ms(2000)),
      ZKC_ELAYOUT);
  message_names(p);
  assert_non_null(strstr(zkc_last_error_message(), "plain lock"));
  assert_int_equal(
      zkc_mutex_acquire_timeout(zkc_rwlock_write_side(rw), zkt_ms(2000)),
      ZKC_ELAYOUT);
  assert_int_equal(zkc_mutex_acquire(zkc_rwlock_write_side(rw)), ZKC_ELAYOUT);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_int_equal(children(p), 1); /* the mutex's node only */
  OKL(zkc_mutex_release(m));
  OKL(zkc_rwlock_destroy(rw));
  OKL(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* A refused argument says why: to the thread (zkc_last_error_message) and
 * through the client's log sink at error level. */
static void refusal_says_why(void **state) {
  (void)state;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = zkt_log_keep;
  o.log_ctx = (void *)(intptr_t)ZKC_LOG_ERROR;
  zkc_client_t *c = zkt_open(&o);
  zkc_mutex_t *m = (zkc_mutex_t *)1;
  assert_int_equal(zkc_mutex_create(&m, c, "locks/a"), ZKC_EINVAL);
  assert_null(m);
  const char *want =
      "zkc_mutex_create: invalid lock path 'locks/a': it must "
      "be absolute (start with '/')";
  assert_string_equal(zkc_last_error_message(), want);
  assert_true(zkt_log_has((void *)want));
  zkc_sem_t *sem = NULL;
  assert_int_equal(
      zkc_sem_create(&sem, c, "/s", &(zkc_sem_opts_t){.max_leases = 0}),
      ZKC_EINVAL);
  assert_string_equal(zkc_last_error_message(),
                      "zkc_sem_create: max_leases 0 is below 1");
  zkc_client_close(c);
}

/* A loopback port nobody listens on: one the kernel handed out, closed. */
static int closed_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(s >= 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
  close(s);
  return ntohs(a.sin_port);
}

static void expect_message(const char *fn, int rc) {
  char want[512];
  snprintf(want, sizeof want, "%s: %s", fn, zkc_strerror(rc));
  assert_string_equal(zkc_last_error_message(), want);
}

/* zkc_last_error_message describes the thread's last failed call: each
 * failure replaces an older failure's text, one without detail (ENOTOWNER,
 * ETIMEDOUT, a server's ENONODE, ELOST) included; a failure to connect says
 * so; a success leaves it. */
static void last_error_describes_last_failure(void **state) {
  (void)state;
  zkt_make_root();
  char p[600];
  snprintf(p, sizeof p, "%s", zkt_path("shared"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = NULL, *other = NULL;
  OKL(zkc_mutex_create(&m, c, p));
  OKL(zkc_mutex_create(&other, c, zkt_path("other")));
  OKL(zkc_mutex_acquire(m));
  zkc_sem_t *sem = NULL;
  OKL(zkc_sem_create(&sem, c, p, NULL));
  zkc_lease_t *lease = NULL;
  assert_int_equal(zkc_sem_acquire(sem, 1, zkt_ms(2000), &lease), ZKC_ELAYOUT);
  message_names(p);

  /* A later failure without detail: its own text, not the layout's. */
  assert_int_equal(zkc_mutex_release(other), ZKC_ENOTOWNER);
  expect_message("zkc_mutex_release", ZKC_ENOTOWNER);
  /* A NULL argument: named. */
  assert_int_equal(zkc_mutex_release(NULL), ZKC_EINVAL);
  assert_string_equal(zkc_last_error_message(),
                      "zkc_mutex_release: mutex is NULL");
  /* A success changes nothing. */
  OKL(zkc_mutex_release(m));
  assert_string_equal(zkc_last_error_message(),
                      "zkc_mutex_release: mutex is NULL");
  assert_int_equal(zkc_hold_fencing_token(zkc_mutex_hold(m), &(int64_t){0}),
                   ZKC_ENOTOWNER);
  expect_message("zkc_hold_fencing_token", ZKC_ENOTOWNER);

  /* A wait that runs out, a server's answer and a lost hold: each its own
   * text, replacing the one before. */
  OKL(zkc_mutex_acquire(m));
  zkc_client_t *c2 = zkt_open(NULL);
  zkc_mutex_t *rival = NULL;
  OKL(zkc_mutex_create(&rival, c2, p));
  assert_int_equal(zkc_mutex_acquire_timeout(rival, 0), ZKC_ETIMEDOUT);
  expect_message("zkc_mutex_acquire_timeout", ZKC_ETIMEDOUT);
  char absent[700];
  snprintf(absent, sizeof absent, "%s/absent", zkt_path("data"));
  assert_int_equal(zkc_hold_fenced_set(zkc_mutex_hold(m), absent, "x", 1),
                   ZKC_ENONODE);
  const char *said = zkc_last_error_message();
  if (strncmp(said, "zkc_hold_fenced_set: ", 21) != 0 ||
      strstr(said, zkc_strerror(ZKC_ENONODE)) == NULL)
    fail_msg("after ZKC_ENONODE the message is '%s'", said);
  zkc_list_t *mine = NULL;
  OKL(zkc_hold_node_list(zkc_mutex_hold(m), &mine));
  zkt_delete_tree(zkc_list_string(mine, 0)); /* an outsider's delete */
  zkc_list_free(mine);
  int rc = zkc_hold_fenced_set(zkc_mutex_hold(m), absent, "x", 1);
  if (rc != ZKC_ELOST) fail_msg("fenced write after the delete: %s", zkc_err_name(rc));
  said = zkc_last_error_message();
  if (strncmp(said, "zkc_hold_fenced_set: ", 21) != 0 ||
      strstr(said, zkc_strerror(ZKC_ELOST)) == NULL)
    fail_msg("after ZKC_ELOST the message is '%s'", said);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  expect_message("zkc_mutex_release", ZKC_ELOST);
  OKL(zkc_mutex_destroy(rival));
  zkc_client_close(c2);

  /* No ensemble where it points: ECONNECT, with the address and the wait. */
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.connect_timeout_ms = 300;
  char where[64];
  snprintf(where, sizeof where, "127.0.0.1:%d", closed_port());
  zkc_client_t *none = NULL;
  assert_int_equal(zkc_client_open(&none, where, &o), ZKC_ECONNECT);
  assert_null(none);
  const char *msg = zkc_last_error_message();
  if (strncmp(msg, "zkc_client_open: ", 17) != 0 || strstr(msg, where) == NULL ||
      strstr(msg, "300 ms") == NULL ||
      strstr(msg, zkc_strerror(ZKC_ECONNECT)) == NULL)
    fail_msg("after ZKC_ECONNECT the message is '%s'", msg);
  /* A name that does not resolve: said at once, naming it. */
  assert_int_equal(zkc_client_open(&none, "zkc-test-host.invalid:2181", &o),
                   ZKC_ECONNECT);
  msg = zkc_last_error_message();
  if (strstr(msg, "zkc_client_open: cannot resolve host "
                  "'zkc-test-host.invalid'") != msg)
    fail_msg("after an unresolved name the message is '%s'", msg);

  OKL(zkc_sem_destroy(sem));
  OKL(zkc_mutex_destroy(other));
  OKL(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mutex_negative_timeout_waits),
      cmocka_unit_test(multilock_negative_timeout_waits),
      cmocka_unit_test(sem_negative_timeout_waits),
      cmocka_unit_test(async_negative_timeout_waits),
      cmocka_unit_test(latch_await_negative_timeout_waits),
      cmocka_unit_test(default_log_quiet_through_outage),
      cmocka_unit_test(zookeeper_lines_at_debug_only),
      cmocka_unit_test(layout_semaphore_refused_on_mutex_path),
      cmocka_unit_test(layout_locks_refused_on_semaphore_path),
      cmocka_unit_test(layout_election_and_lock_paths),
      cmocka_unit_test(layout_peer_mutex_is_a_lock),
      cmocka_unit_test(layout_plain_locks_refused_on_read_write_path),
      cmocka_unit_test(layout_read_write_lock_refused_on_mutex_path),
      cmocka_unit_test(refusal_says_why),
      cmocka_unit_test(last_error_describes_last_failure),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "conventions");
}
