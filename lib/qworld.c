/* SPDX-License-Identifier: Apache-2.0 */
/* The queue engine's world over a client (qworld.h): its requests go to
 * the client's ZooKeeper handle, its facts come from the client's
 * session. */
#include <string.h>

#include "qworld.h"

#include "queue_nodes.h"
#include "util.h"

static void qw_send(zkc_client_t *c, zkc__op_t *op, const zkc__qreq_t *rq) {
  switch (rq->kind) {
    case ZKC__QR_CREATE:
      zkc__submit_create(c, op, ZKC_NODE_PARTICIPANT, rq->path, rq->data,
                         (int)strlen(rq->data),
                         rq->plain ? ZKC__CREATE_EPHEMERAL
                                   : ZKC__CREATE_EPHEMERAL_SEQUENTIAL);
      break;
    case ZKC__QR_PARENT:
      zkc__submit_create(c, op, ZKC_NODE_PARENT, rq->path, "", 0,
                         zkc__parent_mode_of(c));
      break;
    case ZKC__QR_CHILDREN: zkc__submit_children(c, op, rq->path); break;
    case ZKC__QR_SYNC: zkc__submit_sync(c, op, rq->path); break;
    case ZKC__QR_EXISTS: zkc__submit_exists(c, op, rq->path); break;
    case ZKC__QR_WATCH: zkc__submit_watch(c, op, rq->path, rq->watch); break;
    case ZKC__QR_DELETE: zkc__submit_delete(c, op, rq->path); break;
    case ZKC__QR_CHILDREN_WATCH:
      zkc__submit_children_watch(c, op, rq->path, rq->watch);
      break;
    case ZKC__QR_GET_WATCH:
      zkc__submit_get_watch(c, op, rq->path, rq->watch);
      break;
    case ZKC__QR_GET:
      zkc__submit_get(c, op, rq->path);
      break;
    case ZKC__QR_COUNT:
      zkc__submit_create(c, op, ZKC_NODE_PARENT, rq->path, rq->data, rq->len,
                         ZKC__CREATE_PERSISTENT);
      break;
  }
}

static const char *holder_id(zkc_client_t *c) { return zkc__holder_id(c); }

const zkc__qworld_t zkc__qworld_session = {
    .send = qw_send,
    .session_id = zkc__session_id,
    .session_fate = zkc__session_fate,
    .session_live = zkc__session_live,
    .closed = zkc__client_closed,
    .grant_fresh = zkc__grant_fresh,
    .holder_id = holder_id,
    .boot_ms = zkc__boot_ms,
    .now_ms = zkc__now_ms,
    .waiter_register = zkc__waiter_register_polled,
    .waiter_watch_own = zkc__waiter_watch_own,
    .waiter_clean = zkc__waiter_clean,
    .waiter_unwatch = zkc__waiter_unwatch,
    .waiter_unregister = zkc__waiter_unregister,
    .forget_watch = zkc__forget_watch,
    .waiter_also = zkc__waiter_also,
    .waiter_rearm = zkc__waiter_rearm,
    .waiter_unwatch_children = zkc__waiter_unwatch_children,
    .view_update = zkc__qview_update,
    .view_drop = zkc__qview_drop,
    .view_clear_ahead = zkc__qview_clear_ahead,
    .janitor_add = zkc__janitor_add,
    .delete_answered = zkc__delete_answered,
    .retry_delay = zkc__retry_delay,
};
