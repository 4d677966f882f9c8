/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore on the real ensemble: one CTest entry per case. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static zkc_sem_t *new_sem(zkc_client_t *c, const char *path, int max,
                          const char *count_path) {
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = max;
  o.count_path = count_path;
  zkc_sem_t *s = NULL;
  OK(zkc_sem_create(&s, c, path, &o));
  return s;
}

/* "<root>/sem/leases" and "<root>/sem/locks" (static buffers). */
static const char *sub(const char *path, const char *leaf) {
  static char buf[2][700];
  static int i;
  i = !i;
  snprintf(buf[i], sizeof buf[i], "%s/%s", path, leaf);
  return buf[i];
}

/* ---------------------------------------------------------------------- */

/* N+3 contenders (each its own client) never exceed N holders: checked live
 * with a counter and afterwards from the recorded hold intervals. */
#define N_MAX 3
#define N_WORKERS (N_MAX + 3)
#define ROUNDS 6

static atomic_int holders, peak;
static int64_t iv_start[N_WORKERS * ROUNDS], iv_end[N_WORKERS * ROUNDS];
static atomic_int iv_n;

typedef struct worker {
  const char *path;
  int rc;
} worker_t;

static void *contend(void *arg) {
  worker_t *w = arg;
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, w->path, N_MAX, NULL);
  for (int r = 0; r < ROUNDS && w->rc == ZKC_OK; r++) {
    zkc_lease_t *l;
    w->rc = zkc_sem_acquire(s, 1, zkt_ms(30000), &l);
    if (w->rc != ZKC_OK) break;
    int64_t t0 = zkt_now_ns();
    int now = atomic_fetch_add(&holders, 1) + 1;
    int p = atomic_load(&peak);
    while (now > p && !atomic_compare_exchange_weak(&peak, &p, now)) {
    }
    /* The work done under the lease: 15 ms, and until a second holder came
     * (or half a second passed), so that the semaphore's admitting several
     * at once shows however slow each acquire is on a loaded machine. */
    int64_t until = zkt_now_ms() + zkt_ms(500);
    usleep(15000);
    while (atomic_load(&holders) < 2 && zkt_now_ms() < until) usleep(1000);
    atomic_fetch_sub(&holders, 1);
    int64_t t1 = zkt_now_ns();
    w->rc = zkc_lease_free(l);
    int k = atomic_fetch_add(&iv_n, 1);
    iv_start[k] = t0, iv_end[k] = t1;
  }
  zkc_sem_destroy(s);
  zkc_client_close(c);
  return NULL;
}

static void never_more_than_n(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  atomic_store(&holders, 0), atomic_store(&peak, 0), atomic_store(&iv_n, 0);
  worker_t w[N_WORKERS];
  pthread_t t[N_WORKERS];
  for (int i = 0; i < N_WORKERS; i++) {
    w[i] = (worker_t){path, ZKC_OK};
    pthread_create(&t[i], NULL, contend, &w[i]);
  }
  for (int i = 0; i < N_WORKERS; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(w[i].rc, ZKC_OK);
  }
  int n = atomic_load(&iv_n);
  assert_int_equal(n, N_WORKERS * ROUNDS);
  int most = zkt_max_concurrent(iv_start, iv_end, n);
  printf("peak %d concurrent holders (intervals), %d (counter), limit %d\n",
         most, atomic_load(&peak), N_MAX);
  assert_true(most <= N_MAX);
  assert_true(atomic_load(&peak) <= N_MAX);
  assert_true(most >= 2); /* the semaphore did admit several at once */
  assert_int_equal(zkt_children_count(sub(path, "leases")), 0);
  assert_int_equal(zkt_children_count(sub(path, "locks")), 0);
}

/* A waiter thread: acquires once and keeps the lease until told. */
typedef struct waiter {
  zkc_sem_t *s;
  unsigned qty;
  int64_t timeout;
  int rc;
  zkc_lease_t *lease;
  atomic_int admitted; /* 1 once zkc_sem_acquire returned ZKC_OK */
} waiter_t;

static void *wait_lease(void *arg) {
  waiter_t *w = arg;
  w->rc = zkc_sem_acquire(w->s, w->qty, w->timeout, &w->lease);
  if (w->rc == ZKC_OK) atomic_store(&w->admitted, 1);
  return NULL;
}

static int is_admitted(void *ctx) { return atomic_load(&((waiter_t *)ctx)->admitted); }

/* The lease's fencing token: the czxid of its lease node, which the
 * admitted contender creates while it heads the queue; 0 if none. */
static int64_t lease_token(waiter_t *w) {
  int64_t t = 0;
  if (!atomic_load(&w->admitted) || zkc_hold_fencing_token(zkc_lease_hold(w->lease), &t) != ZKC_OK) return 0;
  return t;
}

/* Admission follows the queue order on locks/. The order is read from
 * what the library orders, the lease nodes' czxids (a contender makes its
 * lease node only once it heads the queue, after the one before it was
 * admitted), not from when the threads happened to run after admission.
 * Every lease is freed before any assertion, so a failure leaves nothing
 * behind. */
