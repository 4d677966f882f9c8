/* SPDX-License-Identifier: Apache-2.0 */
/* What every queue's nodes share (queue_nodes.h): their parents made,
 * the answer to their delete read, a timed call's limit. */
#include <stdlib.h>
#include <string.h>

#include "queue_nodes.h"

#include "names.h"
#include "session.h"
#include "util.h"
#include "zkcoord/common.h"

int64_t zkc__limit_after(int64_t deadline_ms) {
  return deadline_ms == ZKC__FOREVER ? ZKC__FOREVER : deadline_ms + ZKC__GRACE_MS;
}

int zkc__ensure_path(zkc_client_t *c, const char *path) {
  zkc__create_mode_t mode = zkc__parent_mode(c) == ZKC_PARENTS_CONTAINER
                                ? ZKC__CREATE_CONTAINER
                                : ZKC__CREATE_PERSISTENT;
  int rc = zkc__op_run_create(c, ZKC_NODE_PARENT, path, "", 0, mode);
  if (rc != ZKC_ENONODE) return rc == ZKC_ENODEEXISTS ? ZKC_OK : rc;
  char *parent = zkc__path_parent(path);
  if (parent == NULL) return ZKC_ENOMEM;
  /* ZKC_ENONODE under "/" means the chroot itself is missing: give up. */
  rc = strcmp(parent, "/") == 0 ? ZKC_ENOROOT : zkc__ensure_path(c, parent);
  free(parent);
  if (rc != ZKC_OK) return rc;
  rc = zkc__op_run_create(c, ZKC_NODE_PARENT, path, "", 0, mode);
  return rc == ZKC_ENODEEXISTS ? ZKC_OK : rc;
}

/* A delete cut by connection loss or a session's end is finished in the
 * background; a refusal is logged. */
int zkc__delete_answered(zkc_client_t *c, const char *node, int rc) {
  if (rc == ZKC_ENONODE) return ZKC_ELOST;
  if (rc == ZKC_OK || rc == ZKC_ECLOSED) return ZKC_OK;
  if (!zkc__retryable(rc) && rc != ZKC_ESESSIONEXPIRED) {
    zkc__log(c, ZKC_LOG_ERROR,
             "delete of %s refused (%s): it stays until its session ends",
             node, zkc_strerror(rc));
    return rc;
  }
  zkc__janitor_add(c, node, NULL);
  return ZKC_OK;
}

int zkc__fenced_create_node(zkc_client_t *c, const char *node, const char *path,
                            const void *data, size_t len, int *failed_op) {
  for (int made = 0;; made++) {
    int rc = zkc__op_run_check_create(c, node, path, data, (int)len, failed_op);
    /* The create's ZKC_ENONODE is its parent's: made (empty, like a lock's
     * parents: no data of the lock's to fence) and the create sent again;
     * a parent deleted again between the two, a few more times. */
    if (rc != ZKC_ENONODE || *failed_op != 1 ||
        made == ZKC__PARENT_RECREATE_MAX)
      return rc;
    char *parent = zkc__path_parent(path);
    if (parent == NULL) return ZKC_ENOMEM;
    rc = strcmp(parent, "/") == 0 ? ZKC_ENOROOT : zkc__ensure_path(c, parent);
    free(parent);
    if (rc != ZKC_OK) {
      *failed_op = -1;
      return rc;
    }
  }
}
