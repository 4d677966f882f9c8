/* Asking holders to let go: Curator's revocation marker written into their
 * lock nodes. The holders' side (watching their own nodes) is in guard.c. */
#include <stdlib.h>

#include "internals.h"
#include "names.h"
#include "ops.h"
#include "retry.h"
#include "session.h"
#include "util.h"
#include "zkcoord/mutex.h"

/* An unconditional set of the marker (Curator's Revoker does the same),
 * tried again after connection loss under the client's retry policy (a
 * second write of it is a second request, nothing worse). */
static int write_marker(zkc_client_t *c, const char *node) {
  int rc, attempt = 0;
  do {
    zkc__op_t op;
    if ((rc = zkc__op_init(&op)) != ZKC_OK) return rc;
    zkc__submit_set(c, &op, node, ZKC__REVOKE_MARKER, ZKC__REVOKE_MARKER_LEN);
    rc = zkc__op_wait(&op);
    zkc__op_clear(&op);
  } while (zkc__retryable(rc) &&
           zkc__retry_wait(c, &attempt, rc, ZKC__FOREVER) == ZKC_OK);
  return rc;
}

int zkc_revoke(zkc_client_t *c, const char *node_path) {
  if (c == NULL || zkc__path_validate(node_path) != ZKC_OK) return ZKC_EINVAL;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  rc = write_marker(c, node_path);
  zkc__call_leave(c);
  return rc;
}

/* How many of the sorted contenders hold the lock: the first, and when it
 * is a reader, every reader up to the first node that is not one. */
static size_t holders(char **nodes, size_t n) {
  if (n == 0) return 0;
  if (zkc__rw_kind(zkc__basename(nodes[0])) != ZKC__RW_READ) return 1;
  size_t k = 1;
  while (k < n && zkc__rw_kind(zkc__basename(nodes[k])) == ZKC__RW_READ) k++;
  return k;
}

int zkc_revoke_holders(zkc_client_t *c, const char *lock_path, size_t *asked) {
  if (asked != NULL) *asked = 0;
  if (c == NULL || zkc__path_validate(lock_path) != ZKC_OK) return ZKC_EINVAL;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  char **nodes = NULL;
  size_t n = 0, told = 0;
  rc = zkc__lock_participants(c, lock_path, &nodes, &n);
  size_t k = rc == ZKC_OK ? holders(nodes, n) : 0;
  for (size_t i = 0; i < k && rc == ZKC_OK; i++) {
    int w = write_marker(c, nodes[i]);
    if (w == ZKC_OK) told++;
    else if (w != ZKC_ENONODE) rc = w; /* a holder that left needs nothing */
  }
  zkc_strings_free(nodes, n);
  zkc__call_leave(c);
  if (asked != NULL) *asked = told;
  return rc;
}
