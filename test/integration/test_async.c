/* SPDX-License-Identifier: Apache-2.0 */
/* The asynchronous acquire on the real ensemble: one CTest entry per case. */
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "async_helpers.h"
#include "harness.h"
#include "test_hooks.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

/* One acquire's outcome, written by its callback. */
typedef struct res {
  atomic_int done; /* callbacks run (must end at 1) */
  int rc;
  zkc_hold_t *hold;
  pthread_t thread; /* the thread the callback ran on */
  int seq;          /* order of grants */
} res_t;

static atomic_int grant_seq;

static void on_acquired(void *ctx, int rc, zkc_hold_t *hold) {
  res_t *r = ctx;
  r->rc = rc;
  r->hold = hold;
  r->thread = pthread_self();
  if (rc == ZKC_OK) r->seq = atomic_fetch_add(&grant_seq, 1) + 1;
  atomic_fetch_add(&r->done, 1);
}

static int is_done(void *ctx) { return atomic_load(&((res_t *)ctx)->done) > 0; }

static void await_done(res_t *r) {
  assert_true(zkt_await(is_done, r, zkt_ms(20000)));
}

typedef struct rel {
  atomic_int done;
  int rc;
} rel_t;

static void on_released(void *ctx, int rc) {
  rel_t *r = ctx;
  r->rc = rc;
  atomic_fetch_add(&r->done, 1);
}

static int rel_done(void *ctx) { return atomic_load(&((rel_t *)ctx)->done) > 0; }

/* r holds path, acquired on a without a deadline. */
static void held_on(zkc_async_t *a, const char *path, res_t *r) {
  OK(zkc_async_acquire(a, path, -1, on_acquired, r, NULL));
  await_done(r);
  OK(r->rc);
}

/* Releases and frees a hold, awaiting the delete. */
static void release_now(zkc_async_t *a, zkc_hold_t *h, int want) {
  rel_t r = {0};
  OK(zkc_hold_release(a, h, on_released, &r));
  assert_true(zkt_await(rel_done, &r, zkt_ms(10000)));
  assert_int_equal(r.rc, want);
  OK(zkc_hold_free(h));
}

static int threads_now(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  if (d) closedir(d);
  return n;
}

/* ---------------------------------------------------------------------- */

/* A blocking holder; async, blocking, async, blocking waiters queue behind
 * it in that order and are granted in that order, one at a time. */
typedef struct blocking_waiter {
  zkc_mutex_t *m;
  int seq;
  int rc;
  pthread_t t;
} blocking_waiter_t;

static void *blocking_take(void *arg) {
  blocking_waiter_t *b = arg;
  b->rc = zkc_mutex_acquire_timeout(b->m, zkt_ms(20000));
  if (b->rc == ZKC_OK) {
    b->seq = atomic_fetch_add(&grant_seq, 1) + 1;
    usleep(20000); /* the work under the lock */
    b->rc = zkc_mutex_release(b->m);
  }
  return NULL;
}

static void fifo_with_blocking_contenders(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  atomic_store(&grant_seq, 0);
  zkc_client_t *c1 = zkt_open(NULL), *c2 = zkt_open(NULL), *c3 = zkt_open(NULL);
  zkc_mutex_t *holder = NULL, *m2 = NULL, *m3 = NULL;
  OK(zkc_mutex_create(&holder, c1, path));
  OK(zkc_mutex_create(&m2, c2, path));
  OK(zkc_mutex_create(&m3, c3, path));
  zkc_async_t *a = zkt_async_new(c1, ZKC_DELIVER_THREAD, NULL, NULL);
  OK(zkc_mutex_acquire(holder));

  res_t r1 = {0}, r3 = {0};
  blocking_waiter_t b2 = {.m = m2}, b4 = {.m = m3};
  OK(zkc_async_acquire(a, path, zkt_ms(20000), on_acquired, &r1, NULL));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  pthread_create(&b2.t, NULL, blocking_take, &b2);
  assert_true(zkt_await_children_exactly(path, 3, zkt_ms(10000)));
  OK(zkc_async_acquire(a, path, zkt_ms(20000), on_acquired, &r3, NULL));
  assert_true(zkt_await_children_exactly(path, 4, zkt_ms(10000)));
  pthread_create(&b4.t, NULL, blocking_take, &b4);
  assert_true(zkt_await_children_exactly(path, 5, zkt_ms(10000)));
  assert_int_equal(atomic_load(&r1.done), 0); /* nobody passes the holder */

  OK(zkc_mutex_release(holder));
  await_done(&r1);
  OK(r1.rc);
  assert_int_equal(r1.seq, 1);
  assert_true(zkc_hold_is_held(r1.hold));
  int64_t t1 = 0;
  OK(zkc_hold_fencing_token(r1.hold, &t1));
  assert_true(t1 > 0);
  char node[1100];
  OK(zkt_hold_node(r1.hold, node, sizeof node));
  assert_true(strncmp(node, path, strlen(path)) == 0);
  assert_non_null(strstr(node, "/_c_")); /* the mutex's protected name */
  assert_non_null(strstr(node, "-lock-"));
  assert_int_equal(atomic_load(&grant_seq), 1); /* no overlap: b2 waits */
  release_now(a, r1.hold, ZKC_OK);
  pthread_join(b2.t, NULL);
  OK(b2.rc);
  assert_int_equal(b2.seq, 2);
  await_done(&r3);
  OK(r3.rc);
  assert_int_equal(r3.seq, 3);
  int64_t t3 = 0;
  OK(zkc_hold_fencing_token(r3.hold, &t3));
  assert_true(t3 > t1);
  assert_int_equal(atomic_load(&grant_seq), 3); /* b4 still waits */
  release_now(a, r3.hold, ZKC_OK);
  pthread_join(b4.t, NULL);
  OK(b4.rc);
  assert_int_equal(b4.seq, 4);
  assert_int_equal(atomic_load(&r1.done) + atomic_load(&r3.done), 2);

  OK(zkc_async_destroy(a));
  OK(zkc_mutex_destroy(holder));
  OK(zkc_mutex_destroy(m2));
  OK(zkc_mutex_destroy(m3));
  zkc_client_close(c1);
  zkc_client_close(c2);
  zkc_client_close(c3);
}

