/* SPDX-License-Identifier: Apache-2.0 */
/* The waiters' order of events (waiters.c), no server: what makes a
 * blocker's delete a clean one, told as the completion thread tells
 * them. The sole round's own node, and the guarded round's children (a
 * child made before the blocker's delete spoils it; the children's event
 * that the delete itself causes, after it, does not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "client_struct.h"
#include "kernel_door.h" /* zkc__waiter_check */
#include "session.h"
#include "session_shared.h"

#define BASE "/q"
#define OWN BASE "/b-__WRIT__0000000002"
#define BLOCKER BASE "/a-__WRIT__0000000001"

static zkc_client_t C;
static zkc__waiter_t W;

/* A waiter on BLOCKER watching OWN and, with guarded, BASE's children
 * (waking with wakes). */
static int setup_round(int guarded, int wakes) {
  memset(&C, 0, sizeof C);
  memset(&W, 0, sizeof W);
  if (pthread_mutex_init(&C.mu, NULL) != 0) return -1;
  assert_int_equal(zkc__waiter_register(&C, &W, BLOCKER), ZKC_OK);
  zkc__waiter_watch_own(&C, &W, OWN);
  if (guarded) zkc__waiter_watch_parent(&C, &W, BASE, wakes);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  zkc__waiter_unregister(&C, &W);
  return pthread_mutex_destroy(&C.mu);
}

static void told(const char *path, int deleted) {
  zkc__waiter_event(&C, W.id, path, deleted);
}

static int fired(void) {
  zkc__wake_t why;
  return zkc__waiter_check(&C, &W, &why) && why == ZKC__WAKE_FIRED;
}

/* The blocker's delete, then the children's event it causes: clean. */
static void delete_then_its_childrens_event_is_clean(void **state) {
  (void)state;
  setup_round(1, 1);
  told(BLOCKER, 1);
  told(BASE, 0);
  assert_true(fired());
  assert_true(zkc__waiter_clean(&C, &W, 0));
}

/* A child made before the blocker's delete (a downgrade's read node):
 * unclean, whether its event woke the waiter or only marked it. */
static void child_made_before_the_delete_is_unclean(void **state) {
  (void)state;
  for (int wakes = 0; wakes <= 1; wakes++) {
    setup_round(1, wakes);
    told(BASE, 0);
    assert_int_equal(fired(), wakes); /* a quiet round waits on */
    told(BLOCKER, 1);
    assert_true(fired());
    assert_false(zkc__waiter_clean(&C, &W, 0));
    if (wakes == 0) teardown(NULL);
  }
}

/* The blocker gone when its watch was set (path_absent): clean only with
 * no children's event since. */
static void blocker_absent_clean_only_without_a_child(void **state) {
  (void)state;
  setup_round(1, 1);
  assert_true(zkc__waiter_clean(&C, &W, 1));
  told(BASE, 0);
  assert_false(zkc__waiter_clean(&C, &W, 1));
}

/* A round not guarded: children are not its business (another waiter of
 * the session may watch them); its own node's event or a session event
 * (the watch epoch) spoil it as before. */
static void sole_round_order_as_before(void **state) {
  (void)state;
  setup_round(0, 0);
  told(BASE, 0);
  told(BLOCKER, 1);
  assert_true(zkc__waiter_clean(&C, &W, 0));
  teardown(NULL);
  setup_round(0, 0);
  told(OWN, 0);
  told(BLOCKER, 1);
  assert_false(zkc__waiter_clean(&C, &W, 0));
  teardown(NULL);
  setup_round(1, 1);
  C.watch_epoch++; /* a session event: no order carries over */
  told(BLOCKER, 1);
  assert_false(zkc__waiter_clean(&C, &W, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(delete_then_its_childrens_event_is_clean,
                                teardown),
      cmocka_unit_test_teardown(child_made_before_the_delete_is_unclean,
                                teardown),
      cmocka_unit_test_teardown(blocker_absent_clean_only_without_a_child,
                                teardown),
      cmocka_unit_test_teardown(sole_round_order_as_before, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
