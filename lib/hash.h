/* SPDX-License-Identifier: Apache-2.0 */
/* uthash, configured so that running out of memory is an error the caller
 * sees, never exit(). Add with ZKC__HASH_ADD_OK and check its result. */
#ifndef ZKC_HASH_H
#define ZKC_HASH_H

extern _Thread_local int zkc__hash_oom;

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (zkc__hash_oom = 1)
#include <uthash.h>

/* Adds `item` keyed by its uint64_t field `field`; evaluates to 1 on
 * success, 0 when the table could not grow (item not added). */
#define ZKC__HASH_ADD_U64(head, field, item)                \
  ({                                                         \
    zkc__hash_oom = 0;                                       \
    HASH_ADD(hh, head, field, sizeof(uint64_t), item);       \
    !zkc__hash_oom;                                          \
  })

#endif /* ZKC_HASH_H */
