/* SPDX-License-Identifier: Apache-2.0 */
/* The blocking side of the lock queue: an acquisition runs the queue
 * engine (qengine.c) on the caller's thread; a held node's delete, waited
 * for, bounded, or sent without waiting; the queue's participants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"

#include "drive.h"
#include "kernel_door.h" /* a delete's op, the session's facts */
#include "qengine.h"
#include "names.h"
#include "session.h"
#include "stats.h"
#include "util.h"
#include "zkcoord/common.h"




/* Deletes our node now, or hands the delete to the maintenance thread when
 * the connection is in trouble: whichever session is current then deletes
 * it (a node of a lost session may outlive it by up to a session timeout).
 * Nothing to do when the client is closing. Returns ZKC_OK when the node is
 * gone or will be, ZKC_ELOST when it was gone already (someone deleted it,
 * or its session ended), or the server's refusal (ZKC_ENOAUTH, ...): then the
 * node stays in the queue until its session ends, and the caller must say
 * so. */
static int remove_node_by(zkc_client_t *c, const char *node, int64_t limit,
                          zkc__call_t *behind, int *deleted) {
  if (deleted) *deleted = 0;
  if (behind) behind->rc = ZKC_ECLOSED;
  /* Closing the session removes the node. */
  if (zkc__client_facts(c).closed) return ZKC_OK;
  zkc__call_t calls[2] = {{.rq = {.kind = ZKC__REQ_DELETE, .path = node}}};
  if (behind) calls[1].rq = behind->rq;
  /* Disconnected: not waited for here. */
  int rc = zkc__session_live(c)
               ? zkc__call(c, calls, behind ? 2 : 1,
                           &(zkc__call_opts_t){.limit_ms = limit,
                                               .retry = ZKC__CALL_ONCE,
                                               .deadline_ms = ZKC__FOREVER})
               : ZKC_ETIMEDOUT;
  if (behind) {
    behind->rc = calls[1].unsent || rc == ZKC_ETIMEDOUT ? ZKC_ETIMEDOUT
                                                        : calls[1].rc;
    behind->stat = calls[1].stat;
    zkc__call_clear(&calls[1], 1);
  }
  /* Unsent (no memory) or unanswered: finished in the background. */
  if (calls[0].unsent || rc == ZKC_ETIMEDOUT) {
    zkc__janitor_add(c, node, NULL);
    return ZKC_OK;
  }
  if (deleted) *deleted = calls[0].rc == ZKC_OK;
  return zkc__delete_answered(c, node, calls[0].rc);
}

static int remove_node(zkc_client_t *c, const char *node) {
  return remove_node_by(c, node, ZKC__FOREVER, NULL, NULL);
}

/* The queue engine's calls, for the blocking driver (drive.h). */
static zkc__qneed_t q_step(void *r) { return zkc__qrun_step(r); }
static int q_ops(void *r, zkc__op_t **ops) { return zkc__qrun_ops(r, ops); }
static void q_give_up(void *r) { zkc__qrun_give_up(r); }
static zkc__waiter_t *q_waiter(void *r) { return zkc__qrun_waiter(r); }
static void q_woken(void *r, zkc__wake_t why) { zkc__qrun_woken(r, why); }
static int64_t q_wake_at(const void *r) { return zkc__qrun_wake_at(r); }
static void q_stop(void *r, int rc) { zkc__qrun_stop(r, rc); }
const zkc__run_calls_t zkc__qrun_calls = {q_step,  q_ops,     q_give_up,
                                          q_waiter, q_woken, q_wake_at,
                                          q_stop};

/* Runs the queue engine (qengine.c) on the caller's thread. */
static int run_here(zkc__qrun_t *r, zkc__held_t *out, int *also_seen) {
  zkc__op_t *ops[ZKC__QRUN_OPS_MAX];
  int64_t woken_us = 0;
  zkc__drive_here(&zkc__qrun_calls, r, r->k.c, r->k.deadline, ops, &woken_us);
  int rc = zkc__qrun_result(r, out);
  if (rc == ZKC_OK) out->woken_us = woken_us;
  if (also_seen) *also_seen = zkc__qrun_also_seen(r);
  zkc__qrun_clear(r);
  return rc;
}

static int acquire(zkc_client_t *c, const char *base, const char *lock_name,
                   const char *data, int reader, zkc__recipe_layout_t layout,
                   const zkc__quick_t *quick, int64_t deadline_ms,
                   zkc__held_t *out) {
  /* A node lost while waiting: at the back, the deadline holds. */
  zkc__qrun_how_t how = {.base = base, .name = lock_name, .data = data,
                         .deadline = deadline_ms, .layout = layout,
                         .reader = reader != 0, .requeue = 1,
                         .quick = quick};
  zkc__qrun_t r;
  zkc__qrun_init(&r, c, &how);
  return run_here(&r, out, NULL);
}

int zkc__lock_acquire_also(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *also,
                           int64_t deadline_ms, zkc__held_t *out,
                           int *also_seen) {
  zkc__qrun_how_t how = {.base = base, .name = lock_name,
                         .deadline = deadline_ms, .requeue = 1, .also = also,
                         .unproven = 1};
  zkc__qrun_t r;
  zkc__qrun_init(&r, c, &how);
  return run_here(&r, out, also_seen);
}

