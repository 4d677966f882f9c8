/* SPDX-License-Identifier: Apache-2.0 */
/* What every queue's nodes share: their name and what a hold of one is,
 * and how long past its deadline a timed call may wait for
 * its answers. Used by the queue engine (qengine.c), the blocking calls
 * (queue.c) and the recipes. (What a held node's delete answered means is
 * the janitor's: zkc__delete_answered, session.h.) */
#ifndef ZKC_QUEUE_NODES_H
#define ZKC_QUEUE_NODES_H

#include <stddef.h>
#include <stdint.h>

#include "names.h" /* ZKC__PARENT_RECREATE_MAX, the parents' walk */
#include "session.h"
#include "zkcoord/client.h"

/* The name of a mutex's nodes ("_c_<uuid>-lock-<seq>"): Curator's
 * InterProcessMutex, whose queue the selector, the semaphore's queue and
 * the async acquire share. */
#define ZKC__LOCK_NAME "lock-"
/* The name of a leader latch's nodes: Curator's LeaderLatch.LOCK_NAME. */
#define ZKC__LATCH_NAME "latch-"

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

#endif /* ZKC_QUEUE_NODES_H */
