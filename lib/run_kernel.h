/* SPDX-License-Identifier: Apache-2.0 */
/* The run kernel: what the runs of the one machine that never blocks
 * (qengine.h: a queue's, or a policy's such as the semaphore's lease run,
 * lease_run.h) share below their states, written once. Its ops and their driver; the retry (the client's policy, its
 * backoff, then a connected session); the walk that makes a missing
 * node's parents; the grant rule on a fresh proof of a live session; how
 * a run ends (the rc a dead session means, a create cut off handed to the
 * janitor by its uuid); the step loop. While the kernel has a run (a
 * backoff, a wait for the session, a parents' walk: zkc__rk_busy), the
 * kernel takes the run's steps; the run's own state is already the one it
 * goes on from once the kernel is done. It reaches the world only through
 * qworld.h, and is tested on scripted answers (unit.run_kernel). */
#ifndef ZKC_RUN_KERNEL_H
#define ZKC_RUN_KERNEL_H

#include <stdint.h>

#include "names.h" /* zkc__recipe_layout_t */
#include "qworld.h"
#include "session.h"

/* What a run needs before its next step. */
typedef enum zkc__qneed {
  ZKC__QN_REPLY,   /* its requests' answers (the run's ops), until its limit */
  ZKC__QN_EVENT,   /* its waiter's wake-up, until the deadline: then the
                      run is told how it woke */
  ZKC__QN_SESSION, /* a connected session, until the deadline */
  ZKC__QN_TIME,    /* the end of a retry's backoff (the run's wake_at) */
  ZKC__QN_DONE     /* finished: the run's result */
} zkc__qneed_t;

/* How a run's requests and watches tell its driver, each called with the
 * run's driver context (no driver: it waits on them itself, as the
 * blocking acquire does). */
typedef struct zkc__qdriver {
  /* An op whose completion tells the driver (NULL without memory). */
  zkc__op_t *(*op_new)(void *ctx);
  /* An op of op_new given up in flight: its completion will tell nobody. */
  void (*op_dropped)(void *ctx);
  /* A waiter's wake-up. */
  void (*wake)(void *ctx);
} zkc__qdriver_t;

/* The kernel's own states (zkc__rk_t.st). */
typedef enum {
  ZKC__RK_IDLE,      /* the run's own states step it */
  ZKC__RK_BACKOFF,   /* a retry's backoff, then ZKC__RK_CONNECT */
  ZKC__RK_CONNECT,   /* wait for a connected session, then `then` */
  ZKC__RK_PARENT,    /* make the node `up` levels above `walk` */
  ZKC__RK_PARENTING  /* that create's answer */
} zkc__rk_state_t;

/* The part of a run the kernel keeps: set by zkc__rk_init, the rest its
 * own. Kept small: one lives in every pending async acquire. */
typedef struct zkc__rk {
  zkc_client_t *c;
  const zkc__qworld_t *world; /* requests out, facts in */
  const zkc__qdriver_t *drv;  /* NULL: the caller waits itself */
  void *drv_ctx;
  int64_t deadline; /* monotonic, ZKC__FOREVER */
  int64_t wake_at;  /* ZKC__RK_BACKOFF: its end */
  int retries;      /* the retry policy's attempt (per outage) */
  unsigned st : 3;      /* a zkc__rk_state_t */
  unsigned then : 3;    /* ZKC__RK_CONNECT: what next (IDLE: the run's) */
  unsigned parents : 4; /* walks begun (ZKC__PARENT_RECREATE_MAX) */
  short up, steps;      /* the walk (zkc__parent_next) */
  const char *walk;     /* whose parents are made (borrowed) */
  zkc__op_t *op;        /* ZKC__RK_PARENTING: the create */
} zkc__rk_t;

void zkc__rk_init(zkc__rk_t *k, zkc_client_t *c, const zkc__qworld_t *world,
                  const zkc__qdriver_t *drv, void *drv_ctx, int64_t deadline);

/* ---- ops ---- */

/* An op telling the run's driver (NULL without memory). */
zkc__op_t *zkc__rk_op_new(zkc__rk_t *k);
/* An op dropped, finished or not: one in flight is given up (its
 * completion frees it and tells nobody), and only then is the driver told
 * (an op that finished, even between a look and the give-up, told it). */
void zkc__rk_op_drop(zkc__rk_t *k, zkc__op_t **op);
/* An answered op freed. */
void zkc__rk_op_end(zkc__op_t **op);

/* ---- taking the run: when these say ZKC_OK the kernel has the run, and
 * the run sets its own state to the one it goes on from ---- */

/* A failure rc: ZKC_OK with the client's retry policy's backoff begun
 * (then a connected session), or the failure to end the run with. */
int zkc__rk_retry(zkc__rk_t *k, int rc);
/* Waits for a connected session (no backoff). */
void zkc__rk_connect(zkc__rk_t *k);
/* Makes the parents of walk (borrowed), a create at a time: ZKC_OK, or
 * ZKC_ENONODE when ZKC__PARENT_RECREATE_MAX walks were begun already. */
