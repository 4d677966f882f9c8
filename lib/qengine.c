/* SPDX-License-Identifier: Apache-2.0 */
/* The queue engine: the lock-queue protocol once, as a state machine that
 * never blocks (see qengine.h), whose requests, facts and waits all go
 * through its world (qworld.h). Create a protected ephemeral-sequential
 * node with the children read pipelined behind it, wait on the blocker
 * only (decide.c), grant only on a fresh proof, retry by the client's
 * policy, and never leave a node behind on failure. Here: the machine's
 * states, its step loop, its calls and its endings; the round a waiter
 * sends behind its blocker, and what its answers say, is qround.c's. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qengine.h"

#include "decide.h"
#include "kernel_door.h" /* its ops whole */
#include "names.h"
#include "qown.h"
#include "qround.h"
#include "test_hooks.h"
#include "util.h"

/* The run's bit-fields hold these. */
_Static_assert(Q_DONE < 16, "a state fits in zkc__qrun_t.st");
_Static_assert(ZKC__AS_RWLOCK < 8, "a layout fits in zkc__qrun_t.layout");

void (*zkc__vouch_seam)(void);

/* advance's "step again now" (never returned to drivers). */
#define AGAIN ZKC__RK_AGAIN

/* ---- requests ---- */

/* A request of `kind` on path (no data) through the run's world. */
static void send_rq(zkc__qrun_t *r, zkc__op_t *op, zkc__req_kind_t kind,
                    const char *path) {
  zkc__req_t rq = {.kind = kind, .path = path};
  r->k.world->send(r->k.c, op, &rq);
}

/* The run's uuid (qown.h): its prefix's, or its node's once made. */
static void own_uuid(const zkc__qrun_t *r, char out[ZKC__UUID_LEN + 1]) {
  zkc__qown_uuid(r->base, r->prefix, r->node, out);
}

/* Another node with our uuid (qown.h): the janitor deletes it. */
static void stray(void *ctx, const char *name) {
  zkc__qrun_t *r = ctx;
  char *path = zkc__path_join(r->base, name);
  if (path == NULL) return; /* no memory: it goes with its session */
  zkc__log(r->k.c, ZKC_LOG_INFO,
           "lock %s: %s carries our uuid too: deleting it",
           r->base, path);
  r->k.world->janitor_add(r->k.c, path, NULL);
  free(path);
}

/* The policy's round is in flight (its requests are its own). */
static int pol_round_out(const zkc__qrun_t *r) {
  return r->pol && (r->st == Q_CREATING || r->st == Q_LISTING);
}

int zkc__qrun_ops(zkc__qrun_t *r, zkc__op_t **ops) {
  int n = 0;
  if (zkc__rk_busy(&r->k)) return zkc__rk_ops(&r->k, ops); /* a walk's */
  if (pol_round_out(r)) return r->pol->ops(r->pol_ctx, ops);
  switch (r->st) {
    case Q_CREATING: /* the create, and the read pipelined behind it */
      if (r->list) ops[n++] = r->list;
      ops[n++] = r->op;
      break;
    case Q_LISTING: /* the sync, the read, then the read of `also` */
      if (r->watch) ops[n++] = r->watch;
      ops[n++] = r->list;
      if (r->op) ops[n++] = r->op;
      break;
    case Q_WATCHING: /* sent: the sync, our own node's watch or, after
                      * the blocker's, learn-ahead's; a guarded round's
                      * children read last */
      if (r->kids) ops[n++] = r->kids;
      if (r->op && r->ahead) ops[n++] = r->op;
      ops[n++] = r->watch;
      if (r->op && !r->ahead) ops[n++] = r->op;
      if (r->list) ops[n++] = r->list;
      break;
    case Q_CONFIRMING: /* the sync, our stat, a vouched run's own node's */
      if (r->watch) ops[n++] = r->watch;
      ops[n++] = r->op;
      if (r->list) ops[n++] = r->list; /* a policy's place: no sync */
      break;
    case Q_SEARCHING: /* the sync, then the read behind it */
      ops[n++] = r->op;
      ops[n++] = r->list;
      break;
    case Q_ADOPTING: case Q_REMOVING: case Q_PREREQING:
      ops[n++] = r->op;
      break;
    default: break;
  }
  return n;
}

static int awaiting(zkc__qrun_t *r) {
  if (!zkc__rk_busy(&r->k) && pol_round_out(r))
    return r->pol->pending(r->pol_ctx);
  zkc__op_t *ops[ZKC__QRUN_OPS_MAX];
  int n = zkc__qrun_ops(r, ops);
  for (int i = 0; i < n; i++)
    if (!zkc__op_done(ops[i])) return 1;
  return 0;
}

/* Starts a children read of base (the previous one dropped). With
 * via_leader a sync goes first (in r->op): a read that a grant may rest on
 * must show the ensemble's state (on a follower; the leader's own is a
 * committed prefix, see ZKC__REQ_SYNC), and a follower cut off from the
 * leader answers reads from its frozen state (our node first, after the
 * leader expired our session and granted another) until its own link times
 * out.
 * It cannot answer the sync, and holds the read behind it. The read
 * pipelined behind our create needs none: the create went through the
 * leader, which checked our session, after r->proof. */