static void fifo_admission(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  char locks[600], leases[600];
  snprintf(locks, sizeof locks, "%s", sub(path, "locks"));
  snprintf(leases, sizeof leases, "%s", sub(path, "leases"));
  zkc_client_t *hc = zkt_open(NULL);
  zkc_sem_t *hs = new_sem(hc, path, 2, NULL);
  zkc_lease_t *all;
  OK(zkc_sem_acquire(hs, 2, -1, &all)); /* both leases */
  zkc_client_t *c[3];
  waiter_t w[3];
  pthread_t t[3];
  int queued = 0;
  for (int i = 0; i < 3; i++) {
    c[i] = zkt_open(NULL);
    w[i] = (waiter_t){.s = new_sem(c[i], path, 2, NULL), .qty = 1, .timeout = -1};
    pthread_create(&t[i], NULL, wait_lease, &w[i]);
    /* In the queue before the next one starts. */
    queued += zkt_await_children_exactly(locks, i + 1, zkt_ms(10000));
  }
  /* the head's lease counts (its node made by its own thread: awaited) */
  int head_counts = zkt_await_children_exactly(leases, 3, zkt_ms(10000))
                        ? 3 : zkt_children_count(leases);
  int freed_all = zkc_lease_free(all);
  int first_two = zkt_await(is_admitted, &w[0], zkt_ms(10000)) &&
                  zkt_await(is_admitted, &w[1], zkt_ms(10000));
  /* The third heads the queue with its lease node made, and waits: 3 > 2. */
  int third_waits = zkt_await_children_exactly(leases, 3, zkt_ms(10000)) &&
                    !atomic_load(&w[2].admitted);
  int64_t tok0 = lease_token(&w[0]), tok1 = lease_token(&w[1]);
  int freed_first = atomic_load(&w[0].admitted) ? zkc_lease_free(w[0].lease) : ZKC_OK;
  int third = zkt_await(is_admitted, &w[2], zkt_ms(10000));
  int64_t tok2 = lease_token(&w[2]);
  /* Whatever happened above: every lease goes, so each waiter returns. */
  int rc[3], freed[3];
  for (int i = 0; i < 3; i++) {
    pthread_join(t[i], NULL);
    rc[i] = w[i].rc;
    freed[i] = i > 0 && rc[i] == ZKC_OK ? zkc_lease_free(w[i].lease) : ZKC_OK;
    OK(zkc_sem_destroy(w[i].s));
    zkc_client_close(c[i]);
  }
  OK(zkc_sem_destroy(hs));
  zkc_client_close(hc);
  printf("lease tokens in admission order: %lld %lld %lld\n", (long long)tok0,
         (long long)tok1, (long long)tok2);
  assert_int_equal(queued, 3);
  assert_int_equal(head_counts, 3);
  OK(freed_all);
  assert_true(first_two);
  assert_true(third_waits);
  OK(freed_first);
  assert_true(third);
  for (int i = 0; i < 3; i++) {
    OK(rc[i]);
    OK(freed[i]);
  }
  assert_true(tok0 > 0 && tok0 < tok1 && tok1 < tok2); /* queue order */
  assert_int_equal(zkt_children_count(leases), 0);
}

/* The shared count, raised and lowered while contenders wait. */
static void shared_count_changes_reach_waiters(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  char count[600], leases[600], locks[600];
  snprintf(count, sizeof count, "%s", zkt_path("count"));
  snprintf(leases, sizeof leases, "%s", sub(path, "leases"));
  snprintf(locks, sizeof locks, "%s", sub(path, "locks"));
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL), *x = zkt_open(NULL);
  OK(zkc_shared_count_set(a, count, 1));
  char raw[8];
  assert_int_equal(zkt_get_data(count, raw, sizeof raw), 4);
  assert_memory_equal(raw, "\0\0\0\1", 4); /* Curator's SharedCount bytes */
  assert_true(zkt_await_shared_count(b, count, 1, zkt_ms(10000)));

  zkc_sem_t *sa = new_sem(a, path, 5, count), *sb = new_sem(b, path, 5, count),
            *sx = new_sem(x, path, 5, count);
  zkc_lease_t *la;
  OK(zkc_sem_acquire(sa, 1, -1, &la));
  waiter_t wb = {.s = sb, .qty = 1, .timeout = -1};
  pthread_t tb, tx;
  pthread_create(&tb, NULL, wait_lease, &wb);
  assert_true(zkt_await_children_exactly(leases, 2, zkt_ms(10000)));
  assert_int_equal(atomic_load(&wb.admitted), 0);
  OK(zkc_shared_count_set(a, count, 2)); /* raised: b fits now */
  assert_true(zkt_await(is_admitted, &wb, zkt_ms(10000)));
  pthread_join(tb, NULL);
  OK(wb.rc);

  OK(zkc_shared_count_set(a, count, 1)); /* lowered: nothing revoked */
  assert_true(zkc_hold_is_held(zkc_lease_hold(la)));
  assert_true(zkc_hold_is_held(zkc_lease_hold(wb.lease)));
  waiter_t wx = {.s = sx, .qty = 1, .timeout = -1};
  pthread_create(&tx, NULL, wait_lease, &wx);
  assert_true(zkt_await_children_exactly(leases, 3, zkt_ms(10000)));
  OK(zkc_lease_free(wb.lease)); /* a and x: 2 > 1, x still waits */
  assert_true(zkt_await_children_exactly(leases, 2, zkt_ms(10000)));
  assert_int_equal(zkt_children_count(locks), 1);
  assert_int_equal(atomic_load(&wx.admitted), 0);
  OK(zkc_lease_free(la));
  assert_true(zkt_await(is_admitted, &wx, zkt_ms(10000)));
  pthread_join(tx, NULL);
  OK(wx.rc);
  OK(zkc_lease_free(wx.lease));
  OK(zkc_sem_destroy(sa));
  OK(zkc_sem_destroy(sb));
  OK(zkc_sem_destroy(sx));
  zkc_client_close(a);
  zkc_client_close(b);
  zkc_client_close(x);
  zkt_delete_tree(count);
}

/* A count node that is not 4 bytes is refused, and nothing is left. */
static void malformed_count_refused(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  char count[600];
  snprintf(count, sizeof count, "%s", zkt_path("count"));
  assert_int_equal(zkt_make_root(), ZOK);
  assert_int_equal(zoo_create(zkt_raw(), count, "\0\0\1", 3, &ZOO_OPEN_ACL_UNSAFE,
                              0, NULL, 0), ZOK);
  zkc_client_t *c = zkt_open(NULL);
  int32_t v;
  assert_int_equal(zkc_shared_count_get(c, count, &v), ZKC_EPROTO);
  zkc_sem_t *s = new_sem(c, path, 1, count);
  zkc_lease_t *l;
  assert_int_equal(zkc_sem_acquire(s, 1, zkt_ms(5000), &l), ZKC_EPROTO);
  assert_null(l);
  assert_int_equal(zkt_children_count(sub(path, "leases")), 0);
  assert_int_equal(zkt_children_count(sub(path, "locks")), 0);
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
  zkt_delete_tree(count);
}

