/* SPDX-License-Identifier: Apache-2.0 */
/* The leader latch: a thread per latch queues a "latch-" node with the lock
 * internals; being first is leadership. A client observer drops leadership
 * when the session is lost (or the connection suspended, by policy) and the
 * thread then joins again. All user callbacks run on the latch's thread,
 * serialised by cb_mu, so is_leader and not_leader strictly alternate.
 *
 * Leadership as others see it (has_leadership, await, the token) begins
 * when is_leader is called, under cb_mu, and ends before not_leader is
 * called; the node is deleted only after not_leader returned (or, closing
 * silently, after no callback can run any more). So whoever sees a leader
 * knows is_leader is told, a silent close waits for it, and no successor
 * can lead while this latch's application may still believe it leads. */
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "candidate.h"
#include "hold_fate.h"
#include "hold_notice.h"
#include "names.h"
#include "queue.h"
#include "session.h"
#include "unsized.h"
#include "util.h"
#include "zkcoord/leader.h"

#define LATCH_NAME ZKC__LATCH_NAME

struct zkc_latch {
  /* Node, thread and connection; cand.mu guards the fields below up to
   * cb_off, cand.cb_mu is held while a callback runs. */
  zkc__candidate_t cand; /* leadership: a node held, its record not lost */
  int shown;          /* ... and is_leader is told: others see it */

  atomic_int cb_off;      /* no callback may start any more */
  int told;               /* 1 after is_leader, 0 after not_leader */
  zkc_latch_opts_t opts;
};

/* The latch whose callback the calling thread is running, if any: a
 * NOTIFY_LEADER close runs not_leader on the closing thread itself. */
static _Thread_local const zkc_latch_t *in_callback_of;

static int on_latch_thread(const zkc_latch_t *l) {
  return zkc__candidate_on_thread(&l->cand) || in_callback_of == l;
}

/* Has leadership now: its node held and not lost. Caller holds cand.mu. */
static int leader_locked(const zkc_latch_t *l) {
  return l->cand.has_node && !atomic_load(&l->cand.rec.lost);
}

zkc_hold_t *zkc_latch_hold(zkc_latch_t *l) {
  return l ? ZKC__HOLD_OF(&l->cand.view) : NULL;
}

/* Leadership taken away, the node not given up yet. Caller holds cand.mu. */
static int dropped_locked(const zkc_latch_t *l) {
  return l->cand.has_node && atomic_load(&l->cand.rec.lost);
}

/* Leadership as callers see it: from the call of is_leader on. Caller
 * holds l->cand.mu. */
static int shown_locked(const zkc_latch_t *l) {
  return leader_locked(l) && l->shown;
}

/* Tells the callbacks that leadership is now `leader`, once per change.
 * Leadership is shown to callers as is_leader is called, under cb_mu: one
 * that sees it and closes silently waits for is_leader to return, and one
 * the callback signals sees it at once. Leadership that the observer took
 * away before is not told at all. */
static void tell(zkc_latch_t *l, int leader) {
  pthread_mutex_lock(&l->cand.cb_mu);
  int go = !atomic_load(&l->cb_off) && l->told != leader;
  if (go && leader) {
    pthread_mutex_lock(&l->cand.mu);
    go = l->shown = leader_locked(l);
    pthread_cond_broadcast(&l->cand.cv); /* awaiters */
    pthread_mutex_unlock(&l->cand.mu);
  }
  if (go) {
    l->told = leader;
    zkc_latch_fn fn = leader ? l->opts.is_leader : l->opts.not_leader;
    in_callback_of = l;
    if (fn) fn(l->opts.ctx, l);
    in_callback_of = NULL;
  }
  pthread_mutex_unlock(&l->cand.cb_mu);
}

/* Leadership was taken away (when `drop`, its loss named now, for
 * `reason`): the latch thread tells not_leader and rejoins. Called with
 * cand.mu held; unlocks it, then logs and counts the loss and tells the
 * term's notice. */
static void drop_unlock(zkc_latch_t *l, int drop, zkc_lost_reason_t reason,
                        const char *why) {
  int64_t token = l->cand.rec.token;
  pthread_cond_broadcast(&l->cand.cv);
  pthread_mutex_unlock(&l->cand.mu);
  if (!drop) return;
  zkc__log(l->cand.client, ZKC_LOG_WARN, "latch %s: leadership lost (%s)",
           l->cand.path, why);
  zkc__stats_lost(l->cand.st, reason);
  zkc__hold_notice_tell(&l->cand, reason, token);
}

