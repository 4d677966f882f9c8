/* SPDX-License-Identifier: Apache-2.0 */
/* An op: one request's result that its submitter waits for (or gives up),
 * and the client's list of the ops in flight, which close drains or ends.
 * Nothing here speaks ZooKeeper: ops.c and watches.c submit and translate. */
#include <stdlib.h>
#include <string.h>

#include "client_struct.h"
#include "kernel_door.h"
#include "session_shared.h"
#include "zkcoord/common.h"

int zkc__op_init(zkc__op_t *op) {
  memset(op, 0, sizeof *op);
  op->failed = -1; /* a transaction's: no operation named yet */
  op->failed_check = -1;
  if (pthread_mutex_init(&op->mu, NULL) != 0) return ZKC_ESYSTEM;
  if (zkc__cond_init(&op->cv) != ZKC_OK) { /* monotonic: bounded waits */
    pthread_mutex_destroy(&op->mu);
    return ZKC_ESYSTEM;
  }
  return ZKC_OK;
}

void zkc__op_clear(zkc__op_t *op) {
  if (op->aux_free) op->aux_free(op->aux);
  free(op->created);
  free(op->data);
  for (int i = 0; i < op->children.count; i++) free(op->children.data[i]);
  free(op->children.data);
  pthread_cond_destroy(&op->cv);
  pthread_mutex_destroy(&op->mu);
}

int zkc__op_wait(zkc__op_t *op) {
  pthread_mutex_lock(&op->mu);
  while (!op->done) pthread_cond_wait(&op->cv, &op->mu);
  int rc = op->rc;
  int zk_rc = op->zk_rc;
  pthread_mutex_unlock(&op->mu);
  zkc__note_zk_code(zk_rc); /* on the waiting thread, for its logs */
  return rc;
}

void zkc__op_own(zkc__op_t *op, void *aux, void (*aux_free)(void *)) {
  op->aux = aux;
  op->aux_free = aux_free;
}

zkc__op_t *zkc__op_new(void) {
  zkc__op_t *op = malloc(sizeof *op);
  if (op == NULL) return NULL;
  if (zkc__op_init(op) != ZKC_OK) {
    free(op);
    return NULL;
  }
  return op;
}

void zkc__op_free(zkc__op_t *op) {
  if (op == NULL) return;
  zkc__op_clear(op);
  free(op);
}

int zkc__op_wait_until(zkc__op_t *op, int64_t limit_ms) {
  int64_t cap = ZKC__FOREVER;
  pthread_mutex_lock(&op->mu);
  for (;;) {
    while (!op->done &&
           zkc__cond_wait_until(&op->cv, &op->mu, limit_ms) == 0) {
    }
    if (op->done || limit_ms == ZKC__FOREVER || op->c == NULL) break;
    /* The limit passed. A silent connection gives up now; one still
     * answering other requests is busy, not silent: wait on, a grace past
     * its latest answer at a time. */
    zkc_client_t *c = op->c;
    if (cap == ZKC__FOREVER)
      cap = limit_ms + (int64_t)c->opts.session_timeout_ms * 2 / 3;
    int64_t last = atomic_load(&c->last_answer_ms);
    if (zkc__now_ms() - last >= ZKC__GRACE_MS || zkc__now_ms() >= cap) break;
    limit_ms = last + ZKC__GRACE_MS < cap ? last + ZKC__GRACE_MS : cap;
  }
  int done = op->done;
  int rc = done ? op->rc : ZKC_ETIMEDOUT;
  int zk_rc = done ? op->zk_rc : 0;
  pthread_mutex_unlock(&op->mu);
  if (done) zkc__note_zk_code(zk_rc);
  return rc;
}

int zkc__op_give_up(zkc__op_t *op) {
  if (op == NULL) return 0;
  pthread_mutex_lock(&op->mu);
  int done = op->done;
  if (!done) op->orphan = 1; /* op_finish frees it */
  pthread_mutex_unlock(&op->mu);
  if (done) zkc__op_free(op);
  return !done;
}

int zkc__op_done(zkc__op_t *op) {
  pthread_mutex_lock(&op->mu);
  int done = op->done;
  pthread_mutex_unlock(&op->mu);
  return done;
}

/* Marks op done with rc (a ZKC_* code); the submitter may free op as soon
 * as it sees done, so nothing touches op after the unlock, except an op
 * given up (zkc__op_give_up), which nobody waits for: freed here. */
void zkc__op_finish(zkc__op_t *op, int rc, const zkc__stat_t *stat) {
  void (*notify)(void *) = op->notify;
  void *notify_ctx = op->notify_ctx;
  pthread_mutex_lock(&op->mu);
  if (op->orphan) {
    op->done = 1;
    pthread_mutex_unlock(&op->mu);
    zkc__op_free(op);
    return;
  }
  op->rc = rc;
  if (stat) op->stat = *stat;
  op->done = 1;
  pthread_cond_signal(&op->cv);
  pthread_mutex_unlock(&op->mu);
  if (notify) notify(notify_ctx);
}

void zkc__op_link(zkc_client_t *c, zkc__op_t *op) {
  op->c = c;
  pthread_mutex_lock(&c->ops_mu);
  op->prev = NULL;
  op->next = c->ops;
  if (c->ops) c->ops->prev = op;
  c->ops = op;
  op->in_flight = 1;
  pthread_mutex_unlock(&c->ops_mu);
}

/* Takes op out of the in-flight list; 0 if close already finished it. */
int zkc__op_claim(zkc__op_t *op) {
  zkc_client_t *c = op->c;
  pthread_mutex_lock(&c->ops_mu);
  int mine = op->in_flight;
  if (mine) {
    if (op->prev) op->prev->next = op->next;
    else c->ops = op->next;
    if (op->next) op->next->prev = op->prev;
    op->in_flight = 0;
    if (c->ops == NULL) pthread_cond_broadcast(&c->ops_cv);
  }
  pthread_mutex_unlock(&c->ops_mu);
  return mine;
}

void zkc__ops_drain(zkc_client_t *c, int64_t deadline_ms) {
  pthread_mutex_lock(&c->ops_mu);
  while (c->ops != NULL &&
         zkc__cond_wait_until(&c->ops_cv, &c->ops_mu, deadline_ms) == 0) {
  }
  pthread_mutex_unlock(&c->ops_mu);
}

void zkc__ops_abandon(zkc_client_t *c, int rc) {
  pthread_mutex_lock(&c->ops_mu);
  zkc__op_t *list = c->ops;
  c->ops = NULL;
  for (zkc__op_t *op = list; op; op = op->next) op->in_flight = 0;
  pthread_cond_broadcast(&c->ops_cv);
  pthread_mutex_unlock(&c->ops_mu);
  /* Finished outside ops_mu: an op's notify may take other locks. */
  while (list) {
    zkc__op_t *op = list;
    list = op->next; /* op may be freed once finished */
    zkc__op_finish(op, rc, NULL);
  }
}
