/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's blocking acquire: its one acquire run (sem_run.c) driven
 * on the caller's thread. Beside the async engine, which steps the same
 * run, over the semaphore object (semaphore.c), which neither calls. */
#include <stdlib.h>

#include "drive.h"
#include "sem.h"
#include "sem_run.h"
#include "session.h"
#include "util.h"

static int sem_acquire_impl(zkc_sem_t *s, unsigned qty, int64_t timeout_ms,
                            zkc_lease_t **out) {
  if (out != NULL) *out = NULL;
  int rc_ = zkc__refuse_null(s ? s->client : NULL, "zkc_sem_acquire", "sem",
                             s == NULL, "out", out == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  int rc = zkc__sem_qty_check(s, "zkc_sem_acquire", qty);
  if (rc != ZKC_OK) return rc;
  zkc_client_t *c = s->client;
  int64_t began = zkc__stats_begin(s->st), woken = 0;
  rc = zkc__call_enter(c); /* callback thread, closed client */
  if (rc != ZKC_OK) {
    zkc__stats_end(s->st, began, rc, 0);
    return rc;
  }
  rc = zkc__sem_enter(s, qty);
  if (rc != ZKC_OK) {
    zkc__stats_end(s->st, began, rc, 0);
    zkc__call_leave(c);
    return rc;
  }
  int64_t deadline = zkc__deadline_after(timeout_ms);
  zkc__srun_t *run = zkc__srun_new(s, qty, deadline, NULL, NULL);
  zkc__op_t **ops =
      run ? malloc((size_t)zkc__srun_ops_max(qty) * sizeof *ops) : NULL;
  zkc_lease_t *l = NULL;
  if (ops == NULL) rc = ZKC_ENOMEM;
  while (rc == ZKC_OK) {
    zkc__drive_here(&zkc__srun_calls, run, c, deadline, ops, &woken);
    rc = zkc__srun_result(run, &l);
    if (rc != ZKC_OK || (rc = zkc__sem_grant(s, l)) == ZKC_OK) break;
    /* ZKC_ELOST: the session went before the grant; the run deletes the
     * nodes and queues again. */
    zkc__srun_refuse(run, l, rc);
    l = NULL;
    rc = ZKC_OK;
  }
  free(ops);
  zkc__srun_free(run);
  /* Only this thread touches the new lease until *out is set. */
  int64_t ended = zkc__stats_end(s->st, began, rc, woken);
  if (rc == ZKC_OK) {
    l->granted_us = ended;
    *out = l;
  }
  zkc__call_leave(c);
  zkc__sem_leave(s);
  return rc;
}

int zkc_sem_acquire(zkc_sem_t *s, unsigned qty, int64_t timeout_ms,
                    zkc_lease_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           sem_acquire_impl(s, qty, timeout_ms, out));
}

