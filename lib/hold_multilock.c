/* SPDX-License-Identifier: Apache-2.0 */
/* A multi-lock's hold kind (zkc_multilock_hold: the calling thread's holds
 * of every lock, one fence), for the calls on a hold. It sees the set's
 * locks (zkc__lock_set_t, mutex_hold.h), not the multi-lock, so the hold
 * stands on the mutexes' view, not on the multi-lock's acquire. */
#include <stdlib.h>
#include <string.h>

#include "hold_view.h"
#include "mutex_hold.h"
#include "mutex_sides.h"
#include "session.h"

static zkc_mutex_t *const *locks_of(const void *obj, size_t *n) {
  const zkc__lock_set_t *set = obj;
  *n = set->n;
  return set->locks;
}

static zkc_client_t *set_client(const void *obj) {
  size_t n;
  return zkc__mutex_client(locks_of(obj, &n)[0]);
}

/* A read side among the locks: the set is shared, not fenced. */
static const char *set_no_write(const void *obj) {
  size_t n;
  zkc_mutex_t *const *locks = locks_of(obj, &n);
  for (size_t i = 0; i < n; i++)
    if (zkc__mutex_side(locks[i]) == ZKC__SIDE_READ)
      return "a fenced write needs a multi-lock without a read side among "
             "its locks";
  return NULL;
}

static void set_leave_first(zkc_mutex_t *const *locks, size_t k) {
  for (size_t i = 0; i < k; i++) zkc__mutex_hold_leave(locks[i]);
}

/* Every lock's hold pinned, their nodes joined in the set's order; the
 * token is the newest node's. One transaction fences them all, so they
 * must share one session. */
static int set_enter(void *obj, int standing, zkc__fence_t *f) {
  size_t n;
  zkc_mutex_t *const *locks = locks_of(obj, &n);
  zkc_client_t *c = zkc__mutex_client(locks[0]);
  size_t pinned = 0, used = 0;
  int rc = ZKC_OK;
  f->nodes = NULL;
  while (pinned < n && rc == ZKC_OK) {
    int64_t session = 0, token = 0;
    char *node = NULL;
    rc = zkc__mutex_hold_pin(locks[pinned], standing, &session, &token, &node);
    if (rc != ZKC_OK) break;
    zkc_client_t *mine = zkc__mutex_client(locks[pinned]);
    pinned++;
    if (pinned > 1 && mine != c)
      rc = zkc__refuse(c, ZKC_EINVAL,
                       "a multi-lock's hold is fenced in one transaction: its "
                       "locks must share one client");
    else if (pinned > 1 && session != f->session)
      rc = ZKC_ELOST; /* one client, two sessions: the older one is over */
    size_t len = strlen(node);
    char *grown = rc == ZKC_OK ? realloc(f->nodes, used + len + 2) : NULL;
    if (rc == ZKC_OK && grown == NULL) rc = ZKC_ENOMEM;
    if (rc == ZKC_OK) {
      f->nodes = grown;
      if (used) f->nodes[used++] = '\n';
      memcpy(f->nodes + used, node, len + 1);
      used += len;
      f->session = session;
      if (pinned == 1 || token > f->token) f->token = token;
    }
    free(node);
  }
  if (rc != ZKC_OK) {
    set_leave_first(locks, pinned);
    zkc__fence_clear(f);
  }
  return rc;
}

static int set_still(void *obj, const zkc__fence_t *f) {
  (void)f;
  size_t n;
  zkc_mutex_t *const *locks = locks_of(obj, &n);
  int rc = ZKC_OK;
  for (size_t i = 0; i < n && rc == ZKC_OK; i++)
    rc = zkc__mutex_hold_check(locks[i]);
  return rc;
}

/* Only the lock whose node is gone is marked lost (the set is not held
 * then): the others still hold their nodes, which the set's release
 * deletes; lost with the session (node -1), every lock is. */
static void set_lost(void *obj, const zkc__fence_t *f, int node) {
  (void)f;
  size_t n;
  zkc_mutex_t *const *locks = locks_of(obj, &n);
  for (size_t i = 0; i < n; i++)
    if (node < 0 || (size_t)node == i)
      zkc__mutex_found_lost(locks[i], node < 0 ? ZKC_LOST_SESSION
                                                       : ZKC_LOST_DELETED);
}

static void set_leave(void *obj) {
  size_t n;
  zkc_mutex_t *const *locks = locks_of(obj, &n);
  set_leave_first(locks, n);
}

static int set_is_held(const void *obj) {
  size_t n;
  zkc_mutex_t *const *locks = locks_of(obj, &n);
  for (size_t i = 0; i < n; i++)
    if (!zkc__mutex_is_held(locks[i])) return 0;
  return 1;
}

const zkc__hold_kind_t zkc__multilock_hold_kind = {
    .borrowed = 1,
    .no_write = set_no_write,
    .client = set_client,
    .enter = set_enter,
    .still = set_still,
    .lost = set_lost,
    .leave = set_leave,
    .is_held = set_is_held,
    /* every set granted: its locks' losses are tied to it (below) */
    .scope = zkc__hold_scope_every_grant,
};
