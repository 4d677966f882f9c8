/* SPDX-License-Identifier: Apache-2.0 */
/* A multi-lock's set granted, tied to its locks' grants so that the set's
 * loss notice is told when any of them is lost (hold_view.h). */
#include <stdatomic.h>
#include <stdlib.h>

#include "hold_notice.h"
#include "hold_view.h"
#include "mutex_hold.h"
#include "util.h"

/* The set granted is tied to each lock's grant by a one-grant notice on
 * that lock (hold_notice.h), which tells the set's scope, with the set's
 * token, once, whichever lock is lost first. No loss path of its own: the
 * locks' (their watches, states, own calls) tell it. */
struct zkc__set_tie {
  const void *scope; /* the multi-lock */
  int64_t token;     /* the set's: its newest node's */
  uint64_t thread;   /* its holder */
  atomic_int told;   /* the set's loss told: once per grant */
  size_t n;
  zkc__set_tie_t *next; /* the multi-lock's list */
  int64_t tokens[];     /* lock i's grant; &tokens[i] keys its notice */
};

static void tie_tell(void *ctx, zkc_lost_reason_t why, int64_t token) {
  (void)token; /* the lock's; the set is told its own */
  zkc__set_tie_t *t = ctx;
  if (!atomic_exchange(&t->told, 1))
    zkc__hold_notice_tell(t->scope, why, t->token);
}

void zkc__set_untie(zkc__set_tie_t *t) {
  if (t == NULL) return;
  for (size_t i = 0; i < t->n; i++) zkc__hold_notice_drop(&t->tokens[i]);
  free(t);
}

int zkc__set_tie(const void *scope, zkc_mutex_t *const *locks, size_t n,
                 zkc__set_tie_t **out) {
  *out = NULL;
  zkc__set_tie_t *t = calloc(1, sizeof *t + n * sizeof *t->tokens);
  if (t == NULL) return ZKC_ENOMEM;
  t->scope = scope;
  t->thread = zkc__thread_id();
  int64_t *tokens = t->tokens;
  int rc = ZKC_OK;
  for (size_t i = 0; i < n && rc == ZKC_OK; i++) {
    int64_t session;
    rc = zkc__mutex_hold_pin(locks[i], 1, &session, &tokens[i], NULL);
    if (rc != ZKC_OK) break;
    zkc__mutex_hold_leave(locks[i]);
    if (i == 0 || tokens[i] > t->token) t->token = tokens[i];
  }
  /* Tied first, then checked: a lock lost before the check is refused
   * here (take the set again), one lost after it is told through its tie. */
  for (size_t i = 0; i < n && rc == ZKC_OK; i++, t->n++)
    rc = zkc__hold_notice_set(&tokens[i], locks[i], tokens[i], tie_tell, t);
  for (size_t i = 0; i < n && rc == ZKC_OK; i++)
    if (zkc__mutex_hold_check(locks[i]) != ZKC_OK) rc = ZKC_ELOST;
  if (rc == ZKC_ENOTOWNER) rc = ZKC_ELOST;
  if (rc != ZKC_OK) {
    zkc__set_untie(t);
    return rc;
  }
  *out = t;
  return ZKC_OK;
}

zkc__set_tie_t **zkc__set_tie_next(zkc__set_tie_t *t) { return &t->next; }

int zkc__set_tie_mine(const zkc__set_tie_t *t) {
  return t->thread == zkc__thread_id();
}
