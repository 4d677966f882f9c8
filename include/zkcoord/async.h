/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord asynchronous acquire, for event-loop daemons: take the lock of a
 * path without blocking the calling thread and learn the result from a
 * callback.
 *
 * An async context (zkc_async_t) belongs to one client. Its pending
 * acquires are state machines driven by ZooKeeper completions and watches
 * on one engine thread per context: a thousand pending acquires cost no
 * thread of their own. They queue with the same nodes as zkc_mutex
 * (<path>/_c_<uuid>-lock-<seq>), so async, blocking and Curator, kazoo or
 * go-zookeeper contenders on one path share one FIFO queue, and follow the
 * same grant rule: a fresh children read shows our node first while its
 * session is the client's current, connected one.
 *
 * A granted acquire gives a hold handle (zkc_hold_t) that is not tied to a
 * thread: any thread releases it, once, through its context; the hold is
 * then freed with zkc_hold_free.
 *
 * Callbacks (acquired, released, lost, state) run either on the context's engine
 * thread (ZKC_DELIVER_THREAD) or, with ZKC_DELIVER_DISPATCH, only inside
 * zkc_async_dispatch on the application's own thread, which it calls when
 * the file descriptor of zkc_async_fd becomes readable (the c-ares and
 * libcurl-multi pattern). A callback must not block: blocking zkcoord calls
 * made from one return ZKC_EDEADLK. */
#ifndef ZKCOORD_ASYNC_H
#define ZKCOORD_ASYNC_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "common.h"
#include "mutex.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_async zkc_async_t;
typedef struct zkc_hold zkc_hold_t;

/* Where callbacks run. */
typedef enum zkc_delivery {
  ZKC_DELIVER_THREAD = 0,  /* on the context's engine thread */
  ZKC_DELIVER_DISPATCH = 1 /* in zkc_async_dispatch, on the caller's thread */
} zkc_delivery_t;

/* An acquire's result: rc ZKC_OK with a hold now owned by the callee, or
 * a failure (hold NULL): ZKC_ETIMEDOUT, ZKC_ECANCELED, ZKC_ECLOSED (client
 * closed or context destroyed), ZKC_ECONNLOSS or ZKC_EOPTIMEOUT (the
 * client's retry policy, zkc_client_opts_t.retry, exhausted in one outage,
 * as for zkc_mutex_acquire), ZKC_ENOMEM, ZKC_ENOROOT, ZKC_ELAYOUT (the
 * path holds another recipe's nodes, as for zkc_mutex_acquire: the line
 * saying which went to the client's log sink) or the server's refusal
 * (ZKC_ENOAUTH, ...). Runs exactly once per accepted acquire. */
typedef void (*zkc_acquired_fn)(void *ctx, int rc, zkc_hold_t *hold);
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

/* A state change of the context's client (see zkc_state_t), delivered
 * like the other callbacks: in dispatch mode only inside
 * zkc_async_dispatch, so a loop learns of SUSPENDED or LOST on its own
 * thread instead of through zkc_client_add_listener's library thread. */
typedef void (*zkc_async_state_fn)(void *ctx, zkc_state_t state);

typedef struct zkc_async_opts {
  zkc_delivery_t delivery; /* default ZKC_DELIVER_THREAD */
  zkc_hold_lost_fn on_lost; /* NULL: losses are only logged */
  void *lost_ctx;
  zkc_async_state_fn on_state; /* NULL: none */
  void *state_ctx;
} zkc_async_opts_t;

/* Fills *opts with the defaults. Accepts NULL (no-op). Thread-safe. */
ZKC_EXTERN void zkc_async_opts_init(zkc_async_opts_t *opts);

/* Creates an async context on `client` (opts NULL = defaults; copied) and
 * starts its engine thread. *out is owned by the caller
 * (zkc_async_destroy); set to NULL on failure. Returns ZKC_OK, ZKC_EINVAL
 * (NULL out or client, unknown delivery), ZKC_ENOMEM, ZKC_ESYSTEM (thread
 * or eventfd), ZKC_ECLOSED (client closed). Thread-safe. */
ZKC_EXTERN int zkc_async_create(zkc_async_t **out, zkc_client_t *client,
                                const zkc_async_opts_t *opts);

