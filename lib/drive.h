/* SPDX-License-Identifier: Apache-2.0 */
/* The blocking driver of a run that never blocks (the queue engine's one
 * machine, qengine.h, whether a queue's run or the semaphore's lease run,
 * lease_run.h): it waits on the caller's thread for whatever the run says
 * it needs next. Each caller gives the run's calls as a table. */
#ifndef ZKC_DRIVE_H
#define ZKC_DRIVE_H

#include <stdint.h>

#include "run_kernel.h"
#include "session.h"

/* A run's calls (zkc__run_calls_t) and a bound run's (zkc__run_bind_t):
 * run_kernel.h, the runs' contract that both drivers step. */

/* Steps `run` of client c until it is done (ZKC__QN_DONE): its answers
 * awaited until zkc__limit_after(deadline), its waiter's event, the
 * session, the end of a backoff, on this thread. ops has room for as many
 * requests as the run awaits at once. *woken_us: when its waiter last woke
 * on an event (the hand-off's start), left as it was when it never did. */
void zkc__drive_here(const zkc__run_calls_t *calls, void *run,
                     zkc_client_t *c, int64_t deadline, zkc__op_t **ops,
                     int64_t *woken_us);
/* The same, with bind's waits (bind NULL: zkc__drive_here's). */
void zkc__drive_bound(const zkc__run_calls_t *calls,
                      const zkc__run_bind_t *bind, void *run,
                      zkc_client_t *c, int64_t deadline, zkc__op_t **ops,
                      int64_t *woken_us);

#endif /* ZKC_DRIVE_H */
