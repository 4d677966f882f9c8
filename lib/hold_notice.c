/* SPDX-License-Identifier: Apache-2.0 */
/* The table of loss notices (hold_notice.h). One lock for the process:
 * notices are set and told rarely, and a notice is called outside it. A
 * notice being called is pinned (calls); dropping it waits for the calls
 * of other threads, so that none runs after its hold or recipe is gone. */
#include <pthread.h>
#include <stdlib.h>

#include "hold_notice.h"

typedef struct notice {
  const void *key, *scope;
  int64_t grant;    /* 0: every grant of scope; else the one grant's token */
  zkc_hold_lost_fn fn;
  void *ctx;
  int64_t last;     /* the token told last: a grant is told once */
  int done;         /* a one-grant notice told: never again */
  int calls;        /* being called, on as many threads */
  int dead;         /* dropped: unlinked, freed by whoever lets go last */
  int waiters;      /* droppers waiting for the calls to end */
  struct notice *next;
} notice_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static notice_t *notices;
/* The notice this thread is calling: dropped from inside that call, it is
 * not waited for (the wait would never end). */
static _Thread_local const notice_t *calling;

static notice_t **find_locked(const void *key) {
  notice_t **p = &notices;
  while (*p && (*p)->key != key) p = &(*p)->next;
  return p;
}

/* Unlinks *p; frees it once no call holds it (waiting for other threads'
 * calls). Called with mu held. */
static void drop_locked(notice_t **p) {
  notice_t *n = *p;
  *p = n->next;
  n->dead = 1;
  int mine = calling == n;
  n->waiters++;
  while (n->calls > mine) pthread_cond_wait(&cv, &mu);
  n->waiters--;
  if (n->calls == 0 && n->waiters == 0) free(n);
}

int zkc__hold_notice_set(const void *key, const void *scope, int64_t grant,
                         zkc_hold_lost_fn fn, void *ctx) {
  pthread_mutex_lock(&mu);
  notice_t **p = find_locked(key);
  if (*p == NULL) {
    *p = calloc(1, sizeof **p);
    if (*p == NULL) {
      pthread_mutex_unlock(&mu);
      return ZKC_ENOMEM;
    }
    (*p)->key = key;
  }
  (*p)->scope = scope;
  (*p)->grant = grant;
  (*p)->fn = fn;
  (*p)->ctx = ctx;
  pthread_mutex_unlock(&mu);
  return ZKC_OK;
}

void zkc__hold_notice_drop(const void *key) {
  pthread_mutex_lock(&mu);
  notice_t **p = find_locked(key);
  if (*p) drop_locked(p);
  pthread_mutex_unlock(&mu);
}

int zkc__hold_notice_withdraw(const void *key) {
  pthread_mutex_lock(&mu);
  notice_t **p = find_locked(key);
  int drop = *p && !(*p)->done;
  if (drop) drop_locked(p);
  pthread_mutex_unlock(&mu);
  return drop;
}

void zkc__hold_notice_forget(const void *scope) {
  pthread_mutex_lock(&mu);
  notice_t **p = &notices;
  while (*p)
    if ((*p)->scope == scope)
      drop_locked(p);
    else
      p = &(*p)->next;
  pthread_mutex_unlock(&mu);
}

static int covers(const notice_t *n, const void *scope, int64_t token) {
  return n->scope == scope && !n->done && n->last != token &&
         (n->grant == 0 || n->grant == token);
}

void zkc__hold_notice_tell(const void *scope, zkc_lost_reason_t why,
                           int64_t token) {
  pthread_mutex_lock(&mu);
  /* From the head again after each call: the list may have changed, and a
   * notice told is marked so (last, done) and never matches again. */
  for (notice_t *n = notices; n;) {
    if (!covers(n, scope, token)) {
      n = n->next;
      continue;
    }
    n->last = token;
    n->done = n->grant != 0;
    n->calls++;
    zkc_hold_lost_fn fn = n->fn;
    void *ctx = n->ctx;
    const notice_t *outer = calling;
    calling = n;
    pthread_mutex_unlock(&mu);
    fn(ctx, why, token);
    pthread_mutex_lock(&mu);
    calling = outer;
    n->calls--;
    pthread_cond_broadcast(&cv);
    if (n->dead && n->calls == 0 && n->waiters == 0) free(n);
    n = notices;
  }
  pthread_mutex_unlock(&mu);
}
