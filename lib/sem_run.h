/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's acquire, written once, as one run that never blocks:
 * the path's layout read (until the semaphore object accepted it), the
 * queue run on locks/, the lease run (lease_run.h) as the head of the
 * queue; after an attempt that failed, the deletes of its nodes (a
 * refusal reported); after a loss, queued again once connected, within
 * the deadline. Both acquires step it through its calls (srun_calls):
 * zkc_sem_acquire with the blocking driver (drive.h) on the caller's
 * thread, zkc_async_acquire_leases with the async engine
 * (async_engine.c). Each grants the lease the run ends with
 * (zkc__sem_grant) or gives it back (zkc__srun_refuse). */
#ifndef ZKC_SEM_RUN_H
#define ZKC_SEM_RUN_H

#include <stdint.h>

#include "run_kernel.h"
#include "qengine.h"
#include "sem.h"

typedef struct zkc__srun zkc__srun_t;

/* A run taking qty leases of s until deadline, its requests and waiters
 * told through drv (drv_ctx; NULL: the caller waits on them itself). NULL
 * without memory. */
zkc__srun_t *zkc__srun_new(zkc_sem_t *s, unsigned qty, int64_t deadline,
                           const zkc__qdriver_t *drv, void *drv_ctx);
extern const zkc__run_calls_t zkc__srun_calls;
/* The most requests a run of qty leases awaits at once (its ops). */
int zkc__srun_ops_max(unsigned qty);

/* ZKC__QN_DONE: ZKC_OK with the lease (nodes made and fitting, not yet
 * granted: zkc__sem_grant) moved to *out (out NULL: only the result), or
 * the failure (no node left). */
int zkc__srun_result(zkc__srun_t *r, zkc_lease_t **out);
/* A lease its driver did not grant after all (zkc__sem_grant said
 * ZKC_ELOST, or a cancel came first): given back to the run, which deletes
 * its nodes and queues again (ZKC_ELOST) or ends with rc. */
void zkc__srun_refuse(zkc__srun_t *r, zkc_lease_t *l, int rc);
/* Frees the run (one not done leaves its nodes to the janitor). */
void zkc__srun_free(zkc__srun_t *r);

#endif /* ZKC_SEM_RUN_H */
