/* SPDX-License-Identifier: Apache-2.0 */
/* The two decisions of a waiting recipe, pure (no server, no client), and
 * tested by unit.queue_decide: where a contender stands in a lock's queue,
 * from one read of the lock path's children (the queue engine,
 * qengine.c, for every queue); and whether a semaphore's leases fit its
 * limit, from one read of its leases (semaphore.c). */
#ifndef ZKC_DECIDE_H
#define ZKC_DECIDE_H

#include <stddef.h>
#include <stdint.h>

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
   * mutex never counts a write node's delete as that without more (see
   * guarded; a reader never minds a read node). */
  int sole;
  /* ZKC__Q_WAIT, a writer or a mutex behind a write node alone: that
   * delete alone may grant only together with proof that no child joined
   * the path between a read showing the blocker alone ahead and the
   * blocker's delete (a children watch set by that read, its event not
   * told before the delete's: qround.c). The one node that can join ahead
   * is that writer's downgrade, and its create comes before the write
   * node's delete (zkcoord's, whose write node vouches for it, and
   * Curator's, which takes the read side before it lets the write side
   * go); a client deleting first, even within one multi, would pass the
   * guard (docs/failures.md). */
  int guarded;
  /* ZKC__Q_WAIT and neither sole nor guarded: the node whose delete may
   * leave the blocker our only one (the node before the blocker; for a
   * reader the nearest writer before it), or NULL. A hint, never a proof:
   * watched beside the blocker, its delete sends the waiter to read the
   * queue again while the blocker still holds, so that a read showing the
   * blocker alone starts a sole (or guarded) round then, and the blocker's
   * delete alone grants (learn-ahead). */
  const char *ahead;
} zkc__q_decision_t;

/* Decides for the node named `own` (a child's name, no path) among the n
 * children `names`, as a reader (read side of a read-write lock: readers
 * share) or not. ZKC_OK with *out filled, or ZKC_ENOMEM. */
int zkc__queue_decide(char *const *names, size_t n, const char *own,
                      int reader, zkc__q_decision_t *out);

typedef enum zkc__l_verdict {
  ZKC__L_FIT,     /* every lease, ours among them, within the limit */
  ZKC__L_WAIT,    /* too many: wait for a release */
  ZKC__L_GONE,    /* one of ours is not in the read: lost, queue again */
  ZKC__L_DEADLOCK /* this client's own held leases stand in the way */
} zkc__l_verdict_t;

/* Decides for an acquisition whose `wanted` lease nodes are made, from a
 * read of the leases: `leases` children in all, `mine` of ours among them,
 * `held` leases this client holds already (in other acquisitions), the
 * limit `max`. Ours missing comes first (nothing to wait for), then the
 * client's own leases that would have to be released by the very thread
 * that waits, then the count. */
zkc__l_verdict_t zkc__leases_decide(size_t leases, size_t mine, size_t wanted,
                                    size_t held, int32_t max);

#endif