static int submit_list(zkc__qrun_t *r, int via_leader, int with_also) {
  if (r->unproven) via_leader = 0;
  zkc__rk_op_drop(&r->k, &r->list);
  if (via_leader) /* else: the create, in flight */
    zkc__rk_op_drop(&r->k, &r->op);
  if ((r->list = zkc__rk_op_new(&r->k)) == NULL) return ZKC_ENOMEM;
  if (via_leader && (r->op = zkc__rk_op_new(&r->k)) == NULL) {
    zkc__rk_op_drop(&r->k, &r->list);
    return ZKC_ENOMEM;
  }
  r->proof = r->k.world->boot_ms();
  if (via_leader) send_rq(r, r->op, ZKC__REQ_SYNC, r->base);
  send_rq(r, r->list, ZKC__REQ_CHILDREN, r->base);
  /* `also` behind it: a hint only, so a read without memory goes unsent. */
  zkc__rk_op_drop(&r->k, &r->watch);
  if (with_also && r->also && (r->watch = zkc__rk_op_new(&r->k)) != NULL)
    send_rq(r, r->watch, ZKC__REQ_CHILDREN, r->also);
  return ZKC_OK;
}

/* ---- the end: the result, and our node's delete on failure ---- */

static void finish(zkc__qrun_t *r, int rc);
static void confirm(zkc__qrun_t *r);
static void grant(zkc__qrun_t *r);
static void pol_round(zkc__qrun_t *r);

static void done(zkc__qrun_t *r, int rc) {
  r->rc = rc;
  r->st = Q_DONE;
}

/* The delete's answer is in (del, as zkc__delete_answered says): the
 * result, or the queue again at the back for a node lost while waiting. */
static void after_remove(zkc__qrun_t *r, int del) {
  int rc = r->rc;
  if (del == ZKC_ELOST) del = ZKC_OK; /* gone is what we wanted */
  /* A node that cannot be deleted stays in the queue, and will block it
   * once first: that refusal is the caller's news, not the failure. */
  if (del != ZKC_OK && rc != ZKC_ELOST && rc != ZKC_ECANCELED) rc = del;
  free(r->node);
  r->node = NULL;
  if (rc == ZKC_ELOST && r->requeue) {
    zkc__log(r->k.c, ZKC_LOG_INFO, "lock %s: node lost while waiting, queueing "
                                 "again", r->base);
    free(r->prefix);
    r->prefix = NULL; /* a new uuid: the old one may still name a node */
    r->k.retries = 0;
    r->k.parents = 0;
    zkc__rk_connect(&r->k);
    r->st = Q_CREATE;
    return;
  }
  done(r, rc);
}

/* Deletes our node now, or hands the delete to the janitor when the
 * connection is in trouble: whichever session is current then deletes it.
 * Nothing to do when the client is closing (the node goes with it). */
static void start_remove(zkc__qrun_t *r) {
  /* A listing stopped once answered still has its sync here. */
  zkc__rk_op_drop(&r->k, &r->op);
  if (r->k.world->closed(r->k.c)) {
    after_remove(r, ZKC_OK);
    return;
  }
  if (r->k.world->session_live(r->k.c) &&
      (r->op = zkc__rk_op_new(&r->k)) != NULL) {
    send_rq(r, r->op, ZKC__REQ_DELETE, r->node);
    r->st = Q_REMOVING;
    return;
  }
  r->k.world->janitor_add(r->k.c, r->node, NULL);
  after_remove(r, ZKC_OK);
}

/* The run no longer waits on base: its reference on the view goes. */
static void view_leave(zkc__qrun_t *r) {
  if (r->viewing && r->k.world->view_drop)
    r->k.world->view_drop(r->k.c, r->base, &r->viewing);
}

/* Ends with rc (nothing of ours in flight but a read being dropped). */
static void finish(zkc__qrun_t *r, int rc) {
  rc = zkc__rk_end_rc(rc); /* a session expired: our node went with it */
  zkc__rk_leave(&r->k);
  view_leave(r);
  zkc__rk_op_drop(&r->k, &r->list);
  if (r->pol) r->pol->drop(r->pol_ctx, r);
  if (rc == ZKC_OK) {
    done(r, rc); /* r->watch: the read of `also` of a granting read */
    return;
  }
  zkc__rk_op_drop(&r->k, &r->watch);
  /* A create whose outcome is unknown: the janitor finds it by our uuid. */
  if (r->maybe_made && r->node == NULL && r->prefix)
    zkc__rk_janitor_uuid(&r->k, r->base, r->prefix);
  r->maybe_made = 0;
  r->rc = rc;
  if (r->node) start_remove(r);
  else after_remove(r, ZKC_OK);
}

/* After a retryable failure: the client's retry policy, then `next`. */
static void retry(zkc__qrun_t *r, int rc, zkc__qstate_t next) {
  if ((rc = zkc__rk_retry(&r->k, rc)) != ZKC_OK) finish(r, rc);
  else r->st = next;
}

/* ---- creating our node ---- */

