/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-lock: all or nothing over several locks, built on the public
 * mutex API alone. Unlike Curator's InterProcessMultiLock it sorts the
 * locks (no deadlock between overlapping sets), gives the whole set one
 * deadline (Curator gives each lock the full timeout) and stops at the
 * first failure (Curator goes on acquiring the rest before rolling back). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "confirm_run.h"
#include "hold_notice.h"
#include "hold_view.h"
#include "mutex_hold.h"
#include "mutex_sides.h"
#include "queue.h"
#include "session.h"
#include "stats.h"
#include "test_hooks.h"
#include "util.h"
#include "zkcoord/multilock.h"

struct zkc_multilock {
  size_t n;
  zkc_mutex_t **locks; /* canonical order: paths in byte order; never changes */
  pthread_mutex_t mu;  /* guards the counts below */
  size_t holds; /* acquires through this object not yet released */
  int users;    /* threads inside acquire or release */
  int64_t granted_us; /* when holds last went from 0 to 1 (stats) */
  zkc__lstats_t *st;  /* its stats record (NULL: out of memory) */
  zkc__lock_set_t set;   /* the locks, as its hold kind sees them */
  zkc__hold_head_t view; /* zkc_multilock_hold's */
  zkc__set_tie_t *ties;  /* each granted set's, till released cleanly */
};

zkc_hold_t *zkc_multilock_hold(zkc_multilock_t *ml) {
  return ml ? ZKC__HOLD_OF(&ml->view) : NULL;
}

static int by_path(const void *a, const void *b) {
  return strcmp(zkc_mutex_path(*(zkc_mutex_t *const *)a),
                zkc_mutex_path(*(zkc_mutex_t *const *)b));
}

/* The set's record, in its first lock's client, named by its paths in
 * order joined with ','. NULL when out of memory (nothing counted). */
static zkc__lstats_t *stats_record(const zkc_multilock_t *ml) {
  size_t len = 0;
  for (size_t i = 0; i < ml->n; i++)
    len += strlen(zkc_mutex_path(ml->locks[i])) + 1;
  char *paths = malloc(len);
  if (paths == NULL) return NULL;
  char *p = paths;
  for (size_t i = 0; i < ml->n; i++) {
    const char *one = zkc_mutex_path(ml->locks[i]);
    size_t n = strlen(one);
    if (i > 0) *p++ = ',';
    memcpy(p, one, n);
    p += n;
  }
  *p = '\0';
  zkc__lstats_t *st = zkc__stats_for(
      zkc__client_facts(zkc__mutex_client(ml->locks[0])).stats,
      ZKC_RECIPE_MULTILOCK, paths);
  free(paths);
  return st;
}

static int multilock_create_impl(zkc_multilock_t **out,
                                 zkc_mutex_t *const *locks, size_t n) {
  if (out != NULL) *out = NULL;
  int rc_ = zkc__refuse_null(NULL, "zkc_multilock_create", "out", out == NULL,
                             "locks", locks == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  if (n == 0)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_multilock_create: n is 0");
  for (size_t i = 0; i < n; i++)
    if (locks[i] == NULL)
      return zkc__refuse(NULL, ZKC_EINVAL,
                         "zkc_multilock_create: locks[%zu] "
                         "is NULL",
                         i);
  zkc_multilock_t *ml = calloc(1, sizeof *ml);
  if (ml == NULL || (ml->locks = malloc(n * sizeof *locks)) == NULL) {
    free(ml);
    return ZKC_ENOMEM;
  }
  memcpy(ml->locks, locks, n * sizeof *locks);
  ml->n = n;
  ml->set = (zkc__lock_set_t){ml->n, ml->locks};
  zkc__hold_view_init(&ml->view, ZKC__HOLD_MULTILOCK, &ml->set);
  qsort(ml->locks, n, sizeof *locks, by_path);
  /* Two entries on one path (the same lock, two objects on it, or both
   * sides of a read-write lock): the thread would queue behind itself. */
  int rc = ZKC_OK;
  for (size_t i = 1; i < n && rc == ZKC_OK; i++)
    if (by_path(&ml->locks[i - 1], &ml->locks[i]) == 0)
      rc = zkc__refuse(zkc__mutex_client(ml->locks[i]), ZKC_EINVAL,
                       "zkc_multilock_create: two locks on one path '%.300s' "
                       "(the thread would queue behind itself)",
                       zkc_mutex_path(ml->locks[i]));
  if (rc == ZKC_OK && pthread_mutex_init(&ml->mu, NULL) != 0) rc = ZKC_ENOMEM;
  if (rc == ZKC_OK) ml->st = stats_record(ml);
  if (rc != ZKC_OK) {
    free(ml->locks);
    free(ml);
    return rc;
  }
  *out = ml;
  return ZKC_OK;
}

int zkc_multilock_create(zkc_multilock_t **out, zkc_mutex_t *const *locks,
                         size_t n) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           multilock_create_impl(out, locks, n));
}

