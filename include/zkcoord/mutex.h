/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord mutex (zkc_mutex_*): a blocking, fair (FIFO), reentrant distributed mutex with
 * the semantics of Apache Curator's InterProcessMutex.
 *
 * Each acquisition creates a protected EPHEMERAL_SEQUENTIAL node
 * `<path>/_c_<uuid>-lock-<seq>`; the holder is the node with the lowest
 * sequence; a waiter waits on its immediate predecessor (the next in line
 * watching its own node too; the others, where round trips are long, the
 * node before their predecessor). Curator, kazoo
 * and go-zookeeper contenders on the same path queue with zkcoord's.
 *
 * Reentrancy is per mutex object and per thread: the holding thread may
 * acquire again (no ZooKeeper traffic) and must release as often. Two mutex
 * objects on one path are two contenders, even in one process.
 *
 * All functions are thread-safe. Blocking ones return ZKC_EDEADLK when called
 * from a ZooKeeper callback thread.
 */
#ifndef ZKCOORD_MUTEX_H
#define ZKCOORD_MUTEX_H

#include "client.h"
#include "hold.h"

/* 0.x compatibility: this header declared zkc_revoke and
 * zkc_revoke_holders; kept through 1.x. */
#include "revoke.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_mutex zkc_mutex_t;

/* Told once per lost hold, on the client's maintenance thread. `token` is
 * the fencing token of the hold that is lost (see zkc_hold_fencing_token):
 * a call that arrives after the thread released and acquired again names
 * the old hold, so compare it with the current token before acting. It
 * must not block and must not make blocking zkcoord calls or destroy the
 * mutex (they return ZKC_EDEADLK); typically it sets a flag the holding
 * thread checks. */
typedef void (*zkc_lost_fn)(void *ctx, zkc_mutex_t *mutex,
                            zkc_lost_reason_t reason, int64_t token);

/* Creates a mutex on the lock path `path` (absolute, validated, at most
 * 1024 bytes). No ZooKeeper traffic. The mutex keeps a reference to
 * `client`, which must stay open while the mutex is used. On failure *out
 * is set to NULL (when out is not NULL).
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument or invalid path), ZKC_ENOMEM,
 * ZKC_ECLOSED (client closed). */
ZKC_EXTERN int zkc_mutex_create(zkc_mutex_t **out, zkc_client_t *client,
                                const char *path);

/* Frees the mutex, and the watch it keeps on its path once a hold had the
 * path to itself (its next uncontended acquire then makes no read:
 * docs/architecture.md, "The quick grant"). Accepts NULL (returns ZKC_OK).
 * Returns ZKC_EBUSY and changes nothing while any thread holds it or is
 * inside a call on it; ZKC_EDEADLK from the mutex's own lost callback;
 * ZKC_EINVAL for a side of a read-write lock (zkc_rwlock_destroy frees
 * it). */
ZKC_EXTERN int zkc_mutex_destroy(zkc_mutex_t *mutex);

/* Blocks until the calling thread holds the mutex. It is granted only on
 * fresh answers of the server: a queue read that shows this client's node
 * first, or, when the deleted predecessor was the only node in its way
 * (nothing can join the queue before it), the predecessor's delete told
 * after the waiter's watches on it and on its own node were answered with
 * no event on its own node (the server's events on one connection come in
 * the order of the changes). Fresh means the request behind that answer
 * was sent less than half the session timeout before the grant: the server
 * keeps a session it has heard from for a whole timeout, so the session
 * outlives the grant whatever stalled this process in between. An older
 * answer or event (the process was stopped, or waited long) is followed by
 * a new read, and the grant also needs the session to be the client's
 * current one and connected. A waiter whose node was deleted by someone
 * else, or whose session was replaced or expired (a process stopped past
 * its session timeout), queues again.
 * Returns:
 *   ZKC_OK         held (count incremented if it already was)
 *   ZKC_EINVAL     mutex NULL
 *   ZKC_EDEADLK    called from a ZooKeeper callback thread
 *   ZKC_ECLOSED    the client was closed
 *   ZKC_ELOST      this thread's hold was lost (reentrant acquire: release
 *                  it first); waiters themselves re-queue on the client's
 *                  new session when theirs is lost
 *   ZKC_ENOMEM     out of memory
 *   ZKC_ECONNLOSS, ZKC_EOPTIMEOUT
 *                  the ensemble stayed unreachable beyond the retry policy
 *   ZKC_ENOAUTH    an ACL refuses the create (or the delete, see below)
 *   ZKC_ENOROOT    the chroot of the connect string vanished
 *   ZKC_ENOCHILDREN, ZKC_EBADARGS, ZKC_EINVALIDACL
 *                  the server refused the lock path or the ACL
 *   ZKC_ELAYOUT    the lock path holds another recipe's nodes (a
 *                  semaphore's locks/ or leases/, kazoo's semaphore leases,
 *                  a leader latch's nodes; for a mutex a read-write lock's
 *                  "__READ__", "__WRIT__" or kazoo's "__rlock__" nodes, for
 *                  a side of a read-write lock a plain lock's "lock-"
 *                  nodes: zkc_contender_layout): nothing of ours is left
 *                  there, the other recipe's holders are untouched;
 *                  zkc_last_error_message names the path and the recipe.
 *                  Checked at every read of the queue, so a waiter also
 *                  gives way to one that came meanwhile. Curator's and
 *                  go-zookeeper's mutexes are plain locks, a mutex queues
 *                  with them; Curator's and kazoo's read-write locks are
 *                  read-write locks, a side queues with them; kazoo's
 *                  Lock ("__lock__", as its WriteLock) and unknown
 *                  sequenced nodes queue with both. A peer that comes
 *                  later keeps its own rule: Curator's reader joins a
 *                  held mutex's path (docs/recipes.md, "One path, one
 *                  recipe")
 *   ZKC_EREADONLY, ZKC_ETHROTTLED, ZKC_EAUTHFAILED, ZKC_ESYSTEM, ZKC_EPROTO
 *                  other answers of the ensemble (see zkcoord/common.h)
 * On any error no lock node is left behind. */
