/* SPDX-License-Identifier: Apache-2.0 */
/* Timed calls keep their deadline when the ensemble goes silent (issue 24,
 * part 3): every server stops answering (connections stay open, nothing
 * answers, as a hung or partitioned ensemble), and a call with a timeout
 * must return within that timeout plus a small bound, not when the client
 * finally gives the connection up (2/3 of its session timeout, 13 s here).
 *
 * The clients reach the three servers through three fault proxies
 * (test/proxy), and the silence is all three stalled at once: the clients
 * see exactly what stopped servers would show them, while the quorum goes
 * on. These cases used to SIGSTOP the servers themselves, which dissolved
 * the quorum (the pause outlasts syncLimit) at every case; once, in a fresh
 * root, ZooKeeper did not form it again and every later case failed.
 *
 * Each case: A holds; B (its own client, a 20 s session) makes the timed
 * call behind A, in a thread, and is queued with its watches set before the
 * silence (or, for the create case, only after). The call must end with
 * ZKC_ETIMEDOUT no later than its timeout plus BOUND_MS after it started.
 * Then the proxies forward again, and B's node must go (deleted in the
 * background: the call could not wait for it), while A still holds.
 *
 * The teardown ends the proxies whatever failed. RUN_SERIAL: the bound is a
 * time, kept away from the other cases' load. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "test_hooks.h"

#define CALL_MS 3000 /* the timed call's timeout */
/* What it may take beyond it (scaled: zkt_ms): the library's grace is
 * 200 ms; the rest is room for a loaded machine's scheduling. */
#define BOUND_MS 400
/* The tool also closes its session after a timeout, waiting for that at
 * most 250 ms on a silent ensemble, and a process starts and ends. */
#define CLI_BOUND_MS 900

/* One proxy a server, and the connect string through them. */
static zkt_proc_t proxies[3];
static int nproxies;
static char proxied[128];

static int proxies_setup(void **state) {
  int rc = zkt_setup(state);
  size_t n = 0;
  for (nproxies = 0; nproxies < 3; nproxies++) {
    proxies[nproxies] = zkt_proxy_start(nproxies + 1);
    n += (size_t)snprintf(proxied + n, sizeof proxied - n, "%s127.0.0.1:%d",
                          nproxies ? "," : "", zkt_proxy_port(&proxies[nproxies]));
  }
  return rc;
}

/* Every server silent (stall) or answering again (unstall), at once: the
 * silence is the call's alone. */
static void servers_silent(int silent) {
  for (int i = 0; i < nproxies; i++)
    zkt_proxy_cmd(&proxies[i], silent ? "stall" : "unstall");
}

static zkc_client_t *open_client(void) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  /* 20 s, the test servers' maximum (zk-ensemble.sh): the silence and the
   * time a client takes to find a server again must fit in A's session,
   * idle meanwhile. */
  o.session_timeout_ms = 20000;
  zkc_client_t *c = NULL;
  int rc = zkc_client_open(&c, proxied, &o);
  if (rc != ZKC_OK) fail_msg("cannot connect through %s: %s", proxied, zkc_strerror(rc));
  return c;
}

/* The timed call of a case, run in a thread: its result and how long it
 * took from its start. */
typedef struct call {
  int (*fn)(struct call *c);
  void *obj;   /* the recipe object of B */
  int rc;
  atomic_int done;
  int64_t started, took;
} call_t;

static void *call_main(void *arg) {
  call_t *c = arg;
  c->started = zkt_now_ms();
  c->rc = c->fn(c);
  c->took = zkt_now_ms() - c->started;
  atomic_store(&c->done, 1);
  return NULL;
}

static int call_done(void *arg) { return atomic_load(&((call_t *)arg)->done); }

/* Runs c; once `queued` holds (B's node and watches in place; NULL: at
 * once), silences the servers; waits for the call's end, checks it, and
 * lets the servers answer again. */
static void run_silent(call_t *c, int (*queued)(void *), void *ctx,
                       const char *what, int64_t bound) {
  pthread_t t;
  if (queued == NULL) servers_silent(1);
  assert_int_equal(pthread_create(&t, NULL, call_main, c), 0);
  if (queued) {
    assert_true(zkt_await(queued, ctx, zkt_ms(CALL_MS / 2)));
    servers_silent(1);
  }
  int ended = zkt_await(call_done, c, zkt_ms(CALL_MS + 20000));
  servers_silent(0);
  if (!ended) fail_msg("%s: the call did not return", what);
  pthread_join(t, NULL);
  printf("figure: %s with every server silent: returned %s after %lld ms "
         "(timeout %d ms)\n", what, zkc_err_name(c->rc), (long long)c->took,
         CALL_MS);
  assert_int_equal(c->rc, ZKC_ETIMEDOUT);
  assert_true(c->took >= CALL_MS);
  if (c->took > CALL_MS + zkt_ms(bound))
    fail_msg("%s took %lld ms, more than %d + %lld", what, (long long)c->took,
             CALL_MS, (long long)zkt_ms(bound));
}