/* Completes every pending acquire with ZKC_ECLOSED (its node removed),
 * runs every queued callback (on the engine thread, or, in dispatch mode,
 * on the calling thread, as is any told after the engine stopped), stops
 * the engine and frees the context. NULL is
 * ZKC_OK. ZKC_EBUSY while a hold of it is not freed (nothing changes);
 * ZKC_EDEADLK from a callback. Not to be called concurrently with other
 * calls on the same context. */
ZKC_EXTERN int zkc_async_destroy(zkc_async_t *async);

/* Starts taking the lock of `path` (as zkc_mutex_create validates it),
 * waiting at most timeout_ms (< 0 without limit, 0 = one look at the
 * queue, > 0 that many milliseconds: the rule of every timeout, see
 * zkcoord/common.h).
 * Never blocks on the network. `done` is called once with the result (see
 * zkc_acquired_fn). It follows the blocking acquire's protocol step for
 * step (the same code drives both): a session lost while pending
 * re-queues within the timeout, a request cut off is retried by the
 * client's retry policy, and the next in line is granted on its
 * predecessor's delete without a read when that is safe. *id (if not NULL) names the
 * acquire for zkc_async_cancel. Returns ZKC_OK (accepted: done will run),
 * ZKC_EINVAL (NULL async or done, invalid path; done will not run),
 * ZKC_ENOMEM, ZKC_ECLOSED (client closed or context being destroyed).
 * Thread-safe, callable from callbacks. */
ZKC_EXTERN int zkc_async_acquire(zkc_async_t *async, const char *path,
                                 int64_t timeout_ms, zkc_acquired_fn done,
                                 void *ctx, uint64_t *id);

/* Starts taking the read side (zkc_async_acquire_read) or the write side
 * (zkc_async_acquire_write) of the read-write lock at `path`, the one
 * zkc_rwlock_create(path) takes: the same nodes, so async and blocking
 * readers and writers of one path (and Curator's InterProcessReadWriteLock)
 * queue together. A reader waits only for the writers queued before it; a
 * writer for everyone before it. Arguments, timeout, callback, *id, return
 * codes and threads as zkc_async_acquire's, and the same protocol (the
 * blocking side's, step for step).
 * A read hold offers the token, node, is-held, lost notice and release of
 * every hold; its fenced writes are refused with ZKC_EINVAL (a read hold
 * proves no exclusion). Not a downgrade: a read acquire behind this
 * context's own write hold waits for that hold's release. */
ZKC_EXTERN int zkc_async_acquire_read(zkc_async_t *async, const char *path,
                                      int64_t timeout_ms,
                                      zkc_acquired_fn done, void *ctx,
                                      uint64_t *id);
ZKC_EXTERN int zkc_async_acquire_write(zkc_async_t *async, const char *path,
                                       int64_t timeout_ms,
                                       zkc_acquired_fn done, void *ctx,
                                       uint64_t *id);

/* Cancels pending acquire `id`: its node is removed and its callback runs
 * once with ZKC_ECANCELED. Returns ZKC_OK, ZKC_EALREADY (it completed, or
 * its cancel or result is already under way: its callback runs or ran with
 * that result), ZKC_EINVAL (NULL async, id never given out). Never blocks.
 * Thread-safe, callable from callbacks. */
ZKC_EXTERN int zkc_async_cancel(zkc_async_t *async, uint64_t id);

/* Dispatch mode: the descriptor becomes readable while callbacks wait for
 * zkc_async_dispatch. Owned by the context (do not close or read it).
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument, thread delivery). */
ZKC_EXTERN int zkc_async_fd(const zkc_async_t *async, int *fd);

/* Dispatch mode: runs the callbacks queued so far on the calling thread and
 * drains the descriptor (readable again only for later ones). *ran (if not
 * NULL) is how many ran. Returns ZKC_OK, ZKC_EINVAL (NULL async, thread
 * delivery), ZKC_EDEADLK (from a callback: nothing runs). Call it from one
 * thread at a time. */
ZKC_EXTERN int zkc_async_dispatch(zkc_async_t *async, int *ran);

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
 * a read side's hold), ZKC_ENOTOWNER (released), ZKC_ELOST (the node is gone: the hold is
 * marked lost), ZKC_EDEADLK (from a callback), ZKC_ECLOSED, or the
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

#endif /* ZKCOORD_ASYNC_H */
