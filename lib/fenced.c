/* SPDX-License-Identifier: Apache-2.0 */
/* Reads and writes under a hold, one implementation for every kind of
 * hold (hold_view.h). A write (set, create, or compare-and-set with the
 * version a read returned) checks every node of the hold and writes in
 * one transaction. A read goes through the session that owns the hold's
 * nodes, and only through it: that session saw the grant, and ZooKeeper
 * never serves a session from a server behind what the session has seen,
 * so the read cannot go back behind the grant (a read through another
 * session, sync or not, may be served by a server that still answers from
 * before the previous holder's writes; the one exception is told in
 * mutex.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "confirm_run.h"
#include "hold_view.h"
#include "mutex_hold.h"
#include "names.h"
#include "queue.h"
#include "session.h"
#include "util.h"

/* A hold pinned for one call: its kind, object and what it rests on. */
typedef struct {
  const zkc__hold_kind_t *kind;
  void *obj;
  zkc_client_t *c;
  zkc__fence_t f;
} pinned_t;

/* A fenced read under a pinned hold. */
typedef struct {
  pinned_t *h;
  const char *path;
} read_t;

/* The confirm run's one part (confirm_run.h): path, read on the hold's
 * session, which the call keeps pinned throughout; a round goes out only
 * while the hold stands, and its answer counts only if it still does. */
static zkc_client_t *read_client(void *ctx, size_t i) {
  (void)i;
  return ((read_t *)ctx)->h->c;
}

static int read_pin(void *ctx, size_t i, char **node, int64_t *session) {
  (void)i;
  read_t *rd = ctx;
  int rc = rd->h->kind->still(rd->h->obj, &rd->h->f);
  if (rc != ZKC_OK) return rc;
  *session = rd->h->f.session;
  return (*node = strdup(rd->path)) ? ZKC_OK : ZKC_ENOMEM;
}

static int read_stands(void *ctx, size_t i) {
  (void)i;
  read_t *rd = ctx;
  return rd->h->kind->still(rd->h->obj, &rd->h->f);
}

/* One read of path on the hold's session, behind a sync: a server cut off
 * from the leader would answer from its frozen state, from before the
 * writes of a holder granted once the leader expired ours; it cannot
 * answer the sync, and holds the read behind it until it gives the
 * connection up. Tried again after connection loss while the hold stands,
 * until connected again or the hold's session presumed lost (a lost hold
 * is told, not waited on for as long as the ensemble stays out of reach),
 * and again while its answer is too old to prove the hold (the kernel's
 * grant rule). A handle of another session refuses it: the hold is lost. */
static int read_in_session(pinned_t *h, const char *path, char **data,
                           size_t *len, int32_t *version) {
  read_t rd = {h, path};
  const zkc__confirm_how_t how = {
      .n = 1, .get = 1, .deadline = ZKC__FOREVER, .client = read_client,
      .pin = read_pin, .stands = read_stands, .ctx = &rd};
  return zkc__confirm(&how, data, len, version);
}

static zkc_client_t *hold_client(const zkc_hold_t *h) {
  void *obj;
  return zkc__hold_kind_of(h, &obj)->client(obj);
}

/* Enters the call and pins the hold standing: ZKC_OK (leave with unpin)
 * or the refusal, nothing to undo. */
static int pin(zkc_hold_t *hold, pinned_t *h) {
  h->kind = zkc__hold_kind_of(hold, &h->obj);
  h->c = h->kind->client(h->obj);
  int rc = zkc__call_enter(h->c);
  if (rc != ZKC_OK) return rc;
  if ((rc = h->kind->enter(h->obj, 1, &h->f)) != ZKC_OK)
    zkc__call_leave(h->c);
  return rc;
}

static void unpin(pinned_t *h) {
  h->kind->leave(h->obj);
  zkc__fence_clear(&h->f);
  zkc__call_leave(h->c);
}

int zkc__hold_get(zkc_hold_t *hold, const char *fn, const char *path,
                  char **data, size_t *len, int32_t *version) {
  if (data != NULL) *data = NULL;
  if (hold == NULL) return zkc__refuse(NULL, ZKC_EINVAL, "%s: hold is NULL", fn);
  pinned_t h = {0};
  void *obj;
  zkc_client_t *c = zkc__hold_kind_of(hold, &obj)->client(obj);
  int rc = zkc__check_path(c, fn, "path", path);
  if (rc == ZKC_OK)
    rc = data == NULL || len == NULL || version == NULL
             ? zkc__refuse(c, ZKC_EINVAL, "%s: %s is NULL", fn,
                           data == NULL  ? "data"
                           : len == NULL ? "len"
                                         : "version")
             : ZKC_OK;
  if (rc != ZKC_OK || (rc = pin(hold, &h)) != ZKC_OK) return rc;
  char *got = NULL;
  size_t got_len = 0;
  int32_t got_version = 0;
  /* Lost while the read was under way (its session ended with it: the
   * client's state change tells the recipe's lost notice): ZKC_ELOST, and
   * what it read is no hold's. */
  rc = read_in_session(&h, path, &got, &got_len, &got_version);
  if (rc == ZKC_OK) {
    *data = got;
    *len = got_len;
    *version = got_version;
  } else {
    free(got);
  }
  unpin(&h);
  return rc;
}