/* The election ended for good (rc): tell on_error once, as tell does. */
static void tell_error(zkc_latch_t *l, int rc) {
  pthread_mutex_lock(&l->cand.cb_mu);
  if (!atomic_load(&l->cb_off) && l->opts.on_error) {
    in_callback_of = l;
    l->opts.on_error(l->opts.ctx, l, rc);
    in_callback_of = NULL;
  }
  pthread_mutex_unlock(&l->cand.cb_mu);
}

/* Client observer (maintenance thread): tracks the connection and takes
 * leadership away at once; the latch thread then tells not_leader. */
static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_latch_t *l = ctx;
  int drop_on_suspend = /* at open */
      zkc__client_facts(l->cand.client).lost_on_suspended;
  pthread_mutex_lock(&l->cand.mu);
  zkc__candidate_note_state_locked(&l->cand, st, lost_session);
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  int drop = zkc__candidate_state_locked(&l->cand, st, lost_session,
                                         drop_on_suspend, &why);
  drop_unlock(l, drop, why, zkc_state_name(st));
}

/* Our node was deleted by another client while the session lived:
 * leadership is gone; the latch thread rejoins with a new node. */
static void on_node_gone(void *ctx, uint64_t guard) {
  zkc_latch_t *l = ctx;
  pthread_mutex_lock(&l->cand.mu);
  drop_unlock(l,
              l->cand.guard == guard && zkc__candidate_lose_locked(&l->cand),
              ZKC_LOST_DELETED, "node deleted by another client");
}

/* One turn: wait for a live connection, queue, lead until leadership is
 * lost. Returns 0 when the thread must stop. */
static int one_turn(void *arg) {
  zkc_latch_t *l = arg;
  zkc_client_t *c = l->cand.client;
  zkc__held_t held = {0};
  uint64_t gen0;
  int rc = zkc__candidate_queue(&l->cand, LATCH_NAME, &held, &gen0);
  if (rc == ZKC_ECLOSED) return 0; /* latch or client closing */
  if (rc != ZKC_OK && zkc__candidate_fail(&l->cand, rc)) {
    tell_error(l, rc); /* out of the election until closed */
    return 1;
  }
  if (rc != ZKC_OK) {
    zkc__log(c, ZKC_LOG_ERROR, "latch %s: cannot join the election: %s; "
             "trying again", l->cand.path, zkc_strerror(rc));
    return zkc__candidate_retry_later(&l->cand, rc, 1);
  }

  /* By policy (lost_on_suspended) a suspension since queueing began puts
   * the node in doubt, even one the connection has recovered from;
   * hold_locked checks the rest. */
  pthread_mutex_lock(&l->cand.mu);
  int doubt = zkc__client_facts(c).lost_on_suspended &&
              (l->cand.suspend_gen != gen0 || !l->cand.live);
  int lead = zkc__candidate_hold_locked(&l->cand, &held, doubt, on_node_gone);
  if (lead) l->shown = 0;
  pthread_mutex_unlock(&l->cand.mu);
  zkc__candidate_count_turn(&l->cand, &held, lead);
  if (!lead) return zkc__candidate_decline(&l->cand, &held);
  zkc__log(c, ZKC_LOG_INFO, "latch %s: leader (%s)", l->cand.path, held.node);
  tell(l, 1);

  pthread_mutex_lock(&l->cand.mu);
  while (!atomic_load(&l->cand.cancel) && !dropped_locked(l))
    pthread_cond_wait(&l->cand.cv, &l->cand.mu);
  if (atomic_load(&l->cand.cancel)) { /* close takes over the node */
    pthread_mutex_unlock(&l->cand.mu);
    return 0;
  }
  uint64_t guard;
  int64_t granted = l->cand.granted_us;
  held = zkc__candidate_take_node_locked(&l->cand, &guard);
  pthread_mutex_unlock(&l->cand.mu);
  zkc__guard_remove(c, guard);
  zkc__stats_released(l->cand.st, granted, ZKC_ELOST);
  tell(l, 0);
  /* The node is gone with the session, or (suspended) must go so that the
   * next participant can lead: a guaranteed delete, finished by the janitor
   * when the ensemble is silent. */
  zkc__candidate_let_go(&l->cand, &held);
  return 1;
}

void zkc__latch_opts_defaults(zkc_latch_opts_t *opts) {
  if (opts) memset(opts, 0, sizeof *opts);
}