static int multilock_destroy_impl(zkc_multilock_t *ml) {
  if (ml == NULL) return ZKC_OK;
  pthread_mutex_lock(&ml->mu);
  int busy = ml->holds > 0 || ml->users > 0;
  pthread_mutex_unlock(&ml->mu);
  if (busy) return ZKC_EBUSY;
  /* No notice is told once destroyed: the ties first (they tell ml's). */
  while (ml->ties) {
    zkc__set_tie_t *t = ml->ties;
    ml->ties = *zkc__set_tie_next(t);
    zkc__set_untie(t);
  }
  zkc__hold_notice_forget(&ml->set);
  pthread_mutex_destroy(&ml->mu);
  free(ml->locks);
  free(ml);
  return ZKC_OK;
}

int zkc_multilock_destroy(zkc_multilock_t *ml) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, multilock_destroy_impl(ml));
}

static void enter(zkc_multilock_t *ml) {
  pthread_mutex_lock(&ml->mu);
  ml->users++;
  pthread_mutex_unlock(&ml->mu);
}

/* Ends a call; `held` is +1 after an acquire (granted at `at`), -1 after
 * a release. */
static void leave(zkc_multilock_t *ml, int held, int64_t at) {
  pthread_mutex_lock(&ml->mu);
  if (held > 0 && ml->holds++ == 0) ml->granted_us = at;
  /* A thread may release a set it took lock by lock: never below 0. */
  if (held < 0 && ml->holds > 0) ml->holds--;
  ml->users--;
  pthread_mutex_unlock(&ml->mu); /* the last touch of ml in a call */
}

/* 1 when the calling thread holds every lock of the set. */
static int owns_all(const zkc_multilock_t *ml) {
  for (size_t i = 0; i < ml->n; i++)
    if (!zkc_mutex_is_owned_by_current_thread(ml->locks[i])) return 0;
  return 1;
}

/* What is left of the set's deadline, for the next component. */
static int64_t remaining(int64_t deadline) {
  if (deadline == ZKC__FOREVER) return INT64_MAX;
  int64_t left = deadline - zkc__now_ms();
  return left > 0 ? left : 0;
}

/* Test seam (test_hooks.h): NULL in every program but the tests. */
void (*zkc__multilock_seam)(void);

/* The confirm run's parts (confirm_run.h): the set's locks, each pinned
 * (destroy refuses) from its round's send until the round is judged. */
static zkc_client_t *part_client(void *ctx, size_t i) {
  return zkc__mutex_client(((const zkc_multilock_t *)ctx)->locks[i]);
}

static int part_pin(void *ctx, size_t i, char **node, int64_t *session) {
  int rc = zkc__mutex_hold_enter(((zkc_multilock_t *)ctx)->locks[i], session,
                                 node);
  return rc == ZKC_ENOTOWNER ? ZKC_ELOST : rc;
}

static void part_unpin(void *ctx, size_t i) {
  zkc__mutex_hold_leave(((zkc_multilock_t *)ctx)->locks[i]);
}

static int part_stands(void *ctx, size_t i) {
  /* The seam comes between the round's answers and their judging. */
  if (i == 0 && zkc__multilock_seam) zkc__multilock_seam();
  return zkc__mutex_hold_check(((zkc_multilock_t *)ctx)->locks[i]) == ZKC_OK
             ? ZKC_OK
             : ZKC_ELOST;
}

static void part_lost(void *ctx, size_t i) {
  zkc__mutex_hold_lost(((zkc_multilock_t *)ctx)->locks[i]);
}

/* Rounds in a row found too old before the set is given back and taken
 * again: each took half a session timeout, so the holds are in doubt. */
#define STALE_ROUNDS 3

/* Every lock of the set was granted on a fresh proof, one after another,
 * but the set is held only once all are: by then an earlier one may be
 * gone (an outsider's delete, told to its holder only later), and a stall
 * of this process after any grant (a stop, a swap-in) may have outlived a
 * session, whose nodes the next in line then hold. So every node is read
 * again behind a sync, on its hold's session, by the confirm run
 * (confirm_run.h), whose proof counts only while fresh and every hold
 * stands, judged on this thread as the last step before the set is
 * reported held, and told as the engine's grants are. ZKC_OK; ZKC_ELOST:
 * take the set again; ZKC_ETIMEDOUT: the deadline passed; ZKC_ECLOSED, a
 * refusal of the server's, ZKC_ENOMEM. */
static int confirm_set(zkc_multilock_t *ml, int64_t deadline) {
  if (ml->n == 1) return ZKC_OK; /* granted on this thread, just now */
  const zkc__confirm_how_t how = {
      .n = ml->n, .tell = 1, .stale_max = STALE_ROUNDS, .deadline = deadline,
      .client = part_client, .pin = part_pin, .unpin = part_unpin,
      .stands = part_stands, .lost = part_lost, .ctx = ml};
  return zkc__confirm(&how, NULL, NULL, NULL);
}

/* The set just granted to the calling thread is tied to its locks, so
 * that the first of them lost tells the set's notices (hold_mutex.c).
 * ZKC_ELOST: a lock was lost before the tie held (take the set again). */