static void timeout_leaves_no_node(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL), *o = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, o, path));
  OK(zkc_mutex_acquire(m));
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  res_t r = {0}, once = {0};
  int64_t t0 = zkt_now_ms();
  OK(zkc_async_acquire(a, path, 300, on_acquired, &r, NULL));
  await_done(&r);
  int64_t took = zkt_now_ms() - t0;
  assert_int_equal(r.rc, ZKC_ETIMEDOUT);
  assert_null(r.hold);
  assert_true(took >= 300);
  printf("figure: async timeout of 300 ms reported after %lld ms\n",
         (long long)took);
  /* the node was deleted before the callback ran */
  assert_int_equal(zkt_children_count(path), 1);
  OK(zkc_async_acquire(a, path, 0, on_acquired, &once, NULL)); /* one look */
  await_done(&once);
  assert_int_equal(once.rc, ZKC_ETIMEDOUT);
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  OK(zkc_async_destroy(a));
  assert_int_equal(atomic_load(&r.done), 1);
  zkc_client_close(c);
  zkc_client_close(o);
}

static void cancel_before_during_after_grant(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL), *o = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, o, path));
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  OK(zkc_mutex_acquire(m)); /* makes the path: an empty queue counts 0 */
  OK(zkc_mutex_release(m));

  /* before: cancelled at once, before any node could be made */
  res_t before = {0};
  uint64_t id = 0;
  OK(zkc_async_acquire(a, path, -1, on_acquired, &before, &id));
  int crc = zkc_async_cancel(a, id);
  await_done(&before);
  if (crc == ZKC_OK) assert_int_equal(before.rc, ZKC_ECANCELED);
  else assert_int_equal(crc, ZKC_EALREADY); /* granted first: fine, said so */
  if (before.rc == ZKC_OK) release_now(a, before.hold, ZKC_OK);
  assert_int_equal(zkc_async_cancel(a, id), ZKC_EALREADY);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));

  /* during: queued behind a holder, then cancelled */
  OK(zkc_mutex_acquire(m));
  res_t during = {0};
  OK(zkc_async_acquire(a, path, -1, on_acquired, &during, &id));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  OK(zkc_async_cancel(a, id));
  await_done(&during);
  assert_int_equal(during.rc, ZKC_ECANCELED);
  assert_null(during.hold);
  assert_int_equal(zkt_children_count(path), 1); /* its node went first */
  assert_int_equal(zkc_async_cancel(a, id), ZKC_EALREADY);
  OK(zkc_mutex_release(m));

  /* after: granted, then cancel says it completed */
  res_t after = {0};
  OK(zkc_async_acquire(a, path, -1, on_acquired, &after, &id));
  await_done(&after);
  OK(after.rc);
  assert_int_equal(zkc_async_cancel(a, id), ZKC_EALREADY);
  assert_true(zkc_hold_is_held(after.hold));
  release_now(a, after.hold, ZKC_OK);
  assert_int_equal(zkc_async_cancel(a, id + 100), ZKC_EINVAL);

  OK(zkc_async_destroy(a));
  assert_int_equal(atomic_load(&before.done) + atomic_load(&during.done) +
                       atomic_load(&after.done), 3);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkc_client_close(o);
}

