/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's lease run (lease_run.h): the "leases fit" policy of the
 * queue engine's machine. Its round creates the lease nodes with every
 * read the admission rests on pipelined behind them; their answers are
 * decided with zkc__leases_decide. The states, the grant on a fresh proof
 * of a live session, the place's stat before a wait, the count node's
 * create and the endings are the machine's (qengine.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lease_run.h"

#include "decide.h"
#include "kernel_door.h" /* its ops whole */
#include "names.h"
#include "qown.h"
#include "util.h"

#define LEASE_NAME "lease-"

enum { R_SYNC, R_LEASES, R_COUNT, R_LAYOUT };

/* ---- requests ---- */

static void send(zkc__lrun_t *l, zkc__op_t *op, zkc__req_kind_t kind,
                 const char *path) {
  zkc__req_t rq = {.kind = kind, .path = path, .watch = l->q.w.id};
  l->q.k.world->send(l->q.k.c, op, &rq);
}

static int lease_ops(void *ctx, zkc__op_t **ops) {
  zkc__lrun_t *l = ctx;
  int n = 0;
  for (unsigned i = 0; i < l->how.qty; i++)
    if (l->creates[i]) ops[n++] = l->creates[i];
  for (int i = 0; i < ZKC__LRUN_READS; i++)
    if (l->reads[i]) ops[n++] = l->reads[i];
  return n;
}

static int lease_pending(void *ctx) {
  zkc__lrun_t *l = ctx;
  for (unsigned i = 0; i < l->how.qty; i++)
    if (l->creates[i] && !zkc__op_done(l->creates[i])) return 1;
  for (int i = 0; i < ZKC__LRUN_READS; i++)
    if (l->reads[i] && !zkc__op_done(l->reads[i])) return 1;
  return 0;
}

/* The run ends: the round dropped (a create cut off is the machine's to
 * hand to the janitor by our uuid: r->maybe_made), and the waiter leaves,
 * its watches removed unless the client is closing (nobody waits on them
 * any more, granted or not). */
static void lease_drop(void *ctx, zkc__qrun_t *r) {
  zkc__lrun_t *l = ctx;
  for (unsigned i = 0; i < l->how.qty; i++)
    zkc__rk_op_drop(&r->k, &l->creates[i]);
  for (int i = 0; i < ZKC__LRUN_READS; i++)
    zkc__rk_op_drop(&r->k, &l->reads[i]);
  if (!r->w_reg) return;
  if (!r->k.world->closed(r->k.c))
    r->k.world->waiter_unwatch_children(r->k.c, &r->w);
  r->k.world->waiter_unregister(r->k.c, &r->w);
  r->w_reg = 0;
}

/* ---- the round: creates and reads ---- */

/* 1 when the leases the queue's read showed, with ours and those this
 * object holds, fit a fixed limit. Only leases released can change that
 * count before our creates (admissions go through the queue, whose head we
 * are), so the queue node may go with our first round. A shared count may
 * change the limit meanwhile: then we keep our place. */
static int room_seen(const zkc__lrun_t *l) {
  if (l->how.queue_node == NULL || l->how.seen < 0 || l->how.count != NULL)
    return 0;
  size_t held = l->how.held ? l->how.held(l->how.held_ctx) : 0;
  return zkc__leases_decide((size_t)l->how.seen + l->how.qty, l->how.qty,
                            l->how.qty, held, l->how.max) == ZKC__L_FIT;
}

/* The creates still to make, or else a sync through the leader (a
 * follower cut off from it answers reads from a frozen state; it cannot
 * answer the sync and holds the reads behind it; the leader serves it as a
 * read, see ZKC__REQ_SYNC); then the leases, the
 * count, and the path's layout until it was accepted once (read after our
 * creates, so that of two recipes begun on the path at once, one sees the
 * other). The leases and the count are watched only once they did not fit:
 * a lease granted on the first read leaves no watch to remove (one request
 * fewer per lease), and one that must wait reads again, watched, before it
 * waits. */
