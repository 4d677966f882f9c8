/* SPDX-License-Identifier: Apache-2.0 */
/* The observer's pure rules (no I/O, unit-tested without a server): which
 * child of an election or lock path leads, which paths it refuses, and
 * whether a read is a change worth telling. */
#ifndef ZKC_OBSERVE_PICK_H
#define ZKC_OBSERVE_PICK_H

#include <stddef.h>
#include <stdint.h>

#include "zkcoord/observer.h"

/* Index in names[0..n) of the child that leads (holds): the first
 * contender in queue order (lowest sequence, a wrapped counter kept in
 * order; children without a sequence take no part), as every recipe
 * decides. -1 when none leads. */
long zkc__observe_leader(char *const *names, size_t n);

/* The ZKC_LAYOUT_* bit of the first child whose recipe an observer of
 * `kind` refuses (a read-write lock's, a semaphore's; a latch's for a
 * lock), or 0. The first child of those paths is not their holder. */
unsigned zkc__observe_refused(zkc_observe_kind_t kind, char *const *names,
                              size_t n);

/* What an observer has told so far (zeroed before the first read). */
typedef struct zkc__observe_seen {
  int told;        /* something was told */
  int has_leader;  /* the last told: a leader, or nobody */
  int64_t token;   /* the last told leader's czxid */
  int64_t high;    /* the largest czxid told: no older node leads again */
} zkc__observe_seen_t;

/* Whether a read showing a leader whose node's czxid is `token` (or,
 * has_leader 0, nobody) is a change to tell; when it is, `seen` records
 * it. The first read is always told (the state as observing begins). A
 * leader told already, or nobody after nobody, is no change. A leader
 * whose node is older than one told (czxid not above `high`) is a stale
 * read and never told: once a node led, every node queued before it was
 * gone. */
int zkc__observe_change(zkc__observe_seen_t *seen, int has_leader,
                        int64_t token);

#endif /* ZKC_OBSERVE_PICK_H */
