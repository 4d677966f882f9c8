/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's lease run (lease_run.h): the head of the queue creates
 * its lease nodes with every read its admission rests on pipelined behind
 * them, decides with zkc__leases_decide, waits on the leases and the count
 * while they do not fit, and grants only on a fresh proof of a live
 * session. All requests and facts go through the run's world. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lease_run.h"

#include "decide.h"
#include "names.h"
#include "qown.h"
#include "queue_nodes.h"
#include "util.h"

_Static_assert(L_DONE < 16, "a state fits in zkc__lrun_t.st");

#define AGAIN ZKC__RK_AGAIN /* advance's "step again now" */
#define LEASE_NAME "lease-"

enum { R_SYNC, R_LEASES, R_COUNT, R_LAYOUT };

/* ---- requests ---- */

static void send(zkc__lrun_t *r, zkc__op_t *op, zkc__req_kind_t kind,
                 const char *path) {
  zkc__req_t rq = {.kind = kind, .path = path, .watch = r->w.id};
  r->k.world->send(r->k.c, op, &rq);
}

int zkc__lrun_ops_max(const zkc__lrun_t *r) {
  return (int)r->how.qty + ZKC__LRUN_READS;
}

int zkc__lrun_ops(zkc__lrun_t *r, zkc__op_t **ops) {
  int n = 0;
  if (zkc__rk_busy(&r->k)) return zkc__rk_ops(&r->k, ops); /* a walk's */
  if (r->st == L_SENT) {
    for (unsigned i = 0; i < r->how.qty; i++)
      if (r->creates[i]) ops[n++] = r->creates[i];
    for (int i = 0; i < ZKC__LRUN_READS; i++)
      if (r->reads[i]) ops[n++] = r->reads[i];
  } else if (r->op) {
    ops[n++] = r->op;
  }
  return n;
}

static int awaiting(zkc__lrun_t *r) {
  if (zkc__rk_busy(&r->k)) return r->k.op && !zkc__op_done(r->k.op);
  if (r->op && !zkc__op_done(r->op)) return 1;
  if (r->st != L_SENT) return 0;
  for (unsigned i = 0; i < r->how.qty; i++)
    if (r->creates[i] && !zkc__op_done(r->creates[i])) return 1;
  for (int i = 0; i < ZKC__LRUN_READS; i++)
    if (r->reads[i] && !zkc__op_done(r->reads[i])) return 1;
  return 0;
}

/* ---- the end ---- */

static void drop_all(zkc__lrun_t *r) {
  int cut = 0;
  for (unsigned i = 0; i < r->how.qty; i++)
    if (r->creates[i]) {
      cut = 1; /* perhaps applied: found by our uuid */
      zkc__rk_op_drop(&r->k, &r->creates[i]);
    }
  for (int i = 0; i < ZKC__LRUN_READS; i++)
    zkc__rk_op_drop(&r->k, &r->reads[i]);
  zkc__rk_op_drop(&r->k, &r->op);
  if (cut && r->prefix) zkc__rk_janitor_uuid(&r->k, r->how.leases, r->prefix);
}

/* The waiter leaves: its watches removed unless they fired or the client
 * is closing (nobody waits on them any more, granted or not). */
static void leave_waiter(zkc__lrun_t *r) {
  if (!r->w_reg) return;
  if (!r->k.world->closed(r->k.c))
    r->k.world->waiter_unwatch_children(r->k.c, &r->w);
  r->k.world->waiter_unregister(r->k.c, &r->w);
  r->w_reg = 0;
}

static void finish(zkc__lrun_t *r, int rc) {
  /* A request refused by a dead handle: the session expired, our nodes
   * with it. Queue again, as for any other lost session. */
  rc = zkc__rk_end_rc(rc);
  zkc__rk_leave(&r->k);
  drop_all(r);
  leave_waiter(r);
  r->rc = rc;
  r->st = L_DONE;
}

static void retry(zkc__lrun_t *r, int rc, zkc__lstate_t next) {
  if ((rc = zkc__rk_retry(&r->k, rc)) != ZKC_OK) finish(r, rc);
  else r->st = next;
}

/* ---- the round: creates and reads ---- */

/* 1 when the leases the queue's read showed, with ours and those this
 * object holds, fit a fixed limit. Only leases released can change that
 * count before our creates (admissions go through the queue, whose head we
 * are), so the queue node may go with our first round. A shared count may
 * change the limit meanwhile: then we keep our place. */
