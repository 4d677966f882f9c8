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
zkc_parent_mode_t zkc__parent_mode(const zkc_client_t *c);
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

/* ---- requests (op.c: an op's life; ops.c: sending them; watches.c) ---- */

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

/* Node kinds zkcoord creates. */
typedef enum {
  ZKC__CREATE_PERSISTENT,
  ZKC__CREATE_CONTAINER,
  ZKC__CREATE_EPHEMERAL_SEQUENTIAL,
  ZKC__CREATE_EPHEMERAL
} zkc__create_mode_t;

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

/* Each submit either queues the request (its completion fills op) or fails
 * at once, in which case op is marked done with the error. */
void zkc__submit_create(zkc_client_t *c, zkc__op_t *op, zkc_node_kind_t kind,
                        const char *path, const char *data, int len,
                        zkc__create_mode_t mode);
void zkc__submit_children(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_delete(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_exists(zkc_client_t *c, zkc__op_t *op, const char *path);
/* Reads a node's data (no watch) into op->data / op->data_len. */
void zkc__submit_get(zkc_client_t *c, zkc__op_t *op, const char *path);

/* As zkc__submit_get, but only on a handle of session `session_id`: when
 * the client's handle belongs to another session (or to none), op is
 * finished at once with ZKC_ESESSIONEXPIRED and nothing is sent. A read
 * so sent is answered to that session alone, by a server that has applied
 * everything the session was answered before. */
void zkc__submit_get_in_session(zkc_client_t *c, zkc__op_t *op,
                                const char *path, int64_t session_id);

/* Sends a sync through the leader. A follower answers it only once the
 * leader has (the leader also checks the session then: an expired one
 * gets ZKC_ESESSIONEXPIRED), and it holds the session's later reads until
 * then: a read pipelined behind a sync that succeeded shows the ensemble's
 * state from after the sync was sent, never a partitioned follower's
 * frozen view. Submit the sync first, check its rc with the read's. */
void zkc__submit_sync(zkc_client_t *c, zkc__op_t *op, const char *path);

/* Sets a node's data (any version). */
void zkc__submit_set(zkc_client_t *c, zkc__op_t *op, const char *path,
                     const void *data, int len);

/* Submit + wait, for the single-request cases. */
/* Looks under base for the protected node carrying uuid (a create cut off
 * by connection loss may have been applied), behind a sync through the
 * leader so that such a create shows: *node is its path (malloc),
 * or NULL when there is none. ZKC_OK, the read's error, or ZKC_ETIMEDOUT
 * when it is not answered by limit_ms (ZKC__FOREVER: no limit). */
int zkc__op_find_protected(zkc_client_t *c, const char *base,
                           const char *uuid, int64_t limit_ms, char **node);
int zkc__op_run_delete(zkc_client_t *c, const char *path);
int zkc__op_run_exists(zkc_client_t *c, const char *path, zkc__stat_t *stat);
int zkc__op_run_create(zkc_client_t *c, zkc_node_kind_t kind, const char *path,
                       const char *data, int len, zkc__create_mode_t mode);

/* One transaction: check that check_path exists, then set path's data.
 * Returns the failing operation's error with *failed_op its index (0 the
 * check, 1 the set), or ZKC_OK. */
int zkc__op_run_check_set(zkc_client_t *c, const char *check_path,
                          const char *path, const void *data, int len,
                          int *failed_op);
/* As zkc__op_run_check_set, the set only if path's data version is
 * `version` (-1: any). On success *new_version (when not NULL) is the
 * version the set gave path. */
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

/* Reads a node's data and leaves a data watch for waiter `id`. */
void zkc__submit_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                       uint64_t id);

/* Reads a node's data into op->data / op->data_len and leaves a data watch
 * for waiter `id`. */
void zkc__submit_get_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                           uint64_t id);
/* Reads a node's children and leaves a children watch for waiter `id`. */
void zkc__submit_children_watch(zkc_client_t *c, zkc__op_t *op,
                                const char *path, uint64_t id);