static void send_create(zkc__qrun_t *r) {
  int rc = r->prefix ? ZKC_OK
                     : zkc__qown_new_prefix(r->base, r->name, &r->prefix);
  if (rc == ZKC_OK && (r->op = zkc__rk_op_new(&r->k)) == NULL) rc = ZKC_ENOMEM;
  if (rc != ZKC_OK) {
    finish(r, rc);
    return;
  }
  r->proof = r->k.world->boot_ms(); /* the read pipelined behind it is later */
  zkc__req_t rq = {.kind = ZKC__REQ_CREATE, .path = r->prefix,
                    .data = r->data, .plain = r->plain};
  r->k.world->send(r->k.c, r->op, &rq);
  /* A quick run's create goes alone (r->list NULL: no memory, or quick) */
  if (!r->no_list && !r->quick) (void)submit_list(r, 0, 0);
  r->st = Q_CREATING;
}

/* Quick runs granted on their create alone (test_hooks.h). */
static atomic_uint_fast64_t quick_grants;

uint64_t zkc__quick_grants(void) { return atomic_load(&quick_grants); }

/* A quick run's node is made: first if its sequence is the one expected
 * and the base is intact (zkc__quick_t), else the queue is read now. The
 * check comes after the create's answer, so that an event on the base
 * sent before it is known. First, the grant is our node alone on the
 * quick run's base. Spent either way: a run that reads again or queues
 * again reads as any does. */
static int quick_first(zkc__qrun_t *r) {
  const zkc__quick_t *q = r->quick;
  r->quick = NULL;
  int64_t seq;
  if (q == NULL || r->node == NULL || !zkc__node_sequence(r->node, &seq) ||
      seq != q->seq || !q->intact(q->ctx))
    return 0;
  r->alone = 1;
  r->base_czxid = q->base_czxid;
  return 1;
}

/* Our node exists: only a node of the current session is ours to wait
 * with (a double-holder guard: one made by a session replaced meanwhile
 * goes with that session). */
static void made(zkc__qrun_t *r) {
  r->maybe_made = 0;
  free(r->prefix); /* the node's name has the uuid now */
  r->prefix = NULL;
  if (r->owner != r->k.world->session_id(r->k.c)) finish(r, ZKC_ELOST);
  else if (r->vouch) confirm(r);
  else if (r->no_list) finish(r, ZKC_OK);
  else if (quick_first(r)) {
    grant(r); /* r->proof: before the create, which went through the leader */
    if (r->st == Q_DONE && r->rc == ZKC_OK) atomic_fetch_add(&quick_grants, 1);
  } else if (r->list == NULL && submit_list(r, 1, 0) != ZKC_OK)
    finish(r, ZKC_ENOMEM);
  else r->st = Q_LISTING;
}

static void created(zkc__qrun_t *r) {
  int rc = r->op->rc;
  r->token = r->op->stat.czxid;
  r->owner = r->op->stat.ephemeral_owner;
  r->node = r->op->created, r->op->created = NULL;
  zkc__rk_op_end(&r->op);
  if (rc == ZKC_OK && !r->no_list && !r->quick && r->list == NULL)
    rc = ZKC_ENOMEM; /* the read behind it unsent */
  if (rc == ZKC_OK) {
    made(r);
    return;
  }
  zkc__rk_op_drop(&r->k, &r->list);
  zkc__rk_op_drop(&r->k, &r->watch); /* the read of `also` behind it */
  if (r->node || rc == ZKC_ENOMEM) { /* made, or perhaps: cannot go on */
    r->maybe_made = 1;
    finish(r, rc);
    return;
  }
  if (rc == ZKC_ENONODE &&
      zkc__rk_parents(&r->k, r->base) == ZKC_OK) {
    /* A missing parent (first use, a reaped container, a delete by someone
     * else): made in a few round trips of the run's own, rare. */
    r->st = Q_CREATE;
    return;
  }
  if (rc == ZKC_ENODEEXISTS && r->plain) {
    /* A node named exactly ours: made by an earlier create of this run,
     * cut off, that a search did not see yet. Found by its uuid. */
    r->maybe_made = 1;
    r->st = Q_SEARCH;
    return;
  }
  if (!zkc__retryable(rc)) { /* refused: nothing was created */
    finish(r, rc);
    return;
  }
  /* Cut off: the create may have been applied. Look for it by our uuid
   * before creating again, so as to keep our place in the queue. */
  r->maybe_made = 1;
  retry(r, rc, Q_SEARCH);
}

/* The search for our uuid: a sync through the leader (r->list) and the
 * base's children read behind it (r->op), so that a follower shows every
 * create committed before the sync: one that has not applied ours yet
 * would show none, and a second node with our uuid would be made behind
 * the first. On the leader a sync is served as a read, but the read still
 * waits behind this session's own writes in flight there (forwarded ones
 * too), and a create still on its way from the old server is refused
 * there as a moved session's. A second node that shows anyway is found by
 * our uuid in the next read (stray). */
