/* SPDX-License-Identifier: Apache-2.0 */
/* The one rule for a hold's fate (lib/hold_fate.c), without a server:
 * every state against a hold of the lost session and of another, with and
 * without lost_on_suspended; the rule at a grant; the teller; and the
 * hold record every recipe's hold carries (its loss named once, whoever
 * finds it first, and kept at a release that was not a clean end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hold_fate.h"
#include "stats.h"

enum { MINE = 7, OTHER = 9 };
#define UNTOUCHED ((zkc_lost_reason_t)99) /* no reason given */

static zkc__hold_fate_t on(zkc_state_t st, int64_t hold, int policy,
                           zkc_lost_reason_t *why) {
  *why = UNTOUCHED;
  return zkc__hold_fate_on_state(st, MINE, hold, policy, why);
}

static void doubt_is_loss_only_by_policy(void **state) {
  (void)state;
  zkc_lost_reason_t why;
  const zkc_state_t doubtful[] = {ZKC_STATE_SUSPENDED, ZKC_STATE_READ_ONLY};
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(on(doubtful[i], MINE, 0, &why), ZKC__HOLD_IN_DOUBT);
    assert_int_equal(why, UNTOUCHED); /* untouched unless lost */
    assert_int_equal(on(doubtful[i], MINE, 1, &why), ZKC__HOLD_LOST);
    assert_int_equal(why, ZKC_LOST_SUSPENDED);
  }
}

static void own_session_lost_is_loss(void **state) {
  (void)state;
  zkc_lost_reason_t why;
  for (int policy = 0; policy <= 1; policy++) {
    assert_int_equal(on(ZKC_STATE_LOST, MINE, policy, &why), ZKC__HOLD_LOST);
    assert_int_equal(why, ZKC_LOST_SESSION);
    /* Another session's loss: this hold is not proven gone, but not
     * proven there either. */
    assert_int_equal(on(ZKC_STATE_LOST, OTHER, policy, &why),
                     ZKC__HOLD_IN_DOUBT);
  }
}

static void connected_stands(void **state) {
  (void)state;
  zkc_lost_reason_t why;
  for (int policy = 0; policy <= 1; policy++) {
    assert_int_equal(on(ZKC_STATE_CONNECTED, MINE, policy, &why),
                     ZKC__HOLD_STANDS);
    assert_int_equal(on(ZKC_STATE_RECONNECTED, MINE, policy, &why),
                     ZKC__HOLD_STANDS);
    assert_int_equal(why, UNTOUCHED);
  }
}

static void at_grant(void **state) {
  (void)state;
  for (int policy = 0; policy <= 1; policy++) {
    assert_int_equal(zkc__hold_fate_at_grant(ZKC__SESSION_LIVE, policy),
                     ZKC__HOLD_STANDS);
    assert_int_equal(zkc__hold_fate_at_grant(ZKC__SESSION_GONE, policy),
                     ZKC__HOLD_LOST);
  }
  assert_int_equal(zkc__hold_fate_at_grant(ZKC__SESSION_DOUBT, 0),
                   ZKC__HOLD_IN_DOUBT);
  assert_int_equal(zkc__hold_fate_at_grant(ZKC__SESSION_DOUBT, 1),
                   ZKC__HOLD_LOST);
}

typedef struct {
  int n;
  int64_t tokens[8];
  zkc_lost_reason_t why;
} told_t;

static void record(void *ctx, zkc_lost_reason_t why, int64_t token) {
  told_t *t = ctx;
  t->why = why;
  t->tokens[t->n++] = token;
}

/* Every pushed token is told once, in order, and counted once in the
 * stats record, and the list is left empty (a NULL client logs nowhere). */
static void teller_tells_each_once(void **state) {
  (void)state;
  zkc__stats_hub_t hub;
  assert_int_equal(zkc__stats_hub_init(&hub), ZKC_OK);
  zkc__lstats_t *st = zkc__stats_for(&hub, ZKC_RECIPE_MUTEX, "/p");
  assert_non_null(st);
  zkc__lost_list_t l = {0};
  for (int64_t t = 1; t <= 6; t++) zkc__lost_push(&l, 100 + t);
  assert_int_equal(l.n, 6);
  told_t told = {0};
  zkc__lost_tell(NULL, st, "lock", "/p", ZKC_LOST_DELETED, &l, record, &told);
  assert_int_equal(told.n, 6);
  for (int i = 0; i < 6; i++) assert_int_equal(told.tokens[i], 101 + i);
  assert_int_equal(told.why, ZKC_LOST_DELETED);
  assert_int_equal(l.n, 0);
  assert_null(l.tokens);
  zkc__lost_tell(NULL, st, "lock", "/p", ZKC_LOST_SESSION, &l, record, &told);
  assert_int_equal(told.n, 6); /* nothing left to tell */
  zkc_lock_stats_t snap;
  assert_int_equal(zkc__stats_copy(st, &snap), ZKC_OK);
  assert_int_equal(snap.lost[ZKC_LOST_DELETED], 6);
  assert_int_equal(snap.lost[ZKC_LOST_SESSION], 0);
  zkc__stats_hub_free(&hub);
}

