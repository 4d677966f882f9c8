/* SPDX-License-Identifier: Apache-2.0 */
/* The call's rules (lib/call.c), without a server: which answer a batch
 * gives, whether it is sent again, and what a stopped retry returns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "session.h"
#include "session_shared.h"
#include "zkcoord/common.h"

static zkc__call_t answered(zkc__req_kind_t kind, int rc) {
  return (zkc__call_t){.rq = {.kind = kind}, .rc = rc};
}

static void first_failed_request_answers(void **state) {
  (void)state;
  zkc__call_t k[3] = {answered(ZKC__REQ_GET, ZKC_OK),
                      answered(ZKC__REQ_GET, ZKC_ENONODE),
                      answered(ZKC__REQ_GET, ZKC_ECONNLOSS)};
  assert_int_equal(zkc__call_answer(k, 3), ZKC_ENONODE);
  assert_int_equal(zkc__call_answer(k, 1), ZKC_OK);
  assert_int_equal(zkc__call_answer(k, 0), ZKC_OK);
}

/* A sync ahead of a read: the read's failure first, the sync's only when
 * the read succeeded, and the sync's "no node" never (the read tells it). */
static void sync_counts_after_the_reads(void **state) {
  (void)state;
  zkc__call_t k[2] = {answered(ZKC__REQ_SYNC, ZKC_ECONNLOSS),
                      answered(ZKC__REQ_GET_IN_SESSION, ZKC_ENONODE)};
  assert_int_equal(zkc__call_answer(k, 2), ZKC_ENONODE);
  k[1].rc = ZKC_OK;
  assert_int_equal(zkc__call_answer(k, 2), ZKC_ECONNLOSS);
  k[0].rc = ZKC_ENONODE;
  assert_int_equal(zkc__call_answer(k, 2), ZKC_OK);
  k[0].rc = ZKC_ESESSIONEXPIRED;
  assert_int_equal(zkc__call_answer(k, 2), ZKC_ESESSIONEXPIRED);
}

/* Only connection loss and an operation timeout are sent again, and only
 * when the caller asked. */
static void retried_only_when_asked_and_retryable(void **state) {
  (void)state;
  const int retryable[] = {ZKC_ECONNLOSS, ZKC_EOPTIMEOUT};
  const int final[] = {ZKC_OK,         ZKC_ENONODE,         ZKC_ENOAUTH,
                       ZKC_ETIMEDOUT,  ZKC_ESESSIONEXPIRED, ZKC_ECLOSED,
                       ZKC_ENODEEXISTS, ZKC_ENOMEM};
  for (size_t i = 0; i < 2; i++) {
    assert_false(zkc__call_retries(ZKC__CALL_ONCE, retryable[i]));
    assert_true(zkc__call_retries(ZKC__CALL_RETRY, retryable[i]));
    assert_true(zkc__call_retries(ZKC__CALL_RETRY_ANSWER, retryable[i]));
  }
  for (size_t i = 0; i < sizeof final / sizeof *final; i++) {
    assert_false(zkc__call_retries(ZKC__CALL_RETRY, final[i]));
    assert_false(zkc__call_retries(ZKC__CALL_RETRY_ANSWER, final[i]));
  }
}

static void stop_returns_the_reason_or_the_answer(void **state) {
  (void)state;
  assert_int_equal(zkc__call_stop(ZKC__CALL_RETRY, ZKC_ECONNLOSS, ZKC_ECLOSED),
                   ZKC_ECLOSED);
  assert_int_equal(
      zkc__call_stop(ZKC__CALL_RETRY_ANSWER, ZKC_ECONNLOSS, ZKC_ECLOSED),
      ZKC_ECONNLOSS);
}

/* A transaction's "no node" is its check's (the hold gone) only when the
 * check is the operation that failed: the write's own (a missing parent,
 * a node to set missing) or a request cut off is not. */
static void check_gone_only_when_the_check_failed(void **state) {
  (void)state;
  zkc__call_t k = answered(ZKC__REQ_CHECK_SET, ZKC_ENONODE);
  k.failed = 0;
  assert_true(zkc__call_check_gone(&k));
  k.failed = 1;
  assert_false(zkc__call_check_gone(&k));
  k.failed = -1;
  assert_false(zkc__call_check_gone(&k));
  k = answered(ZKC__REQ_CHECK_CREATE, ZKC_ECONNLOSS);
  k.failed = 0;
  assert_false(zkc__call_check_gone(&k));
}

/* A create's "no node" is its parent's, to be made, when the create
 * itself failed: a count's, a fenced create's write; not the fenced
 * create's check (the hold gone), not another request's, not a success. */
static void parent_missing_only_for_a_create_that_failed(void **state) {
  (void)state;
  zkc__call_t k = answered(ZKC__REQ_COUNT, ZKC_ENONODE);
  assert_true(zkc__call_parent_missing(&k));
  k.rc = ZKC_ENODEEXISTS;
  assert_false(zkc__call_parent_missing(&k));
  k = answered(ZKC__REQ_CHECK_CREATE, ZKC_ENONODE);
  k.failed = 1;
  assert_true(zkc__call_parent_missing(&k));
  k.failed = 0;
  assert_false(zkc__call_parent_missing(&k));
  k.failed = -1;
  assert_false(zkc__call_parent_missing(&k));
  const zkc__req_kind_t others[] = {ZKC__REQ_GET, ZKC__REQ_SET,
                                    ZKC__REQ_DELETE, ZKC__REQ_CHECK_SET,
                                    ZKC__REQ_PARENT, ZKC__REQ_CHILDREN};
  for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
    k = answered(others[i], ZKC_ENONODE);
    k.failed = 1;
    assert_false(zkc__call_parent_missing(&k));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_failed_request_answers),
      cmocka_unit_test(sync_counts_after_the_reads),
      cmocka_unit_test(retried_only_when_asked_and_retryable),
      cmocka_unit_test(stop_returns_the_reason_or_the_answer),
      cmocka_unit_test(check_gone_only_when_the_check_failed),
      cmocka_unit_test(parent_missing_only_for_a_create_that_failed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
