/* SPDX-License-Identifier: Apache-2.0 */
/* Reads and writes under a mutex hold. A write (set, create, or
 * compare-and-set with the version a read returned) checks the hold's node
 * and writes in one transaction. A read goes through the session that owns
 * the hold's node, and only through it: that session saw the grant, and
 * ZooKeeper never serves a session from a server behind what the session
 * has seen, so the read cannot go back behind the grant (a read through
 * another session, sync or not, may be served by a server that still
 * answers from before the previous holder's writes; the one exception is
 * told in mutex.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mutex_hold.h"
#include "mutex_sides.h"
#include "names.h"
#include "queue.h"
#include "session.h"
#include "util.h"

/* fenced_write's `version` for a create (zkc_mutex_fenced_create). */
#define FENCED_CREATE INT32_MIN

/* A retried read goes on only while the hold stands. */
static int hold_stands(void *m) { return zkc__mutex_hold_check(m); }

/* One read of path on the hold's session, tried again after connection
 * loss while the hold stands, under the client's retry policy. A handle of
 * another session refuses it (ZKC_ESESSIONEXPIRED): the hold's session is
 * over. A sync goes before it: a server cut off from the leader would
 * answer from its frozen state, from before the writes of a holder granted
 * once the leader expired ours; it cannot answer the sync, and holds the
 * read behind it until it gives the connection up. */
static int read_in_session(zkc_client_t *c, zkc_mutex_t *m, const char *path,
                           int64_t session, char **data, size_t *len,
                           int32_t *version) {
  zkc__call_t rd[2] = {
      {.rq = {.kind = ZKC__REQ_SYNC, .path = path}},
      {.rq = {.kind = ZKC__REQ_GET_IN_SESSION, .path = path,
              .session = session}}};
  /* Retried until connected again, or the hold's session presumed lost
   * (cut off for a whole session timeout): a lost hold is told, not waited
   * on for as long as the ensemble stays out of reach. */
  int rc = zkc__call(c, rd, 2,
                     &(zkc__call_opts_t){.limit_ms = ZKC__FOREVER,
                                         .retry = ZKC__CALL_RETRY,
                                         .deadline_ms = ZKC__FOREVER,
                                         .session = session,
                                         .still = hold_stands,
                                         .still_ctx = m});
  if (rc == ZKC_OK) {
    *data = rd[1].data; /* malloc'd and NUL-terminated */
    rd[1].data = NULL;
    *len = (size_t)rd[1].data_len;
    *version = rd[1].stat.version;
  }
  zkc__call_clear(rd, 2);
  return rc;
}

/* Why a fenced write refuses its arguments (fn names the public call). */
static int fenced_args(zkc_mutex_t *m, const char *fn, const char *path,
                       const void *data, size_t len) {
  if (m == NULL) return zkc__refuse(NULL, ZKC_EINVAL, "%s: mutex is NULL", fn);
  zkc_client_t *c = zkc__mutex_client(m);
  int rc = zkc__check_path(c, fn, "path", path);
  if (rc != ZKC_OK) return rc;
  const char *why =
      data == NULL && len > 0 ? "data is NULL with len above 0"
      : len > ZKC__DATA_MAX   ? "len is above 1020 KiB (ZooKeeper's default "
                                "request limit is 1 MiB)"
      : zkc__mutex_side(m) == ZKC__SIDE_READ
          ? "a fenced write needs the write side of a read-write lock, not "
            "its read side"
          : NULL;
  return why ? zkc__refuse(c, ZKC_EINVAL, "%s: %s", fn, why) : ZKC_OK;
}

/* zkc_mutex_fenced_set with an expected data version for path (-1: any;
 * FENCED_CREATE: a create, ZKC_ENODEEXISTS when path exists); on success
 * *new_version (when not NULL) is path's new data version. Validates its
 * arguments and returns zkc_mutex_fenced_set's codes, plus ZKC_EBADVERSION
 * when path's version is not `version` (nothing set). */
