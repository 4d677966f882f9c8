/* SPDX-License-Identifier: Apache-2.0 */
/* What every queue's nodes share: their name and what a hold of one is,
 * their parents, and how long past its deadline a timed call may wait for
 * its answers. Used by the queue engine (qengine.c), the blocking calls
 * (queue.c) and the recipes. (What a held node's delete answered means is
 * the janitor's: zkc__delete_answered, session.h.) */
#ifndef ZKC_QUEUE_NODES_H
#define ZKC_QUEUE_NODES_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"
#include "zkcoord/client.h"

/* The name of a mutex's nodes ("_c_<uuid>-lock-<seq>"): Curator's
 * InterProcessMutex, whose queue the selector, the semaphore's queue and
 * the async acquire share. */
#define ZKC__LOCK_NAME "lock-"
/* The name of a leader latch's nodes: Curator's LeaderLatch.LOCK_NAME. */
#define ZKC__LATCH_NAME "latch-"
/* Times a create may find its parent gone (deleted by another client, a
 * container reaped) and make it again before giving up. */
#define ZKC__PARENT_RECREATE_MAX 8

/* What a successful acquisition holds. */
typedef struct zkc__held {
  char *node;         /* full path of our lock node (malloc) */
  int64_t token;      /* its czxid: the fencing token */
  int64_t session_id; /* the session that owns it */
  int64_t woken_us;   /* when its wait was last woken (zkc__now_us), 0: it
                         waited for no one; for the stats' hand-off time */
} zkc__held_t;

/* The limit the waits of a timed call keep: its deadline plus a grace of
 * about a round trip (ZKC__FOREVER stays), so that a timeout of 0 still
 * gets its answers, and none waits on a silent ensemble past it. */
int64_t zkc__limit_after(int64_t deadline_ms);

/* Creates `path` and any missing ancestors with the client's parent mode.
 * ZKC_OK also when it exists. zkc__ensure_path waits without limit (no
 * timed call uses it); zkc__ensure_path_until gives each of its requests
 * up at limit_ms (monotonic; ZKC__FOREVER) with ZKC_ETIMEDOUT. */
int zkc__ensure_path(zkc_client_t *c, const char *path);
int zkc__ensure_path_until(zkc_client_t *c, const char *path,
                           int64_t limit_ms);

/* The same walk for a caller that never waits (the queue engine), one
 * create at a time: `*up` is how many levels above `path` the next create
 * is (0: path itself), `*steps` the creates answered so far (both 0 at the
 * start). zkc__parent_path is the node to create at level `up` (malloc;
 * NULL without memory), sent as a ZKC__REQ_PARENT. Once that create is
 * answered rc, zkc__parent_next says where the walk goes: ZKC_OK
 * with *up the next level, -1 once path exists; or the walk's failure
 * (ZKC_ENOROOT: the chroot itself is missing; the create's refusal; the
 * connection's trouble, to retry from *up). */
char *zkc__parent_path(const char *path, int up);
int zkc__parent_next(const char *path, int rc, int *up, int *steps);

/* The fenced create that w asks (a ZKC__REQ_CHECK_CREATE of its path under
 * the lock node w->rq.check, a mutex's or an async hold's), through
 * zkc__call: a missing parent of the path is created first (empty, outside
 * the transaction, with the client's parent mode) and the transaction sent
 * again. Returns w's answer (w->failed 0: the node gone; -1 also when the
 * parent could not be made, its failure the answer). */
int zkc__fenced_create_node(zkc_client_t *c, zkc__call_t *w);

#endif /* ZKC_QUEUE_NODES_H */