static int latch_create_impl(zkc_latch_t **out, zkc_client_t *client,
                             const char *path, const char *id,
                             const zkc_latch_opts_t *opts) {
  if (out != NULL) *out = NULL;
  int rc0 = zkc__refuse_null(client, "zkc_latch_create", "out", out == NULL,
                             "client", client == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(client, "zkc_latch_create", "election path", path);
  if (rc0 == ZKC_OK)
    rc0 = ZKC__REFUSE_IF(client, zkc__id_validate(id) != ZKC_OK,
                         "zkc_latch_create",
                         "id is longer than a node's data "
                         "may be (1020 KiB)");
  if (rc0 != ZKC_OK) return rc0;
  zkc_latch_t *l = calloc(1, sizeof *l);
  if (l == NULL) return ZKC_ENOMEM;
  if (opts) l->opts = *opts;
  /* Everything on_state reads is set before it can run. */
  atomic_init(&l->cb_off, 0);
  int rc = zkc__candidate_init(&l->cand, "latch", ZKC_RECIPE_LATCH, client, path,
                               id ? id : zkc__client_facts(client).holder_id,
                               on_state, l);
  if (rc != ZKC_OK) {
    free(l);
    return rc;
  }
  *out = l;
  return ZKC_OK;
}

int zkc__latch_create(zkc_latch_t **out, zkc_client_t *client, const char *path,
                      const char *id, const zkc_latch_opts_t *opts) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave("zkc_latch_create", mark,
                           latch_create_impl(out, client, path, id, opts));
}

static int latch_set_listener_impl(zkc_latch_t *l, zkc_latch_fn is_leader,
                                   zkc_latch_fn not_leader, void *ctx) {
  if (l == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_latch_set_listener: latch is NULL");
  pthread_mutex_lock(&l->cand.mu);
  int rc = l->cand.state == ZKC__LATENT ? ZKC_OK : ZKC_EBUSY;
  pthread_mutex_unlock(&l->cand.mu);
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&l->cand.cb_mu); /* not started: no callback can run */
  l->opts.is_leader = is_leader;
  l->opts.not_leader = not_leader;
  l->opts.ctx = ctx;
  pthread_mutex_unlock(&l->cand.cb_mu);
  return ZKC_OK;
}

int zkc_latch_set_listener(zkc_latch_t *l, zkc_latch_fn is_leader,
                           zkc_latch_fn not_leader, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           latch_set_listener_impl(l, is_leader, not_leader,
                                                   ctx));
}

static int latch_start_impl(zkc_latch_t *l) {
  if (l == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_latch_start: latch is NULL");
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  return zkc__candidate_start(&l->cand, one_turn);
}

int zkc_latch_start(zkc_latch_t *l) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, latch_start_impl(l));
}

static int latch_close_impl(zkc_latch_t *l, zkc_close_mode_t mode) {
  if (l == NULL) return ZKC_OK;
  if (mode != ZKC_CLOSE_SILENT && mode != ZKC_CLOSE_NOTIFY_LEADER)
    return zkc__refuse(l->cand.client, ZKC_EINVAL,
                       "zkc_latch_close: mode %d "
                       "is neither ZKC_CLOSE_SILENT nor "
                       "ZKC_CLOSE_NOTIFY_LEADER",
                       (int)mode);
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  zkc_client_t *c = l->cand.client;
  if (mode == ZKC_CLOSE_SILENT) {
    /* No callback starts from here on: set before waiting for cb_mu, so
     * that a tell() waiting for it too cannot start one after close has
     * begun. A running one is waited out. */
    atomic_store(&l->cb_off, 1);
    pthread_mutex_lock(&l->cand.cb_mu);
    pthread_mutex_unlock(&l->cand.cb_mu);
  }
  pthread_mutex_lock(&l->cand.mu);
  if (l->cand.state == ZKC__CLOSED) {
    pthread_mutex_unlock(&l->cand.mu);
    return ZKC_OK;
  }
  l->cand.state = ZKC__CLOSED;
  atomic_store(&l->cand.cancel, 1);
  pthread_cond_broadcast(&l->cand.cv);
  pthread_mutex_unlock(&l->cand.mu);
  if (l->cand.thread_started) {
    zkc__cancel_wake(c); /* a wait inside the lock queue sees cancel */
    pthread_join(l->cand.thread, NULL);
  }
  /* The thread is gone: leadership and the node are ours to end. */
  pthread_mutex_lock(&l->cand.mu);
  int has_node = l->cand.has_node;
  /* lost, and the thread stopped before giving it up */
  int lost = dropped_locked(l);
  int64_t granted = l->cand.granted_us;
  uint64_t guard;
  zkc__held_t held = zkc__candidate_take_node_locked(&l->cand, &guard);
  pthread_mutex_unlock(&l->cand.mu);
  zkc__guard_remove(c, guard);
  if (has_node)
    zkc__stats_released(l->cand.st, granted, lost ? ZKC_ELOST : ZKC_OK);
  if (mode == ZKC_CLOSE_NOTIFY_LEADER) tell(l, 0); /* only if it was told 1 */
  atomic_store(&l->cb_off, 1);
  pthread_mutex_lock(&l->cand.cb_mu); /* waits out a callback running */
  pthread_mutex_unlock(&l->cand.cb_mu);
  if (has_node) zkc__lock_release(c, &held);
  return ZKC_OK;
}