/* Why a fenced write refuses its arguments. */
static int write_args(zkc_hold_t *hold, const char *fn, const char *path,
                      const void *data, size_t len) {
  if (hold == NULL) return zkc__refuse(NULL, ZKC_EINVAL, "%s: hold is NULL", fn);
  void *obj;
  const zkc__hold_kind_t *kind = zkc__hold_kind_of(hold, &obj);
  zkc_client_t *c = kind->client(obj);
  int rc = zkc__check_path(c, fn, "path", path);
  if (rc != ZKC_OK) return rc;
  const char *why = data == NULL && len > 0 ? "data is NULL with len above 0"
                    : len > ZKC__DATA_MAX
                        ? "len is above 1020 KiB (ZooKeeper's default "
                          "request limit is 1 MiB)"
                        : kind->no_write ? kind->no_write(obj)
                                         : NULL;
  return why ? zkc__refuse(c, ZKC_EINVAL, "%s: %s", fn, why) : ZKC_OK;
}

int zkc__hold_write(zkc_hold_t *hold, const char *fn, const char *path,
                    const void *data, size_t len, int32_t version,
                    int32_t *new_version) {
  int create = version == ZKC__FENCED_CREATE;
  int rc = write_args(hold, fn, path, data, len);
  pinned_t h = {0};
  if (rc != ZKC_OK || (rc = pin(hold, &h)) != ZKC_OK) return rc;
  /* Every node of the hold checked, a set's all in the same transaction:
   * a set missing one node is not held. */
  zkc__call_t w = {.rq = {.kind = create ? ZKC__REQ_CHECK_CREATE
                                        : ZKC__REQ_CHECK_SET,
                          .check = h.f.nodes, .path = path, .data = data,
                          .len = (int)len,
                          .version = create ? -1 : version}};
  /* A create's missing parent is made (empty, like a lock's parents: no
   * data of the lock's to fence) and the transaction sent again. */
  rc = zkc__call(h.c, &w, 1,
                 &(zkc__call_opts_t){.limit_ms = ZKC__FOREVER,
                                     .retry = ZKC__CALL_ONCE,
                                     .deadline_ms = ZKC__FOREVER,
                                     .parents = create});
  if (rc == ZKC_OK && new_version != NULL) *new_version = w.stat.version;
  /* A node of the hold is gone, or the session that owns them has expired
   * (the handle refuses every request): the hold is lost, nothing written.
   * The recipe tells its loss when it learns of it (its watch finds the
   * node gone, or the session's LOST is dispatched). */
  if (w.check_gone || rc == ZKC_ESESSIONEXPIRED) {
    h.kind->lost(h.obj, &h.f, rc == ZKC_ESESSIONEXPIRED ? -1 : w.failed_check);
    rc = ZKC_ELOST;
  }
  unpin(&h);
  return rc;
}

/* ---- the calls on a hold ---- */

int zkc_hold_fenced_set(zkc_hold_t *h, const char *path, const void *data,
                        size_t len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__hold_write(h, "zkc_hold_fenced_set", path, data,
                                           len, -1, NULL));
}

int zkc_hold_fenced_create(zkc_hold_t *h, const char *path, const void *data,
                           size_t len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__hold_write(h, "zkc_hold_fenced_create", path,
                                           data, len, ZKC__FENCED_CREATE,
                                           NULL));
}

/* A compare-and-set without a version to compare: `set` is the call for
 * that (fn and set name the public calls). */
static int refuse_no_version(zkc_client_t *c, const char *fn, const char *set,
                             int32_t version) {
  return zkc__refuse(c, ZKC_EINVAL,
                     "%s: version %d is below 0 (a write without comparison "
                     "is %s)",
                     fn, (int)version, set);
}

static int hold_fenced_cas_impl(zkc_hold_t *h, const char *path,
                                const void *data, size_t len, int32_t version,
                                int32_t *new_version) {
  if (version < 0 && h != NULL)
    return refuse_no_version(hold_client(h), "zkc_hold_fenced_cas",
                             "zkc_hold_fenced_set", version);
  return zkc__hold_write(h, "zkc_hold_fenced_cas", path, data, len, version,
                         new_version);
}

int zkc_hold_fenced_cas(zkc_hold_t *h, const char *path, const void *data,
                        size_t len, int32_t version, int32_t *new_version) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           hold_fenced_cas_impl(h, path, data, len, version,
                                                new_version));
}

int zkc_hold_fenced_get(zkc_hold_t *h, const char *path, char **data,
                        size_t *len, int32_t *version) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__hold_get(h, "zkc_hold_fenced_get", path, data,
                                         len, version));
}
