/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord observer: be told each change of an election's leader or of a
 * lock's holder, without taking part (etcd's Election.Observe), and told
 * when nobody leads.
 *
 * An observer creates no node and takes no place in the queue. It reads
 * the path's children, takes the first contender in queue order (the
 * lowest sequence: the node every recipe, zkcoord's, Curator's, kazoo's
 * and go-zookeeper's, treats as the leader or holder) and watches that one
 * node, or, when nobody leads, the path's children (or, when the path does
 * not exist, the path itself). A watch that fires makes it read again;
 * there is no polling. Each read goes through the ensemble's leader first
 * (a sync pipelined before it, in one round trip), so a server lagging
 * behind never shows an older state.
 *
 * What is told: the state as observing begins (a leader, or nobody), then
 * every change seen: another node leads (its id, its fencing token, its
 * node), or nobody leads any more (the leader released, its session
 * expired, an outsider deleted its node, the path was removed). Nothing
 * false is told: a leader is told once however often it is read again (a
 * watch fired by its data, a reconnect, a new session), and never a node
 * older than one already told (once a node led, every node queued before
 * it was gone). A change that came and went between two reads (a leader
 * that led for less than a round trip) may go unseen. While the observer's
 * own connection is down nothing is told; after RECONNECTED, and with a
 * new session after LOST, it reads again and tells only what changed.
 *
 * Two ways to be told, either or both:
 *  - a callback (zkc_observer_set_callback) on the observer's own thread,
 *    for each change, in order;
 *  - zkc_observer_next, a blocking call with a timeout that returns the
 *    newest state not yet returned (changes in between are counted in
 *    zkc_observation_t.missed, never queued without bound).
 *
 * All functions are thread-safe unless stated otherwise.
 */
#ifndef ZKCOORD_OBSERVER_H
#define ZKCOORD_OBSERVER_H

#include "client.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_observer zkc_observer_t;

/* What a path is observed as. Both take the first contender as the
 * leader or holder; each refuses, with ZKC_ELAYOUT, a path whose first
 * node would not be that: a read-write lock's (its readers hold
 * together), a semaphore's (kazoo's too). */
typedef enum zkc_observe_kind {
  /* An election: a leader latch's nodes ("latch-", Curator's LeaderLatch
   * too) or a leader selector's ("lock-", Curator's LeaderSelector). */
  ZKC_OBSERVE_ELECTION = 0,
  /* A mutex's lock path (zkcoord's, Curator's InterProcessMutex, kazoo's
   * Lock, go-zookeeper's): its holder. A latch's nodes are refused too. */
  ZKC_OBSERVE_LOCK = 1
} zkc_observe_kind_t;

/* One state of the path as the observer tells it. Only the library
 * allocates it (fields may be added at its end in a later version). */
typedef struct zkc_observation {
  /* 1: a leader (holder) is named below; 0: nobody leads (no contender
   * on the path, or no path). */
  int has_leader;
  /* The leader's id: its node's data (the participant id of a latch, a
   * holder id), NUL-terminated, id_len bytes (it may hold other NULs).
   * "" when nobody leads or id_denied. */
  const char *id;
  size_t id_len;
  /* 1 when the node's ACL refuses this client reading its data (id ""),
   * else 0. */
  int id_denied;
  /* The leader's fencing token: its node's czxid, the value the leader's
   * own zkc_hold_fencing_token / zkc_hold_fencing_token /
   * zkc_hold_fencing_token gives; larger for every later leader. 0 when
   * nobody leads. */
  int64_t token;
  /* The leader's node, a full path; "" when nobody leads. */
  const char *node;
  /* The session that owns the leader's node (its ephemeral owner); 0 when
   * nobody leads. */
  int64_t session;
  /* 1 for the first state told, then one more for each change. */
  uint64_t change;
  /* zkc_observer_next only: changes told since the state it returned last
   * and not returned themselves (0: none missed). 0 in a callback. */
  uint64_t missed;
} zkc_observation_t;

/* Told each change, in order, on the observer's own thread. rc is ZKC_OK
 * with `ev` the new state (valid only during the call: copy what you
 * keep), or, once and last, the error that ended observing (ev NULL; see
 * zkc_observer_next). It must return quickly: the observer reads nothing
 * while it runs. A blocking zkcoord call made from it returns ZKC_EDEADLK
 * (zkc_observer_next, zkc_observer_close and zkc_observer_destroy of any
 * observer included); getters and non-blocking calls are fine. */
