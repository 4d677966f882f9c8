/* SPDX-License-Identifier: Apache-2.0 */
/* One hold type for every grant (zkcoord/hold.h): a zkc_hold_t is either
 * an asynchronous acquire's own hold or a recipe's borrowed view of its
 * current grant (a mutex's, a leader's term, a lease set, a multi-lock's
 * set). Each kind answers the few questions below; the calls on a hold
 * (hold.c) and its fenced reads and writes (fenced.c) are written once
 * over them. */
#ifndef ZKC_HOLD_VIEW_H
#define ZKC_HOLD_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "session.h"
#include "zkcoord/hold.h"
#include "zkcoord/multilock.h"

/* What a call on a hold rests on, copied from the hold as the call began:
 * the nodes it checks and the session its reads go through. */
typedef struct zkc__fence {
  int64_t session; /* owns every node of the hold */
  int64_t token;   /* its fencing token */
  char *nodes;     /* its node, or a set's nodes joined with '\n' (no
                      ZooKeeper path holds one), oldest first; malloc */
} zkc__fence_t;

typedef struct zkc__hold_kind {
  int borrowed; /* a recipe's view: released through its recipe */
  /* NULL, or why the hold may not write (a read side's hold is shared: a
   * check of its node fences nothing). Fixed for obj's life. */
  const char *(*no_write)(const void *obj);
  /* The client its nodes live in (obj never NULL; never changes). */
  zkc_client_t *(*client)(const void *obj);
  /* Begins a call and fills f (its nodes the caller's to free with
   * zkc__fence_clear): a mutex's or a multi-lock's kind pins its holds
   * until leave; the others copy what f needs and pin nothing (leave
   * then only ends the call). ZKC_OK, ZKC_ENOTOWNER (nothing held now),
   * ZKC_ELOST (lost: only when `standing` is asked; a set whose locks'
   * nodes are in two sessions of one client), ZKC_EINVAL (a set the calls
   * cannot fence: its locks in two clients; a refusal message set) or
   * ZKC_ENOMEM. Nothing to leave unless ZKC_OK. */
  int (*enter)(void *obj, int standing, zkc__fence_t *f);
  /* How the hold entered as f stands now: ZKC_OK, ZKC_ELOST (lost, or a
   * later grant than f's), ZKC_ENOTOWNER. */
  int (*still)(void *obj, const zkc__fence_t *f);
  /* The hold entered as f found lost by its own call (a node gone, its
   * session over): marked lost; told as any loss, by the recipe. node:
   * the index in f->nodes of the node found gone, -1 for all of them. */
  void (*lost)(void *obj, const zkc__fence_t *f, int node);
  void (*leave)(void *obj);
  /* zkc_hold_is_held's answer: 1 held, not lost, not in doubt. */
  int (*is_held)(const void *obj);
  /* Whose loss paths tell the hold's losses (hold_notice.h): the recipe
   * object or async context; *grant 0 when its notice covers every grant
   * of it (a recipe's view), else the token of its one grant. */
  const void *(*scope)(const void *obj, int64_t *grant);
} zkc__hold_kind_t;

/* The scope of a recipe's view whose notice covers every grant of its
 * object (a mutex's, a multi-lock lock's, a leader's every term). */
static inline const void *zkc__hold_scope_every_grant(const void *obj,
                                                      int64_t *grant) {
  *grant = 0;
  return obj;
}

/* Which kind a hold is: an index into hold.c's table, so that a recipe
 * names its view's kind without calling into it. */
typedef enum {
  ZKC__HOLD_ASYNC = 0, /* an async acquire's own (0: set by calloc) */
  ZKC__HOLD_MUTEX,
  ZKC__HOLD_MULTILOCK,
  ZKC__HOLD_LEADER, /* a latch's or a selector's term */
  ZKC__HOLD_LEASE,
  ZKC__HOLD_BOUND /* zkc_hold_bind's: one grant of another hold (hold.c) */
} zkc__hold_kind_id_t;

/* The first member of every hold, the async acquire's and each recipe's
 * view alike. */
typedef struct zkc__hold_head {
  zkc__hold_kind_id_t kind;
  void *obj; /* a view's recipe object */
} zkc__hold_head_t;

/* A recipe's view of obj, of `kind`, set once as obj is made (never
 * written again: any thread reads it). */
static inline void zkc__hold_view_init(zkc__hold_head_t *head,
                                       zkc__hold_kind_id_t kind, void *obj) {
  head->kind = kind;
  head->obj = obj;
}
/* The view as a public hold. */
#define ZKC__HOLD_OF(head) ((zkc_hold_t *)(head))

/* The kind and object of hold h (not NULL). */
const zkc__hold_kind_t *zkc__hold_kind_of(const zkc_hold_t *h, void **obj);

static inline void zkc__fence_clear(zkc__fence_t *f) {
  free(f->nodes);
  f->nodes = NULL;
}

/* An async acquire's own hold's release and free (async_hold.c), as
 * zkc_hold_release and zkc_hold_free say. */
int zkc__async_hold_release(zkc_async_t *a, zkc_hold_t *h,
                            zkc_released_fn done, void *ctx);
int zkc__async_hold_free(zkc_hold_t *h);

/* The kinds (async_hold.c, hold_mutex.c, multilock.c, hold_candidate.c,
 * hold_lease.c). */
extern const zkc__hold_kind_t zkc__async_hold_kind;
extern const zkc__hold_kind_t zkc__mutex_hold_kind;
extern const zkc__hold_kind_t zkc__multilock_hold_kind;
extern const zkc__hold_kind_t zkc__candidate_hold_kind;
extern const zkc__hold_kind_t zkc__lease_hold_kind;


/* ---- hold_set_tie.c: a multi-lock's set granted, tied to its locks ---- */
typedef struct zkc__set_tie zkc__set_tie_t;
/* Ties the calling thread's holds of locks[0..n) (just granted as one
 * set) to the set: the first of them lost tells scope's notices, once,
 * with the set's token. *out the caller's (zkc__set_untie). ZKC_OK,
 * ZKC_ELOST (a lock lost already: take the set again), ZKC_ENOMEM. */
int zkc__set_tie(const void *scope, zkc_mutex_t *const *locks, size_t n,
                 zkc__set_tie_t **out);
/* Unties and frees t (NULL: nothing): never told after this returns. */
void zkc__set_untie(zkc__set_tie_t *t);
/* t's link in its multi-lock's list, and whether the calling thread holds
 * its set. */
zkc__set_tie_t **zkc__set_tie_next(zkc__set_tie_t *t);
int zkc__set_tie_mine(const zkc__set_tie_t *t);

/* ---- fenced.c: the fenced calls of every hold; fn names the public call
 * in a refusal. ---- */
/* A read of `path` in the hold's own session, behind a sync, kept only if
 * the hold still stands after it (zkc_hold_fenced_get's codes). */
int zkc__hold_get(zkc_hold_t *h, const char *fn, const char *path,
                  char **data, size_t *len, int32_t *version);
/* Expected data version for a write: -1 any, ZKC__FENCED_CREATE a create. */
#define ZKC__FENCED_CREATE INT32_MIN
/* A write of path in one transaction with a check of every node of the
 * hold: a set (version -1 any, or compared) or a create. */
int zkc__hold_write(zkc_hold_t *h, const char *fn, const char *path,
                    const void *data, size_t len, int32_t version,
                    int32_t *new_version);

#endif /* ZKC_HOLD_VIEW_H */