/* ---- mutex ---- */

typedef struct {
  zkc_client_t *a, *b;
  zkc_mutex_t *ma, *mb;
  char path[700]; /* zkt_path's buffer is reused by its next call */
} pair_t;

static void pair_open(pair_t *p, const char *leaf) {
  zkt_make_root();
  snprintf(p->path, sizeof p->path, "%s", zkt_path(leaf));
  p->a = open_client();
  p->b = open_client();
  assert_int_equal(zkc_mutex_create(&p->ma, p->a, p->path), ZKC_OK);
  assert_int_equal(zkc_mutex_create(&p->mb, p->b, p->path), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire(p->ma), ZKC_OK);
}

static int a_holds(void *arg) { return zkc_hold_is_held(zkc_mutex_hold(((pair_t *)arg)->ma)); }

/* Closes the clients once `path` is empty: a delete made while a client
 * was still reconnecting after the silence is finished in the background,
 * and a close meanwhile could not reach the servers either (the node would
 * stay until the session expires). */
static void close_when_empty(const char *path, zkc_client_t *a, zkc_client_t *b) {
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(15000)));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* After the silence: B's node goes, A holds again (its connection came
 * back), and lets go; nothing is left. */
static void pair_close(pair_t *p, int nodes_left) {
  assert_true(zkt_await_children_exactly(p->path, nodes_left, zkt_ms(15000)));
  assert_true(zkt_await(a_holds, p, zkt_ms(15000)));
  assert_int_equal(zkc_mutex_release(p->ma), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(p->ma), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(p->mb), ZKC_OK);
  close_when_empty(p->path, p->a, p->b);
}

static int mutex_call(call_t *c) {
  return zkc_mutex_acquire_timeout(c->obj, CALL_MS);
}

/* B's node is in the queue behind A's (its watch follows within a round
 * trip: silenced before it is answered, the call gives that up too). */
static int two_queued(void *arg) {
  pair_t *p = arg;
  return zkt_children_count(p->path) == 2;
}

static void mutex_waiter(void **state) {
  (void)state;
  pair_t p;
  pair_open(&p, "lock");
  call_t c = {.fn = mutex_call, .obj = p.mb};
  run_silent(&c, two_queued, &p, "mutex acquire, queued", BOUND_MS);
  pair_close(&p, 1);
}

/* Silent before the call: its create is never answered in time; the node
 * that the create makes once the servers answer is found by its uuid and
 * deleted in the background. */
static void mutex_create_unanswered(void **state) {
  (void)state;
  pair_t p;
  pair_open(&p, "lock");
  call_t c = {.fn = mutex_call, .obj = p.mb};
  run_silent(&c, NULL, NULL, "mutex acquire, create unanswered", BOUND_MS);
  pair_close(&p, 1);
}

/* ---- read-write lock: a reader behind a writer ---- */

static void reader_behind_writer(void **state) {
  (void)state;
  zkt_make_root();
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *a = open_client(), *b = open_client();
  zkc_rwlock_t *ra, *rb;
  assert_int_equal(zkc_rwlock_create(&ra, a, path), ZKC_OK);
  assert_int_equal(zkc_rwlock_create(&rb, b, path), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire(zkc_rwlock_write_side(ra)), ZKC_OK);
  pair_t p;
  snprintf(p.path, sizeof p.path, "%s", path);
  call_t c = {.fn = mutex_call, .obj = zkc_rwlock_read_side(rb)};
  run_silent(&c, two_queued, &p, "read side acquire, behind a writer", BOUND_MS);
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(15000)));
  assert_int_equal(zkc_mutex_release(zkc_rwlock_write_side(ra)), ZKC_OK);
  assert_int_equal(zkc_rwlock_destroy(ra), ZKC_OK);
  assert_int_equal(zkc_rwlock_destroy(rb), ZKC_OK);
  close_when_empty(path, a, b);
}

/* ---- semaphore: one lease, held ---- */

