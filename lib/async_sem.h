/* SPDX-License-Identifier: Apache-2.0 */
/* The async semaphore acquire as one run that never blocks, for the async
 * engine (async_engine.c) to step through its calls (zkc__asem_calls) as
 * it steps a lock's queue run: zkc_sem_acquire's protocol step for step.
 * The path's layout read (until the semaphore object accepted it), the
 * queue run on locks/, the lease run; after an attempt that failed, the
 * deletes of its nodes (a refusal reported); after a loss, queued again
 * once connected, within the deadline. */
#ifndef ZKC_ASYNC_SEM_H
#define ZKC_ASYNC_SEM_H

#include <stdint.h>

#include "drive.h"
#include "qengine.h"
#include "sem.h"

typedef struct zkc__asem zkc__asem_t;

/* A run taking qty leases of s until deadline, its requests and waiters
 * told through drv (drv_ctx). NULL without memory. */
zkc__asem_t *zkc__asem_new(zkc_sem_t *s, unsigned qty, int64_t deadline,
                           const zkc__qdriver_t *drv, void *drv_ctx);
extern const zkc__run_calls_t zkc__asem_calls;

/* ZKC__QN_DONE: ZKC_OK with the lease (nodes made and fitting, not yet
 * granted: zkc__sem_grant) moved to *out (out NULL: only the result), or
 * the failure (no node left). */
int zkc__asem_result(zkc__asem_t *r, zkc_lease_t **out);
/* A lease the driver did not grant after all (zkc__sem_grant said
 * ZKC_ELOST, or a cancel came first): given back to the run, which deletes
 * its nodes and queues again (ZKC_ELOST) or ends with rc. */
void zkc__asem_refuse(zkc__asem_t *r, zkc_lease_t *l, int rc);
/* Frees the run (one not done leaves its nodes to the janitor). */
void zkc__asem_free(zkc__asem_t *r);

#endif /* ZKC_ASYNC_SEM_H */
