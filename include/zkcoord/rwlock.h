/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord read-write lock: many readers or one writer across processes,
 * fair (one FIFO queue for both kinds), reentrant per thread on each side,
 * with the node layout of Apache Curator's InterProcessReadWriteLock.
 *
 * Nodes on the lock path `path`: `_c_<uuid>-__WRIT__<seq>` for writers and
 * `_c_<uuid>-__READ__<seq>` for readers, protected EPHEMERAL_SEQUENTIAL.
 * A writer is granted when no node of either kind is before it; a reader
 * when no writer is before it, and it waits on the nearest writer before
 * it (Curator's reader waits on the first one, so every reader wakes when
 * it leaves). kazoo's `__lock__` (writer) and `__rlock__` (reader)
 * nodes are recognised in the queue too, and any other sequenced child
 * counts as a writer, but a plain lock's `lock-` node (a mutex's, Curator's
 * InterProcessMutex's) makes either side refuse the path with ZKC_ELAYOUT:
 * Curator's mutex would not see the readers.
 *
 * Each side is a zkc_mutex_t: acquire, release, timeouts (with
 * zkc_mutex_acquire_timeout: < 0 without limit, 0 one try, > 0 that many
 * milliseconds, the rule of every timeout, see zkcoord/common.h), lost callbacks,
 * fencing tokens, revocation and the participant list all work on it with
 * the zkc_mutex_* functions, and a side can be part of a multi-lock. The
 * sides belong to the read-write lock: zkc_mutex_destroy refuses them.
 *
 * Between the sides of one read-write lock object, per thread:
 * - the write holder may take the read side (downgrade): granted at once,
 *   with a read node that carries the write node's sequence (Curator 5.5),
 *   so a writer queued meanwhile stays behind the reader after the write
 *   side is released; the read hold's fencing token is the write hold's
 *   (zkc_hold_fencing_token), smaller than every later holder's;
 * - a read holder asking for the write side gets ZKC_EDEADLK at once (its
 *   own read node would be before its write node forever).
 *
 * All functions are thread-safe.
 */
#ifndef ZKCOORD_RWLOCK_H
#define ZKCOORD_RWLOCK_H

#include "client.h"
#include "mutex.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_rwlock zkc_rwlock_t;

/* Creates a read-write lock on `path` (absolute, validated, at most 1024
 * bytes). No ZooKeeper traffic. Keeps a reference to `client`, which must
 * stay open while the lock is used. On failure *out is set to NULL (when
 * out is not NULL).
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument or invalid path), ZKC_ENOMEM,
 * ZKC_ECLOSED (client closed). */
ZKC_EXTERN int zkc_rwlock_create(zkc_rwlock_t **out, zkc_client_t *client,
                                 const char *path);

/* Frees the lock and both sides. Accepts NULL (returns ZKC_OK).
 * Returns ZKC_EBUSY and changes nothing while any thread holds either side
 * or is inside a call on one; ZKC_EDEADLK (nothing changes) from a
 * callback thread. */
ZKC_EXTERN int zkc_rwlock_destroy(zkc_rwlock_t *rw);

/* The read side: shared with other readers, excluded by writers. Use it
 * with the zkc_mutex_* functions. Owned by `rw` (valid until
 * zkc_rwlock_destroy); NULL for NULL. zkc_hold_fenced_set on it returns
 * ZKC_EINVAL: a fenced write needs the write side. */
ZKC_EXTERN zkc_mutex_t *zkc_rwlock_read_side(zkc_rwlock_t *rw);

/* The write side: excludes readers and writers. Use it with the
 * zkc_mutex_* functions. Owned by `rw`; NULL for NULL. */
ZKC_EXTERN zkc_mutex_t *zkc_rwlock_write_side(zkc_rwlock_t *rw);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_RWLOCK_H */