static int sem_call(call_t *c) {
  zkc_lease_t *l = NULL;
  int rc = zkc_sem_acquire(c->obj, 1, CALL_MS, &l);
  if (rc == ZKC_OK) zkc_lease_free(l);
  return rc;
}

typedef struct {
  char leases[720], locks[720];
} sem_paths_t;

/* B heads the queue (its queue node) and has made its lease node: it waits
 * for the lease to fit. */
static int sem_waiting(void *arg) {
  sem_paths_t *s = arg;
  return zkt_children_count(s->leases) == 2 && zkt_children_count(s->locks) == 1;
}

static void semaphore_waiter(void **state) {
  (void)state;
  zkt_make_root();
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *a = open_client(), *b = open_client();
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.max_leases = 1;
  zkc_sem_t *sa, *sb;
  assert_int_equal(zkc_sem_create(&sa, a, path, &so), ZKC_OK);
  assert_int_equal(zkc_sem_create(&sb, b, path, &so), ZKC_OK);
  zkc_lease_t *la;
  assert_int_equal(zkc_sem_acquire(sa, 1, -1, &la), ZKC_OK);
  sem_paths_t sp;
  snprintf(sp.leases, sizeof sp.leases, "%s/leases", path);
  snprintf(sp.locks, sizeof sp.locks, "%s/locks", path);
  call_t c = {.fn = sem_call, .obj = sb};
  run_silent(&c, sem_waiting, &sp, "semaphore acquire, waiting for a lease", BOUND_MS);
  assert_true(zkt_await_children_exactly(sp.leases, 1, zkt_ms(15000)));
  assert_true(zkt_await_children_exactly(sp.locks, 0, zkt_ms(15000)));
  assert_int_equal(zkc_lease_free(la), ZKC_OK);
  assert_int_equal(zkc_sem_destroy(sa), ZKC_OK);
  assert_int_equal(zkc_sem_destroy(sb), ZKC_OK);
  assert_true(zkt_await_children_exactly(sp.locks, 0, zkt_ms(15000)));
  close_when_empty(sp.leases, a, b);
}

/* ---- multi-lock: one of its two locks held by A ---- */

static int multi_call(call_t *c) {
  return zkc_multilock_acquire_timeout(c->obj, CALL_MS);
}

static void multilock_waiter(void **state) {
  (void)state;
  pair_t p;
  pair_open(&p, "m1");
  zkc_mutex_t *other;
  char m0[700];
  snprintf(m0, sizeof m0, "%s", zkt_path("m0"));
  assert_int_equal(zkc_mutex_create(&other, p.b, m0), ZKC_OK);
  zkc_mutex_t *both[] = {other, p.mb};
  zkc_multilock_t *ml;
  assert_int_equal(zkc_multilock_create(&ml, both, 2), ZKC_OK);
  call_t c = {.fn = multi_call, .obj = ml};
  run_silent(&c, two_queued, &p, "multi-lock acquire, one lock held", BOUND_MS);
  assert_true(zkt_await_children_exactly(m0, 0, zkt_ms(15000)));
  assert_int_equal(zkc_multilock_destroy(ml), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(other), ZKC_OK);
  pair_close(&p, 1);
}

/* ---- the asynchronous acquire ---- */

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, rc;
} async_result_t;

static void acquired(void *ctx, int rc, zkc_hold_t *h) {
  async_result_t *r = ctx;
  if (h) zkc_hold_free(h);
  pthread_mutex_lock(&r->mu);
  r->done = 1;
  r->rc = rc;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

static int async_call(call_t *c) {
  zkc_async_t *as = c->obj;
  async_result_t r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  uint64_t id;
  int rc = zkc_async_acquire(as, zkt_path("lock"), CALL_MS, acquired, &r, &id);
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&r.mu);
  while (!r.done) pthread_cond_wait(&r.cv, &r.mu);
  rc = r.rc;
  pthread_mutex_unlock(&r.mu);
  return rc;
}

static void async_waiter(void **state) {
  (void)state;
  pair_t p;
  pair_open(&p, "lock");
  zkc_async_t *as;
  assert_int_equal(zkc_async_create(&as, p.b, NULL), ZKC_OK);
  call_t c = {.fn = async_call, .obj = as};
  run_silent(&c, two_queued, &p, "async acquire, queued", BOUND_MS);
  assert_int_equal(zkc_async_destroy(as), ZKC_OK);
  pair_close(&p, 1);
}

/* ---- leader latch: await leadership while another leads ---- */

static int latch_call(call_t *c) { return zkc_latch_await(c->obj, CALL_MS); }