static void release_once_from_any_thread(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  zkc_async_t *b = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  res_t r = {0};
  held_on(a, path, &r);
  assert_int_equal(zkc_hold_release(b, r.hold, NULL, NULL), ZKC_ENOTOWNER);
  assert_true(zkc_hold_is_held(r.hold)); /* the foreign release changed nothing */
  assert_int_equal(zkc_async_destroy(a), ZKC_EBUSY); /* a hold not freed */
  rel_t rel = {0};
  OK(zkc_hold_release(a, r.hold, on_released, &rel)); /* not the granting thread */
  assert_int_equal(zkc_hold_release(a, r.hold, on_released, &rel), ZKC_ENOTOWNER);
  assert_true(zkt_await(rel_done, &rel, zkt_ms(10000)));
  OK(rel.rc);
  assert_int_equal(atomic_load(&rel.done), 1);
  assert_false(zkc_hold_is_held(r.hold));
  int64_t tok;
  char node[1100];
  assert_int_equal(zkc_hold_fencing_token(r.hold, &tok), ZKC_ENOTOWNER);
  assert_int_equal(zkt_hold_node(r.hold, node, sizeof node), ZKC_ENOTOWNER);
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_hold_free(r.hold));
  OK(zkc_async_destroy(a));
  OK(zkc_async_destroy(b));
  zkc_client_close(c);
}

/* A lock held by another client (o), and an async context on a client of
 * its own (c) to queue behind it. */
typedef struct behind {
  char path[512];
  zkc_client_t *c, *o;
  zkc_mutex_t *m;
  zkc_async_t *a;
} behind_t;

static void behind_open(behind_t *b) {
  snprintf(b->path, sizeof b->path, "%s", zkt_path("lock"));
  b->c = zkt_open(NULL);
  b->o = zkt_open(NULL);
  b->m = NULL;
  OK(zkc_mutex_create(&b->m, b->o, b->path));
  OK(zkc_mutex_acquire(b->m));
  b->a = zkt_async_new(b->c, ZKC_DELIVER_THREAD, NULL, NULL);
}

/* Queues n acquires (results in r) and waits until their nodes are there. */
static void queue_behind(behind_t *b, res_t *r, int n, int64_t timeout_ms) {
  for (int i = 0; i < n; i++)
    OK(zkc_async_acquire(b->a, b->path, -1, on_acquired, &r[i], NULL));
  assert_true(zkt_await_children_exactly(b->path, n + 1, timeout_ms));
}

/* Closing the client completes every pending acquire with ZKC_ECLOSED. */
#define N_CLOSE 100
static void close_completes_100_pending(void **state) {
  (void)state;
  behind_t b;
  behind_open(&b);
  const char *path = b.path;
  zkc_async_t *a = b.a;
  static res_t r[N_CLOSE];
  memset(r, 0, sizeof r);
  queue_behind(&b, r, N_CLOSE, zkt_ms(20000));
  zkc_client_close(b.c);
  for (int i = 0; i < N_CLOSE; i++) {
    await_done(&r[i]);
    assert_int_equal(r[i].rc, ZKC_ECLOSED);
  }
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  res_t late = {0};
  assert_int_equal(zkc_async_acquire(a, path, -1, on_acquired, &late, NULL),
                   ZKC_ECLOSED);
  OK(zkc_async_destroy(a));
  for (int i = 0; i < N_CLOSE; i++) assert_int_equal(atomic_load(&r[i].done), 1);
  OK(zkc_mutex_release(b.m));
  OK(zkc_mutex_destroy(b.m));
  zkc_client_close(b.o);
}

/* Dispatch mode: callbacks wait for zkc_async_dispatch on our thread. */
static void dispatch_mode_runs_only_in_dispatch(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_DISPATCH, NULL, NULL);
  int fd = -1;
  OK(zkc_async_fd(a, &fd));
  assert_true(fd >= 0);
  struct pollfd p = {.fd = fd, .events = POLLIN};
  assert_int_equal(poll(&p, 1, 0), 0); /* nothing waiting yet */
  res_t r = {0};
  OK(zkc_async_acquire(a, path, -1, on_acquired, &r, NULL));
  assert_int_equal(poll(&p, 1, (int)zkt_ms(10000)), 1); /* readable */
  assert_true(p.revents & POLLIN);
  assert_int_equal(atomic_load(&r.done), 0); /* queued, not run */
  int ran = 0;
  OK(zkc_async_dispatch(a, &ran));
  assert_int_equal(ran, 1);
  assert_int_equal(atomic_load(&r.done), 1);
  OK(r.rc);
  assert_true(pthread_equal(r.thread, pthread_self()));
  assert_int_equal(poll(&p, 1, 0), 0); /* drained */
  OK(zkc_async_dispatch(a, &ran));
  assert_int_equal(ran, 0);

  rel_t rel = {0};
  OK(zkc_hold_release(a, r.hold, on_released, &rel));
  assert_int_equal(poll(&p, 1, (int)zkt_ms(10000)), 1);
  assert_int_equal(atomic_load(&rel.done), 0);
  OK(zkc_async_dispatch(a, &ran));
  assert_int_equal(ran, 1);
  OK(rel.rc);
  OK(zkc_hold_free(r.hold));
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* A callback's blocking calls fail fast; non-blocking ones work. */
typedef struct in_cb {
  zkc_async_t *a;
  zkc_mutex_t *m;
  atomic_int done;
  int mutex_rc, destroy_rc, dispatch_rc, fenced_rc, release_rc;
  zkc_hold_t *hold;
} in_cb_t;

