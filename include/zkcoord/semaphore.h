/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord semaphore (zkc_sem_*): at most N lease holders across machines, in the layout
 * of Apache Curator's InterProcessSemaphoreV2, so that zkcoord and Curator
 * processes share one semaphore.
 *
 * On ZooKeeper, under the semaphore path:
 *   <path>/locks/_c_<uuid>-lock-<seq>    the queue: an InterProcessMutex
 *                                        held only while taking leases
 *   <path>/leases/_c_<uuid>-lease-<seq>  one EPHEMERAL_SEQUENTIAL node per
 *                                        lease (protected create)
 * Nothing is stored on <path> itself. The limit is either fixed per client
 * (Curator's `maxLeases`: never checked against other clients, so every
 * client must be given the same value) or read from a shared count node in
 * the format of Curator's SharedCount: exactly 4 bytes, a big-endian signed
 * int. A change of the shared count takes effect for the waiting head of
 * the queue at once; lowering it revokes no lease already granted.
 * Every child of <path>/leases counts as a lease, as in Curator.
 *
 * How an acquisition goes: the acquirer queues on <path>/locks (FIFO,
 * herd-free); the head of that queue creates all of its `qty` lease nodes,
 * then waits, watching the children of <path>/leases (and the count node),
 * until the number of leases is at most the limit; then it leaves the queue.
 * When the read that made it head showed room for its leases, it leaves
 * right behind its creates instead, and the next head need not wait for
 * its answers; should its own read show them full after all (a lease made
 * outside the queue meanwhile), it queues again at the back.
 * Only the queue head watches <path>/leases: no herd. Because all `qty`
 * nodes are created while holding the queue, two clients taking several
 * leases each cannot deadlock (Curator takes them one queue round at a
 * time and can). Curator clients see only nodes under leases/, so this is
 * compatible.
 *
 * Not the kazoo layout: kazoo's Semaphore keeps its lease nodes directly
 * under <path> and its queue lock at "<path>-__lock__", and stores the limit
 * as ASCII in <path>'s data. A kazoo Semaphore and this one on one path do
 * not exclude each other; zkcoord does not implement kazoo's layout.
 *
 * Leases are handles, not tied to a thread: any thread may release one, and
 * exactly once. A semaphore with a limit of 1 is Curator's
 * InterProcessSemaphoreMutex; unlike Curator's, a second acquire through the
 * same semaphore object while it holds the lease returns ZKC_EDEADLK at once
 * instead of stalling every acquirer of the path.
 *
 * A grant is a lease handle (zkc_lease_t, zkcoord/lease.h); the shared
 * count node is read and written with zkcoord/shared_count.h.
 *
 * All functions are thread-safe. Blocking ones return ZKC_EDEADLK when
 * called from a ZooKeeper callback thread.
 */
#ifndef ZKCOORD_SEMAPHORE_H
#define ZKCOORD_SEMAPHORE_H

#include "client.h"
#include "lease.h"
#include "status.h"

/* 0.x compatibility: this header declared the shared count's calls and
 * gave mutex.h; both kept through 1.x. */
#include "mutex.h"
#include "shared_count.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_sem zkc_sem_t;

/* Semaphore options. */
typedef struct zkc_sem_opts {
  /* The limit when count_path is NULL (>= 1, default 1). With count_path,
   * the value the count node is created with when it does not exist yet
   * (Curator's SharedCount seed). */
  int max_leases;
  /* Absolute path of a shared count node (4-byte big-endian int), or NULL
   * for the fixed limit. Copied at create. */
  const char *count_path;
} zkc_sem_opts_t;

/* Fills the `size` bytes of *opts (pass sizeof *opts) with the defaults: the
 * form of the options' init that lets zkc_sem_opts_t grow without an ABI
 * break (fields are only ever appended, each with 0 as its default; bytes
 * this library does not know are zeroed). Returns ZKC_OK, or ZKC_EINVAL
 * (opts NULL, or size smaller than a zkc_sem_opts_t of 1.0.0: nothing
 * written; zkc_last_error_message says which). Thread-safe. */
