/* SPDX-License-Identifier: Apache-2.0 */
/* State listeners (the user's) and observers (the recipes'), and telling
 * them of a new state on the maintenance thread. */

#include <stdlib.h>

#include "session.h"
#include "client_struct.h"
#include "stats.h"
#include "session_shared.h"
#include "zkcoord/common.h"

static int listener_add(zkc_client_t *c, zkc_state_fn fn, zkc__observer_fn obs,
                        void *ctx) {
  zkc__listener_t *l = calloc(1, sizeof *l);
  if (l == NULL) return ZKC_ENOMEM;
  l->fn = fn, l->observer = obs, l->ctx = ctx;
  int rc = ZKC_OK;
  pthread_mutex_lock(&c->mu);
  for (zkc__listener_t *x = c->listeners; x; x = x->next)
    if (x->fn == fn && x->observer == obs && x->ctx == ctx) rc = ZKC_EINVAL;
  if (c->closed) rc = ZKC_ECLOSED;
  if (rc == ZKC_OK) { /* appended: called in registration order */
    zkc__listener_t **pp = &c->listeners;
    while (*pp) pp = &(*pp)->next;
    *pp = l;
  }
  pthread_mutex_unlock(&c->mu);
  if (rc != ZKC_OK) free(l);
  return rc;
}

static int listener_remove(zkc_client_t *c, zkc_state_fn fn,
                           zkc__observer_fn obs, void *ctx, int strict) {
  zkc__listener_t *found = NULL;
  pthread_mutex_lock(&c->mu);
  int self = zkc__on_maint_thread_locked(c);
  if (strict && self && c->dispatching) {
    pthread_mutex_unlock(&c->mu);
    return ZKC_EDEADLK;
  }
  for (zkc__listener_t **pp = &c->listeners; *pp; pp = &(*pp)->next) {
    zkc__listener_t *x = *pp;
    if (x->fn == fn && x->observer == obs && x->ctx == ctx) {
      *pp = x->next;
      found = x;
      break;
    }
  }
  /* After this returns the callback must not run any more: wait out a
   * dispatch in progress (it works on a copy of the list). */
  while (found && !self && c->dispatching)
    pthread_cond_wait(&c->state_cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  free(found);
  return found ? ZKC_OK : ZKC_EINVAL;
}

static int client_add_listener_impl(zkc_client_t *c, zkc_state_fn fn,
                                    void *ctx) {
  int rc_ = zkc__refuse_null(c, "zkc_client_add_listener", "client", c == NULL,
                             "fn", fn == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  int rc = listener_add(c, fn, NULL, ctx);
  if (rc == ZKC_EINVAL)
    zkc__refuse(c, rc,
                "zkc_client_add_listener: this fn and ctx are "
                "registered already");
  return rc;
}

int zkc_client_add_listener(zkc_client_t *c, zkc_state_fn fn, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_add_listener_impl(c, fn, ctx));
}

static int client_remove_listener_impl(zkc_client_t *c, zkc_state_fn fn,
                                       void *ctx) {
  int rc_ = zkc__refuse_null(c, "zkc_client_remove_listener", "client",
                             c == NULL, "fn", fn == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  int rc = listener_remove(c, fn, NULL, ctx, 0);
  if (rc == ZKC_EINVAL)
    zkc__refuse(c, rc,
                "zkc_client_remove_listener: this fn and ctx are not "
                "registered");
  return rc;
}

int zkc_client_remove_listener(zkc_client_t *c, zkc_state_fn fn, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_remove_listener_impl(c, fn, ctx));
}

int zkc__observer_add(zkc_client_t *c, zkc__observer_fn fn, void *ctx) {
  return listener_add(c, NULL, fn, ctx);
}

int zkc__observer_remove(zkc_client_t *c, zkc__observer_fn fn, void *ctx) {
  return listener_remove(c, NULL, fn, ctx, 1);
}

void zkc__listeners_dispatch_locked(zkc_client_t *c, zkc_state_t st,
                                    int64_t lost_session) {
  size_t n = 0;
  for (zkc__listener_t *x = c->listeners; x; x = x->next) n++;
  zkc__listener_t *copy = n ? calloc(n, sizeof *copy) : NULL;
  if (n && copy == NULL) return; /* out of memory: the state still shows */
  size_t i = 0;
  for (zkc__listener_t *x = c->listeners; x; x = x->next) copy[i++] = *x;
  c->dispatching = 1;
  int64_t session = c->session_id;
  pthread_mutex_unlock(&c->mu);
  /* The user's log sink never runs under a library lock. */
  zkc__log(c, st == ZKC_STATE_LOST ? ZKC_LOG_WARN : ZKC_LOG_INFO,
           "session 0x%llx %s", (unsigned long long)session,
           zkc_state_name(st));
  for (i = 0; i < n; i++)
    if (copy[i].observer) copy[i].observer(copy[i].ctx, st, lost_session);
  for (i = 0; i < n; i++)
    if (copy[i].fn) copy[i].fn(copy[i].ctx, c, st);
  free(copy);
  zkc__stats_state_tell(&c->stats, st);
  pthread_mutex_lock(&c->mu);
  c->dispatching = 0;
  pthread_cond_broadcast(&c->state_cv);
}

void zkc__listeners_free(zkc_client_t *c) {
  while (c->listeners) {
    zkc__listener_t *x = c->listeners;
    c->listeners = x->next;
    free(x);
  }
}
