/* SPDX-License-Identifier: Apache-2.0 */
/* The observer's pure rules: who leads a path, and what is a change. */
#include "observe_pick.h"

#include <stdlib.h>

#include "names.h"
#include "zkcoord/status.h"

long zkc__observe_leader(char *const *names, size_t n) {
  if (names == NULL || n == 0) return -1;
  zkc__contender_t *sorted = malloc(n * sizeof *sorted);
  if (sorted == NULL) {
    /* Without memory: the lowest key by a linear scan of the same rule. */
    long best = -1;
    int64_t best_seq = 0;
    for (size_t i = 0; i < n; i++) {
      int64_t seq;
      if (!zkc__node_sequence(names[i], &seq)) continue;
      if (best < 0 || seq < best_seq) best = (long)i, best_seq = seq;
    }
    return best;
  }
  size_t m = zkc__sort_contenders(names, n, sorted);
  long at = -1;
  for (size_t i = 0; m > 0 && i < n; i++)
    if (names[i] == sorted[0].name) at = (long)i;
  free(sorted);
  return at;
}

unsigned zkc__observe_refused(zkc_observe_kind_t kind, char *const *names,
                              size_t n) {
  unsigned refused = ZKC_LAYOUT_RWLOCK | ZKC_LAYOUT_SEMAPHORE |
                     ZKC_LAYOUT_KAZOO_SEMAPHORE;
  if (kind == ZKC_OBSERVE_LOCK) refused |= ZKC_LAYOUT_ELECTION;
  for (size_t i = 0; names != NULL && i < n; i++) {
    unsigned bits = zkc__child_layout(names[i], -1) & refused;
    if (bits != 0) return bits & -bits; /* the lowest bit: one recipe */
  }
  return 0;
}

int zkc__observe_change(zkc__observe_seen_t *seen, int has_leader,
                        int64_t token) {
  if (seen->told) {
    if (!has_leader && !seen->has_leader) return 0;
    if (has_leader && seen->has_leader && token == seen->token) return 0;
    if (has_leader && token <= seen->high) return 0; /* stale */
  }
  seen->told = 1;
  seen->has_leader = has_leader;
  seen->token = has_leader ? token : 0;
  if (has_leader && token > seen->high) seen->high = token;
  return 1;
}