static void blocking_in_callback(void *ctx, int rc, zkc_hold_t *hold) {
  in_cb_t *t = ctx;
  t->hold = hold;
  if (rc == ZKC_OK) {
    t->mutex_rc = zkc_mutex_acquire(t->m);
    t->destroy_rc = zkc_async_destroy(t->a);
    t->dispatch_rc = zkc_async_dispatch(t->a, NULL);
    t->fenced_rc = zkc_hold_fenced_set(hold, zkt_root(), "x", 1);
    t->release_rc = zkc_hold_release(t->a, hold, NULL, NULL);
  }
  atomic_fetch_add(&t->done, 1);
}

static int cb_done(void *ctx) { return atomic_load(&((in_cb_t *)ctx)->done); }

static void blocking_call_from_callback_edeadlk(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  for (int mode = 0; mode < 2; mode++) {
    in_cb_t t = {0};
    t.a = zkt_async_new(c, mode ? ZKC_DELIVER_DISPATCH : ZKC_DELIVER_THREAD, NULL,
                    NULL);
    OK(zkc_mutex_create(&t.m, c, zkt_path("other")));
    OK(zkc_async_acquire(t.a, path, -1, blocking_in_callback, &t, NULL));
    if (mode) {
      int fd;
      OK(zkc_async_fd(t.a, &fd));
      struct pollfd p = {.fd = fd, .events = POLLIN};
      assert_int_equal(poll(&p, 1, (int)zkt_ms(10000)), 1);
      OK(zkc_async_dispatch(t.a, NULL));
    }
    assert_true(zkt_await(cb_done, &t, zkt_ms(10000)));
    assert_int_equal(t.mutex_rc, ZKC_EDEADLK);
    assert_int_equal(t.destroy_rc, ZKC_EDEADLK);
    assert_int_equal(t.dispatch_rc, mode ? ZKC_EDEADLK : ZKC_EINVAL);
    assert_int_equal(t.fenced_rc, ZKC_EDEADLK);
    OK(t.release_rc); /* never blocks: allowed */
    assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
    OK(zkc_hold_free(t.hold));
    OK(zkc_mutex_destroy(t.m));
    OK(zkc_async_destroy(t.a));
  }
  zkc_client_close(c);
}

/* 1,000 pending acquires in one process: no thread of their own. */
#define N_MANY 1000
static void thousand_pending_no_threads(void **state) {
  (void)state;
  behind_t b;
  behind_open(&b);
  const char *path = b.path;
  zkc_async_t *a = b.a;
  res_t *r = calloc(N_MANY, sizeof *r);
  assert_non_null(r);
  assert_int_equal(zkt_children_count(path), 1); /* the harness's own reader */
  int before = threads_now();
  queue_behind(&b, r, N_MANY, zkt_ms(60000));
  int during = threads_now();
  printf("figure: threads before %d, with %d pending %d\n", before, N_MANY,
         during);
  assert_int_equal(during, before);
  for (int i = 0; i < N_MANY; i++) assert_int_equal(atomic_load(&r[i].done), 0);
  OK(zkc_mutex_release(b.m));
  /* the first in the queue gets it; the rest are destroyed away */
  await_done(&r[0]);
  OK(r[0].rc);
  for (int i = 1; i < N_MANY; i++) assert_int_equal(atomic_load(&r[i].done), 0);
  release_now(a, r[0].hold, ZKC_OK);
  await_done(&r[1]);
  OK(r[1].rc);
  release_now(a, r[1].hold, ZKC_OK);
  await_done(&r[2]);
  OK(r[2].rc);
  OK(zkc_hold_free(r[2].hold)); /* freed while held: released */
  OK(zkc_async_destroy(a));
  for (int i = 3; i < N_MANY; i++) assert_int_equal(r[i].rc, ZKC_ECLOSED);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(20000)));
  free(r);
  OK(zkc_mutex_destroy(b.m));
  zkc_client_close(b.c);
  zkc_client_close(b.o);
}

/* ---- sessions ---- */

typedef struct lost {
  atomic_int n;
  zkc_lost_reason_t why;
  int64_t token;
} lost_t;

static void on_lost(void *ctx, zkc_lost_reason_t why, int64_t token) {
  lost_t *l = ctx;
  l->why = why;
  l->token = token;
  atomic_fetch_add(&l->n, 1);
}

static int was_lost(void *ctx) { return atomic_load(&((lost_t *)ctx)->n) > 0; }

static void expiry_while_pending_requeues(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open_short(), *o = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, o, path));
  OK(zkc_mutex_acquire(m));
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  res_t r = {0};
  OK(zkc_async_acquire(a, path, zkt_ms(30000), on_acquired, &r, NULL));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  int64_t old = zkt_expire_session(c);
  /* queued again on the new session: two nodes, the second not the old
   * session's */
  zkt_new_session_t ns = {c, old};
  assert_true(zkt_await(zkt_has_new_session, &ns, zkt_ms(15000)));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(15000)));
  assert_int_equal(atomic_load(&r.done), 0);
  OK(zkc_mutex_release(m));
  await_done(&r);
  OK(r.rc);
  assert_true(zkc_hold_is_held(r.hold));
  release_now(a, r.hold, ZKC_OK);
  OK(zkc_async_destroy(a));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkc_client_close(o);
}

