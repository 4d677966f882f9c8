/* SPDX-License-Identifier: Apache-2.0 */
/* A request described as data (session.h's zkc__req_t) sent as the
 * request it names: the node kinds and ACLs, the parent mode and the
 * watches' bookkeeping stay on this side of the door. */
#include <string.h>

#include "session_shared.h"

void zkc__send(zkc_client_t *c, zkc__op_t *op, const zkc__req_t *rq) {
  switch (rq->kind) {
    case ZKC__REQ_CREATE:
      if (rq->release) {
        zkc__submit_create_releasing(c, op, rq->path, rq->data,
                                     (int)strlen(rq->data), rq->release);
        break;
      }
      zkc__submit_create(c, op, ZKC_NODE_PARTICIPANT, rq->path, rq->data,
                         (int)strlen(rq->data),
                         rq->plain ? ZKC__CREATE_EPHEMERAL
                                   : ZKC__CREATE_EPHEMERAL_SEQUENTIAL);
      break;
    case ZKC__REQ_PARENT:
      zkc__submit_create(c, op, ZKC_NODE_PARENT, rq->path, "", 0,
                         zkc__parent_mode(c) == ZKC_PARENTS_CONTAINER
                             ? ZKC__CREATE_CONTAINER
                             : ZKC__CREATE_PERSISTENT);
      break;
    case ZKC__REQ_COUNT:
      zkc__submit_create(c, op, ZKC_NODE_PARENT, rq->path, rq->data, rq->len,
                         ZKC__CREATE_PERSISTENT);
      break;
    case ZKC__REQ_CHILDREN: zkc__submit_children(c, op, rq->path); break;
    case ZKC__REQ_SYNC: zkc__submit_sync(c, op, rq->path); break;
    case ZKC__REQ_EXISTS: zkc__submit_exists(c, op, rq->path); break;
    case ZKC__REQ_GET: zkc__submit_get(c, op, rq->path); break;
    case ZKC__REQ_GET_IN_SESSION:
      zkc__submit_get_in_session(c, op, rq->path, rq->session);
      break;
    case ZKC__REQ_EXISTS_IN_SESSION:
      zkc__submit_exists_in_session(c, op, rq->path, rq->session);
      break;
    case ZKC__REQ_SET:
      zkc__submit_set(c, op, rq->path, rq->data, rq->len);
      break;
    case ZKC__REQ_DELETE: zkc__submit_delete(c, op, rq->path); break;
    case ZKC__REQ_CHECK_SET:
    case ZKC__REQ_CHECK_CREATE:
      zkc__submit_fenced(c, op, rq->check, rq->path, rq->data, rq->len,
                         rq->kind == ZKC__REQ_CHECK_CREATE, rq->version);
      break;
    case ZKC__REQ_WATCH: zkc__submit_watch(c, op, rq->path, rq->watch); break;
    case ZKC__REQ_CHILDREN_WATCH:
      zkc__submit_children_watch(c, op, rq->path, rq->watch);
      break;
    case ZKC__REQ_GET_WATCH:
      zkc__submit_get_watch(c, op, rq->path, rq->watch);
      break;
    case ZKC__REQ_EXISTS_WATCH:
      zkc__submit_exists_watch(c, op, rq->path, rq->watch);
      break;
  }
}
