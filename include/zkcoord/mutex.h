/* zkcoord mutex: a blocking, fair (FIFO), reentrant distributed mutex with
 * the semantics of Apache Curator's InterProcessMutex.
 *
 * Each acquisition creates a protected EPHEMERAL_SEQUENTIAL node
 * `<path>/_c_<uuid>-lock-<seq>`; the holder is the node with the lowest
 * sequence; a waiter watches only its immediate predecessor. Curator, kazoo
 * and go-zookeeper contenders on the same path queue with zkcoord's.
 *
 * Reentrancy is per mutex object and per thread: the holding thread may
 * acquire again (no ZooKeeper traffic) and must release as often. Two mutex
 * objects on one path are two contenders, even in one process.
 *
 * All functions are thread-safe. Blocking ones return ZKC_EDEADLK when called
 * from a ZooKeeper callback thread.
 */
#ifndef ZKCOORD_MUTEX_H
#define ZKCOORD_MUTEX_H

#include "client.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_mutex zkc_mutex_t;

/* Creates a mutex on the lock path `path` (absolute, validated, at most
 * 1024 bytes). No ZooKeeper traffic. The mutex keeps a reference to
 * `client`, which must stay open while the mutex is used. On failure *out
 * is set to NULL (when out is not NULL).
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument or invalid path), ZKC_ENOMEM,
 * ZKC_ECLOSED (client closed). */
ZKC_EXTERN int zkc_mutex_create(zkc_mutex_t **out, zkc_client_t *client,
                                const char *path);

/* Frees the mutex. Accepts NULL (returns ZKC_OK).
 * Returns ZKC_EBUSY and changes nothing while any thread holds it or waits
 * in acquire on it. */
ZKC_EXTERN int zkc_mutex_destroy(zkc_mutex_t *mutex);

/* Blocks until the calling thread holds the mutex.
 * Returns:
 *   ZKC_OK         held (count incremented if it already was)
 *   ZKC_EINVAL     mutex NULL
 *   ZKC_EDEADLK    called from a ZooKeeper callback thread
 *   ZKC_ECLOSED    the client was closed
 *   ZKC_ELOST      the session expired while waiting
 *   ZKC_ENOMEM     out of memory
 *   Z*             a ZooKeeper error that outlasted the retry policy
 *                  (ZCONNECTIONLOSS, ZNOAUTH, ...)
 * On any error no lock node is left behind. */
ZKC_EXTERN int zkc_mutex_acquire(zkc_mutex_t *mutex);

/* As zkc_mutex_acquire, waiting at most `timeout_ms` (>= 0). 0 tries once:
 * a node is created and, when it is not first, deleted again.
 * Returns ZKC_ETIMEDOUT when the time ran out (own node deleted), ZKC_EINVAL
 * for a negative timeout, and the codes of zkc_mutex_acquire. */
ZKC_EXTERN int zkc_mutex_acquire_timeout(zkc_mutex_t *mutex,
                                         int64_t timeout_ms);

/* Releases one level of the calling thread's hold; the lock node is deleted
 * when the count reaches 0. A delete interrupted by connection loss is
 * finished in the background while the session lives.
 * Returns ZKC_OK, ZKC_EINVAL (NULL), ZKC_ENOTOWNER (this thread does not
 * hold the mutex; nothing changes), ZKC_EDEADLK (from a callback; nothing
 * changes), ZKC_ECLOSED (client closed: local state cleared; the node went
 * with the session). */
ZKC_EXTERN int zkc_mutex_release(zkc_mutex_t *mutex);

/* 1 if any thread of this process holds this mutex object, else 0 (also for
 * NULL). No ZooKeeper traffic. */
ZKC_EXTERN int zkc_mutex_is_acquired_in_this_process(const zkc_mutex_t *mutex);

/* 1 if the calling thread holds this mutex object, else 0 (also for NULL). */
ZKC_EXTERN int zkc_mutex_is_owned_by_current_thread(const zkc_mutex_t *mutex);

/* The fencing token of the calling thread's hold: the czxid of its lock
 * node, which is larger for every later holder of any path on the ensemble.
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument), ZKC_ENOTOWNER. */
ZKC_EXTERN int zkc_mutex_fencing_token(const zkc_mutex_t *mutex,
                                       int64_t *token);

/* Full path of the calling thread's lock node, copied into `buf` (NUL-
 * terminated). Returns ZKC_OK, ZKC_EINVAL (NULL, or buf too small),
 * ZKC_ENOTOWNER. */
ZKC_EXTERN int zkc_mutex_lock_node(const zkc_mutex_t *mutex, char *buf,
                                   size_t buf_len);

/* The lock path given at create. Never NULL for a valid mutex; owned by the
 * mutex. */
ZKC_EXTERN const char *zkc_mutex_path(const zkc_mutex_t *mutex);

/* Lists every contender node on the lock path (full paths) in queue order:
 * the holder first. Children without a sequence suffix are not contenders
 * and are left out. On success *nodes is a new array of *count strings that
 * the caller frees with zkc_strings_free (*nodes is NULL when *count is 0).
 * Returns ZKC_OK (also when the path does not exist: count 0), ZKC_EINVAL,
 * ZKC_EDEADLK, ZKC_ECLOSED, ZKC_ENOMEM, or a ZooKeeper error. */
ZKC_EXTERN int zkc_mutex_participant_nodes(zkc_mutex_t *mutex, char ***nodes,
                                           size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_MUTEX_H */