static void expiry_while_held_is_lost(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open_short();
  lost_t l = {0};
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, on_lost, &l);
  res_t r = {0};
  held_on(a, path, &r);
  int64_t token = 0;
  OK(zkc_hold_fencing_token(r.hold, &token));
  OK(zkc_hold_fenced_set(r.hold, zkt_root(), "1", 1)); /* a fenced write */
  zkt_expire_session(c);
  assert_true(zkt_await(was_lost, &l, zkt_ms(8000)));
  assert_int_equal(l.why, ZKC_LOST_SESSION);
  assert_int_equal(l.token, token);
  assert_false(zkc_hold_is_held(r.hold));
  assert_int_equal(zkc_hold_fenced_set(r.hold, zkt_root(), "2", 1), ZKC_ELOST);
  release_now(a, r.hold, ZKC_ELOST);
  assert_int_equal(atomic_load(&l.n), 1);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* The session closed through a second handle on the holder's own
 * server, a follower, the holder's client connecting to it alone: the
 * second handle takes the holder's connection, the holder's client
 * connects again at once, taking it back, and the server may apply the
 * close that came through the second handle's connection after that:
 * then it keeps the holder's new connection open and answers it (the
 * node gone, its watch fired) while the leader has closed the session.
 * The loss is the session's, never a delete by another, in every round. */
static void expiry_from_the_holders_server_is_the_sessions(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  for (int i = 0; i < 8; i++) {
    int leader = zkt_leader_server();
    assert_in_range(leader, 1, 3);
    int server = leader % 3 + 1;
    zkc_client_opts_t o;
    zkc_client_opts_init(&o);
    o.session_timeout_ms = 4000;
    zkc_client_t *c = zkt_open_on(server, &o);
    lost_t l = {0};
    zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, on_lost, &l);
    res_t r = {0};
    held_on(a, path, &r);
    zkt_expire_session_on(c, server);
    assert_true(zkt_await(was_lost, &l, zkt_ms(8000)));
    if (l.why != ZKC_LOST_SESSION)
      fail_msg("round %d: lost for %d, not the session", i, (int)l.why);
    release_now(a, r.hold, ZKC_ELOST);
    assert_int_equal(atomic_load(&l.n), 1);
    OK(zkc_async_destroy(a));
    zkc_client_close(c);
  }
}

/* Dispatch mode: the client's state changes reach the loop through the
 * descriptor too, and run only in dispatch, on its thread. */
typedef struct states {
  atomic_int n, lost, connected;
  pthread_t thread;
  atomic_int other_thread;
} states_t;
static void on_state(void *ctx, zkc_state_t st) {
  states_t *s = ctx;
  if (!pthread_equal(pthread_self(), s->thread)) atomic_store(&s->other_thread, 1);
  if (st == ZKC_STATE_LOST) atomic_store(&s->lost, 1);
  if (st == ZKC_STATE_CONNECTED && atomic_load(&s->lost))
    atomic_store(&s->connected, 1);
  atomic_fetch_add(&s->n, 1);
}

