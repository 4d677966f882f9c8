/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command line: reading a path's children, again after a
 * connection blip (status, leader --observe, revoke and the layout check
 * read this way). */
#include <time.h>

#include "cli.h"

/* A read cut off by a connection blip is tried again once the client is
 * connected, for as long as --connect-timeout allows: status is a snapshot,
 * so a second read is as good as the first. */
int zkcli_retry_after(zkc_client_t *c, int rc, int64_t deadline) {
  if (rc != ZKC_ECONNLOSS && rc != ZKC_EOPTIMEOUT) return 0;
  const struct timespec nap = {0, 50 * 1000 * 1000};
  zkc_state_t st;
  while (zkcli_now_ms() < deadline) {
    nanosleep(&nap, NULL);
    if (zkc_client_state(c, &st) != ZKC_OK || st == ZKC_STATE_CLOSED)
      return 0; /* closed meanwhile (lock: by a stop signal) */
    if (st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED) return 1;
  }
  return 0;
}

int zkcli_read_contenders(const zkcli_opts_t *o, zkc_client_t *c,
                          const char *path, zkc_contender_t **out,
                          size_t *count) {
  int64_t deadline = zkcli_now_ms() + o->connect_timeout_ms;
  int rc;
  while ((rc = zkc_lock_contenders(c, path, out, count)) != ZKC_OK &&
         zkcli_retry_after(c, rc, deadline)) {
  }
  return rc;
}