static void search(zkc__qrun_t *r) {
  if ((r->list = zkc__rk_op_new(&r->k)) == NULL ||
      (r->op = zkc__rk_op_new(&r->k)) == NULL) {
    zkc__rk_op_drop(&r->k, &r->list);
    finish(r, ZKC_ENOMEM);
    return;
  }
  send_rq(r, r->list, ZKC__REQ_SYNC, r->base);
  send_rq(r, r->op, ZKC__REQ_CHILDREN, r->base);
  r->st = Q_SEARCHING;
}

/* Both answers: r->found the oldest node carrying our uuid (qown.c), or
 * the sync's or the read's error. */
static void searched(zkc__qrun_t *r) {
  int rc = r->list->rc;
  zkc__rk_op_end(&r->list);
  if (rc == ZKC_OK) rc = r->op->rc;
  if (rc == ZKC_ENONODE) rc = ZKC_OK; /* no parent: no node either */
  if (rc == ZKC_OK) {
    char uuid[ZKC__UUID_LEN + 1];
    own_uuid(r, uuid);
    rc = zkc__qown_search(r->base, r->op->children.data,
                          r->op->children.count, uuid, &r->found, stray, r);
  }
  zkc__rk_op_end(&r->op);
  if (rc == ZKC_OK && r->found) {
    if ((r->op = zkc__rk_op_new(&r->k)) == NULL) {
      finish(r, ZKC_ENOMEM);
      return;
    }
    send_rq(r, r->op, ZKC__REQ_EXISTS, r->found);
    r->st = Q_ADOPTING;
  } else if (rc == ZKC_OK) { /* never applied: create it now */
    r->maybe_made = 0;
    r->st = Q_CREATE;
  } else if (zkc__retryable(rc)) {
    retry(r, rc, Q_SEARCH);
  } else {
    finish(r, rc);
  }
}

/* A node with our uuid: adopted only if the current session owns it. One
 * of an older session is not ours to trust (CURATOR-498): it goes with
 * that session, and nobody may wait behind it longer than needed. */
static void adopted(zkc__qrun_t *r) {
  int rc = r->op->rc;
  zkc__stat_t stat = r->op->stat;
  zkc__rk_op_end(&r->op);
  if (rc == ZKC_OK && stat.ephemeral_owner == r->k.world->session_id(r->k.c)) {
    r->token = stat.czxid;
    r->owner = stat.ephemeral_owner;
    r->node = r->found, r->found = NULL;
    made(r);
    return;
  }
  if (rc == ZKC_OK) r->k.world->janitor_add(r->k.c, r->found, NULL);
  free(r->found);
  r->found = NULL;
  if (rc == ZKC_OK || rc == ZKC_ENONODE) { /* not ours: a new one */
    r->maybe_made = 0;
    rc = zkc__qown_new_prefix(r->base, r->name, &r->prefix);
    if (rc == ZKC_OK) r->st = Q_CREATE;
    else finish(r, rc);
  } else if (zkc__retryable(rc)) {
    retry(r, rc, Q_SEARCH);
  } else {
    finish(r, rc);
  }
}

/* ---- reading, deciding, waiting ---- */

static void list_now(zkc__qrun_t *r) {
  if (submit_list(r, 1, 1) != ZKC_OK) finish(r, ZKC_ENOMEM);
  else r->st = Q_LISTING;
}

/* After a round whose sync was answered (zkc__qround_end checked it) and is
 * fresh: the read needs no sync of its own. The round's sync went through
 * the leader at r->sent or later, and the read, sent after it on the same
 * session, shows the ensemble's state at the sync or later; r->sent is the
 * proof's time, as for a grant on the round's watches alone. */
static void list_on_round_sync(zkc__qrun_t *r) {
  if (submit_list(r, 0, 1) != ZKC_OK) {
    finish(r, ZKC_ENOMEM);
    return;
  }
  r->proof = r->sent;
  r->st = Q_LISTING;
}

/* After a wait: our node's session must still be the current one (a node
 * of a replaced session is not ours to hold, whatever we think). A vouched
 * run reads its voucher again instead of the queue. */
static void relist(zkc__qrun_t *r) {
  if (r->k.world->session_fate(r->k.c, r->owner) == ZKC__SESSION_GONE)
    finish(r, ZKC_ELOST);
  else if (r->pol)
    pol_round(r);
  else if (r->vouch)
    confirm(r);
  else
    list_now(r);
}

/* Granted only when the server's answers show our node first while its
 * session is the current one and connected read-write, and those answers
 * are fresh: their requests were sent less than half a session timeout ago
 * (zkc__grant_fresh), so no stall of this process can have outlived the
 * session between the server's answer and this grant. A read made while
 * connected and answered after a drop is read again once connected; an
 * answer gone stale (the process stalled, or the wait was long) is read
 * again at once: the read's own answer is then the proof. */
/* The run's recipe, in its log lines. */
static const char *what(const zkc__qrun_t *r) {
  return r->pol ? r->pol->what : "lock";
}

