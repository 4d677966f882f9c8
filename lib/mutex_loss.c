/* SPDX-License-Identifier: Apache-2.0 */
/* How a mutex's holds learn that the lock may be or is lost: the client's
 * states (in doubt while disconnected, lost with the session), a guard on
 * each hold's own node (deleted by someone else; the revocation marker),
 * and the user's lost callback, told once per hold. */
#include <stdlib.h>

#include "hold_fate.h"
#include "hold_notice.h"
#include "mutex_struct.h"

/* The notices of m's holds (hold_notice.h) and the user's lost callback,
 * for one hold of m (hold_fate.h's teller). */
typedef struct {
  zkc_mutex_t *m;
  zkc_lost_fn fn;
  void *ctx;
} teller_t;

static void tell_one(void *ctx, zkc_lost_reason_t why, int64_t token) {
  teller_t *t = ctx;
  zkc__hold_notice_tell(t->m, why, token); /* the hold's one notice */
  if (t->fn) t->fn(t->ctx, t->m, why, token);
}

/* Tells the user of each lost hold, outside m->mu. */
static void lost_tell(zkc_mutex_t *m, zkc_lost_fn fn, void *ctx,
                      zkc_lost_reason_t why, zkc__lost_list_t *l) {
  teller_t t = {m, fn, ctx};
  zkc__lost_tell(m->client, m->st, "lock", m->path, why, l, tell_one, &t);
}

/* Connection states reach every hold: in doubt while disconnected, lost
 * with the session (or already when disconnected, by the client's policy).
 * A lost node that may still exist is deleted by whichever session is
 * current next (its path is unique to this hold: deleting it can never
 * remove anyone else's node), so the next waiter gets the lock. */
void zkc__mutex_on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_mutex_t *m = ctx;
  zkc_client_t *c = m->client;
  zkc__lost_list_t lost = {0};
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  int lost_on_suspended = zkc__client_facts(c).lost_on_suspended;
  pthread_mutex_lock(&m->mu);
  hold_t *h, *tmp;
  HASH_ITER(hh, m->holds, h, tmp) {
    if (zkc__hold_rec_on_state(&h->rec, st, lost_session, lost_on_suspended,
                               &lost, &why))
      zkc__janitor_add(c, h->held.node, NULL);
  }
  /* Holds released in doubt: a loss learnt only now is told all the same. */
  zkc__released_on_state(&m->released, st, lost_session, lost_on_suspended,
                         &lost, &why);
  zkc_lost_fn fn = m->lost_fn;
  void *fn_ctx = m->lost_ctx;
  pthread_mutex_unlock(&m->mu);
  lost_tell(m, fn, fn_ctx, why, &lost);
}

/* Someone wrote the revocation marker into a revocable hold's node: told
 * with the callback the hold was granted with. */
static void on_revoked(void *ctx, uint64_t guard) {
  zkc_mutex_t *m = ctx;
  int64_t token = 0;
  zkc_revoke_fn fn = NULL;
  void *fn_ctx = NULL;
  pthread_mutex_lock(&m->mu);
  hold_t *h, *tmp;
  HASH_ITER(hh, m->holds, h, tmp) {
    if (h->guard == guard && !atomic_load(&h->rec.lost)) {
      token = h->held.token;
      fn = h->revoke_fn;
      fn_ctx = h->revoke_ctx;
    }
  }
  pthread_mutex_unlock(&m->mu);
  if (fn == NULL) return;
  zkc__log(m->client, ZKC_LOG_INFO, "lock %s: revocation requested, token %lld",
           m->path, (long long)token);
  fn(fn_ctx, m, token);
}

/* Our node was deleted while the session lived: the lock is gone. */
static void on_node_gone(void *ctx, uint64_t guard) {
  zkc_mutex_t *m = ctx;
  zkc__lost_list_t lost = {0};
  pthread_mutex_lock(&m->mu);
  hold_t *h, *tmp;
  HASH_ITER(hh, m->holds, h, tmp) {
    if (h->guard == guard) zkc__hold_rec_lose(&h->rec, &lost);
  }
  zkc_lost_fn fn = m->lost_fn;
  void *fn_ctx = m->lost_ctx;
  pthread_mutex_unlock(&m->mu);
  lost_tell(m, fn, fn_ctx, ZKC_LOST_DELETED, &lost);
}

/* Watches the hold's own node (see guard.c). Under m->mu, so that the guard
 * cannot fire before the hold carries its id. */
void zkc__mutex_guard_hold(zkc_mutex_t *m, hold_t *h, int32_t told) {
  const zkc__guard_revoke_t revoke = {on_revoked, told};
  int rc = zkc__guard_add(m->client, h->held.node, h->held.session_id,
                          on_node_gone, m, h->revoke_fn ? &revoke : NULL,
                          &h->guard);
  if (rc != ZKC_OK)
    zkc__log(m->client, ZKC_LOG_WARN, "out of memory: %s is held unwatched",
             m->path);
}

/* Records a granted hold, or returns ZKC__REQUEUE when it is gone already.
 * The session's fate is read under m->mu: a state dispatched before this
 * shows in it, one dispatched after finds the hold in the table. Caller
 * holds m->mu (which ranks above the client's lock). */
int zkc__mutex_record(zkc_mutex_t *m, hold_t *h) {
  zkc_client_t *c = m->client;
  if (zkc__hold_rec_grant(&h->rec, c, h->held.token, h->held.session_id) ==
      ZKC__HOLD_LOST)
    return ZKC__REQUEUE;
  if (!ZKC__HASH_ADD_U64(m->holds, thread, h)) return ZKC_ENOMEM;
  zkc__mutex_guard_hold(m, h, -1);
  return ZKC_OK;
}

/* The calling thread's own call found its hold lost first (its node gone,
 * its session over): named and told here, as the node's watch or the
 * state change would (logged, counted, each notice and the lost callback
 * told once); the watch or state that follows finds it named. */
void zkc__mutex_found_lost(zkc_mutex_t *m, zkc_lost_reason_t why) {
  zkc__lost_list_t lost = {0};
  pthread_mutex_lock(&m->mu);
  hold_t *h = zkc__mutex_my_hold(m);
  if (h != NULL) zkc__hold_rec_lose(&h->rec, &lost);
  zkc_lost_fn fn = m->lost_fn;
  void *fn_ctx = m->lost_ctx;
  pthread_mutex_unlock(&m->mu);
  lost_tell(m, fn, fn_ctx, why, &lost);
}
