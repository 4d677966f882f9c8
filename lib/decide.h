/* SPDX-License-Identifier: Apache-2.0 */
/* The queue decision: where a contender stands in a lock's queue, from one
 * read of the lock path's children. Pure (no server, no client): the
 * blocking acquire (queue.c) and the asynchronous one (async_engine.c)
 * both decide with it, and unit.queue_decide tests it. */
#ifndef ZKC_DECIDE_H
#define ZKC_DECIDE_H

#include <stddef.h>

typedef enum zkc__q_verdict {
  ZKC__Q_GONE,  /* our node is not in the read: its session or an outsider */
  ZKC__Q_FIRST, /* nothing in our way: a grant, if the read is fresh */
  ZKC__Q_WAIT   /* wait on `blocker` */
} zkc__q_verdict_t;

typedef struct zkc__q_decision {
  zkc__q_verdict_t verdict;
  /* ZKC__Q_WAIT: the name to wait on (the node before ours; for a reader
   * the nearest writer before it), borrowed from the names given. */
  const char *blocker;
  /* ZKC__Q_WAIT: the blocker's delete alone puts us first (it is the only
   * node in our way, and none can join before us), so that delete, with
   * our node proved still there, may grant without a read. Sequences only
   * grow; the one node made with an older sequence is a downgraded
   * writer's read node carrying its writer's sequence, so a writer or a
   * mutex never counts a write node's delete as that (a reader never minds
   * a read node). */
  int sole;
} zkc__q_decision_t;

/* Decides for the node named `own` (a child's name, no path) among the n
 * children `names`, as a reader (read side of a read-write lock: readers
 * share) or not. ZKC_OK with *out filled, or ZKC_ENOMEM. */
int zkc__queue_decide(char *const *names, size_t n, const char *own,
                      int reader, zkc__q_decision_t *out);

#endif
