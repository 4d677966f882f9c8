/* SPDX-License-Identifier: Apache-2.0 */
/* The async acquire's own holds: their release and free, and the kind
 * that the calls on every hold (hold.c, fenced.c) ask (losses:
 * async_loss.c). */
#include <stdlib.h>
#include <string.h>

#include "async_int.h"
#include "hold_notice.h"
#include "hold_view.h"
#include "session.h"
#include "util.h"

int zkc__async_hold_release(zkc_async_t *a, zkc_hold_t *h,
                            zkc_released_fn done, void *ctx) {
  if (h->a != a) return ZKC_ENOTOWNER;
  return zkc__async_release(a, h, done, ctx);
}

int zkc__async_hold_free(zkc_hold_t *h) {
  zkc_async_t *a = h->a;
  pthread_mutex_lock(&a->mu);
  int held = !h->released;
  pthread_mutex_unlock(&a->mu);
  if (held) {
    int rc = zkc__async_release(a, h, NULL, NULL);
    if (rc == ZKC_ENOMEM) return rc;
  }
  zkc__hold_notice_drop(h); /* never told once freed */
  pthread_mutex_lock(&a->mu);
  a->holds_alive--;
  pthread_mutex_unlock(&a->mu);
  free(h->held.node);
  free(h);
  return ZKC_OK;
}

static zkc_client_t *hold_client(const void *obj) {
  return ((const zkc_hold_t *)obj)->a->c;
}

static const char *hold_no_write(const void *obj) {
  return ((const zkc_hold_t *)obj)->reader
             ? "a fenced write needs a lock's or a write side's hold, not a "
               "read side's"
             : NULL;
}

static int hold_enter(void *obj, int standing, zkc__fence_t *f) {
  zkc_hold_t *h = obj;
  pthread_mutex_lock(&h->a->mu);
  int rc = h->released                            ? ZKC_ENOTOWNER
           : standing && atomic_load(&h->rec.lost) ? ZKC_ELOST
                                                   : ZKC_OK;
  if (rc == ZKC_OK && (f->nodes = strdup(h->held.node)) == NULL)
    rc = ZKC_ENOMEM;
  f->token = h->rec.token;
  f->session = h->rec.session;
  pthread_mutex_unlock(&h->a->mu);
  return rc;
}

static int hold_still(void *obj, const zkc__fence_t *f) {
  (void)f; /* an async hold is one grant, never another */
  zkc_hold_t *h = obj;
  pthread_mutex_lock(&h->a->mu);
  int rc = h->released                 ? ZKC_ENOTOWNER
           : atomic_load(&h->rec.lost) ? ZKC_ELOST
                                       : ZKC_OK;
  pthread_mutex_unlock(&h->a->mu);
  return rc;
}

static void hold_lost(void *obj, const zkc__fence_t *f, int node) {
  (void)node;
  (void)f;
  zkc_hold_t *h = obj;
  pthread_mutex_lock(&h->a->mu);
  zkc__hold_rec_lose(&h->rec, NULL); /* told on a state, or kept */
  pthread_mutex_unlock(&h->a->mu);
}

static void hold_leave(void *obj) { (void)obj; }

static int hold_is_held(const void *obj) {
  const zkc_hold_t *h = obj;
  pthread_mutex_lock(&h->a->mu);
  int held = !h->released;
  pthread_mutex_unlock(&h->a->mu);
  return held && zkc__hold_rec_stands(&h->rec, h->a->c);
}

/* One grant, whose loss its context tells (async_loss.c). */
static const void *hold_scope(const void *obj, int64_t *grant) {
  const zkc_hold_t *h = obj;
  *grant = h->rec.token;
  return h->a;
}

const zkc__hold_kind_t zkc__async_hold_kind = {
    .borrowed = 0,
    .no_write = hold_no_write,
    .client = hold_client,
    .enter = hold_enter,
    .still = hold_still,
    .lost = hold_lost,
    .leave = hold_leave,
    .is_held = hold_is_held,
    .scope = hold_scope,
};
