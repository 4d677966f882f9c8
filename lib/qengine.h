/* SPDX-License-Identifier: Apache-2.0 */
/* The queue engine: one run through a lock queue (create the protected
 * node, read, decide, watch, wait, grant or give up, clean up) as a state
 * machine that never blocks. Two drivers step it: the blocking acquire
 * (queue.c), which waits on the caller's thread for whatever the run needs
 * next, and the asynchronous acquire (async_engine.c), whose engine thread
 * steps many runs as their requests complete and their watches fire. The
 * protocol, its grant rule and its retry policy exist once, here.
 * The same states run an admission that is not a place in a queue (the
 * semaphore's leases fit, lease_run.h): a policy (zkc__qpolicy_t) says
 * what its create and read send and what their answers mean; the states,
 * the grant, the wait, the endings and the stop are the machine's. */
#ifndef ZKC_QENGINE_H
#define ZKC_QENGINE_H

#include <stdint.h>

#include "names.h"
#include "qround.h" /* the run, zkc__qrun_t, and its round */
#include "queue_nodes.h"
#include "qworld.h"
#include "run_kernel.h" /* zkc__qneed_t, zkc__qdriver_t, the kernel */
#include "session.h"

typedef enum {
  Q_CREATE,    /* send the create (and the first read behind it) */
  Q_CREATING,  /* the create's answer */
  Q_SEARCH,    /* after a create cut off: look for our uuid */
  Q_SEARCHING, /* that read's answer (a sync before it) */
  Q_ADOPTING,  /* a node with our uuid: whose session owns it */
  Q_RELIST,    /* read the queue again, if our node is still ours */
  Q_LISTING,   /* a read's answer: decide */
  Q_WATCHING,  /* the blocker's watch (and our own node's) being set */
  Q_WAITING,   /* watched: wait for a change */
  Q_REMOVING,  /* our node's delete, the result decided */
  Q_CONFIRMING, /* every node ahead known gone: our own node's stat
                   through the leader (a sync before it); a policy's run:
                   the stat of its place before a wait */
  Q_PREREQ,    /* a policy's node needed first (the semaphore's count) */
  Q_PREREQING, /* its create's answer */
  Q_DONE
} zkc__qstate_t;

/* What a policy says of the answers it was given (zkc__qpolicy_t). */
typedef enum {
  ZKC__QP_ON,      /* the creates taken: the reads behind them next */
  ZKC__QP_GRANT,   /* admitted on r->proof: the grant rule decides */
  ZKC__QP_WAIT,    /* not yet: the place's stat, then the wait */
  ZKC__QP_RELIST,  /* read again now */
  ZKC__QP_RETRY,   /* *rc under the client's retry policy, then read again */
  ZKC__QP_PREREQ,  /* a node needed first: its create */
  ZKC__QP_PARENTS, /* the base missing: made by the walk, then create */
  ZKC__QP_END      /* the run ends with *rc */
} zkc__qp_verdict_t;

/* A policy: an admission whose create and read are its own (the leases
 * fit: lease_run.c). ctx is zkc__qrun_how_t.pol_ctx. The policy's run
 * keeps no node of the machine's (r->node stays NULL: its nodes are its
 * own), its grant rests on r->owner's session and r->proof, and it waits
 * on the machine's waiter (r->w, r->w_reg), registered by round. */
typedef struct zkc__qpolicy {
  const char *what; /* the recipe, in the run's log lines */
  /* Q_CREATE and Q_RELIST: the round's requests sent (r->proof set before
   * them), 1 with creates among them (r->maybe_made then), 0 reads only;
   * or a failure with nothing sent. */
  int (*round)(void *ctx, zkc__qrun_t *r);
  /* Q_CREATING, Q_LISTING: the round's requests (room as ops_max), and 1
   * while one is unanswered. */
  int (*ops)(void *ctx, zkc__op_t **ops);
  int (*pending)(void *ctx);
  /* The round's answers: its creates (Q_CREATING), then its reads. */
  zkc__qp_verdict_t (*created)(void *ctx, zkc__qrun_t *r, int *rc);
  zkc__qp_verdict_t (*listed)(void *ctx, zkc__qrun_t *r, int *rc);
  /* ZKC__QP_WAIT: the node that keeps our place, on r->owner's session,
   * stated before each wait (no sync: a stale "there" only costs a wait). */
  const char *(*place)(void *ctx);
  /* ZKC__QP_PREREQ: its create, into rq; returns its parent, made by the
   * walk when missing (NULL: none known). */
  const char *(*prereq)(void *ctx, zkc__req_t *rq);
  /* The run ends: the round's requests dropped, the waiter gone. */
  void (*drop)(void *ctx, zkc__qrun_t *r);
} zkc__qpolicy_t;

/* What vouches for a vouched run (zkc__qrun_how_t.vouch): a node of ours,
 * and what the caller knows of the hold on it. */
typedef struct zkc__voucher {
  const char *node;
  /* 1 once the caller knows the hold on node lost (its loss told): the run
   * is refused without asking the ensemble, whose answer, fresh or not,
   * could not make a lost hold vouch again. NULL: not known. */
  int (*lost)(void *ctx);
  void *ctx;
} zkc__voucher_t;

/* What lets a quick run's create alone grant (zkc__qrun_how_t.quick).
 * Sequence numbers count the creates under a node, and nothing else: a
 * node created with sequence seq when the last node this caller made
 * there, which it held with no other child beside it, had seq - 1, was
 * created with no create between the two. Every other node had gone
 * before that hold was granted, and the caller had deleted its own: so
 * ours is the only child, and first. That holds of one base: a base
 * deleted and made again counts from 0 anew, so `intact` must say that the
 * base is the one the granting read showed, unchanged since (a watch on
 * it, set while it was that one, has not fired), asked once the create is
 * answered: an event it sends comes before any answer given after it. */