static void dispatch_mode_state_changes_in_dispatch(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open_short();
  states_t s = {.thread = pthread_self()};
  zkc_async_opts_t o;
  zkc_async_opts_init(&o);
  o.delivery = ZKC_DELIVER_DISPATCH;
  o.on_state = on_state;
  o.state_ctx = &s;
  zkc_async_t *a = NULL;
  OK(zkc_async_create(&a, c, &o));
  int fd = -1;
  OK(zkc_async_fd(a, &fd));
  zkt_expire_session(c);
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int64_t deadline = zkt_now_ms() + zkt_ms(20000);
  while (!atomic_load(&s.connected) && zkt_now_ms() < deadline) {
    assert_int_equal(atomic_load(&s.other_thread), 0);
    int before = atomic_load(&s.n);
    if (poll(&p, 1, 100) == 1) {
      assert_int_equal(atomic_load(&s.n), before); /* queued, not run */
      OK(zkc_async_dispatch(a, NULL));
    }
  }
  assert_true(atomic_load(&s.lost));
  assert_true(atomic_load(&s.connected));
  assert_int_equal(atomic_load(&s.other_thread), 0);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* lost_on_suspended: an async hold is given up when the connection drops,
 * and its node is deleted by the client's next session even while the old
 * one lives on (a zombie keeps it): a blocking waiter gets the lock. */
typedef struct taker {
  zkc_mutex_t *m;
  atomic_int rc; /* 1 until the acquire returned */
  int released;  /* its release's code */
} taker_t;
static void *take(void *arg) {
  taker_t *t = arg;
  int rc = zkc_mutex_acquire_timeout(t->m, zkt_ms(60000));
  if (rc == ZKC_OK) t->released = zkc_mutex_release(t->m);
  atomic_store(&t->rc, rc);
  return NULL;
}
static int taken(void *ctx) { return atomic_load(&((taker_t *)ctx)->rc) != 1; }
static int zombie_connected(void *ctx) {
  return zoo_state((zhandle_t *)ctx) == ZOO_CONNECTED_STATE;
}

static void suspended_loss_node_deleted_by_new_session(void **state) {
  (void)state;
  const int session_ms = zkt_zombie_session_ms();
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_opts_t opts;
  zkc_client_opts_init(&opts);
  opts.session_timeout_ms = session_ms;
  opts.lost_on_suspended = 1;
  zkc_client_t *c = NULL, *b = zkt_open(NULL);
  OK(zkc_client_open(&c, zkt_proxy_connect(&proxy), &opts));
  lost_t l = {0};
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, on_lost, &l);
  res_t r = {0};
  held_on(a, path, &r);
  int64_t token = 0;
  OK(zkc_hold_fencing_token(r.hold, &token));
  clientid_t old = zkt_session_credentials(c);
  taker_t t = {0};
  atomic_store(&t.rc, 1);
  OK(zkc_mutex_create(&t.m, b, path));
  pthread_t th;
  pthread_create(&th, NULL, take, &t);
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));

  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  assert_true(zkt_await(was_lost, &l, zkt_ms(10000)));
  assert_int_equal(l.why, ZKC_LOST_SUSPENDED);
  assert_int_equal(l.token, token);
  assert_false(zkc_hold_is_held(r.hold));
  zhandle_t *zombie = zkt_attach_session(&old);
  assert_true(zkt_await(zombie_connected, zombie, zkt_ms(10000)));
  zkt_proxy_cmd(&proxy, "refuse off");
  /* The zombie keeps the old session: only c's next session frees it. */
  assert_true(zkt_await(taken, &t, zkt_ms(60000)));
  pthread_join(th, NULL);
  OK(atomic_load(&t.rc));
  OK(t.released);
  assert_true(zkt_await(zombie_connected, zombie, zkt_ms(10000)));
  zookeeper_close(zombie);
  release_now(a, r.hold, ZKC_ELOST);
  assert_int_equal(atomic_load(&l.n), 1);
  OK(zkc_async_destroy(a));
  OK(zkc_mutex_destroy(t.m));
  zkc_client_close(c);
  zkc_client_close(b);
  zkt_proxy_stop(&proxy);
}

static void outside_delete_is_lost(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  lost_t l = {0};
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, on_lost, &l);
  res_t r = {0};
  held_on(a, path, &r);
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  zkt_delete_tree(path); /* an outsider deletes our node */
  assert_true(zkt_await(was_lost, &l, zkt_ms(8000)));
  assert_int_equal(l.why, ZKC_LOST_DELETED);
  assert_false(zkc_hold_is_held(r.hold));
  release_now(a, r.hold, ZKC_ELOST);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* An outsider deletes our node and makes a node of its own at the same
 * path in one transaction: the delete's confirming read finds a node
 * there, not of our session. The hold is lost all the same (it was
 * watched again, as if nothing had happened). */
static void outside_delete_and_remake_is_lost(void **state) {
  (void)state;
  char path[512], node[600];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  lost_t l = {0};
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, on_lost, &l);
  res_t r = {0};
  held_on(a, path, &r);
  zkc_list_t *nodes = NULL;
  OK(zkc_hold_node_list(r.hold, &nodes));
  snprintf(node, sizeof node, "%s", zkc_list_string(nodes, 0));
  zkc_list_free(nodes);
  /* the guard's watch is set a while after the grant */
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  assert_true(zkt_await_watch(sid, node, 1, zkt_ms(10000)));
  zoo_op_t ops[2];
  zoo_op_result_t res[2];
  zoo_delete_op_init(&ops[0], node, -1);
  zoo_create_op_init(&ops[1], node, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  assert_int_equal(zoo_multi(zkt_raw(), 2, ops, res), ZOK);
  assert_true(zkt_await(was_lost, &l, zkt_ms(8000)));
  assert_int_equal(l.why, ZKC_LOST_DELETED);
  assert_false(zkc_hold_is_held(r.hold));
  release_now(a, r.hold, ZKC_ELOST);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
  /* the outsider's node, unless the hold's end took it for ours (a name
   * with our id: only an outsider copying it makes one) */
  int rc = zoo_delete(zkt_raw(), node, -1);
  assert_true(rc == ZOK || rc == ZNONODE);
}

/* An outsider deletes the node at the grant, before the hold is listed
 * where a delete is looked for (the seam holds the engine there): the
 * delete must still be told. The seam waits until the hold's guard has
 * told a delete, or shows that it cannot before it is started. */
