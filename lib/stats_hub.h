/* SPDX-License-Identifier: Apache-2.0 */
/* The stats hub's fields alone (its records and calls are stats.h's), so
 * that the client struct (client_struct.h), which holds one, stands on
 * this and not on the records' header. */
#ifndef ZKC_STATS_HUB_H
#define ZKC_STATS_HUB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "zkcoord/client.h"

/* One recipe's records on one path (stats.h). */
typedef struct zkc__lstats zkc__lstats_t;

/* A client's records, its event hook (swapped whole; the replaced ones are
 * kept until close, as an event under way may still read one) and its
 * counts of state changes. Records are only ever prepended, and freed when
 * the client is freed. */
typedef struct zkc__hook zkc__hook_t;
typedef struct zkc__stats_hub {
  pthread_mutex_t mu; /* guards the lists, not the counts */
  zkc__lstats_t *records;
  zkc__lstats_t *by_path; /* found by path: an acquire of an async context
                             finds its path's record without a walk */
  zkc__hook_t *_Atomic hook;
  zkc__hook_t *old_hooks;
  atomic_uint_fast64_t state_counts[ZKC_STATE_CLOSED + 1];
} zkc__stats_hub_t;

#endif /* ZKC_STATS_HUB_H */