ZKC_EXTERN int zkc_sem_opts_init_size(zkc_sem_opts_t *opts, size_t size);

/* Fills *opts with the defaults (max_leases 1, no count path). Accepts
 * NULL. Thread-safe.
 * Inline over zkc_sem_opts_init_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline void zkc_sem_opts_init(zkc_sem_opts_t *opts) {
  if (opts != NULL) (void)zkc_sem_opts_init_size(opts, sizeof(zkc_sem_opts_t));
}

/* As zkc_sem_create, with `opts_size` the size of *opts (sizeof *opts, as
 * given to its init): ZKC_EINVAL, nothing made, when opts_size is smaller
 * than a zkc_sem_opts_t of 1.0.0, or larger with a byte this library does
 * not know set (zkc_last_error_message names the size and the type); opts
 * NULL = defaults, whatever opts_size. Otherwise the codes of
 * zkc_sem_create. */
ZKC_EXTERN int zkc_sem_create_size(zkc_sem_t **out, zkc_client_t *client,
                                   const char *path, const zkc_sem_opts_t *opts,
                                   size_t opts_size);

/* Creates a semaphore on `path` (absolute, validated, at most 1024 bytes).
 * NULL opts = defaults. No ZooKeeper traffic. The semaphore keeps a
 * reference to `client`, which must stay open while it is used. On failure
 * *out is set to NULL (when out is not NULL).
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument, invalid path or count path,
 * max_leases < 1), ZKC_ENOMEM, ZKC_ECLOSED (client closed).
 * Inline over zkc_sem_create_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline int zkc_sem_create(zkc_sem_t **out, zkc_client_t *client,
                                 const char *path,
                                 const zkc_sem_opts_t *opts) {
  return zkc_sem_create_size(out, client, path, opts, sizeof(zkc_sem_opts_t));
}

/* Frees the semaphore. Accepts NULL (returns ZKC_OK). Returns ZKC_EBUSY and
 * changes nothing while a lease of it is held or a call on it is in
 * progress; ZKC_EDEADLK from its own lost callback. Released lease handles
 * do not keep it busy (they are freed with zkc_lease_free). */
ZKC_EXTERN int zkc_sem_destroy(zkc_sem_t *sem);

/* Takes `qty` leases at once, all or nothing, waiting at most `timeout_ms`
 * (< 0: without limit; 0: take them only if they are free now; > 0: that
 * many milliseconds: the rule of every timeout, see zkcoord/common.h) for
 * the whole call: queueing, creating and waiting. On success *out is a new
 * lease handle for the `qty` lease nodes; release it with
 * zkc_lease_release and free it with zkc_lease_free.
 * Returns:
 *   ZKC_OK         held
 *   ZKC_EINVAL     NULL argument, qty 0, or qty above a fixed limit (it
 *                  could never be granted)
 *   ZKC_EDEADLK    called from a ZooKeeper callback thread; or this
 *                  semaphore object's own held leases plus qty exceed the
 *                  limit (checked before queueing for a fixed limit, when
 *                  the count is read for a shared one): waiting would stall
 *                  every acquirer of the path until a lease of this object
 *                  is released. Nothing is taken.
 *   ZKC_ETIMEDOUT  the time ran out; no node is left (an ensemble that did
 *                  not answer in time: its delete goes on in the
 *                  background, see zkcoord/common.h)
 *   ZKC_ECLOSED    the client was closed (or is closing)
 *   ZKC_EPROTO     the count node does not hold exactly 4 bytes
 *   ZKC_ENOMEM     out of memory
 *   ZKC_ECONNLOSS, ZKC_EOPTIMEOUT
 *                  the ensemble stayed unreachable beyond the retry policy
 *   ZKC_ELAYOUT    the path holds another recipe's nodes (a lock's or a
 *                  leader latch's directly under it, kazoo's semaphore
 *                  leases): checked before queueing and again once granted
 *                  (another recipe that began meanwhile); nothing of ours
 *                  is left (neither nodes nor, when this call made them,
 *                  locks/ and leases/), the other recipe's holders are
 *                  untouched; zkc_last_error_message says which recipe
 *   ZKC_ENOAUTH, ZKC_ENOROOT, ZKC_ENOCHILDREN, ZKC_EBADARGS,
 *   ZKC_EINVALIDACL, ZKC_EREADONLY, ZKC_ETHROTTLED, ZKC_EAUTHFAILED,
 *   ZKC_ESYSTEM    as for zkc_mutex_acquire; ZKC_ENOAUTH also when an ACL
 *                  refuses deleting this call's queue or lease nodes (they
 *                  stay until the session ends), reported instead of
 *                  ZKC_ETIMEDOUT, and instead of a grant (the leases are
 *                  given back) when the queue node cannot be deleted
 * A session lost while acquiring (or a node of this call deleted by
 * someone else, the queue node or the leases/ node included) is survived:
 * the acquisition starts again, at the back of the queue, on the client's
 * new session, within the same time.
 * A waiting head of the queue re-reads the leases whenever they change and
 * the shared count whenever it changes. With a fixed limit, a head that
 * finds more leases held by others than its own limit logs a warning
 * (ZKC_LOG_WARN) once per call: another client uses a higher limit (or
 * foreign nodes sit in leases/); a shared count node is the cure. With a shared count, a qty above
 * the current count waits for the count to rise (or the timeout).
 * On any error no node of this call is left behind (or, when the ensemble
 * stopped answering, its delete is left to the background). */