/* Curator's acquire(2) from two clients with max 2 can deadlock (each takes
 * one lease, then waits for a second while one holds the queue). zkcoord
 * creates both under the queue: every round completes. */
typedef struct multi {
  const char *path;
  int rc, rounds;
} multi_t;

static void *take_two(void *arg) {
  multi_t *m = arg;
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, m->path, 2, NULL);
  for (int r = 0; r < 15; r++) {
    zkc_lease_t *l;
    m->rc = zkc_sem_acquire(s, 2, zkt_ms(20000), &l);
    if (m->rc != ZKC_OK) break;
    int now = atomic_fetch_add(&holders, 2) + 2;
    if (now > 2) m->rc = -1;
    atomic_fetch_sub(&holders, 2);
    m->rc = m->rc ? m->rc : zkc_lease_free(l);
    if (m->rc != ZKC_OK) break;
    m->rounds++;
  }
  zkc_sem_destroy(s);
  zkc_client_close(c);
  return NULL;
}

static void multi_lease_no_deadlock(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  atomic_store(&holders, 0);
  multi_t m[2] = {{path, 0, 0}, {path, 0, 0}};
  pthread_t t[2];
  int64_t t0 = zkt_now_ms();
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, take_two, &m[i]);
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    OK(m[i].rc);
    assert_int_equal(m[i].rounds, 15);
  }
  printf("30 acquisitions of 2 leases in %lld ms\n",
         (long long)(zkt_now_ms() - t0));
  assert_int_equal(zkt_children_count(sub(path, "leases")), 0);
}

static void qty_over_max_rejected(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 2, NULL);
  zkc_lease_t *l = (zkc_lease_t *)1;
  assert_int_equal(zkc_sem_acquire(s, 3, -1, &l), ZKC_EINVAL);
  assert_null(l);
  assert_int_equal(zkc_sem_acquire(s, 0, -1, &l), ZKC_EINVAL);
  assert_int_equal(zkt_children_count(path), -1); /* nothing made */
  OK(zkc_sem_acquire(s, 2, zkt_ms(5000), &l));
  char **nodes;
  size_t n;
  OK(zkt_lease_nodes(l, &nodes, &n));
  assert_int_equal(n, 2);
  assert_non_null(strstr(nodes[0], "/leases/_c_"));
  assert_non_null(strstr(nodes[0], "-lease-"));
  struct Stat st0, st1;
  assert_true(zkt_exists(nodes[0], &st0));
  assert_true(zkt_exists(nodes[1], &st1));
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_lease_hold(l), &token));
  assert_int_equal(token, st1.czxid); /* the newest node's czxid */
  assert_true(st0.czxid < st1.czxid);
  zkt_strings_free(nodes, n);
  OK(zkc_lease_release(l));
  assert_int_equal(zkc_lease_release(l), ZKC_ENOTOWNER); /* exactly once */
  assert_int_equal(zkc_hold_fencing_token(zkc_lease_hold(l), &token), ZKC_ENOTOWNER);
  assert_false(zkc_hold_is_held(zkc_lease_hold(l)));
  OK(zkc_lease_free(l));
  assert_int_equal(zkt_children_count(sub(path, "leases")), 0);
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

/* A head whose queue read showed room lets its queue node go in the very
 * transaction that makes its lease: once locks/ reads empty, the zxid of
 * its last change (pzxid: the queue node's delete) is the lease's czxid,
 * which is the fencing token. The waiter is woken behind an outsider's
 * queue node, so that it reads leases/ with the queue (the read behind a
 * create reads none). */
static void lease_made_with_the_queue_nodes_delete(void **state) {
  (void)state;
  char path[600], locks[700], blocker[800];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(locks, sizeof locks, "%s/locks", path);
  zkc_client_t *c = zkt_open(NULL);
  waiter_t w = {.s = new_sem(c, path, 2, NULL), .qty = 1,
                .timeout = zkt_ms(10000)};
  zkc_lease_t *l;
  OK(zkc_sem_acquire(w.s, 1, zkt_ms(5000), &l)); /* the path made */
  OK(zkc_lease_free(l));
  /* Its queue node's delete was not waited for. */
  assert_true(zkt_await_children_exactly(locks, 0, zkt_ms(5000)));
  zkt_raw_child(locks, "_c_blocker-lock-", blocker, sizeof blocker);
  zkt_run_behind(c, locks, blocker, wait_lease, &w);
  assert_int_equal(w.rc, ZKC_OK);
  char **nodes;
  size_t n;
  OK(zkt_lease_nodes(w.lease, &nodes, &n));
  assert_int_equal(n, 1);
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_lease_hold(w.lease), &token));
  assert_true(zkt_await_children_exactly(locks, 0, zkt_ms(5000)));
  struct Stat lease, queue;
  assert_true(zkt_exists(nodes[0], &lease));
  assert_true(zkt_exists(locks, &queue));
  zkt_strings_free(nodes, n);
  OK(zkc_lease_free(w.lease));
  OK(zkc_sem_destroy(w.s));
  zkc_client_close(c);
  assert_int_equal(token, lease.czxid);
  assert_int_equal(queue.pzxid, lease.czxid);
}

/* A semaphore of 1 is a mutex that is not reentrant: the second acquire
 * through the same object fails at once instead of stalling the path. */
