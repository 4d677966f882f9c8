/* SPDX-License-Identifier: Apache-2.0 */
/* The blocking calls on a ZooKeeper lock queue: acquisitions (the queue
 * engine run on the caller's thread) and deletes, shared by the mutex, the
 * read-write lock, the leader latch and selector and the semaphore. */
#ifndef ZKC_QUEUE_H
#define ZKC_QUEUE_H

#include <stdint.h>

#include "drive.h"
#include "qengine.h"
#include "zkcoord/client.h"

/* The queue engine's calls, for a driver (drive.h). */
extern const zkc__run_calls_t zkc__qrun_calls;

/* The acquisitions (zkc__lock_acquire_*): each queues on `base` with a
 * protected EPHEMERAL_SEQUENTIAL node named "_c_<uuid>-<lock_name><seq>"
 * and waits until it is first or deadline_ms (monotonic; ZKC__FOREVER)
 * passes. On success fills *out. On any failure no node of ours is left
 * (its delete is finished in the background if need be). Each returns
 * ZKC_OK, ZKC_ETIMEDOUT, ZKC_ECLOSED, ZKC_ELOST, ZKC_ENOMEM or the server's
 * refusal (ZKC_ENOAUTH, ...): "the codes of zkc__lock_acquire" below.
 *
 * zkc__lock_acquire_also: for a queue whose grant proves nothing on its own
 * (the semaphore's: zkc__qrun_how_t's unproven). The children of `also`
 * are read behind every read of the queue after the first, and on success
 * *also_seen is how many the read that made our node first showed (-1: no
 * such read; see zkc__qrun_also_seen). */
int zkc__lock_acquire_also(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *also,
                           int64_t deadline_ms, zkc__held_t *out,
                           int *also_seen);

/* With `data` (NUL-terminated; NULL = the client's
 * holder_id) as the node's data: the leader latch stores its participant id
 * there. */
int zkc__lock_acquire_data(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *data,
                           int64_t deadline_ms, zkc__held_t *out);

/* As zkc__lock_acquire_data; a reader (reader != 0) waits only until no
 * writer (zkc__rw_kind) is before it, a writer until it is first. The
 * lock_name gives the side to the others: "__READ__" or "__WRIT__". */
int zkc__lock_acquire_side(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *data, int reader,
                           int64_t deadline_ms, zkc__held_t *out);
/* As zkc__lock_acquire_side, a quick run when `quick` is not NULL
 * (zkc__qrun_how_t.quick; borrowed for the call). */
int zkc__lock_acquire_quick(zkc_client_t *c, const char *base,
                            const char *lock_name, const char *data,
                            int reader, const zkc__quick_t *quick,
                            int64_t deadline_ms, zkc__held_t *out);


/* One protected EPHEMERAL_SEQUENTIAL node "_c_<uuid>-<name><seq>" under
 * base (created with its parents when missing; `data` NULL = the client's
 * holder id). A create cut off by connection loss is found again by its
 * uuid; only a node of the current session is accepted. On success fills
 * *out; on failure no node is left. The deadline bounds the retries after
 * connection loss. Returns ZKC_OK, ZKC_ELOST (the session ended
 * meanwhile), or the codes of zkc__lock_acquire. */
int zkc__node_create(zkc_client_t *c, const char *base, const char *name,
                     const char *data, int64_t deadline_ms, zkc__held_t *out);

/* As zkc__node_create; with plain != 0 the node is EPHEMERAL and named
 * exactly "_c_<uuid>-<name>" (the read-write lock's downgrade node, which
 * carries its write node's sequence). */
int zkc__node_create_mode(zkc_client_t *c, const char *base, const char *name,
                          const char *data, int plain, int64_t deadline_ms,
                          zkc__held_t *out);

/* The read-write lock's downgrade: as zkc__node_create_mode with plain,
 * granted once vouch->node (the caller's write node) is seen, through the
 * leader and fresh, to be still its session's (qengine.h, a vouched run).
 * On success out->token is its czxid. ZKC_ELOST when it is gone or
 * another session's, or the caller knows its hold lost; the codes of zkc__lock_acquire otherwise. On failure
 * no node is left. */