ZKC_EXTERN int zkc_mutex_acquire(zkc_mutex_t *mutex);

/* As zkc_mutex_acquire, waiting at most `timeout_ms`: < 0 without limit
 * (the same as zkc_mutex_acquire), 0 tries once (a node is created and,
 * when it is not first, deleted again), > 0 that many milliseconds (the
 * rule of every timeout, see zkcoord/common.h).
 * Returns ZKC_ETIMEDOUT when the time ran out (own node deleted, or its
 * delete left to the background when the ensemble stopped answering: see
 * zkcoord/common.h), ZKC_EINVAL
 * for a NULL mutex, and the codes of zkc_mutex_acquire; when the
 * server refuses the delete of the waiter's node (ZKC_ENOAUTH: a parent
 * ACL without DELETE), that refusal instead of ZKC_ETIMEDOUT: the node then
 * stays in the queue until the session ends (close the client). */
ZKC_EXTERN int zkc_mutex_acquire_timeout(zkc_mutex_t *mutex,
                                         int64_t timeout_ms);

/* Releases one level of the calling thread's hold; the lock node is deleted
 * when the count reaches 0. A delete interrupted by connection loss is
 * finished in the background while the session lives.
 * Returns ZKC_OK, ZKC_EINVAL (NULL), ZKC_ENOTOWNER (this thread does not
 * hold the mutex; nothing changes), ZKC_EDEADLK (from a callback; nothing
 * changes), ZKC_ELOST (the hold had been lost, or its node was found
 * already gone by this release's delete: local state cleared, its node is
 * gone or being deleted), ZKC_ECONNLOSS (the hold was in doubt as it was
 * released: the connection down, or the session's renewal at the leader
 * not proven, as after a stop of this process; it may have been lost
 * before this release, so the work done under it may have overlapped
 * another holder's: local state cleared, the node deleted in the
 * background while the session lives; a loss learnt later is still told
 * to the lost callback, once, while the mutex exists), ZKC_ECLOSED (client closed: local state
 * cleared; the node went with the session), or the server's refusal of the
 * delete (ZKC_ENOAUTH: a parent ACL without DELETE): the node is still there,
 * so the thread still holds the lock and nothing changes; closing the
 * client ends the session and with it the node (release then returns
 * ZKC_ECLOSED). */
ZKC_EXTERN int zkc_mutex_release(zkc_mutex_t *mutex);

/* As zkc_mutex_release, but returns once the delete of the lock node is
 * sent, without waiting for the server's answer: a lock cycle then costs
 * about one write round trip instead of two. The lock is free for other
 * sessions once the server has applied the delete. On an unbroken
 * connection this session's later requests (this thread's next acquire
 * among them) are applied after it, so its next acquire does not queue
 * behind the old node.
 * What zkc_mutex_release would report of the delete is handled in the
 * background: a delete cut by connection loss (or sent while disconnected)
 * is finished once connected while the session lives, and until then the
 * old node stays in the queue, this session's next acquire waiting behind
 * it like anyone's; a node found already gone is ignored (a lost hold not
 * yet seen is not told); a refusal (ZKC_ENOAUTH: a parent ACL without
 * DELETE) is logged at ZKC_LOG_ERROR with the node's path, and the node
 * stays until the session ends, blocking the lock for every session, this
 * thread's next acquire included: close the client to end it.
 * Returns ZKC_OK (the hold is gone locally), ZKC_EINVAL (NULL),
 * ZKC_ENOTOWNER, ZKC_EDEADLK (from a callback; nothing changes), ZKC_ELOST
 * (the hold had been lost: local state cleared), ZKC_ECONNLOSS (in doubt as
 * it was released, as for zkc_mutex_release), ZKC_ECLOSED (client
 * closed: local state cleared), or, when no memory is left to send the
 * delete unwaited, the result of a waited one (zkc_mutex_release's codes).
 * zkc_client_close waits (up to 2 s) for deletes sent so. Thread-safe as
 * zkc_mutex_release. */
