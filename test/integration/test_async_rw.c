/* SPDX-License-Identifier: Apache-2.0 */
/* The asynchronous read-write lock on the real ensemble: async and
 * blocking readers and writers of one path queue together, readers share,
 * writers exclude, a read hold's fenced write is refused. One CTest entry
 * per case. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

typedef struct res {
  atomic_int done; /* callbacks run (must end at 1) */
  int rc;
  zkc_hold_t *hold;
  pthread_t thread; /* where the callback ran */
} res_t;

static void on_acquired(void *ctx, int rc, zkc_hold_t *hold) {
  res_t *r = ctx;
  r->rc = rc;
  r->hold = hold;
  r->thread = pthread_self();
  atomic_fetch_add(&r->done, 1);
}

static int is_done(void *ctx) { return atomic_load(&((res_t *)ctx)->done) > 0; }

static void await_granted(res_t *r) {
  assert_true(zkt_await(is_done, r, zkt_ms(20000)));
  OK(r->rc);
  assert_true(zkc_hold_is_held(r->hold));
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

static void release_now(zkc_async_t *a, zkc_hold_t *h, int want) {
  rel_t r = {0};
  OK(zkc_hold_release(a, h, on_released, &r));
  assert_true(zkt_await(rel_done, &r, zkt_ms(10000)));
  assert_int_equal(r.rc, want);
  OK(zkc_hold_free(h));
}

typedef struct lost {
  atomic_int n;
  zkc_lost_reason_t why;
} lost_t;

static void on_lost(void *ctx, zkc_lost_reason_t why, int64_t token) {
  (void)token;
  lost_t *l = ctx;
  l->why = why;
  atomic_fetch_add(&l->n, 1);
}

static int was_lost(void *ctx) { return atomic_load(&((lost_t *)ctx)->n) > 0; }

static zkc_async_t *new_async_mode(zkc_client_t *c, lost_t *l,
                                   zkc_delivery_t mode) {
  zkc_async_opts_t o;
  zkc_async_opts_init(&o);
  o.delivery = mode;
  o.on_lost = l ? on_lost : NULL;
  o.lost_ctx = l;
  zkc_async_t *a = NULL;
  OK(zkc_async_create(&a, c, &o));
  return a;
}

static zkc_async_t *new_async(zkc_client_t *c, lost_t *l) {
  return new_async_mode(c, l, ZKC_DELIVER_THREAD);
}

static void hold_node(zkc_hold_t *h, const char *marker) {
  char node[1100];
  OK(zkt_hold_node(h, node, sizeof node));
  assert_non_null(strstr(node, "/_c_")); /* protected, as the blocking side's */
  assert_non_null(strstr(node, marker));
}

/* A blocking writer holds. Behind it, in this order: async reader R1,
 * async writer W2, async reader R3, a blocking reader B4. The writer's
 * release lets R1 in alone (W2 is a writer; R3 and B4 wait for W2, queued
 * before them); R1's release lets W2 in; W2's lets R3 and B4 in together. */
static void readers_share_writers_exclude(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_rwlock_t *rw = NULL, *rw4 = NULL;
  OK(zkc_rwlock_create(&rw, b, path));
  zkc_client_t *c4 = zkt_open(NULL);
  OK(zkc_rwlock_create(&rw4, c4, path));
  zkc_async_t *a = new_async(c, NULL);
  OK(zkc_mutex_acquire(zkc_rwlock_write_side(rw)));

  res_t r1 = {0}, w2 = {0}, r3 = {0};
  OK(zkc_async_acquire_read(a, path, zkt_ms(20000), on_acquired, &r1, NULL));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  OK(zkc_async_acquire_write(a, path, zkt_ms(20000), on_acquired, &w2, NULL));
  assert_true(zkt_await_children_exactly(path, 3, zkt_ms(10000)));
  OK(zkc_async_acquire_read(a, path, zkt_ms(20000), on_acquired, &r3, NULL));
  assert_true(zkt_await_children_exactly(path, 4, zkt_ms(10000)));
  zkc_mutex_t *b4 = zkc_rwlock_read_side(rw4);
  assert_int_equal(zkc_mutex_acquire_timeout(b4, 0), ZKC_ETIMEDOUT);
  assert_int_equal(atomic_load(&r1.done), 0); /* nobody passes the writer */

  OK(zkc_mutex_release(zkc_rwlock_write_side(rw)));
  await_granted(&r1);
  hold_node(r1.hold, "__READ__");
  /* W2 waits for the reader before it; R3 and B4 for W2. */
  assert_int_equal(zkc_mutex_acquire_timeout(b4, zkt_ms(300)), ZKC_ETIMEDOUT);
  assert_int_equal(atomic_load(&w2.done) + atomic_load(&r3.done), 0);

  int64_t t1 = 0, t2 = 0, t3 = 0;
  OK(zkc_hold_fencing_token(r1.hold, &t1));
  release_now(a, r1.hold, ZKC_OK);
  await_granted(&w2);
  hold_node(w2.hold, "__WRIT__");
  OK(zkc_hold_fencing_token(w2.hold, &t2));
  assert_true(t2 > t1);
  assert_int_equal(atomic_load(&r3.done), 0); /* the writer excludes */

  release_now(a, w2.hold, ZKC_OK);
  await_granted(&r3);
  OK(zkc_mutex_acquire_timeout(b4, zkt_ms(10000))); /* readers share */
  assert_true(zkc_hold_is_held(r3.hold));
  OK(zkc_hold_fencing_token(r3.hold, &t3));
  assert_true(t3 > t2);
  /* One look: an async reader behind two holding readers goes in too. */
  res_t r5 = {0};
  OK(zkc_async_acquire_read(a, path, 0, on_acquired, &r5, NULL));
  await_granted(&r5);
  release_now(a, r5.hold, ZKC_OK);
  OK(zkc_mutex_release(b4));
  release_now(a, r3.hold, ZKC_OK);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  assert_int_equal(atomic_load(&r1.done) + atomic_load(&w2.done) +
                       atomic_load(&r3.done), 3);

  OK(zkc_async_destroy(a));
  OK(zkc_rwlock_destroy(rw));
  OK(zkc_rwlock_destroy(rw4));
  zkc_client_close(c);
  zkc_client_close(b);
  zkc_client_close(c4);
}

/* A write hold's fenced write goes through; a read hold's is refused and
 * changes nothing. */
static void read_hold_fenced_write_refused(void **state) {
  (void)state;
  char path[512], data[512];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  snprintf(data, sizeof data, "%s", zkt_path("data"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_async_t *a = new_async(c, NULL);
  res_t w = {0}, r = {0};
  OK(zkc_async_acquire_write(a, path, zkt_ms(20000), on_acquired, &w, NULL));
  await_granted(&w);
  OK(zkc_hold_fenced_create(w.hold, data, "w", 1));
  release_now(a, w.hold, ZKC_OK);

  OK(zkc_async_acquire_read(a, path, zkt_ms(20000), on_acquired, &r, NULL));
  await_granted(&r);
  assert_int_equal(zkc_hold_fenced_set(r.hold, data, "r", 1), ZKC_EINVAL);
  assert_non_null(strstr(zkc_last_error_message(), "read side"));
  assert_int_equal(zkc_hold_fenced_create(r.hold, zkt_path("other"), "r", 1),
                   ZKC_EINVAL);
  char buf[8];
  assert_int_equal(zkt_get_data(data, buf, sizeof buf), 1);
  assert_int_equal(buf[0], 'w'); /* nothing written */
  assert_int_equal(zkt_exists(zkt_path("other"), NULL), 0);
  assert_true(zkc_hold_is_held(r.hold)); /* the refusal changes nothing */
  release_now(a, r.hold, ZKC_OK);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* A read hold whose node an outsider deletes is told lost. */
static void read_hold_outside_delete_is_lost(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL);
  lost_t l = {0};
  zkc_async_t *a = new_async(c, &l);
  res_t r = {0};
  OK(zkc_async_acquire_read(a, path, -1, on_acquired, &r, NULL));
  await_granted(&r);
  zkt_delete_tree(path);
  assert_true(zkt_await(was_lost, &l, zkt_ms(8000)));
  assert_int_equal(l.why, ZKC_LOST_DELETED);
  assert_false(zkc_hold_is_held(r.hold));
  release_now(a, r.hold, ZKC_ELOST);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

/* A writer behind a blocking reader times out and leaves no node; bad
 * arguments are refused before anything is sent. */
static void write_timeout_and_bad_input(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL), *o = zkt_open(NULL);
  zkc_rwlock_t *rw = NULL;
  OK(zkc_rwlock_create(&rw, o, path));
  OK(zkc_mutex_acquire(zkc_rwlock_read_side(rw)));
  zkc_async_t *a = new_async(c, NULL);
  res_t w = {0}, r = {0};
  OK(zkc_async_acquire_write(a, path, 300, on_acquired, &w, NULL));
  assert_true(zkt_await(is_done, &w, zkt_ms(20000)));
  assert_int_equal(w.rc, ZKC_ETIMEDOUT);
  assert_null(w.hold);
  assert_int_equal(zkt_children_count(path), 1); /* the reader's alone */
  OK(zkc_async_acquire_read(a, path, 0, on_acquired, &r, NULL)); /* shares */
  await_granted(&r);
  release_now(a, r.hold, ZKC_OK);

  assert_int_equal(zkc_async_acquire_read(NULL, path, -1, on_acquired, &r, NULL),
                   ZKC_EINVAL);
  assert_int_equal(zkc_async_acquire_write(a, path, -1, NULL, NULL, NULL),
                   ZKC_EINVAL);
  assert_int_equal(zkc_async_acquire_write(a, "no/slash", -1, on_acquired, &w,
                                           NULL),
                   ZKC_EINVAL);
  assert_non_null(strstr(zkc_last_error_message(), "zkc_async_acquire_write"));
  assert_int_equal(zkt_children_count(path), 1);
  OK(zkc_mutex_release(zkc_rwlock_read_side(rw)));
  OK(zkc_rwlock_destroy(rw));
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
  zkc_client_close(o);
}

/* Dispatch mode, both sides: each grant and each release's completion
 * waits for zkc_async_dispatch, on our thread, the descriptor readable
 * meanwhile and drained after, as a lock's and a lease set's. */
static int dispatch_until(zkc_async_t *a, int fd, atomic_int *x, atomic_int *y) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int64_t end = zkt_now_ms() + zkt_ms(20000);
  while (atomic_load(x) == 0 || (y != NULL && atomic_load(y) == 0)) {
    int64_t left = end - zkt_now_ms();
    if (left <= 0 || poll(&p, 1, (int)left) != 1) return 0;
    int ran = 0;
    if (zkc_async_dispatch(a, &ran) != ZKC_OK) return 0;
  }
  return 1;
}

static void dispatch_mode_through_the_fd(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_async_t *a = new_async_mode(c, NULL, ZKC_DELIVER_DISPATCH);
  int fd = -1;
  OK(zkc_async_fd(a, &fd));
  struct pollfd p = {.fd = fd, .events = POLLIN};

  res_t w = {0}, r = {0};
  OK(zkc_async_acquire_write(a, path, zkt_ms(10000), on_acquired, &w, NULL));
  assert_int_equal(poll(&p, 1, (int)zkt_ms(10000)), 1);
  assert_int_equal(atomic_load(&w.done), 0); /* queued, not run */
  int ran = 0;
  OK(zkc_async_dispatch(a, &ran));
  assert_int_equal(ran, 1);
  await_granted(&w);
  assert_true(pthread_equal(w.thread, pthread_self()));
  hold_node(w.hold, "__WRIT__");
  assert_int_equal(poll(&p, 1, 0), 0); /* drained */

  /* A reader behind the writer: granted by the writer's release, both told
   * through the descriptor. */
  OK(zkc_async_acquire_read(a, path, zkt_ms(10000), on_acquired, &r, NULL));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  assert_int_equal(atomic_load(&r.done), 0);
  rel_t rw = {0};
  OK(zkc_hold_release(a, w.hold, on_released, &rw));
  assert_true(dispatch_until(a, fd, &rw.done, &r.done));
  OK(rw.rc);
  OK(zkc_hold_free(w.hold));
  await_granted(&r);
  assert_true(pthread_equal(r.thread, pthread_self()));
  hold_node(r.hold, "__READ__");

  rel_t rr = {0};
  OK(zkc_hold_release(a, r.hold, on_released, &rr));
  assert_true(dispatch_until(a, fd, &rr.done, NULL));
  OK(rr.rc);
  OK(zkc_hold_free(r.hold));
  assert_int_equal(poll(&p, 1, 0), 0);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  assert_int_equal(atomic_load(&w.done) + atomic_load(&r.done), 2);
  OK(zkc_async_destroy(a));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(readers_share_writers_exclude, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(read_hold_fenced_write_refused, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(read_hold_outside_delete_is_lost, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(write_timeout_and_bad_input, zkt_setup, zkt_teardown),
      cmocka_unit_test_setup_teardown(dispatch_mode_through_the_fd, zkt_setup, zkt_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof tests[0], "async_rw");
}
