/* SPDX-License-Identifier: Apache-2.0 */
/* What the session layer's files share among themselves, and no recipe
 * may call (check-layers.sh holds recipes to session.h): the handle, the
 * maintenance thread, the listeners' dispatch, the state under the
 * client's lock, the watch handlers, the janitor's and the guards' steps,
 * and the translation of ZooKeeper's result codes. */
#ifndef ZKC_SESSION_SHARED_H
#define ZKC_SESSION_SHARED_H

#include <stdarg.h>
#include <stdint.h>

#include "errors.h"
#include "session_types.h"

/* Sets c's queue engine world to the client's own (session_world.c), at
 * open: the kernel reaches it through zkc__client_world. */
void zkc__qworld_bind(zkc_client_t *c);

/* ---- the client's references, under the recipes' attach (recipe_tie.c) ---- */

/* Takes a reference for a recipe object; ZKC_ECLOSED if already closed. */
int zkc__client_ref(zkc_client_t *c);
/* Drops it; the last reference frees the client. */
void zkc__client_unref(zkc_client_t *c);

/* The observers of zkc__recipe_attach (session.h), alone. */
/* Called on the maintenance thread for every state change, before the
 * user's listeners. Remove returns ZKC_EDEADLK when called from the
 * maintenance thread during a dispatch. */
int zkc__observer_add(zkc_client_t *c, zkc__observer_fn fn, void *ctx);
int zkc__observer_remove(zkc_client_t *c, zkc__observer_fn fn, void *ctx);

/* ---- a waiter's end in steps (waiters.c): zkc__waiter_end's, and the
 * queue engine's world's (session_world.c) ---- */

/* A waiter giving up before its watch fired removes the watch (and, with
 * zkc__waiter_also, the data watch on `also`). The server keeps one watch
 * per path and session, shared by every watcher of this client on that
 * path (another waiter, a holder's guard): those are told to set theirs
 * again, and a change meanwhile is seen by their next read. */
void zkc__waiter_unwatch(zkc_client_t *c, zkc__waiter_t *w);
/* Removes both watches (a children watch and, with zkc__waiter_also, a
 * data watch), as zkc__waiter_unwatch does for data watches. */
void zkc__waiter_unwatch_children(zkc_client_t *c, zkc__waiter_t *w);
void zkc__waiter_unregister(zkc_client_t *c, zkc__waiter_t *w);

/* ---- a grant's freshness (state.c), which the runs ask through their
 * world (session_world.c) ---- */

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
 * engine's and the lease run's through their world (session_world.c). */
void zkc__granted(zkc_client_t *c);

/* ---- the one call's rules (call.c; the call itself is in session.h) ---- */

/* After a retryable failure (call.c; a recipe waits so only inside
 * zkc__call): sleeps the policy's backoff for `*attempt`, then waits for
 * the connection, both bounded by deadline_ms, and returns
 * ZKC_OK to try again (attempt incremented), or the reason to stop:
 * `rc` itself when the policy is exhausted, ZKC_ETIMEDOUT, ZKC_ECLOSED,
 * ZKC_ELOST. */
int zkc__retry_wait(zkc_client_t *c, int *attempt, int rc,
                    int64_t deadline_ms);

/* 1 for the codes the same request would meet again however long it
 * waited: an ACL or the credentials refuse it, the chroot is gone, the
 * server rejects the path or the ACL, the path holds another recipe's
 * nodes (ZKC_ELAYOUT). */
int zkc__permanent(int rc);

/* The retry policy for the library's own background work (a new session, a
 * janitor's delete, a guard's check, an election's next try), with fixed
 * bounds of its own (100 ms base, 5 s cap) rather than the user's request
 * policy: a zero base must not make it spin, a long cap must not leave a
 * dead node blocking a queue. Counts *attempt up (saturating). */
int64_t zkc__background_backoff_ms(int *attempt);

/* A call's answer: the first failed request's, in order; a sync's failure
 * only when every other request succeeded, and its ZKC_ENONODE never (the
 * reads behind it tell that). */
int zkc__call_answer(const zkc__call_t *calls, size_t n);
/* 1 when a call in mode `retry` whose answer is `answer` is sent again
 * (the policy, the deadline and the connection permitting). */
int zkc__call_retries(zkc__call_retry_t retry, int answer);
/* What a retried call returns when its retries stop for `why` after the
 * answer `answer`. */
int zkc__call_stop(zkc__call_retry_t retry, int answer, int why);
/* 1 when a transaction's answer says the node it rests on (its check) is
 * gone (the hold that node is is lost): what zkc__call sets a call's
 * check_gone by. */
int zkc__call_check_gone(const zkc__call_t *k);
/* 1 when the call is a create whose answer says its parent is missing: a
 * count's ZKC_ENONODE, or a fenced create's when its write failed (not its
 * check: that is the hold gone). */
int zkc__call_parent_missing(const zkc__call_t *k);

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

