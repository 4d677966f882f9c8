/* SPDX-License-Identifier: Apache-2.0 */
/* The session layer's one door: everything a recipe may ask of a client.
 * Recipes (the queue, the mutex, the semaphore, the latch, ...) include
 * this header and no other header of the session layer; the client object
 * stays opaque. What the session layer's own files share among themselves
 * is in session_shared.h, the tests' hooks in test_hooks.h. ZooKeeper's
 * codes and states never pass this door: every result is a ZKC_* code. */
#ifndef ZKC_SESSION_H
#define ZKC_SESSION_H

#include <pthread.h>
#include <stdint.h>

#include "hash.h"
#include "zkcoord/client.h"

/* ---- public calls (errors.c) ---- */

/* A public call's end: every exported function that returns a ZKC_* code
 * is written
 *
 *   ZKC__PUBLIC(zkc_thing_do, (zkc_thing_t *t, int n), (t, n)) {
 *     ...body, returning a code...
 *   }
 *
 * which defines zkc_thing_do (the exported symbol, as declared in its public
 * header) around a static body; when the body returns a failure, the
 * calling thread's zkc_last_error_message is made to describe it: the
 * detail a refusal of this call gave for that code (zkc__refuse, with the
 * function, the argument and why), or else "zkc_thing_do: <zkc_strerror>".
 * So the message always describes the thread's last failed call, never an
 * older failure's detail. A call that succeeds leaves it as it was
 * (errors.c). */

/* A mark taken as a public call starts. */
unsigned zkc__public_enter(void);
/* Its end: rc passes through; a failure sets the thread's message unless a
 * refusal since `mark` already described that code. */
int zkc__public_leave(const char *fn, unsigned mark, int rc);

