/* SPDX-License-Identifier: Apache-2.0 */
/* The one loss notice of a hold (zkc_hold_set_lost_callback) on the real
 * ensemble: for every kind of hold, told exactly once with the grant's
 * token and reason when an outsider deletes its node or its session
 * expires; never when cleared, on a normal release, nor once the hold is
 * freed; a one-grant hold lost already refuses it (ZKC_ELOST). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hold_notes.h"
#include "hold_subject.h"

/* A recipe's own lost callback, which runs after the notice: once it ran,
 * a notice that was to be told has been. */
static int recipe_told;
static pthread_mutex_t recipe_mu = PTHREAD_MUTEX_INITIALIZER;
static void on_mutex_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                          int64_t token) {
  (void)ctx, (void)m, (void)why, (void)token;
  pthread_mutex_lock(&recipe_mu);
  recipe_told++;
  pthread_mutex_unlock(&recipe_mu);
}
static int recipe_was_told(void *ctx) {
  (void)ctx;
  pthread_mutex_lock(&recipe_mu);
  int n = recipe_told;
  pthread_mutex_unlock(&recipe_mu);
  return n > 0;
}

/* ---- every kind, an outsider's delete or its session's expiry ---- */

/* The grant lost as assert_lost_hold says. A leader alone leads again at
 * once, in a new term its view follows: its lost term is checked through a
 * hold bound to it (whose token stays the term's once it is over), the
 * view's notice told once for it too. */
static void subject_case(const char *recipe, int expire) {
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  subject_t s;
  OK(subject_take(&s, recipe, c, zkt_path("lock"), zkt_ms(15000)));
  zkc_hold_t *view = subject_hold(&s), *h = view, *bound = NULL;
  if (s.latch || s.sel) OK(zkc_hold_bind(view, &bound)), h = bound;
  int64_t token = token_of(h);
  notes_t *t = notes_new(), *tv = notes_new();
  OK(zkc_hold_set_lost_callback(h, note, t));
  if (bound) OK(zkc_hold_set_lost_callback(view, note, tv));
  if (expire)
    zkt_expire_session(c);
  else
    outsider_delete(h);
  zkc_lost_reason_t why = expire ? ZKC_LOST_SESSION : ZKC_LOST_DELETED;
  int how = subject_exclusive(recipe) ? LOST_EXCLUSIVE : LOST_READ;
  assert_lost_hold(h, t, token, why, how);
  if (bound) {
    assert_true(zkt_await(told, tv, zkt_ms(15000)));
    assert_int_equal(notes_n(tv), 1);
    assert_true(tv->token == token);
    OK(zkc_hold_free(bound));
  }
  subject_drop(&s);
  assert_int_equal(notes_n(t), 1);
  notes_free(t);
  notes_free(tv);
  zkc_client_close(c);
}

static void mutex_told_on_delete(void **st) { (void)st; subject_case("mutex", 0); }
static void write_side_told_on_delete(void **st) { (void)st; subject_case("write", 0); }
static void read_side_told_on_delete(void **st) { (void)st; subject_case("read", 0); }
static void downgrade_told_on_delete(void **st) { (void)st; subject_case("downgrade", 0); }
static void lease_set_told_on_delete(void **st) { (void)st; subject_case("lease", 0); }
static void latch_told_on_delete(void **st) { (void)st; subject_case("latch", 0); }
static void selector_told_on_delete(void **st) { (void)st; subject_case("selector", 0); }
static void async_hold_told_on_delete(void **st) { (void)st; subject_case("async", 0); }
static void async_read_told_on_delete(void **st) { (void)st; subject_case("async_read", 0); }
static void async_write_told_on_delete(void **st) { (void)st; subject_case("async_write", 0); }
static void async_lease_told_on_delete(void **st) { (void)st; subject_case("async_lease", 0); }
static void mutex_told_on_expiry(void **st) { (void)st; subject_case("mutex", 1); }
static void lease_set_told_on_expiry(void **st) { (void)st; subject_case("lease", 1); }
static void latch_told_on_expiry(void **st) { (void)st; subject_case("latch", 1); }

/* A multi-lock's set: test_hold_set_notice.c; an async lease set:
 * test_hold_read_faults.c. */

/* ---- a bound hold: its one grant ---- */

