/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord leader latch (zkc_latch_*): leader election, a leader latch with the semantics of Apache
 * Curator's LeaderLatch.
 *
 * Every started latch on a path is a participant: it queues a protected
 * EPHEMERAL_SEQUENTIAL node `<path>/_c_<uuid>-latch-<seq>` whose data is the
 * participant id, and the participant whose node is first (and owned by its
 * current session) is the leader. The others each watch only their
 * predecessor. Curator LeaderLatch participants on the same path take part
 * in the same election.
 *
 * Each latch runs one thread of its own. It creates the node, waits for
 * leadership and tells the is_leader / not_leader callbacks, in order, one
 * at a time. Leadership is dropped (not_leader) when the client's session is
 * LOST and, with the client option lost_on_suspended, already when the
 * connection is SUSPENDED; once a session is live again the latch joins the
 * election again with a new node, at the back of the queue.
 *
 * Leadership as the other functions report it (zkc_latch_has_leadership,
 * zkc_latch_await, zkc_hold_fencing_token, zkc_hold_node_list) begins as
 * is_leader is called (so a thread that is_leader signals sees it) and
 * ends before not_leader is called. The node is deleted, letting the
 * next participant lead, only after not_leader has returned, or, with
 * ZKC_CLOSE_SILENT, once no callback can run any more: an application
 * that stops acting as leader when not_leader runs, or when it calls
 * zkc_latch_close, never overlaps with its successor.
 *
 * All functions are thread-safe unless stated otherwise.
 */
#ifndef ZKCOORD_LATCH_H
#define ZKCOORD_LATCH_H

#include "client.h"
#include "hold.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_latch zkc_latch_t;

/* How zkc_latch_close treats a leader (Curator's LeaderLatch.CloseMode). */
typedef enum zkc_close_mode {
  /* Default: no callback starts once close has begun (one running is
   * waited out), even if leadership ends with it: the application's
   * leadership ends when it calls close. */
  ZKC_CLOSE_SILENT = 0,
  /* A leader is told not_leader (on the closing thread) before its node is
   * deleted. */
  ZKC_CLOSE_NOTIFY_LEADER = 1
} zkc_close_mode_t;

/* A leadership callback. Runs on the latch's own thread (or, for
 * ZKC_CLOSE_NOTIFY_LEADER, on the thread calling zkc_latch_close). It must
 * return quickly: while it runs, the latch cannot react to connection
 * trouble. It may call zkc_latch_has_leadership, zkc_hold_fencing_token and
 * zkc_latch_id; zkc_latch_close, zkc_latch_destroy and zkc_latch_await
 * called from it return ZKC_EDEADLK. Typical use: set a flag or signal the
 * thread that does the leader's work. */
typedef void (*zkc_latch_fn)(void *ctx, zkc_latch_t *latch);

/* The election ended for good: a request of the latch met an error it
 * would meet again however long it waited (rc: ZKC_ENOAUTH, an ACL refuses
 * this participant; ZKC_EAUTHFAILED; ZKC_ENOROOT, the chroot vanished;
 * ZKC_EBADARGS, ZKC_EINVALIDACL or ZKC_ENOCHILDREN, the server refuses the
 * path or the ACL; ZKC_ELAYOUT, the path holds another recipe's nodes: a
 * lock's, a semaphore's; the latch's node is deleted again). Called once,
 * on the latch's thread, like is_leader; the latch then stays out of the election until closed, and zkc_latch_await
 * and zkc_latch_error return rc. Errors that pass (connection loss, an
 * expired session) never end the election. */
typedef void (*zkc_latch_error_fn)(void *ctx, zkc_latch_t *latch, int rc);

typedef struct zkc_latch_opts {
  zkc_latch_fn is_leader;  /* this latch became leader; NULL = none */
  zkc_latch_fn not_leader; /* this latch stopped being leader; NULL = none */
  void *ctx;               /* passed to all three */
  zkc_latch_error_fn on_error; /* the election ended for good; NULL = none */
} zkc_latch_opts_t;

/* Fills the `size` bytes of *opts (pass sizeof *opts) with the defaults: the
 * form of the options' init that lets zkc_latch_opts_t grow without an ABI
 * break (fields are only ever appended, each with 0 as its default; bytes
 * this library does not know are zeroed). Returns ZKC_OK, or ZKC_EINVAL
 * (opts NULL, or size smaller than a zkc_latch_opts_t of 1.0.0: nothing
 * written; zkc_last_error_message says which). Thread-safe. */
