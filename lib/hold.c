/* SPDX-License-Identifier: Apache-2.0 */
/* The calls on a hold (zkcoord/hold.h), one set for every grant: an async
 * acquire's own hold and each recipe's view alike, each asked through its
 * kind (hold_view.h). The fenced reads and writes are fenced.c's. */
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "hold_notice.h"
#include "hold_view.h"
#include "session.h"

/* A bound hold (zkc_hold_bind): one grant of another hold, named by its
 * token. A recipe's view follows the recipe's current grant (a leader's
 * next term, a mutex's next acquisition); a bound hold answers for the
 * grant it was bound to only, and refuses every call but its token once
 * that grant is over (ZKC_ELOST), even while its recipe holds again. Its
 * calls are the inner hold's, behind one comparison of tokens. Below. */
static const zkc__hold_kind_t bound_kind;
typedef struct bound {
  zkc__hold_head_t head; /* ZKC__HOLD_BOUND, obj: this */
  zkc_hold_t *inner;
  int64_t token; /* the grant it is bound to */
} bound_t;


const zkc__hold_kind_t *zkc__hold_kind_of(const zkc_hold_t *h, void **obj) {
  static const zkc__hold_kind_t *const kinds[] = {
      [ZKC__HOLD_ASYNC] = &zkc__async_hold_kind,
      [ZKC__HOLD_MUTEX] = &zkc__mutex_hold_kind,
      [ZKC__HOLD_MULTILOCK] = &zkc__multilock_hold_kind,
      [ZKC__HOLD_LEADER] = &zkc__candidate_hold_kind,
      [ZKC__HOLD_LEASE] = &zkc__lease_hold_kind,
      [ZKC__HOLD_BOUND] = &bound_kind};
  const zkc__hold_head_t *head = (const zkc__hold_head_t *)h;
  /* An async acquire's own hold is its own object. */
  *obj = head->kind == ZKC__HOLD_ASYNC ? (void *)h : head->obj;
  return kinds[head->kind];
}

static zkc_client_t *client_of(const zkc_hold_t *h) {
  void *obj;
  return h ? zkc__hold_kind_of(h, &obj)->client(obj) : NULL;
}

/* A recipe's view is let go through its recipe, never here. */
static int refuse_borrowed(const zkc_hold_t *h, const char *fn) {
  void *obj;
  if (!zkc__hold_kind_of(h, &obj)->borrowed) return ZKC_OK;
  return zkc__refuse(client_of(h), ZKC_EINVAL,
                     "%s: the hold is a recipe's view (zkc_mutex_hold, "
                     "zkc_latch_hold, ...): release it through its recipe",
                     fn);
}

static int is_bound(const zkc_hold_t *h) {
  return ((const zkc__hold_head_t *)h)->kind == ZKC__HOLD_BOUND;
}

static int hold_release_impl(zkc_async_t *a, zkc_hold_t *h,
                             zkc_released_fn done, void *ctx) {
  int rc = zkc__refuse_null(client_of(h), "zkc_hold_release", "async",
                            a == NULL, "hold", h == NULL, (char *)NULL);
  if (rc == ZKC_OK) rc = refuse_borrowed(h, "zkc_hold_release");
  if (rc == ZKC_OK && is_bound(h))
    rc = zkc__refuse(client_of(h), ZKC_EINVAL,
                     "zkc_hold_release: the hold is bound (zkc_hold_bind): "
                     "release its grant through the hold it was bound from; "
                     "zkc_hold_free frees the binding");
  return rc == ZKC_OK ? zkc__async_hold_release(a, h, done, ctx) : rc;
}

int zkc_hold_release(zkc_async_t *a, zkc_hold_t *h, zkc_released_fn done,
                     void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_release_impl(a, h, done, ctx));
}

static int hold_free_impl(zkc_hold_t *h) {
  if (h == NULL) return ZKC_OK;
  if (is_bound(h)) { /* the binding only, never its grant */
    zkc__hold_notice_drop(h);
    free(h);
    return ZKC_OK;
  }
  int rc = refuse_borrowed(h, "zkc_hold_free");
  return rc == ZKC_OK ? zkc__async_hold_free(h) : rc;
}

