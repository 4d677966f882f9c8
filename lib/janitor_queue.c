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

/* A delete that nobody waits for (zkc__delete_unwaited). */
typedef struct unwaited {
  zkc__op_t op;
  zkc_client_t *c;
  char *node;
} unwaited_t;

/* Its result, on the completion thread (or at close): what a waited
 * delete would do with it, with nobody to tell of a refusal but the log. */
static void unwaited_done(void *ctx) {
  unwaited_t *d = ctx;
  (void)zkc__delete_answered(d->c, d->node, d->op.rc);
  zkc__op_clear(&d->op);
  free(d->node);
  free(d);
}

int zkc__delete_unwaited(zkc_client_t *c, const char *node) {
  if (zkc__client_facts(c).closed) return ZKC_ECLOSED; /* the node went too */
  if (!zkc__session_live(c)) {
    zkc__janitor_add(c, node, NULL); /* sent once connected */
    return ZKC_OK;
  }
  unwaited_t *d = calloc(1, sizeof *d);
  if (d == NULL || (d->node = strdup(node)) == NULL ||
      zkc__op_init(&d->op) != ZKC_OK) {
    if (d) free(d->node);
    free(d);
    return ZKC_ENOMEM;
  }
  d->c = c;
  d->op.notify = unwaited_done;
  d->op.notify_ctx = d;
  /* In the session's order: its later requests come after this one. With
   * the caller's path: the C client may still read it (to log) after the
   * completion, which frees d->node, has run. */
  zkc__send(c, &d->op, &(zkc__req_t){.kind = ZKC__REQ_DELETE, .path = node});
  return ZKC_OK;
}
