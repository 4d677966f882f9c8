/* SPDX-License-Identifier: Apache-2.0 */
/* The janitor's queue: a delete handed over to be finished in the
 * background (janitor.c's steps, on the maintenance thread, do the work),
 * and what a held node's delete answered means (zkc__delete_answered: the
 * queue engine's world, session_world.c, tells it). Apart from the steps,
 * which wait on calls, so that a recipe or the world handing a delete over
 * stands on the queue alone. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "client_struct.h"
#include "kernel_door.h"
#include "session_shared.h"
#include "zkcoord/common.h"

void zkc__janitor_add(zkc_client_t *c, const char *path, const char *uuid) {
  zkc__pending_t *p = calloc(1, sizeof *p);
  char *copy = p ? strdup(path) : NULL;
  if (copy == NULL) {
    /* Nothing can be queued; the node goes when the session ends. */
    free(p);
    zkc__log(c, ZKC_LOG_ERROR, "out of memory: cannot queue delete of %s",
             path);
    return;
  }
  p->path = copy;
  if (uuid) memcpy(p->uuid, uuid, sizeof p->uuid);
  pthread_mutex_lock(&c->mu);
  p->next = c->pending;
  c->pending = p;
  atomic_fetch_add(&c->janitor_pending, 1);
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

/* A delete cut by connection loss or a session's end is finished in the
 * background; a refusal is logged. */
int zkc__delete_answered(zkc_client_t *c, const char *node, int rc) {
  if (rc == ZKC_ENONODE) return ZKC_ELOST;
  if (rc == ZKC_OK || rc == ZKC_ECLOSED) return ZKC_OK;
  if (!zkc__retryable(rc) && rc != ZKC_ESESSIONEXPIRED) {
    zkc__log(c, ZKC_LOG_ERROR,
             "delete of %s refused (%s): it stays until its session ends",
             node, zkc_strerror(rc));
    return rc;
  }
  zkc__janitor_add(c, node, NULL);
  return ZKC_OK;
}