int zkc__lock_acquire_data(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *data,
                           int64_t deadline_ms, zkc__held_t *out) {
  return zkc__lock_acquire_side(c, base, lock_name, data, 0, deadline_ms, out);
}

int zkc__lock_acquire_side(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *data, int reader,
                           int64_t deadline_ms, zkc__held_t *out) {
  return zkc__lock_acquire_quick(c, base, lock_name, data, reader, NULL,
                                 deadline_ms, out);
}

int zkc__lock_acquire_quick(zkc_client_t *c, const char *base,
                            const char *lock_name, const char *data,
                            int reader, const zkc__quick_t *quick,
                            int64_t deadline_ms, zkc__held_t *out) {
  return acquire(c, base, lock_name, data, reader,
                 zkc__marker_layout(lock_name), quick, deadline_ms, out);
}

int zkc__node_create(zkc_client_t *c, const char *base, const char *name,
                     const char *data, int64_t deadline_ms, zkc__held_t *out) {
  return zkc__node_create_mode(c, base, name, data, 0, deadline_ms, out);
}

int zkc__node_create_mode(zkc_client_t *c, const char *base, const char *name,
                          const char *data, int plain, int64_t deadline_ms,
                          zkc__held_t *out) {
  zkc__qrun_how_t how = {.base = base, .name = name, .data = data,
                         .deadline = deadline_ms, .plain = plain != 0,
                         .no_list = 1};
  zkc__qrun_t r;
  zkc__qrun_init(&r, c, &how);
  return run_here(&r, out, NULL);
}

int zkc__node_create_vouched(zkc_client_t *c, const char *base,
                             const char *name, const char *data,
                             const zkc__voucher_t *vouch, int64_t deadline,
                             zkc__held_t *out) {
  zkc__qrun_how_t how = {.base = base, .name = name, .data = data,
                         .deadline = deadline, .plain = 1, .no_list = 1,
                         .vouch = vouch};
  zkc__qrun_t r;
  zkc__qrun_init(&r, c, &how);
  return run_here(&r, out, NULL);
}

/* remove_node_by inside a call of the client (zkc__call_enter). */
static int delete_in_call(zkc_client_t *c, const char *node, int64_t limit,
                          zkc__call_t *behind, int *deleted) {
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) {
    if (deleted) *deleted = 0;
    if (behind) behind->rc = rc;
    return rc;
  }
  rc = remove_node_by(c, node, limit, behind, deleted);
  zkc__call_leave(c);
  return rc;
}

int zkc__lock_delete(zkc_client_t *c, const char *node) {
  return delete_in_call(c, node, ZKC__FOREVER, NULL, NULL);
}

int zkc__lock_delete_by(zkc_client_t *c, const char *node, int64_t limit_ms) {
  return delete_in_call(c, node, limit_ms, NULL, NULL);
}

int zkc__lock_delete_with(zkc_client_t *c, const char *node,
                          zkc__call_t *behind, int *deleted) {
  return delete_in_call(c, node, ZKC__FOREVER, behind, deleted);
}

static int delete_unwaited(zkc_client_t *c, const char *node, int may_wait);

int zkc__lock_delete_nowait(zkc_client_t *c, const char *node) {
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  rc = delete_unwaited(c, node, 1);
  zkc__call_leave(c);
  return rc;
}

/* zkc__lock_delete_nowait's body; without memory for the unwaited delete,
 * waited for (may_wait) or handed to the janitor. */
static int delete_unwaited(zkc_client_t *c, const char *node, int may_wait) {
  int rc = zkc__delete_unwaited(c, node);
  if (rc == ZKC_ENOMEM) { /* nothing sent */
    if (may_wait) return remove_node(c, node);
    zkc__janitor_add(c, node, NULL);
    rc = ZKC_OK;
  }
  return rc;
}

int zkc__lock_release(zkc_client_t *c, zkc__held_t *held) {
  return zkc__lock_release_by(c, held, ZKC__FOREVER);
}

int zkc__lock_release_by(zkc_client_t *c, zkc__held_t *held, int64_t limit_ms) {
  int rc = zkc__lock_delete_by(c, held->node, limit_ms);
  free(held->node);
  held->node = NULL;
  return rc;
}

/* ---- a lock's quick acquire ---- */

int zkc__quiet_init(zkc__quiet_t *q) {
  return pthread_mutex_init(&q->mu, NULL) == 0 ? ZKC_OK : ZKC_ENOMEM;
}

/* The base's watch is set (its answer showed the base with czxid w_czxid)
 * and nothing has fired it or broken the order of the client's events
 * since it was registered. Caller holds q->mu. */
static int watch_kept_locked(zkc__quiet_t *q, zkc_client_t *c) {
  return q->w_reg && !q->arming && q->w_czxid != 0 &&
         zkc__waiter_intact(c, &q->w);
}

