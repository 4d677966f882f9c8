/* SPDX-License-Identifier: Apache-2.0 */
/* The async acquire's losses, told on the maintenance thread by the one
 * hold-fate rule (hold_fate.c): the client's state changes (holds
 * released in doubt included) and a hold's node deleted by another client.
 * Queued as callbacks (async_deliver.c). */
#include <stdlib.h>
#include <string.h>

#include "async_int.h"

#include "hold_fate.h"
#include "sem.h"
#include "session.h"

/* Queues the loss of the hold with `token`, for its notice and the
 * context's lost callback (either may be unset); 0 when it could not be
 * (out of memory: untold). */
static int tell_token_locked(zkc_async_t *a, zkc_lost_reason_t why,
                             int64_t token) {
  zkc__event_cb_t ev = {.kind = EV_LOST, .lost = a->opts.on_lost,
                        .ctx = a->opts.lost_ctx, .why = why, .token = token};
  return zkc__async_post_locked(a, &ev) == ZKC_OK;
}

/* Queues the lost callback of each hold named in l, then clears l: 0 when
 * one could not be (out of memory: untold; logged outside the lock). */
static int tell_list_locked(zkc_async_t *a, zkc_lost_reason_t why,
                            zkc__lost_list_t *l) {
  int all = !l->dropped;
  for (size_t i = 0; i < l->n; i++)
    if (!tell_token_locked(a, why, l->tokens[i])) all = 0;
  zkc__lost_clear(l);
  return all;
}

static void log_lost(zkc_async_t *a, int n, const char *why, int all) {
  if (n > 0)
    zkc__log(a->c, ZKC_LOG_WARN, "%d async hold(s) lost (%s)", n, why);
  if (!all)
    zkc__log(a->c, ZKC_LOG_ERROR, "out of memory: not every async hold "
                                  "lost (%s) was reported", why);
}

/* guard is the watch on h's node, or on one of a lease set's (a->mu held). */
static int watches(const zkc_hold_t *h, uint64_t guard) {
  if (h->lease == NULL) return h->guard == guard;
  for (size_t i = 0; i < h->lease->n; i++)
    if (h->lease->guards[i] == guard) return 1;
  return 0;
}

/* Hands each of a hold's nodes (a set's joined with '\n') to the janitor. */
static void janitor_nodes(zkc_client_t *c, char *nodes) {
  for (char *p = nodes, *nl; p; p = nl ? nl + 1 : NULL) {
    if ((nl = strchr(p, '\n')) != NULL) *nl = '\0';
    zkc__janitor_add(c, p, NULL);
  }
}

void zkc__async_on_node_gone(void *ctx, uint64_t guard) {
  zkc_async_t *a = ctx;
  zkc__lstats_t *st = NULL;
  zkc__lost_list_t lost = {0};
  pthread_mutex_lock(&a->mu);
  for (zkc_hold_t *h = a->holds; h; h = h->next)
    if (watches(h, guard) && zkc__hold_rec_lose(&h->rec, &lost)) st = h->st;
  int n = (int)lost.n, all = tell_list_locked(a, ZKC_LOST_DELETED, &lost);
  pthread_mutex_unlock(&a->mu);
  if (n > 0) zkc__stats_lost(st, ZKC_LOST_DELETED); /* one guard, one hold */
  log_lost(a, n, "node deleted", all);
}

/* As the mutex does: in doubt (suspended or read-only) counts as lost by the
 * client's policy, and a lost node that may still exist is deleted by
 * whichever session is current next, so the next waiter gets the lock. */
void zkc__async_on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_async_t *a = ctx;
  int on_suspend = zkc__client_facts(a->c).lost_on_suspended;
  /* What the losses leave to do after unlock: the janitor takes c->mu,
   * and the stats' hook never runs under a library lock. */
  struct gone {
    char *node;
    zkc__lstats_t *st;
    zkc_lost_reason_t why;
  } *gone = NULL;
  size_t n = 0;
  pthread_mutex_lock(&a->mu);
  a->state_seq++;
  zkc__lost_list_t lost = {0};
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  for (zkc_hold_t *h = a->holds; h; h = h->next) {
    if (!zkc__hold_rec_on_state(&h->rec, st, lost_session, on_suspend, &lost,
                                &why))
      continue;
    struct gone *more = realloc(gone, (n + 1) * sizeof *gone);
    if (more == NULL) continue; /* told, but neither counted nor deleted */
    gone = more;
    gone[n].node = h->held.node ? strdup(h->held.node) : NULL;
    gone[n].st = h->st;
    gone[n++].why = why;
  }
  int all = tell_list_locked(a, why, &lost);
  /* Holds released in doubt: a loss learnt only now is told all the same,
   * once (their nodes are the janitor's already). */
  zkc__lost_list_t late = {0};
  zkc_lost_reason_t late_why = ZKC_LOST_SESSION;
  zkc__released_on_state(&a->released, st, lost_session, on_suspend, &late,
                         &late_why);
  int late_n = (int)late.n, late_all = tell_list_locked(a, late_why, &late);
  int untold = 0;
  if (a->opts.on_state) { /* after the losses it explains */
    zkc__event_cb_t ev = {.kind = EV_STATE, .state_fn = a->opts.on_state,
                          .ctx = a->opts.state_ctx, .state = st};
    untold = zkc__async_post_locked(a, &ev) != ZKC_OK;
  }
  a->sweep = 1; /* pending acquires may go on (or must queue again) */
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
  if (untold) /* the log sink never runs under a library lock */
    zkc__log(a->c, ZKC_LOG_ERROR, "out of memory: a state change was not "
                                  "queued for the async context");
  for (size_t i = 0; i < n; i++) {
    zkc__stats_lost(gone[i].st, gone[i].why);
    if (gone[i].node) janitor_nodes(a->c, gone[i].node);
    free(gone[i].node);
  }
  free(gone);
  log_lost(a, (int)n, "session", all);
  log_lost(a, late_n, "session, after their release", late_all);
}