static int fenced_write(zkc_mutex_t *m, const char *path, const void *data,
                        size_t len, int32_t version, int32_t *new_version) {
  int create = version == FENCED_CREATE;
  int rc = fenced_args(m,
                       create        ? "zkc_mutex_fenced_create"
                       : version < 0 ? "zkc_mutex_fenced_set"
                                     : "zkc_mutex_fenced_cas",
                       path, data, len);
  if (rc != ZKC_OK) return rc;
  zkc_client_t *c = zkc__mutex_client(m);
  if ((rc = zkc__call_enter(c)) != ZKC_OK) return rc;
  char *node = NULL;
  int64_t session = 0;
  rc = zkc__mutex_hold_enter(m, &session, &node);
  if (rc == ZKC_OK) {
    zkc__call_t w = {.rq = {.kind = create ? ZKC__REQ_CHECK_CREATE
                                          : ZKC__REQ_CHECK_SET,
                            .check = node, .path = path, .data = data,
                            .len = (int)len, .version = version}};
    rc = create ? zkc__fenced_create_node(c, &w) : zkc__call(c, &w, 1, NULL);
    if (rc == ZKC_OK && new_version != NULL) *new_version = w.stat.version;
    /* Our lock node is gone, or the session that owns it has expired (the
     * handle refuses every request): the hold is lost. The maintenance
     * thread tells the lost callback when it learns of it (the guard finds
     * the node gone, or the session's LOST is dispatched). */
    if (zkc__call_check_gone(&w) || rc == ZKC_ESESSIONEXPIRED) {
      zkc__mutex_hold_lost(m);
      rc = ZKC_ELOST;
    }
    zkc__mutex_hold_leave(m);
  }
  free(node);
  zkc__call_leave(c);
  return rc;
}

int zkc_mutex_fenced_set(zkc_mutex_t *m, const char *path, const void *data,
                         size_t len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           fenced_write(m, path, data, len, -1, NULL));
}

int zkc_mutex_fenced_create(zkc_mutex_t *m, const char *path, const void *data,
                            size_t len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           fenced_write(m, path, data, len, FENCED_CREATE,
                                        NULL));
}

static int mutex_fenced_get_impl(zkc_mutex_t *m, const char *path, char **data,
                                 size_t *len, int32_t *version) {
  if (data != NULL) *data = NULL;
  if (m == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_mutex_fenced_get: mutex is NULL");
  zkc_client_t *c = zkc__mutex_client(m);
  int rc = zkc__check_path(c, "zkc_mutex_fenced_get", "path", path);
  if (rc == ZKC_OK)
    rc = ZKC__REFUSE_IF(c, data == NULL || len == NULL || version == NULL,
                        "zkc_mutex_fenced_get", "%s is NULL",
                        data == NULL  ? "data"
                        : len == NULL ? "len"
                                      : "version");
  if (rc != ZKC_OK) return rc;
  rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  int64_t session = 0;
  if ((rc = zkc__mutex_hold_enter(m, &session, NULL)) == ZKC_OK) {
    char *got = NULL;
    size_t got_len = 0;
    int32_t got_version = 0;
    rc = read_in_session(c, m, path, session, &got, &got_len, &got_version);
    /* The hold's session ended: the hold went with it (the client's state
     * change marks it lost and tells the lost callback). */
    if (rc == ZKC_ESESSIONEXPIRED) rc = ZKC_ELOST;
    /* Lost while the read was under way: what it read is no hold's. */
    if (rc == ZKC_OK) rc = zkc__mutex_hold_check(m);
    if (rc == ZKC_OK) {
      *data = got;
      *len = got_len;
      *version = got_version;
    } else {
      free(got);
    }
    zkc__mutex_hold_leave(m);
  }
  zkc__call_leave(c);
  return rc;
}

int zkc_mutex_fenced_get(zkc_mutex_t *m, const char *path, char **data,
                         size_t *len, int32_t *version) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           mutex_fenced_get_impl(m, path, data, len, version));
}

static int mutex_fenced_cas_impl(zkc_mutex_t *m, const char *path,
                                 const void *data, size_t len, int32_t version,
                                 int32_t *new_version) {
  if (version < 0) /* no comparison: zkc_mutex_fenced_set */
    return zkc__refuse(m ? zkc__mutex_client(m) : NULL, ZKC_EINVAL,
                       "zkc_mutex_fenced_cas: version %d is below 0 (a write "
                       "without comparison is zkc_mutex_fenced_set)",
                       (int)version);
  int rc = fenced_write(m, path, data, len, version, new_version);
  /* The hold's session ended before the transaction was sent: nothing was
   * set, and the hold went with the session. */
  return rc == ZKC_ESESSIONEXPIRED ? ZKC_ELOST : rc;
}

int zkc_mutex_fenced_cas(zkc_mutex_t *m, const char *path, const void *data,
                         size_t len, int32_t version, int32_t *new_version) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           mutex_fenced_cas_impl(m, path, data, len, version,
                                                 new_version));
}