/* Sets a watch for guard `id` on path: an exists-watch, or with with_data
 * a get-watch, whose answer (ZKC_OK: the node exists and is watched) is
 * op's, with the node's data when with_data. In flight like any op: close
 * drains it, and a handle dropped under it finishes it (ZKC_ECONNLOSS or
 * ZKC_ECLOSED), so a completion the ZooKeeper client loses costs nothing. */
void zkc__submit_guard_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                             uint64_t id, int with_data);

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
 * server); caller holds the client's lock. The waiters reach it through
 * the client (client_struct.h's guards_renew_locked). */
void zkc__guards_renew_locked(zkc_client_t *c, const char *path);
/* Maintenance thread, client's lock held: tells one owner or sets one
 * watch; 1 if it did. */
int zkc__guard_step_locked(zkc_client_t *c);
/* When a watch is to be set or a failed confirmation is due again
 * (ZKC__FOREVER if none); client's lock held. */
int64_t zkc__guard_next_locked(zkc_client_t *c);
/* Frees every guard: the client is going, no request of theirs is in flight. */
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
zkc__zk_log_fn zkc__log_bind(zkc_client_t *c);
void zkc__log_unbind(zkc_client_t *c);

/* ZooKeeper's result codes translated, and the thread's last error, are
 * errors.c's (errors.h, included above). */

/* ---- behind the door: requests by kind, watches, waiters' registration,
 * the queue views. Recipes send requests as data (zkc__send); the queue
 * engine's and the lease run's rounds reach the watches and the views
 * through their world (session_world.c, which is of this layer). ---- */

/* The client's parent_mode option. */
zkc_parent_mode_t zkc__parent_mode(const zkc_client_t *c);

/* Each submit either queues the request (its completion fills op) or fails
 * at once, in which case op is marked done with the error. */
void zkc__submit_create(zkc_client_t *c, zkc__op_t *op, zkc_node_kind_t kind,
                        const char *path, const char *data, int len,
                        zkc__create_mode_t mode);
/* A participant's ephemeral-sequential node created and `release` deleted
 * in one transaction (a multi: neither or both), then the node's stat read
 * for its czxid and owner. op ends as a create's: ZKC_OK with created and
 * stat; ZKC_ELOST when `release` was gone (nothing applied) or the node was
 * gone by the stat read; the create's own error otherwise (ZKC_ENONODE: its
 * parent is missing, and `release` is still there). */
void zkc__submit_create_releasing(zkc_client_t *c, zkc__op_t *op,
                                  const char *path, const char *data, int len,
                                  const char *release);
/* The fenced writes: node `check` checked and `path` set (if its version
 * is `version`, -1 any) or, with `create`, created, in one transaction;
 * op ends with the failing operation's error, its index in op->failed. */
void zkc__submit_fenced(zkc_client_t *c, zkc__op_t *op, const char *check,
                        const char *path, const char *data, int len,
                        int create, int32_t version);
void zkc__submit_children(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_delete(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_exists(zkc_client_t *c, zkc__op_t *op, const char *path);
/* Reads a node's data (no watch) into op->data / op->data_len. */
void zkc__submit_get(zkc_client_t *c, zkc__op_t *op, const char *path);

/* ZKC__REQ_GET_IN_SESSION. */
void zkc__submit_get_in_session(zkc_client_t *c, zkc__op_t *op,
                                const char *path, int64_t session_id);
/* ZKC__REQ_EXISTS_IN_SESSION. */
void zkc__submit_exists_in_session(zkc_client_t *c, zkc__op_t *op,
                                   const char *path, int64_t session_id);

/* The session's renewal probes (probe.c; renewal.h says what they prove;
 * zkc__renewed_locked, client_struct.h, asks the proof). The
 * handle's open and a new session's first connection start the proof
 * again; an answer feeds it; the maintenance thread sends the next probe
 * when due (1: sent, outside the lock), else lowers *wake to then. */
void zkc__probe_handle_opened_locked(zkc_client_t *c);
void zkc__probe_new_session_locked(zkc_client_t *c);
void zkc__probe_answered(zkc_client_t *c, int ok);
int zkc__probe_step_locked(zkc_client_t *c, int64_t *wake);

/* 1 where the round trips through the leader (the floor of its probes'
 * and syncs': renewal.h) are long enough for waiters to learn ahead
 * (probe.c), or none was measured yet: the world's learn_ahead. */
int zkc__learn_ahead(zkc_client_t *c);
/* The probe's sync on the live handle (ops.c): ZKC_OK once sent; its
 * answer goes to fn (ok: 1 when the leader answered). One at a time. */
int zkc__submit_probe(zkc_client_t *c, zkc__probed_fn fn);

/* A write through the session session_id only, to `path`, a node that
 * never exists (a child of an ephemeral node): the leader checks the
 * session before it looks for the node, so the answer is ZKC_ENONODE
 * while the session lives and is not closing, and a failure of the
 * session (expired, moved, unknown) once it is, whichever server the
 * client is connected to. A sync does not say so: the leader answers a
 * follower's sync of a closing session. */
void zkc__submit_session_check(zkc_client_t *c, zkc__op_t *op,
                               const char *path, int64_t session_id);

/* A sync through the leader (ZKC__REQ_SYNC says what it proves). */
void zkc__submit_sync(zkc_client_t *c, zkc__op_t *op, const char *path);

/* Sets a node's data (any version). */
void zkc__submit_set(zkc_client_t *c, zkc__op_t *op, const char *path,
                     const void *data, int len);

/* Reads a node's data and leaves a data watch for waiter `id`. */
void zkc__submit_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                       uint64_t id);

/* Reads a node's data into op->data / op->data_len and leaves a data watch
 * for waiter `id`. */
void zkc__submit_get_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                           uint64_t id);
/* A node's stat and a watch for waiter `id` that stays when the node does
 * not exist (op ends ZKC_ENONODE): its creation fires it. */
void zkc__submit_exists_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                              uint64_t id);
/* Reads a node's children and leaves a children watch for waiter `id`. */
void zkc__submit_children_watch(zkc_client_t *c, zkc__op_t *op,
                                const char *path, uint64_t id);