ZKC_EXTERN int zkc_sem_acquire(zkc_sem_t *sem, unsigned qty,
                               int64_t timeout_ms, zkc_lease_t **out);

/* Told once per lost lease handle, on the client's maintenance thread:
 * the session was lost (or, with lost_on_suspended, the connection), or
 * one of its lease nodes was deleted by another client. `token` is the
 * lost lease's fencing token (zkc_hold_fencing_token): the handle itself
 * may have been released and freed by the time this runs, so match on the
 * token. Same rules as zkc_lost_fn: no blocking zkcoord call here. */
typedef void (*zkc_sem_lost_fn)(void *ctx, zkc_sem_t *sem,
                                zkc_lost_reason_t reason, int64_t token);

/* Registers the lost callback (NULL removes it): the semaphore's, told for
 * every lease set it grants (an async acquire's too), where a lease set's
 * own notice (zkc_hold_set_lost_callback on zkc_lease_hold) covers one.
 * Returns ZKC_OK or ZKC_EINVAL. Thread-safe. */
ZKC_EXTERN int zkc_sem_set_lost_callback(zkc_sem_t *sem, zkc_sem_lost_fn fn,
                                         void *ctx);

/* The semaphore path given at create; owned by the semaphore, never NULL
 * for a valid one. */
ZKC_EXTERN const char *zkc_sem_path(const zkc_sem_t *sem);

/* Status of a semaphore path, read without taking part, as
 * zkc_lock_contender_list reads a path: on success *leases (the lease nodes
 * under <path>/leases, by sequence; a waiting head's own nodes are among
 * them, as they count) and *queue (the queue under <path>/locks, head
 * first) are new lists of records (zkc_list_contender; zkc_list_string
 * gives each node's name), each freed with zkc_list_free; on failure both
 * are NULL (when not NULL). Returns ZKC_OK (empty lists when the path does
 * not exist), ZKC_EINVAL (client, leases or queue NULL, invalid path),
 * ZKC_EDEADLK, ZKC_ECLOSED, ZKC_ENOMEM, ZKC_ECONNLOSS, ZKC_EOPTIMEOUT,
 * ZKC_ESESSIONEXPIRED, ZKC_ENOAUTH. Thread-safe. */
ZKC_EXTERN int zkc_sem_contender_list(zkc_client_t *client, const char *path,
                                      zkc_list_t **leases, zkc_list_t **queue);

/* The record of a semaphore (its client, ZKC_RECIPE_SEMAPHORE, its path).
 * An acquire is one call of zkc_sem_acquire, however many leases it
 * takes; a release, the lease's release. Returns as zkc_mutex_stats. */
ZKC_EXTERN int zkc_sem_stats(const zkc_sem_t *sem, zkc_lock_stats_t *out);


#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_SEMAPHORE_H */
