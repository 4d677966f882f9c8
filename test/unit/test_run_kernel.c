/* SPDX-License-Identifier: Apache-2.0 */
/* The run kernel fed scripted answers, no server: a world (qworld.h) that
 * records the requests sent and answers them as the test says. Each case
 * checks one shape both runs (the queue engine, the lease run) rest on:
 * a retry waits out its backoff and a connected session before the run
 * goes on; a failure the policy refuses ends the run; the parents' walk
 * makes one missing level at a time, retries a create cut off, and gives
 * up after its budget; a grant only on a fresh answer of the live session
 * of our nodes; a create cut off goes to the janitor by its uuid; a path
 * of another recipe's layout refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "queue_nodes.h" /* ZKC__PARENT_RECREATE_MAX */
#include "run_kernel.h"
#include "kernel_door.h" /* an op whole */
#include "session_shared.h" /* zkc__op_finish: how an answer arrives */

/* ---- the scripted world ---- */

#define MAX_REQ 32
#define FRESH_MS 5000 /* half a 10 s session: how long an answer proves */
#define SESSION 0x1000

static struct {
  zkc__req_kind_t kind[MAX_REQ];
  char path[MAX_REQ][200];
  zkc__op_t *op[MAX_REQ];
  int n;
  int64_t clock;
  zkc__session_fate_t fate;
  int live, closed, granted, dropped;
  char janitor[200], janitor_uuid[40];
  int n_janitor;
} S;

static void w_send(zkc_client_t *c, zkc__op_t *op, const zkc__req_t *rq) {
  (void)c;
  assert_true(S.n < MAX_REQ);
  S.kind[S.n] = rq->kind;
  snprintf(S.path[S.n], sizeof S.path[0], "%s", rq->path);
  S.op[S.n++] = op;
}
static zkc__session_fate_t w_fate(zkc_client_t *c, int64_t id) {
  (void)c;
  return id == SESSION ? S.fate : ZKC__SESSION_GONE;
}
static int w_live(zkc_client_t *c) {
  (void)c;
  return S.live;
}
static int w_closed(zkc_client_t *c) {
  (void)c;
  return S.closed;
}
static int w_fresh(zkc_client_t *c, int64_t sent) {
  (void)c;
  return S.clock - sent < FRESH_MS;
}
static void w_granted(zkc_client_t *c) {
  (void)c;
  S.granted++;
}
static int64_t w_clock(void) { return S.clock; }
static void w_janitor(zkc_client_t *c, const char *path, const char *uuid) {
  (void)c;
  snprintf(S.janitor, sizeof S.janitor, "%s", path);
  snprintf(S.janitor_uuid, sizeof S.janitor_uuid, "%s", uuid ? uuid : "");
  S.n_janitor++;
}
/* The policy: retryable failures wait 10 ms, until the deadline. */
static int w_retry(zkc_client_t *c, int *attempt, int rc, int64_t deadline,
                   int64_t *wake_at) {
  (void)c;
  if (!zkc__retryable(rc)) return rc;
  if (S.clock >= deadline) return ZKC_ETIMEDOUT;
  (*attempt)++;
  *wake_at = S.clock + 10;
  return ZKC_OK;
}

static const zkc__qworld_t world = {
    .send = w_send,
    .session_fate = w_fate,
    .session_live = w_live,
    .closed = w_closed,
    .grant_fresh = w_fresh,
    .granted = w_granted,
    .boot_ms = w_clock,
    .now_ms = w_clock,
    .janitor_add = w_janitor,
    .retry_delay = w_retry,
};

static zkc__op_t *d_op_new(void *ctx) {
  (void)ctx;
  return zkc__op_new();
}
static void d_dropped(void *ctx) {
  (void)ctx;
  S.dropped++;
}
static void d_wake(void *ctx) { (void)ctx; }
static const zkc__qdriver_t driver = {
    .op_new = d_op_new, .op_dropped = d_dropped, .wake = d_wake};

static zkc__rk_t K;

