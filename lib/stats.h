/* SPDX-License-Identifier: Apache-2.0 */
/* The stats' records and counts (stats.c): each recipe object takes its
 * record at create (through zkc__client_facts, session.h), then counts
 * with atomics only (no lock, no allocation), and the client's event hook
 * is told as each event is counted. */
#ifndef ZKC_STATS_INT_H
#define ZKC_STATS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hash.h"
#include "stats_hub.h"
#include "zkcoord/stats.h"

typedef struct zkc__hist {
  atomic_uint_fast64_t buckets[ZKC_STATS_BUCKETS + 1];
  atomic_uint_fast64_t sum_us;
} zkc__hist_t;

struct zkc__lstats {
  struct zkc__stats_hub *hub;
  zkc_recipe_t recipe;
  char *path;
  atomic_uint_fast64_t acquires, timeouts, refusals, releases;
  atomic_uint_fast64_t lost[4];
  atomic_int_fast64_t holds, waiters;
  zkc__hist_t wait, hold, handoff;
  struct zkc__lstats *next;      /* in the hub's list, newest first */
  struct zkc__lstats *same_path; /* the path's other recipes' records */
  UT_hash_handle hh;             /* in by_path: the path's first record */
};

int zkc__stats_hub_init(zkc__stats_hub_t *hub);
void zkc__stats_hub_free(zkc__stats_hub_t *hub);
/* Replaces the hook (fn NULL: none): ZKC_OK or ZKC_ENOMEM. */
int zkc__stats_hook_set(zkc__stats_hub_t *hub, zkc_event_fn fn, void *ctx);
/* The first record (the rest follow by next), read under the lock. */
zkc__lstats_t *zkc__stats_records(zkc__stats_hub_t *hub);

/* Microseconds on CLOCK_MONOTONIC. */
int64_t zkc__now_us(void);

/* The bucket a duration falls in (0 .. ZKC_STATS_BUCKETS). */
size_t zkc__stats_bucket(int64_t us);

/* The record of (recipe, path) in c, made on first use. NULL only when out
 * of memory; every function below then counts nothing. */
zkc__lstats_t *zkc__stats_for(zkc__stats_hub_t *hub, zkc_recipe_t recipe,
                              const char *path);

/* The record of (recipe, path) in c if there is one, else NULL. */
zkc__lstats_t *zkc__stats_find(zkc__stats_hub_t *hub, zkc_recipe_t recipe,
                               const char *path);

/* An acquire begins (counted as a waiter): its start time. */
int64_t zkc__stats_begin(zkc__lstats_t *s);
/* It ended with rc: a grant (ZKC_OK, then counted as a hold), a timeout or
 * a refusal. woken_us: when the acquire was last told its way was clear
 * (0: it waited for no one). Returns the time it ended (the grant's time,
 * for zkc__stats_released). */
int64_t zkc__stats_end(zkc__lstats_t *s, int64_t began_us, int rc,
                       int64_t woken_us);
/* A hold granted at granted_us ended: released by its holder with rc. */
void zkc__stats_released(zkc__lstats_t *s, int64_t granted_us, int rc);
/* A hold was lost, for `why`. */
void zkc__stats_lost(zkc__lstats_t *s, zkc_lost_reason_t why);
/* The client's state changed: counted where the state is set (maint.c,
 * so that whoever sees the state sees it counted), told to the hook where
 * listeners are told (listeners.c). */
void zkc__stats_state_count(zkc__stats_hub_t *hub, zkc_state_t st);
void zkc__stats_state_tell(zkc__stats_hub_t *hub, zkc_state_t st);

/* Copies a record into a snapshot. */
void zkc__stats_read(const zkc__lstats_t *s, zkc_lock_stats_t *out);
/* A recipe's zkc_*_stats: its record s into *out (checked not NULL by
 * the caller): ZKC_OK, or ZKC_ENOMEM when the object has no record. */
int zkc__stats_copy(const zkc__lstats_t *s, zkc_lock_stats_t *out);

#endif /* ZKC_STATS_INT_H */
