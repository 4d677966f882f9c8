/* SPDX-License-Identifier: Apache-2.0 */
/* The async acquire's hold handles: release, free, token, node, is_held
 * and the fenced set, from any thread (losses: async_loss.c). */
#include <stdlib.h>
#include <string.h>

#include "async_int.h"
#include "queue_nodes.h"

#include "names.h"
#include "session.h"
#include "util.h"

static int hold_release_impl(zkc_async_t *a, zkc_hold_t *h,
                             zkc_released_fn done, void *ctx) {
  int rc_ = zkc__refuse_null(a ? a->c : NULL, "zkc_hold_release", "async",
                             a == NULL, "hold", h == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  if (h->a != a) return ZKC_ENOTOWNER;
  return zkc__async_release(a, h, done, ctx);
}

int zkc_hold_release(zkc_async_t *a, zkc_hold_t *h, zkc_released_fn done,
                     void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_release_impl(a, h, done, ctx));
}

static int hold_free_impl(zkc_hold_t *h) {
  if (h == NULL) return ZKC_OK;
  zkc_async_t *a = h->a;
  pthread_mutex_lock(&a->mu);
  int held = !h->released;
  pthread_mutex_unlock(&a->mu);
  if (held) {
    int rc = zkc__async_release(a, h, NULL, NULL);
    if (rc == ZKC_ENOMEM) return rc;
  }
  pthread_mutex_lock(&a->mu);
  a->holds_alive--;
  pthread_mutex_unlock(&a->mu);
  free(h->held.node);
  free(h);
  return ZKC_OK;
}

int zkc_hold_free(zkc_hold_t *h) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_free_impl(h));
}

static int hold_fencing_token_impl(const zkc_hold_t *h, int64_t *token) {
  int rc_ =
      zkc__refuse_null(h ? h->a->c : NULL, "zkc_hold_fencing_token", "hold",
                       h == NULL, "token", token == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  pthread_mutex_lock(&h->a->mu);
  int rc = h->released ? ZKC_ENOTOWNER : ZKC_OK;
  if (rc == ZKC_OK) *token = h->held.token;
  pthread_mutex_unlock(&h->a->mu);
  return rc;
}

int zkc_hold_fencing_token(const zkc_hold_t *h, int64_t *token) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_fencing_token_impl(h, token));
}

static int hold_node_impl(const zkc_hold_t *h, char *buf, size_t len) {
  int rc_ = zkc__refuse_null(h ? h->a->c : NULL, "zkc_hold_node", "hold",
                             h == NULL, "buf", buf == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  if (len == 0)
    return zkc__refuse(h->a->c, ZKC_EINVAL, "zkc_hold_node: len is 0");
  pthread_mutex_lock(&h->a->mu);
  /* A released hold has no node any more. */
  size_t need = h->released ? 0 : strlen(h->held.node) + 1;
  int rc = h->released ? ZKC_ENOTOWNER : need > len ? ZKC_EINVAL : ZKC_OK;
  if (rc == ZKC_OK) strcpy(buf, h->held.node);
  pthread_mutex_unlock(&h->a->mu);
  if (rc == ZKC_EINVAL)
    zkc__refuse(h->a->c, rc,
                "zkc_hold_node: buf of %zu bytes is too small "
                "(the node's path needs %zu)",
                len, need);
  return rc;
}

int zkc_hold_node(const zkc_hold_t *h, char *buf, size_t len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_node_impl(h, buf, len));
}

int zkc_hold_is_held(const zkc_hold_t *h) {
  if (h == NULL) return 0;
  pthread_mutex_lock(&h->a->mu);
  int held = !h->released;
  pthread_mutex_unlock(&h->a->mu);
  return held && zkc__hold_rec_stands(&h->rec, h->a->c);
}

/* The fenced write of a hold: a set, or a create (fn names the call). */
static int hold_fenced(zkc_hold_t *h, const char *fn, int create,
                       const char *path, const void *data, size_t len) {
  if (h == NULL) return zkc__refuse(NULL, ZKC_EINVAL, "%s: hold is NULL", fn);
  zkc_async_t *a = h->a;
  int rc = zkc__check_path(a->c, fn, "path", path);
  if (rc != ZKC_OK) return rc;
  if (data == NULL && len > 0)
    return zkc__refuse(a->c, ZKC_EINVAL, "%s: data is NULL with len above 0",
                       fn);
  if (len > ZKC__DATA_MAX)
    return zkc__refuse(a->c, ZKC_EINVAL,
                       "%s: len is above 1020 KiB "
                       "(ZooKeeper's default request limit is 1 MiB)",
                       fn);
  if (h->reader)
    return zkc__refuse(a->c, ZKC_EINVAL,
                       "%s: a fenced write needs a lock's or a write side's "
                       "hold, not a read side's",
                       fn);
  if ((rc = zkc__call_enter(a->c)) != ZKC_OK) return rc;
  char *node = NULL;
  pthread_mutex_lock(&a->mu);
  rc = h->released                 ? ZKC_ENOTOWNER
       : atomic_load(&h->rec.lost) ? ZKC_ELOST
                                   : ZKC_OK;
  if (rc == ZKC_OK && (node = strdup(h->held.node)) == NULL) rc = ZKC_ENOMEM;
  pthread_mutex_unlock(&a->mu);
  if (rc == ZKC_OK) {
    zkc__call_t w = {.rq = {.kind = create ? ZKC__REQ_CHECK_CREATE
                                          : ZKC__REQ_CHECK_SET,
                            .check = node, .path = path, .data = data,
                            .len = (int)len, .version = -1}};
    rc = create ? zkc__fenced_create_node(a->c, &w) : zkc__call(a->c, &w, 1, NULL);
    if (zkc__call_check_gone(&w)) { /* our node is gone */
      pthread_mutex_lock(&a->mu);
      zkc__hold_rec_lose(&h->rec, NULL); /* told on a state, or kept */
      pthread_mutex_unlock(&a->mu);
      rc = ZKC_ELOST;
    }
  }
  free(node);
  zkc__call_leave(a->c);
  return rc;
}

int zkc_hold_fenced_set(zkc_hold_t *h, const char *path, const void *data,
                        size_t len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           hold_fenced(h, "zkc_hold_fenced_set", 0, path, data,
                                       len));
}

int zkc_hold_fenced_create(zkc_hold_t *h, const char *path, const void *data,
                           size_t len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           hold_fenced(h, "zkc_hold_fenced_create", 1, path,
                                       data, len));
}