/* Drops waiter `id`'s data watch on path in this client only (no request:
 * the server's watch stays until the node changes, and its event then finds
 * no one), so that a waiter leaving without its event leaves nothing here.
 * Nothing happens when the watch already fired. */
void zkc__forget_watch(zkc_client_t *c, const char *path, uint64_t id);
/* The same for a children watch on path. */
void zkc__forget_child_watch(zkc_client_t *c, const char *path, uint64_t id);

/* zkc__waiter_register (session.h) for an owner that polls
 * (zkc__waiter_check) instead of waiting: notify(ctx) is told, client's
 * lock held, whenever the waiter would wake. */
int zkc__waiter_register_polled(zkc_client_t *c, zkc__waiter_t *w,
                                const char *path, void (*notify)(void *),
                                void *ctx);

/* A semaphore's head watches the children of w->path (and, once set here,
 * the data of `also`) with one waiter. */
void zkc__waiter_also(zkc_client_t *c, zkc__waiter_t *w, const char *also);
/* A waiter that may be granted on its predecessor's delete alone also
 * watches its own node `own` (kept by reference), so that the order of the
 * server's events proves the node was still there: set before the watch
 * request for `own` is sent, and that request sent before the one for
 * w->path. */
void zkc__waiter_watch_own(zkc_client_t *c, zkc__waiter_t *w, const char *own);
/* A waiter whose predecessor's delete alone grants only if no child joined
 * meanwhile (decide.h's guarded) watches the children of `parent` (kept by
 * reference) too, the request sent after the one for w->path: an event on
 * `parent` before w->path's delete is told leaves the waiter unclean, and
 * wakes it only with `wakes` (else the delete's wake reads the queue). */
void zkc__waiter_watch_parent(zkc_client_t *c, zkc__waiter_t *w,
                              const char *parent, int wakes);
/* 1 when the events prove `own` existed when w->path was gone: w->path's
 * delete was told (or, path_absent, its watch request found no node) after
 * both watches were answered, with no event on `own` (nor, before that
 * delete, on the children of a watched `parent`), no session event and no
 * watch removal in this client since the registration. Else 0: read the
 * queue. */
int zkc__waiter_clean(zkc_client_t *c, zkc__waiter_t *w, int path_absent);
/* Clears w's fired mark before its watches are set again (one waiter over
 * several rounds of reads). */
void zkc__waiter_rearm(zkc_client_t *c, zkc__waiter_t *w);

/* ---- the queue views (qview.c, whose header says what they are) ---- */

/* A run waiting on base after a read of its children (names[0..n), its
 * own node's name among them; `parent` the read's stat of base): the
 * first call of a run (*held 0) takes a reference on the path's view
 * (*held 1). When the read is later than the view's (base's pzxid, or
 * base made again), the view is made from it (a copy, the read
 * unchanged) with the old view's gone marks of the same names carried
 * over (in the same incarnation of base). Without memory nothing is
 * held (*held stays 0), or the view is left empty: the run reads the
 * queue as before. */
void zkc__qview_update(zkc_client_t *c, const char *base, char *const *names,
                       size_t n, const zkc__stat_t *parent, int *held);
/* The run leaves (*held 1): its reference is dropped, the view freed with
 * the last one. */
void zkc__qview_drop(zkc_client_t *c, const char *base, int *held);
/* 1 when the view shows `own` and every name before it (in queue order)
 * is known gone, none of them a read-write lock's writer (its downgrade
 * may add a read node ahead). */
int zkc__qview_clear_ahead(zkc_client_t *c, const char *base, const char *own);

/* The same before a client exists: through the options' sink (nothing
 * without one; none at ZKC_LOG_NONE). */
int zkc__refuse_opts(const zkc_client_opts_t *o, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* ZKC_SESSION_SHARED_H */
