/* SPDX-License-Identifier: Apache-2.0 */
/* The counting semaphore in Curator's InterProcessSemaphoreV2 layout: a
 * queue mutex under <path>/locks, lease nodes under <path>/leases. The head
 * of the queue creates all the lease nodes it asks for, then waits (alone
 * watching <path>/leases and the shared count) until they fit the limit.
 * Here: the object and its losses; the blocking acquire is in
 * sem_acquire.c, the lease handles in sem_lease.c, the shared count in
 * sem_count.c. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hold_fate.h"
#include "hold_notice.h"
#include "names.h"
#include "sem.h"
#include "session.h"
#include "unsized.h"
#include "util.h"

void zkc__sem_opts_defaults(zkc_sem_opts_t *o) {
  if (o == NULL) return;
  memset(o, 0, sizeof *o);
  o->max_leases = 1;
}

/* ---- lost leases ---- */

/* The user's lost callback for one lease of s (hold_fate.h's teller). */
typedef struct {
  zkc_sem_t *s;
  zkc_sem_lost_fn fn;
  void *ctx;
} teller_t;

static void tell_one(void *ctx, zkc_lost_reason_t why, int64_t token) {
  teller_t *t = ctx;
  zkc__hold_notice_tell(t->s, why, token); /* the lease's one notice */
  if (t->fn) t->fn(t->ctx, t->s, why, token);
}

static void lost_tell(zkc_sem_t *s, zkc_sem_lost_fn fn, void *ctx,
                      zkc_lost_reason_t why, zkc__lost_list_t *l) {
  teller_t t = {s, fn, ctx};
  zkc__lost_tell(s->client, s->st, "lease on", s->path, why, l, tell_one, &t);
}

/* Hands l's nodes that may still exist to whichever session is current
 * next. */
static void leave_to_janitor(zkc_sem_t *s, zkc_lease_t *l) {
  for (size_t i = 0; i < l->n; i++)
    zkc__janitor_add(s->client, l->nodes[i].node, NULL);
}

static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_sem_t *s = ctx;
  zkc__lost_list_t lost = {0};
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  int on_suspend = zkc__client_facts(s->client).lost_on_suspended;
  pthread_mutex_lock(&s->mu);
  for (zkc_lease_t *l = s->held; l; l = l->next)
    if (!l->owned && zkc__hold_rec_on_state(&l->rec, st, lost_session,
                                            on_suspend, &lost, &why))
      leave_to_janitor(s, l);
  /* Leases released in doubt: a loss learnt only now is told all the same. */
  zkc__released_on_state(&s->released, st, lost_session, on_suspend, &lost,
                         &why);
  zkc_sem_lost_fn fn = s->lost_fn;
  void *fn_ctx = s->lost_ctx;
  pthread_mutex_unlock(&s->mu);
  lost_tell(s, fn, fn_ctx, why, &lost);
}

void zkc__sem_on_node_gone(void *ctx, uint64_t guard) {
  zkc_sem_t *s = ctx;
  zkc__lost_list_t lost = {0};
  pthread_mutex_lock(&s->mu);
  for (zkc_lease_t *l = s->held; l; l = l->next)
    for (size_t i = 0; !l->owned && i < l->n; i++)
      if (l->guards[i] == guard) zkc__hold_rec_lose(&l->rec, &lost);
  zkc_sem_lost_fn fn = s->lost_fn;
  void *fn_ctx = s->lost_ctx;
  pthread_mutex_unlock(&s->mu);
  lost_tell(s, fn, fn_ctx, ZKC_LOST_DELETED, &lost);
}

/* The lease set's own call found it lost first: told as its watch would. */
void zkc__sem_lease_found_lost(zkc_lease_t *l, zkc_lost_reason_t why) {
  zkc_sem_t *s = l->sem;
  zkc__lost_list_t lost = {0};
  pthread_mutex_lock(&s->mu);
  zkc__hold_rec_lose(&l->rec, &lost);
  zkc_sem_lost_fn fn = s->lost_fn;
  void *fn_ctx = s->lost_ctx;
  pthread_mutex_unlock(&s->mu);
  lost_tell(s, fn, fn_ctx, why, &lost);
}