static zkc_client_t *seam_client;
static atomic_int seam_armed;
static atomic_int seam_deleted; /* the delete's code, 1 until made */
static atomic_ullong seam_waited_ms;

static void delete_before_listed(const char *node, uint64_t guard) {
  if (!atomic_exchange(&seam_armed, 0)) return;
  uint64_t told = zkc__guard_told();
  atomic_store(&seam_deleted, zoo_delete(zkt_raw(), node, -1));
  int64_t t0 = zkt_now_ms(), deadline = t0 + zkt_ms(10000);
  while (zkc__guard_told() == told && !zkc__guard_waiting(seam_client, guard) &&
         zkt_now_ms() < deadline)
    usleep(5000);
  atomic_store(&seam_waited_ms, (unsigned long long)(zkt_now_ms() - t0));
}

static void delete_before_hold_listed_is_lost(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  lost_t l = {0};
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, on_lost, &l);
  seam_client = c;
  atomic_store(&seam_deleted, 1);
  atomic_store(&seam_armed, 1);
  zkc__async_grant_seam = delete_before_listed;
  res_t r = {0};
  OK(zkc_async_acquire(a, path, zkt_ms(20000), on_acquired, &r, NULL));
  await_done(&r);
  zkc__async_grant_seam = NULL;
  OK(r.rc);
  assert_int_equal(atomic_load(&seam_deleted), ZOK);
  int told = zkt_await(was_lost, &l, zkt_ms(8000));
  printf("figure: node deleted at the grant, before the hold was listed "
         "(the seam waited %llu ms): loss %s\n",
         (unsigned long long)atomic_load(&seam_waited_ms),
         told ? "told" : "never told");
  assert_true(told);
  assert_int_equal(l.why, ZKC_LOST_DELETED);
  assert_false(zkc_hold_is_held(r.hold));
  release_now(a, r.hold, ZKC_ELOST);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* ---- the blocking acquire's protocol, by construction (one engine) ---- */

static zkc_client_t *counted;               /* whose requests are counted */
static atomic_ullong requests_at_callback;  /* at the acquire's callback */

static void on_acquired_counting(void *ctx, int rc, zkc_hold_t *hold) {
  atomic_store(&requests_at_callback, zkc__requests(counted));
  on_acquired(ctx, rc, hold);
}

/* For zkt_await: `counted` has made at least *want requests. The engine's
 * thread counts a request once the ZooKeeper client has taken it, which
 * may be after the server has already set the watch it asks for. */
static int requests_reach(void *want) {
  return zkc__requests(counted) >= *(uint64_t *)want;
}

/* The next in line is granted on its predecessor's delete alone, as a
 * blocking acquire is: its own node watched before the holder's, the
 * order of the server's events proves its node was there; no read of the
 * queue after the wake-up. */
static void next_in_line_granted_on_delete_alone(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *h = zkt_open(NULL), *w = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, h, path));
  OK(zkc_mutex_acquire(m));
  /* The holder's own-node watch is set before anything is counted. */
  assert_int_equal(zkt_await_session_watches(h, 1, NULL, 0, zkt_ms(5000)), 1);
  zkc_async_t *a = zkt_async_new(w, ZKC_DELIVER_THREAD, NULL, NULL);
  counted = w;
  res_t r = {0};
  uint64_t before = zkc__requests(w);
  OK(zkc_async_acquire(a, path, zkt_ms(20000), on_acquired_counting, &r, NULL));
  /* Waiting: its own node and the holder's watched (and both watches
   * counted: see requests_reach). */
  assert_int_equal(zkt_await_session_watches(w, 2, NULL, 0, zkt_ms(5000)), 2);
  uint64_t five = before + 5;
  (void)zkt_await(requests_reach, &five, zkt_ms(2000));
  uint64_t queued = zkc__requests(w) - before;
  uint64_t at_release = zkc__requests(w);
  OK(zkc_mutex_release(m));
  await_done(&r);
  OK(r.rc);
  uint64_t after_wake = atomic_load(&requests_at_callback) - at_release;
  release_now(a, r.hold, ZKC_OK);
  OK(zkc_async_destroy(a));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(h);
  zkc_client_close(w);
  /* The create, its queue read, the round's sync and two watches; after
   * the wake-up no request at all before the grant (the hold's own-node
   * watch is set after it, by the maintenance thread). */
  assert_int_equal(queued, 5);
  assert_int_equal(after_wake, 0);
}

static zkc_client_t *open_via(zkt_proc_t *proxy, int max_retries) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 10000;
  if (max_retries >= 0) o.retry.max_retries = max_retries;
  zkc_client_t *c = NULL;
  OK(zkc_client_open(&c, zkt_proxy_connect(proxy), &o));
  return c;
}

/* The parent's child version: every create and delete under it counts. */
static int32_t cversion(const char *path) {
  struct Stat st;
  assert_true(zkt_exists(path, &st));
  return st.cversion;
}

/* A create applied but its answer cut off: the acquire finds its node by
 * its uuid and keeps it (its place in the queue), as a blocking one does;
 * one create per acquire. */