static void start(void) {
  memset(&S, 0, sizeof S);
  S.clock = 1000000;
  S.fate = ZKC__SESSION_LIVE;
  S.live = 1;
  zkc__rk_init(&K, NULL, &world, &driver, NULL, S.clock + 60000);
}

/* The request i answered rc, and freed as the kernel's answered ops are. */
static void answer(int i, int rc) {
  assert_true(i < S.n);
  zkc__op_finish(S.op[i], rc, NULL);
}

static int advance(int *rc) {
  int need;
  while ((need = zkc__rk_advance(&K, rc)) == ZKC__RK_AGAIN) {
  }
  return need;
}

/* ---- retry, backoff, connect ---- */

static void retry_waits_backoff_then_session(void **state) {
  (void)state;
  start();
  int rc = ZKC_OK;
  assert_int_equal(zkc__rk_retry(&K, ZKC_ECONNLOSS), ZKC_OK);
  assert_int_equal(K.retries, 1);
  assert_int_equal(advance(&rc), ZKC__QN_TIME);
  assert_int_equal(K.wake_at, S.clock + 10);
  S.clock += 10;
  S.live = 0; /* the backoff over, the session not back yet */
  assert_int_equal(advance(&rc), ZKC__QN_SESSION);
  assert_int_equal(zkc__rk_answered(&K), 0); /* a stop may end it now */
  S.live = 1;
  assert_int_equal(advance(&rc), ZKC__RK_BACK);
  assert_false(zkc__rk_busy(&K));
  assert_int_equal(K.st, ZKC__RK_IDLE);
  assert_int_equal(S.n, 0); /* the kernel sent nothing */
}

static void retry_refused_ends_the_run(void **state) {
  (void)state;
  start();
  /* Not retryable: the failure itself. */
  assert_int_equal(zkc__rk_retry(&K, ZKC_ENOAUTH), ZKC_ENOAUTH);
  assert_int_equal(K.st, ZKC__RK_IDLE);
  /* Past the deadline: the policy's ZKC_ETIMEDOUT. */
  S.clock = K.deadline;
  assert_int_equal(zkc__rk_retry(&K, ZKC_ECONNLOSS), ZKC_ETIMEDOUT);
  assert_int_equal(K.st, ZKC__RK_IDLE);
}

static void connect_ends_on_close_or_deadline(void **state) {
  (void)state;
  int rc = ZKC_OK;
  start();
  S.live = 0;
  zkc__rk_connect(&K);
  assert_int_equal(advance(&rc), ZKC__QN_SESSION);
  S.closed = 1;
  assert_int_equal(advance(&rc), ZKC__RK_FAIL);
  assert_int_equal(rc, ZKC_ECLOSED);
  start();
  S.live = 0;
  zkc__rk_connect(&K);
  S.clock = K.deadline;
  assert_int_equal(advance(&rc), ZKC__RK_FAIL);
  assert_int_equal(rc, ZKC_ETIMEDOUT);
}

/* ---- the parents' walk ---- */

static void parents_made_a_level_at_a_time(void **state) {
  (void)state;
  int rc = ZKC_OK;
  zkc__op_t *ops[2];
  start();
  assert_int_equal(zkc__rk_parents(&K, "/a/b"), ZKC_OK);
  assert_true(zkc__rk_busy(&K));
  /* "/a/b" first; missing: its parent "/a", then "/a/b" again. */
  assert_int_equal(advance(&rc), ZKC__QN_REPLY);
  assert_int_equal(S.kind[0], ZKC__REQ_PARENT);
  assert_string_equal(S.path[0], "/a/b");
  assert_int_equal(zkc__rk_ops(&K, ops), 1);
  assert_ptr_equal(ops[0], S.op[0]);
  assert_int_equal(zkc__rk_answered(&K), 1); /* a stop waits for it */
  answer(0, ZKC_ENONODE);
  assert_int_equal(advance(&rc), ZKC__QN_REPLY);
  assert_string_equal(S.path[1], "/a");
  answer(1, ZKC_OK);
  assert_int_equal(advance(&rc), ZKC__QN_REPLY);
  assert_string_equal(S.path[2], "/a/b");
  answer(2, ZKC_ENODEEXISTS); /* made by someone else meanwhile: fine */
  assert_int_equal(advance(&rc), ZKC__RK_BACK);
  assert_false(zkc__rk_busy(&K));
  assert_int_equal(zkc__rk_ops(&K, ops), 0);
  assert_null(K.op);
}

