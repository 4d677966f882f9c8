/* SPDX-License-Identifier: Apache-2.0 */
/* The asynchronous semaphore acquire on the real ensemble: async and
 * blocking acquirers of one semaphore share its queue and its limit, and an
 * async one times out, is cancelled, loses its lease, queues again after an
 * expiry, and ends at destroy as a blocking one would. One CTest entry per
 * case. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "async_helpers.h"
#include "harness.h"
#include "hold_node.h"
#include "test_hooks.h" /* the layout read's seam */

#define OK(expr) assert_int_equal((expr), ZKC_OK)

/* One acquire's outcome, written by its callback. */
typedef struct got {
  atomic_int done; /* callbacks run (must end at 1) */
  int rc;
  zkc_hold_t *hold;
  pthread_t thread; /* where the callback ran */
} got_t;

static void on_leases(void *ctx, int rc, zkc_hold_t *hold) {
  got_t *g = ctx;
  g->rc = rc;
  g->hold = hold;
  g->thread = pthread_self();
  atomic_fetch_add(&g->done, 1);
}

static int got_done(void *ctx) { return atomic_load(&((got_t *)ctx)->done) > 0; }

static void await_got(got_t *g) {
  assert_true(zkt_await(got_done, g, zkt_ms(20000)));
  assert_int_equal(atomic_load(&g->done), 1);
}

/* How many nodes a hold names (a set's one per line). */
static int hold_nodes(zkc_hold_t *h, char *buf, size_t len) {
  OK(zkt_hold_node(h, buf, len));
  int n = 1;
  for (const char *p = buf; (p = strchr(p, '\n')) != NULL; p++) n++;
  return n;
}

/* A release's answer, told once. */
typedef struct rel {
  atomic_int n;
  int rc;
} rel_t;

static void on_released(void *ctx, int rc) {
  rel_t *r = ctx;
  r->rc = rc;
  atomic_fetch_add(&r->n, 1);
}

static int rel_done(void *ctx) { return atomic_load(&((rel_t *)ctx)->n) > 0; }

/* Releases h through a without blocking; its answer once told. */
static int release_await(zkc_async_t *a, zkc_hold_t *h) {
  rel_t r = {0};
  OK(zkc_hold_release(a, h, on_released, &r));
  assert_true(zkt_await(rel_done, &r, zkt_ms(20000)));
  assert_int_equal(atomic_load(&r.n), 1);
  OK(zkc_hold_free(h));
  return r.rc;
}

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

static void sub(char *out, size_t len, const char *path, const char *leaf) {
  snprintf(out, len, "%s/%s", path, leaf);
}

/* ---------------------------------------------------------------------- */

