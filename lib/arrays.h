/* SPDX-License-Identifier: Apache-2.0 */
/* The arrays that the list calls (list.c) are made from: each recipe's
 * reading of its nodes or participants, and a path's contenders. Each
 * refuses NULL arguments as the list call it serves would; the caller frees
 * what it gets (zkc__strings_free, zkc__participants_free,
 * zkc__contenders_free). */
#ifndef ZKC_ARRAYS_H
#define ZKC_ARRAYS_H

#include <stddef.h>

#include "zkcoord/hold.h"
#include "zkcoord/latch.h"
#include "zkcoord/lease.h"
#include "zkcoord/mutex.h"
#include "zkcoord/selector.h"
#include "zkcoord/status.h"

struct zkc__participant; /* zkc__participant_t, candidate.h */

/* The mutex's contender nodes (full paths), the holder first. */
int zkc__mutex_nodes(zkc_mutex_t *mutex, char ***nodes, size_t *count);

/* A hold's nodes (full paths): one for a single grant, a set's in the
 * order its fence checks them (a lease set's oldest first, a multi-lock's
 * in path order); ZKC_ENOTOWNER when nothing is granted. hold not NULL. */
int zkc__hold_nodes(const zkc_hold_t *hold, char ***nodes, size_t *count);

/* An election's participants in queue order, the leader first. */
int zkc__latch_participants(zkc_latch_t *latch, struct zkc__participant **out,
                            size_t *count);
int zkc__selector_participants(zkc_selector_t *sel, struct zkc__participant **out,
                               size_t *count);

/* Every child of a lock path, with data and stat, in queue order. */
int zkc__lock_contenders(zkc_client_t *client, const char *path,
                         zkc_contender_t **out, size_t *count);

/* A semaphore's lease nodes and its queue, as zkc__lock_contenders. */
int zkc__sem_contenders(zkc_client_t *client, const char *path,
                        zkc_contender_t **leases, size_t *n_leases,
                        zkc_contender_t **queue, size_t *n_queue);

void zkc__contenders_free(zkc_contender_t *contenders, size_t count);

#endif /* ZKC_ARRAYS_H */