static void parent_create_cut_off_is_retried(void **state) {
  (void)state;
  int rc = ZKC_OK;
  start();
  assert_int_equal(zkc__rk_parents(&K, "/a"), ZKC_OK);
  assert_int_equal(advance(&rc), ZKC__QN_REPLY);
  answer(0, ZKC_ECONNLOSS);
  assert_int_equal(advance(&rc), ZKC__QN_TIME); /* the policy's backoff */
  S.clock += 10;
  assert_int_equal(advance(&rc), ZKC__QN_REPLY); /* the same create again */
  assert_int_equal(S.n, 2);
  assert_string_equal(S.path[1], "/a");
  answer(1, ZKC_OK);
  assert_int_equal(advance(&rc), ZKC__RK_BACK);
  assert_int_equal(K.retries, 1);
}

static void parent_refused_ends_the_run(void **state) {
  (void)state;
  int rc = ZKC_OK;
  start();
  assert_int_equal(zkc__rk_parents(&K, "/a"), ZKC_OK);
  assert_int_equal(advance(&rc), ZKC__QN_REPLY);
  answer(0, ZKC_ENOAUTH);
  assert_int_equal(advance(&rc), ZKC__RK_FAIL);
  assert_int_equal(rc, ZKC_ENOAUTH);
  assert_int_equal(K.st, ZKC__RK_IDLE);
}

static void parents_budget_spent_is_enonode(void **state) {
  (void)state;
  int rc = ZKC_OK;
  start();
  for (int i = 0; i < ZKC__PARENT_RECREATE_MAX; i++) {
    assert_int_equal(zkc__rk_parents(&K, "/a"), ZKC_OK);
    assert_int_equal(advance(&rc), ZKC__QN_REPLY);
    answer(S.n - 1, ZKC_OK);
    assert_int_equal(advance(&rc), ZKC__RK_BACK);
  }
  /* Made and reaped again as often: the run ends rather than loop. */
  assert_int_equal(zkc__rk_parents(&K, "/a"), ZKC_ENONODE);
  assert_int_equal(K.st, ZKC__RK_IDLE);
}

static void leave_gives_the_walk_up(void **state) {
  (void)state;
  int rc = ZKC_OK;
  start();
  assert_int_equal(zkc__rk_parents(&K, "/a"), ZKC_OK);
  assert_int_equal(advance(&rc), ZKC__QN_REPLY);
  zkc__rk_leave(&K); /* in flight: given up, the driver told */
  assert_int_equal(S.dropped, 1);
  assert_null(K.op);
  assert_int_equal(K.st, ZKC__RK_IDLE);
  answer(0, ZKC_OK); /* the late answer frees it, telling nobody */
}

/* ---- the grant rule and the end ---- */

static void grant_only_fresh_on_the_live_session(void **state) {
  (void)state;
  start();
  int64_t proof = S.clock;
  assert_int_equal(zkc__rk_grant(&K, SESSION, proof), ZKC__RK_GRANTED);
  assert_int_equal(S.granted, 1);
  S.clock = proof + FRESH_MS; /* the answer outlived its proof */
  assert_int_equal(zkc__rk_grant(&K, SESSION, proof), ZKC__RK_STALE);
  S.clock = proof;
  S.fate = ZKC__SESSION_DOUBT; /* connection down, or not proven renewed */
  assert_int_equal(zkc__rk_grant(&K, SESSION, proof), ZKC__RK_NOT_LIVE);
  S.fate = ZKC__SESSION_LIVE;
  assert_int_equal(zkc__rk_grant(&K, SESSION + 1, proof), ZKC__RK_GONE);
  assert_int_equal(S.granted, 1); /* told once, at the one grant */
}