/* ---- the semaphore object ---- */

static void sem_free(zkc_sem_t *s) {
  free(s->path);
  free(s->locks);
  free(s->leases);
  free(s->count_path);
  free(s);
}

static int sem_create_impl(zkc_sem_t **out, zkc_client_t *client,
                           const char *path, const zkc_sem_opts_t *opts) {
  if (out != NULL) *out = NULL;
  zkc_sem_opts_t def;
  zkc__sem_opts_defaults(&def);
  if (opts == NULL) opts = &def;
  int rc0 = zkc__refuse_null(client, "zkc_sem_create", "out", out == NULL,
                             "client", client == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(client, "zkc_sem_create", "semaphore path", path);
  if (rc0 == ZKC_OK)
    rc0 = ZKC__REFUSE_IF(client, opts->max_leases < 1, "zkc_sem_create",
                         "max_leases %d is below 1", opts->max_leases);
  if (rc0 == ZKC_OK && opts->count_path)
    rc0 = zkc__check_path(client, "zkc_sem_create", "count_path",
                          opts->count_path);
  if (rc0 != ZKC_OK) return rc0;
  zkc_sem_t *s = calloc(1, sizeof *s);
  if (s == NULL) return ZKC_ENOMEM;
  s->max = opts->max_leases;
  s->path = strdup(path);
  s->locks = zkc__path_join(path, "locks");
  s->leases = zkc__path_join(path, "leases");
  if (opts->count_path) s->count_path = strdup(opts->count_path);
  if (!s->path || !s->locks || !s->leases ||
      (opts->count_path && !s->count_path) ||
      pthread_mutex_init(&s->mu, NULL) != 0) {
    sem_free(s);
    return ZKC_ENOMEM;
  }
  /* Set before on_state can run (see zkc__mutex_new). */
  s->client = client;
  s->st = zkc__stats_for(zkc__client_facts(client).stats, ZKC_RECIPE_SEMAPHORE,
                         path);
  int rc = zkc__recipe_attach(client, on_state, s);
  if (rc != ZKC_OK) {
    pthread_mutex_destroy(&s->mu);
    sem_free(s);
    return rc;
  }
  *out = s;
  return ZKC_OK;
}

int zkc__sem_create(zkc_sem_t **out, zkc_client_t *client, const char *path,
                    const zkc_sem_opts_t *opts) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave("zkc_sem_create", mark,
                           sem_create_impl(out, client, path, opts));
}

static int sem_destroy_impl(zkc_sem_t *s) {
  if (s == NULL) return ZKC_OK;
  pthread_mutex_lock(&s->mu);
  int busy = s->held != NULL || s->users > 0;
  pthread_mutex_unlock(&s->mu);
  if (busy) return ZKC_EBUSY;
  int rc = zkc__recipe_detach(s->client, on_state, s);
  if (rc != ZKC_OK) return rc;
  zkc__released_clear(&s->released); /* no callback after destroy */
  zkc__hold_notice_forget(s);
  pthread_mutex_destroy(&s->mu);
  sem_free(s);
  return ZKC_OK;
}

int zkc_sem_destroy(zkc_sem_t *s) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, sem_destroy_impl(s));
}

static int sem_set_lost_callback_impl(zkc_sem_t *s, zkc_sem_lost_fn fn,
                                      void *ctx) {
  if (s == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_sem_set_lost_callback: sem is NULL");
  pthread_mutex_lock(&s->mu);
  s->lost_fn = fn;
  s->lost_ctx = ctx;
  pthread_mutex_unlock(&s->mu);
  return ZKC_OK;
}

int zkc_sem_set_lost_callback(zkc_sem_t *s, zkc_sem_lost_fn fn, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           sem_set_lost_callback_impl(s, fn, ctx));
}