static int room_seen(const zkc__lrun_t *r) {
  if (r->how.queue_node == NULL || r->how.seen < 0 || r->how.count != NULL)
    return 0;
  size_t held = r->how.held ? r->how.held(r->how.held_ctx) : 0;
  return zkc__leases_decide((size_t)r->how.seen + r->how.qty, r->how.qty,
                            r->how.qty, held, r->how.max) == ZKC__L_FIT;
}

/* The creates still to make, or else a sync through the leader (a
 * follower cut off from it answers reads from a frozen state; it cannot
 * answer the sync and holds the reads behind it); then the leases, the
 * count, and the path's layout until it was accepted once (read after our
 * creates, so that of two recipes begun on the path at once, one sees the
 * other). The leases and the count are watched only once they did not fit:
 * a lease granted on the first read leaves no watch to remove (one request
 * fewer per lease), and one that must wait reads again, watched, before it
 * waits. */
static void send_round(zkc__lrun_t *r) {
  int rc = r->prefix ? ZKC_OK
                     : zkc__qown_new_prefix(r->how.leases, LEASE_NAME,
                                            &r->prefix);
  if (rc == ZKC_OK && r->watching && !r->w_reg) {
    rc = r->k.world->waiter_register(r->k.c, &r->w, r->how.leases,
                                   r->how.drv ? r->how.drv->wake : NULL,
                                   r->how.drv_ctx);
    if (rc == ZKC_OK) {
      r->w_reg = 1;
      if (r->how.count) r->k.world->waiter_also(r->k.c, &r->w, r->how.count);
    }
  } else if (rc == ZKC_OK && r->watching) {
    r->k.world->waiter_rearm(r->k.c, &r->w);
  }
  for (unsigned i = 0; rc == ZKC_OK && i < r->how.qty; i++)
    if (r->nodes[i].node == NULL &&
        (r->creates[i] = zkc__rk_op_new(&r->k)) == NULL)
      rc = ZKC_ENOMEM;
  int creating = 0;
  for (unsigned i = 0; i < r->how.qty; i++) creating |= r->nodes[i].node == NULL;
  /* Reads behind our creates need no sync: a create goes through the
   * leader, which checked our session after r->proof, and the server
   * answers the reads behind it only once it is applied. */
  int want[ZKC__LRUN_READS] = {!creating, 1, r->how.count != NULL,
                               !r->layout_ok};
  for (int i = 0; rc == ZKC_OK && i < ZKC__LRUN_READS; i++)
    if (want[i] && (r->reads[i] = zkc__rk_op_new(&r->k)) == NULL)
      rc = ZKC_ENOMEM;
  if (rc != ZKC_OK) {
    for (unsigned i = 0; i < r->how.qty; i++) zkc__rk_op_end(&r->creates[i]);
    finish(r, rc); /* nothing sent */
    return;
  }
  r->proof = r->k.world->boot_ms();
  const char *data = r->k.world->holder_id(r->k.c);
  /* The first round after a read that showed room lets the queue node go
   * with its last create, in one transaction. */
  r->releasing = !r->sent && room_seen(r);
  for (unsigned i = 0; i < r->how.qty; i++)
    if (r->creates[i]) {
      zkc__req_t rq = {.kind = ZKC__REQ_CREATE, .path = r->prefix,
                        .data = data};
      if (r->releasing && i == r->how.qty - 1) rq.release = r->how.queue_node;
      r->k.world->send(r->k.c, r->creates[i], &rq);
    }
  if (r->reads[R_SYNC])
    send(r, r->reads[R_SYNC], ZKC__REQ_SYNC, r->how.leases);
  send(r, r->reads[R_LEASES],
       r->watching ? ZKC__REQ_CHILDREN_WATCH : ZKC__REQ_CHILDREN,
       r->how.leases);
  if (r->reads[R_COUNT])
    send(r, r->reads[R_COUNT], r->watching ? ZKC__REQ_GET_WATCH : ZKC__REQ_GET,
         r->how.count);
  if (r->reads[R_LAYOUT])
    send(r, r->reads[R_LAYOUT], ZKC__REQ_CHILDREN, r->how.path);
  r->sent = 1;
  r->st = L_SENT;
}

/* The creates' answers: 0 to go on, else the run moved on (finished, or
 * to the parents' walk). */
