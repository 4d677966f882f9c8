/* SPDX-License-Identifier: Apache-2.0 */
/* The queue engine's waiting round (qround.h): a waiter's watches behind
 * its blocker, sent behind a sync through the leader (with the sole
 * blocker's, our own node's first; learn-ahead's on the node before it; a
 * guarded round's read of the children last), their answers, and what the
 * round's end says the machine does next (qengine.c goes there). */
#include <stdlib.h>
#include <string.h>

#include "qround.h"

#include "kernel_door.h" /* its ops whole */
#include "names.h"
#include "test_hooks.h"

void (*zkc__round_seam)(void);

/* A ZKC__REQ_WATCH on path for the round's waiter, through the run's
 * world. */
static void send_watch(zkc__qrun_t *r, zkc__op_t *op, const char *path) {
  zkc__req_t rq = {.kind = ZKC__REQ_WATCH, .path = path, .watch = r->w.id};
  r->k.world->send(r->k.c, op, &rq);
}

/* The round's blocker and learn-ahead paths, gone with its watches. */
static void round_paths_free(zkc__qrun_t *r) {
  free(r->pred);
  free(r->ahead);
  r->pred = r->ahead = NULL;
}

/* A guarded round (decide.h) watches base's children too: the read, sent
 * after the blocker's watch, must show the blocker alone ahead of us (a
 * downgrade's read node made before it shows there), and its watch's
 * event, told before the blocker's delete, leaves the waiter unclean (a
 * child made after it: the event comes in the server's order, before the
 * delete's). A child made or deleted while the blocker holds (a waiter
 * joining behind us) wakes the round, which reads and watches again, at
 * most ZKC__GUARD_WAKES rounds in a row: a long hold with many joining
 * would cost a read of the queue each (a herd of reads). After them a
 * child's event only spoils the round, whose delete reads, as a round not
 * guarded. Like learn-ahead, only where round trips are long. */
#define ZKC__GUARD_WAKES 2
_Static_assert(ZKC__GUARD_WAKES < 4, "counted in qrun_t's guard_wakes : 2");

/* One round on the blocker `pred` (taken): watch it and, with `sole`, our
 * own node first, behind a sync through the leader. The sync is what makes
 * the watches' answers a proof for a grant on the blocker's delete alone:
 * a follower cut off from the leader answers them from its frozen state
 * (our node there, our session alive) after the leader expired the
 * session, but cannot answer the sync, and holds the answers behind it.
 * Answered, they show the ensemble's state at r->sent or later. A round
 * that is not sole sends the sync too: the read after its wake-up then
 * needs none while r->sent is fresh, and the hand-off waits for one round
 * trip, not a sync's trip to the leader as well.
 * The sync is sent even while our create (a pass through the leader too)
 * is fresh: the create proves the session alive, but not that the server
 * has applied what came after it. An outsider's delete of our node after
 * the create, unseen by a lagging or cut-off follower, would let the
 * watches (ours "there", the blocker gone) or the read after them grant on
 * a node already gone, beside the next waiter; behind the sync the server
 * shows every delete before the round (a review found that grant when the
 * round rested on the create). A follower does; the leader serves its own
 * clients' sync as a read, which may come before it applies a delete it
 * has committed: a grant there is told lost when it applies it, within
 * milliseconds, as after an outsider's delete just after a grant
 * (docs/failures.md). */
/* A round that is not sole watches `ahead` (taken, or NULL) too, in op:
 * learn-ahead (not an unproven queue's, whose wake reads its `also` and
 * whose watches never grant). Its delete wakes the round as the blocker's
 * would, and the read that follows (on the round's sync while fresh) finds
 * the blocker sole, so that the next round's proof is made while the blocker still
 * holds and the blocker's delete alone grants. Without it the one next but
 * one learns it is next only from that delete, then reads: a round trip on
 * every hand-off in a queue longer than two. It grants nothing itself:
 * its delete only sends the run to read, and the read decides. */
