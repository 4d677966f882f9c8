/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord leader selector (zkc_selector_*): leadership as a callback, with the semantics of
 * Apache Curator's LeaderSelector.
 *
 * A selector is a contender for the mutex on its path (the same protected
 * EPHEMERAL_SEQUENTIAL nodes `<path>/_c_<uuid>-lock-<seq>` as zkc_mutex_t
 * and Curator's InterProcessMutex, whose node data is the participant id),
 * so Curator LeaderSelectors on the same path take part in the same
 * election. Each selector runs one thread of its own that loops:
 *
 *   wait to be queued -> acquire the mutex (blocking) ->
 *   take_leadership(ctx, sel) -> release -> queued again if auto_requeue
 *
 * Leadership lasts exactly as long as take_leadership runs on that thread:
 * returning gives it up. take_leadership must poll zkc_selector_should_stop
 * (or use the state callback) and return soon once it is true: that happens
 * when the connection is SUSPENDED (the lock is in doubt), when the session
 * is LOST (the lock node is already gone) and when the selector is closed.
 * The flag is set by the client's observer, before the client's user
 * listeners run: on SUSPENDED as soon as this client sees its connection
 * drop (a server that expires or closes the session also closes its
 * connection), on LOST (expiry, which the client learns only after
 * reconnecting, or a whole session timeout without a connection) before the
 * client opens its next session. ZooKeeper itself cannot promise that an
 * old leader stops before a successor starts (a paused or partitioned
 * process learns late): pass zkc_hold_fencing_token with every write.
 *
 * All functions are thread-safe unless stated otherwise.
 */
#ifndef ZKCOORD_SELECTOR_H
#define ZKCOORD_SELECTOR_H

#include "client.h"
#include "hold.h"

/* 0.x compatibility: this header gave the leader latch's (zkcoord/latch.h);
 * kept through 1.x. */
#include "latch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_selector zkc_selector_t;

/* The leader's work. Runs on the selector's own thread while this selector
 * holds leadership; returning gives leadership up (the lock node is
 * deleted). Never runs concurrently with itself for one selector. It may
 * block as long as it likes but must return soon once
 * zkc_selector_should_stop(sel) is 1. It may call every zkc_selector_*
 * function on its own selector except zkc_selector_destroy (ZKC_EDEADLK);
 * zkc_selector_close called from it does not wait (see there). Blocking
 * zkcoord calls it makes through the selector's own client (a mutex
 * acquire, a wait for the connection) return ZKC_ECLOSED once the selector
 * is being closed; a wait on another client's objects is not interrupted,
 * so keep such waits bounded (use timeouts) and poll should_stop. */
typedef void (*zkc_selector_fn)(void *ctx, zkc_selector_t *sel);

/* Told of every connection state change (SUSPENDED, LOST, RECONNECTED,
 * READ_ONLY, CONNECTED) that happens while this selector leads, i.e. while
 * take_leadership runs; SUSPENDED, READ_ONLY and LOST have already set
 * should_stop when it is called. Runs on the client's maintenance thread,
 * before the client's user listeners: it must not block and must not make
 * blocking zkcoord calls (they return ZKC_EDEADLK). Receives the ctx given
 * to zkc_selector_create. */
typedef void (*zkc_selector_state_fn)(void *ctx, zkc_selector_t *sel,
                                      zkc_state_t state);

/* The selector's election ended for good: its request met an error it
 * would meet again however long it waited (rc: ZKC_ENOAUTH, ZKC_EAUTHFAILED,
 * ZKC_ENOROOT, ZKC_EBADARGS, ZKC_EINVALIDACL, ZKC_ENOCHILDREN, ZKC_ELAYOUT:
 * the path holds a semaphore's or a leader latch's nodes; see
 * zkc_latch_error_fn). Runs on the selector's thread; the selector is then
 * not queued (auto_requeue or not) until zkc_selector_requeue, and
 * zkc_selector_error returns rc until then. Receives the ctx given to
 * zkc_selector_create. */
typedef void (*zkc_selector_error_fn)(void *ctx, zkc_selector_t *sel, int rc);

typedef struct zkc_selector_opts {
  /* 1: queue again for leadership each time take_leadership returns (and
   * after an election error, after a pause), until close. 0 (default, as
   * Curator): one turn per zkc_selector_start / zkc_selector_requeue. */
  int auto_requeue;
  /* Participant id, stored as the lock node's data (Curator's setId).
   * NULL = the client's holder_id. Copied. */
  const char *id;
  /* State callback while leading; NULL = none. */
  zkc_selector_state_fn on_state;
  /* The election ended for good; NULL = none. */
  zkc_selector_error_fn on_error;
} zkc_selector_opts_t;

/* Fills the `size` bytes of *opts (pass sizeof *opts) with the defaults: the
 * form of the options' init that lets zkc_selector_opts_t grow without an
 * ABI break (fields are only ever appended, each with 0 as its default;
 * bytes this library does not know are zeroed). Returns ZKC_OK, or
 * ZKC_EINVAL (opts NULL, or size smaller than a zkc_selector_opts_t of
 * 1.0.0: nothing written; zkc_last_error_message says which). Thread-safe. */
ZKC_EXTERN int zkc_selector_opts_init_size(zkc_selector_opts_t *opts,
                                           size_t size);

/* Fills `opts` with the defaults above. Accepts NULL (no-op). Thread-safe.
 * Inline over zkc_selector_opts_init_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline void zkc_selector_opts_init(zkc_selector_opts_t *opts) {
  if (opts != NULL) (void)zkc_selector_opts_init_size(opts, sizeof(zkc_selector_opts_t));
}

/* As zkc_selector_create, with `opts_size` the size of *opts (sizeof *opts,
 * as given to its init): ZKC_EINVAL, nothing made, when opts_size is smaller
 * than a zkc_selector_opts_t of 1.0.0, or larger with a byte this library
 * does not know set (zkc_last_error_message names the size and the type);
 * opts NULL = defaults, whatever opts_size. Otherwise the codes of
 * zkc_selector_create. */
ZKC_EXTERN int zkc_selector_create_size(zkc_selector_t **out,
                                        zkc_client_t *client, const char *path,
                                        zkc_selector_fn take_leadership,
                                        void *ctx,
                                        const zkc_selector_opts_t *opts,
                                        size_t opts_size);

/* Creates a selector on the election path `path` (absolute, validated, at
 * most 1024 bytes) that runs take_leadership(ctx, sel) while it leads.
 * `opts` may be NULL (defaults); it and its id are copied. No ZooKeeper
 * traffic and no thread until zkc_selector_start. The selector keeps a
 * reference to `client`, which must stay open while the selector is
 * started; ctx belongs to the caller and must outlive the selector.
 * On failure *out is set to NULL (when out is not NULL).
 * Returns ZKC_OK, ZKC_EINVAL (out, client or take_leadership NULL, invalid
 * path, opts->id over 1020 KiB), ZKC_ENOMEM, ZKC_ECLOSED (client closed).
 * Inline over zkc_selector_create_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline int zkc_selector_create(zkc_selector_t **out,
                                      zkc_client_t *client, const char *path,
                                      zkc_selector_fn take_leadership,
                                      void *ctx,
                                      const zkc_selector_opts_t *opts) {
  return zkc_selector_create_size(out, client, path, take_leadership, ctx,
                                  opts, sizeof(zkc_selector_opts_t));
}

/* Starts the selector's thread and queues it for leadership (it waits for
 * a connection first if need be); returns at once. Only once per selector.
 * Returns ZKC_OK, ZKC_EINVAL (NULL), ZKC_EBUSY (already started or
 * closed), ZKC_ECLOSED (client closed), ZKC_EDEADLK (from a ZooKeeper or
 * client callback thread), ZKC_ESYSTEM (no thread). */
ZKC_EXTERN int zkc_selector_start(zkc_selector_t *sel);

/* Queues the selector for leadership again after a turn ended (the way to
 * lead again without auto_requeue; Curator's requeue). Returns at once.
 * After an error that ended the election it tries again (the operator may
 * have fixed the ACL). Returns ZKC_OK (queued), ZKC_EBUSY (already queued
 * or leading: nothing changes), ZKC_EINVAL (NULL, or never started), ZKC_ECLOSED (selector or
 * client closed). Never blocks; callable from any thread, callbacks
 * included. */
ZKC_EXTERN int zkc_selector_requeue(zkc_selector_t *sel);

/* ZKC_OK, or the error that ended the selector's election for good (see
 * zkc_selector_error_fn) until the next zkc_selector_requeue; ZKC_EINVAL
 * for NULL. No ZooKeeper traffic. Thread-safe. */
ZKC_EXTERN int zkc_selector_error(const zkc_selector_t *sel);

/* Leaves the election: should_stop becomes 1, a wait for leadership in
 * progress is cancelled (its node deleted), and close waits until a running
 * take_leadership has returned and the lock node is deleted (finished in
 * the background if the connection is down; a node of a lost session is
 * gone anyway). No callback runs after close returns. A selector never
 * started is just marked closed. Cannot be started again. Accepts NULL.
 * Called from take_leadership itself, close does not wait: it marks the
 * selector closed, sets should_stop and returns ZKC_OK; the node is deleted
 * when take_leadership returns and the selector is not queued again (call
 * zkc_selector_close or _destroy from another thread later to wait for the
 * thread's end).
 * Returns ZKC_OK (also when already closed), ZKC_EDEADLK (from a ZooKeeper
 * or client callback thread, e.g. the state callback: nothing changes). */
ZKC_EXTERN int zkc_selector_close(zkc_selector_t *sel);

/* Closes the selector if needed (waiting as zkc_selector_close) and frees
 * it. Accepts NULL. Not while another thread uses the selector.
 * Returns ZKC_OK, or ZKC_EDEADLK (from take_leadership or a callback
 * thread: nothing freed). */
ZKC_EXTERN int zkc_selector_destroy(zkc_selector_t *sel);

/* 1 while take_leadership runs and leadership is not in doubt (should_stop
 * still 0), else 0 (also for NULL). No ZooKeeper traffic. */
ZKC_EXTERN int zkc_selector_has_leadership(const zkc_selector_t *sel);

/* 1 once take_leadership must return: the connection was SUSPENDED (or is
 * READ_ONLY), the session was LOST, another client deleted the leader's
 * node, the selector is being closed or the client was closed. Reset to 0 when a new turn of leadership starts. Meant
 * to be polled by take_leadership; cheap (no ZooKeeper traffic). 1 for
 * NULL. */
ZKC_EXTERN int zkc_selector_should_stop(const zkc_selector_t *sel);

/* The participant id (opts.id or the client's holder_id). Owned by the
 * selector; NULL for NULL. */
ZKC_EXTERN const char *zkc_selector_id(const zkc_selector_t *sel);

/* The election path given at create. Owned by the selector; NULL for NULL. */
ZKC_EXTERN const char *zkc_selector_path(const zkc_selector_t *sel);

/* Every participant's id on the path in queue order, the leader first
 * (entry 0, when anyone takes part), ids read from the node data (Curator
 * selectors and zkcoord mutex holders on the path included): on success
 * *out is a new list (zkc_list_string gives each id; count 0 when the path
 * does not exist) that the caller frees with zkc_list_free; on failure
 * *out is NULL (when out is not NULL). Returns ZKC_OK, ZKC_EINVAL (sel or
 * out NULL), ZKC_EDEADLK (callback thread), ZKC_ECLOSED, ZKC_ENOMEM, or the
 * server's answer to the read, which is not retried (ZKC_ECONNLOSS,
 * ZKC_ENOAUTH, ...). Blocking (one round trip). */
ZKC_EXTERN int zkc_selector_participant_list(zkc_selector_t *sel,
                                             zkc_list_t **out);

/* The id of the current leader as the session's server sees it now (a
 * read without a sync, docs/api.md). On success *id is a new string the
 * caller frees with free(), or NULL when nobody takes part. Returns the
 * codes of zkc_selector_participant_list. */
ZKC_EXTERN int zkc_selector_leader_id(zkc_selector_t *sel, char **id);

/* The record of a leader selector (ZKC_RECIPE_SELECTOR): as zkc_latch_stats,
 * an acquire is a turn of leadership taken, a release take_leadership
 * returning (or a lost turn's node given up). Returns as zkc_mutex_stats. */
ZKC_EXTERN int zkc_selector_stats(const zkc_selector_t *selector,
                                  zkc_lock_stats_t *out);

/* The selector's current term of leadership (take_leadership's) as a
 * zkc_hold_t (zkcoord/hold.h), as zkc_latch_hold: a view borrowed from the
 * selector, valid while it exists; a call begun in a term is refused with
 * ZKC_ELOST once that term is over, and ZKC_ENOTOWNER between terms.
 * zkc_hold_release and zkc_hold_free refuse it (ZKC_EINVAL). NULL for a
 * NULL selector. No traffic. Thread-safe.
 * A view follows the current term (hold.h says how to tie work to one
 * term). */
ZKC_EXTERN zkc_hold_t *zkc_selector_hold(zkc_selector_t *sel);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_SELECTOR_H */
