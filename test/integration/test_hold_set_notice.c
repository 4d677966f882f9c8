/* SPDX-License-Identifier: Apache-2.0 */
/* A multi-lock's set's loss notice (zkc_hold_set_lost_callback on
 * zkc_multilock_hold): the set is lost when any of its locks is, told once
 * per lost set with the set's token (zkc_hold_fencing_token's) and the
 * reason; never when cleared, on a normal release, nor once destroyed. */
#include "hold_notes.h"
#include "hold_subject.h"

/* The node of the set's second lock (its newest, whose czxid is the set's
 * token), deleted by an outsider. */
static void delete_second(zkc_hold_t *set) {
  zkc_list_t *nodes = NULL;
  OK(zkc_hold_node_list(set, &nodes));
  assert_true(zkc_list_count(nodes) >= 2);
  assert_int_equal(zoo_delete(zkt_raw(), zkc_list_string(nodes, 1), -1), ZOK);
  zkc_list_free(nodes);
}

static void set_case(int expire) {
  zkt_make_root();
  zkc_client_t *c = zkt_open(NULL);
  subject_t s;
  OK(subject_take(&s, "multi", c, zkt_path("lock"), zkt_ms(15000)));
  zkc_hold_t *h = subject_hold(&s); /* zkc_multilock_hold */
  int64_t token = token_of(h);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(h, note, t));
  if (expire)
    zkt_expire_session(c); /* both locks lost: the set told once */
  else
    delete_second(h);
  assert_lost_hold(h, t, token, expire ? ZKC_LOST_SESSION : ZKC_LOST_DELETED,
                   LOST_EXCLUSIVE);
  subject_drop(&s);
  assert_int_equal(notes_n(t), 1);
  notes_free(t);
  zkc_client_close(c);
}

static void set_told_on_delete(void **st) { (void)st; set_case(0); }
static void set_told_on_expiry(void **st) { (void)st; set_case(1); }

/* The set's locks and the multi-lock over them, each lock's own lost
 * callback counting (a loss told to the lock, and so to the set's tie). */
typedef struct fix {
  zkc_client_t *c;
  zkc_mutex_t *m[2];
  zkc_multilock_t *ml;
  notes_t *lock_told;
} fix_t;

static void on_lock_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                         int64_t token) {
  (void)m;
  note(ctx, why, token);
}

static void fix_make(fix_t *f) {
  zkt_make_root();
  f->c = zkt_open(NULL);
  char pa[600], pb[600];
  snprintf(pa, sizeof pa, "%s", zkt_path("a"));
  snprintf(pb, sizeof pb, "%s", zkt_path("b"));
  OK(zkc_mutex_create(&f->m[0], f->c, pa));
  OK(zkc_mutex_create(&f->m[1], f->c, pb));
  OK(zkc_multilock_create(&f->ml, f->m, 2));
  f->lock_told = notes_new();
  for (int i = 0; i < 2; i++)
    OK(zkc_mutex_set_lost_callback(f->m[i], on_lock_lost, f->lock_told));
}

static void fix_drop(fix_t *f) {
  for (int i = 0; i < 2; i++) OK(zkc_mutex_destroy(f->m[i]));
  notes_free(f->lock_told);
  zkc_client_close(f->c);
}

/* Cleared: the lock's own callback, told after the set's tie, shows the
 * loss went by untold. */
static void cleared_set_notice_not_told(void **st) {
  (void)st;
  fix_t f;
  fix_make(&f);
  notes_t *t = notes_new();
  zkc_hold_t *h = zkc_multilock_hold(f.ml);
  OK(zkc_hold_set_lost_callback(h, note, t));
  OK(zkc_multilock_acquire(f.ml));
  OK(zkc_hold_set_lost_callback(h, NULL, NULL));
  delete_second(h);
  assert_true(zkt_await(told, f.lock_told, zkt_ms(15000)));
  assert_int_equal(notes_n(t), 0);
  assert_int_equal(zkc_multilock_release(f.ml), ZKC_ELOST);
  OK(zkc_multilock_destroy(f.ml));
  fix_drop(&f);
  notes_free(t);
}

/* A normal release tells nothing: the locks taken again one by one and
 * lost are no set's. The next set is told, with its own token. */
static void released_set_not_told_next_told(void **st) {
  (void)st;
  fix_t f;
  fix_make(&f);
  notes_t *t = notes_new();
  zkc_hold_t *h = zkc_multilock_hold(f.ml);
  OK(zkc_hold_set_lost_callback(h, note, t));
  OK(zkc_multilock_acquire(f.ml));
  int64_t first = token_of(h);
  OK(zkc_multilock_release(f.ml));
  OK(zkc_mutex_acquire(f.m[1]));
  outsider_delete(zkc_mutex_hold(f.m[1]));
  assert_true(zkt_await(told, f.lock_told, zkt_ms(15000)));
  assert_int_equal(zkc_mutex_release(f.m[1]), ZKC_ELOST);
  assert_int_equal(notes_n(t), 0);
  OK(zkc_multilock_acquire(f.ml));
  int64_t next = token_of(h);
  assert_true(next > first);
  delete_second(h);
  assert_told_once(t, h, next, ZKC_LOST_DELETED);
  assert_int_equal(zkc_multilock_release(f.ml), ZKC_ELOST);
  OK(zkc_multilock_destroy(f.ml));
  fix_drop(&f);
  notes_free(t);
}

/* Destroyed with its notice set: a later loss of its locks is never told
 * to it (ASan sees any use of what was freed). */
static void destroyed_set_not_told(void **st) {
  (void)st;
  fix_t f;
  fix_make(&f);
  notes_t *t = notes_new();
  OK(zkc_multilock_acquire(f.ml));
  OK(zkc_hold_set_lost_callback(zkc_multilock_hold(f.ml), note, t));
  OK(zkc_multilock_release(f.ml));
  OK(zkc_multilock_destroy(f.ml));
  OK(zkc_mutex_acquire(f.m[0]));
  outsider_delete(zkc_mutex_hold(f.m[0]));
  assert_true(zkt_await(told, f.lock_told, zkt_ms(15000)));
  assert_int_equal(zkc_mutex_release(f.m[0]), ZKC_ELOST);
  assert_int_equal(notes_n(t), 0);
  fix_drop(&f);
  notes_free(t);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(set_told_on_delete),
      cmocka_unit_test(set_told_on_expiry),
      cmocka_unit_test(cleared_set_notice_not_told),
      cmocka_unit_test(released_set_not_told_next_told),
      cmocka_unit_test(destroyed_set_not_told),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "hold_set_notice");
}
