/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-lock: all or nothing over several locks, built on the public
 * mutex API alone. Unlike Curator's InterProcessMultiLock it sorts the
 * locks (no deadlock between overlapping sets), gives the whole set one
 * deadline (Curator gives each lock the full timeout) and stops at the
 * first failure (Curator goes on acquiring the rest before rolling back). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hold_view.h"
#include "mutex_hold.h"
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
  zkc__hold_head_t view; /* zkc_multilock_hold's */
};

zkc_mutex_t *const *zkc__multilock_locks(const zkc_multilock_t *ml,
                                         size_t *n) {
  *n = ml->n;
  return ml->locks;
}

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
      zkc__client_stats_hub(zkc__mutex_client(ml->locks[0])),
      ZKC_STATS_MULTILOCK, paths);
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
  zkc__hold_view_init(&ml->view, ZKC__HOLD_MULTILOCK, ml);
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

/* A node gone or a session over: the lock is lost. */
static int lost_as(int rc) {
  return rc == ZKC_ENONODE || rc == ZKC_ESESSIONEXPIRED ? ZKC_ELOST : rc;
}

/* One round of confirm_set: every lock's node read behind a sync, all sent
 * at once (one round trip however many locks), each through its own lock's
 * client and only on the session that owns the hold's node (a read through
 * a later session of the client would prove nothing about that one); every
 * answer collected (or given up at limit) whatever the first said. The
 * holds stay pinned (destroy refuses) until the round is judged:
 * sessions[i] is lock i's hold's session, or 0 when it was not pinned.
 * ZKC_OK when every node is there, on its hold's session; ZKC_ELOST when
 * one is gone, its hold lost or its session over; a retryable code when a
 * connection was lost (*failed its client); ZKC_ETIMEDOUT when one is
 * unanswered by limit; ZKC_ECLOSED, a refusal of the server's; ZKC_ENOMEM. */
static int confirm_round(const zkc_multilock_t *ml, int64_t limit,
                         int64_t *sessions, zkc_client_t **failed) {
  size_t n = ml->n;
  /* None pinned yet: an earlier round's pins were left already. */
  memset(sessions, 0, n * sizeof *sessions);
  /* Lock i's sync and read: p[2 * i], p[2 * i + 1]. */
  zkc__call_t *p = calloc(2 * n, sizeof *p);
  if (p == NULL) return ZKC_ENOMEM;
  int rc = ZKC_OK;
  size_t sent = 0;
  for (size_t i = 0; i < n && rc == ZKC_OK; i++) {
    zkc_mutex_t *m = ml->locks[i];
    char *node = NULL;
    if ((rc = zkc__mutex_hold_enter(m, &sessions[i], &node)) != ZKC_OK) {
      sessions[i] = 0;
      if (rc == ZKC_ENOTOWNER) rc = ZKC_ELOST;
    } else {
      p[2 * i].rq = (zkc__req_t){.kind = ZKC__REQ_SYNC, .path = node};
      p[2 * i + 1].rq = (zkc__req_t){.kind = ZKC__REQ_EXISTS_IN_SESSION,
                                     .path = node, .session = sessions[i]};
      if ((rc = zkc__call_send(zkc__mutex_client(m), &p[2 * i], 2)) == ZKC_OK)
        sent++;
    }
    free(node);
  }
  zkc__call_wait(p, 2 * sent, limit);
  for (size_t i = 0; i < sent; i++) {
    const zkc__call_t *sync = &p[2 * i], *rd = &p[2 * i + 1];
    int read = lost_as(rd->rc);
    /* The sync's "no node" is the read's to tell. */
    int synced = lost_as(sync->rc == ZKC_ENONODE ? ZKC_OK : sync->rc);
    if (read == ZKC_OK && rd->stat.ephemeral_owner != sessions[i])
      read = ZKC_ELOST; /* not the hold's node: cannot be, but proves nothing */
    /* Found lost: marked so at once (an outer reentrant hold of this
     * thread would otherwise stand until its guard tells). */
    if (read == ZKC_ELOST) zkc__mutex_hold_lost(ml->locks[i]);
    if (zkc__retryable(synced) || zkc__retryable(read))
      *failed = zkc__mutex_client(ml->locks[i]);
    int one = synced == ZKC_OK || read == ZKC_ELOST ? read : synced;
    /* A lost lock outranks the rest: the set is taken again. */
    if (one != ZKC_OK && (rc == ZKC_OK || one == ZKC_ELOST)) rc = one;
  }
  zkc__call_clear(p, 2 * sent);
  free(p);
  return rc;
}

