/* SPDX-License-Identifier: Apache-2.0 */
/* The decisions (lib/decide.c), without a server: where a contender
 * stands (gone, first, waiting on whom) and whether the blocker's delete
 * alone may grant, for mutex contenders, readers and writers, in any order
 * of the read and beside children that take no part; and whether a
 * semaphore's leases fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "decide.h"
#include "zkcoord/common.h"

#define M(seq) "_c_0a1b2c3d-0000-4000-8000-00000000000" #seq "-lock-000000000" #seq
#define R(seq) "_c_0a1b2c3d-0000-4000-8000-00000000000" #seq "-__READ__000000000" #seq
#define W(seq) "_c_0a1b2c3d-0000-4000-8000-00000000000" #seq "-__WRIT__000000000" #seq
#define N(a) (sizeof(a) / sizeof *(a))

static zkc__q_decision_t decide(char *const *names, size_t n, const char *own,
                                int reader) {
  zkc__q_decision_t d;
  assert_int_equal(zkc__queue_decide(names, n, own, reader, &d), ZKC_OK);
  return d;
}

static void own_node_missing_is_gone(void **state) {
  (void)state;
  char *q[] = {M(1), M(2)};
  assert_int_equal(decide(q, N(q), M(3), 0).verdict, ZKC__Q_GONE);
  assert_int_equal(decide(q, 0, M(1), 0).verdict, ZKC__Q_GONE); /* empty */
}

static void lowest_sequence_is_first_whatever_the_order(void **state) {
  (void)state;
  char *q[] = {M(3), M(1), M(2)}; /* a read comes unsorted */
  zkc__q_decision_t d = decide(q, N(q), M(1), 0);
  assert_int_equal(d.verdict, ZKC__Q_FIRST);
  assert_null(d.blocker);
}

static void mutex_waits_on_the_node_before_it(void **state) {
  (void)state;
  char *q[] = {M(5), M(1), M(3), M(4)};
  zkc__q_decision_t d = decide(q, N(q), M(4), 0);
  assert_int_equal(d.verdict, ZKC__Q_WAIT);
  assert_string_equal(d.blocker, M(3));
  assert_false(d.sole); /* M(1) is in the way too */
  assert_string_equal(d.ahead, M(1)); /* its delete leaves M(3) sole */
  d = decide(q, N(q), M(3), 0);
  assert_string_equal(d.blocker, M(1));
  assert_true(d.sole); /* behind the holder alone */
  assert_null(d.ahead);
  d = decide(q, N(q), M(5), 0);
  assert_string_equal(d.blocker, M(4));
  assert_string_equal(d.ahead, M(3)); /* one further, whatever the length */
}

static void children_without_a_sequence_take_no_part(void **state) {
  (void)state;
  char *q[] = {"leases", M(2), "config", M(1)};
  zkc__q_decision_t d = decide(q, N(q), M(2), 0);
  assert_int_equal(d.verdict, ZKC__Q_WAIT);
  assert_string_equal(d.blocker, M(1));
  assert_true(d.sole);
  assert_int_equal(decide(q, N(q), "leases", 0).verdict, ZKC__Q_GONE);
}

static void readers_share_and_wait_on_the_nearest_writer(void **state) {
  (void)state;
  char *q[] = {R(1), R(2), W(3), R(4), W(5), R(6)};
  assert_int_equal(decide(q, N(q), R(2), 1).verdict, ZKC__Q_FIRST);
  zkc__q_decision_t d = decide(q, N(q), R(4), 1);
  assert_int_equal(d.verdict, ZKC__Q_WAIT);
  assert_string_equal(d.blocker, W(3));
  assert_true(d.sole); /* no writer before W(3): its delete lets R(4) in */
  d = decide(q, N(q), R(6), 1);
  assert_string_equal(d.blocker, W(5));
  assert_false(d.sole); /* W(3) is in the way too */
  assert_string_equal(d.ahead, W(3)); /* the writer before W(5) */
}