static void grant(zkc__qrun_t *r) {
  if (r->vouch && r->vouch->lost && r->vouch->lost(r->vouch->ctx)) {
    finish(r, ZKC_ELOST);
    return;
  }
  switch (zkc__rk_grant(&r->k, r->owner, r->proof)) {
    case ZKC__RK_GRANTED: finish(r, ZKC_OK); return;
    case ZKC__RK_STALE:
      zkc__log(r->k.c, ZKC_LOG_DEBUG, "%s %s: the answer showing %s is "
               "%lld ms old: reading again", what(r), r->base,
               r->node ? r->node : "room",
               (long long)(r->k.world->boot_ms() - r->proof));
      relist(r);
      return;
    case ZKC__RK_GONE: finish(r, ZKC_ELOST); return;
    case ZKC__RK_NOT_LIVE:
      zkc__log(r->k.c, ZKC_LOG_DEBUG, "%s %s: the answer showing %s rests "
               "on a session not live (or not proven renewed at the "
               "leader): reading again once it is", what(r), r->base,
               r->node ? r->node : "room");
      zkc__rk_connect(&r->k);
      r->st = Q_RELIST;
      return;
  }
}

/* Every node ahead of ours in the client's view of the queue is known
 * gone (the view's read showed them; a watch told each delete since). No
 * node can have joined ahead of ours since that read: sequence numbers only
 * grow while the path exists, and it does while our node does. So our
 * node's stat is the proof a read of the whole queue would give: sent
 * behind a sync through the leader, answered fresh, showing the node ours.
 * A vouched run stats its voucher too: our session's write node, which
 * nobody can be granted beside while it stands, and which stands before
 * every writer queued after it while our read node, carrying its sequence,
 * does; so our read node's stat goes with it (in r->watch), behind the
 * same sync: a read node deleted by an outsider is no hold, whatever the
 * write node shows.
 * The stat never rides on the round's sync, as list_on_round_sync's read
 * does: the deletes that cleared the view came as events, which do not
 * move the client's last seen zxid, so a server reconnected to may be
 * behind them, and behind an outsider's delete of our node before them;
 * its stat would show our node there, where its read of the queue would
 * show the blocker there too (a review found that grant). */
static void confirm(zkc__qrun_t *r) {
  zkc__rk_op_drop(&r->k, &r->list);
  zkc__rk_op_drop(&r->k, &r->op);
  zkc__rk_op_drop(&r->k, &r->watch);
  if ((r->list = zkc__rk_op_new(&r->k)) == NULL ||
      (r->op = zkc__rk_op_new(&r->k)) == NULL ||
      (r->vouch && (r->watch = zkc__rk_op_new(&r->k)) == NULL)) {
    zkc__rk_op_drop(&r->k, &r->list);
    zkc__rk_op_drop(&r->k, &r->op);
    finish(r, ZKC_ENOMEM);
    return;
  }
  r->proof = r->k.world->boot_ms();
  send_rq(r, r->list, ZKC__REQ_SYNC, r->base);
  send_rq(r, r->op, ZKC__REQ_EXISTS, r->vouch ? r->vouch->node : r->node);
  if (r->vouch) send_rq(r, r->watch, ZKC__REQ_EXISTS, r->node);
  r->st = Q_CONFIRMING;
}

/* An answered stat: ZKC_OK when it shows a node of ours, ZKC_ELOST when
 * the node is gone or another session's, else the request's failure. */
static int ours(const zkc__qrun_t *r, const zkc__op_t *stat) {
  if (stat->rc == ZKC_ENONODE) return ZKC_ELOST;
  if (stat->rc != ZKC_OK) return stat->rc;
  return stat->stat.ephemeral_owner == r->owner ? ZKC_OK : ZKC_ELOST;
}

static void confirmed(zkc__qrun_t *r) {
  int rc = r->list ? r->list->rc : ZKC_OK;
  if (rc == ZKC_OK || rc == ZKC_ENONODE) rc = ours(r, r->op);
  if (r->vouch && rc == ZKC_OK) {
    r->token = r->op->stat.czxid;
    rc = ours(r, r->watch);
  }
  zkc__rk_op_end(&r->list);
  zkc__rk_op_end(&r->op);
  zkc__rk_op_end(&r->watch);
  if (r->vouch && zkc__vouch_seam) zkc__vouch_seam();
  if (rc == ZKC_OK && r->pol) r->st = Q_WAITING; /* our place kept */
  else if (rc == ZKC_OK) grant(r);
  else if (rc == ZKC_ELOST) finish(r, ZKC_ELOST);
  else if (zkc__retryable(rc)) retry(r, rc, Q_RELIST);
  else finish(r, rc);
}

/* What the waiting round's answers or its end say (qround.c): the machine
 * goes there. */
static void round_apply(zkc__qrun_t *r, zkc__qr_verdict_t v, int rc) {
  switch (v) {
    case ZKC__QR_WAIT: r->st = Q_WAITING; break;
    case ZKC__QR_END: finish(r, rc); break;
    case ZKC__QR_RETRY: retry(r, rc, Q_RELIST); break;
    case ZKC__QR_GRANT: grant(r); break;
    case ZKC__QR_CONFIRM: confirm(r); break;
    case ZKC__QR_ON_SYNC: list_on_round_sync(r); break;
    case ZKC__QR_LIST: list_now(r); break;
  }
}

/* Q_WATCHING's answers. */
static void watched(zkc__qrun_t *r) {
  int rc = ZKC_OK;
  zkc__qr_verdict_t v = zkc__qround_watched(r, &rc);
  round_apply(r, v, rc);
}