/* A state change that loses a hold names it once; a later one, or its
 * node's delete, names it no more; doubt and a live state set in_doubt. */
static void record_named_once(void **state) {
  (void)state;
  zkc__hold_rec_t r = {0};
  zkc__hold_rec_set(&r, 41, MINE);
  zkc__lost_list_t l = {0};
  zkc_lost_reason_t why = UNTOUCHED;
  assert_int_equal(zkc__hold_rec_on_state(&r, ZKC_STATE_SUSPENDED, 0, 0,
                                          &l, &why),
                   0);
  assert_int_equal(atomic_load(&r.in_doubt), 1);
  assert_int_equal(l.n, 0);
  assert_int_equal(why, UNTOUCHED);
  assert_int_equal(zkc__hold_rec_on_state(&r, ZKC_STATE_CONNECTED, 0, 0,
                                          &l, &why),
                   0);
  assert_int_equal(atomic_load(&r.in_doubt), 0);
  /* another session's loss leaves it in doubt, its own loses it */
  assert_int_equal(zkc__hold_rec_on_state(&r, ZKC_STATE_LOST, OTHER, 0,
                                          &l, &why),
                   0);
  assert_int_equal(atomic_load(&r.lost), 0);
  assert_int_equal(zkc__hold_rec_on_state(&r, ZKC_STATE_LOST, MINE, 0,
                                          &l, &why),
                   1);
  assert_int_equal(why, ZKC_LOST_SESSION);
  assert_int_equal(atomic_load(&r.lost), 1);
  assert_int_equal(l.n, 1);
  assert_int_equal(l.tokens[0], 41);
  assert_int_equal(zkc__hold_rec_on_state(&r, ZKC_STATE_LOST, MINE, 0,
                                          &l, &why),
                   0);
  assert_int_equal(zkc__hold_rec_lose(&r, &l), 0);
  assert_int_equal(l.n, 1);
  zkc__lost_clear(&l);
}

/* Found gone by the holder's own call (lose with no list): marked lost at
 * once, named by the state change that comes after, once. */
static void record_found_by_holder_told_later(void **state) {
  (void)state;
  zkc__hold_rec_t r = {0};
  zkc__hold_rec_set(&r, 42, MINE);
  zkc__lost_list_t l = {0};
  assert_int_equal(zkc__hold_rec_lose(&r, NULL), 0);
  assert_int_equal(atomic_load(&r.lost), 1);
  zkc_lost_reason_t why = UNTOUCHED;
  assert_int_equal(zkc__hold_rec_on_state(&r, ZKC_STATE_SUSPENDED, 0, 1,
                                          &l, &why),
                   1);
  assert_int_equal(why, ZKC_LOST_SUSPENDED);
  assert_int_equal(l.n, 1);
  assert_int_equal(zkc__hold_rec_lose(&r, &l), 0);
  assert_int_equal(l.n, 1);
  zkc__lost_clear(&l);
}

/* A release that was not a clean end keeps the hold for a loss learnt
 * later, unless that loss was named already; a clean or closed one keeps
 * nothing; and a kept hold is not kept twice. */
static void record_kept_at_release(void **state) {
  (void)state;
  zkc__released_list_t kept = {0};
  const int clean[] = {ZKC_OK, ZKC_ECLOSED};
  for (size_t i = 0; i < 2; i++) {
    zkc__hold_rec_t r = {0};
    zkc__hold_rec_set(&r, 43, MINE);
    zkc__hold_rec_keep(&r, clean[i], &kept);
    assert_int_equal(kept.n, 0);
  }
  const int doubtful[] = {ZKC_ECONNLOSS, ZKC_ELOST};
  for (size_t i = 0; i < 2; i++) {
    zkc__hold_rec_t r = {0};
    zkc__hold_rec_set(&r, 44 + (int64_t)i, MINE);
    zkc__hold_rec_keep(&r, doubtful[i], &kept);
    zkc__hold_rec_keep(&r, doubtful[i], &kept);
    assert_int_equal(kept.n, i + 1);
    assert_int_equal(kept.v[i].token, 44 + (int64_t)i);
    assert_int_equal(kept.v[i].session, MINE);
  }
  zkc__hold_rec_t told = {0};
  zkc__hold_rec_set(&told, 46, MINE);
  zkc__lost_list_t l = {0};
  assert_int_equal(zkc__hold_rec_lose(&told, &l), 1);
  zkc__hold_rec_keep(&told, ZKC_ELOST, &kept);
  assert_int_equal(kept.n, 2); /* its loss was named: not kept */
  zkc__lost_clear(&l);
  zkc__released_clear(&kept);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(doubt_is_loss_only_by_policy),
      cmocka_unit_test(own_session_lost_is_loss),
      cmocka_unit_test(connected_stands),
      cmocka_unit_test(at_grant),
      cmocka_unit_test(teller_tells_each_once),
      cmocka_unit_test(record_named_once),
      cmocka_unit_test(record_found_by_holder_told_later),
      cmocka_unit_test(record_kept_at_release),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
