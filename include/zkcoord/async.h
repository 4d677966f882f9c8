/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord asynchronous acquire (zkc_async_*), for event-loop daemons: take the lock of a
 * path (or a semaphore's leases: zkc_async_acquire_leases) without
 * blocking the calling thread and learn the result from a callback.
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
 * A granted acquire gives a hold handle (zkc_hold_t, zkcoord/hold.h) that is not tied to a
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
#include "hold.h"
#include "lease.h"
#include "semaphore.h"

/* 0.x compatibility: this header gave mutex.h; kept through 1.x. */
#include "mutex.h"

#ifdef __cplusplus
extern "C" {
#endif


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

/* Fills the `size` bytes of *opts (pass sizeof *opts) with the defaults: the
 * form of the options' init that lets zkc_async_opts_t grow without an ABI
 * break (fields are only ever appended, each with 0 as its default; bytes
 * this library does not know are zeroed). Returns ZKC_OK, or ZKC_EINVAL
 * (opts NULL, or size smaller than a zkc_async_opts_t of 1.0.0: nothing
 * written; zkc_last_error_message says which). Thread-safe. */
ZKC_EXTERN int zkc_async_opts_init_size(zkc_async_opts_t *opts, size_t size);

/* Fills *opts with the defaults. Accepts NULL (no-op). Thread-safe. The
 * 0.x form: zkc_async_opts_init_size takes the struct's size.
 * Inline over zkc_async_opts_init_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline void zkc_async_opts_init(zkc_async_opts_t *opts) {
  if (opts != NULL) (void)zkc_async_opts_init_size(opts, sizeof(zkc_async_opts_t));
}

/* As zkc_async_create, with `opts_size` the size of *opts (sizeof *opts, as
 * given to its init): ZKC_EINVAL, nothing made, when opts_size is smaller
 * than a zkc_async_opts_t of 1.0.0, or larger with a byte this library does
 * not know set (zkc_last_error_message names the size and the type); opts
 * NULL = defaults, whatever opts_size. Otherwise the codes of
 * zkc_async_create. */
ZKC_EXTERN int zkc_async_create_size(zkc_async_t **out, zkc_client_t *client,
                                     const zkc_async_opts_t *opts,
                                     size_t opts_size);

/* Creates an async context on `client` (opts NULL = defaults; copied) and
 * starts its engine thread. *out is owned by the caller
 * (zkc_async_destroy); set to NULL on failure. Returns ZKC_OK, ZKC_EINVAL
 * (NULL out or client, unknown delivery), ZKC_ENOMEM, ZKC_ESYSTEM (thread
 * or eventfd), ZKC_ECLOSED (client closed). Thread-safe.
 * Inline over zkc_async_create_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline int zkc_async_create(zkc_async_t **out, zkc_client_t *client,
                                   const zkc_async_opts_t *opts) {
  return zkc_async_create_size(out, client, opts, sizeof(zkc_async_opts_t));
}

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

/* Starts taking qty leases of `sem` (a semaphore of the context's client),
 * waiting at most timeout_ms (the rule of every timeout: < 0 without
 * limit, 0 = one look, > 0 that many milliseconds). Never blocks on the
 * network. It follows zkc_sem_acquire's protocol step for step (the same
 * runs): the same nodes, so async and blocking acquirers of one semaphore,
 * and Curator's InterProcessSemaphoreV2, share one queue and never hold
 * more than the limit (or the shared count) at once; a session lost while
 * pending queues again within the timeout. `done` is called once with the
 * result (see zkc_acquired_fn; also ZKC_EPROTO: a shared count node not of
 * 4 bytes), on the context's thread or in zkc_async_dispatch. The hold
 * it gives is this context's own, over the lease set's nodes, as a lock's
 * async hold is: any thread releases it through its context without
 * blocking (zkc_hold_release deletes every lease node in the background,
 * done told once all are answered) and frees it (zkc_hold_free, which
 * releases first); its fenced calls check every lease node in one
 * transaction, its token is the newest node's; its loss (a lease node
 * deleted by another client, the session lost) is told once to its notice
 * (zkc_hold_set_lost_callback) and the context's on_lost, not to the
 * semaphore's lost callback. The semaphore counts the set as this
 * object's until zkc_hold_release: zkc_sem_destroy(sem) returns ZKC_EBUSY
 * while the hold is held. *id (if not NULL) names the acquire for
 * zkc_async_cancel, which removes its nodes. While it is pending, zkc_sem_destroy(sem)
 * returns ZKC_EBUSY; zkc_async_destroy completes it with ZKC_ECLOSED.
 * Returns ZKC_OK (accepted: done will run), ZKC_EINVAL (NULL async, sem or
 * done; qty 0, or above a fixed limit; sem of another client than the
 * context's: done will not run, nothing changes), ZKC_EDEADLK (leases of
 * this semaphore object held already leave no room for qty, as
 * zkc_sem_acquire), ZKC_ENOMEM, ZKC_ECLOSED (client closed or context
 * being destroyed). Thread-safe, callable from callbacks. */
ZKC_EXTERN int zkc_async_acquire_leases(zkc_async_t *async, zkc_sem_t *sem,
                                        unsigned qty, int64_t timeout_ms,
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

/* The record of an asynchronous context's acquires on `path`
 * (ZKC_RECIPE_ASYNC): made at the first zkc_async_acquire on the path, one
 * per client and path. An acquire ends when its callback is queued: a
 * grant, a timeout, or a refusal (cancel and close included); a release
 * is zkc_hold_release's call.
 * Returns:
 *   ZKC_OK      *out filled; all zero (path NULL) when the context's client
 *               has no acquire on the path yet
 *   ZKC_EINVAL  async or out NULL, or path not a valid lock path
 * Thread-safe; may be called from callbacks; no ZooKeeper request. */
ZKC_EXTERN int zkc_async_stats(const zkc_async_t *async, const char *path,
                               zkc_lock_stats_t *out);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_ASYNC_H */
