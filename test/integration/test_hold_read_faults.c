/* SPDX-License-Identifier: Apache-2.0 */
/* The holds test_hold_notice.c's kinds leave out, against an outsider's
 * delete of their node: a read-write lock's read side, a downgrade's read
 * hold, an async read and write hold and an async lease set. Each keeps
 * its token, says is-held 0, refuses a fenced read (ZKC_ELOST) and tells
 * its loss notice exactly once. */
#include "hold_notes.h"

/* h lost to an outsider's delete: as the header says. */
static void lost_to_outsider(zkc_hold_t *h) {
  int64_t token = token_of(h);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(h, note, t));
  outsider_delete(h);
  assert_told_once(t, h, token, ZKC_LOST_DELETED);
  assert_int_equal(zkc_hold_is_held(h), 0);
  int64_t after = 0;
  OK(zkc_hold_fencing_token(h, &after));
  assert_true(after == token);
  char *data = NULL;
  size_t len = 0;
  int32_t version = 0;
  assert_int_equal(zkc_hold_fenced_get(h, zkt_path("data"), &data, &len, &version),
                   ZKC_ELOST);
  assert_null(data);
  OK(zkc_hold_set_lost_callback(h, NULL, NULL));
  assert_int_equal(notes_n(t), 1);
  notes_free(t);
}

static void read_case(int downgrade) {
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  OK(zkc_rwlock_create(&rw, c, zkt_path("rw")));
  zkc_mutex_t *r = zkc_rwlock_read_side(rw), *w = zkc_rwlock_write_side(rw);
  if (downgrade) OK(zkc_mutex_acquire(w));
  OK(zkc_mutex_acquire(r));
  if (downgrade) OK(zkc_mutex_release(w));
  lost_to_outsider(zkc_mutex_hold(r));
  assert_int_equal(zkc_mutex_release(r), ZKC_ELOST);
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(c);
}

static void read_side_lost_to_outsider(void **st) { (void)st; read_case(0); }
static void downgrade_lost_to_outsider(void **st) { (void)st; read_case(1); }

/* An async acquire's outcome. */
typedef struct got {
  pthread_mutex_t mu;
  int done, rc;
  zkc_hold_t *hold;
} got_t;

static void got_hold(void *ctx, int rc, zkc_hold_t *hold) {
  got_t *g = ctx;
  pthread_mutex_lock(&g->mu);
  g->rc = rc;
  g->hold = hold;
  g->done = 1;
  pthread_mutex_unlock(&g->mu);
}

static int got_done(void *ctx) {
  got_t *g = ctx;
  pthread_mutex_lock(&g->mu);
  int done = g->done;
  pthread_mutex_unlock(&g->mu);
  return done;
}

/* kind: 'r' an async read hold, 'w' write, 'l' a lease set. */
static void async_case(char kind) {
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  zkc_async_t *a;
  OK(zkc_async_create(&a, c, NULL));
  zkc_sem_t *sem = NULL;
  got_t g = {.mu = PTHREAD_MUTEX_INITIALIZER};
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  if (kind == 'l') {
    OK(zkc_sem_create(&sem, c, path, NULL));
    OK(zkc_async_acquire_leases(a, sem, 1, zkt_ms(15000), got_hold, &g, NULL));
  } else if (kind == 'r') {
    OK(zkc_async_acquire_read(a, path, zkt_ms(15000), got_hold, &g, NULL));
  } else {
    OK(zkc_async_acquire_write(a, path, zkt_ms(15000), got_hold, &g, NULL));
  }
  assert_true(zkt_await(got_done, &g, zkt_ms(20000)));
  OK(g.rc);
  lost_to_outsider(g.hold);
  OK(zkc_hold_free(g.hold));
  OK(zkc_async_destroy(a));
  if (sem) OK(zkc_sem_destroy(sem));
  zkc_client_close(c);
}

static void async_read_lost_to_outsider(void **st) { (void)st; async_case('r'); }
static void async_write_lost_to_outsider(void **st) { (void)st; async_case('w'); }
static void async_lease_lost_to_outsider(void **st) { (void)st; async_case('l'); }

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(read_side_lost_to_outsider),
      cmocka_unit_test(downgrade_lost_to_outsider),
      cmocka_unit_test(async_read_lost_to_outsider),
      cmocka_unit_test(async_write_lost_to_outsider),
      cmocka_unit_test(async_lease_lost_to_outsider),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "hold_read_faults");
}