int zkc_latch_close(zkc_latch_t *l, zkc_close_mode_t mode) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, latch_close_impl(l, mode));
}

static int latch_destroy_impl(zkc_latch_t *l) {
  if (l == NULL) return ZKC_OK;
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  int rc = zkc_latch_close(l, ZKC_CLOSE_SILENT);
  if (rc == ZKC_OK) rc = zkc__candidate_destroy(&l->cand);
  if (rc != ZKC_OK) return rc;
  free(l);
  return ZKC_OK;
}

int zkc_latch_destroy(zkc_latch_t *l) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, latch_destroy_impl(l));
}

int zkc_latch_has_leadership(const zkc_latch_t *cl) {
  if (cl == NULL) return 0;
  zkc_latch_t *l = (zkc_latch_t *)cl; /* locking is not a logical change */
  /* Closing the client sends no state: its session and node are gone. */
  if (zkc__client_facts(l->cand.client).closed) return 0;
  pthread_mutex_lock(&l->cand.mu);
  int leader = shown_locked(l) && l->cand.state == ZKC__STARTED;
  pthread_mutex_unlock(&l->cand.mu);
  return leader;
}

static int latch_await_impl(zkc_latch_t *l, int64_t timeout_ms) {
  if (l == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_latch_await: latch is NULL");
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  int rc;
  pthread_mutex_lock(&l->cand.mu);
  for (;;) {
    if (l->cand.state == ZKC__LATENT) {
      rc = ZKC_EINVAL;
      break;
    }
    if (l->cand.state == ZKC__CLOSED) {
      rc = ZKC_ECLOSED;
      break;
    }
    /* Closing the client sends no state: look at it now and then. */
    pthread_mutex_unlock(&l->cand.mu);
    int closed = zkc__client_facts(l->cand.client).closed;
    pthread_mutex_lock(&l->cand.mu);
    if (closed) {
      rc = ZKC_ECLOSED;
      break;
    }
    if (shown_locked(l)) {
      rc = ZKC_OK;
      break;
    }
    if (l->cand.failed != ZKC_OK) {
      rc = l->cand.failed;
      break;
    }
    int64_t now = zkc__now_ms();
    if (now >= deadline) {
      rc = ZKC_ETIMEDOUT;
      break;
    }
    int64_t until = deadline - now > 200 ? now + 200 : deadline;
    zkc__cond_wait_until(&l->cand.cv, &l->cand.mu, until);
  }
  pthread_mutex_unlock(&l->cand.mu);
  if (rc == ZKC_EINVAL)
    zkc__refuse(l->cand.client, rc,
                "zkc_latch_await: the latch was never "
                "started (zkc_latch_start)");
  return rc;
}

int zkc_latch_await(zkc_latch_t *l, int64_t timeout_ms) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, latch_await_impl(l, timeout_ms));
}

int zkc_latch_error(const zkc_latch_t *cl) {
  zkc_latch_t *l = (zkc_latch_t *)cl; /* locking is not a logical change */
  return zkc__candidate_error(l ? &l->cand : NULL, __func__, "latch");
}

const char *zkc_latch_id(const zkc_latch_t *l) { return l ? l->cand.id : NULL; }

int zkc_latch_stats(const zkc_latch_t *l, zkc_lock_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__candidate_stats(l ? &l->cand : NULL, __func__,
                                                "latch", out));
}

const char *zkc_latch_path(const zkc_latch_t *l) {
  return l ? l->cand.path : NULL;
}

int zkc__latch_participants(zkc_latch_t *l, zkc__participant_t **out,
                           size_t *count) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__candidate_participants(l ? &l->cand : NULL,
                                                       __func__, "latch", out,
                                                       count));
}

int zkc_latch_leader_id(zkc_latch_t *l, char **id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__candidate_leader_id(l ? &l->cand : NULL,
                                                    __func__, "latch", id));
}