/* The run's check (zkc__quick_t.intact): the watch kept, on the base the
 * last hold's read showed. */
static int base_intact(void *ctx) {
  const zkc__quick_ticket_t *t = ctx;
  zkc__quiet_t *q = t->quiet;
  pthread_mutex_lock(&q->mu);
  int intact =
      watch_kept_locked(q, t->c) && q->w_czxid == t->q.base_czxid;
  pthread_mutex_unlock(&q->mu);
  return intact;
}

int zkc__quiet_take(zkc__quiet_t *q, zkc_client_t *c, zkc__quick_ticket_t *t) {
  pthread_mutex_lock(&q->mu);
  int go = q->known && watch_kept_locked(q, c) && q->w_czxid == q->base_czxid;
  q->known = 0;
  if (go)
    *t = (zkc__quick_ticket_t){.q = {.seq = q->seq + 1,
                                     .base_czxid = q->base_czxid,
                                     .intact = base_intact,
                                     .ctx = t},
                               .quiet = q,
                               .c = c};
  pthread_mutex_unlock(&q->mu);
  return go;
}

/* A watch to set: registered anew under the same id, so that the client
 * keeps one registration of it however often it is set again, and nothing
 * is removed from the server (a removal would break the order of every
 * watch of this client, the next lock's quick watch among them, which
 * would set its own again and break this one). Caller holds q->mu. */
static int watch_again(zkc__quiet_t *q, zkc_client_t *c, const char *base) {
  q->w_czxid = 0;
  if (q->w_reg) zkc__waiter_renew(c, &q->w);
  else if (zkc__waiter_register(c, &q->w, base) == ZKC_OK) q->w_reg = 1;
  else return 0;
  q->arming = 1;
  return 1;
}

int zkc__quiet_delete(zkc__quiet_t *q, zkc_client_t *c, const char *base,
                      const zkc__held_t *held) {
  zkc__call_t watch = {.rq = {.kind = ZKC__REQ_EXISTS_WATCH, .path = base}};
  int arm = 0;
  pthread_mutex_lock(&q->mu);
  if (held->alone && !q->arming && !watch_kept_locked(q, c) &&
      (arm = watch_again(q, c, base)))
    watch.rq.watch = q->w.id;
  pthread_mutex_unlock(&q->mu);
  int deleted = 0;
  int rc = zkc__lock_delete_with(c, held->node, arm ? &watch : NULL, &deleted);
  int64_t seq;
  pthread_mutex_lock(&q->mu);
  if (arm) {
    q->arming = 0;
    q->w_czxid = watch.rc == ZKC_OK ? watch.stat.czxid : 0;
  }
  /* Deleted by this call's own request, not handed to the background: a
   * node still there would stand before the next one. */
  q->known = deleted && held->alone && held->base_czxid != 0 &&
             zkc__node_sequence(held->node, &seq);
  if (q->known) {
    q->seq = seq;
    q->base_czxid = held->base_czxid;
  }
  pthread_mutex_unlock(&q->mu);
  return rc;
}

void zkc__quiet_unwatch(zkc__quiet_t *q, zkc_client_t *c) {
  pthread_mutex_lock(&q->mu);
  if (q->w_reg) (void)zkc__waiter_end(c, &q->w, 0, ZKC__LEFT_DATA);
  q->w_reg = 0;
  q->w_czxid = 0;
  q->known = 0;
  pthread_mutex_unlock(&q->mu);
}

void zkc__quiet_destroy(zkc__quiet_t *q) { pthread_mutex_destroy(&q->mu); }

int zkc__lock_participants(zkc_client_t *c, const char *base, char ***nodes,
                           size_t *count) {
  *nodes = NULL;
  *count = 0;
  zkc__call_t list = {.rq = {.kind = ZKC__REQ_CHILDREN, .path = base}};
  int rc = zkc__call(c, &list, 1, NULL);
  size_t n = rc == ZKC_OK ? (size_t)list.children.count : 0;
  zkc__contender_t *sorted = n ? malloc(n * sizeof *sorted) : NULL;
  char **paths = n ? calloc(n, sizeof *paths) : NULL;
  if (n && (sorted == NULL || paths == NULL)) rc = ZKC_ENOMEM;
  if (rc == ZKC_OK && n) {
    n = zkc__sort_contenders(list.children.data, n, sorted);
    for (size_t i = 0; i < n && rc == ZKC_OK; i++)
      if ((paths[i] = zkc__path_join(base, sorted[i].name)) == NULL)
        rc = ZKC_ENOMEM;
  }
  free(sorted);
  if (rc == ZKC_OK && n) {
    *nodes = paths;
    *count = n;
  } else {
    zkc__strings_free(paths, n);
  }
  zkc__call_clear(&list, 1);
  return rc == ZKC_ENONODE ? ZKC_OK : rc;
}

int zkc__untimed(const char *fn, const char *what, void *obj,
                 int (*timed)(void *obj, int64_t timeout_ms)) {
  int rc = zkc__refuse_null(NULL, fn, what, obj == NULL, (char *)NULL);
  return rc != ZKC_OK ? rc : timed(obj, INT64_MAX);
}