typedef void (*zkc_observe_fn)(void *ctx, zkc_observer_t *obs, int rc,
                               const zkc_observation_t *ev);

/* Creates an observer of `path` (absolute, validated) as `kind`. No
 * ZooKeeper traffic until zkc_observer_start. The observer keeps a
 * reference to `client`, which must stay open while it is started.
 * On success *out is a new observer the caller frees with
 * zkc_observer_destroy; on failure *out is set to NULL (when out is not
 * NULL).
 * Returns ZKC_OK, ZKC_EINVAL (out or client NULL, invalid path, unknown
 * kind), ZKC_ENOMEM, ZKC_ECLOSED (client closed). */
ZKC_EXTERN int zkc_observer_create(zkc_observer_t **out, zkc_client_t *client,
                                   const char *path, zkc_observe_kind_t kind);

/* Sets the callback and its ctx (fn NULL = none). Only before
 * zkc_observer_start.
 * Returns ZKC_OK, ZKC_EINVAL (obs NULL), ZKC_EBUSY (started or closed). */
ZKC_EXTERN int zkc_observer_set_callback(zkc_observer_t *obs,
                                         zkc_observe_fn fn, void *ctx);

/* Starts observing: starts the observer's thread, which reads the path
 * (once a connection is up) and tells the first state, then each change.
 * Returns at once. Only once per observer.
 * Returns ZKC_OK, ZKC_EINVAL (NULL), ZKC_EBUSY (started or closed
 * already), ZKC_ECLOSED (client closed), ZKC_ESYSTEM (no thread). */
ZKC_EXTERN int zkc_observer_start(zkc_observer_t *obs);

/* Blocks until a state not returned yet is there (the first, or a
 * change), up to timeout_ms (< 0: without limit; 0: just looks; > 0: that
 * many milliseconds: the rule of every timeout, see zkcoord/common.h),
 * and returns the newest one: *out is a new observation the caller frees
 * with zkc_observation_free (its missed field counts the changes skipped
 * since the last one returned). Meant for one consumer thread: two threads
 * calling it share the changes between them. Works with or without a
 * callback set. On failure *out is set to NULL (when out is not NULL).
 * Returns:
 *   ZKC_OK
 *   ZKC_ETIMEDOUT  no change within timeout_ms
 *   ZKC_EINVAL     obs or out NULL, or the observer was never started
 *   ZKC_EDEADLK    called from a ZooKeeper callback thread or from an
 *                  observer's callback (its thread)
 *   ZKC_ECLOSED    the observer or its client was closed
 *   ZKC_ENOMEM
 *   the error that ended observing for good, once every state before it
 *   was returned: ZKC_ELAYOUT (the path holds a read-write lock's or a
 *   semaphore's nodes, or for ZKC_OBSERVE_LOCK a latch's), ZKC_ENOAUTH
 *   (the path's ACL refuses listing its children), ZKC_EAUTHFAILED,
 *   ZKC_ENOROOT (the chroot vanished). Connection loss and an expired
 *   session never end observing. */
ZKC_EXTERN int zkc_observer_next(zkc_observer_t *obs, int64_t timeout_ms,
                                 zkc_observation_t **out);

/* Frees an observation from zkc_observer_next. Accepts NULL. */
ZKC_EXTERN void zkc_observation_free(zkc_observation_t *ev);

/* The path given at create. Owned by the observer; NULL for NULL. */
ZKC_EXTERN const char *zkc_observer_path(const zkc_observer_t *obs);

/* Stops observing: stops the observer's thread (waiting for a callback
 * that runs) and removes its watch; zkc_observer_next callers return
 * ZKC_ECLOSED. No callback runs once it returns. An observer never
 * started is just marked closed. Accepts NULL. Not restartable.
 * Returns ZKC_OK (also when already closed), ZKC_EDEADLK (from an
 * observer's callback or a ZooKeeper callback thread: nothing changes). */
ZKC_EXTERN int zkc_observer_close(zkc_observer_t *obs);

/* Closes the observer if needed and frees it. Accepts NULL.
 * Returns ZKC_OK, or ZKC_EDEADLK as zkc_observer_close (nothing freed).
 * Not while another thread uses the observer. */
ZKC_EXTERN int zkc_observer_destroy(zkc_observer_t *obs);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_OBSERVER_H */
