/* SPDX-License-Identifier: Apache-2.0 */
/* What every queue's nodes share (queue_nodes.h): their parents made,
 * a timed call's limit, the fenced create of a data node; each request
 * through the one call (zkc__call). */
#include <stdlib.h>
#include <string.h>

#include "queue_nodes.h"

#include "kernel_door.h" /* ZKC__GRACE_MS */
#include "names.h"
#include "session.h"
#include "util.h"
#include "zkcoord/common.h"

int64_t zkc__limit_after(int64_t deadline_ms) {
  return deadline_ms == ZKC__FOREVER ? ZKC__FOREVER : deadline_ms + ZKC__GRACE_MS;
}

/* Levels below "/" ("/a/b" has 2). */
static int depth(const char *path) {
  int n = 0;
  for (const char *p = path; *p; p++) n += *p == '/';
  return n;
}

char *zkc__parent_path(const char *path, int up) {
  size_t len = strlen(path);
  for (int i = 0; i < up && len > 1; i++) {
    while (len > 1 && path[len - 1] != '/') len--;
    if (len > 1) len--; /* the '/' before the last level */
  }
  char *out = malloc(len + 1);
  if (out == NULL) return NULL;
  memcpy(out, path, len);
  out[len] = '\0';
  return out;
}

int zkc__parent_next(const char *path, int rc, int *up, int *steps) {
  /* Parents deleted as fast as they are made (or a path past any sense):
   * the walk ends rather than loop. */
  if (++*steps > 2 * depth(path) + 2 * ZKC__PARENT_RECREATE_MAX)
    return ZKC_ENONODE;
  if (rc == ZKC_OK || rc == ZKC_ENODEEXISTS) {
    --*up;
    return ZKC_OK;
  }
  if (rc != ZKC_ENONODE) return rc;
  /* ZKC_ENONODE under "/" means the chroot itself is missing: give up. */
  if (*up + 1 >= depth(path)) return ZKC_ENOROOT;
  ++*up;
  return ZKC_OK;
}

int zkc__ensure_path_until(zkc_client_t *c, const char *path,
                           int64_t limit_ms) {
  const zkc__call_opts_t once = {.limit_ms = limit_ms,
                                 .retry = ZKC__CALL_ONCE,
                                 .deadline_ms = ZKC__FOREVER};
  int up = 0, steps = 0, rc = ZKC_OK;
  while (rc == ZKC_OK && up >= 0) {
    char *p = zkc__parent_path(path, up);
    if (p == NULL) return ZKC_ENOMEM;
    zkc__call_t k = {.rq = {.kind = ZKC__REQ_PARENT, .path = p}};
    rc = zkc__call(c, &k, 1, &once); /* unanswered by limit_ms: given up */
    zkc__call_clear(&k, 1); /* the created name, not needed */
    free(p);
    if (rc == ZKC_ETIMEDOUT) return rc;
    rc = zkc__parent_next(path, rc, &up, &steps);
  }
  return rc;
}

int zkc__ensure_path(zkc_client_t *c, const char *path) {
  return zkc__ensure_path_until(c, path, ZKC__FOREVER);
}

int zkc__fenced_create_node(zkc_client_t *c, zkc__call_t *w) {
  for (int made = 0;; made++) {
    int rc = zkc__call(c, w, 1, NULL);
    /* The create's ZKC_ENONODE is its parent's: made (empty, like a lock's
     * parents: no data of the lock's to fence) and the create sent again;
     * a parent deleted again between the two, a few more times. */
    if (rc != ZKC_ENONODE || w->failed != 1 ||
        made == ZKC__PARENT_RECREATE_MAX)
      return rc;
    char *parent = zkc__path_parent(w->rq.path);
    rc = parent == NULL             ? ZKC_ENOMEM
         : strcmp(parent, "/") == 0 ? ZKC_ENOROOT
                                    : zkc__ensure_path(c, parent);
    free(parent);
    if (rc != ZKC_OK) {
      w->rc = rc;
      w->failed = -1;
      return rc;
    }
  }
}
