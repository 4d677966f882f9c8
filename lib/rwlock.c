/* SPDX-License-Identifier: Apache-2.0 */
/* The read-write lock: two mutexes on one path, a write side and a read
 * side (mutex.c does the work, told apart by their side), linked as twins
 * so that a thread may downgrade and is refused the upgrade. */
#include <stdlib.h>

#include "names.h"
#include "session.h"
#include "mutex_sides.h"
#include "util.h"
#include "zkcoord/rwlock.h"

struct zkc_rwlock {
  zkc_mutex_t *write;
  zkc_mutex_t *read;
};

static int rwlock_create_impl(zkc_rwlock_t **out, zkc_client_t *client,
                              const char *path) {
  if (out != NULL) *out = NULL;
  int rc0 = zkc__refuse_null(client, "zkc_rwlock_create", "out", out == NULL,
                             "client", client == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(client, "zkc_rwlock_create", "lock path", path);
  if (rc0 != ZKC_OK) return rc0;
  zkc_rwlock_t *rw = calloc(1, sizeof *rw);
  if (rw == NULL) return ZKC_ENOMEM;
  int rc = zkc__mutex_new(&rw->write, client, path, ZKC__SIDE_WRITE);
  if (rc == ZKC_OK) rc = zkc__mutex_new(&rw->read, client, path, ZKC__SIDE_READ);
  if (rc != ZKC_OK) {
    if (rw->write) zkc__mutex_free(rw->write);
    free(rw);
    return rc;
  }
  zkc__mutex_twin(rw->write, rw->read);
  *out = rw;
  return ZKC_OK;
}

int zkc_rwlock_create(zkc_rwlock_t **out, zkc_client_t *client,
                      const char *path) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           rwlock_create_impl(out, client, path));
}

static int rwlock_destroy_impl(zkc_rwlock_t *rw) {
  if (rw == NULL) return ZKC_OK;
  /* Both sides go or neither: a callback thread could free one only. */
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  if (zkc__mutex_busy(rw->write) || zkc__mutex_busy(rw->read)) return ZKC_EBUSY;
  int rc = zkc__mutex_free(rw->write);
  if (rc != ZKC_OK) return rc;
  zkc__mutex_free(rw->read);
  free(rw);
  return ZKC_OK;
}

int zkc_rwlock_destroy(zkc_rwlock_t *rw) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, rwlock_destroy_impl(rw));
}

zkc_mutex_t *zkc_rwlock_read_side(zkc_rwlock_t *rw) {
  return rw ? rw->read : NULL;
}

zkc_mutex_t *zkc_rwlock_write_side(zkc_rwlock_t *rw) {
  return rw ? rw->write : NULL;
}