static void granted_while_leases_free(void **state) {
  (void)state;
  char path[512], leases[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  sub(leases, sizeof leases, path, "leases");
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 3, NULL);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  got_t g1 = {0}, g2 = {0};
  uint64_t id = 0;
  OK(zkc_async_acquire_leases(a, s, 1, zkt_ms(10000), on_leases, &g1, &id));
  assert_true(id > 0);
  await_got(&g1);
  OK(g1.rc);
  assert_true(zkc_hold_is_held(g1.hold));
  OK(zkc_async_acquire_leases(a, s, 2, zkt_ms(10000), on_leases, &g2, NULL));
  await_got(&g2);
  OK(g2.rc);
  char buf[2048];
  assert_int_equal(hold_nodes(g2.hold, buf, sizeof buf), 2);
  char *second = strchr(buf, '\n');
  *second++ = '\0';
  assert_true(zkt_exists(buf, NULL) && zkt_exists(second, NULL));
  int64_t t1 = 0, t2 = 0;
  OK(zkc_hold_fencing_token(g1.hold, &t1));
  OK(zkc_hold_fencing_token(g2.hold, &t2));
  assert_true(t2 > t1);
  assert_int_equal(zkt_children_count(leases), 3);
  assert_int_equal(zkc_async_cancel(a, id), ZKC_EALREADY);
  /* still held: the semaphore refuses its destroy */
  assert_int_equal(zkc_sem_destroy(s), ZKC_EBUSY);
  OK(release_await(a, g2.hold)); /* every node deleted before done */
  assert_false(zkt_exists(buf, NULL) || zkt_exists(second, NULL));
  assert_int_equal(zkt_children_count(leases), 1);
  assert_int_equal(zkc_hold_release(a, g1.hold, NULL, NULL), ZKC_OK);
  assert_int_equal(zkc_hold_release(a, g1.hold, NULL, NULL), ZKC_ENOTOWNER);
  assert_false(zkc_hold_is_held(g1.hold));
  OK(zkc_hold_free(g1.hold));
  assert_true(zkt_await_children_exactly(leases, 0, zkt_ms(10000)));
  OK(zkc_async_destroy(a));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

/* Async and blocking acquirers of one semaphore (limit 2) queue behind a
 * holder of both leases in a known order, and are granted in that order,
 * never more than two at once. */
#define LIMIT 2
#define TAKERS 6

static atomic_int inside, most, order;

static void enter_lease(int *seq) {
  int now = atomic_fetch_add(&inside, 1) + 1;
  for (int m = atomic_load(&most); now > m;)
    if (atomic_compare_exchange_weak(&most, &m, now)) break;
  *seq = atomic_fetch_add(&order, 1) + 1;
}

typedef struct taker {
  zkc_client_t *c;
  zkc_sem_t *s;
  zkc_async_t *a; /* NULL: blocking */
  got_t g;
  int seq, rc;
  int64_t token; /* its lease node's czxid: the order the heads made them */
  pthread_t t;
} taker_t;

static void on_taker_leases(void *ctx, int rc, zkc_hold_t *hold) {
  taker_t *k = ctx;
  if (rc == ZKC_OK) enter_lease(&k->seq); /* counted as granted */
  on_leases(&k->g, rc, hold);
}

/* Holds its lease a moment (the work), then lets it go. */
static void *hold_then_release(void *arg) {
  taker_t *k = arg;
  zkc_lease_t *l = NULL;
  zkc_hold_t *h = NULL;
  if (k->a) {
    assert_true(zkt_await(got_done, &k->g, zkt_ms(30000)));
    k->rc = k->g.rc;
    h = k->g.hold;
  } else {
    k->rc = zkc_sem_acquire(k->s, 1, zkt_ms(30000), &l);
    if (k->rc == ZKC_OK) enter_lease(&k->seq);
    h = zkc_lease_hold(l);
  }
  if (k->rc == ZKC_OK) {
    (void)zkc_hold_fencing_token(h, &k->token);
    usleep(30000); /* the work under the lease */
    atomic_fetch_sub(&inside, 1);
    k->rc = k->a ? release_await(k->a, h) : zkc_lease_free(l);
  }
  return NULL;
}

static void fifo_and_limit_beside_blocking(void **state) {
  (void)state;
  char path[512], locks[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  sub(locks, sizeof locks, path, "locks");
  atomic_store(&inside, 0);
  atomic_store(&most, 0);
  atomic_store(&order, 0);
  zkc_client_t *hc = zkt_open(NULL), *ac = zkt_open(NULL);
  zkc_sem_t *hs = new_sem(hc, path, LIMIT, NULL), *as = new_sem(ac, path, LIMIT, NULL);
  zkc_async_t *a = zkt_async_new(ac, ZKC_DELIVER_THREAD, NULL, NULL);
  zkc_lease_t *both = NULL;
  OK(zkc_sem_acquire(hs, LIMIT, zkt_ms(10000), &both));
  taker_t k[TAKERS] = {0};
  for (int i = 0; i < TAKERS; i++) {
    k[i].a = i % 2 == 0 ? a : NULL;
    if (k[i].a) {
      k[i].s = as;
      OK(zkc_async_acquire_leases(a, as, 1, zkt_ms(30000), on_taker_leases,
                                  &k[i], NULL));
    } else {
      k[i].c = zkt_open(NULL);
      k[i].s = new_sem(k[i].c, path, LIMIT, NULL);
    }
    pthread_create(&k[i].t, NULL, hold_then_release, &k[i]);
    /* queued before the next one starts */
    assert_true(zkt_await_children_exactly(locks, i + 1, zkt_ms(10000)));
  }
  assert_int_equal(atomic_load(&order), 0); /* nobody passes the holder */
  OK(zkc_lease_free(both));
  for (int i = 0; i < TAKERS; i++) pthread_join(k[i].t, NULL);
  /* First come, first served: each head makes its lease node before the
   * next can be head (two granted at once may tell it in either order). */
  for (int i = 0; i < TAKERS; i++) {
    OK(k[i].rc);
    assert_true(k[i].seq >= 1);
    if (i > 0) assert_true(k[i - 1].token < k[i].token);
  }
  assert_true(atomic_load(&most) <= LIMIT);
  assert_true(atomic_load(&most) >= 1);
  assert_true(zkt_await_children_exactly(locks, 0, zkt_ms(10000)));
  OK(zkc_async_destroy(a));
  for (int i = 0; i < TAKERS; i++)
    if (k[i].a == NULL) {
      OK(zkc_sem_destroy(k[i].s));
      zkc_client_close(k[i].c);
    }
  OK(zkc_sem_destroy(as));
  OK(zkc_sem_destroy(hs));
  zkc_client_close(hc);
  zkc_client_close(ac);
}

/* A full semaphore of one lease: its lease held through hs on hc, while
 * the case's acquires wait through s and a on c. */
typedef struct full {
  char path[512], locks[600], leases[600];
  zkc_client_t *hc, *c;
  zkc_sem_t *hs, *s;
  zkc_lease_t *held; /* NULL once freed by the case */
  zkc_async_t *a;    /* NULL once destroyed by the case */
} full_t;

static void full_open(full_t *f, zkc_client_t *c) {
  snprintf(f->path, sizeof f->path, "%s", zkt_path("sem"));
  sub(f->locks, sizeof f->locks, f->path, "locks");
  sub(f->leases, sizeof f->leases, f->path, "leases");
  f->hc = zkt_open(NULL);
  f->c = c;
  f->hs = new_sem(f->hc, f->path, 1, NULL);
  f->s = new_sem(c, f->path, 1, NULL);
  OK(zkc_sem_acquire(f->hs, 1, zkt_ms(10000), &f->held));
  f->a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
}

static void full_close(full_t *f) {
  OK(zkc_lease_free(f->held));
  OK(zkc_async_destroy(f->a));
  OK(zkc_sem_destroy(f->s));
  OK(zkc_sem_destroy(f->hs));
  zkc_client_close(f->hc);
  zkc_client_close(f->c);
}

/* A full semaphore: one look (timeout 0) and a timed wait both end with
 * ZKC_ETIMEDOUT, no earlier than asked, leaving no node of theirs. */
static void timeout_zero_and_timed(void **state) {
  (void)state;
  full_t f;
  full_open(&f, zkt_open(NULL));
  got_t g0 = {0}, g1 = {0};
  OK(zkc_async_acquire_leases(f.a, f.s, 1, 0, on_leases, &g0, NULL));
  await_got(&g0);
  assert_int_equal(g0.rc, ZKC_ETIMEDOUT);
  assert_null(g0.hold);
  int64_t t0 = zkt_now_ms();
  OK(zkc_async_acquire_leases(f.a, f.s, 1, 400, on_leases, &g1, NULL));
  await_got(&g1);
  assert_int_equal(g1.rc, ZKC_ETIMEDOUT);
  assert_true(zkt_now_ms() - t0 >= 400);
  assert_true(zkt_await_children_exactly(f.locks, 0, zkt_ms(10000)));
  assert_int_equal(zkt_children_count(f.leases), 1); /* the holder's only */
  full_close(&f);
}

/* A pending acquire cancelled: ZKC_ECANCELED once, its queue node gone;
 * the semaphore refuses its destroy until then. */
static void cancel_pending(void **state) {
  (void)state;
  full_t f;
  full_open(&f, zkt_open(NULL));
  got_t g = {0};
  uint64_t id = 0;
  OK(zkc_async_acquire_leases(f.a, f.s, 1, -1, on_leases, &g, &id));
  assert_true(zkt_await_children_exactly(f.locks, 1, zkt_ms(10000)));
  assert_int_equal(zkc_sem_destroy(f.s), ZKC_EBUSY); /* pending on it */
  OK(zkc_async_cancel(f.a, id));
  await_got(&g);
  assert_int_equal(g.rc, ZKC_ECANCELED);
  assert_int_equal(zkc_async_cancel(f.a, id), ZKC_EALREADY);
  assert_true(zkt_await_children_exactly(f.locks, 0, zkt_ms(10000)));
  full_close(&f);
  assert_int_equal(atomic_load(&g.done), 1);
}

typedef struct lost {
  atomic_int n;
  zkc_lost_reason_t why;
  int64_t token;
} lost_t;

static void on_sem_lost(void *ctx, zkc_sem_t *s, zkc_lost_reason_t why,
                        int64_t token) {
  (void)s;
  lost_t *l = ctx;
  l->why = why;
  l->token = token;
  atomic_fetch_add(&l->n, 1);
}

static int was_lost(void *ctx) { return atomic_load(&((lost_t *)ctx)->n) > 0; }

static void on_hold_lost(void *ctx, zkc_lost_reason_t why, int64_t token) {
  on_sem_lost(ctx, NULL, why, token);
}

/* The hold's notice and the context's on_lost, each told once. */
static lost_t ctx_lost;

static void on_ctx_lost(void *ctx, zkc_lost_reason_t why, int64_t token) {
  lost_t *l = ctx;
  l->why = why;
  l->token = token;
  atomic_fetch_add(&l->n, 1);
}

/* An outsider deletes one node of an async lease set of two: the hold's
 * notice and the context's on_lost are each told once, with its token;
 * its fenced write is refused with ZKC_ELOST, nothing written; its release
 * says ZKC_ELOST and deletes the other node. */
static void outside_delete_is_lost(void **state) {
  (void)state;
  char path[512], data[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(data, sizeof data, "%s", zkt_path("data"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 2, NULL);
  memset(&ctx_lost, 0, sizeof ctx_lost);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, on_ctx_lost, &ctx_lost);
  got_t g = {0};
  OK(zkc_async_acquire_leases(a, s, 2, zkt_ms(10000), on_leases, &g, NULL));
  await_got(&g);
  OK(g.rc);
  lost_t l = {0};
  OK(zkc_hold_set_lost_callback(g.hold, on_hold_lost, &l));
  int64_t token = 0;
  OK(zkc_hold_fencing_token(g.hold, &token));
  OK(zkc_hold_fenced_create(g.hold, data, "a", 1));
  char buf[2048];
  assert_int_equal(hold_nodes(g.hold, buf, sizeof buf), 2);
  char *second = strchr(buf, '\n');
  *second++ = '\0';
  assert_int_equal(zoo_delete(zkt_raw(), second, -1), ZOK);
  assert_true(zkt_await(was_lost, &l, zkt_ms(8000)));
  assert_true(zkt_await(was_lost, &ctx_lost, zkt_ms(8000)));
  assert_int_equal(l.why, ZKC_LOST_DELETED);
  assert_int_equal(l.token, token);
  assert_int_equal(ctx_lost.why, ZKC_LOST_DELETED);
  assert_int_equal(ctx_lost.token, token);
  assert_false(zkc_hold_is_held(g.hold));
  assert_int_equal(zkc_hold_fenced_set(g.hold, data, "b", 1), ZKC_ELOST);
  char got[8] = {0};
  assert_int_equal(zkt_get_data(data, got, sizeof got - 1), 1);
  assert_string_equal(got, "a"); /* nothing written */
  assert_int_equal(release_await(a, g.hold), ZKC_ELOST);
  assert_false(zkt_exists(buf, NULL)); /* the other node deleted */
  assert_int_equal(atomic_load(&l.n), 1);
  assert_int_equal(atomic_load(&ctx_lost.n), 1);
  OK(zkc_async_destroy(a));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

/* The only child of a queue (its name into out; "" unless exactly one). */
typedef struct only_child {
  const char *path;
  char name[256];
  const char *not; /* for zkt_await: a name other than this one */
} only_child_t;

static int read_only_child(only_child_t *o) {
  struct String_vector v = {0};
  o->name[0] = 0;
  if (zoo_get_children(zkt_raw(), o->path, 0, &v) != ZOK) return 0;
  if (v.count == 1) snprintf(o->name, sizeof o->name, "%s", v.data[0]);
  deallocate_String_vector(&v);
  return o->name[0] != 0;
}

static int only_child(void *ctx) { return read_only_child(ctx); }

static int only_child_other(void *ctx) {
  only_child_t *o = ctx;
  return read_only_child(o) && strcmp(o->name, o->not) != 0;
}

/* The acquire still pending is granted once the holder lets go; then
 * everything of the case is closed. */
static void granted_once_free(full_t *f, got_t *g) {
  assert_int_equal(atomic_load(&g->done), 0);
  OK(zkc_lease_free(f->held));
  f->held = NULL;
  await_got(g);
  OK(g->rc);
  assert_true(zkc_hold_is_held(g->hold));
  OK(release_await(f->a, g->hold));
  full_close(f);
}

/* The session expires while the acquire waits: it queues again on the new
 * session within its timeout, and is granted once the holder lets go. */
static void expiry_while_pending_requeues(void **state) {
  (void)state;
  full_t f;
  full_open(&f, zkt_open_short());
  got_t g = {0};
  OK(zkc_async_acquire_leases(f.a, f.s, 1, zkt_ms(40000), on_leases, &g, NULL));
  assert_true(zkt_await_children_exactly(f.locks, 1, zkt_ms(10000)));
  /* awaited: a first read of leases/ from a server behind the holder's
   * create may show room, and the queue node is let go and made again */
  only_child_t first = {.path = f.locks};
  assert_true(zkt_await(only_child, &first, zkt_ms(10000)));
  zkt_new_session_t ns = {f.c, zkt_expire_session(f.c)};
  assert_true(zkt_await(zkt_has_new_session, &ns, zkt_ms(15000)));
  /* queued again: one node, not the old session's */
  only_child_t again = {.path = f.locks, .not = first.name};
  assert_true(zkt_await(only_child_other, &again, zkt_ms(15000)));
  granted_once_free(&f, &g);
}

/* The seam below ends the session of a client behind the proxy just
 * before the run sends its layout read: the proxy refuses the client's
 * reconnects until the seam has returned, so that the read waits in the
 * reconnecting handle and meets the session's end, as a read of a run
 * queueing again after a loss may when the session dies under it before
 * the client has seen the connection go. The read may be answered with a
 * connection loss (retried) or with the session's expiry (a loss: queued
 * again); either way the acquire must queue on the new session. Here the
 * C client mostly answers the first: the case does not pin the second. */
typedef struct layout_cut {
  zkc_client_t *c;
  zkt_proc_t *proxy;
  atomic_int ran; /* 1 the seam returned, -1 the client never saw it */
} layout_cut_t;
static layout_cut_t *layout_cut;

static int not_connected(void *ctx) {
  zkc_state_t st = ZKC_STATE_CONNECTED;
  return zkc_client_state(ctx, &st) == ZKC_OK && st != ZKC_STATE_CONNECTED &&
         st != ZKC_STATE_RECONNECTED;
}

static void expire_before_layout(void) {
  zkc__sem_layout_seam = NULL; /* once */
  layout_cut_t *lc = layout_cut;
  zkt_proxy_cmd(lc->proxy, "refuse on");
  (void)zkt_expire_session(lc->c);
  int seen = zkt_await(not_connected, lc->c, zkt_ms(15000));
  atomic_store(&lc->ran, seen ? 1 : -1);
}

static int layout_seam_ran(void *ctx) {
  return atomic_load(&((layout_cut_t *)ctx)->ran) != 0;
}

/* The layout read answered ZKC_ESESSIONEXPIRED is a loss, not the
 * acquire's failure: it queues on the new session and is granted once the
 * holder lets go. */
static void layout_read_meets_expiry_requeues(void **state) {
  (void)state;
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 4000;
  zkc_client_t *c = NULL;
  OK(zkc_client_open(&c, zkt_proxy_connect(&proxy), &o));
  full_t f;
  full_open(&f, c);
  int64_t old = 0;
  OK(zkc_client_session_id(c, &old));
  layout_cut_t lc = {.c = c, .proxy = &proxy};
  layout_cut = &lc;
  zkc__sem_layout_seam = expire_before_layout;
  got_t g = {0};
  OK(zkc_async_acquire_leases(f.a, f.s, 1, zkt_ms(40000), on_leases, &g, NULL));
  assert_true(zkt_await(layout_seam_ran, &lc, zkt_ms(40000)));
  assert_int_equal(atomic_load(&lc.ran), 1);
  zkt_proxy_cmd(&proxy, "refuse off"); /* the read is in the handle now */
  zkt_new_session_t ns = {c, old};
  assert_true(zkt_await(zkt_has_new_session, &ns, zkt_ms(15000)));
  assert_true(zkt_await_children_exactly(f.locks, 1, zkt_ms(15000)));
  granted_once_free(&f, &g);
  zkt_proxy_stop(&proxy);
}

/* A shared count node (seeded 1) sets the limit: an acquire of another
 * semaphore object waits for the first's release, then is granted (one
 * object's own lease in the way would be ZKC_EDEADLK, as blocking). */
static void shared_count_limit(void **state) {
  (void)state;
  char path[512], count[512], locks[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(count, sizeof count, "%s", zkt_path("count"));
  sub(locks, sizeof locks, path, "locks");
  zkc_client_t *c = zkt_open(NULL), *c2 = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 1, count), *s2 = new_sem(c2, path, 1, count);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  zkc_async_t *a2 = zkt_async_new(c2, ZKC_DELIVER_THREAD, NULL, NULL);
  got_t g1 = {0}, g2 = {0};
  OK(zkc_async_acquire_leases(a, s, 1, zkt_ms(10000), on_leases, &g1, NULL));
  await_got(&g1);
  OK(g1.rc);
  assert_true(zkt_exists(count, NULL)); /* made with its seed */
  OK(zkc_async_acquire_leases(a2, s2, 1, zkt_ms(20000), on_leases, &g2, NULL));
  assert_true(zkt_await_children_exactly(locks, 1, zkt_ms(10000)));
  assert_int_equal(atomic_load(&g2.done), 0); /* the count is full */
  OK(release_await(a, g1.hold));
  await_got(&g2);
  OK(g2.rc);
  OK(release_await(a2, g2.hold));
  OK(zkc_async_destroy(a));
  OK(zkc_async_destroy(a2));
  OK(zkc_sem_destroy(s));
  OK(zkc_sem_destroy(s2));
  zkc_client_close(c);
  zkc_client_close(c2);
}

/* Dispatch mode: the result waits for zkc_async_dispatch, on our thread,
 * the descriptor readable meanwhile. */
static void dispatch_mode_through_the_fd(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 1, NULL);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_DISPATCH, NULL, NULL);
  int fd = -1;
  OK(zkc_async_fd(a, &fd));
  struct pollfd p = {.fd = fd, .events = POLLIN};
  got_t g = {0};
  OK(zkc_async_acquire_leases(a, s, 1, zkt_ms(10000), on_leases, &g, NULL));
  assert_int_equal(poll(&p, 1, (int)zkt_ms(10000)), 1);
  assert_int_equal(atomic_load(&g.done), 0); /* queued, not run */
  int ran = 0;
  OK(zkc_async_dispatch(a, &ran));
  assert_int_equal(ran, 1);
  OK(g.rc);
  assert_true(pthread_equal(g.thread, pthread_self()));
  assert_int_equal(poll(&p, 1, 0), 0); /* drained */
  OK(zkc_hold_free(g.hold)); /* released in the background */
  OK(zkc_async_destroy(a));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

/* Destroying the context completes every pending acquire with
 * ZKC_ECLOSED and leaves no node; the semaphore refuses its destroy until
 * then. */
static void destroy_with_pending(void **state) {
  (void)state;
  full_t f;
  full_open(&f, zkt_open(NULL));
  got_t g[3] = {{0}};
  for (int i = 0; i < 3; i++)
    OK(zkc_async_acquire_leases(f.a, f.s, 1, -1, on_leases, &g[i], NULL));
  assert_true(zkt_await_children_exactly(f.locks, 3, zkt_ms(10000)));
  assert_int_equal(zkc_sem_destroy(f.s), ZKC_EBUSY);
  OK(zkc_async_destroy(f.a));
  f.a = NULL;
  for (int i = 0; i < 3; i++) {
    assert_int_equal(atomic_load(&g[i].done), 1);
    assert_int_equal(g[i].rc, ZKC_ECLOSED);
  }
  assert_true(zkt_await_children_exactly(f.locks, 0, zkt_ms(10000)));
  full_close(&f);
}

/* Bad input is refused with ZKC_EINVAL, the callback never runs and
 * nothing is made. */
static void never(void *ctx, int rc, zkc_hold_t *hold) {
  (void)ctx, (void)rc, (void)hold;
  fail_msg("a refused acquire's callback ran");
}

static void bad_input_refused(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL), *other = zkt_open(NULL);
  zkc_sem_t *s = new_sem(c, path, 2, NULL), *theirs = new_sem(other, path, 2, NULL);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  uint64_t id = 77;
  assert_int_equal(zkc_async_acquire_leases(NULL, s, 1, -1, never, NULL, &id),
                   ZKC_EINVAL);
  assert_int_equal(zkc_async_acquire_leases(a, NULL, 1, -1, never, NULL, &id),
                   ZKC_EINVAL);
  assert_int_equal(zkc_async_acquire_leases(a, s, 1, -1, NULL, NULL, &id),
                   ZKC_EINVAL);
  assert_int_equal(zkc_async_acquire_leases(a, s, 0, -1, never, NULL, &id),
                   ZKC_EINVAL);
  assert_int_equal(zkc_async_acquire_leases(a, s, 3, -1, never, NULL, &id),
                   ZKC_EINVAL);
  assert_int_equal(
      zkc_async_acquire_leases(a, theirs, 1, -1, never, NULL, &id), ZKC_EINVAL);
  assert_non_null(strstr(zkc_last_error_message(), "another client"));
  assert_int_equal(id, 77); /* no id given */
  assert_false(zkt_exists(path, NULL)); /* nothing made */
  OK(zkc_sem_destroy(theirs)); /* nothing pending on either */
  OK(zkc_sem_destroy(s));
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
  zkc_client_close(other);
}

/* On a mutex's path the async acquire is refused as the blocking one is,
 * by the same run: ZKC_ELAYOUT, told to the callback, before anything is
 * made there (the path's children never changed: no locks/, no leases/,
 * not even for a moment), the mutex's holder untouched. */
static void refused_on_a_mutex_path_as_blocking(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("shared"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire(m));
  struct Stat before, after;
  assert_true(zkt_exists(path, &before));
  zkc_sem_t *s = new_sem(c, path, 2, NULL);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  got_t g = {0};
  OK(zkc_async_acquire_leases(a, s, 1, zkt_ms(10000), on_leases, &g, NULL));
  await_got(&g);
  assert_int_equal(g.rc, ZKC_ELAYOUT);
  assert_null(g.hold);
  zkc_lease_t *l = NULL;
  assert_int_equal(zkc_sem_acquire(s, 1, zkt_ms(10000), &l), ZKC_ELAYOUT);
  assert_null(l);
  assert_true(zkt_exists(path, &after));
  assert_int_equal(after.cversion, before.cversion); /* nothing made */
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  OK(zkc_async_destroy(a));
  OK(zkc_sem_destroy(s));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(granted_while_leases_free, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(fifo_and_limit_beside_blocking, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(timeout_zero_and_timed, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(cancel_pending, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(outside_delete_is_lost, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(expiry_while_pending_requeues, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(layout_read_meets_expiry_requeues, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(shared_count_limit, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(dispatch_mode_through_the_fd, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(destroy_with_pending, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(bad_input_refused, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(refused_on_a_mutex_path_as_blocking, zkt_setup, zkt_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof tests[0], "async_sem");
}