static int lease_round(void *ctx, zkc__qrun_t *r) {
  zkc__lrun_t *l = ctx;
  int rc = r->prefix ? ZKC_OK
                     : zkc__qown_new_prefix(r->base, r->name, &r->prefix);
  if (rc == ZKC_OK && l->watching && !r->w_reg) {
    rc = r->k.world->waiter_register(r->k.c, &r->w, l->how.leases,
                                     r->k.drv ? r->k.drv->wake : NULL,
                                     r->k.drv_ctx);
    if (rc == ZKC_OK) {
      r->w_reg = 1;
      if (l->how.count) r->k.world->waiter_also(r->k.c, &r->w, l->how.count);
    }
  } else if (rc == ZKC_OK && l->watching) {
    r->k.world->waiter_rearm(r->k.c, &r->w);
  }
  for (unsigned i = 0; rc == ZKC_OK && i < l->how.qty; i++)
    if (l->nodes[i].node == NULL &&
        (l->creates[i] = zkc__rk_op_new(&r->k)) == NULL)
      rc = ZKC_ENOMEM;
  int creating = 0;
  for (unsigned i = 0; i < l->how.qty; i++) creating |= l->nodes[i].node == NULL;
  /* Reads behind our creates need no sync: a create goes through the
   * leader, which checked our session after r->proof, and the server
   * answers the reads behind it only once it is applied. */
  int want[ZKC__LRUN_READS] = {!creating, 1, l->how.count != NULL,
                               !l->layout_ok};
  for (int i = 0; rc == ZKC_OK && i < ZKC__LRUN_READS; i++)
    if (want[i] && (l->reads[i] = zkc__rk_op_new(&r->k)) == NULL)
      rc = ZKC_ENOMEM;
  if (rc != ZKC_OK) {
    for (unsigned i = 0; i < l->how.qty; i++) zkc__rk_op_end(&l->creates[i]);
    return rc; /* nothing sent: the reads made go with the run's end */
  }
  r->proof = r->k.world->boot_ms();
  /* The first round after a read that showed room lets the queue node go
   * with its last create, in one transaction. */
  l->releasing = !l->sent && room_seen(l);
  for (unsigned i = 0; i < l->how.qty; i++)
    if (l->creates[i]) {
      zkc__req_t rq = {.kind = ZKC__REQ_CREATE, .path = r->prefix,
                        .data = r->data};
      if (l->releasing && i == l->how.qty - 1) rq.release = l->how.queue_node;
      r->k.world->send(r->k.c, l->creates[i], &rq);
    }
  r->maybe_made = creating; /* until their answers say */
  if (l->reads[R_SYNC])
    send(l, l->reads[R_SYNC], ZKC__REQ_SYNC, l->how.leases);
  send(l, l->reads[R_LEASES],
       l->watching ? ZKC__REQ_CHILDREN_WATCH : ZKC__REQ_CHILDREN,
       l->how.leases);
  if (l->reads[R_COUNT])
    send(l, l->reads[R_COUNT], l->watching ? ZKC__REQ_GET_WATCH : ZKC__REQ_GET,
         l->how.count);
  if (l->reads[R_LAYOUT])
    send(l, l->reads[R_LAYOUT], ZKC__REQ_CHILDREN, l->how.path);
  l->sent = 1;
  return creating;
}

/* The creates' answers: the reads behind them next, or the run ends, or
 * leases/ is made first. */
static zkc__qp_verdict_t lease_created(void *ctx, zkc__qrun_t *r, int *rc) {
  zkc__lrun_t *l = ctx;
  int cut = 0, missing = 0, refused = ZKC_OK, foreign = 0;
  for (unsigned i = 0; i < l->how.qty; i++) {
    zkc__op_t *op = l->creates[i];
    if (op == NULL) continue;
    if (op->rc == ZKC_OK) {
      if (l->releasing && i == l->how.qty - 1) l->left = 1;
      l->nodes[i].node = op->created, op->created = NULL;
      l->nodes[i].token = op->stat.czxid;
      l->nodes[i].session_id = op->stat.ephemeral_owner;
      if (op->stat.ephemeral_owner != r->k.world->session_id(r->k.c))
        foreign = 1;
    } else if (op->rc == ZKC_ENONODE) {
      missing = 1;
    } else if (zkc__retryable(op->rc)) {
      cut = 1;
    } else if (refused == ZKC_OK) {
      refused = op->rc;
    }
    zkc__rk_op_end(&l->creates[i]);
  }
  l->releasing = 0;
  r->maybe_made = cut; /* perhaps made: the janitor finds it by our uuid */
  if (l->nodes[0].node) r->owner = l->nodes[0].session_id; /* the grant's */
  *rc = cut || foreign ? ZKC_ELOST : refused; /* queue again, or refused */
  if (cut || refused != ZKC_OK || foreign) return ZKC__QP_END;
  if (!missing) return ZKC__QP_ON;
  for (int i = 0; i < ZKC__LRUN_READS; i++) zkc__rk_op_end(&l->reads[i]);
  l->layout_ok = 0; /* made again: read the layout behind our creates */
  return ZKC__QP_PARENTS;
}

/* How many of our nodes are among the children read. */
static size_t present(const zkc__lrun_t *l, const zkc__names_t *kids) {
  size_t found = 0;
  for (unsigned i = 0; i < l->how.qty; i++) {
    if (l->nodes[i].node == NULL) continue;
    const char *name = zkc__basename(l->nodes[i].node);
    for (int k = 0; k < kids->count; k++)
      if (strcmp(kids->data[k], name) == 0) {
        found++;
        break;
      }
  }
  return found;
}

