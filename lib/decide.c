/* SPDX-License-Identifier: Apache-2.0 */
/* The queue decision and the leases' (see decide.h). */
#include "decide.h"

#include <stdlib.h>

#include "names.h"
#include "zkcoord/common.h"

int zkc__queue_decide(char *const *names, size_t n, const char *own,
                      int reader, zkc__q_decision_t *out) {
  *out = (zkc__q_decision_t){ZKC__Q_GONE, NULL, 0, 0, NULL};
  zkc__contender_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
  if (sorted == NULL) return ZKC_ENOMEM;
  n = zkc__sort_contenders(names, n, sorted);
  long me = zkc__contender_index(sorted, n, own);
  if (me >= 0) {
    long b = reader ? zkc__rw_writer_before(sorted, me) : me - 1;
    if (b < 0) {
      out->verdict = ZKC__Q_FIRST;
    } else {
      out->verdict = ZKC__Q_WAIT;
      out->blocker = sorted[b].name;
      long a = reader ? zkc__rw_writer_before(sorted, b) : b - 1;
      int write_first = zkc__rw_kind(sorted[0].name) == ZKC__RW_WRITE;
      out->sole = reader ? a < 0 : b == 0 && !write_first;
      out->guarded = !reader && b == 0 && write_first;
      if (!out->sole && !out->guarded && a >= 0) out->ahead = sorted[a].name;
    }
  }
  free(sorted);
  return ZKC_OK;
}

zkc__l_verdict_t zkc__leases_decide(size_t leases, size_t mine, size_t wanted,
                                    size_t held, int32_t max) {
  if (mine < wanted) return ZKC__L_GONE; /* session or outsider */
  if (held > 0 && (int64_t)(held + wanted) > (int64_t)max)
    return ZKC__L_DEADLOCK;
  return (int64_t)leases <= (int64_t)max ? ZKC__L_FIT : ZKC__L_WAIT;
}
