/* SPDX-License-Identifier: Apache-2.0 */
/* A hold's node paths (zkc_hold_node_list) copied into a buffer, a set's
 * joined with '\n', for the cases and helper processes that compare them
 * as one string. Returns the list call's code, or ZKC_EINVAL when buf is
 * too small (nothing copied). */
#ifndef ZKT_HOLD_NODE_H
#define ZKT_HOLD_NODE_H

#include <string.h>

#include "zkcoord/common.h"
#include "zkcoord/hold.h"

static inline int zkt_hold_node(const zkc_hold_t *hold, char *buf,
                                size_t len) {
  zkc_list_t *list = NULL;
  int rc = zkc_hold_node_list(hold, &list);
  size_t used = 0, n = zkc_list_count(list);
  for (size_t i = 0; rc == ZKC_OK && i < n; i++) {
    const char *s = zkc_list_string(list, i);
    size_t one = strlen(s);
    if (used + one + (i > 0) >= len) {
      rc = ZKC_EINVAL;
      break;
    }
    if (i > 0) buf[used++] = '\n';
    memcpy(buf + used, s, one + 1);
    used += one;
  }
  zkc_list_free(list);
  return rc;
}

#endif /* ZKT_HOLD_NODE_H */