int zkc_hold_free(zkc_hold_t *h) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_free_impl(h));
}

/* What the hold rests on now; with `standing`, only while it stands
 * (else the token and node of a hold in doubt or lost are still its own). */
static int peek(const zkc_hold_t *h, int standing, zkc__fence_t *f) {
  void *obj;
  const zkc__hold_kind_t *kind = zkc__hold_kind_of(h, &obj);
  int rc = kind->enter(obj, standing, f);
  if (rc == ZKC_OK) kind->leave(obj);
  return rc;
}

static int hold_fencing_token_impl(const zkc_hold_t *h, int64_t *token) {
  int rc = zkc__refuse_null(client_of(h), "zkc_hold_fencing_token", "hold",
                            h == NULL, "token", token == NULL, (char *)NULL);
  if (rc != ZKC_OK) return rc;
  void *obj;
  const zkc__hold_kind_t *kind = zkc__hold_kind_of(h, &obj);
  if (kind == &bound_kind) { /* its grant's, kept after it is over */
    *token = ((const bound_t *)obj)->token;
    return ZKC_OK;
  }
  zkc__fence_t f = {0};
  if ((rc = peek(h, 0, &f)) == ZKC_OK) *token = f.token;
  zkc__fence_clear(&f);
  return rc;
}

int zkc_hold_fencing_token(const zkc_hold_t *h, int64_t *token) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_fencing_token_impl(h, token));
}

/* The hold's node paths, split from the fence's lines (a set's in the
 * order they are checked). */
int zkc__hold_nodes(const zkc_hold_t *h, char ***nodes, size_t *count) {
  *nodes = NULL;
  *count = 0;
  zkc__fence_t f = {0};
  int rc = peek(h, 0, &f);
  size_t n = 1;
  for (const char *p = rc == ZKC_OK ? f.nodes : ""; *p; p++) n += *p == '\n';
  char **v = rc == ZKC_OK ? calloc(n, sizeof *v) : NULL;
  if (rc == ZKC_OK && v == NULL) rc = ZKC_ENOMEM;
  const char *p = f.nodes;
  for (size_t i = 0; rc == ZKC_OK && i < n; i++) {
    size_t len = strcspn(p, "\n");
    if ((v[i] = strndup(p, len)) == NULL) rc = ZKC_ENOMEM;
    p += len + 1;
  }
  zkc__fence_clear(&f);
  if (rc != ZKC_OK) {
    for (size_t i = 0; v != NULL && i < n; i++) free(v[i]);
    free(v);
    return rc;
  }
  *nodes = v;
  *count = n;
  return ZKC_OK;
}

int zkc_hold_is_held(const zkc_hold_t *h) {
  if (h == NULL) return 0;
  void *obj;
  return zkc__hold_kind_of(h, &obj)->is_held(obj);
}

/* ---- bound holds ---- */

static const zkc__hold_kind_t *inner_of(const bound_t *b, void **obj) {
  return zkc__hold_kind_of(b->inner, obj);
}

static const char *b_no_write(const void *obj) {
  void *io;
  const zkc__hold_kind_t *k = inner_of(obj, &io);
  return k->no_write ? k->no_write(io) : NULL;
}

static zkc_client_t *b_client(const void *obj) {
  void *io;
  return inner_of(obj, &io)->client(io);
}

/* The inner hold's enter, kept only while it rests on the bound grant;
 * nothing granted now means the bound grant is over too. */
static int b_enter(void *obj, int standing, zkc__fence_t *f) {
  const bound_t *b = obj;
  void *io;
  const zkc__hold_kind_t *k = inner_of(b, &io);
  int rc = k->enter(io, standing, f);
  if (rc == ZKC_ENOTOWNER) return ZKC_ELOST;
  if (rc == ZKC_OK && f->token != b->token) {
    k->leave(io);
    zkc__fence_clear(f);
    return ZKC_ELOST;
  }
  return rc;
}

static int b_still(void *obj, const zkc__fence_t *f) {
  void *io;
  int rc = inner_of(obj, &io)->still(io, f);
  return rc == ZKC_ENOTOWNER ? ZKC_ELOST : rc;
}