typedef struct zkc__quick {
  int64_t seq;                /* the sequence our create must get */
  int64_t base_czxid;         /* the base that granting read showed: the
                                 quick grant's (zkc__held_t.base_czxid) */
  int (*intact)(void *ctx);   /* 1: base is still the one (see above) */
  void *ctx;
} zkc__quick_t;

/* What a run is to do, all set before it starts (zkc__qrun_init). */
typedef struct zkc__qrun_how {
  /* A node named "_c_<uuid>-<name>[seq]" under base, with data (NULL: the
   * client's holder id); all three borrowed for the run's life. */
  const char *base, *name, *data;
  int64_t deadline; /* monotonic, ZKC__FOREVER; no request past its limit
                       (the deadline plus a grace) */
  zkc__recipe_layout_t layout; /* checked at each read (ZKC__AS_NONE: no) */
  unsigned reader : 1;  /* read side of a read-write lock: waits on writers */
  unsigned plain : 1;   /* EPHEMERAL, named exactly: no sequence, no queue */
  unsigned no_list : 1; /* only the node: no queue read, no wait */
  unsigned requeue : 1; /* a node lost while waiting: queue again at the
                           back, within the deadline */
  /* A queue whose grant is not the caller's proof of anything: the
   * semaphore's, whose every admission rests on its own leases read behind
   * its own creates. Its reads and rounds go without syncs, its rounds
   * without our own node's watch. Only the order it keeps is needed. */
  unsigned unproven : 1;
  /* A vouched run (with plain and no_list: the read-write lock's
   * downgrade): no queue read and no wait; granted once the node `vouch`
   * (borrowed; the write node) is seen, behind a sync, fresh, to be still
   * the node's own session's, as the queue's grants are. The token is
   * vouch's czxid. Gone, or another session's: ZKC_ELOST. */
  const zkc__voucher_t *vouch;
  /* A path whose children are read behind every read of the queue after
   * its first (the one behind the create), in the same batch (borrowed;
   * NULL: none). Not a proof of anything: a hint
   * for what the caller does next (the semaphore's leases, seen by the
   * read that made its queue node first). */
  const char *also;
  /* A quick run (NULL: none; borrowed): the create goes alone, and when
   * its sequence is quick->seq and quick->intact says so, the grant rests
   * on it (zkc__quick_t) as on a read of the queue showing our node alone;
   * else the queue is read then, behind a sync. For the queue's own
   * admission only (not plain, no_list, vouch, also, pol or unproven). */
  const zkc__quick_t *quick;
  /* An admission of its own (NULL: a place in the queue at base): its
   * rounds and their meaning (zkc__qpolicy_t), with pol_ctx. */
  const zkc__qpolicy_t *pol;
  void *pol_ctx;
  const zkc__qdriver_t *drv; /* NULL (the caller waits itself) or static */
  void *drv_ctx;             /* what drv is called with */
  const zkc__qworld_t *world; /* NULL: the client's (zkc__qworld_session) */
} zkc__qrun_how_t;

/* Prepares a run of client c that does `how`. */
void zkc__qrun_init(zkc__qrun_t *r, zkc_client_t *c,
                    const zkc__qrun_how_t *how);

/* Goes as far as it can without waiting; says what it needs next. */
zkc__qneed_t zkc__qrun_step(zkc__qrun_t *r);

/* The most requests a run awaits at once (zkc__qrun_ops). */
#define ZKC__QRUN_OPS_MAX 4

/* ZKC__QN_REPLY: the requests awaited (up to ZKC__QRUN_OPS_MAX written to
 * ops; a policy's run: as many as its round sends; the last sent first: a session's answers come in the order of its
 * requests, so a driver that waits for them in this order is woken once,
 * by the last answer, not by each); and the
 * driver's verdict that they are unanswered at the limit: they are given
 * up and the run ends with ZKC_ETIMEDOUT (its node, made or perhaps being
 * made, deleted in the background). */
int zkc__qrun_ops(zkc__qrun_t *r, zkc__op_t **ops);
void zkc__qrun_give_up(zkc__qrun_t *r);

/* ZKC__QN_EVENT: the waiter to wait on (zkc__waiter_wait or _check), and
 * how the wait ended. */
zkc__waiter_t *zkc__qrun_waiter(zkc__qrun_t *r);
void zkc__qrun_woken(zkc__qrun_t *r, zkc__wake_t why);

/* ZKC__QN_TIME: when the backoff ends. */
int64_t zkc__qrun_wake_at(const zkc__qrun_t *r);

/* Ends the run with rc at its next step (a cancel, a close, a wait for the
 * session that failed); also a run done with ZKC_OK whose grant the
 * driver refuses: its node is then deleted. */
void zkc__qrun_stop(zkc__qrun_t *r, int rc);
/* A run done with ZKC_OK whose grant the driver doubts (a state change
 * came between the proof and the grant): it reads the queue again once
 * connected. */
void zkc__qrun_doubt(zkc__qrun_t *r);

/* ZKC__QN_DONE: the result; with ZKC_OK *out is filled and the node is the
 * caller's. */
int zkc__qrun_result(zkc__qrun_t *r, zkc__held_t *out);
/* After a grant: how many children the read of how.also behind the
 * granting queue read showed; -1 when none was read with it (no `also`, a
 * grant on the watches or on a stat, the read failed). */
int zkc__qrun_also_seen(zkc__qrun_t *r);
/* Frees what the run holds (a run not done is given up first). */
void zkc__qrun_clear(zkc__qrun_t *r);

#endif /* ZKC_QENGINE_H */
