/* SPDX-License-Identifier: Apache-2.0 */
/* One grant of any recipe, taken and let go the same way, for the tests of
 * the one hold type (test_hold.c) and their helper process
 * (hold_writer.c): a mutex, a read-write lock's write side, a multi-lock
 * of two locks, a lease set of two leases, a latch's or a selector's
 * leadership, an async acquire, an async lease set of two (of a semaphore
 * of two: exclusive); and the read holds: a read side's, a
 * downgrade's, an async read's (the async write's is exclusive). Public
 * API only. */
#ifndef ZKT_HOLD_SUBJECT_H
#define ZKT_HOLD_SUBJECT_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkcoord/zkcoord.h"

typedef struct subject {
  const char *recipe; /* mutex write multi lease latch selector async */
  zkc_client_t *c;
  zkc_mutex_t *m[2];
  zkc_rwlock_t *rw;
  zkc_mutex_t *side; /* the read-write lock's side that holds */
  zkc_multilock_t *ml;
  zkc_sem_t *sem;
  zkc_lease_t *lease;
  zkc_latch_t *latch;
  zkc_selector_t *sel;
  zkc_async_t *a;
  zkc_hold_t *own; /* the async acquire's */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int leading; /* the selector's turn runs */
  int done;    /* the async acquire was told (rc in `rc`) */
  int rc;
  int quit; /* the selector's turn is to end */
} subject_t;

static const char *const subject_recipes[] = {
    "mutex", "write", "multi", "lease", "latch", "selector", "async",
    "read", "downgrade", "async_read", "async_write", "async_lease"};

/* 1 for a grant that keeps every other holder out (may write fenced). */
static inline int subject_exclusive(const char *recipe) {
  return strcmp(recipe, "read") != 0 && strcmp(recipe, "downgrade") != 0 &&
         strcmp(recipe, "async_read") != 0;
}

/* The selector's turn: leads until told to quit or to stop. */
static void subject_turn(void *ctx, zkc_selector_t *sel) {
  subject_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  s->leading = 1;
  pthread_cond_broadcast(&s->cv);
  while (!s->quit && !zkc_selector_should_stop(sel)) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 10 * 1000000L; /* should_stop is asked, not told */
    if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&s->cv, &s->mu, &t);
  }
  s->leading = 0;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static void subject_acquired(void *ctx, int rc, zkc_hold_t *h) {
  subject_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  s->own = h;
  s->rc = rc;
  s->done = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* Waits until *flag is set, at most timeout_ms. */
static int subject_wait(subject_t *s, const int *flag, int64_t timeout_ms) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += (time_t)(timeout_ms / 1000);
  t.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&s->mu);
  int rc = 0;
  while (!*flag && rc == 0) rc = pthread_cond_timedwait(&s->cv, &s->mu, &t);
  int got = *flag;
  pthread_mutex_unlock(&s->mu);
  return got;
}

/* Takes the grant of `recipe` on `path` through client c within
 * timeout_ms: ZKC_OK, or the recipe's code (ZKC_ETIMEDOUT when a leader
 * did not lead in time). */
