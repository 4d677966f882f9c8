/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord lease handle (zkc_lease_*): what zkc_sem_acquire grants, one or
 * more lease nodes of a semaphore (zkcoord/semaphore.h) taken together.
 * Not tied to a thread: any thread releases it, exactly once, then frees
 * it. All functions are thread-safe. */
#ifndef ZKCOORD_LEASE_H
#define ZKCOORD_LEASE_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "hold.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_lease zkc_lease_t;

/* Releases the lease handle's nodes (guaranteed deletes: finished in the
 * background after a connection loss while the session lives). Any thread
 * may release; exactly once. The handle stays valid (for
 * zkc_lease_free) but no longer holds anything.
 * Returns ZKC_OK, ZKC_EINVAL (NULL), ZKC_EDEADLK (from a callback; nothing
 * changes), ZKC_ENOTOWNER (released already: nothing changes), ZKC_ELOST
 * (the lease had been lost, or a node of it was found gone: released
 * anyway), ZKC_ECONNLOSS (the lease was in doubt as it was released: the
 * connection down, or the session's renewal at the leader not proven, as
 * after a stop of this process; it may have been lost before, so the
 * work under it may have overlapped more than N holders': released, the
 * nodes deleted in the background while the session lives; a loss learnt
 * later is still told to the lost callback, once, while the semaphore
 * exists), ZKC_ECLOSED (client closed: released, the nodes went with the
 * session), or the server's refusal of a delete (ZKC_ENOAUTH): the lease is
 * still held and nothing changes. Thread-safe. */
ZKC_EXTERN int zkc_lease_release(zkc_lease_t *lease);


/* Frees a lease handle, releasing it first when it is still held (with
 * that release's result, see zkc_lease_release; the handle is freed
 * whatever the result except ZKC_EDEADLK). Accepts NULL (ZKC_OK). The
 * handle must not be used by another thread meanwhile or afterwards. */
ZKC_EXTERN int zkc_lease_free(zkc_lease_t *lease);


/* The lease set as a zkc_hold_t (zkcoord/hold.h): a view borrowed from
 * the lease, valid until zkc_lease_free. A fenced write checks every lease
 * node of the set in the same transaction; the token is the newest
 * node's. After zkc_lease_release its calls say ZKC_ENOTOWNER.
 * zkc_hold_release and zkc_hold_free refuse it (ZKC_EINVAL). NULL for a
 * NULL lease. No traffic. Thread-safe. */
ZKC_EXTERN zkc_hold_t *zkc_lease_hold(zkc_lease_t *lease);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_LEASE_H */
