/* SPDX-License-Identifier: Apache-2.0 */
/* The session layer's door for the run kernel and its drivers: a request
 * sent on its own and its answer awaited op by op. The run kernel
 * (run_kernel.c, qengine.c, qround.c, lease_run.c, queue_nodes.c), the
 * blocking driver (drive.c, queue.c) and the async acquire's engine
 * thread (async_engine.c) include it, and the session layer's files that make,
 * send or answer ops. A recipe sends its requests through the one
 * call (zkc__call, session.h) and never sees an op: check-layers.sh holds
 * every other file to that. */
#ifndef ZKC_KERNEL_DOOR_H
#define ZKC_KERNEL_DOOR_H

#include <pthread.h>
#include <stdint.h>

#include "session_types.h"

/* ---- an op (op.c) ---- */

/* One ZooKeeper request in flight and its result (zkc__op_t, opaque in
 * session.h). Ops are submitted asynchronously so that several ride in one
 * round trip (a session's requests are applied in order); a wait collects
 * each result. */
/* Sends a delete of `node` that nobody waits for: its answer is told as a
 * held node's delete's (zkc__delete_answered) on the completion thread.
 * ZKC_OK (sent, or handed to the janitor when the session is not live),
 * ZKC_ECLOSED (the node goes with the client), ZKC_ENOMEM (nothing sent:
 * the caller waits for a delete of its own or hands it to the janitor). */
int zkc__delete_unwaited(zkc_client_t *c, const char *node);

/* The queue engine's world over c (qworld.h; the client's, set at open by
 * session_world.c): the runs' default, reached without naming it. */
const struct zkc__qworld *zkc__client_world(zkc_client_t *c);

struct zkc__op {
  zkc_client_t *c;
  struct zkc__op *prev, *next; /* in the client's list while in flight */
  int in_flight;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  int rc;    /* ZKC_* */
  int zk_rc; /* the ZooKeeper client's own code, for logs */
  zkc__stat_t stat;
  char *created;         /* create: the node's path (malloc) */
  zkc__names_t children; /* children read */
  char *data;            /* get data: a copy, NUL-terminated */
  int data_len;
  int failed;            /* a transaction: its failing operation, -1 none */
  int failed_check;      /* a fenced write: which checked node failed, -1 */
  /* Optional: called once the op is done, after its last touch of op (an
   * async acquire's engine learns of it so; NULL for waited ops). */
  void (*notify)(void *ctx);
  void *notify_ctx;
  int orphan; /* given up: freed on completion (zkc__op_give_up) */
  /* A record the request's completion reads (a multi's results), freed
   * with the op by zkc__op_clear, so that an answer the ZooKeeper client
   * drops at close (zkc__ops_abandon then finishes the op) leaks nothing. */
  void *aux;
  void (*aux_free)(void *aux);
  uint64_t gen; /* the handle it was sent on (0: none) */
  int64_t sent_us; /* a sync: when it was sent (zkc__now_us) */
};

int zkc__op_init(zkc__op_t *op);
void zkc__op_clear(zkc__op_t *op); /* frees results, aux and the op's sync */
/* Gives op the record `aux` its request's completion reads, freed with op
 * (by aux_free) once nothing can answer the request any more; (NULL, NULL)
 * takes it back, unfreed. Each send of a record uses a fresh op. */
void zkc__op_own(zkc__op_t *op, void *aux, void (*aux_free)(void *));
/* Waits for the result and returns its rc (a failed request's raw code is
 * noted for zkc_last_zk_code on this thread). */
int zkc__op_wait(zkc__op_t *op);
/* How long past its deadline a timed call may wait for the answers it
 * needs (its create, its reads, its own node's delete): about a round trip
 * on a loaded ensemble, so that a timeout of 0 still gets one. Past it the
 * call gives up what is in flight on a silent connection and leaves the
 * clean-up to the background (the janitor). */
#define ZKC__GRACE_MS 200

/* An op on the heap (NULL without memory), for a wait that may give up;
 * zkc__op_free frees a finished one. */
zkc__op_t *zkc__op_new(void);
void zkc__op_free(zkc__op_t *op);
/* Waits for the result until limit_ms (monotonic, ZKC__FOREVER): its rc,
 * or ZKC_ETIMEDOUT while the request is still in flight. Past limit_ms it
 * waits on only while the connection is answering (some request of the
 * client answered less than ZKC__GRACE_MS ago: a busy ensemble, not a
 * silent one), and no longer than 2/3 of the session timeout past it (when
 * the client itself would give the connection up). */