static int take_creates(zkc__lrun_t *r) {
  int cut = 0, missing = 0, refused = ZKC_OK, foreign = 0;
  for (unsigned i = 0; i < r->how.qty; i++) {
    zkc__op_t *op = r->creates[i];
    if (op == NULL) continue;
    if (op->rc == ZKC_OK) {
      if (r->releasing && i == r->how.qty - 1) r->left = 1;
      r->nodes[i].node = op->created, op->created = NULL;
      r->nodes[i].token = op->stat.czxid;
      r->nodes[i].session_id = op->stat.ephemeral_owner;
      if (op->stat.ephemeral_owner != r->k.world->session_id(r->k.c))
        foreign = 1;
    } else if (op->rc == ZKC_ENONODE) {
      missing = 1;
    } else if (zkc__retryable(op->rc)) {
      cut = 1;
    } else if (refused == ZKC_OK) {
      refused = op->rc;
    }
    if (!zkc__retryable(op->rc)) /* a cut one stays for drop_all's janitor */
      zkc__rk_op_end(&r->creates[i]);
  }
  r->releasing = 0;
  if (cut) {
    /* Perhaps made: the janitor finds it by our uuid; queue again. */
    finish(r, ZKC_ELOST);
    return 1;
  }
  if (refused != ZKC_OK) {
    finish(r, refused);
    return 1;
  }
  if (foreign) { /* made through a session replaced meanwhile: not ours */
    finish(r, ZKC_ELOST);
    return 1;
  }
  if (missing) {
    for (int i = 0; i < ZKC__LRUN_READS; i++) zkc__rk_op_end(&r->reads[i]);
    r->layout_ok = 0; /* made again: read the layout behind our creates */
    if (zkc__rk_parents(&r->k, r->how.leases) != ZKC_OK)
      finish(r, ZKC_ENONODE); /* made and reaped again too often */
    else
      r->st = L_SEND;
    return 1;
  }
  return 0;
}

/* How many of our nodes are among the children read. */
static size_t present(const zkc__lrun_t *r, const zkc__names_t *kids) {
  size_t found = 0;
  for (unsigned i = 0; i < r->how.qty; i++) {
    if (r->nodes[i].node == NULL) continue;
    const char *name = zkc__basename(r->nodes[i].node);
    for (int k = 0; k < kids->count; k++)
      if (strcmp(kids->data[k], name) == 0) {
        found++;
        break;
      }
  }
  return found;
}

/* Granted only while the session of our nodes is the current one and
 * connected, on an answer whose requests were sent recently enough that
 * no stall of this process can have outlived the session since. */
static void grant(zkc__lrun_t *r) {
  switch (zkc__rk_grant(&r->k, r->nodes[0].session_id, r->proof)) {
    case ZKC__RK_GRANTED: finish(r, ZKC_OK); return;
    case ZKC__RK_STALE:
      zkc__log(r->k.c, ZKC_LOG_DEBUG, "semaphore %s: the leases read showing "
               "room is %lld ms old: reading again", r->how.path,
               (long long)(r->k.world->boot_ms() - r->proof));
      r->st = L_SEND; /* read again: its answer is the proof */
      return;
    case ZKC__RK_GONE: finish(r, ZKC_ELOST); return;
    case ZKC__RK_NOT_LIVE:
      zkc__log(r->k.c, ZKC_LOG_DEBUG, "semaphore %s: the leases read showing "
               "room rests on a session not live (or not proven renewed at "
               "the leader): reading again once it is", r->how.path);
      zkc__rk_connect(&r->k);
      r->st = L_SEND;
      return;
  }
}

static void decide(zkc__lrun_t *r, const zkc__names_t *kids, int32_t max) {
  size_t leases = (size_t)kids->count;
  size_t held = r->how.held ? r->how.held(r->how.held_ctx) : 0;
  zkc__l_verdict_t v =
      zkc__leases_decide(leases, present(r, kids), r->how.qty, held, max);
  if (v == ZKC__L_GONE) { /* the session went, or an outsider deleted one */
    finish(r, ZKC_ELOST);
    return;
  }
  if (!r->warned && r->how.count == NULL && leases >= r->how.qty &&
      leases - r->how.qty > (size_t)max) {
    r->warned = 1; /* only a disagreeing client (or a stranger) puts them */
    zkc__log(r->k.c, ZKC_LOG_WARN,
             "semaphore %s: %zu leases held by others, more than this "
             "client's limit of %d: another client uses a higher limit (a "
             "shared count node makes them agree)",
             r->how.path, leases - r->how.qty, (int)max);
  }
  if (v == ZKC__L_DEADLOCK) finish(r, ZKC_EDEADLK);
  else if (v == ZKC__L_FIT) grant(r);
  else if (r->k.world->now_ms() >= r->how.deadline) finish(r, ZKC_ETIMEDOUT);
  else if (r->left) r->st = L_HEAD; /* no place to wait in: queue again */
  else if (!r->watching) r->watching = 1, r->st = L_SEND; /* read, watched */
  else r->st = L_HEAD;
}

