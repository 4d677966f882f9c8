/* SPDX-License-Identifier: Apache-2.0 */
/* The stall watch's rule (lib/stall.c), without a server: ticks closer
 * than ZKC__STALL_MS are no stall; a longer gap is one, seen at the tick
 * that ends it, and spans every proof sent before that tick; a gap going
 * on (no tick that long) spans any proof; and the process's watch, joined
 * and left, ticks on its own and sees the process stopped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "stall.h"
#include "util.h"
#include "zkcoord/common.h"

enum { TICK = ZKC__STALL_TICK_MS, STALL = ZKC__STALL_MS };

static void ticks_on_time_are_no_stall(void **state) {
  (void)state;
  zkc__stall_t s = {0};
  for (int64_t t = 1000; t <= 5000; t += TICK) zkc__stall_ticked(&s, t);
  assert_int_equal(s.gaps, 0);
  assert_false(zkc__stall_spans(&s, 1000, 5000));
  /* a late tick, but not a stall */
  zkc__stall_ticked(&s, 5000 + STALL);
  assert_int_equal(s.gaps, 0);
  assert_false(zkc__stall_spans(&s, 1000, 5000 + STALL));
}

static void a_gap_spans_proofs_sent_before_its_end(void **state) {
  (void)state;
  zkc__stall_t s = {0};
  zkc__stall_ticked(&s, 1000);
  zkc__stall_ticked(&s, 1000 + STALL + 1); /* stopped meanwhile */
  assert_int_equal(s.gaps, 1);
  assert_int_equal(s.gap_len, STALL + 1);
  /* a proof sent before the stall, or during it: not fresh */
  assert_true(zkc__stall_spans(&s, 900, 1000 + STALL + 5));
  assert_true(zkc__stall_spans(&s, 1000 + STALL, 1000 + STALL + 5));
  /* one sent after the tick that ended it: fresh */
  assert_false(zkc__stall_spans(&s, 1000 + STALL + 2, 1000 + STALL + 5));
}

static void a_gap_going_on_spans_every_proof(void **state) {
  (void)state;
  zkc__stall_t s = {0};
  zkc__stall_ticked(&s, 1000);
  /* the ticker has not run since: asked by the thread that ran first */
  assert_false(zkc__stall_spans(&s, 1010, 1000 + STALL));
  assert_true(zkc__stall_spans(&s, 1010, 1000 + STALL + 1));
  assert_true(zkc__stall_spans(&s, 5000, 9000));
}

static void no_tick_yet_is_no_stall(void **state) {
  (void)state;
  zkc__stall_t s = {0};
  assert_false(zkc__stall_spans(&s, 0, 100000));
  zkc__stall_ticked(&s, 100000); /* the first tick measures no gap */
  assert_int_equal(s.gaps, 0);
}

/* Waits ms: the time the ticker must fill. */
static void wait_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void the_watch_ticks_while_joined(void **state) {
  (void)state;
  assert_int_equal(zkc__stall_watch_join(), ZKC_OK);
  assert_int_equal(zkc__stall_watch_join(), ZKC_OK); /* a second client */
  zkc__stall_watch_leave();
  /* Three stalls' length later, a proof sent at the start is fresh: the
   * ticker ticked meanwhile. A machine busy enough to delay it past a
   * stall's length spans that proof: tried again, a few times. */
  int fresh = 0;
  for (int i = 0; i < 10 && !fresh; i++) {
    int64_t since = zkc__boot_ms();
    wait_ms(3 * STALL);
    fresh = !zkc__stalled_since(since, NULL);
  }
  assert_true(fresh);
  zkc__stall_watch_leave();
  /* none watching: nothing is judged a stall */
  assert_false(zkc__stalled_since(0, NULL));
  assert_int_equal(zkc__stall_watch_join(), ZKC_OK); /* and again */
  zkc__stall_watch_leave();
}

/* A stop of the whole process (SIGSTOP here, as a debugger's or the
 * nemesis's) is seen: a proof sent before it is not fresh after it. */
static void a_stopped_process_is_seen(void **state) {
  (void)state;
  assert_int_equal(zkc__stall_watch_join(), ZKC_OK);
  int64_t since = zkc__boot_ms();
  uint64_t seen = zkc__stalls_seen();
  pid_t pid = getpid();
  pid_t waker = fork();
  assert_true(waker >= 0);
  if (waker == 0) { /* continues the parent after twice a stall's length */
    wait_ms(2 * STALL);
    kill(pid, SIGCONT);
    _exit(0);
  }
  kill(pid, SIGSTOP);
  int64_t gap = 0;
  assert_true(zkc__stalled_since(since, &gap));
  assert_true(gap > STALL);
  int st;
  assert_int_equal(waitpid(waker, &st, 0), waker);
  /* once the ticker runs again, the stall is counted */
  int64_t until = zkc__now_ms() + 10000;
  while (zkc__stalls_seen() == seen && zkc__now_ms() < until) wait_ms(TICK);
  assert_true(zkc__stalls_seen() > seen);
  assert_true(zkc__stalled_since(since, NULL));
  zkc__stall_watch_leave();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ticks_on_time_are_no_stall),
      cmocka_unit_test(a_gap_spans_proofs_sent_before_its_end),
      cmocka_unit_test(a_gap_going_on_spans_every_proof),
      cmocka_unit_test(no_tick_yet_is_no_stall),
      cmocka_unit_test(the_watch_ticks_while_joined),
      cmocka_unit_test(a_stopped_process_is_seen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