static int latch_queued(void *arg) {
  return zkt_children_count((const char *)arg) == 2;
}

static void latch_await_waiter(void **state) {
  (void)state;
  zkt_make_root();
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("election"));
  zkc_client_t *a = open_client(), *b = open_client();
  zkc_latch_t *la, *lb;
  assert_int_equal(zkc_latch_create(&la, a, path, "a", NULL), ZKC_OK);
  assert_int_equal(zkc_latch_start(la), ZKC_OK);
  assert_int_equal(zkc_latch_await(la, zkt_ms(10000)), ZKC_OK);
  assert_int_equal(zkc_latch_create(&lb, b, path, "b", NULL), ZKC_OK);
  assert_int_equal(zkc_latch_start(lb), ZKC_OK);
  call_t c = {.fn = latch_call, .obj = lb};
  run_silent(&c, latch_queued, path, "latch await, another leads", BOUND_MS);
  assert_int_equal(zkc_latch_destroy(lb), ZKC_OK);
  assert_int_equal(zkc_latch_destroy(la), ZKC_OK);
  close_when_empty(path, a, b);
}

/* ---- the CLI's -w ---- */

static int cli_call(call_t *c) {
  (void)c;
  const char *cli = getenv("ZKT_CLI");
  if (cli == NULL) fail_msg("ZKT_CLI is not set");
  char secs[16];
  snprintf(secs, sizeof secs, "%d", CALL_MS / 1000);
  char *argv[] = {(char *)cli, "-c", proxied, "lock", "-w", secs,
                  (char *)zkt_path("lock"), "true", NULL};
  zkt_proc_t p = zkt_spawn(argv);
  int status = zkt_wait(&p, zkt_ms(CALL_MS + 20000));
  /* Exit status 1 is "not obtained within -w" (zkcoord(1)). */
  return status == 1 ? ZKC_ETIMEDOUT : status == 0 ? ZKC_OK : ZKC_EPROTO;
}

static void cli_wait(void **state) {
  (void)state;
  pair_t p;
  pair_open(&p, "lock");
  call_t c = {.fn = cli_call};
  run_silent(&c, two_queued, &p, "zkcoord lock -w, queued", CLI_BOUND_MS);
  pair_close(&p, 1);
}

/* ---- a missing parent made while the ensemble goes silent (issue 37) ----
 *
 * The lock's parent is missing (first use, a container reaped, a
 * semaphore's locks/ or leases/, a count node's parent): the create of the
 * node is answered "no parent", and the parents' creates that follow meet
 * the silence. B talks to one server, through the first proxy alone, which
 * stalls right after the reply to B's nth create (stall-after-create), so
 * that B's next request is the first unanswered; the other two stall too,
 * at once. The call must keep its timeout as above. */

static zkc_client_t *open_client_one(void) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 20000; /* outlives the silence, as above */
  zkc_client_t *c = NULL;
  const char *one = zkt_proxy_connect(&proxies[0]);
  int rc = zkc_client_open(&c, one, &o);
  if (rc != ZKC_OK) fail_msg("cannot connect through %s: %s", one, zkc_strerror(rc));
  return c;
}

/* Runs c in a thread with the first proxy set to stall after the reply to
 * the nth create from now; then as run_silent. */
static void run_stalled_after(call_t *c, int nth, const char *what) {
  char cmd[64], line[64];
  snprintf(cmd, sizeof cmd, "stall-after-create %d", nth);
  zkt_proxy_cmd(&proxies[0], cmd);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, call_main, c), 0);
  int stalled = zkt_expect(&proxies[0], "STALLED", line, sizeof line,
                           zkt_ms(CALL_MS / 2));
  servers_silent(1);
  int ended = zkt_await(call_done, c, zkt_ms(CALL_MS + 20000));
  servers_silent(0);
  zkt_proxy_cmd(&proxies[0], "stall-after-create 0");
  if (!ended) fail_msg("%s: the call did not return", what);
  pthread_join(t, NULL);
  if (!stalled) fail_msg("%s: the proxy did not stall after create %d", what, nth);
  printf("figure: %s with every server silent: returned %s after %lld ms "
         "(timeout %d ms)\n", what, zkc_err_name(c->rc), (long long)c->took,
         CALL_MS);
  assert_int_equal(c->rc, ZKC_ETIMEDOUT);
  assert_true(c->took >= CALL_MS);
  if (c->took > CALL_MS + zkt_ms(BOUND_MS))
    fail_msg("%s took %lld ms, more than %d + %lld", what, (long long)c->took,
             CALL_MS, (long long)zkt_ms(BOUND_MS));
}