static void sent(zkc__lrun_t *r) {
  if (take_creates(r)) return;
  zkc__op_t **rd = r->reads;
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
                         r->how.path, &rd[R_LAYOUT]->children, NULL);
    r->layout_ok = lrc == ZKC_OK;
  }
  zkc__rk_op_end(&rd[R_LAYOUT]);
  zkc__rk_op_end(&rd[R_SYNC]);
  if (lrc != ZKC_OK && !zkc__retryable(lrc)) rc = lrc;
  else if (rc == ZKC_OK && lrc != ZKC_OK) rc = lrc;
  int32_t max = r->how.max;
  if (rc == ZKC_OK && rd[R_COUNT]) {
    if (crc == ZKC_OK)
      crc = zkc__sem_count_decode(rd[R_COUNT]->data, rd[R_COUNT]->data_len,
                                  &max);
    if (crc == ZKC_EPROTO)
      zkc__log(r->k.c, ZKC_LOG_ERROR, "count node %s holds %d bytes, not 4",
               r->how.count, rd[R_COUNT]->data_len);
    rc = crc;
  }
  zkc__rk_op_end(&rd[R_COUNT]);
  if (rc == ZKC_OK) {
    r->k.retries = 0; /* the budget is per outage */
    decide(r, &rd[R_LEASES]->children, max);
  } else if (rc == ZKC_ENONODE && crc == ZKC_ENONODE) {
    r->st = L_COUNT; /* first use of the count: made with the seed */
  } else if (zkc__retryable(rc)) {
    retry(r, rc, L_SEND);
  } else {
    finish(r, rc);
  }
  zkc__rk_op_end(&rd[R_LEASES]);
}

/* ---- what a round may need first: the count node ---- */

static void send_count(zkc__lrun_t *r) {
  char data[ZKC__COUNT_BYTES];
  zkc__sem_count_encode(r->how.max, data);
  if ((r->op = zkc__rk_op_new(&r->k)) == NULL) {
    finish(r, ZKC_ENOMEM);
    return;
  }
  zkc__req_t rq = {.kind = ZKC__REQ_COUNT, .path = r->how.count,
                    .data = data, .len = ZKC__COUNT_BYTES};
  r->k.world->send(r->k.c, r->op, &rq);
  r->st = L_COUNTING;
}

static void count_made(zkc__lrun_t *r) {
  int rc = r->op->rc;
  zkc__rk_op_end(&r->op);
  if (rc == ZKC_OK || rc == ZKC_ENODEEXISTS) { /* ours or theirs: read it */
    r->st = L_SEND;
  } else if (rc == ZKC_ENONODE) { /* its parent missing: made first */
    free(r->count_parent);
    r->count_parent = zkc__path_parent(r->how.count);
    if (r->count_parent == NULL) rc = ZKC_ENOMEM;
    else rc = zkc__rk_parents(&r->k, r->count_parent);
    if (rc == ZKC_OK) r->st = L_COUNT;
    else finish(r, rc); /* ZKC_ENONODE: reaped again too often */
  } else if (zkc__retryable(rc)) {
    retry(r, rc, L_COUNT);
  } else {
    finish(r, rc);
  }
}

/* ---- waiting ---- */

/* Before a wait: our queue node must still exist, on the session of our
 * leases. Else another client may be at the head too, and two heads whose
 * pending leases together exceed the limit would wait on each other. */
static void check_head(zkc__lrun_t *r) {
  if (r->left) { /* let go early, on a read that showed room */
    zkc__log(r->k.c, ZKC_LOG_DEBUG, "semaphore %s: the leases do not fit "
             "after all, and our queue node is gone: queueing again",
             r->how.path);
    finish(r, ZKC_ELOST);
    return;
  }
  if (r->how.queue_session != r->nodes[0].session_id) {
    finish(r, ZKC_ELOST);
    return;
  }
  if ((r->op = zkc__rk_op_new(&r->k)) == NULL) {
    finish(r, ZKC_ENOMEM);
    return;
  }
  send(r, r->op, ZKC__REQ_EXISTS, r->how.queue_node);
  r->st = L_HEADING;
}

static void head_checked(zkc__lrun_t *r) {
  int rc = r->op->rc;
  zkc__rk_op_end(&r->op);
  if (rc == ZKC_OK) r->st = L_WAITING;
  else if (rc == ZKC_ENONODE) finish(r, ZKC_ELOST); /* queue again */
  else if (zkc__retryable(rc)) retry(r, rc, L_SEND);
  else finish(r, rc);
}

