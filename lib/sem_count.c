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
  char data[COUNT_BYTES];
  zkc__sem_count_encode(value, data);
  zkc__call_t create = {.rq = {.kind = ZKC__REQ_COUNT, .path = path,
                               .data = data, .len = COUNT_BYTES}};
  int rc = zkc__call(c, &create, 1,
                     &(zkc__call_opts_t){.limit_ms = limit_ms,
                                         .retry = ZKC__CALL_ONCE,
                                         .deadline_ms = ZKC__FOREVER,
                                         .parents = 1});
  zkc__call_clear(&create, 1);
  return rc == ZKC_ENODEEXISTS && theirs_ok ? ZKC_OK : rc;
}

static int shared_count_get_impl(zkc_client_t *c, const char *path,
                                 int32_t *value) {
  int rc0 = zkc__refuse_null(c, "zkc_shared_count_get", "client", c == NULL,
                             "value", value == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(c, "zkc_shared_count_get", "path", path);
  if (rc0 != ZKC_OK) return rc0;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  zkc__call_t get = {.rq = {.kind = ZKC__REQ_GET, .path = path}};
  if ((rc = zkc__call(c, &get, 1, NULL)) == ZKC_OK)
    rc = zkc__sem_count_decode(get.data, get.data_len, value);
  zkc__call_clear(&get, 1);
  zkc__call_leave(c);
  return rc;
}

int zkc_shared_count_get(zkc_client_t *c, const char *path, int32_t *value) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           shared_count_get_impl(c, path, value));
}

static int shared_count_set_impl(zkc_client_t *c, const char *path,
                                 int32_t value) {
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
    zkc__call_t set = {.rq = {.kind = ZKC__REQ_SET, .path = path,
                              .data = data, .len = COUNT_BYTES}};
    rc = zkc__call(c, &set, 1, NULL);
    zkc__call_clear(&set, 1);
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

int zkc_shared_count_set(zkc_client_t *c, const char *path, int32_t value) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           shared_count_set_impl(c, path, value));
}