static void semaphore_mutex_double_acquire(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  char count[600];
  snprintf(count, sizeof count, "%s", zkt_path("count"));
  zkc_client_t *c = zkt_open(NULL), *d = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 1, NULL), *other = new_sem(d, path, 1, NULL);
  zkc_lease_t *l, *l2 = NULL;
  OK(zkc_sem_acquire(s, 1, -1, &l));
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_sem_acquire(s, 1, -1, &l2), ZKC_EDEADLK);
  assert_true(zkt_now_ms() - t0 < zkt_ms(1000));
  assert_null(l2);
  assert_int_equal(zkt_children_count(sub(path, "leases")), 1);
  assert_int_equal(zkt_children_count(sub(path, "locks")), 0);
  assert_int_equal(zkc_sem_acquire(other, 1, 0, &l2), ZKC_ETIMEDOUT);
  assert_int_equal(zkc_sem_destroy(s), ZKC_EBUSY);
  OK(zkc_lease_free(l));
  OK(zkc_sem_acquire(other, 1, zkt_ms(5000), &l2));
  OK(zkc_lease_free(l2));

  /* With a shared count of 1, found when the count is read. */
  zkc_sem_t *sc = new_sem(c, zkt_path("sem2"), 1, count);
  OK(zkc_sem_acquire(sc, 1, -1, &l));
  assert_int_equal(zkc_sem_acquire(sc, 1, -1, &l2), ZKC_EDEADLK);
  assert_int_equal(zkt_children_count(sub(zkt_path("sem2"), "leases")), 1);
  assert_int_equal(zkt_children_count(sub(zkt_path("sem2"), "locks")), 0);
  OK(zkc_lease_free(l));
  OK(zkc_sem_destroy(sc));
  OK(zkc_sem_destroy(s));
  OK(zkc_sem_destroy(other));
  zkc_client_close(c);
  zkc_client_close(d);
  zkt_delete_tree(count);
}

static void timeout_leaves_no_node(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_sem_t *sa = new_sem(a, path, 1, NULL), *sb = new_sem(b, path, 1, NULL);
  zkc_lease_t *la, *lb = NULL;
  OK(zkc_sem_acquire(sa, 1, -1, &la));
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_sem_acquire(sb, 1, zkt_ms(300), &lb), ZKC_ETIMEDOUT);
  assert_true(zkt_now_ms() - t0 >= zkt_ms(300) - 5);
  assert_int_equal(zkc_sem_acquire(sb, 1, 0, &lb), ZKC_ETIMEDOUT);
  /* nothing of sb's left (its deletes may finish in the background) */
  assert_true(zkt_await_children_exactly(sub(path, "leases"), 1, zkt_ms(10000)));
  assert_true(zkt_await_children_exactly(sub(path, "locks"), 0, zkt_ms(10000)));
  OK(zkc_lease_free(la));
  OK(zkc_sem_destroy(sa));
  OK(zkc_sem_destroy(sb));
  zkc_client_close(a);
  zkc_client_close(b);
}

static void close_completes_waiters(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_sem_t *sa = new_sem(a, path, 1, NULL);
  zkc_lease_t *la;
  OK(zkc_sem_acquire(sa, 1, -1, &la));
  waiter_t w[3];
  pthread_t t[3];
  for (int i = 0; i < 3; i++) {
    w[i] = (waiter_t){.s = new_sem(b, path, 1, NULL), .qty = 1, .timeout = -1};
    pthread_create(&t[i], NULL, wait_lease, &w[i]);
  }
  assert_true(zkt_await_children_exactly(sub(path, "locks"), 3, zkt_ms(10000)));
  zkc_client_close(b);
  for (int i = 0; i < 3; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(w[i].rc, ZKC_ECLOSED);
    OK(zkc_sem_destroy(w[i].s));
  }
  assert_int_equal(zkt_children_count(sub(path, "locks")), 0);
  assert_int_equal(zkt_children_count(sub(path, "leases")), 1);
  assert_true(zkc_hold_is_held(zkc_lease_hold(la)));
  OK(zkc_lease_free(la));
  OK(zkc_sem_destroy(sa));
  zkc_client_close(a);
}

static void holder_killed_frees_lease(void **state) {
  (void)state;
  const int session_ms = 6000; /* outlives the refusal below on a loaded machine */
  char path[512], session[16];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(session, sizeof session, "%d", session_ms);
  const char *holder_bin = getenv("ZKT_HOLDER");
  assert_non_null(holder_bin);
  setenv("ZKT_HOLDER_SEM", "1", 1);
  char *argv[] = {(char *)holder_bin, (char *)zkt_connect(), path, session, NULL};
  zkt_proc_t p = zkt_spawn(argv);
  unsetenv("ZKT_HOLDER_SEM");
  char line[1300];
  assert_true(zkt_expect(&p, "HELD ", line, sizeof line, zkt_ms(15000)));

  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 1, NULL);
  zkc_lease_t *l;
  assert_int_equal(zkc_sem_acquire(s, 1, 0, &l), ZKC_ETIMEDOUT);
  kill(p.pid, SIGKILL);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkt_wait(&p, zkt_ms(5000)), 128 + SIGKILL);
  OK(zkc_sem_acquire(s, 1, session_ms + zkt_ms(3000), &l));
  printf("lease freed %lld ms after SIGKILL (session timeout %d ms)\n",
         (long long)(zkt_now_ms() - t0), session_ms);
  OK(zkc_lease_free(l));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

static atomic_int lost_reason;
static atomic_llong lost_token;
static void on_lost(void *ctx, zkc_sem_t *s, zkc_lost_reason_t why,
                    int64_t token) {
  (void)ctx, (void)s;
  atomic_store(&lost_token, token);
  atomic_store(&lost_reason, (int)why);
}
static int was_lost(void *ctx) { (void)ctx; return atomic_load(&lost_reason); }

