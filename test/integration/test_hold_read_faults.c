/* SPDX-License-Identifier: Apache-2.0 */
/* The hold test_hold_notice.c's kinds leave out, against an outsider's
 * delete of its node: an async lease set. It keeps its token, says
 * is-held 0, refuses its fenced calls (ZKC_ELOST) and tells its loss
 * notice exactly once. */
#include "hold_notes.h"

/* h lost to an outsider's delete: as the header says. */
static void lost_to_outsider(zkc_hold_t *h) {
  int64_t token = token_of(h);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(h, note, t));
  outsider_delete(h);
  assert_lost_hold(h, t, token, ZKC_LOST_DELETED, LOST_EXCLUSIVE);
  OK(zkc_hold_set_lost_callback(h, NULL, NULL));
  assert_int_equal(notes_n(t), 1);
  notes_free(t);
}

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

/* An async lease set of one lease, lost to an outsider's delete. */
static void async_lease_lost_to_outsider(void **st) {
  (void)st;
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  zkc_async_t *a;
  OK(zkc_async_create(&a, c, NULL));
  zkc_sem_t *sem = NULL;
  got_t g = {.mu = PTHREAD_MUTEX_INITIALIZER};
  OK(zkc_sem_create(&sem, c, zkt_path("lock"), NULL));
  OK(zkc_async_acquire_leases(a, sem, 1, zkt_ms(15000), got_hold, &g, NULL));
  assert_true(zkt_await(got_done, &g, zkt_ms(20000)));
  OK(g.rc);
  lost_to_outsider(g.hold);
  OK(zkc_hold_free(g.hold));
  OK(zkc_async_destroy(a));
  OK(zkc_sem_destroy(sem));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(async_lease_lost_to_outsider),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "hold_read_faults");
}