static void woken_and_end_codes(void **state) {
  (void)state;
  assert_int_equal(zkc__rk_woken_rc(ZKC__WAKE_FIRED), ZKC_OK);
  assert_int_equal(zkc__rk_woken_rc(ZKC__WAKE_TIMEOUT), ZKC_ETIMEDOUT);
  assert_int_equal(zkc__rk_woken_rc(ZKC__WAKE_CLOSED), ZKC_ECLOSED);
  assert_int_equal(zkc__rk_woken_rc(ZKC__WAKE_LOST), ZKC_ELOST);
  assert_int_equal(zkc__rk_end_rc(ZKC_ESESSIONEXPIRED), ZKC_ELOST);
  assert_int_equal(zkc__rk_end_rc(ZKC_ETIMEDOUT), ZKC_ETIMEDOUT);
}

static void cut_off_create_goes_to_the_janitor_by_uuid(void **state) {
  (void)state;
  start();
  const char *uuid = "0123abcd-0000-4000-8000-00000000cafe";
  char prefix[200];
  snprintf(prefix, sizeof prefix, "/s/leases/_c_%s-lease-", uuid);
  zkc__rk_janitor_uuid(&K, "/s/leases", prefix);
  assert_int_equal(S.n_janitor, 1);
  assert_string_equal(S.janitor, "/s/leases");
  assert_string_equal(S.janitor_uuid, uuid);
}

/* A read of a path showing another recipe's nodes: refused, in the name
 * of the recipe asking, with what it found. */
static void layout_of_another_recipe_refused(void **state) {
  (void)state;
  char *sem[] = {"locks", "leases", "_c_b-lock-0000000004"};
  zkc__names_t kids = {.count = 3, .data = sem};
  unsigned mask = 0;
  assert_int_equal(zkc__rk_layout(NULL, ZKC__AS_SEMAPHORE, "zkc_sem_acquire",
                                  "/s", &kids, &mask),
                   ZKC_ELAYOUT);
  assert_true(mask != 0);
  const char *why = zkc_last_error_message();
  assert_non_null(why);
  assert_non_null(strstr(why, "zkc_sem_acquire: path '/s' holds "));
  assert_non_null(strstr(why, ", not a semaphore: refused (nothing of ours "
                              "left there)"));
  kids.count = 2; /* locks/ and leases/ alone: a semaphore's */
  assert_int_equal(zkc__rk_layout(NULL, ZKC__AS_SEMAPHORE, "zkc_sem_acquire",
                                  "/s", &kids, NULL),
                   ZKC_OK);
  char *lock[] = {"_c_b-lock-0000000004", "_c_c-lock-0000000005"};
  zkc__names_t q = {.count = 2, .data = lock};
  assert_int_equal(zkc__rk_layout(NULL, ZKC__AS_LOCK, "lock", "/l", &q, NULL),
                   ZKC_OK);
  assert_int_equal(zkc__rk_layout(NULL, ZKC__AS_ELECTION, "leader latch",
                                  "/l", &kids, NULL),
                   ZKC_ELAYOUT);
  assert_non_null(strstr(zkc_last_error_message(), "leader latch: path '/l'"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(retry_waits_backoff_then_session),
      cmocka_unit_test(retry_refused_ends_the_run),
      cmocka_unit_test(connect_ends_on_close_or_deadline),
      cmocka_unit_test(parents_made_a_level_at_a_time),
      cmocka_unit_test(parent_create_cut_off_is_retried),
      cmocka_unit_test(parent_refused_ends_the_run),
      cmocka_unit_test(parents_budget_spent_is_enonode),
      cmocka_unit_test(leave_gives_the_walk_up),
      cmocka_unit_test(grant_only_fresh_on_the_live_session),
      cmocka_unit_test(woken_and_end_codes),
      cmocka_unit_test(cut_off_create_goes_to_the_janitor_by_uuid),
      cmocka_unit_test(layout_of_another_recipe_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