int zkc__qround_watch(zkc__qrun_t *r, char *pred, int sole, int guarded,
                      char *ahead) {
  r->pred = pred;
  r->watch = zkc__rk_op_new(&r->k);
  zkc__rk_op_drop(&r->k, &r->list); /* none while listed; the sync's slot */
  /* NULL without memory, or unproven: a round without its sync (and then
   * without our own node's watch: no grant on the watches alone). */
  r->list = r->unproven ? NULL : zkc__rk_op_new(&r->k);
  int long_trips = r->k.world->learn_ahead == NULL ||
                   r->k.world->learn_ahead(r->k.c);
  guarded = guarded && !sole && long_trips;
  r->op = (sole || guarded) && r->list ? zkc__rk_op_new(&r->k) : NULL;
  r->kids = guarded && r->op ? zkc__rk_op_new(&r->k) : NULL;
  if (guarded && r->kids == NULL) zkc__rk_op_drop(&r->k, &r->op);
  r->sole = r->op != NULL;
  r->guard = r->kids != NULL;
  r->guard_ok = 0;
  r->round_sync = r->list != NULL;
  /* a hint only: without memory the round goes without it, and where
   * round trips are short (the world's learn_ahead) its requests cost
   * more than the round trip it saves */
  if (!r->sole && !r->unproven && ahead && long_trips &&
      (r->op = zkc__rk_op_new(&r->k)) != NULL) {
    r->ahead = ahead;
    ahead = NULL;
  }
  free(ahead);
  int rc = r->watch ? r->k.world->waiter_register(r->k.c, &r->w, pred,
                                         r->k.drv ? r->k.drv->wake : NULL,
                                         r->k.drv_ctx)
                    : ZKC_ENOMEM;
  if (rc != ZKC_OK) {
    zkc__rk_op_drop(&r->k, &r->watch);
    zkc__rk_op_drop(&r->k, &r->op);
    zkc__rk_op_drop(&r->k, &r->kids);
    zkc__rk_op_drop(&r->k, &r->list);
    round_paths_free(r);
    return rc;
  }
  r->w_reg = 1;
  if (r->sole && zkc__round_seam) zkc__round_seam();
  r->sent = r->k.world->boot_ms();
  if (r->list) {
    zkc__req_t rq = {.kind = ZKC__REQ_SYNC, .path = r->base};
    r->k.world->send(r->k.c, r->list, &rq);
  }
  if (r->sole) {
    r->k.world->waiter_watch_own(r->k.c, &r->w, r->node);
    send_watch(r, r->op, r->node);
  }
  send_watch(r, r->watch, pred);
  if (r->guard) {
    r->k.world->waiter_watch_parent(r->k.c, &r->w, r->base,
                                    r->guard_wakes < ZKC__GUARD_WAKES);
    zkc__req_t rq = {.kind = ZKC__REQ_CHILDREN_WATCH, .path = r->base,
                     .watch = r->w.id};
    r->k.world->send(r->k.c, r->kids, &rq);
  }
  if (r->ahead) {
    r->k.world->waiter_also(r->k.c, &r->w, r->ahead);
    send_watch(r, r->op, r->ahead);
  }
  return ZKC_OK;
}

/* The round's waiter leaves; `remove` takes its watch off the server (a
 * wait that ended without its event). Watches that did not fire are this
 * round's only: a next round sets its own. */
void zkc__qround_leave(zkc__qrun_t *r, int remove) {
  if (!r->w_reg || r->pol) return; /* a policy's waiter is its own */
  if (remove) r->k.world->waiter_unwatch(r->k.c, &r->w);
  if (r->sole && r->own_rc == ZKC_OK)
    r->k.world->forget_watch(r->k.c, r->node, r->w.id);
  if (r->watch_rc == ZKC_OK) r->k.world->forget_watch(r->k.c, r->pred, r->w.id);
  if (r->ahead && r->ahead_rc == ZKC_OK)
    r->k.world->forget_watch(r->k.c, r->ahead, r->w.id);
  /* left on the server: removing it would remove every watcher's of this
   * session on base (an observer's); its event finds no waiter */
  if (r->guard) r->k.world->forget_child_watch(r->k.c, r->base, r->w.id);
  r->k.world->waiter_unregister(r->k.c, &r->w);
  r->w_reg = 0;
  round_paths_free(r);
}

static int view_clear(zkc__qrun_t *r) {
  return r->viewing && r->k.world->view_clear_ahead &&
         r->k.world->view_clear_ahead(r->k.c, r->base, zkc__basename(r->node));
}

/* The round ended (why). A wake-up reads the queue again: the blocker's
 * delete alone proves nothing (our own node may have been deleted by an
 * outsider meanwhile, or our session replaced), except when it was the
 * sole blocker and the watch on our own node, set before the blocker's,
 * proves by the order of the server's events that our node was still there
 * when the blocker went (zkc__waiter_clean). That saves the hand-off a
 * read, but only while the watches' answers are fresh (qengine.c's
 * grant). A blocker of our own session may be deleted in one transaction
 * with our node (the session closing), its events then told in any order:
 * no grant on it. */