ZKC_EXTERN int zkc_latch_opts_init_size(zkc_latch_opts_t *opts, size_t size);

/* Fills `opts` with the defaults (no callbacks). Accepts NULL (no-op).
 * Inline over zkc_latch_opts_init_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline void zkc_latch_opts_init(zkc_latch_opts_t *opts) {
  if (opts != NULL) (void)zkc_latch_opts_init_size(opts, sizeof(zkc_latch_opts_t));
}

/* As zkc_latch_create, with `opts_size` the size of *opts (sizeof *opts, as
 * given to its init): ZKC_EINVAL, nothing made, when opts_size is smaller
 * than a zkc_latch_opts_t of 1.0.0, or larger with a byte this library does
 * not know set (zkc_last_error_message names the size and the type); opts
 * NULL = defaults, whatever opts_size. Otherwise the codes of
 * zkc_latch_create. */
ZKC_EXTERN int zkc_latch_create_size(zkc_latch_t **out, zkc_client_t *client,
                                     const char *path, const char *id,
                                     const zkc_latch_opts_t *opts,
                                     size_t opts_size);

/* Creates a latch on the election path `path` (absolute, validated, at
 * most 1024 bytes) with participant id `id` (stored as node data; NULL =
 * the client's holder_id). `opts` may be NULL (no callbacks); it is copied,
 * as is `id`. No ZooKeeper traffic until zkc_latch_start. The latch keeps
 * a reference to `client`, which must stay open while the latch is started.
 * On failure *out is set to NULL (when out is not NULL).
 * Returns ZKC_OK, ZKC_EINVAL (out or client NULL, invalid path, id over
 * 1020 KiB), ZKC_ENOMEM,
 * ZKC_ECLOSED (client closed).
 * Inline over zkc_latch_create_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline int zkc_latch_create(zkc_latch_t **out, zkc_client_t *client,
                                   const char *path, const char *id,
                                   const zkc_latch_opts_t *opts) {
  return zkc_latch_create_size(out, client, path, id, opts,
                               sizeof(zkc_latch_opts_t));
}

/* Replaces the leadership callbacks and ctx (NULL fn = none; on_error
 * stays, and receives the new ctx). Only before zkc_latch_start.
 * Returns ZKC_OK, ZKC_EINVAL (latch NULL), ZKC_EBUSY (already started or
 * closed). */
ZKC_EXTERN int zkc_latch_set_listener(zkc_latch_t *latch, zkc_latch_fn is_leader,
                                      zkc_latch_fn not_leader, void *ctx);

/* Joins the election: starts the latch's thread, which creates the node
 * (waiting for a connection first if need be) and returns at once.
 * Only once per latch.
 * Returns ZKC_OK, ZKC_EINVAL (NULL), ZKC_EBUSY (already started or closed),
 * ZKC_ECLOSED (client closed), ZKC_EDEADLK (from a ZooKeeper or latch
 * callback thread), ZKC_ESYSTEM (no thread). */
ZKC_EXTERN int zkc_latch_start(zkc_latch_t *latch);

/* Leaves the election: stops the latch's thread (a wait for leadership in
 * progress is cancelled), then, if this latch is leader, calls not_leader
 * when mode is ZKC_CLOSE_NOTIFY_LEADER, and deletes the node (finished in
 * the background if the connection is down; a node of a lost session is
 * gone anyway). zkc_latch_await callers return ZKC_ECLOSED. With
 * ZKC_CLOSE_SILENT no callback runs once close has begun; close waits for a
 * callback already running. A latch never started is just marked closed.
 * Accepts NULL. A latch cannot be started again after close.
 * Returns ZKC_OK (also when already closed), ZKC_EINVAL (bad mode),
 * ZKC_EDEADLK (called from this latch's callbacks or a ZooKeeper callback
 * thread: nothing changes). */
ZKC_EXTERN int zkc_latch_close(zkc_latch_t *latch, zkc_close_mode_t mode);

/* Closes the latch (ZKC_CLOSE_SILENT) if needed and frees it. Accepts NULL.
 * Returns ZKC_OK, or ZKC_EDEADLK as zkc_latch_close (nothing freed).
 * Not while another thread uses the latch. */
ZKC_EXTERN int zkc_latch_destroy(zkc_latch_t *latch);

/* 1 if this latch is leader now, else 0 (also for NULL). It answers 1 only
 * once is_leader has been called (a silent close then waits for it to
 * return), so a caller that sees 1 knows is_leader is told. Leadership ends
 * with the session (LOST), with the connection when the client has
 * lost_on_suspended set, with close, and when another client deletes the
 * latch's node (the latch then rejoins with a new node). While SUSPENDED without that
 * option the leader is in doubt but still answers 1 (as Curator with
 * SessionConnectionStateErrorPolicy): use lost_on_suspended for work that
 * must stop as soon as the connection drops. No ZooKeeper traffic. */