/* Q_WAITING's wait ended (why). */
static void round_end(zkc__qrun_t *r, zkc__wake_t why) {
  int rc = ZKC_OK;
  zkc__qr_verdict_t v = zkc__qround_end(r, why, &rc);
  round_apply(r, v, rc);
}

/* ---- a policy's admission (zkc__qpolicy_t) on the same states ---- */

/* Q_CREATE, Q_RELIST: the policy's round, its creates among its requests
 * or its reads alone. */
static void pol_round(zkc__qrun_t *r) {
  int rc = r->pol->round(r->pol_ctx, r);
  if (rc == 1) r->st = Q_CREATING;
  else if (rc == 0) r->st = Q_LISTING;
  else finish(r, rc);
}

/* ZKC__QP_WAIT: the place's stat (Q_CONFIRMING's answer: kept, the wait;
 * gone or another session's, ZKC_ELOST). The policy's admission rests on
 * its own reads, not on this one: no sync before it. */
static void confirm_place(zkc__qrun_t *r) {
  if ((r->op = zkc__rk_op_new(&r->k)) == NULL) {
    finish(r, ZKC_ENOMEM);
    return;
  }
  send_rq(r, r->op, ZKC__REQ_EXISTS, r->pol->place(r->pol_ctx));
  r->st = Q_CONFIRMING;
}

static void pol_apply(zkc__qrun_t *r, zkc__qp_verdict_t v, int rc) {
  switch (v) {
    case ZKC__QP_ON: r->st = Q_LISTING; break;
    case ZKC__QP_GRANT: grant(r); break;
    case ZKC__QP_WAIT: confirm_place(r); break;
    case ZKC__QP_RELIST: r->st = Q_RELIST; break;
    case ZKC__QP_RETRY: retry(r, rc, Q_RELIST); break;
    case ZKC__QP_PREREQ: r->st = Q_PREREQ; break;
    case ZKC__QP_PARENTS: /* ZKC_ENONODE: made and reaped too often */
      if (zkc__rk_parents(&r->k, r->base) != ZKC_OK) finish(r, ZKC_ENONODE);
      else r->st = Q_CREATE;
      break;
    case ZKC__QP_END: finish(r, rc); break;
  }
}

static void pol_answered(zkc__qrun_t *r) {
  int rc = ZKC_OK;
  zkc__qp_verdict_t v = r->st == Q_CREATING
                            ? r->pol->created(r->pol_ctx, r, &rc)
                            : r->pol->listed(r->pol_ctx, r, &rc);
  pol_apply(r, v, rc);
}

/* A policy's wake-up reads again; a wait that ended otherwise ends it. */
static void pol_woken(zkc__qrun_t *r, zkc__wake_t why) {
  if (why == ZKC__WAKE_FIRED) r->st = Q_RELIST;
  else finish(r, zkc__rk_woken_rc(why));
}

/* Q_PREREQ: the node the policy needs first (ours or theirs, made once:
 * then read again); its missing parents by the kernel's walk. */
static void send_prereq(zkc__qrun_t *r) {
  zkc__req_t rq = {0};
  (void)r->pol->prereq(r->pol_ctx, &rq);
  if ((r->op = zkc__rk_op_new(&r->k)) == NULL) {
    finish(r, ZKC_ENOMEM);
    return;
  }
  r->k.world->send(r->k.c, r->op, &rq);
  r->st = Q_PREREQING;
}

static void prereq_made(zkc__qrun_t *r) {
  int rc = r->op->rc;
  zkc__rk_op_end(&r->op);
  if (rc == ZKC_OK || rc == ZKC_ENODEEXISTS) {
    r->st = Q_RELIST;
  } else if (rc == ZKC_ENONODE) {
    zkc__req_t rq = {0};
    const char *parent = r->pol->prereq(r->pol_ctx, &rq);
    rc = parent ? zkc__rk_parents(&r->k, parent) : ZKC_ENOMEM;
    if (rc == ZKC_OK) r->st = Q_PREREQ;
    else finish(r, rc); /* ZKC_ENONODE: reaped again too often */
  } else if (zkc__retryable(rc)) {
    retry(r, rc, Q_PREREQ);
  } else {
    finish(r, rc);
  }
}

/* The layout of the path as the read shows it (zkc__child_layout over
 * the children), when another recipe's: ZKC_ELAYOUT, told to the thread
 * and the log. Every read checks it, so that of two recipes started on
 * one path at once, the one whose read sees the other's nodes gives way
 * (a semaphore checks the path itself too, see sem_run.c). */
static int layout_refused(zkc__qrun_t *r) {
  if (r->layout == ZKC__AS_NONE) return ZKC_OK;
  zkc__recipe_layout_t as = (zkc__recipe_layout_t)r->layout;
  return zkc__rk_layout(r->k.c, as,
                        as == ZKC__AS_ELECTION ? "leader latch"
                        : as == ZKC__AS_RWLOCK ? "read-write lock"
                                               : "lock",
                        r->base, &r->list->children, NULL);
}

