/* SPDX-License-Identifier: Apache-2.0 */
/* The run kernel (run_kernel.h): the shapes every run shares, once. */
#include <stdlib.h>
#include <string.h>

#include "run_kernel.h"

#include "kernel_door.h" /* its ops whole */
#include "qown.h"
#include "queue_nodes.h"

_Static_assert(ZKC__RK_PARENTING < 8, "a state fits in zkc__rk_t.st");
_Static_assert(ZKC__PARENT_RECREATE_MAX < 16, "fits in zkc__rk_t.parents");

void zkc__rk_init(zkc__rk_t *k, zkc_client_t *c, const zkc__qworld_t *world,
                  const zkc__qdriver_t *drv, void *drv_ctx, int64_t deadline) {
  memset(k, 0, sizeof *k);
  k->c = c;
  k->world = world;
  k->drv = drv;
  k->drv_ctx = drv_ctx;
  k->deadline = deadline;
}

/* ---- ops ---- */

zkc__op_t *zkc__rk_op_new(zkc__rk_t *k) {
  return k->drv ? k->drv->op_new(k->drv_ctx) : zkc__op_new();
}

void zkc__rk_op_drop(zkc__rk_t *k, zkc__op_t **op) {
  if (*op == NULL) return;
  int orphaned = zkc__op_give_up(*op);
  *op = NULL;
  if (orphaned && k->drv) k->drv->op_dropped(k->drv_ctx);
}

void zkc__rk_op_end(zkc__op_t **op) {
  zkc__op_free(*op);
  *op = NULL;
}

/* ---- taking the run ---- */

int zkc__rk_retry(zkc__rk_t *k, int rc) {
  int64_t wake_at = 0;
  rc = k->world->retry_delay(k->c, &k->retries, rc, k->deadline, &wake_at);
  if (rc != ZKC_OK) return rc;
  k->wake_at = wake_at;
  k->then = ZKC__RK_IDLE;
  k->st = ZKC__RK_BACKOFF;
  return ZKC_OK;
}

void zkc__rk_connect(zkc__rk_t *k) {
  k->then = ZKC__RK_IDLE;
  k->st = ZKC__RK_CONNECT;
}

int zkc__rk_parents(zkc__rk_t *k, const char *walk) {
  if (k->parents >= ZKC__PARENT_RECREATE_MAX) return ZKC_ENONODE;
  k->parents++;
  k->walk = walk;
  k->up = k->steps = 0;
  k->st = ZKC__RK_PARENT;
  return ZKC_OK;
}

int zkc__rk_busy(const zkc__rk_t *k) { return k->st != ZKC__RK_IDLE; }

/* The walk's next create, bounded by the run's limit like any other of its
 * requests: the node k->up levels above the walked path. */
static int send_parent(zkc__rk_t *k) {
  char *path = zkc__parent_path(k->walk, k->up);
  if (path == NULL || (k->op = zkc__rk_op_new(k)) == NULL) {
    free(path);
    return ZKC_ENOMEM;
  }
  zkc__req_t rq = {.kind = ZKC__REQ_PARENT, .path = path};
  k->world->send(k->c, k->op, &rq);
  free(path); /* serialized by the send */
  k->st = ZKC__RK_PARENTING;
  return ZKC_OK;
}

/* Its answer moves the walk (zkc__parent_next: k->up -1 once the walked
 * path exists): on, back to the run, a retry of the same create, or the
 * failure. */
static int parent_made(zkc__rk_t *k, int *rc) {
  int up = k->up, steps = k->steps;
  int r = zkc__parent_next(k->walk, k->op->rc, &up, &steps);
  zkc__rk_op_end(&k->op);
  k->up = (short)up, k->steps = (short)steps;
  if (r == ZKC_OK) {
    k->st = k->up < 0 ? ZKC__RK_IDLE : ZKC__RK_PARENT;
    return k->up < 0 ? ZKC__RK_BACK : ZKC__RK_AGAIN;
  }
  if (zkc__retryable(r)) {
    int64_t wake_at = 0;
    r = k->world->retry_delay(k->c, &k->retries, r, k->deadline, &wake_at);
    if (r == ZKC_OK) {
      k->wake_at = wake_at;
      k->then = ZKC__RK_PARENT;
      k->st = ZKC__RK_BACKOFF;
      return ZKC__RK_AGAIN;
    }
  }
  k->st = ZKC__RK_IDLE;
  *rc = r;
  return ZKC__RK_FAIL;
}

