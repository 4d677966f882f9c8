/* SPDX-License-Identifier: Apache-2.0 */
/* The blocking driver of a run (drive.h). */
#include "drive.h"

#include "kernel_door.h" /* its ops whole */
#include "queue_nodes.h"
#include "stats.h"
#include "util.h"

static zkc_client_t *now(const zkc__run_bind_t *bind, void *run,
                         zkc_client_t *c) {
  return bind ? bind->client(run) : c;
}

/* A wait for the session; a bound run's a while at a time, each looking
 * whether its session is gone (ZKC_ETIMEDOUT before the deadline: the run
 * steps again, and waits again). */
static int wait_session(const zkc__run_bind_t *bind, void *run,
                        zkc_client_t *c, int64_t deadline) {
  if (bind == NULL) return zkc__wait_connected(c, deadline);
  if (zkc__session_fate(c, bind->bound(run)) == ZKC__SESSION_GONE)
    return ZKC_ELOST;
  int64_t slice = zkc__deadline_after(200);
  if (deadline != ZKC__FOREVER && deadline < slice) slice = deadline;
  int rc = zkc__wait_connected(c, slice);
  return rc == ZKC_ETIMEDOUT && slice != deadline ? ZKC_OK : rc;
}

void zkc__drive_here(const zkc__run_calls_t *calls, void *run,
                     zkc_client_t *c, int64_t deadline, zkc__op_t **ops,
                     int64_t *woken_us) {
  zkc__drive_bound(calls, NULL, run, c, deadline, ops, woken_us);
}

void zkc__drive_bound(const zkc__run_calls_t *calls,
                      const zkc__run_bind_t *bind, void *run,
                      zkc_client_t *c, int64_t deadline, zkc__op_t **ops,
                      int64_t *woken_us) {
  int64_t limit = zkc__limit_after(deadline);
  for (;;) {
    int n, rc;
    switch (calls->step(run)) {
      case ZKC__QN_REPLY:
        n = calls->ops(run, ops);
        for (int i = 0; i < n; i++)
          if (zkc__op_wait_until(ops[i], limit) == ZKC_ETIMEDOUT) {
            calls->give_up(run); /* unanswered at the limit */
            break;
          }
        break;
      case ZKC__QN_EVENT: {
        zkc__wake_t why = zkc__waiter_wait(c, calls->waiter(run), deadline);
        if (why == ZKC__WAKE_FIRED) *woken_us = zkc__now_us(); /* hand-off */
        calls->woken(run, why);
        break;
      }
      case ZKC__QN_SESSION:
        if ((rc = wait_session(bind, run, now(bind, run, c), deadline)) !=
            ZKC_OK)
          calls->stop(run, rc);
        break;
      case ZKC__QN_TIME:
        if (zkc__pause_until(now(bind, run, c), calls->wake_at(run)) !=
            ZKC_OK)
          calls->stop(run, ZKC_ECLOSED);
        break;
      case ZKC__QN_DONE: return;
    }
  }
}