/* Drops waiter `id`'s data watch on path in this client only (no request:
 * the server's watch stays until the node changes, and its event then finds
 * no one), so that a waiter leaving without its event leaves nothing here.
 * Nothing happens when the watch already fired. */
void zkc__forget_watch(zkc_client_t *c, const char *path, uint64_t id);

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

/* Registers w (fresh id, its own condition variable) for a watch on path
 * (kept by reference: it must outlive the registration). */
int zkc__waiter_register(zkc_client_t *c, zkc__waiter_t *w, const char *path);
/* The same for an owner that polls (zkc__waiter_check) instead of waiting:
 * notify(ctx) is told, client's lock held, whenever the waiter would wake. */
int zkc__waiter_register_polled(zkc_client_t *c, zkc__waiter_t *w,
                                const char *path, void (*notify)(void *),
                                void *ctx);
void zkc__waiter_unregister(zkc_client_t *c, zkc__waiter_t *w);

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

/* A waiter giving up before its watch fired removes the watch. The server
 * keeps one watch per path and session, shared by every watcher of this
 * client on that path (another waiter, a holder's guard): those are told
 * to set theirs again, and a change meanwhile is seen by their next read. */
void zkc__waiter_unwatch(zkc_client_t *c, zkc__waiter_t *w);

/* A semaphore's head watches the children of w->path (and, once set here,
 * the data of `also`) with one waiter. */
void zkc__waiter_also(zkc_client_t *c, zkc__waiter_t *w, const char *also);
/* A waiter that may be granted on its predecessor's delete alone also
 * watches its own node `own` (kept by reference), so that the order of the
 * server's events proves the node was still there: set before the watch
 * request for `own` is sent, and that request sent before the one for
 * w->path. */
void zkc__waiter_watch_own(zkc_client_t *c, zkc__waiter_t *w, const char *own);
/* 1 when the events prove `own` existed when w->path was gone: w->path's
 * delete was told (or, path_absent, its watch request found no node) after
 * both watches were answered, with no event on `own`, no session event and
 * no watch removal in this client since the registration. Else 0: read the
 * queue. */
int zkc__waiter_clean(zkc_client_t *c, zkc__waiter_t *w, int path_absent);
/* Clears w's fired mark before its watches are set again (one waiter over
 * several rounds of reads). */
void zkc__waiter_rearm(zkc_client_t *c, zkc__waiter_t *w);
/* Removes both watches, as zkc__waiter_unwatch does for a data watch. */
void zkc__waiter_unwatch_children(zkc_client_t *c, zkc__waiter_t *w);

/* ---- the queue views (qview.c, whose header says what they are) ---- */

/* A run waiting on base after a read of its children (`own`, a child's
 * name, among them): the first call of a run (*held 0) takes a reference
 * on the path's view (*held 1). When the view does not show `own`, it is
 * made from the read (its sequences, the read unchanged) with the gone
 * marks of the old view carried over. Without memory nothing changes
 * (*held stays 0): the run reads the queue as before. */
void zkc__qview_update(zkc_client_t *c, const char *base,
                       const zkc__names_t *read, const char *own, int *held);
/* The run leaves (*held 1): its reference is dropped, the view freed with
 * the last one. */
void zkc__qview_drop(zkc_client_t *c, const char *base, int *held);
/* 1 when the view shows `own` and every name before it (by sequence) is
 * known gone, none of them a read-write lock's writer (its downgrade may
 * add a read node ahead). */
int zkc__qview_clear_ahead(zkc_client_t *c, const char *base, const char *own);

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
/* The same before a client exists: through the options' sink (stderr
 * without one; none at ZKC_LOG_NONE). */
int zkc__refuse_opts(const zkc_client_opts_t *o, int rc, const char *fmt, ...)
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