int zkc__rk_advance(zkc__rk_t *k, int *rc) {
  switch (k->st) {
    case ZKC__RK_BACKOFF:
      if (k->world->now_ms() < k->wake_at) return ZKC__QN_TIME;
      k->st = ZKC__RK_CONNECT;
      return ZKC__RK_AGAIN;
    case ZKC__RK_CONNECT:
      if (k->world->session_live(k->c)) {
        k->st = k->then;
        k->then = ZKC__RK_IDLE;
        return k->st == ZKC__RK_IDLE ? ZKC__RK_BACK : ZKC__RK_AGAIN;
      }
      *rc = k->world->closed(k->c)                  ? ZKC_ECLOSED
            : k->world->now_ms() >= k->deadline     ? ZKC_ETIMEDOUT
                                                    : ZKC_OK;
      if (*rc == ZKC_OK) return ZKC__QN_SESSION;
      k->st = ZKC__RK_IDLE;
      return ZKC__RK_FAIL;
    case ZKC__RK_PARENT:
      if ((*rc = send_parent(k)) == ZKC_OK) return ZKC__RK_AGAIN;
      k->st = ZKC__RK_IDLE;
      return ZKC__RK_FAIL;
    case ZKC__RK_PARENTING:
      if (!zkc__op_done(k->op)) return ZKC__QN_REPLY;
      return parent_made(k, rc);
    default:
      return ZKC__RK_BACK;
  }
}

int zkc__rk_ops(zkc__rk_t *k, zkc__op_t **ops) {
  if (k->st != ZKC__RK_PARENTING || k->op == NULL) return 0;
  ops[0] = k->op;
  return 1;
}

int zkc__rk_answered(const zkc__rk_t *k) {
  return k->st == ZKC__RK_PARENTING;
}

void zkc__rk_leave(zkc__rk_t *k) {
  zkc__rk_op_drop(k, &k->op);
  k->st = ZKC__RK_IDLE;
  k->then = ZKC__RK_IDLE;
}

/* ---- deciding ---- */

zkc__rk_grant_t zkc__rk_proven(const zkc__rk_t *k, zkc_client_t *c,
                               int64_t session, int64_t proof) {
  switch (k->world->session_fate(c, session)) {
    case ZKC__SESSION_LIVE:
      return k->world->grant_fresh(c, proof) ? ZKC__RK_GRANTED
                                             : ZKC__RK_STALE;
    case ZKC__SESSION_GONE: return ZKC__RK_GONE;
    default: return ZKC__RK_NOT_LIVE;
  }
}

zkc__rk_grant_t zkc__rk_grant(zkc__rk_t *k, int64_t session, int64_t proof) {
  zkc__rk_grant_t g = zkc__rk_proven(k, k->c, session, proof);
  if (g == ZKC__RK_GRANTED && k->world->granted) k->world->granted(k->c);
  return g;
}

int zkc__rk_woken_rc(zkc__wake_t why) {
  switch (why) {
    case ZKC__WAKE_FIRED: return ZKC_OK;
    case ZKC__WAKE_TIMEOUT: return ZKC_ETIMEDOUT;
    case ZKC__WAKE_CLOSED: return ZKC_ECLOSED;
    default: return ZKC_ELOST;
  }
}

int zkc__rk_end_rc(int rc) {
  return rc == ZKC_ESESSIONEXPIRED ? ZKC_ELOST : rc;
}

int zkc__rk_layout(zkc_client_t *c, zkc__recipe_layout_t as, const char *who,
                   const char *path, const zkc__names_t *kids,
                   unsigned *layouts) {
  unsigned mask = 0;
  for (int i = 0; i < kids->count; i++)
    mask |= zkc__child_layout(kids->data[i], -1);
  if (layouts) *layouts = mask;
  unsigned bad = zkc__layout_refused(as, mask);
  if (bad == 0) return ZKC_OK;
  return zkc__refuse(c, ZKC_ELAYOUT,
                     "%s: path '%.300s' holds %s, not %s: refused (nothing "
                     "of ours left there)",
                     who, path, zkc__layout_what(bad), zkc__layout_as_what(as));
}

void zkc__rk_janitor_uuid(zkc__rk_t *k, const char *base, const char *prefix) {
  char uuid[ZKC__UUID_LEN + 1];
  zkc__qown_uuid(base, prefix, NULL, uuid);
  k->world->janitor_add(k->c, base, uuid);
}

/* ---- the step loop ---- */

zkc__qneed_t zkc__rk_loop(int (*advance)(void *run), void *run) {
  int need;
  while ((need = advance(run)) == ZKC__RK_AGAIN) {
  }
  return (zkc__qneed_t)need;
}
