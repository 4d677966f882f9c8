/* SPDX-License-Identifier: Apache-2.0 */
/* The lock queue's read side (the read-write lock's protocol) on the real
 * ensemble: which node waits on which, with Curator's and kazoo's names. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "queue.h"
#include "util.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)
#define READ 1
#define WRITE 0

/* One side of the lock on base; deadline_ms from now. */
static int take(zkc_client_t *c, const char *base, int reader,
                int64_t timeout_ms, zkc__held_t *out) {
  return zkc__lock_acquire_side(c, base, reader ? "__READ__" : "__WRIT__",
                                NULL, reader, zkc__now_ms() + timeout_ms, out);
}

/* Readers share; a writer excludes readers and writers. */
static void writers_exclude_readers_share(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  char base[600];
  snprintf(base, sizeof base, "%s", zkt_path("rw"));
  zkc__held_t r1, r2, w, x;
  OK(take(c, base, READ, zkt_ms(10000), &r1));
  OK(take(c, base, READ, zkt_ms(10000), &r2));
  assert_int_equal(take(c, base, WRITE, zkt_ms(300), &x), ZKC_ETIMEDOUT);
  OK(zkc__lock_release(c, &r1));
  OK(zkc__lock_release(c, &r2));
  OK(take(c, base, WRITE, zkt_ms(10000), &w));
  assert_int_equal(take(c, base, READ, zkt_ms(300), &x), ZKC_ETIMEDOUT);
  assert_int_equal(take(c, base, WRITE, zkt_ms(300), &x), ZKC_ETIMEDOUT);
  OK(zkc__lock_release(c, &w));
  assert_int_equal(zkt_children_count(base), 0);
  zkc_client_close(c);
}

typedef struct bg {
  zkc_client_t *c;
  const char *base;
  int reader, rc;
  zkc__held_t held;
} bg_t;

static void *bg_take(void *arg) {
  bg_t *b = arg;
  b->rc = take(b->c, b->base, b->reader, zkt_ms(30000), &b->held);
  return NULL;
}

/* A reader behind a queued writer waits (no writer starvation); the writer
 * gets the lock when the reader ahead of it leaves. */
static void fifo_across_kinds(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  char base[600];
  snprintf(base, sizeof base, "%s", zkt_path("rw"));
  zkc__held_t r1, r2;
  OK(take(c, base, READ, zkt_ms(10000), &r1));
  bg_t w = {.c = c, .base = base, .reader = WRITE, .rc = -1};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, bg_take, &w), 0);
  assert_true(zkt_await_children_exactly(base, 2, zkt_ms(10000)));
  assert_int_equal(take(c, base, READ, zkt_ms(300), &r2), ZKC_ETIMEDOUT);
  OK(zkc__lock_release(c, &r1));
  pthread_join(t, NULL);
  OK(w.rc);
  OK(zkc__lock_release(c, &w.held));
  zkc_client_close(c);
}

/* kazoo's nodes count by kind; a sequenced node of no rw kind (a
 * squatter's, kazoo's "__lock__", which its Lock makes too) blocks readers
 * as a writer would; a plain lock's "lock-" node is refused (ZKC_ELAYOUT). */
static void foreign_children(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  char base[600];
  snprintf(base, sizeof base, "%s", zkt_path("rw"));
  zkc__held_t r, x;
  char kr[800], other[800], kw[800];
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), base, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZOK);
  zkt_raw_child(base, "0f1e2d3c4b5a69788796a5b4c3d2e1f0__rlock__", kr, sizeof kr);
  OK(take(c, base, READ, zkt_ms(10000), &r)); /* shares with kazoo's reader */
  OK(zkc__lock_release(c, &r));
  assert_int_equal(take(c, base, WRITE, zkt_ms(300), &x), ZKC_ETIMEDOUT);
  zkt_raw_child(base, "squatter-", other, sizeof other);
  assert_int_equal(take(c, base, READ, zkt_ms(300), &x), ZKC_ETIMEDOUT);
  assert_int_equal(zoo_delete(zkt_raw(), other, -1), ZOK);
  zkt_raw_child(base, "mutex-lock-", other, sizeof other);
  assert_int_equal(take(c, base, READ, zkt_ms(300), &x), ZKC_ELAYOUT);
  assert_int_equal(take(c, base, WRITE, zkt_ms(300), &x), ZKC_ELAYOUT);
  assert_int_equal(zkt_children_count(base), 2); /* ours went again */
  assert_int_equal(zoo_delete(zkt_raw(), other, -1), ZOK);
  zkt_raw_child(base, "0f1e2d3c4b5a69788796a5b4c3d2e1f0__lock__", kw, sizeof kw);
  assert_int_equal(take(c, base, READ, zkt_ms(300), &x), ZKC_ETIMEDOUT);
  assert_int_equal(zoo_delete(zkt_raw(), kw, -1), ZOK);
  OK(take(c, base, READ, zkt_ms(10000), &r)); /* kazoo's writer left */
  OK(zkc__lock_release(c, &r));
  assert_int_equal(zoo_delete(zkt_raw(), kr, -1), ZOK);
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(writers_exclude_readers_share),
      cmocka_unit_test(fifo_across_kinds),
      cmocka_unit_test(foreign_children),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "rwqueue");
}