zkc__qr_verdict_t zkc__qround_end(zkc__qrun_t *r, zkc__wake_t why, int *rc) {
  int clean = r->sole && !r->same_session && r->sync_rc == ZKC_OK &&
              r->own_rc == ZKC_OK && (!r->guard || r->guard_ok) &&
              why == ZKC__WAKE_FIRED &&
              (r->watch_rc == ZKC_OK || r->watch_rc == ZKC_ENONODE) &&
              r->k.world->waiter_clean(r->k.c, &r->w,
                                       r->watch_rc == ZKC_ENONODE);
  if (clean) r->proof = r->sent;
  /* a waking guarded round that ended unclean (woken by a child's event,
   * mostly; or its read showed a node ahead, or its delete was spoilt):
   * one more in a row; any other round ends the row */
  r->guard_wakes = r->guard && !clean && r->guard_wakes < ZKC__GUARD_WAKES
                       ? r->guard_wakes + 1
                       : 0;
  zkc__qround_leave(r, why == ZKC__WAKE_TIMEOUT);
  if (why != ZKC__WAKE_FIRED) {
    *rc = zkc__rk_woken_rc(why);
    return ZKC__QR_END;
  }
  /* Our node gone (ZKC_ENONODE) shows in the read that follows. */
  *rc = r->watch_rc;
  if (*rc == ZKC_OK && r->own_rc != ZKC_ENONODE) *rc = r->own_rc;
  if (*rc == ZKC_OK) *rc = r->sync_rc;
  if (*rc == ZKC_ENONODE) *rc = ZKC_OK;
  if (*rc != ZKC_OK) return ZKC__QR_RETRY;
  if (clean) return ZKC__QR_GRANT;
  if (view_clear(r)) return ZKC__QR_CONFIRM;
  if (r->round_sync && r->sync_rc == ZKC_OK &&
      r->k.world->grant_fresh(r->k.c, r->sent))
    return ZKC__QR_ON_SYNC;
  return ZKC__QR_LIST;
}

int zkc__qround_decide(const zkc__qrun_t *r, char **names, size_t count,
                       zkc__qown_stray_fn *stray, void *ctx, size_t *n,
                       zkc__q_decision_t *d) {
  char uuid[ZKC__UUID_LEN + 1];
  zkc__qown_uuid(r->base, r->prefix, r->node, uuid);
  *n = zkc__qown_drop_twins(zkc__basename(r->node), uuid, names, count, stray,
                            ctx);
  return zkc__queue_decide(names, *n, zkc__basename(r->node), r->reader, d);
}

/* A twin in a guarded round's read: the queue's own read hands it to the
 * janitor. */
static void twin_seen(void *ctx, const char *name) { (void)ctx, (void)name; }

/* A guarded round's children read: sets r->guard_ok when it shows the
 * blocker alone ahead of our node (our twins not counted), or nothing. 1
 * unless it shows another node ahead (an answer failed, or no memory to
 * decide: 1, the round waits without the guard, as a round not sole). */
static int guarded_alone(zkc__qrun_t *r) {
  zkc__q_decision_t d;
  size_t n;
  if (r->kids->rc != ZKC_OK ||
      zkc__qround_decide(r, r->kids->children.data,
                         (size_t)r->kids->children.count, twin_seen, NULL, &n,
                         &d) != ZKC_OK)
    return 1;
  /* the blocker found gone by its watch and shown by the read after it:
   * made again (an outsider), no blocker this round watched */
  r->guard_ok = d.verdict == ZKC__Q_FIRST ||
                (d.verdict == ZKC__Q_WAIT && (d.sole || d.guarded) &&
                 r->watch_rc == ZKC_OK &&
                 strcmp(d.blocker, zkc__basename(r->pred)) == 0);
  return r->guard_ok;
}

zkc__qr_verdict_t zkc__qround_watched(zkc__qrun_t *r, int *rc) {
  r->watch_rc = r->watch->rc;
  r->same_session = r->watch_rc == ZKC_OK &&
                    r->watch->stat.ephemeral_owner == r->owner;
  r->own_rc = r->sole && r->op ? r->op->rc : ZKC_OK;
  r->ahead_rc = r->ahead && r->op ? r->op->rc : ZKC_OK;
  r->sync_rc = r->list ? r->list->rc : ZKC_OK;
  /* a guarded round whose read shows another node ahead (a downgrade's
   * read node) reads again now: no grant can rest on this round */
  int moved = r->guard && !guarded_alone(r);
  zkc__rk_op_end(&r->watch);
  zkc__rk_op_end(&r->op);
  zkc__rk_op_end(&r->kids);
  zkc__rk_op_end(&r->list);
  /* `ahead` gone already: what its event would have told (its watch's
   * other failures leave the round as it would be without it) */
  if (r->watch_rc == ZKC_OK && r->own_rc == ZKC_OK && r->sync_rc == ZKC_OK &&
      r->ahead_rc != ZKC_ENONODE && !moved)
    return ZKC__QR_WAIT;
  return zkc__qround_end(r, ZKC__WAKE_FIRED, rc);
}

/* A late answer sets a watch whose event finds no waiter (they are found
 * by id). */
void zkc__qround_give_up(zkc__qrun_t *r) {
  zkc__rk_op_drop(&r->k, &r->watch);
  /* sent last, so unanswered: its late answer leaves a children watch
   * here whose event finds no waiter, as the blocker's does */
  zkc__rk_op_drop(&r->k, &r->kids);
  r->k.world->waiter_unregister(r->k.c, &r->w);
  r->w_reg = 0;
  round_paths_free(r);
}