static int tie(zkc_multilock_t *ml) {
  zkc__set_tie_t *t;
  int rc = zkc__set_tie(&ml->set, ml->locks, ml->n, &t); /* the view's object */
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&ml->mu);
  *zkc__set_tie_next(t) = ml->ties;
  ml->ties = t;
  pthread_mutex_unlock(&ml->mu);
  return ZKC_OK;
}

/* The calling thread let its set go (its last release through ml, rc the
 * first failure): a clean release unties it, so nothing is told; one in
 * doubt keeps it till destroy, so that a loss learnt later is told. */
static void untie(zkc_multilock_t *ml, int rc) {
  if (rc != ZKC_OK || owns_all(ml)) return;
  zkc__set_tie_t *gone = NULL;
  pthread_mutex_lock(&ml->mu);
  for (zkc__set_tie_t **p = &ml->ties; *p; p = zkc__set_tie_next(*p))
    if (zkc__set_tie_mine(*p)) {
      gone = *p;
      *p = *zkc__set_tie_next(gone);
      break;
    }
  pthread_mutex_unlock(&ml->mu);
  zkc__set_untie(gone);
}

static int multilock_acquire_timeout_impl(zkc_multilock_t *ml,
                                          int64_t timeout_ms) {
  if (ml == NULL) /* timeout_ms < 0: no limit */
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_multilock_acquire_timeout: "
                       "multilock is NULL");
  /* Checked here too, so that nothing is taken and given back. */
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  /* A thread's reentrant acquire of the set is not counted (as the
   * mutex's are not): it holds every lock already. */
  int counted = !owns_all(ml);
  int64_t began = counted ? zkc__stats_begin(ml->st) : 0;
  enter(ml);
  int rc = ZKC_OK;
  for (;;) {
    size_t taken = 0;
    while (taken < ml->n && rc == ZKC_OK) {
      rc = zkc_mutex_acquire_timeout(ml->locks[taken], remaining(deadline));
      taken += rc == ZKC_OK;
    }
    int again = 0;
    /* The thread held every lock already (through the set, or one by
     * one): nothing was granted now, and a lock known lost answered
     * ZKC_ELOST above, as the mutex's reentry does. */
    if (rc == ZKC_OK && counted) {
      rc = confirm_set(ml, deadline);
      if (rc == ZKC_OK) rc = tie(ml);
      again = rc == ZKC_ELOST;
    }
    /* All or nothing: give back what was taken, newest first; its failures
     * are the components' own business (a lost hold is told there). Without
     * waiting for the deletes: the call keeps its deadline even when the
     * ensemble has gone silent, and the deletes finish in the background. */
    if (rc != ZKC_OK)
      while (taken > 0) zkc_mutex_release_nowait(ml->locks[--taken]);
    if (!again) break;
    rc = zkc__now_ms() < deadline || deadline == ZKC__FOREVER ? ZKC_OK
                                                              : ZKC_ETIMEDOUT;
    if (rc != ZKC_OK) break;
  }
  int64_t ended = counted ? zkc__stats_end(ml->st, began, rc, 0) : 0;
  leave(ml, rc == ZKC_OK, ended);
  return rc;
}

int zkc_multilock_acquire_timeout(zkc_multilock_t *ml, int64_t timeout_ms) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           multilock_acquire_timeout_impl(ml, timeout_ms));
}

static int timed_acquire(void *ml, int64_t timeout_ms) {
  return zkc_multilock_acquire_timeout(ml, timeout_ms);
}

int zkc_multilock_acquire(zkc_multilock_t *ml) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, zkc__untimed(__func__, "multilock",
                                                        ml, timed_acquire));
}

static int multilock_release_impl(zkc_multilock_t *ml) {
  if (ml == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_multilock_release: multilock is "
                       "NULL");
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  enter(ml);
  /* Only the thread holding every lock may release: otherwise some would
   * be released and others not, a half-held set. */
  if (!owns_all(ml)) {
    leave(ml, 0, 0);
    return ZKC_ENOTOWNER;
  }
  int first = ZKC_OK;
  for (size_t i = ml->n; i > 0; i--) { /* reverse order, past failures */
    int rc = zkc_mutex_release(ml->locks[i - 1]);
    if (first == ZKC_OK) first = rc;
  }
  /* A lock whose delete was refused stays held by the thread, as a lock of
   * its own (the header says so): the set is done with either way. */
  /* The set's hold ends with its last release (reentry aside); counted
   * before leave, the last touch of ml. */
  pthread_mutex_lock(&ml->mu);
  int ends = ml->holds == 1;
  int64_t granted = ml->granted_us;
  pthread_mutex_unlock(&ml->mu);
  if (ends) zkc__stats_released(ml->st, granted, first);
  untie(ml, first);
  leave(ml, -1, 0);
  return first;
}

int zkc_multilock_release(zkc_multilock_t *ml) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, multilock_release_impl(ml));
}

static int multilock_stats_impl(const zkc_multilock_t *ml,
                                zkc_lock_stats_t *out) {
  if (ml == NULL || out == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_multilock_stats: %s is NULL",
                       ml ? "out" : "multilock");
  return zkc__stats_copy(ml->st, out);
}

int zkc_multilock_stats(const zkc_multilock_t *ml, zkc_lock_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, multilock_stats_impl(ml, out));
}

