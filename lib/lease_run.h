/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's lease run: what the head of a semaphore's queue does to
 * take its leases, run by the queue engine's one machine (qengine.h) with
 * the "leases fit" policy written here: the same states, grant rule, wait,
 * endings and drivers' calls as every queue's run.
 *
 * One round trip when the leases fit: the lease nodes' creates (the
 * machine's create state), then the leases read, the shared count and the
 * semaphore path's own children (its layout, until accepted), all
 * pipelined behind them (its list state); when the queue's read showed
 * room, the last create deletes the queue node in the same transaction.
 * The decision is zkc__leases_decide's. While the leases do not fit, the
 * run waits on those watches, and before each wait states its place, the
 * queue node, on the session of its leases (the machine's own-node stat):
 * else another client may be head too, and two heads may wait on each
 * other for ever. A missing count node is the machine's prerequisite
 * create; a missing leases/ and the count node's missing parents the run
 * kernel's walk (run_kernel.h, which also keeps the retries). On failure
 * the nodes made are the caller's to delete (zkc__lrun_take_nodes); a
 * create cut off goes to the janitor by the run's uuid. */
#ifndef ZKC_LEASE_RUN_H
#define ZKC_LEASE_RUN_H

#include <stdint.h>

#include "names.h"
#include "qengine.h" /* the one machine */
#include "queue_nodes.h" /* zkc__held_t */
#include "qworld.h"
#include "run_kernel.h" /* zkc__qneed_t, zkc__qdriver_t, the kernel */
#include "session.h"

/* What the run is to do, all borrowed for its life. */
typedef struct zkc__lrun_how {
  const char *path;   /* the semaphore: its layout is checked at the read */
  const char *leases; /* <path>/leases */
  const char *count;  /* the shared count's node, or NULL: `max` fixed */
  const char *queue_node; /* our node at the head of <path>/locks */
  int64_t queue_session;  /* its session */
  unsigned qty;           /* lease nodes wanted */
  int32_t max;            /* the limit, or the count node's seed */
  /* The lease nodes this client holds already (other acquisitions of the
   * same object): they count against the limit (zkc__leases_decide). */
  size_t (*held)(void *ctx);
  void *held_ctx;
  int64_t deadline; /* monotonic; ZKC__FOREVER */
  /* The path's layout was accepted before (by this semaphore object): not
   * read again, unless leases/ must be made again (emptied and reaped, a
   * stranger may have begun another recipe there since). */
  unsigned layout_known : 1;
  /* How many leases the read that made the queue node first showed (-1:
   * none; zkc__lock_acquire_also). When those, ours and the held ones fit
   * a fixed limit, the first round's last create deletes the queue node in
   * its own transaction (ZKC__REQ_CREATE's release): the next head is woken
   * as our lease is made, and the ensemble writes once for both. The grant
   * still rests on our own leases read; if it shows them not fitting after
   * all (a stranger's leases), the run ends with ZKC_ELOST: queue again,
   * having no place to wait in. */
  int seen;
  const zkc__qdriver_t *drv; /* NULL: the caller waits itself */
  void *drv_ctx;
  const zkc__qworld_t *world; /* NULL: the client's */
} zkc__lrun_how_t;

/* The most requests a run awaits at once, besides its creates. */
#define ZKC__LRUN_READS 4

typedef struct zkc__lrun {
  zkc__qrun_t q; /* the machine: base leases/, name "lease-", this policy */
  zkc__lrun_how_t how;
  unsigned watching : 1; /* the reads set watches: the leases did not fit */
  unsigned layout_ok : 1; /* the path's layout was read and accepted */
  unsigned warned : 1;   /* the limits-disagree warning given */
  unsigned sent : 1;     /* a round was sent */
  unsigned releasing : 1; /* the round's last create lets the queue node go */
  unsigned left : 1;     /* the queue node was let go with our lease */
  char *count_parent;    /* the count node's parent (a prerequisite's walk) */
  char count_data[ZKC__COUNT_BYTES]; /* its seed */
  zkc__held_t *nodes;    /* qty slots; made ones have node != NULL */
  zkc__op_t **creates;   /* qty slots, in flight in the round */
  zkc__op_t *reads[ZKC__LRUN_READS]; /* sync, leases, count, layout */
} zkc__lrun_t;

/* Prepares a run of client c: ZKC_OK or ZKC_ENOMEM. */
int zkc__lrun_init(zkc__lrun_t *r, zkc_client_t *c, const zkc__lrun_how_t *how);

/* The lease run is stepped as the machine's run it is (qengine.h's calls
 * on r->q: step, ops, waiter, woken, wake_at, stop); its own are the most
 * requests it awaits at once, and the give-up of its requests' limit
 * (nothing once it is done). */
int zkc__lrun_ops_max(const zkc__lrun_t *r);
void zkc__lrun_give_up(zkc__lrun_t *r);

/* ZKC__QN_DONE: ZKC_OK (the leases fit, on a fresh proof, on a live
 * session: every node is made), ZKC_ELOST (queue again: a node of ours or
 * the queue node gone, the session replaced, a create cut off),
 * ZKC_EDEADLK, ZKC_ELAYOUT, ZKC_EPROTO (a count node not of 4 bytes),
 * ZKC_ETIMEDOUT, ZKC_ECLOSED, or a request's refusal. */
int zkc__lrun_result(const zkc__lrun_t *r);
/* The nodes made, in order (qty slots, NULL names for those not made):
 * moved to the caller, who deletes them on failure. */
zkc__held_t *zkc__lrun_take_nodes(zkc__lrun_t *r);
/* 1 when the queue node was let go with our last lease's create. */
int zkc__lrun_let_go(const zkc__lrun_t *r);
void zkc__lrun_clear(zkc__lrun_t *r);

/* In whose name a semaphore's path of another recipe's layout is refused
 * (zkc__rk_layout). */
#define ZKC__LRUN_WHO "zkc_sem_acquire"

#endif /* ZKC_LEASE_RUN_H */