int zkc__op_wait_until(zkc__op_t *op, int64_t limit_ms);
/* Gives up an op from zkc__op_new: freed now if finished, else by its
 * completion (which may come long after, or at close). The caller must not
 * touch it again. Returns 1 when it was still in flight: its completion
 * then tells nobody (no notify); 0 when it had finished, and its notify
 * (if any) was or is being called. */
int zkc__op_give_up(zkc__op_t *op);
/* 1 once op's result is in (never blocks). */
int zkc__op_done(zkc__op_t *op);

/* ---- requests as data (send.c; the kinds are in session.h) ---- */

/* Sends rq: it is queued (its completion fills op: rc, stat, created,
 * children, data) or fails at once, op then done with the error. Several
 * sent one after another ride in one round trip, applied in order. */
void zkc__send(zkc_client_t *c, zkc__op_t *op, const zkc__req_t *rq);

/* ---- what a driver and the kernel's blocking calls ask of the session ---- */

/* zkc__waiter_wait's answers without blocking (the caller's cancel flag
 * aside): 1 with *why set once the waiter would wake, else 0. */
int zkc__waiter_check(zkc_client_t *c, zkc__waiter_t *w, zkc__wake_t *why);

/* A guard started later (guard.c): the async engine's, which lists the
 * hold before the guard may tell of it. */
/* As zkc__guard_add, but the guard does nothing (no request, no delete
 * told) until zkc__guard_start(c, *id): an owner that must first record
 * the id where fn looks for it (a hold listed under its own lock, which
 * ranks below the client's) starts it once it has, and no delete of the
 * node meanwhile goes untold: the first watch request then finds it gone.
 * Starting a guard twice, or one removed, does nothing. */
int zkc__guard_add_held(zkc_client_t *c, const char *path, int64_t session_id,
                        zkc__guard_fn fn, void *ctx, uint64_t *id);
void zkc__guard_start(zkc_client_t *c, uint64_t id);

/* How the session session_id stands now (state.c): a recipe compares its
 * node's session with the client's facts (zkc__client_facts). */
zkc__session_fate_t zkc__session_fate(zkc_client_t *c, int64_t session_id);

/* 1 while a live session is connected read-write (state.c). */
int zkc__session_live(zkc_client_t *c);

/* What the answer `rc` to the delete of a held node means (janitor.c):
 * ZKC_OK (gone, or finished in the background after connection loss or a
 * session's end: zkc__janitor_add), ZKC_ELOST (it was gone already), or
 * the server's refusal (logged: the node stays until its session ends). */
int zkc__delete_answered(zkc_client_t *c, const char *node, int rc);

/* The client's retry wait (zkc__retry_wait, session_shared.h) in two
 * halves, for a caller that does not block (the queue engine's world,
 * session_world.c; the semaphore's acquire run, sem_run.c): the decision, ZKC_OK
 * with *wake_at the end of the backoff (attempt incremented) or the reason
 * to stop as zkc__retry_wait's; the pause is zkc__pause_until. */
int zkc__retry_delay(zkc_client_t *c, int *attempt, int rc,
                     int64_t deadline_ms, int64_t *wake_at);

/* Blocks until the watch fires, the deadline passes, the client closes (or
 * the thread's wait is cancelled) or the waiter's session is gone
 * (waiters.c): the blocking driver's wait; a recipe's is its waiter's end
 * (zkc__waiter_end, session.h). */
zkc__wake_t zkc__waiter_wait(zkc_client_t *c, zkc__waiter_t *w,
                             int64_t deadline_ms);

/* The pause of a retry's backoff, on the client's state (retry.c): ZKC_OK
 * at until_ms, ZKC_ECLOSED when close or a cancel cut it short. */
int zkc__pause_until(zkc_client_t *c, int64_t until_ms);

/* 1 for the codes worth retrying: connection loss, operation timeout
 * (retry.c). The runs' answers are judged by it; a recipe's requests
 * are retried by the one call (zkc__call). */
int zkc__retryable(int rc);

/* 1 when waiter w's watch (session.h), set through the current handle,
 * has not fired and nothing since w registered has broken the order of
 * this client's events (a state change, a watch removed, another handle):
 * an event on its node sent before an answer this client has taken in
 * would have been told. */
int zkc__waiter_intact(zkc_client_t *c, zkc__waiter_t *w);
/* Starts w's registration anew, keeping its id, before its watch is set
 * again: the client's registration of that watch is then the same one
 * (no second kept per setting), and no other watch of the client is
 * touched (a removal would break their order too). */
void zkc__waiter_renew(zkc_client_t *c, zkc__waiter_t *w);

#endif /* ZKC_KERNEL_DOOR_H */