const char *zkc_sem_path(const zkc_sem_t *s) { return s ? s->path : NULL; }

static int sem_stats_impl(const zkc_sem_t *s, zkc_lock_stats_t *out) {
  if (s == NULL || out == NULL)
    return zkc__refuse(s ? s->client : NULL, ZKC_EINVAL,
                       "zkc_sem_stats: %s is NULL", s ? "out" : "sem");
  return zkc__stats_copy(s->st, out);
}

int zkc_sem_stats(const zkc_sem_t *s, zkc_lock_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, sem_stats_impl(s, out));
}

/* l is one of s's held leases, counted (s->mu held). */
static void list_locked(zkc_sem_t *s, zkc_lease_t *l) {
  l->sem = s;
  l->next = s->held;
  if (s->held) s->held->prev = l;
  s->held = l;
  s->held_nodes += l->n;
}

void zkc__sem_unlist_locked(zkc_sem_t *s, zkc_lease_t *l) {
  if (l->prev) l->prev->next = l->next;
  else s->held = l->next;
  if (l->next) l->next->prev = l->prev;
  l->prev = l->next = NULL;
  s->held_nodes -= l->n;
}

void zkc__sem_grant_owned(zkc_sem_t *s, zkc_lease_t *l) {
  pthread_mutex_lock(&s->mu);
  l->owned = 1;
  list_locked(s, l);
  pthread_mutex_unlock(&s->mu);
}

void zkc__sem_ungrant(zkc_sem_t *s, zkc_lease_t *l) {
  pthread_mutex_lock(&s->mu);
  zkc__sem_unlist_locked(s, l);
  pthread_mutex_unlock(&s->mu);
}

/* Records a granted lease (s->mu held): guards its nodes. ZKC_ELOST when
 * its session is gone already (or in doubt, when that counts as lost). */
static int record(zkc_sem_t *s, zkc_lease_t *l) {
  zkc_client_t *c = s->client;
  if (zkc__hold_rec_grant(&l->rec, c, l->nodes[l->n - 1].token,
                          l->nodes[0].session_id) == ZKC__HOLD_LOST)
    return ZKC_ELOST;
  for (size_t i = 0; i < l->n; i++)
    if (zkc__guard_add(c, l->nodes[i].node, l->nodes[i].session_id,
                       zkc__sem_on_node_gone, s, NULL,
                       &l->guards[i]) != ZKC_OK)
      zkc__log(c, ZKC_LOG_WARN, "out of memory: a lease of %s is unwatched",
               s->path);
  list_locked(s, l);
  return ZKC_OK;
}

int zkc__sem_grant(zkc_sem_t *s, zkc_lease_t *l) {
  pthread_mutex_lock(&s->mu);
  int rc = record(s, l);
  pthread_mutex_unlock(&s->mu);
  return rc;
}

int zkc__sem_qty_check(const zkc_sem_t *s, const char *fn, unsigned qty) {
  if (qty == 0) return zkc__refuse(s->client, ZKC_EINVAL, "%s: qty is 0", fn);
  if (s->count_path == NULL && qty > (unsigned)s->max)
    return zkc__refuse(s->client, ZKC_EINVAL,
                       "%s: qty %u is above the limit %d (max_leases)", fn,
                       qty, s->max);
  return ZKC_OK;
}

int zkc__sem_enter(zkc_sem_t *s, unsigned qty) {
  int rc = ZKC_OK;
  pthread_mutex_lock(&s->mu);
  if (s->count_path == NULL && s->held_nodes > 0 &&
      s->held_nodes + qty > (size_t)s->max)
    rc = ZKC_EDEADLK; /* this object's own leases stand in the way */
  else
    s->users++;
  pthread_mutex_unlock(&s->mu);
  return rc;
}

void zkc__sem_leave(zkc_sem_t *s) {
  pthread_mutex_lock(&s->mu);
  s->users--;
  pthread_mutex_unlock(&s->mu);
}