static void session_expiry_reported(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 2, NULL);
  atomic_store(&lost_reason, 0);
  OK(zkc_sem_set_lost_callback(s, on_lost, NULL));
  zkc_lease_t *l;
  OK(zkc_sem_acquire(s, 1, -1, &l));
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_lease_hold(l), &token));
  zkt_expire_session(c);
  assert_true(zkt_await(was_lost, NULL, zkt_ms(15000)));
  assert_int_equal(atomic_load(&lost_reason), ZKC_LOST_SESSION);
  assert_int_equal(atomic_load(&lost_token), token);
  assert_false(zkc_hold_is_held(zkc_lease_hold(l)));
  assert_int_equal(zkc_lease_release(l), ZKC_ELOST);
  OK(zkc_lease_free(l));
  assert_int_equal(zkt_children_count(sub(path, "leases")), 0);
  /* The client's new session takes leases again. */
  OK(zkc_sem_acquire(s, 2, zkt_ms(15000), &l));
  OK(zkc_lease_free(l));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

static void outside_delete_reported(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 1, NULL);
  atomic_store(&lost_reason, 0);
  OK(zkc_sem_set_lost_callback(s, on_lost, NULL));
  zkc_lease_t *l;
  OK(zkc_sem_acquire(s, 1, -1, &l));
  char **nodes;
  size_t n;
  OK(zkt_lease_nodes(l, &nodes, &n));
  assert_int_equal(zoo_delete(zkt_raw(), nodes[0], -1), ZOK);
  zkt_strings_free(nodes, n);
  assert_true(zkt_await(was_lost, NULL, zkt_ms(10000)));
  assert_int_equal(atomic_load(&lost_reason), ZKC_LOST_DELETED);
  assert_false(zkc_hold_is_held(zkc_lease_hold(l)));
  assert_int_equal(zkc_lease_free(l), ZKC_ELOST);
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

/* Every lost lease is named, however many one object holds. */
static atomic_int lost_calls;
static void count_lost(void *ctx, zkc_sem_t *s, zkc_lost_reason_t why,
                       int64_t token) {
  (void)ctx, (void)s, (void)why, (void)token;
  atomic_fetch_add(&lost_calls, 1);
}
static int all_lost(void *ctx) { return atomic_load(&lost_calls) >= *(int *)ctx; }

#define MANY_LEASES 20
static void every_lost_lease_told(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, MANY_LEASES, NULL);
  atomic_store(&lost_calls, 0);
  OK(zkc_sem_set_lost_callback(s, count_lost, NULL));
  zkc_lease_t *l[MANY_LEASES];
  for (int i = 0; i < MANY_LEASES; i++) OK(zkc_sem_acquire(s, 1, -1, &l[i]));
  zkt_expire_session(c);
  int want = MANY_LEASES;
  assert_true(zkt_await(all_lost, &want, zkt_ms(15000)));
  assert_int_equal(atomic_load(&lost_calls), MANY_LEASES);
  for (int i = 0; i < MANY_LEASES; i++) {
    assert_false(zkc_hold_is_held(zkc_lease_hold(l[i])));
    assert_int_equal(zkc_lease_free(l[i]), ZKC_ELOST);
  }
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
  assert_true(zkt_await_closed(sub(path, "leases"), 0));
}

/* An outsider deletes the waiting head's queue node, so a second client
 * becomes head too: the first sees it has lost its place and queues again
 * instead of both waiting for ever on each other's pending lease. */
static int leases_exactly(void *ctx) {
  return zkt_children_count(sub(ctx, "leases")) == 2 &&
         zkt_children_count(sub(ctx, "locks")) == 2;
}

static int either_admitted(void *ctx) {
  waiter_t *w = ctx;
  return atomic_load(&w[0].admitted) || atomic_load(&w[1].admitted);
}

