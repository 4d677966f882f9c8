/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord multi-lock: all or nothing over several locks (mutexes, or the
 * sides of read-write locks), under one deadline for the whole set.
 *
 * The locks are taken in a canonical order (their paths in byte order,
 * whatever order the caller gave), so two multi-locks over overlapping sets
 * cannot deadlock each other; on any failure what was taken is released,
 * in reverse order, and nothing is held. Release goes in reverse order too.
 * No ZooKeeper footprint of its own: each lock queues as it would alone,
 * so Curator's InterProcessMultiLock users interoperate lock by lock.
 * Once the last lock is granted, the node of every lock is read again
 * (all in one round trip, each behind a sync), and the set is reported
 * held only while that read is less than half a session timeout old (an
 * older one is sent again): a lock lost meanwhile (an outsider's delete,
 * or a stall of the process past its session) has the set taken again.
 *
 * Locks are told apart by their path strings: give every process the same
 * paths for the same locks (the same chroot, one ensemble), or two sets
 * over one lock may sort differently and wait on each other.
 *
 * Holds follow the component locks: per thread and reentrant. All
 * functions are thread-safe.
 */
#ifndef ZKCOORD_MULTILOCK_H
#define ZKCOORD_MULTILOCK_H

#include <stddef.h>

#include "mutex.h"
#include "hold.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_multilock zkc_multilock_t;

/* Creates a multi-lock over `locks[0..n-1]` (the array is copied; the locks
 * stay the caller's and must outlive the multi-lock). No ZooKeeper traffic.
 * Returns ZKC_OK, ZKC_ENOMEM, ZKC_EINVAL: out or locks NULL, n 0, a NULL
 * entry, or two entries on one lock path (the same lock twice, or two
 * sides of one read-write lock: one thread would wait on itself). On
 * failure *out is set to NULL (when out is not NULL). */
ZKC_EXTERN int zkc_multilock_create(zkc_multilock_t **out,
                                    zkc_mutex_t *const *locks, size_t n);

/* Frees the multi-lock (not its locks). Accepts NULL (returns ZKC_OK).
 * Returns ZKC_EBUSY and changes nothing while a thread holds it through
 * this object or is inside a call on it. */
ZKC_EXTERN int zkc_multilock_destroy(zkc_multilock_t *ml);

/* Blocks until the calling thread holds every lock. Returns ZKC_OK or the
 * first failure of a component's zkc_mutex_acquire (see there: ZKC_EDEADLK,
 * ZKC_ECLOSED, ZKC_ELOST, ZKC_ELAYOUT: a path of another recipe's, ...),
 * after releasing the locks already taken;
 * ZKC_EINVAL for NULL. */
ZKC_EXTERN int zkc_multilock_acquire(zkc_multilock_t *ml);

/* As zkc_multilock_acquire, waiting at most `timeout_ms` for the whole
 * set: < 0 without limit (the same as zkc_multilock_acquire), 0 takes only
 * locks free now, > 0 that many milliseconds (the rule of every timeout,
 * see zkcoord/common.h). Returns ZKC_ETIMEDOUT when it ran out (nothing
 * held), ZKC_EINVAL for NULL, and the codes of zkc_multilock_acquire. */
ZKC_EXTERN int zkc_multilock_acquire_timeout(zkc_multilock_t *ml,
                                             int64_t timeout_ms);

/* Releases one level of every lock, in reverse canonical order, going on
 * past failures. Returns ZKC_OK, ZKC_EINVAL (NULL), ZKC_ENOTOWNER (the
 * calling thread does not hold every lock; nothing changes), ZKC_EDEADLK
 * (from a callback; nothing changes), or the first failure of a component's
 * zkc_mutex_release (ZKC_ELOST, ZKC_ECLOSED, a refusal; see there). After a
 * refusal (ZKC_ENOAUTH: the server kept that lock's node) that one lock is
 * still held by the thread, as a lock of its own: release it with
 * zkc_mutex_release once the cause is gone (or close the client); the set
 * is released through this object all the same (destroy may follow). */
ZKC_EXTERN int zkc_multilock_release(zkc_multilock_t *ml);

/* The record of a multi-lock: ZKC_RECIPE_MULTILOCK, its paths in byte
 * order joined with ',', counted in the client of the first of them. An
 * acquire is the whole set's; a thread's reentrant acquires of the set are
 * not counted. Losses are counted in the records of its mutexes, whose
 * holds they are. Returns as zkc_mutex_stats. */
ZKC_EXTERN int zkc_multilock_stats(const zkc_multilock_t *ml,
                                   zkc_lock_stats_t *out);

/* The calling thread's hold of the multi-lock's whole set as a zkc_hold_t
 * (zkcoord/hold.h): a view borrowed from the multi-lock, valid while it
 * exists. A fenced write checks the node of every lock of the set in the
 * same transaction (the locks must then be on one client: ZKC_EINVAL
 * otherwise); the token is the newest node's. A write refused because
 * one lock's node is gone (ZKC_ELOST) marks only that lock lost and tells
 * its loss there (that lock's lost callback and notice, and the set's
 * notice, zkc_hold_set_lost_callback on this view: once per lost set, with
 * the set's token); the other locks are not lost, and
 * zkc_multilock_release still deletes their nodes. A set with a read side among
 * its locks reads; its writes are ZKC_EINVAL. zkc_hold_release and
 * zkc_hold_free refuse it (ZKC_EINVAL). NULL for a NULL multi-lock. No
 * traffic. Thread-safe. */
ZKC_EXTERN zkc_hold_t *zkc_multilock_hold(zkc_multilock_t *ml);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_MULTILOCK_H */