/* 1 when a round sent at sent_boot_ms is still fresh for every client and
 * every hold still stands on its live session, as the client knows now. */
static int round_holds(const zkc_multilock_t *ml, int64_t sent_boot_ms,
                       const int64_t *sessions) {
  for (size_t i = 0; i < ml->n; i++) {
    zkc_client_t *c = zkc__mutex_client(ml->locks[i]);
    if (!zkc__grant_fresh(c, sent_boot_ms) ||
        zkc__session_fate(c, sessions[i]) != ZKC__SESSION_LIVE ||
        zkc__mutex_hold_check(ml->locks[i]) != ZKC_OK)
      return 0;
  }
  return 1;
}

/* Rounds in a row found too old before the set is given back and taken
 * again: each took half a session timeout, so the holds are in doubt. */
#define STALE_ROUNDS 3

/* Every lock of the set was granted on a fresh proof, one after another,
 * but the set is held only once all are: by then an earlier one may be
 * gone (an outsider's delete, told to its holder only later), and a stall
 * of this process after any grant (a stop, a swap-in) may have outlived a
 * session, whose nodes the next in line then hold. So every node is read
 * again behind a sync (through the leader: a server cut off from it would
 * answer from its frozen state), and the answers count only while that
 * round is fresh (zkc__grant_fresh) and every hold stands, judged on this
 * thread as the last step before the set is reported held. A round found
 * too old is sent again (STALE_ROUNDS times, then the set is taken again);
 * one whose connection was lost, after the retry policy's wait. ZKC_OK;
 * ZKC_ELOST: take the set again; ZKC_ETIMEDOUT: the deadline passed;
 * ZKC_ECLOSED, a refusal of the server's, ZKC_ENOMEM. */
static int confirm_set(const zkc_multilock_t *ml, int64_t deadline) {
  if (ml->n == 1) return ZKC_OK; /* granted on this thread, just now */
  int64_t *sessions = calloc(ml->n, sizeof *sessions);
  if (sessions == NULL) return ZKC_ENOMEM;
  int rc, stale = 0, attempt = 0;
  /* A round is a call sent in halves to several clients: retried as one. */
  const zkc__call_opts_t again = {.limit_ms = zkc__limit_after(deadline),
                                  .retry = ZKC__CALL_RETRY,
                                  .deadline_ms = deadline};
  for (;;) {
    int64_t sent = zkc__boot_ms();
    zkc_client_t *failed = NULL;
    rc = confirm_round(ml, again.limit_ms, sessions, &failed);
    if (zkc__multilock_seam) zkc__multilock_seam();
    int holds = rc == ZKC_OK && round_holds(ml, sent, sessions);
    for (size_t i = 0; i < ml->n; i++)
      if (sessions[i] != 0) zkc__mutex_hold_leave(ml->locks[i]);
    if (holds) { /* the set's grant: told as the engine's are */
      zkc__granted(zkc__mutex_client(ml->locks[0]));
      break;
    }
    if (rc == ZKC_OK) /* too old, or a hold lost since it was read */
      rc = ++stale < STALE_ROUNDS ? ZKC_OK : ZKC_ELOST;
    else if (zkc__retryable(rc) && failed != NULL)
      rc = zkc__call_again(failed, &again, &attempt, rc);
    if (rc != ZKC_OK) break;
    if (deadline != ZKC__FOREVER && zkc__now_ms() >= deadline) {
      rc = ZKC_ETIMEDOUT;
      break;
    }
  }
  free(sessions);
  return rc;
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

static int multilock_acquire_impl(zkc_multilock_t *ml) {
  if (ml == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_multilock_acquire: multilock is "
                       "NULL");
  return zkc_multilock_acquire_timeout(ml, INT64_MAX);
}

int zkc_multilock_acquire(zkc_multilock_t *ml) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, multilock_acquire_impl(ml));
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

int zkc_multilock_is_held(const zkc_multilock_t *ml) {
  if (ml == NULL) return 0;
  for (size_t i = 0; i < ml->n; i++)
    if (!zkc_mutex_is_held(ml->locks[i])) return 0;
  return 1;
}