/* A read is in: first, wait, or read again. */
static void listed(zkc__qrun_t *r) {
  int rc = r->op ? r->op->rc : ZKC_OK; /* the sync before it */
  if (rc == ZKC_OK) rc = r->list->rc;
  zkc__rk_op_end(&r->op);
  zkc__op_t *also = r->watch; /* kept below only if this read grants */
  r->watch = NULL;
  if (rc != ZKC_OK) {
    zkc__rk_op_end(&r->list);
    zkc__rk_op_drop(&r->k, &also);
    retry(r, rc, Q_RELIST);
    return;
  }
  if ((rc = layout_refused(r)) != ZKC_OK) {
    zkc__rk_op_drop(&r->k, &also);
    finish(r, rc); /* drops the read, deletes our node */
    return;
  }
  r->k.retries = 0; /* the budget is per outage, not per acquisition */
  zkc__q_decision_t d;
  size_t n;
  rc = zkc__qround_decide(r, r->list->children.data,
                          (size_t)r->list->children.count, stray, r, &n, &d);
  char *pred = rc == ZKC_OK && d.verdict == ZKC__Q_WAIT
                   ? zkc__path_join(r->base, d.blocker)
                   : NULL;
  char *ahead = pred && d.ahead ? zkc__path_join(r->base, d.ahead) : NULL;
  /* First, and the base's only child: what a quick run starts from. */
  r->alone = rc == ZKC_OK && d.verdict == ZKC__Q_FIRST &&
             r->list->children.count == 1;
  r->base_czxid = r->list->stat.czxid;
  /* Not kept by the run while waiting: a copy of the whole queue per
   * waiter would make a queue of n waiters cost O(n^2) memory. The
   * client's one view of the path keeps it (qworld.h). */
  if (rc == ZKC_OK && d.verdict == ZKC__Q_WAIT && pred &&
      r->k.world->view_update)
    r->k.world->view_update(r->k.c, r->base, r->list->children.data, n,
                            &r->list->stat, &r->viewing);
  zkc__rk_op_end(&r->list);
  if (rc == ZKC_OK && d.verdict == ZKC__Q_FIRST) r->watch = also;
  else zkc__rk_op_drop(&r->k, &also);
  if (rc != ZKC_OK) finish(r, rc);
  else if (d.verdict == ZKC__Q_GONE) finish(r, ZKC_ELOST); /* session or outsider */
  else if (d.verdict == ZKC__Q_FIRST) grant(r);
  else if (pred == NULL) finish(r, ZKC_ENOMEM);
  else if (r->k.world->now_ms() >= r->k.deadline) {
    free(pred);
    free(ahead);
    finish(r, ZKC_ETIMEDOUT);
  } else if ((rc = zkc__qround_watch(r, pred, d.sole, d.guarded, ahead)) != ZKC_OK) {
    finish(r, rc);
  } else {
    r->st = Q_WATCHING;
  }
}

/* ---- the driver's side ---- */

void zkc__qrun_init(zkc__qrun_t *r, zkc_client_t *c,
                    const zkc__qrun_how_t *how) {
  memset(r, 0, sizeof *r);
  zkc__rk_init(&r->k, c, how->world ? how->world : zkc__client_world(c),
               how->drv, how->drv_ctx, how->deadline);
  r->base = how->base;
  r->name = how->name;
  r->data = how->data ? how->data : r->k.world->holder_id(c);
  r->reader = how->reader;
  r->plain = how->plain;
  r->no_list = how->no_list;
  r->vouch = how->vouch;
  r->also = how->also;
  r->unproven = how->unproven;
  r->requeue = how->requeue;
  r->layout = how->layout;
  r->pol = how->pol;
  r->pol_ctx = how->pol_ctx;
  r->quick = how->quick;
  r->st = Q_CREATE;
}

static int advance(zkc__qrun_t *r) {
  if (r->st == Q_DONE) return ZKC__QN_DONE;
  if (awaiting(r)) return ZKC__QN_REPLY; /* answers first, even to a stop */
  /* A stop waits until the answers in are taken in (a created node, a
   * found one, the round's watches), so that nothing of ours is dropped
   * unknown; those states all lead to one where it applies. */
  int answered = zkc__rk_busy(&r->k) ? zkc__rk_answered(&r->k) :
                 r->st == Q_CREATING ||
                 r->st == Q_SEARCHING || r->st == Q_ADOPTING ||
                 r->st == Q_WATCHING || r->st == Q_PREREQING;
  if (r->stop_rc != ZKC_OK && !answered && r->st != Q_REMOVING) {
    int rc = r->stop_rc;
    r->stop_rc = ZKC_OK;
    zkc__qround_leave(r, !r->k.world->closed(r->k.c));
    finish(r, rc);
    return AGAIN;
  }
  if (zkc__rk_busy(&r->k)) { /* the kernel's turn */
    int rc = ZKC_OK, need = zkc__rk_advance(&r->k, &rc);
    if (need == ZKC__RK_FAIL) finish(r, rc);
    else if (need != ZKC__RK_AGAIN && need != ZKC__RK_BACK) return need;
    return AGAIN;
  }
  switch (r->st) {
    case Q_CREATE:
      if (r->pol) pol_round(r);
      else send_create(r);
      break;
    case Q_CREATING: case Q_LISTING: /* a policy's answers are its own */
      if (r->pol) pol_answered(r);
      else if (r->st == Q_CREATING) created(r);
      else listed(r);
      break;
    case Q_SEARCH: search(r); break;
    case Q_SEARCHING: searched(r); break;
    case Q_ADOPTING: adopted(r); break;
    case Q_CONFIRMING: confirmed(r); break;
    case Q_RELIST: relist(r); break;
    case Q_PREREQ: send_prereq(r); break;
    case Q_PREREQING: prereq_made(r); break;
    case Q_WATCHING: watched(r); break;
    case Q_WAITING: return ZKC__QN_EVENT;
    case Q_REMOVING: {
      int del = r->k.world->delete_answered(r->k.c, r->node, r->op->rc);
      zkc__rk_op_end(&r->op);
      after_remove(r, del);
      break;
    }
    case Q_DONE: return ZKC__QN_DONE;
  }
  return AGAIN;
}