static void deleted_queue_node_leaves_one_head(void **state) {
  (void)state;
  char path[600], locks[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(locks, sizeof locks, "%s", sub(path, "locks"));
  zkc_client_t *hc = zkt_open(NULL);
  zkc_sem_t *hs = new_sem(hc, path, 1, NULL);
  zkc_lease_t *held;
  OK(zkc_sem_acquire(hs, 1, -1, &held));
  zkc_client_t *c[2];
  waiter_t w[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    c[i] = zkt_open(NULL);
    w[i] = (waiter_t){.s = new_sem(c[i], path, 1, NULL), .qty = 1, .timeout = -1};
  }
  /* x heads the queue with a pending lease: 2 leases for a limit of 1. */
  pthread_create(&t[0], NULL, wait_lease, &w[0]);
  assert_true(zkt_await_children_exactly(sub(path, "leases"), 2, zkt_ms(10000)));
  struct String_vector kids = {0};
  assert_int_equal(zoo_get_children(zkt_raw(), locks, 0, &kids), ZOK);
  assert_int_equal(kids.count, 1);
  char victim[1200];
  snprintf(victim, sizeof victim, "%s/%s", locks, kids.data[0]);
  deallocate_String_vector(&kids);
  assert_int_equal(zoo_delete(zkt_raw(), victim, -1), ZOK);
  /* y finds the queue empty and heads it too, or (on a slow machine) x
   * noticed first and queued again ahead of y. Either way one head is
   * left: two queue nodes, the holder's lease and the head's. */
  pthread_create(&t[1], NULL, wait_lease, &w[1]);
  assert_true(zkt_await(leases_exactly, path, zkt_ms(10000)));
  OK(zkc_lease_free(held));
  assert_true(zkt_await(either_admitted, w, zkt_ms(10000)));
  int first = atomic_load(&w[1].admitted) ? 1 : 0;
  assert_int_equal(atomic_load(&w[!first].admitted), 0); /* one at a time */
  pthread_join(t[first], NULL);
  OK(w[first].rc);
  int64_t tok_first = lease_token(&w[first]);
  OK(zkc_lease_free(w[first].lease));
  assert_true(zkt_await(is_admitted, &w[!first], zkt_ms(10000)));
  pthread_join(t[!first], NULL);
  OK(w[!first].rc);
  assert_true(tok_first > 0 && tok_first < lease_token(&w[!first])); /* in turn */
  OK(zkc_lease_free(w[!first].lease));
  for (int i = 0; i < 2; i++) {
    OK(zkc_sem_destroy(w[i].s));
    zkc_client_close(c[i]);
  }
  OK(zkc_sem_destroy(hs));
  zkc_client_close(hc);
  assert_true(zkt_await_closed(sub(path, "leases"), 0));
}

/* The lease node under `leases` owned by a session other than `not_a` and
 * `not_b`: its path into node and its owner into *owner; 1 if found. */
static int other_lease(const char *leases, int64_t not_a, int64_t not_b,
                       char *node, size_t len, int64_t *owner) {
  struct String_vector kids = {0};
  zkt_sync_handle(zkt_raw(), leases);
  if (zoo_get_children(zkt_raw(), leases, 0, &kids) != ZOK) return 0;
  int found = 0;
  for (int i = 0; i < kids.count && !found; i++) {
    struct Stat st;
    snprintf(node, len, "%s/%s", leases, kids.data[i]);
    if (zkt_exists(node, &st) && st.ephemeralOwner != not_a &&
        st.ephemeralOwner != not_b) {
      *owner = st.ephemeralOwner;
      found = 1;
    }
  }
  deallocate_String_vector(&kids);
  return found;
}

typedef struct requeue {
  const char *leases;
  int64_t old_session, other_session;
  char node[1200];
  int64_t owner;
} requeue_t;

static int queued_again(void *ctx) {
  requeue_t *q = ctx;
  return other_lease(q->leases, q->old_session, q->other_session, q->node,
                     sizeof q->node, &q->owner);
}

/* Fails on a line the stopped waiter must not have printed yet. */
static void no_claim_yet(zkt_proc_t *p) {
  char line[1300];
  while (zkt_read_line(p, line, sizeof line, 1))
    if (strncmp(line, "HELD ", 5) == 0 || strncmp(line, "FAILED ", 7) == 0)
      fail_msg("the waiter said '%s' while another held the only lease", line);
}

/* A waiting head (its own process, its lease node made, waiting for the
 * holder's) is stopped past its session timeout; meanwhile the holder
 * releases and the waiter queued behind it is admitted. Continued, it must
 * claim nothing: its acquire queues again on its new session (a blocking
 * acquire survives a lost session) and is admitted once the lease is free,
 * never while the other one holds it. */
static void stopped_head_past_session_queues_again(void **state) {
  (void)state;
  const int session_ms = 3000;
  char path[512], session[16], leases[600], locks[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(leases, sizeof leases, "%s", sub(path, "leases"));
  snprintf(locks, sizeof locks, "%s", sub(path, "locks"));
  snprintf(session, sizeof session, "%d", session_ms);
  zkc_client_t *hc = zkt_open(NULL);
  zkc_sem_t *hs = new_sem(hc, path, 1, NULL);
  zkc_lease_t *held;
  OK(zkc_sem_acquire(hs, 1, -1, &held));
  int64_t holder_session;
  OK(zkc_client_session_id(hc, &holder_session));

  const char *holder_bin = getenv("ZKT_HOLDER");
  assert_non_null(holder_bin);
  setenv("ZKT_HOLDER_SEM", "1", 1);
  char *argv[] = {(char *)holder_bin, (char *)zkt_connect(), path, session, NULL};
  zkt_proc_t b = zkt_spawn(argv);
  unsetenv("ZKT_HOLDER_SEM");
  /* b heads the queue with its lease node made: 2 leases for a limit of 1. */
  assert_true(zkt_await_children_exactly(leases, 2, zkt_ms(15000)));
  assert_int_equal(zkt_children_count(locks), 1);
  char b_node[1200];
  int64_t b_session = 0;
  assert_true(other_lease(leases, holder_session, 0, b_node, sizeof b_node,
                          &b_session));

  zkc_client_t *cc = zkt_open(NULL);
  waiter_t w = {.s = new_sem(cc, path, 1, NULL), .qty = 1, .timeout = -1};
  pthread_t t;
  pthread_create(&t, NULL, wait_lease, &w);
  assert_true(zkt_await_children_exactly(locks, 2, zkt_ms(10000)));

  kill(b.pid, SIGSTOP);
  int64_t stopped = zkt_now_ms();
  OK(zkc_lease_free(held)); /* b's watch fires into its stopped process */
  /* b's session ends on the server with its nodes; the other waiter heads
   * the queue and is admitted. */
  assert_true(zkt_await(is_admitted, &w, session_ms + zkt_ms(15000)));
  pthread_join(t, NULL);
  OK(w.rc);
  assert_false(zkt_exists(b_node, NULL));
  int64_t c_token = lease_token(&w);
  kill(b.pid, SIGCONT);
  printf("figure: the waiter was stopped for %lld ms (session %d ms)\n",
         (long long)(zkt_now_ms() - stopped), session_ms);

  /* b queues again on a new session: a second lease node, pending. */
  int64_t c_session;
  OK(zkc_client_session_id(cc, &c_session));
  requeue_t q = {.leases = leases, .old_session = b_session,
                 .other_session = c_session};
  if (!zkt_await(queued_again, &q, zkt_ms(15000))) {
    char line[1300];
    while (zkt_read_line(&b, line, sizeof line, 100))
      printf("waiter: %s\n", line);
    fail_msg("the stopped waiter did not queue again on a new session");
  }
  assert_true(q.owner != b_session && q.owner != c_session);
  no_claim_yet(&b);
  assert_true(zkc_hold_is_held(zkc_lease_hold(w.lease)));
  no_claim_yet(&b); /* still nothing while the lease is held */

  OK(zkc_lease_free(w.lease));
  char line[1300];
  int held_line = 0;
  int64_t deadline = zkt_now_ms() + zkt_ms(15000);
  while (!held_line && zkt_read_line(&b, line, sizeof line, deadline - zkt_now_ms())) {
    if (strncmp(line, "FAILED ", 7) == 0) fail_msg("the waiter: %s", line);
    held_line = strncmp(line, "HELD ", 5) == 0;
  }
  assert_true(held_line);
  /* HELD <token> <node> <is_held> <ns> */
  char *node = strchr(line + 5, ' ');
  assert_non_null(node);
  char *node_end = strchr(node + 1, ' ');
  if (node_end) *node_end = '\0';
  assert_string_equal(node + 1, q.node); /* the lease of its new session */
  assert_true(node_end == NULL || atoi(node_end + 1) == 1); /* is_held */
  assert_true(atoll(line + 5) > c_token);

  close(b.in_fd);
  b.in_fd = -1;
  assert_true(zkt_expect(&b, "RELEASED ", line, sizeof line, zkt_ms(10000)));
  assert_int_equal(atoi(line + 9), ZKC_OK);
  assert_int_equal(zkt_wait(&b, zkt_ms(10000)), 0);
  OK(zkc_sem_destroy(w.s));
  zkc_client_close(cc);
  OK(zkc_sem_destroy(hs));
  zkc_client_close(hc);
}

/* A count node made by zkc_shared_count_set holds its value from the
 * start: never an empty node a waiting head would read as malformed. */
static void shared_count_created_with_value(void **state) {
  (void)state;
  zkt_make_root();
  const char *count = zkt_path("count");
  zkc_client_t *c = zkt_open(NULL);
  OK(zkc_shared_count_set(c, count, 7));
  char buf[16];
  int len = sizeof buf;
  zkt_sync_handle(zkt_raw(), count); /* its server may lag c's */
  assert_int_equal(zoo_get(zkt_raw(), count, 0, buf, &len, NULL), ZOK);
  assert_int_equal(len, 4);
  assert_memory_equal(buf, "\0\0\0\7", 4);
  int32_t v = 0;
  OK(zkc_shared_count_get(c, count, &v));
  assert_int_equal(v, 7);
  zkc_client_close(c);
  zkt_delete_tree(count);
}

struct sem_seen {
  zkc_client_t *c;
  const char *path;
  size_t leases, queue;
};

/* The client's own server lists that many leases and queued nodes. */
static int sem_seen(void *ctx) {
  struct sem_seen *w = ctx;
  zkc_contender_t *l, *q;
  size_t nl, nq;
  if (zkt_sem_contenders(w->c, w->path, &l, &nl, &q, &nq) != ZKC_OK) return 0;
  zkt_contenders_free(l, nl);
  zkt_contenders_free(q, nq);
  return nl == w->leases && nq == w->queue;
}

/* zkt_sem_contenders: the holders and the queue of a semaphore path. */
static void status_lists_leases_and_queue(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_sem_t *sa = new_sem(a, path, 2, NULL);
  zkc_lease_t *la;
  OK(zkc_sem_acquire(sa, 2, -1, &la));
  waiter_t w[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    w[i] = (waiter_t){.s = new_sem(b, path, 2, NULL), .qty = 1, .timeout = -1};
    pthread_create(&t[i], NULL, wait_lease, &w[i]);
  }
  assert_true(zkt_await_children_exactly(sub(path, "locks"), 2, zkt_ms(10000)));
  assert_true(zkt_await_children_exactly(sub(path, "leases"), 3, zkt_ms(10000)));
  /* a's server may not have applied b's creates yet. */
  struct sem_seen seen = {a, path, 3, 2};
  assert_true(zkt_await(sem_seen, &seen, zkt_ms(10000)));
  zkc_contender_t *leases, *queue;
  size_t nl, nq;
  OK(zkt_sem_contenders(a, path, &leases, &nl, &queue, &nq));
  assert_int_equal(nl, 3);
  assert_int_equal(nq, 2);
  assert_non_null(strstr(leases[0].name, "-lease-"));
  assert_non_null(strstr(queue[0].name, "-lock-"));
  assert_int_equal(queue[0].position, 0);
  zkt_contenders_free(leases, nl);
  zkt_contenders_free(queue, nq);
  OK(zkt_sem_contenders(a, zkt_path("none"), &leases, &nl, &queue, &nq));
  assert_int_equal(nl + nq, 0);
  zkc_client_close(b); /* the waiters end with ECLOSED */
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(w[i].rc, ZKC_ECLOSED);
    OK(zkc_sem_destroy(w[i].s));
  }
  OK(zkc_lease_free(la));
  OK(zkc_sem_destroy(sa));
  zkc_client_close(a);
}

/* No herd: only the head of the queue watches leases/ (a children watch,
 * which the server's "wchc" does not list: the head shows no data watch);
 * every other waiter watches its predecessor on locks/ and nothing else; a
 * granted head keeps only the watch on its own lease node. */
/* The session of client ctx watches one node: a lease node. */
static int own_lease_watched_only(void *ctx) {
  int64_t sid;
  char first[800] = "";
  if (zkc_client_session_id(ctx, &sid) != ZKC_OK) return 0;
  return zkt_session_watches(sid, first, sizeof first) == 1 &&
         strstr(first, "/leases/_c_") != NULL;
}

static void only_head_watches_leases(void **state) {
  (void)state;
  char path[600], leases[700], locks[700];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(leases, sizeof leases, "%s/leases", path);
  snprintf(locks, sizeof locks, "%s/locks", path);
  zkc_client_t *hc = zkt_open(NULL);
  zkc_sem_t *hs = new_sem(hc, path, 1, NULL);
  zkc_lease_t *hl;
  OK(zkc_sem_acquire(hs, 1, -1, &hl));
  enum { W = 3 };
  zkc_client_t *c[W];
  waiter_t w[W];
  pthread_t t[W];
  for (int i = 0; i < W; i++) {
    c[i] = zkt_open(NULL);
    w[i] = (waiter_t){.s = new_sem(c[i], path, 1, NULL), .qty = 1, .timeout = -1};
    pthread_create(&t[i], NULL, wait_lease, &w[i]);
    assert_true(zkt_await_children_exactly(locks, i + 1, zkt_ms(10000)));
  }
  assert_true(zkt_await_children_exactly(leases, 2, zkt_ms(10000)));
  char first[800] = "";
  assert_int_equal(zkt_await_session_watches(hc, 1, first, sizeof first, zkt_ms(5000)), 1);
  assert_non_null(strstr(first, "/leases/_c_")); /* the holder: its own node */
  assert_int_equal(zkt_await_session_watches(c[0], 1, first, sizeof first, 0), 0);
  /* Queue nodes only, one each: its predecessor (the queue proves no
   * grant, so no waiter watches its own node for a hand-off proof). */
  for (int i = 1; i < W; i++) {
    assert_int_equal(
        zkt_await_session_watches(c[i], 1, first, sizeof first, zkt_ms(5000)),
        1);
    assert_int_equal(strncmp(first, locks, strlen(locks)), 0);
  }
  OK(zkc_lease_free(hl));
  for (int i = 0; i < W; i++) {
    assert_true(zkt_await(is_admitted, &w[i], zkt_ms(10000)));
    pthread_join(t[i], NULL);
    OK(w[i].rc);
    /* Granted: the leases watch goes (its removal is sent, not waited
     * for), its own node's is set. */
    assert_true(zkt_await(own_lease_watched_only, c[i], zkt_ms(5000)));
    OK(zkc_lease_free(w[i].lease));
    OK(zkc_sem_destroy(w[i].s));
    zkc_client_close(c[i]);
  }
  OK(zkc_sem_destroy(hs));
  zkc_client_close(hc);
}

/* Figures: an uncontended lease cycle against a mutex cycle. */
static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void uncontended_cycle_figures(void **state) {
  (void)state;
  enum { CYCLES = 50 };
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 3, NULL);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, zkt_path("lock")));
  int64_t sem_us[CYCLES], mutex_us[CYCLES], acq_us[CYCLES];
  for (int i = 0; i < CYCLES; i++) {
    zkc_lease_t *l;
    int64_t t0 = zkt_now_ns();
    OK(zkc_sem_acquire(s, 1, -1, &l));
    int64_t t1 = zkt_now_ns();
    OK(zkc_lease_free(l));
    int64_t t2 = zkt_now_ns();
    OK(zkc_mutex_acquire(m));
    OK(zkc_mutex_release(m));
    int64_t t3 = zkt_now_ns();
    acq_us[i] = (t1 - t0) / 1000, sem_us[i] = (t2 - t0) / 1000;
    mutex_us[i] = (t3 - t2) / 1000;
  }
  qsort(acq_us, CYCLES, sizeof *acq_us, cmp_i64);
  qsort(sem_us, CYCLES, sizeof *sem_us, cmp_i64);
  qsort(mutex_us, CYCLES, sizeof *mutex_us, cmp_i64);
  printf("figure: uncontended semaphore acquire median %lld us, acquire+release "
         "%lld us; mutex acquire+release %lld us\n",
         (long long)acq_us[CYCLES / 2], (long long)sem_us[CYCLES / 2],
         (long long)mutex_us[CYCLES / 2]);
  OK(zkc_mutex_destroy(m));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

