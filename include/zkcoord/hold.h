/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord hold handle (zkc_hold_*): a lock granted to an asynchronous
 * acquire (zkcoord/async.h). Not tied to a thread: any thread releases it,
 * once, through its context, then frees it. */
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


/* Releases a hold of `async`: its node is deleted in the background (never
 * blocks on the network) and `done` (may be NULL) is told when the delete
 * is done (see zkc_released_fn: ZKC_ECONNLOSS or ZKC_ELOST, not ZKC_OK,
 * for a hold released while its session is not proven live), like other
 * callbacks. The handle stays
 * valid for zkc_hold_free. Any thread, once. Returns ZKC_OK, ZKC_EINVAL
 * (NULL async or hold), ZKC_ENOTOWNER (released already, or a hold of
 * another context: nothing changes), ZKC_ENOMEM. Thread-safe. */
ZKC_EXTERN int zkc_hold_release(zkc_async_t *async, zkc_hold_t *hold,
                                zkc_released_fn done, void *ctx);


/* Frees a hold, releasing it first (without a completion) when still held:
 * released in doubt, its loss learnt later is still told to the lost
 * callback, as after zkc_hold_release. NULL is ZKC_OK. Returns ZKC_OK or ZKC_ENOMEM (still held: retry). Any
 * use of the handle after it is undefined. */
ZKC_EXTERN int zkc_hold_free(zkc_hold_t *hold);


/* The hold's fencing token (its node's czxid). ZKC_OK, ZKC_EINVAL (NULL
 * argument), ZKC_ENOTOWNER (released). No traffic. Thread-safe. */
ZKC_EXTERN int zkc_hold_fencing_token(const zkc_hold_t *hold, int64_t *token);


/* Full path of the hold's lock node, copied into `buf` (NUL-terminated).
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument, or buf too small: nothing
 * copied), ZKC_ENOTOWNER (released). No traffic. Thread-safe. */
ZKC_EXTERN int zkc_hold_node(const zkc_hold_t *hold, char *buf, size_t len);


/* 1 while the hold is held and not known lost, else 0 (also for NULL). No
 * traffic. Thread-safe. */
ZKC_EXTERN int zkc_hold_is_held(const zkc_hold_t *hold);


/* Fenced write, as zkc_mutex_fenced_set: sets `path`'s data only if the
 * hold's node still exists, in one transaction. BLOCKS for a round trip
 * (a loop thread should use a worker for it). Returns ZKC_OK, ZKC_EINVAL
 * (NULL hold, invalid path, data NULL with len > 0, len over 1020 KiB,
 * a read side's hold), ZKC_ENOTOWNER (released), ZKC_ELOST (the node is
 * gone: the hold is marked lost), ZKC_EDEADLK (from a callback), ZKC_ECLOSED, or the
 * request's error (ZKC_ENONODE: no `path`, create it with
 * zkc_hold_fenced_create; ZKC_ECONNLOSS, ...). On ZKC_EINVAL,
 * zkc_last_error_message says which argument. Thread-safe. */
ZKC_EXTERN int zkc_hold_fenced_set(zkc_hold_t *hold, const char *path,
                                   const void *data, size_t len);


/* Fenced create, as zkc_mutex_fenced_create: creates the node `path`
 * (persistent) holding `data` only if the hold's node still exists, in one
 * transaction; a missing parent is created first, empty, outside it.
 * BLOCKS for a round trip or three (a loop thread should use a worker).
 * Returns ZKC_OK, ZKC_ENODEEXISTS (`path` exists: nothing written),
 * ZKC_EINVAL (NULL hold, invalid path, data NULL with len > 0, len over
 * 1020 KiB: zkc_last_error_message says which), ZKC_ENOTOWNER (released),
 * ZKC_ELOST (the node is gone: the hold is marked lost; nothing created),
 * ZKC_ENOROOT, ZKC_EDEADLK (from a callback), ZKC_ECLOSED, ZKC_ENOMEM, or
 * the request's error (ZKC_ENOAUTH, ZKC_ECONNLOSS: created or not, ...).
 * Thread-safe. */
ZKC_EXTERN int zkc_hold_fenced_create(zkc_hold_t *hold, const char *path,
                                      const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_HOLD_H */