static int subject_take(subject_t *s, const char *recipe, zkc_client_t *c,
                        const char *path, int64_t timeout_ms) {
  memset(s, 0, sizeof *s);
  s->recipe = recipe;
  s->c = c;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  int rc;
  if (strcmp(recipe, "mutex") == 0) {
    rc = zkc_mutex_create(&s->m[0], c, path);
    if (rc == ZKC_OK) rc = zkc_mutex_acquire_timeout(s->m[0], timeout_ms);
  } else if (strcmp(recipe, "write") == 0 || strcmp(recipe, "read") == 0 ||
             strcmp(recipe, "downgrade") == 0) {
    rc = zkc_rwlock_create(&s->rw, c, path);
    zkc_mutex_t *w = rc == ZKC_OK ? zkc_rwlock_write_side(s->rw) : NULL;
    int down = strcmp(recipe, "downgrade") == 0;
    s->side = recipe[0] == 'w' ? w : zkc_rwlock_read_side(s->rw);
    if (rc == ZKC_OK && down) rc = zkc_mutex_acquire_timeout(w, timeout_ms);
    if (rc == ZKC_OK) rc = zkc_mutex_acquire_timeout(s->side, timeout_ms);
    if (rc == ZKC_OK && down) rc = zkc_mutex_release(w);
  } else if (strcmp(recipe, "multi") == 0) {
    char pa[1100], pb[1100];
    snprintf(pa, sizeof pa, "%s/a", path);
    snprintf(pb, sizeof pb, "%s/b", path);
    rc = zkc_mutex_create(&s->m[0], c, pa);
    if (rc == ZKC_OK) rc = zkc_mutex_create(&s->m[1], c, pb);
    if (rc == ZKC_OK) rc = zkc_multilock_create(&s->ml, s->m, 2);
    if (rc == ZKC_OK) rc = zkc_multilock_acquire_timeout(s->ml, timeout_ms);
  } else if (strcmp(recipe, "lease") == 0) {
    zkc_sem_opts_t o;
    zkc_sem_opts_init(&o);
    o.max_leases = 2;
    rc = zkc_sem_create(&s->sem, c, path, &o);
    if (rc == ZKC_OK) rc = zkc_sem_acquire(s->sem, 2, timeout_ms, &s->lease);
  } else if (strcmp(recipe, "latch") == 0) {
    rc = zkc_latch_create(&s->latch, c, path, "subject", NULL);
    if (rc == ZKC_OK) rc = zkc_latch_start(s->latch);
    if (rc == ZKC_OK) rc = zkc_latch_await(s->latch, timeout_ms);
  } else if (strcmp(recipe, "selector") == 0) {
    rc = zkc_selector_create(&s->sel, c, path, subject_turn, s, NULL);
    if (rc == ZKC_OK) rc = zkc_selector_start(s->sel);
    if (rc == ZKC_OK && !subject_wait(s, &s->leading, timeout_ms))
      rc = ZKC_ETIMEDOUT;
  } else {
    rc = zkc_async_create(&s->a, c, NULL);
    if (rc == ZKC_OK && strcmp(recipe, "async_lease") == 0) {
      zkc_sem_opts_t o;
      zkc_sem_opts_init(&o);
      o.max_leases = 2;
      rc = zkc_sem_create(&s->sem, c, path, &o);
    }
    if (rc == ZKC_OK && s->sem)
      rc = zkc_async_acquire_leases(s->a, s->sem, 2, timeout_ms,
                                    subject_acquired, s, NULL);
    else if (rc == ZKC_OK && strcmp(recipe, "async_read") == 0)
      rc = zkc_async_acquire_read(s->a, path, timeout_ms, subject_acquired, s,
                                  NULL);
    else if (rc == ZKC_OK && strcmp(recipe, "async_write") == 0)
      rc = zkc_async_acquire_write(s->a, path, timeout_ms, subject_acquired,
                                   s, NULL);
    else if (rc == ZKC_OK)
      rc = zkc_async_acquire(s->a, path, timeout_ms, subject_acquired, s, NULL);
    if (rc == ZKC_OK && !subject_wait(s, &s->done, timeout_ms + 10000))
      rc = ZKC_ETIMEDOUT;
    if (rc == ZKC_OK) rc = s->rc;
  }
  return rc;
}

/* A helper process's client: on `connect`, with a session of session_ms
 * (given as its argument's text). */
static inline int subject_client(zkc_client_t **c, const char *connect,
                                 const char *session_ms) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = atoi(session_ms);
  *c = NULL;
  return zkc_client_open(c, connect, &o);
}

/* The grant's hold: the recipe's view, or the async acquire's own. */
static zkc_hold_t *subject_hold(subject_t *s) {
  if (s->ml) return zkc_multilock_hold(s->ml);
  if (s->rw) return zkc_mutex_hold(s->side);
  if (s->m[0]) return zkc_mutex_hold(s->m[0]);
  if (s->lease) return zkc_lease_hold(s->lease);
  if (s->latch) return zkc_latch_hold(s->latch);
  if (s->sel) return zkc_selector_hold(s->sel);
  return s->own;
}

/* Lets go and frees everything (a lost grant's codes are not asked). */
static void subject_drop(subject_t *s) {
  if (s->ml) {
    (void)zkc_multilock_release(s->ml);
    zkc_multilock_destroy(s->ml);
  } else if (s->rw) {
    (void)zkc_mutex_release(s->side);
  } else if (s->m[0]) {
    (void)zkc_mutex_release(s->m[0]);
  }
  for (int i = 0; i < 2; i++) zkc_mutex_destroy(s->m[i]);
  zkc_rwlock_destroy(s->rw);
  zkc_lease_free(s->lease);
  if (s->own) zkc_hold_free(s->own); /* an async lease set's: uncounted */
  s->own = NULL;
  zkc_sem_destroy(s->sem);
  if (s->latch) {
    zkc_latch_close(s->latch, ZKC_CLOSE_SILENT);
    zkc_latch_destroy(s->latch);
  }
  if (s->sel) {
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    zkc_selector_close(s->sel);
    zkc_selector_destroy(s->sel);
  }
  if (s->own) zkc_hold_free(s->own);
  zkc_async_destroy(s->a);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  memset(s, 0, sizeof *s);
}

#endif /* ZKT_HOLD_SUBJECT_H */