static void b_lost(void *obj, const zkc__fence_t *f, int node) {
  void *io;
  inner_of(obj, &io)->lost(io, f, node);
}

static void b_leave(void *obj) {
  void *io;
  inner_of(obj, &io)->leave(io);
}

static int b_is_held(const void *obj) {
  zkc__fence_t f = {0};
  void *io;
  const zkc__hold_kind_t *k = inner_of(obj, &io);
  if (b_enter((void *)obj, 1, &f) != ZKC_OK) return 0;
  int held = k->is_held(io);
  k->leave(io);
  zkc__fence_clear(&f);
  return held;
}

/* The bound grant's loss is told where the inner hold's are. */
static const void *b_scope(const void *obj, int64_t *grant) {
  const bound_t *b = obj;
  void *io;
  const void *scope = inner_of(b, &io)->scope(io, grant);
  *grant = b->token;
  return scope;
}

static const zkc__hold_kind_t bound_kind = {
    .borrowed = 0,
    .no_write = b_no_write,
    .client = b_client,
    .enter = b_enter,
    .still = b_still,
    .lost = b_lost,
    .leave = b_leave,
    .is_held = b_is_held,
    .scope = b_scope};

static int bind_hold(zkc_hold_t *h, zkc_hold_t **out) {
  zkc__fence_t f = {0};
  int rc = peek(h, 1, &f);
  int64_t token = f.token;
  zkc__fence_clear(&f);
  if (rc != ZKC_OK) return rc;
  bound_t *b = malloc(sizeof *b);
  if (b == NULL) return ZKC_ENOMEM;
  zkc__hold_view_init(&b->head, ZKC__HOLD_BOUND, b);
  b->inner = h;
  b->token = token;
  *out = ZKC__HOLD_OF(&b->head);
  return ZKC_OK;
}


static int hold_bind_impl(zkc_hold_t *h, zkc_hold_t **out) {
  if (out != NULL) *out = NULL;
  int rc = zkc__refuse_null(client_of(h), "zkc_hold_bind", "hold", h == NULL,
                            "out", out == NULL, (char *)NULL);
  return rc == ZKC_OK ? bind_hold(h, out) : rc;
}

int zkc_hold_bind(zkc_hold_t *h, zkc_hold_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_bind_impl(h, out));
}

/* ---- the loss notice ---- */

/* A one-grant hold's notice is set only while its grant stands: one lost
 * already says so (ZKC_ELOST) rather than being told. Set first, then
 * checked, so that a loss decided meanwhile is either told or answered. */
static int set_notice(zkc_hold_t *h, zkc_hold_lost_fn fn, void *ctx) {
  void *obj;
  int64_t grant;
  const void *scope = zkc__hold_kind_of(h, &obj)->scope(obj, &grant);
  if (fn == NULL) {
    zkc__hold_notice_drop(h);
    return ZKC_OK;
  }
  zkc__fence_t f = {0};
  int rc = grant ? peek(h, 1, &f) : ZKC_OK;
  zkc__fence_clear(&f);
  if (rc != ZKC_OK) return rc;
  if ((rc = zkc__hold_notice_set(h, scope, grant, fn, ctx)) != ZKC_OK)
    return rc;
  rc = grant ? peek(h, 1, &f) : ZKC_OK;
  zkc__fence_clear(&f);
  if (rc != ZKC_OK && !zkc__hold_notice_withdraw(h)) rc = ZKC_OK; /* told */
  return rc;
}

static int hold_set_lost_callback_impl(zkc_hold_t *h, zkc_hold_lost_fn fn,
                                       void *ctx) {
  int rc = zkc__refuse_null(NULL, "zkc_hold_set_lost_callback", "hold",
                            h == NULL, (char *)NULL);
  return rc == ZKC_OK ? set_notice(h, fn, ctx) : rc;
}

int zkc_hold_set_lost_callback(zkc_hold_t *h, zkc_hold_lost_fn fn,
                               void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           hold_set_lost_callback_impl(h, fn, ctx));
}
