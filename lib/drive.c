/* SPDX-License-Identifier: Apache-2.0 */
/* The blocking driver of a run (drive.h). */
#include "drive.h"

#include "kernel_door.h" /* its ops whole */
#include "queue_nodes.h"
#include "stats.h"

void zkc__drive_here(const zkc__run_calls_t *calls, void *run,
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
        if ((rc = zkc__wait_connected(c, deadline)) != ZKC_OK)
          calls->stop(run, rc);
        break;
      case ZKC__QN_TIME:
        if (zkc__pause_until(c, calls->wake_at(run)) != ZKC_OK)
          calls->stop(run, ZKC_ECLOSED);
        break;
      case ZKC__QN_DONE: return;
    }
  }
}