static void create_cut_recovered_by_uuid(void **state) {
  (void)state;
  const int rounds = 5;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *c = open_via(&proxy, -1);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  for (int i = 0; i <= rounds; i++) {
    /* round 0 makes the parents before any cut */
    if (i > 0) zkt_proxy_cmd(&proxy, "cut-after-create 1");
    int32_t v0 = i > 0 ? cversion(path) : 0;
    res_t r = {0};
    OK(zkc_async_acquire(a, path, zkt_ms(20000), on_acquired, &r, NULL));
    await_done(&r);
    OK(r.rc);
    char node[1100];
    OK(zkt_hold_node(r.hold, node, sizeof node));
    struct Stat st;
    assert_true(zkt_exists(node, &st));
    int64_t sid;
    OK(zkc_client_session_id(c, &sid));
    assert_int_equal(st.ephemeralOwner, sid);
    if (i > 0) assert_int_equal(cversion(path) - v0, 1); /* found, not made twice */
    release_now(a, r.hold, ZKC_OK);
    assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  }
  zkt_send(&proxy, "stats");
  char line[256];
  assert_true(zkt_expect(&proxy, "STATS ", line, sizeof line, zkt_ms(5000)));
  const char *cuts = strstr(line, "cuts=");
  assert_non_null(cuts);
  assert_int_equal(atoi(cuts + 5), rounds);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* The client's retry policy holds for the async acquire: with no retries
 * allowed, a create cut off ends it with ZKC_ECONNLOSS (as it ends a
 * blocking acquire), and the node it may have made is deleted. */
static void retry_policy_applies(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *c = open_via(&proxy, 0);
  zkc_async_t *a = zkt_async_new(c, ZKC_DELIVER_THREAD, NULL, NULL);
  res_t r = {0};
  OK(zkc_async_acquire(a, path, zkt_ms(20000), on_acquired, &r, NULL));
  await_done(&r); /* the parents made, before any cut */
  OK(r.rc);
  release_now(a, r.hold, ZKC_OK);
  zkt_proxy_cmd(&proxy, "cut-after-create 1");
  res_t cut = {0};
  OK(zkc_async_acquire(a, path, zkt_ms(20000), on_acquired, &cut, NULL));
  await_done(&cut);
  assert_int_equal(cut.rc, ZKC_ECONNLOSS);
  assert_null(cut.hold);
  /* The applied create's node, found by its uuid once connected. */
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(15000)));
  /* The same client's blocking acquire says the same. */
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  zkt_proxy_cmd(&proxy, "cut-after-create 1");
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(20000)), ZKC_ECONNLOSS);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(15000)));
  OK(zkc_mutex_destroy(m));
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* The libuv example daemon (examples/uv_daemon.c) takes the lock around 10
 * requests on its loop; they wait behind a blocking holder here. */
static void example_daemon(void **state) {
  (void)state;
  const char *bin = getenv("ZKT_UV_DAEMON");
  if (bin == NULL || *bin == '\0')
    fail_msg("ZKT_UV_DAEMON unset: the example needs libuv (libuv1-dev)");
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire(m));
  char *argv[] = {(char *)bin, (char *)zkt_connect(), path, "--self", "10", NULL};
  zkt_proc_t p = zkt_spawn(argv);
  assert_true(zkt_await_children_exactly(path, 11, zkt_ms(20000)));
  OK(zkc_mutex_release(m));
  char line[256];
  assert_true(zkt_expect(&p, "requests done:", line, sizeof line, zkt_ms(30000)));
  assert_string_equal(line, "requests done: counter 10, overlaps 0, failures 0");
  assert_int_equal(zkt_wait(&p, zkt_ms(10000)), 0);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fifo_with_blocking_contenders),
      cmocka_unit_test(timeout_leaves_no_node),
      cmocka_unit_test(cancel_before_during_after_grant),
      cmocka_unit_test(release_once_from_any_thread),
      cmocka_unit_test(close_completes_100_pending),
      cmocka_unit_test(dispatch_mode_runs_only_in_dispatch),
      cmocka_unit_test(dispatch_mode_state_changes_in_dispatch),
      cmocka_unit_test(blocking_call_from_callback_edeadlk),
      cmocka_unit_test(thousand_pending_no_threads),
      cmocka_unit_test(expiry_while_pending_requeues),
      cmocka_unit_test(expiry_while_held_is_lost),
      cmocka_unit_test(expiry_from_the_holders_server_is_the_sessions),
      cmocka_unit_test(outside_delete_is_lost),
      cmocka_unit_test(outside_delete_and_remake_is_lost),
      cmocka_unit_test(delete_before_hold_listed_is_lost),
      cmocka_unit_test(suspended_loss_node_deleted_by_new_session),
      cmocka_unit_test(next_in_line_granted_on_delete_alone),
      cmocka_unit_test(create_cut_recovered_by_uuid),
      cmocka_unit_test(retry_policy_applies),
      cmocka_unit_test(example_daemon),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "async");
}