int zkc__rk_parents(zkc__rk_t *k, const char *walk);

/* 1 while the kernel has the run: its steps are the kernel's. */
int zkc__rk_busy(const zkc__rk_t *k);

/* The kernel's turn at the start of every step of a run: what the run
 * needs while the kernel has it (a zkc__qneed_t: REPLY, SESSION or TIME),
 * or one of these. */
#define ZKC__RK_AGAIN (-1) /* step again now */
#define ZKC__RK_BACK (-2)  /* the run's own state steps now */
#define ZKC__RK_FAIL (-3)  /* the run ends with *rc */
int zkc__rk_advance(zkc__rk_t *k, int *rc);

/* Its requests awaited (at most one, written to ops). */
int zkc__rk_ops(zkc__rk_t *k, zkc__op_t **ops);
/* 1 while an answer of the kernel's is to be taken in before a stop. */
int zkc__rk_answered(const zkc__rk_t *k);
/* The run leaves the kernel (it ends): its request given up. */
void zkc__rk_leave(zkc__rk_t *k);

/* ---- deciding ---- */

/* The grant rule: a grant rests on an answer whose request was sent at
 * proof (zkc__boot_ms) while the session that owns our nodes is the
 * current one, live (proven renewed at the leader), and the answer fresh
 * enough that no stall of this process can have outlived the session
 * since. GRANTED tells the world (granted) as it is made. */
typedef enum {
  ZKC__RK_GRANTED,  /* granted */
  ZKC__RK_STALE,    /* the answer is too old: read again at once */
  ZKC__RK_GONE,     /* the session of our nodes is gone: ZKC_ELOST */
  ZKC__RK_NOT_LIVE  /* not proven live: read again once connected */
} zkc__rk_grant_t;
zkc__rk_grant_t zkc__rk_grant(zkc__rk_t *k, int64_t session, int64_t proof);
/* The same rule for a session of client c (a run over several clients:
 * the multi-lock's confirmation), told to nobody: GRANTED when proven. */
zkc__rk_grant_t zkc__rk_proven(const zkc__rk_t *k, zkc_client_t *c,
                               int64_t session, int64_t proof);

/* How a wait ended, as the run's result: ZKC_OK when its event fired. */
int zkc__rk_woken_rc(zkc__wake_t why);

/* The result a run ends with for rc: a request refused by a dead handle
 * (ZKC_ESESSIONEXPIRED) means our nodes went with the session. */
int zkc__rk_end_rc(int rc);

/* The layout of path as a read of its children (kids) shows it, their
 * zkc__child_layout or'ed into *layouts when not NULL: ZKC_OK, or
 * ZKC_ELAYOUT when another recipe's than `as`, told to the thread and the
 * log in the name of `who` (the recipe, or its public call). Every read a
 * run makes of a path it may share checks it, so that of two recipes begun
 * on one path at once, the one whose read sees the other's nodes gives
 * way. */
int zkc__rk_layout(zkc_client_t *c, zkc__recipe_layout_t as, const char *who,
                   const char *path, const zkc__names_t *kids,
                   unsigned *layouts);

/* A create of prefix (base + "/_c_<uuid>-...") whose outcome is unknown:
 * whatever session made it, the janitor finds it under base by its uuid
 * (its read goes after the create). */
void zkc__rk_janitor_uuid(zkc__rk_t *k, const char *base, const char *prefix);

/* ---- the step loop ---- */

/* Calls advance (a run's one step: a zkc__qneed_t, or ZKC__RK_AGAIN) until
 * it says what the run needs. */
zkc__qneed_t zkc__rk_loop(int (*advance)(void *run), void *run);

/* A run's calls, each taking the run. */
typedef struct zkc__run_calls {
  zkc__qneed_t (*step)(void *run);
  int (*ops)(void *run, zkc__op_t **ops); /* ZKC__QN_REPLY: the requests */
  void (*give_up)(void *run);             /* ...unanswered at the limit */
  zkc__waiter_t *(*waiter)(void *run);    /* ZKC__QN_EVENT */
  void (*woken)(void *run, zkc__wake_t why);
  int64_t (*wake_at)(const void *run);    /* ZKC__QN_TIME */
  void (*stop)(void *run, int rc);
} zkc__run_calls_t;

/* What a run of holds granted already adds (the confirm run's). */
typedef struct zkc__run_bind {
  /* The client whose session and backoff the run waits on now: a run over
   * several clients retries on the one that failed. */
  zkc_client_t *(*client)(void *run);
  /* The session the run's holds rest on: its wait for a connected session
   * ends (ZKC_ELOST) once that session is gone, rather than for as long as
   * the ensemble stays out of reach. */
  int64_t (*bound)(void *run);
} zkc__run_bind_t;

#endif /* ZKC_RUN_KERNEL_H */