/* Limits that disagree (Curator stores none) are reported where they show:
 * a head finding more leases held by others than its own limit. */
static atomic_int warned;
static void warn_sink(void *ctx, zkc_log_level_t level, const char *msg) {
  (void)ctx;
  if (level == ZKC_LOG_WARN && strstr(msg, "another client uses a higher limit"))
    atomic_store(&warned, 1);
}

static void disagreeing_limits_reported(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *a = zkt_open(NULL);
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = warn_sink;
  o.log_level = ZKC_LOG_WARN;
  zkc_client_t *b = zkt_open(&o);
  zkc_sem_t *sa = new_sem(a, path, 3, NULL), *sb = new_sem(b, path, 2, NULL);
  zkc_lease_t *la, *lb;
  OK(zkc_sem_acquire(sa, 2, -1, &la));
  atomic_store(&warned, 0);
  assert_int_equal(zkc_sem_acquire(sb, 1, 0, &lb), ZKC_ETIMEDOUT); /* 3 > 2 */
  assert_int_equal(atomic_load(&warned), 0); /* 2 others: within its limit */
  zkc_lease_t *la2;
  OK(zkc_sem_acquire(sa, 1, -1, &la2)); /* 3 <= 3 for a */
  /* Waits a little: the warning needs the leases read answered. */
  assert_int_equal(zkc_sem_acquire(sb, 1, zkt_ms(300), &lb), ZKC_ETIMEDOUT);
  assert_int_equal(atomic_load(&warned), 1); /* 3 others > 2 */
  OK(zkc_lease_free(la));
  OK(zkc_lease_free(la2));
  OK(zkc_sem_destroy(sa));
  OK(zkc_sem_destroy(sb));
  zkc_client_close(a);
  zkc_client_close(b);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(never_more_than_n),
      cmocka_unit_test(fifo_admission),
      cmocka_unit_test(shared_count_changes_reach_waiters),
      cmocka_unit_test(malformed_count_refused),
      cmocka_unit_test(multi_lease_no_deadlock),
      cmocka_unit_test(qty_over_max_rejected),
      cmocka_unit_test(lease_made_with_the_queue_nodes_delete),
      cmocka_unit_test(semaphore_mutex_double_acquire),
      cmocka_unit_test(timeout_leaves_no_node),
      cmocka_unit_test(close_completes_waiters),
      cmocka_unit_test(holder_killed_frees_lease),
      cmocka_unit_test(session_expiry_reported),
      cmocka_unit_test(outside_delete_reported),
      cmocka_unit_test(every_lost_lease_told),
      cmocka_unit_test(deleted_queue_node_leaves_one_head),
      cmocka_unit_test(stopped_head_past_session_queues_again),
      cmocka_unit_test(shared_count_created_with_value),
      cmocka_unit_test(status_lists_leases_and_queue),
      cmocka_unit_test(only_head_watches_leases),
      cmocka_unit_test(uncontended_cycle_figures),
      cmocka_unit_test(disagreeing_limits_reported),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "semaphore");
}