/* The leases that count against ours once our queue node went with our
 * creates: those made before our last one. The next head may make its
 * lease between our creates and our read; it counts ours (all of them, or
 * those before its own), not we its: a set of granted leases is then never
 * more than the count its highest-sequenced one read. Sequences are the
 * order of the creates only within a stretch of the counter: a name
 * without one, a negative one (the counter wrapped past 2^31) or one far
 * above ours (a lease older than a whole wrap) counts, as before. */
#define LEASE_SEQ_NEAR ((int64_t)1 << 30)
static size_t leases_before_ours(const zkc__lrun_t *l,
                                 const zkc__names_t *kids) {
  int64_t last = -1, seq;
  for (unsigned i = 0; i < l->how.qty; i++) {
    if (l->nodes[i].node == NULL ||
        !zkc__node_sequence(zkc__basename(l->nodes[i].node), &seq) || seq < 0)
      return (size_t)kids->count;
    if (seq > last) last = seq;
  }
  size_t n = 0;
  for (int k = 0; k < kids->count; k++)
    if (!zkc__node_sequence(kids->data[k], &seq) || seq < 0 || seq <= last ||
        seq - last > LEASE_SEQ_NEAR)
      n++;
  return n;
}

static zkc__qp_verdict_t decide(zkc__lrun_t *l, zkc__qrun_t *r,
                                const zkc__names_t *kids, int32_t max,
                                int *rc) {
  size_t leases = l->left ? leases_before_ours(l, kids) : (size_t)kids->count;
  size_t held = l->how.held ? l->how.held(l->how.held_ctx) : 0;
  zkc__l_verdict_t v =
      zkc__leases_decide(leases, present(l, kids), l->how.qty, held, max);
  *rc = ZKC_ELOST; /* the session went, or an outsider deleted one */
  if (v == ZKC__L_GONE) return ZKC__QP_END;
  if (!l->warned && l->how.count == NULL && leases >= l->how.qty &&
      leases - l->how.qty > (size_t)max) {
    l->warned = 1; /* only a disagreeing client (or a stranger) puts them */
    zkc__log(r->k.c, ZKC_LOG_WARN,
             "semaphore %s: %zu leases held by others, more than this "
             "client's limit of %d: another client uses a higher limit (a "
             "shared count node makes them agree)",
             l->how.path, leases - l->how.qty, (int)max);
  }
  if (v == ZKC__L_DEADLOCK) *rc = ZKC_EDEADLK;
  else if (v == ZKC__L_FIT) return ZKC__QP_GRANT;
  else if (r->k.world->now_ms() >= r->k.deadline) *rc = ZKC_ETIMEDOUT;
  else if (l->left) /* let go early, on a read that showed room */
    zkc__log(r->k.c, ZKC_LOG_DEBUG, "semaphore %s: the leases do not fit "
             "after all, and our queue node is gone: queueing again",
             l->how.path);
  else if (!l->watching) {
    l->watching = 1; /* read again, watched, before a wait */
    return ZKC__QP_RELIST;
  } else if (l->how.queue_session == r->owner) {
    return ZKC__QP_WAIT; /* our queue node, stated first */
  }
  /* Else a queue node of another session than our leases' cannot keep us
   * head: queue again. */
  return ZKC__QP_END;
}

/* The reads' answers (the creates taken): the layout, the count, then the
 * leases decided. */
static zkc__qp_verdict_t lease_listed(void *ctx, zkc__qrun_t *r, int *out) {
  zkc__lrun_t *l = ctx;
  zkc__op_t **rd = l->reads;
  int rc = rd[R_SYNC] ? rd[R_SYNC]->rc : ZKC_OK;
  if (rc == ZKC_ENONODE) rc = ZKC_OK; /* the leases read says so too */
  if (rc == ZKC_OK) rc = rd[R_LEASES]->rc;
  /* leases/ itself deleted under us (our nodes with it): queue again. */
  if (rc == ZKC_ENONODE) rc = ZKC_ELOST;
  int crc = rd[R_COUNT] ? rd[R_COUNT]->rc : ZKC_OK;
  int lrc = rd[R_LAYOUT] ? rd[R_LAYOUT]->rc : ZKC_OK;
  if (lrc == ZKC_ENONODE) lrc = ZKC_OK; /* nothing there: nobody else */
  if (lrc == ZKC_OK && rd[R_LAYOUT]) {
    lrc = zkc__rk_layout(r->k.c, ZKC__AS_SEMAPHORE, ZKC__LRUN_WHO,
                         l->how.path, &rd[R_LAYOUT]->children, NULL);
    l->layout_ok = lrc == ZKC_OK;
  }
  zkc__rk_op_end(&rd[R_LAYOUT]);
  zkc__rk_op_end(&rd[R_SYNC]);
  if (lrc != ZKC_OK && !zkc__retryable(lrc)) rc = lrc;
  else if (rc == ZKC_OK && lrc != ZKC_OK) rc = lrc;
  int32_t max = l->how.max;
  if (rc == ZKC_OK && rd[R_COUNT]) {
    if (crc == ZKC_OK)
      crc = zkc__sem_count_decode(rd[R_COUNT]->data, rd[R_COUNT]->data_len,
                                  &max);
    if (crc == ZKC_EPROTO)
      zkc__log(r->k.c, ZKC_LOG_ERROR, "count node %s holds %d bytes, not 4",
               l->how.count, rd[R_COUNT]->data_len);
    rc = crc;
  }
  zkc__rk_op_end(&rd[R_COUNT]);
  zkc__qp_verdict_t v;
  *out = rc;
  if (rc == ZKC_OK) {
    r->k.retries = 0; /* the budget is per outage */
    v = decide(l, r, &rd[R_LEASES]->children, max, out);
  } else if (rc == ZKC_ENONODE && crc == ZKC_ENONODE) {
    v = ZKC__QP_PREREQ; /* first use of the count: made with the seed */
  } else {
    v = zkc__retryable(rc) ? ZKC__QP_RETRY : ZKC__QP_END;
  }
  zkc__rk_op_end(&rd[R_LEASES]);
  return v;
}

