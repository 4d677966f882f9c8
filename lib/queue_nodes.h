/* SPDX-License-Identifier: Apache-2.0 */
/* What every queue's nodes share: their name and what a hold of one is,
 * and how long past its deadline a timed call may wait for
 * its answers. Used by the queue engine (qengine.c), the blocking calls
 * (queue.c) and the recipes. (What a held node's delete answered means is
 * the janitor's: zkc__delete_answered, session.h.) */
#ifndef ZKC_QUEUE_NODES_H
#define ZKC_QUEUE_NODES_H

#include <pthread.h>
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
  int alone;          /* 1: granted with no other child of base beside it
                         (a read showing it alone, or a quick run) */
  int64_t base_czxid; /* base's czxid as that read showed it (a quick
                         run's: the one its hint named) */
} zkc__held_t;

/* What lets a lock's next acquire be a quick run (qengine.h, zkc__quick_t):
 * the last hold's node, granted with no other child of the base beside it
 * and deleted by its release, and a data watch on the base, set once
 * behind such a delete and kept, that would have told a delete of the base
 * (a base made again counts its sequences from 0 anew). An uncontended
 * cycle is then two requests, the create and the delete. One per lock
 * object; its own lock guards it; zero-filled by the caller, then
 * zkc__quiet_init (its calls: queue.h). */
typedef struct zkc__quiet {
  pthread_mutex_t mu;
  int known;          /* 1: seq and base_czxid are to go on */
  int64_t seq;        /* that node's sequence */
  int64_t base_czxid; /* the base as its granting read showed it */
  zkc__waiter_t w;    /* the base's data watch, registered while w_reg */
  int w_reg;
  int arming;         /* a release is setting w's watch */
  int64_t w_czxid;    /* the base as w's answer showed it (0: not set) */
} zkc__quiet_t;

/* The limit the waits of a timed call keep: its deadline plus a grace of
 * about a round trip (ZKC__FOREVER stays), so that a timeout of 0 still
 * gets its answers, and none waits on a silent ensemble past it. */
int64_t zkc__limit_after(int64_t deadline_ms);

#endif /* ZKC_QUEUE_NODES_H */
