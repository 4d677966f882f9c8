/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord revocation (zkc_revoke*): ask the holder of a lock to let go,
 * with Apache Curator's Revoker marker. A holder is told when it made its
 * holds revocable (zkc_mutex_set_revocable, zkcoord/mutex.h). */
#ifndef ZKCOORD_REVOKE_H
#define ZKCOORD_REVOKE_H

#include <stddef.h>

#include "client.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Asks the holder of the lock node `node_path` (a full path, as listed by
 * zkc_mutex_node_list) to let go, by writing Curator's revocation
 * marker, the 10 bytes "__REVOKE__", into the node's data. A holder that
 * did not make its hold revocable is not told (its node's data is
 * overwritten, nothing else). A write cut off by connection loss is tried
 * again under the client's retry policy. Returns ZKC_OK, ZKC_EINVAL (NULL client,
 * invalid path), ZKC_ENONODE (no such node: nothing to revoke),
 * ZKC_EDEADLK, ZKC_ECLOSED, ZKC_ENOAUTH (no WRITE permission on the node),
 * or the ensemble's other answers (ZKC_ECONNLOSS, ...). */
ZKC_EXTERN int zkc_revoke(zkc_client_t *client, const char *node_path);

/* Asks every current holder of the lock path `lock_path` to let go: the
 * first contender (with a node of the same sequence: a downgrade's read
 * node beside its write node), and when that is a reader of a read-write
 * lock, every reader before the first writer. Only ephemeral nodes are
 * asked: a persistent child is no lock holder and keeps its data. *asked (may be NULL) is set to the
 * number of nodes the marker was written to (0: nobody holds the lock).
 * It does not ask which recipe uses the path: on a leader election the
 * marker overwrites the leader's participant id (`zkcoord revoke` reads
 * the path first and refuses elections and semaphores).
 * Returns the codes of zkc_revoke, ZKC_OK also when nobody holds it. */
ZKC_EXTERN int zkc_revoke_holders(zkc_client_t *client, const char *lock_path,
                                  size_t *asked);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_REVOKE_H */