/* Our place while we wait: the queue node at the head of locks/. */
static const char *lease_place(void *ctx) {
  return ((zkc__lrun_t *)ctx)->how.queue_node;
}

/* The count node, made with the seed; its parent made first if missing. */
static const char *lease_prereq(void *ctx, zkc__req_t *rq) {
  zkc__lrun_t *l = ctx;
  zkc__sem_count_encode(l->how.max, l->count_data);
  *rq = (zkc__req_t){.kind = ZKC__REQ_COUNT, .path = l->how.count,
                     .data = l->count_data, .len = ZKC__COUNT_BYTES};
  if (l->count_parent == NULL) l->count_parent = zkc__path_parent(l->how.count);
  return l->count_parent;
}

static const zkc__qpolicy_t leases_fit = {
    .what = "semaphore", .round = lease_round, .ops = lease_ops,
    .pending = lease_pending, .created = lease_created,
    .listed = lease_listed, .place = lease_place, .prereq = lease_prereq,
    .drop = lease_drop};

/* ---- the run ---- */

int zkc__lrun_init(zkc__lrun_t *r, zkc_client_t *c,
                   const zkc__lrun_how_t *how) {
  memset(r, 0, sizeof *r);
  r->how = *how;
  zkc__qrun_how_t q = {.base = how->leases, .name = LEASE_NAME,
                       .deadline = how->deadline, .pol = &leases_fit,
                       .pol_ctx = r, .drv = how->drv, .drv_ctx = how->drv_ctx,
                       .world = how->world};
  zkc__qrun_init(&r->q, c, &q);
  r->layout_ok = how->layout_known;
  r->nodes = calloc(how->qty ? how->qty : 1, sizeof *r->nodes);
  r->creates = calloc(how->qty ? how->qty : 1, sizeof *r->creates);
  if (r->nodes == NULL || r->creates == NULL) {
    free(r->nodes);
    free(r->creates);
    r->nodes = NULL;
    r->creates = NULL;
    r->q.rc = ZKC_ENOMEM; /* done before its first step: nothing sent */
    r->q.st = Q_DONE;
    return ZKC_ENOMEM;
  }
  return ZKC_OK;
}

int zkc__lrun_ops_max(const zkc__lrun_t *r) {
  return (int)r->how.qty + ZKC__LRUN_READS;
}

void zkc__lrun_give_up(zkc__lrun_t *r) {
  if (r->q.st != Q_DONE) zkc__qrun_give_up(&r->q);
}

int zkc__lrun_result(const zkc__lrun_t *r) {
  return r->q.st == Q_DONE ? r->q.rc : ZKC_EBUSY;
}

zkc__held_t *zkc__lrun_take_nodes(zkc__lrun_t *r) {
  zkc__held_t *n = r->nodes;
  r->nodes = NULL;
  return n;
}

int zkc__lrun_let_go(const zkc__lrun_t *r) { return r->left; }

void zkc__lrun_clear(zkc__lrun_t *r) {
  zkc__qrun_clear(&r->q); /* a run not done ends: ZKC_ECANCELED */
  if (r->nodes) { /* not taken: nobody deletes them but the janitor */
    for (unsigned i = 0; i < r->how.qty; i++)
      if (r->nodes[i].node) {
        r->q.k.world->janitor_add(r->q.k.c, r->nodes[i].node, NULL);
        free(r->nodes[i].node);
      }
    free(r->nodes);
    r->nodes = NULL;
  }
  free(r->creates);
  free(r->count_parent);
  r->creates = NULL;
  r->count_parent = NULL;
}
