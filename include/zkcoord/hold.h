/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord hold handle (zkc_hold_*): one type for every grant, and one set
 * of calls on it (token, node, is-held, fenced get, set, create and
 * compare-and-set). Two sorts of handle:
 *
 * - an asynchronous acquire's own hold (zkcoord/async.h): not tied to a
 *   thread; any thread releases it, once, through its context, then frees
 *   it;
 * - a recipe's borrowed view of its current grant, valid as long as the
 *   recipe object: zkc_mutex_hold (the calling thread's hold, on either
 *   side of a read-write lock, a downgrade's read hold too),
 *   zkc_latch_hold and zkc_selector_hold (the current term of leadership),
 *   zkc_lease_hold (a lease set), zkc_multilock_hold (the calling thread's
 *   set). It is let go through its recipe: zkc_hold_release and
 *   zkc_hold_free refuse it (ZKC_EINVAL, nothing changes). With nothing
 *   granted (not held, between terms) its calls say ZKC_ENOTOWNER.
 *   A view follows its recipe's current grant: one kept past its grant (a
 *   worker of a leader's first term, in a third) acts under the later
 *   grant. To tie work to one grant, write with zkc_hold_fenced_cas and a
 *   version read under that grant (a write by any later holder moves the
 *   version), or bind a hold to it (zkc_hold_bind), whose every call is
 *   refused once that grant is over.
 *
 * A fenced write checks every node of the hold (all of a set's) and
 * writes, in one transaction: a hold that lost a node, or whose session
 * ended, writes nothing (ZKC_ELOST). A leader that no longer leads is
 * refused so: its term's node is gone. A read hold (a read side's, a
 * multi-lock with a read side) may not write: its node keeps writers out,
 * not other readers (ZKC_EINVAL, zkc_last_error_message says why). A
 * fenced read goes through the hold's own session behind a sync, and is
 * kept only if the hold (the same term) still stands after it.
 *
 * A hold's loss is told through one notice for every kind of hold,
 * zkc_hold_set_lost_callback (reason and token, once per lost grant): on a
 * recipe's view it covers every later grant, on a lease set, an async
 * hold or a bound hold its one grant; a multi-lock's set is lost with any
 * of its locks. A hold's own fenced call that finds it lost first tells
 * that loss there (logged, counted, told once). The recipes' own notices keep
 * working beside it: the async context's lost callback,
 * zkc_mutex_set_lost_callback, zkc_sem_set_lost_callback, a latch's
 * not_leader, a selector's should_stop. */
#ifndef ZKCOORD_HOLD_H
#define ZKCOORD_HOLD_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_async zkc_async_t;
typedef struct zkc_hold zkc_hold_t;

/* A release's delete is done: ZKC_OK (deleted, or handed to the background
 * when the connection dropped under the delete itself), ZKC_ELOST (the
 * node was gone already: the hold had been lost; or its session was known
 * gone as it was released), ZKC_ECONNLOSS (the hold was in doubt as it was
 * released: the connection down, or the session's renewal at the leader
 * not proven, as after a stop of this process; it may have been lost
 * before this release, so the work done under it may have overlapped
 * another holder's: the node is deleted in the background while the
 * session lives, and a loss learnt later is still told to the context's
 * lost callback, once, while the context exists; as zkc_mutex_release),
 * ZKC_ECLOSED (client closed: the node went with the session) or the
 * server's refusal. */
typedef void (*zkc_released_fn)(void *ctx, int rc);

/* A hold was lost (reasons as for zkc_mutex_t). `token` is its fencing
 * token: the hold may have been released and freed by the time this runs,
 * so match on the token. Told once per lost hold. */
typedef void (*zkc_hold_lost_fn)(void *ctx, zkc_lost_reason_t reason,
                                 int64_t token);


/* Releases a hold of `async` (an async acquire's own; a recipe's view is
 * ZKC_EINVAL: nothing changes): its node is deleted in the background (never
 * blocks on the network) and `done` (may be NULL) is told when the delete
 * is done (see zkc_released_fn: ZKC_ECONNLOSS or ZKC_ELOST, not ZKC_OK,
 * for a hold released while its session is not proven live), like other
 * callbacks. The handle stays
 * valid for zkc_hold_free. Any thread, once. Returns ZKC_OK, ZKC_EINVAL
 * (NULL async or hold), ZKC_ENOTOWNER (released already, or a hold of
 * another context: nothing changes), ZKC_ENOMEM. Thread-safe. */
ZKC_EXTERN int zkc_hold_release(zkc_async_t *async, zkc_hold_t *hold,
                                zkc_released_fn done, void *ctx);


/* Frees an async acquire's hold, releasing it first (without a
 * completion) when still held: released in doubt, its loss learnt later is
 * still told to the lost callback, as after zkc_hold_release. A bound hold
 * (zkc_hold_bind): frees the binding only, never its grant. NULL is
 * ZKC_OK. Returns ZKC_OK, ZKC_ENOMEM (still held: retry) or ZKC_EINVAL (a
 * recipe's view: nothing changes; it lives as long as its recipe object).
 * Any use of a freed handle after it is undefined. */
ZKC_EXTERN int zkc_hold_free(zkc_hold_t *hold);

/* A hold bound to the one grant `hold` has now: every call on *out
 * (token, node, is_held, the fenced calls) answers for that grant only,
 * and once it is over (released, lost, or followed by another grant of
 * the same recipe: a leader's next term, a mutex's next acquisition) is
 * refused with ZKC_ELOST (zkc_hold_is_held 0), nothing written, but for
 * its token, which stays that grant's as every lost hold's does. Give it to
 * the work that belongs to one grant (a leader's worker of one term).
 * *out is the caller's, freed with zkc_hold_free (which frees the binding,
 * never the grant); zkc_hold_release refuses it (ZKC_EINVAL). It must be
 * freed before `hold` ends (its recipe object destroyed, an async hold
 * freed). Bound from a mutex's or multi-lock's view, it answers as that
 * view does, for the calling thread's hold. Returns ZKC_OK, ZKC_EINVAL (NULL hold or out), ZKC_ENOTOWNER
 * (nothing granted now), ZKC_ELOST (the grant is lost), ZKC_ENOMEM. No
 * traffic. Thread-safe, callable from callbacks. */
ZKC_EXTERN int zkc_hold_bind(zkc_hold_t *hold, zkc_hold_t **out);


/* Sets the hold's loss notice: fn(ctx, reason, token) is told once for
 * each of its grants lost (its node deleted by another client, its session
 * expired or, by the client's policy, suspended; a leader's term taken
 * away). The one notice for every kind of hold, beside the recipes' own
 * callbacks (which keep working):
 * - a recipe's view (zkc_mutex_hold, zkc_latch_hold, zkc_selector_hold):
 *   every later grant of that recipe object, each thread's hold and each
 *   term, as zkc_mutex_set_lost_callback does;
 * - a multi-lock's set (zkc_multilock_hold): every set later taken through
 *   it, lost when any of its locks is lost (one lock's node deleted, the
 *   session over), told once per lost set with the set's token (its newest
 *   node's); not a set its thread took lock by lock;
 * - a lease set's (zkc_lease_hold), an async acquire's own hold and a bound
 *   hold (zkc_hold_bind): its one grant, told at most once. A grant lost
 *   already as it is set returns ZKC_ELOST and sets nothing (a loss decided
 *   meanwhile is either told or so answered, never both).
 * A later call replaces fn and ctx; NULL fn clears it, and a cleared notice
 * is never told after this returns. A normal release tells nothing; a hold
 * released in doubt whose loss is learnt later is told, as the recipe's own
 * callback is, while the hold lives. It runs on the thread the recipe's
 * lost callback runs on (the client's callback thread; an async hold's on
 * its context's callback thread or zkc_async_dispatch), after the recipe
 * has decided the loss and before its own callback: it must not block (a
 * blocking zkc_* call from it fails with ZKC_EDEADLK). It is never called
 * once the hold is freed (zkc_hold_free, zkc_lease_free) or its recipe
 * object destroyed, and never twice to the same fn for the same grant.
 * A loss that the hold's own fenced call finds first is told on that
 * call's thread, before it returns ZKC_ELOST.
 * Returns ZKC_OK, ZKC_EINVAL (NULL hold),
 * ZKC_ENOTOWNER (a one-grant hold
 * released, or a bound mutex hold asked from another thread), ZKC_ELOST,
 * ZKC_ENOMEM. No traffic. Thread-safe, callable from callbacks (the notice
 * itself may clear it or free its bound hold). */
ZKC_EXTERN int zkc_hold_set_lost_callback(zkc_hold_t *hold,
                                          zkc_hold_lost_fn fn, void *ctx);


/* The hold's fencing token (its node's czxid; a set's: its newest node's),
 * larger for every later grant of any path on the ensemble. A read hold
 * taken by a downgrade has its write hold's token. A lease set's is its
 * own, and several are held at once: fence per lease, never by refusing
 * every token below the largest seen (docs/failures.md).
 * ZKC_OK, ZKC_EINVAL (NULL argument), ZKC_ENOTOWNER (released, nothing
 * granted now; a lost hold still has its token). No traffic.
 * Thread-safe. */
ZKC_EXTERN int zkc_hold_fencing_token(const zkc_hold_t *hold, int64_t *token);


/* The full paths of the hold's nodes, as a list (the one list type): one
 * entry for a single grant; a set's (a lease set's oldest first, a
 * multi-lock's in path order) in the order its fenced calls check them.
 * On success *out is a new list (zkc_list_string gives each path) that the
 * caller frees with zkc_list_free; on failure *out is NULL (when out is not
 * NULL). Returns ZKC_OK, ZKC_EINVAL (NULL argument), ZKC_ENOTOWNER
 * (released, nothing granted now), ZKC_ENOMEM. No traffic. Thread-safe. */
ZKC_EXTERN int zkc_hold_node_list(const zkc_hold_t *hold, zkc_list_t **out);


/* 1 while the hold is held, not known lost and not in doubt (the
 * connection up, the session proven renewed at the ensemble's leader: 0
 * at once after a stop of this process past that proof), else 0 (also
 * for NULL, and for a mutex's view on a thread that holds none). No
 * traffic. Thread-safe. */
ZKC_EXTERN int zkc_hold_is_held(const zkc_hold_t *hold);


/* Fenced write: sets `path`'s data only if every node of the hold still
 * exists, in one transaction (a check of each node and the set), so a
 * holder that lost its grant never overwrites what a later holder wrote.
 * `data` may be NULL with len 0. Sent once, not retried: after
 * ZKC_ECONNLOSS or ZKC_EOPTIMEOUT the write may or may not have been
 * applied (read it back with zkc_hold_fenced_get). BLOCKS for a round
 * trip (a loop thread should use a worker for it). Returns ZKC_OK,
 * ZKC_EINVAL (NULL hold, invalid path, data NULL with len > 0, len over
 * 1020 KiB, a read hold; a multi-lock whose locks are on more than one
 * client), ZKC_ENOTOWNER (released, nothing granted now), ZKC_ELOST (a
 * node is gone, or the session over: the hold is marked lost, nothing
 * written, the loss logged, counted and told to its notices at once),
 * ZKC_EDEADLK (from a callback), ZKC_ECLOSED, or the
 * request's error (ZKC_ENONODE: no `path`, create it with
 * zkc_hold_fenced_create; ZKC_ECONNLOSS, ...). On ZKC_EINVAL,
 * zkc_last_error_message says which argument. Thread-safe. */
ZKC_EXTERN int zkc_hold_fenced_set(zkc_hold_t *hold, const char *path,
                                   const void *data, size_t len);


/* Fenced create: creates the node `path` (persistent) holding `data` only
 * if every node of the hold still exists, in one transaction; a missing
 * parent is created first, empty, with the client's parent mode and ACL,
 * outside it (a lost holder may so leave an empty parent, never data).
 * The node gets the ACL of a ZKC_NODE_PARENT node; its data version is 0.
 * With zkc_hold_fenced_get (ZKC_ENONODE: not there yet) this completes a
 * read-modify-write that starts from nothing.
 * BLOCKS for a round trip or three (a loop thread should use a worker).
 * Returns ZKC_OK, ZKC_ENODEEXISTS (`path` exists: nothing written),
 * ZKC_EINVAL (as zkc_hold_fenced_set: zkc_last_error_message says which),
 * ZKC_ENOTOWNER (released, nothing granted now), ZKC_ELOST (a node is
 * gone: the hold is marked lost; nothing created),
 * ZKC_ENOROOT, ZKC_EDEADLK (from a callback), ZKC_ECLOSED, ZKC_ENOMEM, or
 * the request's error (ZKC_ENOAUTH, ZKC_ECONNLOSS: created or not, ...).
 * Thread-safe. */
ZKC_EXTERN int zkc_hold_fenced_create(zkc_hold_t *hold, const char *path,
                                      const void *data, size_t len);


/* Fenced compare-and-set: sets `path`'s data only
 * if every node of the hold still exists and `path`'s data version is
 * `version` (as zkc_hold_fenced_get returned it), in one transaction; on
 * ZKC_OK *new_version (may be NULL) is the new version. BLOCKS for a round
 * trip. Returns zkc_hold_fenced_set's codes, ZKC_EINVAL for a version below
 * 0 too, and ZKC_EBADVERSION (someone wrote `path` since: nothing set,
 * read again). Thread-safe. */
ZKC_EXTERN int zkc_hold_fenced_cas(zkc_hold_t *hold, const char *path,
                                   const void *data, size_t len,
                                   int32_t version, int32_t *new_version);


/* Fenced read: `path`'s data, read through the
 * session that owns the hold's nodes behind a sync (never from a server
 * behind the grant, nor from one cut off from the leader), kept only if
 * the hold (the same term of a leader) still stands once it is answered.
 * *data (malloc, NUL-terminated; the caller frees it) holds *len bytes of
 * version *version. Every hold may read, a read hold too. BLOCKS for a
 * round trip or more (retried on connection loss while the hold stands).
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument, invalid path), ZKC_ENOTOWNER,
 * ZKC_ELOST (lost before or during the read: nothing returned), ZKC_ENONODE
 * (no `path`), ZKC_EDEADLK, ZKC_ECLOSED, or the request's error.
 * Thread-safe. */
ZKC_EXTERN int zkc_hold_fenced_get(zkc_hold_t *hold, const char *path,
                                   char **data, size_t *len, int32_t *version);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_HOLD_H */
