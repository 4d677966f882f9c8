/* SPDX-License-Identifier: Apache-2.0 */
#include "session.h"
/* What the session layer's files share among themselves, and no recipe
 * may call (check-layers.sh holds recipes to session.h): the handle, the
 * maintenance thread, the listeners' dispatch, the state under the
 * client's lock, the watch handlers, the janitor's and the guards' steps,
 * and the translation of ZooKeeper's result codes. */
#ifndef ZKC_SESSION_SHARED_H
#define ZKC_SESSION_SHARED_H

#include <stdarg.h>
#include <stdint.h>


/* ---- the ZooKeeper handle (handle.c) ---- */

/* Opens a ZooKeeper handle for c (a new session) and installs it. ZKC_OK,
 * ZKC_EINVAL, ZKC_ENOMEM, ZKC_ESYSTEM or a refusal of the credentials. */
int zkc__handle_open(zkc_client_t *c);
/* Drops the current handle: close sets closing=1 (requests then fail with
 * ZKC_ECLOSED), session re-creation 0 (they fail with ZKC_ECONNLOSS). */
void zkc__handle_drop(zkc_client_t *c, int closing);

/* ---- the maintenance thread (maint.c) ---- */

/* Starts the thread: ZKC_OK or ZKC_ESYSTEM. */
int zkc__maint_start(zkc_client_t *c);
/* Joins it (the client must be marked closed and the state condition
 * signalled). */
void zkc__maint_stop(zkc_client_t *c);
/* Frees the session events it did not process: after the handle is
 * dropped, when its watcher can queue no more. */
void zkc__maint_free(zkc_client_t *c);

/* ---- listeners and observers (listeners.c); the public calls are in
 * zkcoord/client.h, the recipes' in session.h ---- */

/* Tells observers, then listeners, of a new state. Called and returns with
 * the client's lock held; works unlocked on a copy of the list. */
void zkc__listeners_dispatch_locked(zkc_client_t *c, zkc_state_t st,
                                    int64_t lost_session);
/* Frees every registration (after the maintenance thread stopped). */
void zkc__listeners_free(zkc_client_t *c);

/* ---- state under the client's lock (state.c) ---- */

/* The one liveness predicate: a live session connected read-write, with no
 * expiry, auth failure or presumed loss, and no replacement under way. */
int zkc__live_locked(const zkc_client_t *c);
zkc__session_fate_t zkc__session_fate_locked(const zkc_client_t *c,
                                             int64_t session_id);
/* 1 on the maintenance thread. */
int zkc__on_maint_thread_locked(const zkc_client_t *c);

/* Waits until the session is connected or its credentials were refused, up
 * to deadline_ms: ZKC_OK, ZKC_ETIMEDOUT or ZKC_EAUTHFAILED. For the open,
 * where a refusal is final; recipes wait with zkc__wait_connected. */
int zkc__wait_connected_or_refused(zkc_client_t *c, int64_t deadline_ms);

/* ---- the client's requests as a whole (op.c), node watches (watches.c) ---- */

/* Who a node watch belongs to. The client keeps one handler per kind
 * (set at open), told on the ZooKeeper completion thread with the owner's
 * id: an owner that left meanwhile is simply not found. */
typedef enum {
  ZKC__WATCH_WAITER, /* a thread waiting on a predecessor (waiters.c) */
  ZKC__WATCH_GUARD,  /* a holder watching its own node (guard.c) */
  ZKC__WATCH_KINDS
} zkc__watch_kind_t;
typedef void (*zkc__watch_fn)(zkc_client_t *c, uint64_t id, const char *path,
                              int deleted);

/* Sets a watch for guard `id` on path: an exists-watch, or with with_data
 * a get-watch. The answer (ZKC_OK: the node exists and is watched) goes to
 * done(ctx, rc, data, len, version) on the completion thread: the node's
 * data (with_data only; valid during the call) and data version (-1 when
 * rc is not ZKC_OK). When the request cannot be sent the code is returned
 * here and done is not called. */
typedef void (*zkc__answer_fn)(void *ctx, int rc, const char *data, int len,
                               int32_t version);
int zkc__send_guard_watch(zkc_client_t *c, const char *path, uint64_t id,
                          int with_data, zkc__answer_fn done, void *ctx);

/* Removes the data watch that waiter `id` left on path, client and server
 * side. The server keeps one watch per path and session, so this removes
 * it for every watcher of this client on path (see zkc__waiter_unwatch). */
