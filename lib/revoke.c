/* SPDX-License-Identifier: Apache-2.0 */
/* Asking holders to let go: Curator's revocation marker written into their
 * lock nodes. The holders' side (watching their own nodes) is in guard.c. */
#include <stdlib.h>

#include "queue.h"
#include "names.h"
#include "session.h"
#include "util.h"
#include "zkcoord/mutex.h"

/* An unconditional set of the marker (Curator's Revoker does the same),
 * tried again after connection loss under the client's retry policy (a
 * second write of it is a second request, nothing worse). */
static int write_marker(zkc_client_t *c, const char *node) {
  zkc__call_t set = {.rq = {.kind = ZKC__REQ_SET, .path = node,
                            .data = ZKC__REVOKE_MARKER,
                            .len = ZKC__REVOKE_MARKER_LEN}};
  int rc = zkc__call(c, &set, 1,
                     &(zkc__call_opts_t){.limit_ms = ZKC__FOREVER,
                                         .retry = ZKC__CALL_RETRY_ANSWER,
                                         .deadline_ms = ZKC__FOREVER});
  zkc__call_clear(&set, 1);
  return rc;
}

static int revoke_impl(zkc_client_t *c, const char *node_path) {
  int rc0 =
      zkc__refuse_null(c, "zkc_revoke", "client", c == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(c, "zkc_revoke", "node path", node_path);
  if (rc0 != ZKC_OK) return rc0;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  rc = write_marker(c, node_path);
  zkc__call_leave(c);
  return rc;
}

int zkc_revoke(zkc_client_t *c, const char *node_path) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, revoke_impl(c, node_path));
}

/* The sequence of a contender node (sorted contenders all have one). */
static int64_t seq_of(const char *node) {
  int64_t seq = 0;
  zkc__node_sequence(zkc__basename(node), &seq);
  return seq;
}

/* How many of the sorted contenders hold the lock: the first, with any node
 * of the same sequence (a downgrade's read node beside its write node);
 * when those are all readers, every reader up to the first node that is
 * not one. */
static size_t holders(char **nodes, size_t n) {
  if (n == 0) return 0;
  size_t k = 1;
  int64_t first = seq_of(nodes[0]);
  int readers = zkc__rw_kind(zkc__basename(nodes[0])) == ZKC__RW_READ;
  while (k < n && seq_of(nodes[k]) == first) {
    readers &= zkc__rw_kind(zkc__basename(nodes[k])) == ZKC__RW_READ;
    k++;
  }
  while (readers && k < n && zkc__rw_kind(zkc__basename(nodes[k])) == ZKC__RW_READ)
    k++;
  return k;
}

static int revoke_holders_impl(zkc_client_t *c, const char *lock_path,
                               size_t *asked) {
  if (asked != NULL) *asked = 0;
  int rc0 = zkc__refuse_null(c, "zkc_revoke_holders", "client", c == NULL,
                             (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(c, "zkc_revoke_holders", "lock path", lock_path);
  if (rc0 != ZKC_OK) return rc0;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  char **nodes = NULL;
  size_t n = 0, told = 0;
  rc = zkc__lock_participants(c, lock_path, &nodes, &n);
  size_t k = rc == ZKC_OK ? holders(nodes, n) : 0;
  /* Only a lock node is asked: a persistent child (a queue's element, a
   * mistyped path's data) keeps its data. Every holder's stat in one call
   * (one round trip), then the markers in order. */
  zkc__call_t *stats = k ? calloc(k, sizeof *stats) : NULL;
  if (k && stats == NULL) rc = ZKC_ENOMEM;
  for (size_t i = 0; i < k && rc == ZKC_OK; i++)
    stats[i].rq = (zkc__req_t){.kind = ZKC__REQ_EXISTS, .path = nodes[i]};
  if (k && rc == ZKC_OK) (void)zkc__call(c, stats, k, NULL);
  for (size_t i = 0; i < k && rc == ZKC_OK; i++) {
    int w = stats[i].rc;
    if (w == ZKC_OK && stats[i].stat.ephemeral_owner == 0) continue;
    if (w == ZKC_OK) w = write_marker(c, nodes[i]);
    if (w == ZKC_OK) told++;
    else if (w != ZKC_ENONODE) rc = w; /* a holder that left needs nothing */
  }
  free(stats); /* an exists answers no data, name or children */
  zkc__strings_free(nodes, n);
  zkc__call_leave(c);
  if (asked != NULL) *asked = told;
  return rc;
}

int zkc_revoke_holders(zkc_client_t *c, const char *lock_path, size_t *asked) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           revoke_holders_impl(c, lock_path, asked));
}
