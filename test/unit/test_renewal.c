/* SPDX-License-Identifier: Apache-2.0 */
/* The session's renewal proof (lib/renewal.c), without a server: one
 * answered probe proves nothing; two a ping interval apart on one
 * connection prove a renewal from the first one's send; probes too close,
 * on different connections or failed prove nothing; the margin; when the
 * next probe is due. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "renewal.h"

enum { T = 10000, GAP = ZKC__RENEW_SPACING(T), SPARE = ZKC__RENEW_MARGIN(T) };

static void spacing_covers_a_ping_interval(void **state) {
  (void)state;
  /* A follower reports its sessions every tickTime/2 <= T/4: the pair's
   * gap must exceed that, with room for the ping's jitter. */
  assert_true(GAP > T / 4);
  assert_true(SPARE > 0 && GAP + SPARE < T / 2);
}

static void new_session_counts_from_its_open(void **state) {
  (void)state;
  zkc__renewal_t r = {0};
  zkc__renewal_new_session(&r, 1000, T);
  assert_int_equal(r.until, 1000 + T);
  assert_true(zkc__renewal_holds(&r, 1000 + T - SPARE - 1, T));
  assert_false(zkc__renewal_holds(&r, 1000 + T - SPARE, T));
  assert_int_equal(zkc__renewal_lapses_at(&r, T), 1000 + T - SPARE);
  assert_int_equal(zkc__renewal_due(&r, 1, T), 0); /* a probe at once */
}

static void one_answer_proves_nothing(void **state) {
  (void)state;
  zkc__renewal_t r = {0};
  zkc__renewal_new_session(&r, 0, T);
  /* Answered long after the session's start: alive, not renewed. */
  assert_false(zkc__renewal_answered(&r, 50000, 50010, 1, 1, T));
  assert_int_equal(r.until, T);
  assert_false(zkc__renewal_holds(&r, 50010, T));
  assert_int_equal(zkc__renewal_due(&r, 1, T), 50010 + GAP);
}

static void pair_proves_renewal_from_first_send(void **state) {
  (void)state;
  zkc__renewal_t r = {0};
  zkc__renewal_new_session(&r, 0, T);
  assert_false(zkc__renewal_answered(&r, 50000, 50010, 1, 1, T));
  assert_true(zkc__renewal_answered(&r, 50010 + GAP, 50020 + GAP, 1, 1, T));
  assert_int_equal(r.until, 50000 + T);
  assert_true(zkc__renewal_holds(&r, 50020 + GAP, T));
  /* The second answer is the next pair's first. */
  assert_int_equal(zkc__renewal_due(&r, 1, T), 50020 + 2 * GAP);
}

static void too_close_proves_nothing(void **state) {
  (void)state;
  zkc__renewal_t r = {0};
  zkc__renewal_new_session(&r, 0, T);
  zkc__renewal_answered(&r, 50000, 50010, 1, 1, T);
  assert_false(zkc__renewal_answered(&r, 50009 + GAP, 50030 + GAP, 1, 1, T));
  assert_int_equal(r.until, T);
}

static void other_connection_proves_nothing(void **state) {
  (void)state;
  zkc__renewal_t r = {0};
  zkc__renewal_new_session(&r, 0, T);
  zkc__renewal_answered(&r, 50000, 50010, 1, 1, T);
  /* The first touch was on a server the second never passed through. */
  assert_false(zkc__renewal_answered(&r, 60000, 60010, 2, 1, T));
  assert_int_equal(r.until, T);
  assert_int_equal(zkc__renewal_due(&r, 1, T), 0);
  assert_int_equal(zkc__renewal_due(&r, 2, T), 60010 + GAP);
}

static void failed_probe_proves_nothing(void **state) {
  (void)state;
  zkc__renewal_t r = {0};
  zkc__renewal_new_session(&r, 0, T);
  zkc__renewal_answered(&r, 50000, 50010, 1, 1, T);
  assert_false(zkc__renewal_answered(&r, 60000, 60010, 1, 0, T));
  assert_int_equal(r.until, T);
  /* ... and leaves the last good answer to pair with. */
  assert_true(zkc__renewal_answered(&r, 61000, 61010, 1, 1, T));
  assert_int_equal(r.until, 50000 + T);
}

static void never_moves_back(void **state) {
  (void)state;
  zkc__renewal_t r = {0};
  zkc__renewal_new_session(&r, 100000, T);
  /* A pair older than the session's own start proves less than it. */
  zkc__renewal_answered(&r, 1000, 1010, 1, 1, T);
  assert_false(zkc__renewal_answered(&r, 1010 + GAP, 1020 + GAP, 1, 1, T));
  assert_int_equal(r.until, 100000 + T);
}

/* The round-trip floor: the least of the last ZKC__RTT_SAMPLES slots of
 * ZKC__RTT_SLOT_MS on one connection; a slow moment does not raise it, a
 * new connection starts it afresh, none measured is -1. */