ZKC_EXTERN int zkc_latch_has_leadership(const zkc_latch_t *latch);

/* Blocks until this latch is leader (as zkc_latch_has_leadership answers:
 * is_leader has been called), up to timeout_ms (< 0: without limit; 0:
 * just checks; > 0: that many milliseconds: the rule of every timeout, see
 * zkcoord/common.h).
 * Returns ZKC_OK (leader), ZKC_ETIMEDOUT, ZKC_ECLOSED (the latch or the
 * client was closed), ZKC_EINVAL (NULL, or the latch was never started),
 * ZKC_EDEADLK (from a ZooKeeper or latch callback thread), or the error
 * that ended the election (see zkc_latch_error_fn) at once. */
ZKC_EXTERN int zkc_latch_await(zkc_latch_t *latch, int64_t timeout_ms);

/* ZKC_OK while the latch takes part (or was never started), or the error
 * that ended its election for good (see zkc_latch_error_fn); ZKC_EINVAL for
 * NULL. No ZooKeeper traffic. Thread-safe. */
ZKC_EXTERN int zkc_latch_error(const zkc_latch_t *latch);

/* The participant id given at create (or the client's holder_id). Owned by
 * the latch; NULL for NULL. */
ZKC_EXTERN const char *zkc_latch_id(const zkc_latch_t *latch);

/* The election path given at create. Owned by the latch; NULL for NULL. */
ZKC_EXTERN const char *zkc_latch_path(const zkc_latch_t *latch);

/* The id of the current leader as the session's server sees it now
 * (whoever's node is first: possibly a Curator participant; a read without
 * a sync, docs/api.md). On success *id is a new
 * string the caller frees with free(), or NULL when there is no
 * participant at all.
 * Returns ZKC_OK, ZKC_EINVAL, ZKC_EDEADLK, ZKC_ECLOSED, ZKC_ENOMEM, or the
 * server's answer to the read, which is not retried (ZKC_ECONNLOSS,
 * ZKC_EOPTIMEOUT, ZKC_ENOAUTH, ZKC_ESESSIONEXPIRED, ...). */
ZKC_EXTERN int zkc_latch_leader_id(zkc_latch_t *latch, char **id);

/* Every participant's id on the path in queue order, the leader first
 * (entry 0, when anyone takes part): on success *out is a new list
 * (zkc_list_string gives each id; count 0 when the path does not exist)
 * that the caller frees with zkc_list_free; on failure *out is NULL (when
 * out is not NULL). Ids are read from the node data. Returns ZKC_OK,
 * ZKC_EINVAL (latch or out NULL), ZKC_EDEADLK, ZKC_ECLOSED, ZKC_ENOMEM, or
 * the server's answer to the read, which is not retried (ZKC_ECONNLOSS,
 * ZKC_ENOAUTH, ...). */
ZKC_EXTERN int zkc_latch_participant_list(zkc_latch_t *latch,
                                          zkc_list_t **out);

/* The record of a leader latch (ZKC_RECIPE_LATCH) or selector
 * (ZKC_RECIPE_SELECTOR): an acquire is a turn of leadership taken, from the
 * node's queueing to the lead; a release, leadership given up (a latch's
 * close, a selector's take_leadership returning, or a lost turn's node
 * given up after its loss is counted). Returns as zkc_mutex_stats. */
ZKC_EXTERN int zkc_latch_stats(const zkc_latch_t *latch,
                               zkc_lock_stats_t *out);

/* The latch's current term of leadership as a zkc_hold_t (zkcoord/hold.h):
 * a view borrowed from the latch, valid while the latch exists. While the
 * latch leads, its calls act on the term's node; a call begun in a term is
 * refused with ZKC_ELOST once that term is over (leadership lost, or a
 * later term begun), and a fenced write is refused with ZKC_ELOST once the
 * term's node is gone: a leader that no longer leads writes nothing.
 * Between terms, ZKC_ENOTOWNER. zkc_hold_release and zkc_hold_free refuse
 * it (ZKC_EINVAL). NULL for a NULL latch. No traffic. Thread-safe.
 * A view follows the current term (hold.h says how to tie work to one
 * term). */
ZKC_EXTERN zkc_hold_t *zkc_latch_hold(zkc_latch_t *latch);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_LATCH_H */