static int advance_run(void *r) { return advance(r); }

zkc__qneed_t zkc__qrun_step(zkc__qrun_t *r) {
  return zkc__rk_loop(advance_run, r);
}

void zkc__qrun_give_up(zkc__qrun_t *r) {
  switch (r->st) {
    case Q_CREATING: /* the node may still be made: found by its uuid */
      r->maybe_made = 1;
      break;
    case Q_ADOPTING: /* ours or an older session's: gone either way */
      r->k.world->janitor_add(r->k.c, r->found, NULL);
      free(r->found);
      r->found = NULL;
      break;
    case Q_WATCHING: /* its waiter and its paths go */
      zkc__qround_give_up(r);
      break;
    case Q_CONFIRMING: /* a vouched run's own-node stat */
      zkc__rk_op_drop(&r->k, &r->watch);
      break;
    case Q_REMOVING: /* finished in the background */
      zkc__rk_op_drop(&r->k, &r->op);
      r->k.world->janitor_add(r->k.c, r->node, NULL);
      after_remove(r, ZKC_OK);
      return;
    default: break;
  }
  zkc__rk_op_drop(&r->k, &r->op);
  zkc__rk_op_drop(&r->k, &r->list);
  finish(r, ZKC_ETIMEDOUT);
}

zkc__waiter_t *zkc__qrun_waiter(zkc__qrun_t *r) { return &r->w; }

void zkc__qrun_woken(zkc__qrun_t *r, zkc__wake_t why) {
  if (r->st != Q_WAITING) return;
  if (r->pol) pol_woken(r, why);
  else round_end(r, why);
}

int64_t zkc__qrun_wake_at(const zkc__qrun_t *r) { return r->k.wake_at; }

void zkc__qrun_stop(zkc__qrun_t *r, int rc) {
  if (r->st == Q_DONE) {
    if (r->rc == ZKC_OK) finish(r, rc); /* a grant refused: delete the node */
    return;
  }
  if (r->stop_rc == ZKC_OK) r->stop_rc = rc;
}

void zkc__qrun_doubt(zkc__qrun_t *r) {
  if (r->st != Q_DONE || r->rc != ZKC_OK) return;
  zkc__rk_connect(&r->k);
  r->st = Q_RELIST;
}

int zkc__qrun_result(zkc__qrun_t *r, zkc__held_t *out) {
  if (r->st != Q_DONE) return ZKC_EBUSY;
  if (r->rc == ZKC_OK && out) {
    out->node = r->node;
    out->token = r->token;
    out->session_id = r->owner;
    out->alone = r->alone;
    out->base_czxid = r->base_czxid;
    r->node = NULL;
  }
  return r->rc;
}

int zkc__qrun_also_seen(zkc__qrun_t *r) {
  zkc__op_t *op = r->watch;
  if (r->st != Q_DONE || r->rc != ZKC_OK || op == NULL || !zkc__op_done(op) ||
      op->rc != ZKC_OK)
    return -1;
  return op->children.count;
}

void zkc__qrun_clear(zkc__qrun_t *r) {
  /* A policy's run ends without a request (its nodes are the policy's):
   * what it had in flight is dropped, a create's uuid to the janitor. */
  if (r->pol && r->st != Q_DONE) finish(r, ZKC_ECANCELED);
  view_leave(r);
  zkc__rk_leave(&r->k); /* a parents' walk in flight */
  zkc__rk_op_drop(&r->k, &r->op);
  zkc__rk_op_drop(&r->k, &r->list);
  zkc__rk_op_drop(&r->k, &r->watch);
  zkc__rk_op_drop(&r->k, &r->kids);
  if (r->w_reg) {
    r->k.world->waiter_unregister(r->k.c, &r->w);
    r->w_reg = 0;
  }
  if (r->node) r->k.world->janitor_add(r->k.c, r->node, NULL);
  if (r->found) r->k.world->janitor_add(r->k.c, r->found, NULL);
  free(r->node);
  free(r->found);
  free(r->pred);
  free(r->ahead);
  free(r->prefix);
  r->node = r->found = r->pred = r->ahead = r->prefix = NULL;
}
