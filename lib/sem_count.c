/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's shared count: a node holding the limit as 4 bytes,
 * big-endian (Curator's SharedCount format, its codec in names.c), read
 * and set by anyone. */
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "sem.h"
#include "util.h"

int zkc__sem_count_create(zkc_client_t *c, const char *path, int32_t value,
                          int theirs_ok, int64_t limit_ms) {
  char *parent = zkc__path_parent(path);
  if (parent == NULL) return ZKC_ENOMEM;
  int rc = strcmp(parent, "/") == 0
               ? ZKC_OK
               : zkc__ensure_path_until(c, parent, limit_ms);
  free(parent);
  char data[COUNT_BYTES];
  zkc__sem_count_encode(value, data);
  zkc__op_t *op = rc == ZKC_OK ? zkc__op_new() : NULL;
  if (rc == ZKC_OK && op == NULL) rc = ZKC_ENOMEM;
  if (op != NULL) {
    zkc__send(c, op,
              &(zkc__req_t){.kind = ZKC__REQ_COUNT, .path = path, .data = data,
                            .len = COUNT_BYTES});
    rc = zkc__op_wait_until(op, limit_ms);
    if (rc == ZKC_ETIMEDOUT) zkc__op_give_up(op); /* freed on completion */
    else zkc__op_free(op);
  }
  return rc == ZKC_ENODEEXISTS && theirs_ok ? ZKC_OK : rc;
}

ZKC__PUBLIC(zkc_shared_count_get,
            (zkc_client_t *c, const char *path, int32_t *value),
            (c, path, value)) {
  int rc0 = zkc__refuse_null(c, "zkc_shared_count_get", "client", c == NULL,
                             "value", value == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(c, "zkc_shared_count_get", "path", path);
  if (rc0 != ZKC_OK) return rc0;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  zkc__op_t op;
  if ((rc = zkc__op_init(&op)) == ZKC_OK) {
    zkc__send(c, &op, &(zkc__req_t){.kind = ZKC__REQ_GET, .path = path});
    rc = zkc__op_wait(&op);
    if (rc == ZKC_OK) rc = zkc__sem_count_decode(op.data, op.data_len, value);
    zkc__op_clear(&op);
  }
  zkc__call_leave(c);
  return rc;
}

ZKC__PUBLIC(zkc_shared_count_set,
            (zkc_client_t *c, const char *path, int32_t value),
            (c, path, value)) {
  int rc0 = zkc__refuse_null(c, "zkc_shared_count_set", "client", c == NULL,
                             (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(c, "zkc_shared_count_set", "path", path);
  if (rc0 != ZKC_OK) return rc0;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  char data[COUNT_BYTES];
  zkc__sem_count_encode(value, data);
  for (int round = 0; round < 3; round++) {
    zkc__op_t op;
    if ((rc = zkc__op_init(&op)) != ZKC_OK) break;
    zkc__send(c, &op,
              &(zkc__req_t){.kind = ZKC__REQ_SET, .path = path, .data = data,
                            .len = COUNT_BYTES});
    rc = zkc__op_wait(&op);
    zkc__op_clear(&op);
    if (rc != ZKC_ENONODE) break;
    /* Missing: create it holding the value, never empty (a waiting head
     * would read an empty node as malformed); a racing create wins, and
     * the value is set over it in the next round. */
    rc = zkc__sem_count_create(c, path, value, 0, ZKC__FOREVER);
    if (rc != ZKC_ENODEEXISTS) break;
  }
  zkc__call_leave(c);
  return rc;
}
