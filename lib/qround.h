/* SPDX-License-Identifier: Apache-2.0 */
/* A queue engine run (zkc__qrun_t) and its waiting round (qround.c): the
 * watches a waiter sends behind its blocker (learn-ahead's and the sole
 * round's among them), their answers and the round's end. The run is
 * declared here, below the machine (qengine.h includes this header,
 * qengine.c calls the round), so that the round works on a run without
 * depending on the machine: the two modules form no loop
 * (check-layers.sh). The round sets none of the machine's states: it says
 * what comes next (zkc__qr_verdict_t), and the machine goes there. */
#ifndef ZKC_QROUND_H
#define ZKC_QROUND_H

#include <stdint.h>

#include "decide.h"     /* zkc__q_decision_t */
#include "qown.h"       /* zkc__qown_stray_fn */
#include "run_kernel.h" /* zkc__rk_t */
#include "session.h"

typedef struct zkc__qrun zkc__qrun_t;

/* One run. Lives where its driver puts it (a stack, a pending acquire) and
 * must not move while it runs (its waiter is registered by address). Kept
 * small: one lives in every pending async acquire. */
struct zkc__qrun {
  /* what to do (zkc__qrun_init: zkc__qrun_how_t) */
  zkc__rk_t k; /* the client, world, driver, deadline; retries, backoff,
                  the session's wait and the parents' walk (while the
                  kernel has the run, st is where it goes on from) */
  const char *base, *name, *data; /* borrowed for the run's life */
  const struct zkc__voucher *vouch; /* a vouched run: zkc__qrun_how_t
                                       (borrowed) */
  const char *also;  /* read with each queue read: see zkc__qrun_how_t */
  const struct zkc__qpolicy *pol; /* NULL: the queue's own admission */
  void *pol_ctx;
  const struct zkc__quick *quick; /* a quick run: zkc__qrun_how_t
                                     (borrowed; NULL once spent) */
  /* flags, and where it is */
  unsigned reader : 1;  /* read side of a read-write lock: waits on writers */
  unsigned plain : 1;   /* EPHEMERAL, named exactly: no sequence, no queue */
  unsigned no_list : 1; /* only the node: no queue read, no wait */
  unsigned requeue : 1; /* a node lost while waiting: queue again at the back */
  unsigned maybe_made : 1; /* a create whose outcome is unknown: its uuid
                              finds it */
  unsigned w_reg : 1;   /* the round's waiter is registered */
  unsigned sole : 1;    /* the round watches our own node too */
  unsigned guard : 1;   /* and the children of base (decide.h's guarded) */
  unsigned guard_ok : 1; /* whose read showed the blocker alone ahead */
  unsigned guard_wakes : 2; /* guarded rounds in a row a child's event woke
                               (at most ZKC__GUARD_WAKES) */
  unsigned round_sync : 1; /* the round sent a sync before its watches */
  unsigned same_session : 1; /* the blocker is of our own session */
  unsigned unproven : 1; /* see zkc__qrun_how_t */
  unsigned alone : 1;    /* the grant: our node was base's only child */
  int viewing;          /* holds a reference on the client's view of base */
  unsigned layout : 3;  /* a zkc__recipe_layout_t: the layout the path must
                           keep, checked at each read (ZKC__AS_NONE: none) */
  unsigned st : 4;      /* a zkc__qstate_t */
  int rc;               /* Q_REMOVING, Q_DONE: the result */
  int stop_rc;          /* asked from outside (zkc__qrun_stop), or 0 */
  int watch_rc, own_rc; /* the round's watches' answers */
  int ahead_rc;         /* and the watch on `ahead`'s */
  int sync_rc;          /* and the sync's before them */
  char *prefix;     /* base + "/_c_<uuid>-<name>" until the node is made:
                       where the uuid is kept (a made node's name has it) */
  char *node;       /* our node once created (or adopted) */
  char *found;      /* Q_ADOPTING: a node carrying our uuid */
  int64_t token;    /* our node's czxid */
  int64_t owner;    /* its ephemeral owner: the session */
  int64_t base_czxid; /* base's czxid, as a granting read alone showed it */
  zkc__op_t *op;    /* create, search, exists, own-node (or `ahead`'s)
                       watch, or delete */
  zkc__op_t *list;  /* the latest children read */
  zkc__op_t *watch; /* Q_WATCHING: the blocker's watch; Q_LISTING: the
                       read of `also` behind the queue's, kept once that
                       read granted (zkc__qrun_also_seen) */
  zkc__op_t *kids;  /* Q_WATCHING, a guarded round: base's children read,
                       with its watch */
  zkc__waiter_t w;
  char *pred;       /* the blocker watched */
  char *ahead;      /* a round not sole: the node before the blocker,
                       watched too (in op; zkc__q_decision_t's ahead) */
  int64_t sent;     /* zkc__boot_ms before this round's watches */
  int64_t proof;    /* zkc__boot_ms before the request a grant would rest on */
};

/* What a round's answers or its wake-up say (qround.c); the machine goes
 * there (qengine.c). */
typedef enum {
  ZKC__QR_WAIT,    /* watched: wait for the round's event (Q_WAITING) */
  ZKC__QR_END,     /* the run ends with *rc */
  ZKC__QR_RETRY,   /* *rc under the client's retry policy, then read again */
  ZKC__QR_GRANT,   /* granted on the round's watches (r->proof: r->sent) */
  ZKC__QR_CONFIRM, /* every node ahead known gone: our own node's stat */
  ZKC__QR_ON_SYNC, /* read again on the round's sync, fresh */
  ZKC__QR_LIST     /* read again, behind a sync of its own */
} zkc__qr_verdict_t;

/* A read's wait on the blocker `pred`, `sole`, `guarded` (decide.h) or
 * neither, with `ahead` the node before it (NULL: none); both taken. Sends
 * the round: ZKC_OK (the run is then Q_WATCHING), or the failure to end
 * the run with (nothing sent, nothing kept). */
int zkc__qround_watch(zkc__qrun_t *r, char *pred, int sole, int guarded,
                      char *ahead);
/* Where our node stands in a read of base's `count` children `names`:
 * our twins (our uuid on another node) told to stray (with ctx) and moved
 * past *n, the rest decided (decide.h) as the run's kind. ZKC_OK, or
 * ZKC_ENOMEM. The queue's reads and a guarded round's read both decide
 * so. */
int zkc__qround_decide(const zkc__qrun_t *r, char **names, size_t count,
                       zkc__qown_stray_fn *stray, void *ctx, size_t *n,
                       zkc__q_decision_t *d);
/* Q_WATCHING's answers are in: the wait, or what the round's end says. */
zkc__qr_verdict_t zkc__qround_watched(zkc__qrun_t *r, int *rc);
/* The round's wait ended (why): its waiter leaves, and what next. */
zkc__qr_verdict_t zkc__qround_end(zkc__qrun_t *r, zkc__wake_t why, int *rc);
/* The round's waiter leaves; `remove` takes its watch off the server. */
void zkc__qround_leave(zkc__qrun_t *r, int remove);
/* Q_WATCHING given up unanswered: its waiter and its paths go. */
void zkc__qround_give_up(zkc__qrun_t *r);

#endif /* ZKC_QROUND_H */