#define ZKC__PUBLIC(name, params, args)                                  \
  static int name##__body params;                                        \
  int name params {                                                      \
    unsigned zkc__mark = zkc__public_enter();                            \
    return zkc__public_leave(#name, zkc__mark, name##__body args);       \
  }                                                                      \
  static int name##__body params

/* ---- life: references and blocking calls (client.c, state.c) ---- */

/* Takes a reference for a recipe object; ZKC_ECLOSED if already closed. */
int zkc__client_ref(zkc_client_t *c);
/* Drops it; the last reference frees the client. */
void zkc__client_unref(zkc_client_t *c);

/* Brackets a blocking call: fails with ZKC_EDEADLK on a callback thread and
 * ZKC_ECLOSED after close; close waits until every entered call left. */
int zkc__call_enter(zkc_client_t *c);
void zkc__call_leave(zkc_client_t *c);

/* ---- the session's state (state.c) ---- */

/* How a node owned by session_id stands now. */
typedef enum {
  ZKC__SESSION_LIVE,  /* the current session, connected read-write */
  ZKC__SESSION_DOUBT, /* the current session, connection down or read-only */
  ZKC__SESSION_GONE   /* expired, presumed lost, replaced, or never ours */
} zkc__session_fate_t;
zkc__session_fate_t zkc__session_fate(zkc_client_t *c, int64_t session_id);
/* Current session id (0 if none). */
int64_t zkc__session_id(zkc_client_t *c);

/* Whether a grant may rest on a server answer to a request sent at
 * sent_boot_ms (zkc__boot_ms, taken before the request was submitted): 1
 * while less than half the negotiated session timeout has passed since.
 * The server renews a session whenever it hears from it, so the session
 * that got that answer lives at least a session timeout after the send,
 * whatever stalled this process meanwhile (a stop, a swap-in, a blocked
 * I/O thread). An answer or event that sat in the socket through a longer
 * stall proves nothing: the caller reads again. */
int zkc__grant_fresh(zkc_client_t *c, int64_t sent_boot_ms);
/* A grant decided on a fresh proof, told as it is made: the queue
 * engine's and the lease run's through their world (qworld.c), the
 * multi-lock's set directly. */
void zkc__granted(zkc_client_t *c);

/* 1 while a live session is connected read-write. */
int zkc__session_live(zkc_client_t *c);

/* The client's stats records (stats.h): recipes take theirs at create. */
struct zkc__stats_hub *zkc__client_stats_hub(zkc_client_t *c);

/* Waits until a live session is connected read-write (through a session
 * re-creation if one is under way), up to deadline_ms. ZKC_OK,
 * ZKC_ETIMEDOUT or ZKC_ECLOSED (closed, or the thread's wait cancelled). */
int zkc__wait_connected(zkc_client_t *c, int64_t deadline_ms);

/* 1 once zkc_client_close has begun. */
int zkc__client_closed(zkc_client_t *c);

/* ---- the client's settings (state.c) ---- */

/* The holder id stored in lock nodes (the option, or "host:pid"); lives as
 * long as the client. */
const char *zkc__holder_id(const zkc_client_t *c);
/* The lost_on_suspended option. */
int zkc__lost_on_suspended(const zkc_client_t *c);
/* ---- state changes for recipes (listeners.c) ---- */

/* Recipes learn of state changes before the user's listeners do. */
typedef void (*zkc__observer_fn)(void *ctx, zkc_state_t state,
                                 int64_t lost_session);
/* Called on the maintenance thread for every state change, before the
 * user's listeners. Remove returns ZKC_EDEADLK when called from the
 * maintenance thread during a dispatch. */
int zkc__observer_add(zkc_client_t *c, zkc__observer_fn fn, void *ctx);
int zkc__observer_remove(zkc_client_t *c, zkc__observer_fn fn, void *ctx);

/* A recipe object's tie to its client: a reference plus its observer.
 * Attach gives ZKC_ECLOSED after close and leaves nothing on failure;
 * detach gives ZKC_EDEADLK (and keeps both) when called from the
 * maintenance thread during a dispatch. */
int zkc__recipe_attach(zkc_client_t *c, zkc__observer_fn fn, void *ctx);
int zkc__recipe_detach(zkc_client_t *c, zkc__observer_fn fn, void *ctx);

/* ---- an op: one request in flight and its answer (op.c) ---- */

/* What zkcoord reads of a node's stat. */
typedef struct zkc__stat {
  int64_t czxid;           /* the create's zxid: the fencing token */
  int64_t ctime;           /* ms since the epoch */
  int64_t ephemeral_owner; /* session id, 0 for a persistent node */
  int32_t version;         /* the data version */
} zkc__stat_t;

/* A children list (names only), owned by the op that read it. */
typedef struct zkc__names {
  int count;
  char **data;
} zkc__names_t;


/* One ZooKeeper request in flight and its result. Ops are submitted
 * asynchronously so that several ride in one round trip (a session's
 * requests are applied in order); zkc__op_wait collects each result. */
typedef struct zkc__op {
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
  /* Optional: called once the op is done, after its last touch of op (an
   * async acquire's engine learns of it so; NULL for waited ops). */
  void (*notify)(void *ctx);
  void *notify_ctx;
  int orphan; /* given up: freed on completion (zkc__op_give_up) */
} zkc__op_t;

int zkc__op_init(zkc__op_t *op);
void zkc__op_clear(zkc__op_t *op); /* frees results and the op's sync */
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

/* ---- requests as data (ops.c) ---- */

/* A request, described as data: what a recipe (or the queue engine's
 * world) asks the server. Every node kind and ACL, the parent mode, the
 * watches' bookkeeping stay behind the door. */
typedef enum zkc__req_kind {
  ZKC__REQ_CREATE,   /* a participant's node at `path` (the protected
                        prefix) with `data`: ephemeral-sequential, or
                        ephemeral when `plain` */
  ZKC__REQ_PARENT,   /* a missing parent at `path`, empty, in the client's
                        parent mode */
  ZKC__REQ_COUNT,    /* a persistent node at `path` holding the `len` bytes
                        of `data` (a semaphore's shared count) */
  ZKC__REQ_CHILDREN, /* the children of `path` */
  ZKC__REQ_SYNC,     /* a sync of `path` through the leader: a follower
                        answers it only once the leader has (and the leader
                        checks the session then: an expired one gets
                        ZKC_ESESSIONEXPIRED), and it holds the session's
                        later reads until then, so a read pipelined behind
                        a sync that succeeded shows the ensemble's state
                        from after the sync was sent */
  ZKC__REQ_EXISTS,   /* the stat of `path` */
  ZKC__REQ_GET,      /* the data of `path` into op->data, op->data_len */
  ZKC__REQ_GET_IN_SESSION, /* ZKC__REQ_GET, but only on a handle of session
                        `session`: on another's (or none) op ends at once
                        with ZKC_ESESSIONEXPIRED and nothing is sent. So
                        sent, it is answered to that session alone, by a
                        server that has applied everything the session was
                        answered before */
  ZKC__REQ_EXISTS_IN_SESSION, /* ZKC__REQ_EXISTS, on a handle of session
                        `session` only, as ZKC__REQ_GET_IN_SESSION (an
                        exists asks for no permission on the node) */
  ZKC__REQ_SET,      /* `len` bytes of `data` into `path`, any version */
  ZKC__REQ_DELETE,   /* `path`, any version */
  /* With a watch for the waiter whose id is `watch` (the queue engine's
   * and the lease run's rounds, through their world): */
  ZKC__REQ_WATCH,          /* the stat of `path` and a data watch */
  ZKC__REQ_CHILDREN_WATCH, /* the children of `path` and a children watch */
  ZKC__REQ_GET_WATCH       /* the data of `path` and a data watch */
} zkc__req_kind_t;

typedef struct zkc__req {
  zkc__req_kind_t kind;
  const char *path; /* the caller's: serialized by the send */
  const char *data; /* CREATE: NUL-terminated; COUNT, SET: `len` bytes */
  int len;
  int plain;        /* CREATE: no sequence */
  const char *release; /* CREATE (sequential): a node deleted in the same
                        transaction; answered as session_shared.h's
                        zkc__submit_create_releasing says */
  uint64_t watch;   /* the *_WATCH kinds: the waiter's id */
  int64_t session;  /* *_IN_SESSION: the session it must go through */
} zkc__req_t;

/* Sends rq: it is queued (its completion fills op: rc, stat, created,
 * children, data) or fails at once, op then done with the error. Several
 * sent one after another ride in one round trip, applied in order. */
void zkc__send(zkc_client_t *c, zkc__op_t *op, const zkc__req_t *rq);

/* The transaction cases, sent and waited for. */
/* One transaction: check that check_path exists, then set path's data,
 * only if its data version is `version` (-1: any). Returns the failing
 * operation's error with *failed_op its index (0 the check, 1 the set), or
 * ZKC_OK; then *new_version (when not NULL) is the version the set gave
 * path. */
int zkc__op_run_check_set_version(zkc_client_t *c, const char *check_path,
                                  const char *path, const void *data, int len,
                                  int32_t version, int32_t *new_version,
                                  int *failed_op);

/* One transaction: check that check_path exists, then create path
 * (persistent, with the ACL of a node of kind ZKC_NODE_PARENT) holding
 * data. Returns the failing operation's error with *failed_op its index
 * (0 the check, 1 the create; -1 when none was sent), or ZKC_OK. */
int zkc__op_run_check_create(zkc_client_t *c, const char *check_path,
                             const char *path, const void *data, int len,
                             int *failed_op);


/* ---- one call: requests sent together, each answer awaited within a
 * limit, retried under the client's policy when asked (call.c). Every
 * blocking request of a recipe outside the run kernel goes through it. */

/* One request of a call and, once it is over, its answer, moved out of
 * the op: data, created and children are the caller's (zkc__call_clear). */
typedef struct zkc__call {
  zkc__req_t rq;         /* the request; its strings are read by the send */
  int rc;                /* its answer; ZKC_ETIMEDOUT: none by the limit */
  zkc__stat_t stat;      /* the node's stat, as the answer gave it */
  char *data;            /* the GET kinds: a copy, NUL-terminated */
  int data_len;
  char *created;         /* the create kinds: the node's path */
  zkc__names_t children; /* ZKC__REQ_CHILDREN */
  zkc__op_t *op;         /* the call's, from the send to the wait */
} zkc__call_t;

/* Whether a call sends its requests again after a retryable failure
 * (zkc__retryable), under the client's retry policy until deadline_ms: */
typedef enum {
  ZKC__CALL_ONCE,        /* never */
  ZKC__CALL_RETRY,       /* yes; a stop returns its reason (zkc__retry_wait's:
                            the answer itself once the policy is spent,
                            ZKC_ETIMEDOUT, ZKC_ECLOSED, ...) */
  ZKC__CALL_RETRY_ANSWER /* yes; a stop returns the last answer */
} zkc__call_retry_t;

typedef struct zkc__call_opts {
  int64_t limit_ms;        /* each answer awaited until then (monotonic,
                              ZKC__FOREVER; zkc__op_wait_until) */
  zkc__call_retry_t retry;
  int64_t deadline_ms;     /* the retries' bound (ZKC__FOREVER) */
  /* Non-zero: retries only while this session may live (ZKC_ESESSIONEXPIRED
   * once it is gone, also while waiting for the connection). */
  int64_t session;
  /* Optional: asked before each retry, once connected; non-ZKC_OK stops
   * the call with it. */
  int (*still)(void *ctx);
  void *still_ctx;
} zkc__call_opts_t;

/* Sends calls[0..n) in order (one round trip), waits for every answer
 * (given up past the limit: freed by its completion), and with a retry
 * mode sends them all again while the call's answer is retryable (the
 * rules: zkc__call_answer, zkc__call_retries in session_shared.h). o
 * NULL: once, without a limit. Returns the call's answer, or the reason
 * the retries stopped; each call's own answer is in it. */
int zkc__call(zkc_client_t *c, zkc__call_t *calls, size_t n,
              const zkc__call_opts_t *o);
/* zkc__call's halves, for requests to several clients waited for
 * together: the send (ZKC_ENOMEM or ZKC_ESYSTEM, and nothing sent, when
 * an op cannot be made), and the wait of everything sent. */
int zkc__call_send(zkc_client_t *c, zkc__call_t *calls, size_t n);
void zkc__call_wait(zkc__call_t *calls, size_t n, int64_t limit_ms);
/* Frees the answers (data, created, children) and zeroes them. */
void zkc__call_clear(zkc__call_t *calls, size_t n);

/* ---- threads waiting for a watched node (waiters.c) ---- */

/* A thread blocked until the node it watches changes. Lives on the waiting
 * thread's stack while registered; the watch finds it by id, so a watch
 * that fires after the waiter left touches nothing. */
typedef struct zkc__waiter {
  uint64_t id;
  const char *path; /* the watched node (the waiter's own string) */
  const char *also; /* a second node with a data watch, or NULL */
  const char *own;  /* the waiter's own node, watched too, or NULL */
  int own_touched;  /* an event on `own` came, or its watch was removed */
  int clean;        /* `path` was deleted while `own` was untouched, in order */
  uint64_t epoch;   /* the client's watch_epoch at registration */
  int fired;        /* a node event arrived, or the watch must be set again */
  uint64_t handle_gen; /* the handle (session) its watch was set through */
  pthread_cond_t cv;
  /* Optional: told (client's lock held) whenever cv is signalled, for an
   * owner that polls instead of waiting (the async engine); NULL else. */
  void (*notify)(void *ctx);
  void *notify_ctx;
  UT_hash_handle hh;
} zkc__waiter_t;


typedef enum {
  ZKC__WAKE_FIRED,
  ZKC__WAKE_TIMEOUT,
  ZKC__WAKE_CLOSED,
  ZKC__WAKE_LOST
} zkc__wake_t;

/* Blocks until the watch fires, the deadline passes, the client closes (or
 * the thread's wait is cancelled) or the waiter's session is gone. */
zkc__wake_t zkc__waiter_wait(zkc_client_t *c, zkc__waiter_t *w,
                             int64_t deadline_ms);

/* The same answers without blocking (the caller's cancel flag aside): 1
 * with *why set once the waiter would wake, else 0. */
int zkc__waiter_check(zkc_client_t *c, zkc__waiter_t *w, zkc__wake_t *why);



/* Wakes every waiter and every wait on the state condition, so that a
 * thread whose cancel flag was just set (zkc__cancel_bind) sees it. */
void zkc__cancel_wake(zkc_client_t *c);

/* ---- holders watching their own nodes (guard.c) ---- */

/* Told, on the maintenance thread, that the guarded node was deleted while
 * its session lived. */
typedef void (*zkc__guard_fn)(void *ctx, uint64_t guard_id);

/* Watches `path` (a node of session_id) until zkc__guard_remove, from a
 * short while after this call on; sets *id (never 0). No ZooKeeper traffic
 * here. ZKC_OK or ZKC_ENOMEM. */
int zkc__guard_add(zkc_client_t *c, const char *path, int64_t session_id,
                   zkc__guard_fn fn, void *ctx, uint64_t *id);
/* As zkc__guard_add, but the guard does nothing (no request, no delete
 * told) until zkc__guard_start(c, *id): an owner that must first record
 * the id where fn looks for it (a hold listed under its own lock, which
 * ranks below the client's) starts it once it has, and no delete of the
 * node meanwhile goes untold: the first watch request then finds it gone.
 * Starting a guard twice, or one removed, does nothing. */
int zkc__guard_add_held(zkc_client_t *c, const char *path, int64_t session_id,
                        zkc__guard_fn fn, void *ctx, uint64_t *id);
void zkc__guard_start(zkc_client_t *c, uint64_t id);
/* As zkc__guard_add, for a revocable hold: watched at once with a get-watch,
 * and revoked_fn(ctx, id) is told on the maintenance thread of each data
 * version after told_version (-1: any) that carries the revocation marker
 * (zkc__is_revoke_marker). */
int zkc__guard_add_revocable(zkc_client_t *c, const char *path,
                             int64_t session_id, zkc__guard_fn fn,
                             zkc__guard_fn revoked_fn, void *ctx,
                             int32_t told_version, uint64_t *id);
/* The data version whose marker guard `id` told last (-1: none): a guard
 * that replaces it on the same node starts from there. */
int32_t zkc__guard_told_version(zkc_client_t *c, uint64_t id);
/* Stops guarding; once it returns, fn is not running for it (unless called
 * from fn itself). id 0 is ignored. */
void zkc__guard_remove(zkc_client_t *c, uint64_t id);

/* ---- guaranteed deletes (janitor.c) ---- */

/* Queues a delete of `path` (or, with uuid, of the protected node with that
 * uuid under `path`), retried by whatever session is current until the node
 * is gone or the server refuses. */
void zkc__janitor_add(zkc_client_t *c, const char *path, const char *uuid);
/* What the answer `rc` to the delete of a held node means: ZKC_OK (gone,
 * or finished in the background after connection loss or a session's
 * end: zkc__janitor_add), ZKC_ELOST (it was gone already), or the
 * server's refusal (logged: the node stays until its session ends). */
int zkc__delete_answered(zkc_client_t *c, const char *node, int rc);

/* ---- the retry and backoff policy (retry.c): every wait after a failure
 * (a recipe's retried request, the janitor's delete, the guard's check, a
 * new session, the latch's next try) is timed there ---- */

/* 1 for the codes worth retrying: connection loss, operation timeout. */
int zkc__retryable(int rc);

/* 1 for the codes the same request would meet again however long it
 * waited: an ACL or the credentials refuse it, the chroot is gone, the
 * server rejects the path or the ACL, the path holds another recipe's
 * nodes (ZKC_ELAYOUT). A recipe that queues on its own
 * thread (latch, selector) ends its election on them instead of retrying
 * forever. */
int zkc__permanent(int rc);

/* The same policy for the library's own background work (a new session, a
 * janitor's delete, a guard's check, an election's next try), with fixed
 * bounds of its own (100 ms base, 5 s cap) rather than the user's request
 * policy: a zero base must not make it spin, a long cap must not leave a
 * dead node blocking a queue. Counts *attempt up (saturating). */
int64_t zkc__background_backoff_ms(int *attempt);

/* After a retryable failure: sleeps the policy's backoff for `*attempt`,
 * then waits for the connection, both bounded by deadline_ms, and returns
 * ZKC_OK to try again (attempt incremented), or the reason to stop:
 * `rc` itself when the policy is exhausted, ZKC_ETIMEDOUT, ZKC_ECLOSED,
 * ZKC_ELOST. */
int zkc__retry_wait(zkc_client_t *c, int *attempt, int rc,
                    int64_t deadline_ms);
/* zkc__retry_wait in two halves, for a caller that does not block (the
 * queue engine): the decision, ZKC_OK with *wake_at the end of the backoff
 * (attempt incremented) or the reason to stop as above; and the pause, on
 * the client's state (ZKC_ECLOSED when close or a cancel cut it short). */
int zkc__retry_delay(zkc_client_t *c, int *attempt, int rc,
                     int64_t deadline_ms, int64_t *wake_at);
int zkc__pause_until(zkc_client_t *c, int64_t until_ms);

/* ---- log lines through the client's sink (log.c) ---- */

/* An internal log line through the user's sink (filtered by level). Never
 * called under a library lock: the sink is the user's code. */
void zkc__log(zkc_client_t *c, zkc_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A public call refusing what it was given: the line (naming the function,
 * the argument and why) becomes the thread's zkc_last_error_message and
 * goes to c's sink at error level (c may be NULL: no sink). Returns rc
 * (ZKC_EINVAL, ZKC_ELAYOUT, ...), for `return zkc__refuse(...)`. */
int zkc__refuse(zkc_client_t *c, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ZKC_OK when `path` may name a node; else refuses it (zkc__refuse) with
 * the reason: "<fn>: invalid <what> '<path>': <why>" ("<fn>: <what> is
 * NULL"), and returns ZKC_EINVAL. */
int zkc__check_path(zkc_client_t *c, const char *fn, const char *what,
                    const char *path);
/* Refuses with "<fn>: <name> is NULL" the first of the (const char *name,
 * int is_null) pairs that follow fn, up to a NULL name, whose is_null is
 * set (ZKC_EINVAL); ZKC_OK when none is. */
int zkc__refuse_null(zkc_client_t *c, const char *fn, ...);
/* Refuses with "<fn>: <why>" when `bad` (ZKC_EINVAL), else ZKC_OK. */
#define ZKC__REFUSE_IF(c, bad, fn, ...) \
  ((bad) ? zkc__refuse((c), ZKC_EINVAL, fn ": " __VA_ARGS__) : ZKC_OK)

#endif /* ZKC_SESSION_H */