/* ---- the driver's side ---- */

int zkc__lrun_init(zkc__lrun_t *r, zkc_client_t *c,
                   const zkc__lrun_how_t *how) {
  memset(r, 0, sizeof *r);
  r->how = *how;
  zkc__rk_init(&r->k, c, how->world ? how->world : &zkc__qworld_session,
               how->drv, how->drv_ctx, how->deadline);
  r->layout_ok = how->layout_known;
  r->nodes = calloc(how->qty ? how->qty : 1, sizeof *r->nodes);
  r->creates = calloc(how->qty ? how->qty : 1, sizeof *r->creates);
  r->st = L_SEND;
  if (r->nodes == NULL || r->creates == NULL) {
    free(r->nodes);
    free(r->creates);
    r->nodes = NULL;
    r->creates = NULL;
    r->rc = ZKC_ENOMEM;
    r->st = L_DONE;
    return ZKC_ENOMEM;
  }
  return ZKC_OK;
}

static int advance(zkc__lrun_t *r) {
  if (r->st == L_DONE) return ZKC__QN_DONE;
  if (awaiting(r)) return ZKC__QN_REPLY;
  /* A stop waits for answers in to be taken in (a created node is then
   * known, and deleted by the caller). */
  int answered = zkc__rk_busy(&r->k) ? zkc__rk_answered(&r->k) :
                 r->st == L_SENT || r->st == L_COUNTING ||
                 r->st == L_HEADING;
  if (r->stop_rc != ZKC_OK && !answered) {
    finish(r, r->stop_rc);
    return AGAIN;
  }
  if (zkc__rk_busy(&r->k)) { /* the kernel's turn */
    int rc = ZKC_OK, need = zkc__rk_advance(&r->k, &rc);
    if (need == ZKC__RK_FAIL) finish(r, rc);
    else if (need != ZKC__RK_AGAIN && need != ZKC__RK_BACK) return need;
    return AGAIN;
  }
  switch (r->st) {
    case L_SEND: send_round(r); break;
    case L_SENT: sent(r); break;
    case L_COUNT: send_count(r); break;
    case L_COUNTING: count_made(r); break;
    case L_HEAD: check_head(r); break;
    case L_HEADING: head_checked(r); break;
    case L_WAITING: return ZKC__QN_EVENT;
    case L_DONE: return ZKC__QN_DONE;
  }
  return AGAIN;
}

static int advance_run(void *r) { return advance(r); }

zkc__qneed_t zkc__lrun_step(zkc__lrun_t *r) {
  return zkc__rk_loop(advance_run, r);
}

void zkc__lrun_give_up(zkc__lrun_t *r) {
  if (r->st == L_DONE) return;
  /* Creates in flight may still be applied: drop_all hands our uuid to
   * the janitor. A late stat or read answers nobody. */
  finish(r, ZKC_ETIMEDOUT);
}

zkc__waiter_t *zkc__lrun_waiter(zkc__lrun_t *r) { return &r->w; }

void zkc__lrun_woken(zkc__lrun_t *r, zkc__wake_t why) {
  if (r->st != L_WAITING) return;
  if (why == ZKC__WAKE_FIRED) r->st = L_SEND;
  else finish(r, zkc__rk_woken_rc(why));
}

int64_t zkc__lrun_wake_at(const zkc__lrun_t *r) { return r->k.wake_at; }

void zkc__lrun_stop(zkc__lrun_t *r, int rc) {
  if (r->st != L_DONE && r->stop_rc == ZKC_OK) r->stop_rc = rc;
}

int zkc__lrun_result(const zkc__lrun_t *r) {
  return r->st == L_DONE ? r->rc : ZKC_EBUSY;
}

zkc__held_t *zkc__lrun_take_nodes(zkc__lrun_t *r) {
  zkc__held_t *n = r->nodes;
  r->nodes = NULL;
  return n;
}

void zkc__lrun_clear(zkc__lrun_t *r) {
  if (r->st != L_DONE) finish(r, ZKC_ECANCELED);
  if (r->nodes) { /* not taken: nobody deletes them but the janitor */
    for (unsigned i = 0; i < r->how.qty; i++)
      if (r->nodes[i].node) {
        r->k.world->janitor_add(r->k.c, r->nodes[i].node, NULL);
        free(r->nodes[i].node);
      }
    free(r->nodes);
    r->nodes = NULL;
  }
  free(r->creates);
  free(r->prefix);
  free(r->count_parent);
  r->creates = NULL;
  r->prefix = r->count_parent = NULL;
}