static void bound_told_on_delete(void **st) {
  (void)st;
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, zkt_path("lock")));
  OK(zkc_mutex_acquire(m));
  zkc_hold_t *b;
  OK(zkc_hold_bind(zkc_mutex_hold(m), &b));
  int64_t token = token_of(b);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(b, note, t));
  outsider_delete(zkc_mutex_hold(m));
  assert_told_once(t, b, token, ZKC_LOST_DELETED);
  /* Lost already: a notice set now is refused, never told. */
  notes_t *late = notes_new();
  assert_int_equal(zkc_hold_set_lost_callback(b, note, late), ZKC_ELOST);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  /* A later grant is not the bound one. */
  OK(zkc_mutex_acquire(m));
  outsider_delete(zkc_mutex_hold(m));
  OK(zkc_mutex_set_lost_callback(m, on_mutex_lost, NULL));
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_hold_free(b));
  OK(zkc_mutex_destroy(m));
  assert_int_equal(notes_n(t), 1);
  assert_int_equal(notes_n(late), 0);
  notes_free(t);
  notes_free(late);
  zkc_client_close(c);
}

/* A mutex of c held, its own lost callback counting (from 0). */
static zkc_mutex_t *held_and_watched(zkc_client_t *c) {
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, zkt_path("lock")));
  pthread_mutex_lock(&recipe_mu);
  recipe_told = 0;
  pthread_mutex_unlock(&recipe_mu);
  OK(zkc_mutex_set_lost_callback(m, on_mutex_lost, NULL));
  OK(zkc_mutex_acquire(m));
  return m;
}

/* ---- not told ---- */

/* Cleared (NULL fn): the mutex's own callback, told after the notice,
 * shows the loss went by untold. */
static void cleared_notice_not_told(void **st) {
  (void)st;
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = held_and_watched(c);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(zkc_mutex_hold(m), note, t));
  OK(zkc_hold_set_lost_callback(zkc_mutex_hold(m), NULL, NULL));
  outsider_delete(zkc_mutex_hold(m));
  assert_true(zkt_await(recipe_was_told, NULL, zkt_ms(15000)));
  assert_int_equal(notes_n(t), 0);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  notes_free(t);
  zkc_client_close(c);
}

/* A normal release tells nothing; the view's notice covers the next grant,
 * told with that grant's token. */
static void release_not_told_next_grant_told(void **st) {
  (void)st;
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, zkt_path("lock")));
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(zkc_mutex_hold(m), note, t));
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_acquire(m));
  int64_t token = token_of(zkc_mutex_hold(m));
  outsider_delete(zkc_mutex_hold(m));
  assert_told_once(t, zkc_mutex_hold(m), token, ZKC_LOST_DELETED);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  notes_free(t);
  zkc_client_close(c);
}

/* Freed or destroyed with a notice set: never told afterwards (ASan sees
 * any use of what was freed). */
static void freed_hold_not_told(void **st) {
  (void)st;
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = held_and_watched(c);
  zkc_hold_t *b;
  OK(zkc_hold_bind(zkc_mutex_hold(m), &b));
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(b, note, t));
  OK(zkc_hold_free(b));
  outsider_delete(zkc_mutex_hold(m));
  assert_true(zkt_await(recipe_was_told, NULL, zkt_ms(15000)));
  assert_int_equal(notes_n(t), 0);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  /* A recipe destroyed with its view's notice set, then a lease freed with
   * its own: both gone without a call. */
  OK(zkc_hold_set_lost_callback(zkc_mutex_hold(m), note, t));
  OK(zkc_mutex_destroy(m));
  zkc_sem_t *sem;
  zkc_lease_t *lease;
  OK(zkc_sem_create(&sem, c, zkt_path("sem"), NULL));
  OK(zkc_sem_acquire(sem, 1, zkt_ms(15000), &lease));
  OK(zkc_hold_set_lost_callback(zkc_lease_hold(lease), note, t));
  OK(zkc_lease_free(lease));
  OK(zkc_sem_destroy(sem));
  assert_int_equal(notes_n(t), 0);
  notes_free(t);
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mutex_told_on_delete),
      cmocka_unit_test(write_side_told_on_delete),
      cmocka_unit_test(read_side_told_on_delete),
      cmocka_unit_test(downgrade_told_on_delete),
      cmocka_unit_test(async_read_told_on_delete),
      cmocka_unit_test(async_write_told_on_delete),
      cmocka_unit_test(async_lease_told_on_delete),
      cmocka_unit_test(lease_set_told_on_delete),
      cmocka_unit_test(latch_told_on_delete),
      cmocka_unit_test(selector_told_on_delete),
      cmocka_unit_test(async_hold_told_on_delete),
      cmocka_unit_test(bound_told_on_delete),
      cmocka_unit_test(mutex_told_on_expiry),
      cmocka_unit_test(lease_set_told_on_expiry),
      cmocka_unit_test(latch_told_on_expiry),
      cmocka_unit_test(cleared_notice_not_told),
      cmocka_unit_test(release_not_told_next_grant_told),
      cmocka_unit_test(freed_hold_not_told),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof tests[0],
                  "hold_notice");
}