/* Closes c once it can reach the ensemble again: a client closed while it
 * finds no server could not close its session (its nodes would stay). */
static int reconnected(void *arg) {
  zkc_state_t st;
  return zkc_client_state((zkc_client_t *)arg, &st) == ZKC_OK &&
         (st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED);
}

static void close_reconnected(zkc_client_t *c) {
  assert_true(zkt_await(reconnected, c, zkt_ms(15000)));
  zkc_client_close(c);
}

static void mutex_parent_missing(void **state) {
  (void)state;
  zkt_make_root();
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("fresh/deeper/lock"));
  zkc_client_t *b = open_client_one();
  zkc_mutex_t *m;
  assert_int_equal(zkc_mutex_create(&m, b, path), ZKC_OK);
  call_t c = {.fn = mutex_call, .obj = m};
  run_stalled_after(&c, 1, "mutex acquire, parents missing");
  assert_int_equal(zkc_mutex_destroy(m), ZKC_OK);
  assert_true(zkt_children_count(path) <= 0); /* no node of B's */
  close_reconnected(b);
}

/* A semaphore whose locks/ exists and leases/ does not: the queue is
 * passed (one create), the lease node's create (the second) finds no
 * parent. */
static void semaphore_leases_missing(void **state) {
  (void)state;
  zkt_make_root();
  char path[700], locks[720];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(locks, sizeof locks, "%s/locks", path);
  assert_int_equal(zoo_create(zkt_raw(), path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  assert_int_equal(zoo_create(zkt_raw(), locks, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  zkc_client_t *b = open_client_one();
  zkc_sem_t *s;
  assert_int_equal(zkc_sem_create(&s, b, path, NULL), ZKC_OK);
  call_t c = {.fn = sem_call, .obj = s};
  run_stalled_after(&c, 2, "semaphore acquire, leases/ missing");
  assert_int_equal(zkc_sem_destroy(s), ZKC_OK);
  assert_true(zkt_await_children_exactly(locks, 0, zkt_ms(15000)));
  close_reconnected(b);
}

/* A semaphore on a shared count node whose parents are missing: its queue
 * node and its lease node made (two creates), the count read finds none,
 * and the count's parent's create (the third) finds no parent either. */
static void semaphore_count_parents_missing(void **state) {
  (void)state;
  zkt_make_root();
  char path[700], dir[720], count[720];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(count, sizeof count, "%s", zkt_path("counts/x/count"));
  assert_int_equal(zoo_create(zkt_raw(), path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  for (int i = 0; i < 2; i++) {
    snprintf(dir, sizeof dir, "%s/%s", path, i ? "leases" : "locks");
    assert_int_equal(zoo_create(zkt_raw(), dir, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                                NULL, 0), ZOK);
  }
  zkc_client_t *b = open_client_one();
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.count_path = count;
  zkc_sem_t *s;
  assert_int_equal(zkc_sem_create(&s, b, path, &so), ZKC_OK);
  call_t c = {.fn = sem_call, .obj = s};
  run_stalled_after(&c, 3, "semaphore acquire, count's parents missing");
  assert_int_equal(zkc_sem_destroy(s), ZKC_OK);
  assert_true(zkt_await_children_exactly(dir, 0, zkt_ms(15000)));
  close_reconnected(b);
}

/* The async engine thread is never the one that waits: an acquire whose
 * parents are missing, and another one sent once the ensemble is silent
 * (on a path that exists, a shorter timeout): each calls back within its
 * own timeout. */
typedef struct {
  zkc_async_t *as;
  char other[700];
  int64_t other_took;
  int other_rc;
} two_async_t;

static int async_two_call(call_t *c) {
  two_async_t *t = c->obj;
  async_result_t r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  async_result_t r2 = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  int rc = zkc_async_acquire(t->as, zkt_path("fresh/deeper/lock"), CALL_MS,
                             acquired, &r, NULL);
  if (rc != ZKC_OK) return rc;
  /* The first one's create answered (no parent), its parents' sent. */
  char line[64];
  if (!zkt_expect(&proxies[0], "STALLED", line, sizeof line, zkt_ms(CALL_MS / 2)))
    return ZKC_EPROTO;
  int64_t t2 = zkt_now_ms();
  rc = zkc_async_acquire(t->as, t->other, CALL_MS / 3, acquired, &r2, NULL);
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&r2.mu);
  while (!r2.done) pthread_cond_wait(&r2.cv, &r2.mu);
  t->other_rc = r2.rc;
  pthread_mutex_unlock(&r2.mu);
  t->other_took = zkt_now_ms() - t2;
  pthread_mutex_lock(&r.mu);
  while (!r.done) pthread_cond_wait(&r.cv, &r.mu);
  rc = r.rc;
  pthread_mutex_unlock(&r.mu);
  return rc;
}

static void async_parent_missing(void **state) {
  (void)state;
  zkt_make_root();
  zkc_client_t *b = open_client_one();
  two_async_t t;
  snprintf(t.other, sizeof t.other, "%s", zkt_path("lock"));
  assert_int_equal(zoo_create(zkt_raw(), t.other, "", 0, &ZOO_OPEN_ACL_UNSAFE,
                              0, NULL, 0), ZOK);
  assert_int_equal(zkc_async_create(&t.as, b, NULL), ZKC_OK);
  call_t c = {.fn = async_two_call, .obj = &t};
  /* The call reads the STALLED line itself: armed here, expected there. */
  zkt_proxy_cmd(&proxies[0], "stall-after-create 1");
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, call_main, &c), 0);
  int ended = zkt_await(call_done, &c, zkt_ms(CALL_MS + 20000));
  servers_silent(0);
  zkt_proxy_cmd(&proxies[0], "stall-after-create 0");
  if (!ended) fail_msg("async acquires: the call did not return");
  pthread_join(th, NULL);
  printf("figure: async acquire, parents missing, with every server silent: "
         "returned %s after %lld ms (timeout %d ms); another one sent into "
         "the silence: %s after %lld ms (timeout %d ms)\n",
         zkc_err_name(c.rc), (long long)c.took, CALL_MS,
         zkc_err_name(t.other_rc), (long long)t.other_took, CALL_MS / 3);
  assert_int_equal(c.rc, ZKC_ETIMEDOUT);
  assert_int_equal(t.other_rc, ZKC_ETIMEDOUT);
  if (c.took > CALL_MS + zkt_ms(BOUND_MS) ||
      t.other_took > CALL_MS / 3 + zkt_ms(BOUND_MS))
    fail_msg("an async acquire missed its deadline by more than %lld ms",
             (long long)zkt_ms(BOUND_MS));
  assert_int_equal(zkc_async_destroy(t.as), ZKC_OK);
  assert_true(zkt_await_children_exactly(t.other, 0, zkt_ms(15000)));
  close_reconnected(b);
}

/* ---- an async hold released while its guard checks a delete (issue 54) ----
 *
 * B's async hold has its node deleted by an outsider: the guard's watch
 * fires and the maintenance thread reads the node again, to confirm the
 * delete before it tells the owner. That read is held back (the check
 * seam) until every server is silent, so it stays unanswered for as long
 * as the connection lasts. Meanwhile the hold is released (its delete
 * answered) and another async acquire of B's waits behind A: the engine,
 * removing the released hold's guard, must not wait for the check, and the
 * other acquire must call back within its own timeout. */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int entered, go;
} check_held = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

/* The first check waits for the case's word; a failed case's word never
 * comes: then it goes on after a while rather than hang the client. */
static void hold_check(uint64_t guard) {
  (void)guard;
  pthread_mutex_lock(&check_held.mu);
  if (!check_held.entered) {
    check_held.entered = 1;
    pthread_cond_broadcast(&check_held.cv);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += zkt_ms(30000) / 1000;
    while (!check_held.go &&
           pthread_cond_timedwait(&check_held.cv, &check_held.mu, &until) == 0) {
    }
  }
  pthread_mutex_unlock(&check_held.mu);
}

static int check_entered(void *arg) {
  (void)arg;
  pthread_mutex_lock(&check_held.mu);
  int in = check_held.entered;
  pthread_mutex_unlock(&check_held.mu);
  return in;
}

static void check_go(void) {
  pthread_mutex_lock(&check_held.mu);
  check_held.go = 1;
  pthread_cond_broadcast(&check_held.cv);
  pthread_mutex_unlock(&check_held.mu);
}

/* An async result, its hold kept, and when it came. */
typedef struct {
  pthread_mutex_t mu;
  int done, rc;
  zkc_hold_t *h;
  int64_t at;
} kept_t;

static void kept(void *ctx, int rc, zkc_hold_t *h) {
  kept_t *k = ctx;
  pthread_mutex_lock(&k->mu);
  k->done = 1, k->rc = rc, k->h = h, k->at = zkt_now_ms();
  pthread_mutex_unlock(&k->mu);
}

static void released(void *ctx, int rc) { kept(ctx, rc, NULL); }

static int kept_done(void *arg) {
  kept_t *k = arg;
  pthread_mutex_lock(&k->mu);
  int done = k->done;
  pthread_mutex_unlock(&k->mu);
  return done;
}

/* A round trip of c's: its earlier requests are answered once it is. */
static void round_trip(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m;
  assert_int_equal(zkc_mutex_create(&m, c, path), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(CALL_MS)), ZKC_OK);
  assert_int_equal(zkc_mutex_release(m), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(m), ZKC_OK);
}

static void async_release_during_guard_check(void **state) {
  (void)state;
  pair_t p;
  pair_open(&p, "other"); /* A holds "other" */
  char lock[700], probe[700], node[800];
  snprintf(lock, sizeof lock, "%s", zkt_path("lock"));
  snprintf(probe, sizeof probe, "%s", zkt_path("probe"));
  zkc_async_t *as;
  assert_int_equal(zkc_async_create(&as, p.b, NULL), ZKC_OK);
  kept_t first = {.mu = PTHREAD_MUTEX_INITIALIZER};
  assert_int_equal(zkc_async_acquire(as, lock, zkt_ms(CALL_MS), kept, &first, NULL),
                   ZKC_OK);
  assert_true(zkt_await(kept_done, &first, zkt_ms(CALL_MS)));
  assert_int_equal(first.rc, ZKC_OK);
  assert_int_equal(zkt_hold_node(first.h, node, sizeof node), ZKC_OK);
  /* The guard watches the node (set a little after the grant); the
   * outsider's delete fires it, and its check is held. */
  assert_true(zkt_await_session_watches(p.b, 1, NULL, 0, zkt_ms(5000)) >= 1);
  check_held.entered = check_held.go = 0;
  zkc__guard_check_seam = hold_check;
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_true(zkt_await(check_entered, NULL, zkt_ms(5000)));
  /* The other acquire queues behind A, its watch set (the guard's went
   * with the delete). */
  kept_t other = {.mu = PTHREAD_MUTEX_INITIALIZER};
  int64_t started = zkt_now_ms();
  assert_int_equal(zkc_async_acquire(as, p.path, CALL_MS, kept, &other, NULL),
                   ZKC_OK);
  assert_true(zkt_await_session_watches(p.b, 1, NULL, 0, zkt_ms(CALL_MS / 2)) >= 1);
  kept_t rel = {.mu = PTHREAD_MUTEX_INITIALIZER};
  int64_t releasing = zkt_now_ms();
  assert_int_equal(zkc_hold_release(as, first.h, released, &rel), ZKC_OK);
  round_trip(p.b, probe); /* the release's delete is answered */
  servers_silent(1);
  check_go(); /* the check meets the silence */
  int ended = zkt_await(kept_done, &other, zkt_ms(CALL_MS + 20000));
  int rel_ended = kept_done(&rel);
  servers_silent(0);
  zkc__guard_check_seam = NULL;
  if (!ended) fail_msg("async acquire beside a guard's check: no callback");
  int64_t took = other.at - started;
  printf("figure: async acquire beside a released hold's guard check, every "
         "server silent: called back %s after %lld ms (timeout %d ms); the "
         "release %s\n", zkc_err_name(other.rc), (long long)took, CALL_MS,
         rel_ended ? "was told before" : "was not told by then");
  if (rel_ended)
    printf("figure: the release told %s after %lld ms\n", zkc_err_name(rel.rc),
           (long long)(rel.at - releasing));
  if (other.h) zkc_hold_free(other.h);
  assert_int_equal(other.rc, ZKC_ETIMEDOUT);
  if (took > CALL_MS + zkt_ms(BOUND_MS))
    fail_msg("the async acquire took %lld ms, more than %d + %lld",
             (long long)took, CALL_MS, (long long)zkt_ms(BOUND_MS));
  assert_true(rel_ended); /* the release did not wait for the check either */
  assert_int_equal(rel.rc, ZKC_ELOST); /* the node was gone */
  assert_int_equal(zkc_hold_free(first.h), ZKC_OK);
  assert_int_equal(zkc_async_destroy(as), ZKC_OK);
  pair_close(&p, 1);
}

/* ---- a downgrade refused after its read node was made (issue 54) ----
 *
 * W holds the write side and takes the read side (the downgrade). Once the
 * write node's read is answered (the vouch seam), W's connection is cut:
 * with lost_on_suspended the write hold is told lost, the same session
 * comes back, and every server goes silent. The downgrade is refused
 * (ZKC_ELOST), and its read node, made already, must be given up within
 * the call's timeout, not once the client gives the connection up. */
#define DOWNGRADE_MS 8000 /* room for the cut and the reconnect */

static struct {
  zkc_client_t *w;
  zkc_mutex_t *ww;
  int ran, back;
  atomic_int told; /* the write hold's loss told */
} dg;

static void write_hold_told_lost(void *ctx, zkc_mutex_t *m,
                                 zkc_lost_reason_t why, int64_t token) {
  (void)ctx, (void)m, (void)why, (void)token;
  atomic_fetch_add(&dg.told, 1);
}

/* The write hold told lost (not only in doubt: is_held is 0 then too, and
 * the downgrade may still be granted, then refused by its own check), and
 * the session back. */
static int lost_and_back(void *arg) {
  (void)arg;
  return atomic_load(&dg.told) > 0 && reconnected(dg.w);
}

static void cut_then_silence(void) {
  if (dg.ran) return;
  dg.ran = 1;
  for (int i = 0; i < nproxies; i++) zkt_proxy_cmd(&proxies[i], "cut");
  dg.back = zkt_await(lost_and_back, NULL, zkt_ms(DOWNGRADE_MS / 2));
  servers_silent(1);
}

static int downgrade_call(call_t *c) {
  return zkc_mutex_acquire_timeout(c->obj, DOWNGRADE_MS);
}

static void downgrade_refused_after_read_node(void **state) {
  (void)state;
  zkt_make_root();
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 20000; /* as open_client's */
  o.lost_on_suspended = 1;
  zkc_client_t *w = NULL;
  assert_int_equal(zkc_client_open(&w, proxied, &o), ZKC_OK);
  zkc_rwlock_t *rw;
  assert_int_equal(zkc_rwlock_create(&rw, w, path), ZKC_OK);
  dg.w = w, dg.ww = zkc_rwlock_write_side(rw), dg.ran = dg.back = 0;
  atomic_store(&dg.told, 0);
  assert_int_equal(zkc_mutex_set_lost_callback(dg.ww, write_hold_told_lost,
                                               NULL),
                   ZKC_OK);
  assert_int_equal(zkc_mutex_acquire_timeout(dg.ww, zkt_ms(CALL_MS)), ZKC_OK);
  call_t c = {.fn = downgrade_call, .obj = zkc_rwlock_read_side(rw)};
  zkc__vouch_seam = cut_then_silence;
  call_main(&c); /* on this thread: the write side is this thread's */
  zkc__vouch_seam = NULL;
  servers_silent(0);
  printf("figure: downgrade refused after its read node was made, every "
         "server silent: returned %s after %lld ms (timeout %d ms)\n",
         zkc_err_name(c.rc), (long long)c.took, DOWNGRADE_MS);
  assert_true(dg.ran && dg.back);
  assert_int_equal(c.rc, ZKC_ELOST);
  if (c.took > DOWNGRADE_MS + zkt_ms(BOUND_MS))
    fail_msg("the refused downgrade took %lld ms, more than %d + %lld",
             (long long)c.took, DOWNGRADE_MS, (long long)zkt_ms(BOUND_MS));
  assert_int_equal(zkc_mutex_release(dg.ww), ZKC_ELOST);
  /* Both nodes go in the background once the servers answer. */
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(15000)));
  assert_int_equal(zkc_rwlock_destroy(rw), ZKC_OK);
  close_reconnected(w);
}

/* The proxies end whatever the case did (their connections close: a
 * client left open by a failed case finds no server through them). */
static int proxies_teardown(void **state) {
  zkt_close_open_clients(); /* before the waits: see open_clients.c */
  for (int i = 0; i < nproxies; i++) {
    close(proxies[i].in_fd);
    proxies[i].in_fd = -1;
    zkt_wait(&proxies[i], zkt_ms(5000));
  }
  nproxies = 0;
  return zkt_teardown(state);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(mutex_waiter, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(mutex_create_unanswered, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(reader_behind_writer, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(semaphore_waiter, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(multilock_waiter, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(async_waiter, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(latch_await_waiter, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(cli_wait, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(mutex_parent_missing, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(semaphore_leases_missing, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(semaphore_count_parents_missing, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(async_parent_missing, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(async_release_during_guard_check, proxies_setup, proxies_teardown),
      cmocka_unit_test_setup_teardown(downgrade_refused_after_read_node, proxies_setup, proxies_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "deadline");
}