static void round_trip_floor_is_the_least_of_the_last(void **state) {
  (void)state;
  const int64_t S = ZKC__RTT_SLOT_MS;
  zkc__rtt_floor_t f = {0};
  assert_int_equal(zkc__rtt_floor_us(&f), -1);
  zkc__rtt_floor_add(&f, 1, 0, 300);
  zkc__rtt_floor_add(&f, 1, S, 9000); /* a busy moment */
  assert_int_equal(zkc__rtt_floor_us(&f), 300);
  for (int i = 0; i < ZKC__RTT_SAMPLES; i++)
    zkc__rtt_floor_add(&f, 1, (2 + i) * S, 2000);
  assert_int_equal(zkc__rtt_floor_us(&f), 2000); /* 300 aged out */
  zkc__rtt_floor_add(&f, 2, 20 * S, 5000); /* another server */
  assert_int_equal(zkc__rtt_floor_us(&f), 5000);
  zkc__rtt_floor_add(&f, 2, 21 * S, -3); /* a clock step: nothing below 0 */
  assert_int_equal(zkc__rtt_floor_us(&f), 0);
}

/* Answers within one slot's span share it, the least kept: a burst of slow
 * answers (a busy client's syncs on a saturated machine) ages out nothing,
 * and one quick answer among them lowers the floor at once. */
static void a_burst_shares_one_slot(void **state) {
  (void)state;
  const int64_t S = ZKC__RTT_SLOT_MS;
  zkc__rtt_floor_t f = {0};
  zkc__rtt_floor_add(&f, 1, 0, 400);
  for (int i = 0; i < 10 * ZKC__RTT_SAMPLES; i++)
    zkc__rtt_floor_add(&f, 1, S + i, 3000 + i);
  assert_int_equal(zkc__rtt_floor_us(&f), 400); /* two slots used */
  zkc__rtt_floor_add(&f, 1, S + S / 2, 700);   /* the burst's slot */
  for (int i = 0; i < ZKC__RTT_SAMPLES - 2; i++)
    zkc__rtt_floor_add(&f, 1, (2 + i) * S, 5000);
  assert_int_equal(zkc__rtt_floor_us(&f), 400); /* still eight slots */
  zkc__rtt_floor_add(&f, 1, ZKC__RTT_SAMPLES * S, 5000);
  assert_int_equal(zkc__rtt_floor_us(&f), 700); /* 400's slot aged out */
}

/* The first samples of a connection come quickly, by probes that only
 * measure: ZKC__RTT_FIRST_MS after the last answer, until the floor has
 * ZKC__RTT_FIRST slots or that many were sent; a new connection starts
 * again. */
static void first_samples_come_quickly(void **state) {
  (void)state;
  zkc__rtt_floor_t f = {0};
  zkc__rtt_floor_add(&f, 1, 0, 900);
  assert_int_equal(zkc__rtt_probe_due(&f, 1, 0, 100), 100 + ZKC__RTT_FIRST_MS);
  /* within one slot: the probes sent are what stop them */
  for (int i = 1; i < ZKC__RTT_FIRST; i++)
    zkc__rtt_floor_add(&f, 1, i * ZKC__RTT_FIRST_MS, 300);
  assert_int_equal(zkc__rtt_floor_us(&f), 300);
  assert_int_equal(zkc__rtt_probe_due(&f, 1, 3, 200), 200 + ZKC__RTT_FIRST_MS);
  assert_int_equal(zkc__rtt_probe_due(&f, 1, ZKC__RTT_FIRST, 200), INT64_MAX);
  /* a floor whose slots are full needs none */
  for (int i = 1; i < ZKC__RTT_FIRST; i++)
    zkc__rtt_floor_add(&f, 1, i * ZKC__RTT_SLOT_MS, 300);
  assert_int_equal(zkc__rtt_probe_due(&f, 1, 3, 200), INT64_MAX);
  assert_int_equal(zkc__rtt_probe_due(&f, 2, 0, 300), 300 + ZKC__RTT_FIRST_MS);
  /* answers that failed (no sample): no more than ZKC__RTT_FIRST sent */
  assert_int_equal(zkc__rtt_probe_due(&f, 2, ZKC__RTT_FIRST, 300), INT64_MAX);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(spacing_covers_a_ping_interval),
      cmocka_unit_test(new_session_counts_from_its_open),
      cmocka_unit_test(one_answer_proves_nothing),
      cmocka_unit_test(pair_proves_renewal_from_first_send),
      cmocka_unit_test(too_close_proves_nothing),
      cmocka_unit_test(other_connection_proves_nothing),
      cmocka_unit_test(failed_probe_proves_nothing),
      cmocka_unit_test(never_moves_back),
      cmocka_unit_test(round_trip_floor_is_the_least_of_the_last),
      cmocka_unit_test(a_burst_shares_one_slot),
      cmocka_unit_test(first_samples_come_quickly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
