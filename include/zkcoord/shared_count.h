/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord shared count (zkc_shared_count_*): a 4-byte big-endian signed
 * int in a node, the format of Apache Curator's SharedCount; a semaphore's
 * limit when its count_path names it (zkcoord/semaphore.h). */
#ifndef ZKCOORD_SHARED_COUNT_H
#define ZKCOORD_SHARED_COUNT_H

#include <stdint.h>

#include "client.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a shared count node (Curator SharedCount format) into *value.
 * Returns ZKC_OK, ZKC_EINVAL, ZKC_EDEADLK, ZKC_ECLOSED, ZKC_ENONODE,
 * ZKC_EPROTO (not exactly 4 bytes), ZKC_ENOMEM, or the ensemble's error.
 * Thread-safe. */
ZKC_EXTERN int zkc_shared_count_get(zkc_client_t *client, const char *path,
                                    int32_t *value);


/* Writes a shared count node (4 bytes, big-endian), creating it and its
 * parents when missing (unconditional, like Curator's setCount).
 * Returns ZKC_OK, ZKC_EINVAL, ZKC_EDEADLK, ZKC_ECLOSED, ZKC_ENOMEM, or the
 * ensemble's error (ZKC_ENOAUTH, ZKC_ECONNLOSS, ...). Thread-safe. */
ZKC_EXTERN int zkc_shared_count_set(zkc_client_t *client, const char *path,
                                    int32_t value);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_SHARED_COUNT_H */