int zkc__node_create_vouched(zkc_client_t *c, const char *base,
                             const char *name, const char *data,
                             const zkc__voucher_t *vouch, int64_t deadline,
                             zkc__held_t *out);

/* Deletes a held node (guaranteed: retried in the background on connection
 * loss). ZKC_OK; ZKC_ELOST when the node was already gone (deleted by
 * someone else, or its session ended: the hold was lost before this);
 * ZKC_ECLOSED when the client is closed (the node went with the session);
 * ZKC_EDEADLK on a callback thread (nothing done); or the server's refusal
 * (ZKC_ENOAUTH, ...): the node stays until its session ends. */
int zkc__lock_delete(zkc_client_t *c, const char *node);
/* As zkc__lock_delete, waiting for the answer until limit_ms; unanswered by
 * then, the delete is finished in the background and ZKC_OK returned. */
int zkc__lock_delete_by(zkc_client_t *c, const char *node, int64_t limit_ms);
/* As zkc__lock_delete, with the request behind->rq (NULL: none) sent behind the
 * delete in the same call (its answer into behind->rc and behind->stat;
 * ZKC_ETIMEDOUT: none; a request that fills nothing else); *deleted is 1
 * when the delete's own answer was that it deleted the node. */
int zkc__lock_delete_with(zkc_client_t *c, const char *node,
                          zkc__call_t *behind, int *deleted);
/* As zkc__lock_delete, but returns once the delete is sent, in the
 * session's order: ZKC_OK, ZKC_ECLOSED or ZKC_EDEADLK. Its result is
 * handled on the completion thread: retried in the background after
 * connection loss, a refusal logged (the node then stays until its
 * session ends), a node found gone ignored. */
int zkc__lock_delete_nowait(zkc_client_t *c, const char *node);
/* zkc__lock_delete, then frees held->node whatever the outcome. */
int zkc__lock_release(zkc_client_t *c, zkc__held_t *held);
/* The same within limit_ms (zkc__lock_delete_by): a timed call's node. */
int zkc__lock_release_by(zkc_client_t *c, zkc__held_t *held, int64_t limit_ms);

/* The contenders on `base` in queue order, as full paths (see
 * zkc__mutex_nodes). */
int zkc__lock_participants(zkc_client_t *c, const char *base, char ***nodes,
                           size_t *count);

/* The public blocking acquire without a limit, over its timed public call: a
 * NULL `obj` is refused as `fn`'s ("<fn>: <what> is NULL"), else
 * timed(obj, INT64_MAX), whose failures name the timed call. */
int zkc__untimed(const char *fn, const char *what, void *obj,
                 int (*timed)(void *obj, int64_t timeout_ms));

/* ---- a lock's quick acquire ---- */

/* A lock's record for quick runs: zkc__quiet_t (queue_nodes.h). */

/* A quick run's hint, and what its check reads (on the acquirer's stack
 * for the acquire: zkc__lock_acquire_quick's `quick` is &ticket->q). */
typedef struct zkc__quick_ticket {
  zkc__quick_t q;
  zkc__quiet_t *quiet;
  zkc_client_t *c;
} zkc__quick_ticket_t;

int zkc__quiet_init(zkc__quiet_t *q);
/* Before an acquire on c: 1 with *t filled when it may be a quick run
 * (the base's watch intact now: else the create goes with its read, as
 * any); the record is spent either way (one acquire goes on it). */
int zkc__quiet_take(zkc__quiet_t *q, zkc_client_t *c, zkc__quick_ticket_t *t);
/* A release's delete of held's node under base (zkc__lock_delete's
 * codes), with the base's watch set behind it when the next acquire may
 * go quick and none is set; records what that acquire goes on. */
int zkc__quiet_delete(zkc__quiet_t *q, zkc_client_t *c, const char *base,
                      const zkc__held_t *held);
/* The base's watch goes (the lock object is going); then the record. */
void zkc__quiet_unwatch(zkc__quiet_t *q, zkc_client_t *c);
void zkc__quiet_destroy(zkc__quiet_t *q);

#endif /* ZKC_QUEUE_H */