ZKC_EXTERN int zkc_mutex_release_nowait(zkc_mutex_t *mutex);

/* 1 if any thread of this process holds this mutex object, else 0 (also for
 * NULL). No ZooKeeper traffic. */
ZKC_EXTERN int zkc_mutex_is_acquired_in_this_process(const zkc_mutex_t *mutex);

/* 1 if the calling thread holds this mutex object, else 0 (also for NULL).
 * Stays 1 after a loss until the thread releases: see zkc_hold_is_held. */
ZKC_EXTERN int zkc_mutex_is_owned_by_current_thread(const zkc_mutex_t *mutex);

/* Registers the lost callback (NULL removes it). Returns ZKC_OK or
 * ZKC_EINVAL. Thread-safe. */
ZKC_EXTERN int zkc_mutex_set_lost_callback(zkc_mutex_t *mutex, zkc_lost_fn fn,
                                           void *ctx);

/* Told when someone asks for a revocable hold to be given up (see
 * zkc_mutex_set_revocable), once per request, on the client's maintenance
 * thread. `token` names the hold (see zkc_lost_fn). It must not block and
 * must not make blocking zkcoord calls (they return ZKC_EDEADLK): typically
 * it sets a flag, and the holding thread finishes its work in progress and
 * releases soon. Revocation is cooperative: nothing is taken away from a
 * holder that ignores it. */
typedef void (*zkc_revoke_fn)(void *ctx, zkc_mutex_t *mutex, int64_t token);

/* Makes the holds this mutex object grants from now on revocable (`fn`
 * NULL: not revocable; a hold already granted keeps the callback and
 * context it was granted with, and may still be told through them). A
 * revocable hold's node is created with empty data (Curator's convention:
 * its marker is then the only data the node ever gets) and watched from
 * the grant; a revocation request that arrived while the thread was still
 * waiting is told at the grant. Interoperates with Curator's
 * makeRevocable and Revoker.attemptRevoke. Returns ZKC_OK or ZKC_EINVAL
 * (NULL mutex). */
ZKC_EXTERN int zkc_mutex_set_revocable(zkc_mutex_t *mutex, zkc_revoke_fn fn,
                                       void *ctx);

/* The lock path given at create. Never NULL for a valid mutex; owned by the
 * mutex. */
ZKC_EXTERN const char *zkc_mutex_path(const zkc_mutex_t *mutex);

/* Not a grant's call (a hold's own nodes are zkc_hold_node_list's): every
 * contender node on the lock path (full paths) in queue order, the
 * holder first; children without a sequence suffix are not contenders and
 * are left out. On success *out is a new list (zkc_list_string gives each
 * path; zkc_list_count is 0 when the path does not exist) that the caller
 * frees with zkc_list_free; on failure *out is NULL (when out is not NULL).
 * Returns ZKC_OK, ZKC_EINVAL (mutex or out NULL), ZKC_EDEADLK,
 * ZKC_ECLOSED, ZKC_ENOMEM, or a ZooKeeper error. Thread-safe. */
ZKC_EXTERN int zkc_mutex_node_list(zkc_mutex_t *mutex, zkc_list_t **out);

/* Fills *out with the record of the mutex's client, recipe (a mutex, or a
 * read-write side: ZKC_RECIPE_READ / ZKC_RECIPE_WRITE) and path. Each
 * recipe's own stats call (zkc_sem_stats, ...) answers the same way:
 * Returns:
 *   ZKC_OK
 *   ZKC_EINVAL  the object or out NULL
 *   ZKC_ENOMEM  the object has no record (memory ran out when it was
 *               created; it counts nothing); *out is zeroed
 * Thread-safe; may be called from callbacks; no ZooKeeper request. */
ZKC_EXTERN int zkc_mutex_stats(const zkc_mutex_t *mutex,
                               zkc_lock_stats_t *out);


/* The calling thread's hold on `mutex` as a zkc_hold_t (zkcoord/hold.h):
 * a view borrowed from the mutex, valid while the mutex exists, for the
 * calls every grant offers (zkc_hold_fencing_token, zkc_hold_node_list,
 * zkc_hold_is_held, zkc_hold_fenced_get/_set/_create/_cas). Each call acts
 * on the hold of the thread that makes it (ZKC_ENOTOWNER when it holds
 * none). A read side's hold (a downgrade's too) reads; its writes are
 * ZKC_EINVAL. zkc_hold_release and zkc_hold_free refuse it (ZKC_EINVAL):
 * release through zkc_mutex_release. NULL for a NULL mutex. No traffic.
 * Thread-safe. */
ZKC_EXTERN zkc_hold_t *zkc_mutex_hold(zkc_mutex_t *mutex);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_MUTEX_H */
