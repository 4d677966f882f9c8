/* SPDX-License-Identifier: Apache-2.0 */
/* A leader's term as a hold (zkc_latch_hold, zkc_selector_hold): its node
 * while it leads. A call entered in one term stands only while that term
 * does: once leadership is lost, or a later term has begun, its read is
 * dropped and its write was fenced by the old node, which is gone. This is
 * what makes a leader that no longer leads harmless. */
#include <stdlib.h>
#include <string.h>

#include "candidate.h"
#include "hold_notice.h"
#include "hold_view.h"

static zkc_client_t *cand_client(const void *obj) {
  return ((const zkc__candidate_t *)obj)->client;
}

static int cand_enter(void *obj, int standing, zkc__fence_t *f) {
  zkc__candidate_t *cand = obj;
  pthread_mutex_lock(&cand->mu);
  int rc = !cand->has_node                             ? ZKC_ENOTOWNER
           : standing && atomic_load(&cand->rec.lost) ? ZKC_ELOST
                                                      : ZKC_OK;
  if (rc == ZKC_OK && (f->nodes = strdup(cand->held.node)) == NULL)
    rc = ZKC_ENOMEM;
  f->session = cand->rec.session;
  f->token = cand->rec.token;
  pthread_mutex_unlock(&cand->mu);
  return rc;
}

/* Still the term f was entered in, and leading. */
static int term_locked(const zkc__candidate_t *cand, const zkc__fence_t *f) {
  return cand->has_node && cand->rec.token == f->token;
}

static int cand_still(void *obj, const zkc__fence_t *f) {
  zkc__candidate_t *cand = obj;
  pthread_mutex_lock(&cand->mu);
  int rc = term_locked(cand, f) && !atomic_load(&cand->rec.lost) ? ZKC_OK
                                                                 : ZKC_ELOST;
  pthread_mutex_unlock(&cand->mu);
  return rc;
}

static void tell_notice(void *ctx, zkc_lost_reason_t why, int64_t token) {
  zkc__hold_notice_tell(ctx, why, token);
}

/* The term's own call found it lost first: named here and told as every
 * hold's own call tells it (the mutex's, a lease set's: zkc__lost_tell
 * logs it, counts it, tells its notice), as the node's watch or a state
 * change would, and the recipe's thread ends the term (not_leader,
 * should_stop). The watch or state that follows finds it named and tells
 * nothing. */
static void cand_lost(void *obj, const zkc__fence_t *f, int node) {
  zkc__candidate_t *cand = obj;
  zkc__lost_list_t named = {0};
  zkc_lost_reason_t why = node < 0 ? ZKC_LOST_SESSION : ZKC_LOST_DELETED;
  pthread_mutex_lock(&cand->mu);
  if (term_locked(cand, f)) {
    zkc__hold_rec_lose(&cand->rec, &named);
    pthread_cond_broadcast(&cand->cv); /* the thread sees the term end */
  }
  pthread_mutex_unlock(&cand->mu);
  zkc__lost_tell(cand->client, cand->st, cand->kind, cand->path, why, &named,
                 tell_notice, cand);
}

static void cand_leave(void *obj) { (void)obj; }

static int cand_is_held(const void *obj) {
  zkc__candidate_t *cand = (zkc__candidate_t *)obj;
  pthread_mutex_lock(&cand->mu);
  int held = cand->has_node && zkc__hold_rec_stands(&cand->rec, cand->client);
  pthread_mutex_unlock(&cand->mu);
  return held;
}

const zkc__hold_kind_t zkc__candidate_hold_kind = {
    .borrowed = 1,
    .no_write = NULL,
    .client = cand_client,
    .enter = cand_enter,
    .still = cand_still,
    .lost = cand_lost,
    .leave = cand_leave,
    .is_held = cand_is_held,
    /* every term: candidate.c tells each */
    .scope = zkc__hold_scope_every_grant,
};
