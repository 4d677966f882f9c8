/* SPDX-License-Identifier: Apache-2.0 */
/* Runs after every integration test: nothing the suite made may be left on
 * the ensemble (no lock node, no test root). */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static void nothing_left_under_test_roots(void **state) {
  (void)state;
  struct String_vector v = {0};
  int rc = zoo_get_children(zkt_raw(), "/zkc-test", 0, &v);
  if (rc == ZNONODE) return;
  assert_int_equal(rc, ZOK);
  for (int i = 0; i < v.count; i++) print_error("left behind: /zkc-test/%s\n", v.data[i]);
  int n = v.count;
  deallocate_String_vector(&v);
  assert_int_equal(n, 0);
  zoo_delete(zkt_raw(), "/zkc-test", -1);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      {"nothing_left_under_test_roots", nothing_left_under_test_roots, NULL, NULL, NULL},
  };
  /* No per-test root here: plain setup/teardown that do nothing. */
  (void)argc, (void)argv;
  return cmocka_run_group_tests_name("leftovers", tests, NULL, NULL);
}