static void writer_waits_on_the_node_before_it(void **state) {
  (void)state;
  char *q[] = {R(1), R(2), W(3)};
  zkc__q_decision_t d = decide(q, N(q), W(3), 0);
  assert_int_equal(d.verdict, ZKC__Q_WAIT);
  assert_string_equal(d.blocker, R(2));
  assert_false(d.sole); /* R(1) still reads */
  assert_string_equal(d.ahead, R(1));
  char *one[] = {R(1), W(2)};
  d = decide(one, N(one), W(2), 0);
  assert_string_equal(d.blocker, R(1));
  assert_true(d.sole);
}

/* A downgraded writer's read node carries its write node's sequence: a
 * writer (or a mutex contender) behind a write node never takes that
 * write node's delete alone for a grant (a read node of the same sequence
 * may be there by then), only guarded: with proof that no child joined. */
static void no_sole_grant_behind_a_write_node(void **state) {
  (void)state;
  char *q[] = {W(1), W(2)};
  zkc__q_decision_t d = decide(q, N(q), W(2), 0);
  assert_int_equal(d.verdict, ZKC__Q_WAIT);
  assert_string_equal(d.blocker, W(1));
  assert_false(d.sole);
  assert_true(d.guarded);
  assert_null(d.ahead); /* nothing before W(1) */
  char *ws[] = {W(1), W(2), W(3)};
  d = decide(ws, N(ws), W(3), 0);
  assert_string_equal(d.blocker, W(2));
  assert_false(d.sole);
  assert_false(d.guarded); /* W(1) is in the way too */
  assert_string_equal(d.ahead, W(1)); /* its delete leaves W(2) guarded */
  char *rw[] = {R(1), W(2), W(3)};
  d = decide(rw, N(rw), W(3), 0);
  assert_false(d.guarded);
  assert_string_equal(d.ahead, R(1));
  char *r[] = {W(1), R(2)};
  d = decide(r, N(r), R(2), 1);
  assert_string_equal(d.blocker, W(1));
  assert_true(d.sole); /* a reader never minds a read node */
  assert_false(d.guarded);
  char *m[] = {M(1), M(2)};
  d = decide(m, N(m), M(2), 0);
  assert_true(d.sole);
  assert_false(d.guarded); /* no write node: no downgrade */
}

/* Leases: ours missing is a loss whatever the count; this client's own
 * held leases that leave no room are a deadlock; else the count. */
static void leases_fit_wait_or_are_lost(void **state) {
  (void)state;
  /* leases, mine, wanted, held, max */
  assert_int_equal(zkc__leases_decide(3, 1, 1, 0, 3), ZKC__L_FIT);
  assert_int_equal(zkc__leases_decide(4, 1, 1, 0, 3), ZKC__L_WAIT);
  assert_int_equal(zkc__leases_decide(4, 2, 2, 0, 3), ZKC__L_WAIT);
  assert_int_equal(zkc__leases_decide(2, 0, 1, 0, 3), ZKC__L_GONE);
  assert_int_equal(zkc__leases_decide(9, 1, 2, 0, 3), ZKC__L_GONE);
  assert_int_equal(zkc__leases_decide(3, 1, 1, 2, 3), ZKC__L_FIT);
  assert_int_equal(zkc__leases_decide(4, 2, 2, 2, 3), ZKC__L_DEADLOCK);
  assert_int_equal(zkc__leases_decide(1, 1, 1, 0, 0), ZKC__L_WAIT);
  /* a limit read from a shared count may be anything */
  assert_int_equal(zkc__leases_decide(1, 1, 1, 0, -1), ZKC__L_WAIT);
  assert_int_equal(zkc__leases_decide(1, 1, 1, 1, -1), ZKC__L_DEADLOCK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(own_node_missing_is_gone),
      cmocka_unit_test(lowest_sequence_is_first_whatever_the_order),
      cmocka_unit_test(mutex_waits_on_the_node_before_it),
      cmocka_unit_test(children_without_a_sequence_take_no_part),
      cmocka_unit_test(readers_share_and_wait_on_the_nearest_writer),
      cmocka_unit_test(writer_waits_on_the_node_before_it),
      cmocka_unit_test(no_sole_grant_behind_a_write_node),
      cmocka_unit_test(leases_fit_wait_or_are_lost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
