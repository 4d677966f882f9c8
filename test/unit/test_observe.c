/* SPDX-License-Identifier: Apache-2.0 */
/* The observer's pure rules (lib/observe_pick.c), without a server: which
 * child leads an election or lock path, which paths an observer refuses,
 * and which reads are changes to tell (once each, nobody after a leader,
 * never a stale leader). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "observe_pick.h"
#include "zkcoord/status.h"

#define U "_c_0a1b2c3d-0000-4000-8000-000000000000-"
#define N(a) (sizeof(a) / sizeof *(a))

static void lowest_sequence_leads_whatever_the_order(void **state) {
  (void)state;
  char *names[] = {U "latch-0000000007", U "latch-0000000003",
                   U "latch-0000000005"};
  assert_int_equal(zkc__observe_leader(names, N(names)), 1);
  /* a selector's nodes ("lock-"), kazoo's and Curator's mixed */
  char *mixed[] = {"8f1e__lock__0000000012", U "lock-0000000011",
                   "member-0000000013"};
  assert_int_equal(zkc__observe_leader(mixed, N(mixed)), 1);
}

static void no_contender_means_nobody(void **state) {
  (void)state;
  assert_int_equal(zkc__observe_leader(NULL, 0), -1);
  char *plain[] = {"config", "leader-info"}; /* no sequence: no part */
  assert_int_equal(zkc__observe_leader(plain, N(plain)), -1);
  char *one[] = {"config", U "latch-0000000001"};
  assert_int_equal(zkc__observe_leader(one, N(one)), 1);
}

static void queue_across_the_wrap_keeps_its_head(void **state) {
  (void)state;
  /* 2147483647 was created before the counter wrapped to -2147483648 */
  char *names[] = {U "lock--2147483648", U "lock-2147483647"};
  assert_int_equal(zkc__observe_leader(names, N(names)), 1);
}

static void refuses_paths_whose_first_node_is_not_the_holder(void **state) {
  (void)state;
  char *rw[] = {U "__READ__0000000001", U "__WRIT__0000000002"};
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_LOCK, rw, N(rw)),
                   ZKC_LAYOUT_RWLOCK);
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_ELECTION, rw, N(rw)),
                   ZKC_LAYOUT_RWLOCK);
  char *sem[] = {"leases", "locks"};
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_ELECTION, sem, N(sem)),
                   ZKC_LAYOUT_SEMAPHORE);
  char *latch[] = {U "latch-0000000001"};
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_ELECTION, latch, 1), 0);
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_LOCK, latch, 1),
                   ZKC_LAYOUT_ELECTION);
  char *mutex[] = {U "lock-0000000001", "8f1e__lock__0000000002"};
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_LOCK, mutex, 2), 0);
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_ELECTION, mutex, 2), 0);
  assert_int_equal(zkc__observe_refused(ZKC_OBSERVE_LOCK, NULL, 0), 0);
}

static void first_read_is_told_even_nobody(void **state) {
  (void)state;
  zkc__observe_seen_t s = {0};
  assert_true(zkc__observe_change(&s, 0, 0));
  assert_false(zkc__observe_change(&s, 0, 0)); /* nobody again */
  zkc__observe_seen_t t = {0};
  assert_true(zkc__observe_change(&t, 1, 100));
}

static void leader_then_successor_then_nobody(void **state) {
  (void)state;
  zkc__observe_seen_t s = {0};
  assert_true(zkc__observe_change(&s, 1, 100));  /* A */
  assert_false(zkc__observe_change(&s, 1, 100)); /* A read again */
  assert_true(zkc__observe_change(&s, 1, 250));  /* B */
  assert_false(zkc__observe_change(&s, 1, 250));
  assert_true(zkc__observe_change(&s, 0, 0));    /* nobody */
  assert_false(zkc__observe_change(&s, 0, 0));   /* told once */
  assert_true(zkc__observe_change(&s, 1, 300));  /* C */
  assert_int_equal(s.high, 300);
}

static void older_leader_never_told_again(void **state) {
  (void)state;
  zkc__observe_seen_t s = {0};
  assert_true(zkc__observe_change(&s, 1, 100));
  assert_true(zkc__observe_change(&s, 1, 250));
  /* a read from a server behind shows A again: stale, not told */
  assert_false(zkc__observe_change(&s, 1, 100));
  assert_int_equal(s.token, 250);
  assert_true(zkc__observe_change(&s, 0, 0));
  /* nor after nobody */
  assert_false(zkc__observe_change(&s, 1, 250));
  assert_false(zkc__observe_change(&s, 1, 100));
  assert_false(s.has_leader);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lowest_sequence_leads_whatever_the_order),
      cmocka_unit_test(no_contender_means_nobody),
      cmocka_unit_test(queue_across_the_wrap_keeps_its_head),
      cmocka_unit_test(refuses_paths_whose_first_node_is_not_the_holder),
      cmocka_unit_test(first_read_is_told_even_nobody),
      cmocka_unit_test(leader_then_successor_then_nobody),
      cmocka_unit_test(older_leader_never_told_again),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