void zkc__remove_watch(zkc_client_t *c, const char *path, uint64_t id);
/* The same for the children watch of waiter `id` on path. */
void zkc__remove_child_watch(zkc_client_t *c, const char *path, uint64_t id);
/* An op in flight (op.c): linked into the client's list when submitted;
 * claimed by its completion (0: close finished it already); finished with
 * its result, which wakes the submitter (or frees an op given up). */
void zkc__op_link(zkc_client_t *c, zkc__op_t *op);
int zkc__op_claim(zkc__op_t *op);
void zkc__op_finish(zkc__op_t *op, int rc, const zkc__stat_t *stat);
/* After the handle is closed: finishes every request still in flight with
 * rc (no completion can arrive any more). */
void zkc__ops_abandon(zkc_client_t *c, int rc);
/* Waits until no request is in flight or deadline_ms passes. */
void zkc__ops_drain(zkc_client_t *c, int64_t deadline_ms);

/* ---- waiters (waiters.c) ---- */

/* The watch handler of kind ZKC__WATCH_WAITER (ops.h). */
void zkc__waiter_event(zkc_client_t *c, uint64_t id, const char *path,
                       int deleted);
/* Wakes every waiter (session change or close); caller holds the client's
 * lock. */
void zkc__waiters_wake_all_locked(zkc_client_t *c);

/* ---- guards (guard.c) ---- */

/* The watch handler of kind ZKC__WATCH_GUARD (ops.h). */
void zkc__guard_event(zkc_client_t *c, uint64_t id, const char *path,
                      int deleted);
/* The guards on path set their watch again soon (it was removed from the
 * server); caller holds the client's lock. */
void zkc__guards_renew_locked(zkc_client_t *c, const char *path);
/* Maintenance thread, client's lock held: tells one owner or sets one
 * watch; 1 if it did. */
int zkc__guard_step_locked(zkc_client_t *c);
/* When a watch is to be set or a failed confirmation is due again
 * (ZKC__FOREVER if none); client's lock held. */
int64_t zkc__guard_next_locked(zkc_client_t *c);
/* Close: waits (bounded) for watch requests in flight. */
void zkc__guards_drain(zkc_client_t *c, int64_t deadline_ms);
void zkc__guards_free(zkc_client_t *c);

/* ---- the janitor, for the maintenance thread (janitor.c) ---- */

/* One step of janitor work, called with the client's lock held (released
 * while working). Returns 1 if it did something. */
int zkc__janitor_step_locked(zkc_client_t *c);
/* When the janitor next has work to retry (ZKC__FOREVER if none). */
int64_t zkc__janitor_next_locked(zkc_client_t *c);
/* Frees queued items (after the maintenance thread stopped). */
void zkc__janitor_free(zkc_client_t *c);

/* ---- backoff (retry.c) ---- */

/* The pause before try `attempt` + 1 (attempt counts from 0) under policy
 * p: base * random(1 .. 2^(attempt+1)), capped at its maximum. */
int64_t zkc__backoff_ms(const zkc_retry_policy_t *p, int attempt);

/* ---- the ZooKeeper client's log (log.c) ---- */

/* The ZooKeeper client's log callback bound to c's sink (a shared fallback
 * when every slot is taken), as the handle wants it; unbound at close. */
typedef void (*zkc__zk_log_fn)(const char *message);
zkc__zk_log_fn zkc__log_bind(zkc_client_t *c);
void zkc__log_unbind(zkc_client_t *c);

/* ---- ZooKeeper's result codes, translated (errors.c) ---- */

/* The ZKC_* code for a ZooKeeper client code (ZOK gives ZKC_OK). Codes that
 * are not the caller's to act on (marshalling, API misuse) become
 * ZKC_EPROTO. */
int zkc__zk_error(int zk_rc);

/* Remembers a failed ZooKeeper code for zkc_last_zk_code on the calling
 * thread (ZOK is ignored). */
void zkc__note_zk_code(int zk_rc);

/* Notes ZooKeeper's "authentication failed" on the calling thread: for a
 * refusal learnt from the session's state rather than a request's result. */
void zkc__note_auth_refused(void);

/* Sets the thread's zkc_last_error_message (errors.c). */
void zkc__error_message_vset(const char *fmt, va_list ap);

#endif /* ZKC_SESSION_SHARED_H */
