/* SPDX-License-Identifier: Apache-2.0 */
/* The leader selector: a thread per selector acquires the mutex protocol's
 * "lock-" node, runs the user's take_leadership while holding it, releases
 * it when that returns and queues again if asked. A client observer sets
 * should_stop as soon as the connection is in doubt or the session is lost,
 * and tells the user's state callback, serialised by cb_mu so that close can
 * make sure no callback runs after it returned. */
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
#include "zkcoord/selector.h"


struct zkc_selector {
  /* Node, thread and connection; cand.mu guards the fields below up to
   * cb_off, cand.cv also tells `joined`. */
  /* Leading (take_leadership running): a node held; its record lost once
   * the turn must end (should_stop), the loss named once. */
  zkc__candidate_t cand;
  zkc_selector_fn take;
  void *ctx;
  int auto_requeue;
  zkc_selector_state_fn on_state_fn;
  zkc_selector_error_fn on_error_fn;

  int join_claimed; /* a closer is joining the thread */
  int joined;       /* the thread has been joined */

  int cb_off; /* no state callback may run any more (under cand.cb_mu) */
};

/* Client observer (maintenance thread, before the user's listeners): every
 * state but RECONNECTED ends a turn of leadership at once. On LOST this
 * runs before the client opens its next session, and so before anything of
 * this process can act on the new one. */
static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_selector_t *s = ctx;
  pthread_mutex_lock(&s->cand.mu);
  zkc__candidate_note_state_locked(&s->cand, st, lost_session);
  int leading = s->cand.has_node;
  /* A turn of leadership ends as soon as its hold is not standing: doubt
   * counts as loss here whatever the client's policy (Curator's rule), and
   * a new session means the old one's node is gone. */
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  int count = zkc__candidate_state_locked(&s->cand, st, lost_session, 1, &why);
  if (leading && (st == ZKC_STATE_CONNECTED ||
                  atomic_load(&s->cand.rec.in_doubt)))
    count |= zkc__candidate_lose_locked(&s->cand);
  int64_t token = s->cand.rec.token;
  pthread_cond_broadcast(&s->cand.cv);
  pthread_mutex_unlock(&s->cand.mu);
  if (count) {
    zkc__stats_lost(s->cand.st, why);
    zkc__hold_notice_tell(&s->cand, why, token); /* the term's notice */
  }
  if (!leading) return;
  if (st != ZKC_STATE_RECONNECTED)
    zkc__log(s->cand.client, ZKC_LOG_WARN,
             "selector %s: leadership interrupted (%s)", s->cand.path,
             zkc_state_name(st));
  pthread_mutex_lock(&s->cand.cb_mu);
  if (!s->cb_off && s->on_state_fn) s->on_state_fn(s->ctx, s, st);
  pthread_mutex_unlock(&s->cand.cb_mu);
}

zkc_hold_t *zkc_selector_hold(zkc_selector_t *s) {
  return s ? ZKC__HOLD_OF(&s->cand.view) : NULL;
}

/* Our node was deleted by another client while the session lived: this
 * turn of leadership must end (should_stop answers 1). */
static void on_node_gone(void *ctx, uint64_t guard) {
  zkc_selector_t *s = ctx;
  pthread_mutex_lock(&s->cand.mu);
  int mine = s->cand.has_node && s->cand.guard == guard;
  int count = mine && zkc__candidate_lose_locked(&s->cand);
  int64_t token = s->cand.rec.token;
  pthread_mutex_unlock(&s->cand.mu);
  if (count) {
    zkc__stats_lost(s->cand.st, ZKC_LOST_DELETED);
    zkc__hold_notice_tell(&s->cand, ZKC_LOST_DELETED, token);
  }
  if (mine)
    zkc__log(s->cand.client, ZKC_LOG_WARN, "selector %s: leadership "
             "interrupted (node deleted by another client)", s->cand.path);
}

/* One turn: wait until queued with a live connection, acquire, lead until
 * take_leadership returns, release. Returns 0 when the thread must stop. */
static int one_turn(void *arg) {
  zkc_selector_t *s = arg;
  zkc_client_t *c = s->cand.client;
  zkc__held_t held = {0};
  int rc = zkc__candidate_queue(&s->cand, ZKC__LOCK_NAME, &held, NULL);
  if (rc == ZKC_ECLOSED) return 0; /* selector or client closing */
  if (rc != ZKC_OK && zkc__candidate_fail(&s->cand, rc)) {
    pthread_mutex_lock(&s->cand.cb_mu); /* unqueued until requeue */
    if (!s->cb_off && s->on_error_fn) s->on_error_fn(s->ctx, s, rc);
    pthread_mutex_unlock(&s->cand.cb_mu);
    return 1;
  }
  if (rc != ZKC_OK) {
    zkc__log(c, ZKC_LOG_ERROR, "selector %s: cannot take part in the "
             "election: %s%s", s->cand.path, zkc_strerror(rc),
             s->auto_requeue ? "; trying again" : "");
    /* Without auto_requeue the turn ends: queued again by requeue. */
    return zkc__candidate_retry_later(&s->cand, rc, s->auto_requeue);
  }

  /* Trouble that came while we queued may already have put the node in
   * doubt (any connection state but a live one): then give the node up and
   * queue again. */
  pthread_mutex_lock(&s->cand.mu);
  int lead =
      zkc__candidate_hold_locked(&s->cand, &held, !s->cand.live, on_node_gone);
  pthread_mutex_unlock(&s->cand.mu);
  zkc__candidate_count_turn(&s->cand, &held, lead);
  if (!lead) return zkc__candidate_decline(&s->cand, &held);
  zkc__log(c, ZKC_LOG_INFO, "selector %s: leader (%s)", s->cand.path,
           held.node);

  s->take(s->ctx, s);

  pthread_mutex_lock(&s->cand.mu);
  int lost = atomic_load(&s->cand.rec.told); /* this turn's loss counted */
  uint64_t guard;
  held = zkc__candidate_take_node_locked(&s->cand, &guard);
  s->cand.queued = s->auto_requeue && s->cand.state == ZKC__STARTED;
  pthread_mutex_unlock(&s->cand.mu);
  zkc__guard_remove(c, guard);
  zkc__stats_released(s->cand.st, s->cand.granted_us,
                      lost ? ZKC_ELOST : ZKC_OK);
  /* A guaranteed delete: the next participant leads once it is gone. A
   * node of a lost session is gone already; a lost turn's is let go within
   * about a round trip (the janitor finishes it on a silent ensemble). */
  if (lost)
    zkc__candidate_let_go(&s->cand, &held);
  else
    zkc__lock_release(c, &held);
  zkc__log(c, ZKC_LOG_INFO, "selector %s: leadership given up", s->cand.path);
  return 1;
}

void zkc__selector_opts_defaults(zkc_selector_opts_t *opts) {
  if (opts) memset(opts, 0, sizeof *opts);
}

static int selector_create_impl(zkc_selector_t **out, zkc_client_t *client,
                                const char *path,
                                zkc_selector_fn take_leadership, void *ctx,
                                const zkc_selector_opts_t *opts) {
  if (out != NULL) *out = NULL;
  int rc0 = zkc__refuse_null(client, "zkc_selector_create", "out", out == NULL,
                             "client", client == NULL, "take_leadership",
                             take_leadership == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(client, "zkc_selector_create", "election path", path);
  if (rc0 == ZKC_OK)
    rc0 = ZKC__REFUSE_IF(client, opts && zkc__id_validate(opts->id) != ZKC_OK,
                         "zkc_selector_create",
                         "the id option is longer than "
                         "a node's data may be (1020 KiB)");
  if (rc0 != ZKC_OK) return rc0;
  zkc_selector_t *s = calloc(1, sizeof *s);
  if (s == NULL) return ZKC_ENOMEM;
  s->take = take_leadership;
  s->ctx = ctx;
  if (opts) {
    s->auto_requeue = opts->auto_requeue != 0;
    s->on_state_fn = opts->on_state;
    s->on_error_fn = opts->on_error;
  }
  /* Everything on_state reads is set before it can run. */
  const char *id =
      opts && opts->id ? opts->id : zkc__client_facts(client).holder_id;
  int rc =
      zkc__candidate_init(&s->cand, "selector", ZKC_RECIPE_SELECTOR, client,
                          path, id, on_state, s);
  if (rc != ZKC_OK) {
    free(s);
    return rc;
  }
  *out = s;
  return ZKC_OK;
}

int zkc__selector_create(zkc_selector_t **out, zkc_client_t *client,
                         const char *path, zkc_selector_fn take_leadership,
                         void *ctx, const zkc_selector_opts_t *opts) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave("zkc_selector_create", mark,
                           selector_create_impl(out, client, path,
                                                take_leadership, ctx, opts));
}

static int selector_start_impl(zkc_selector_t *s) {
  if (s == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_selector_start: selector is NULL");
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  return zkc__candidate_start(&s->cand, one_turn);
}

int zkc_selector_start(zkc_selector_t *s) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, selector_start_impl(s));
}

static int selector_requeue_impl(zkc_selector_t *s) {
  if (s == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_selector_requeue: selector is NULL");
  int closed = zkc__client_facts(s->cand.client).closed;
  pthread_mutex_lock(&s->cand.mu);
  int rc = s->cand.state == ZKC__LATENT   ? ZKC_EINVAL
           : s->cand.state == ZKC__CLOSED ? ZKC_ECLOSED
           : closed                       ? ZKC_ECLOSED
           : s->cand.queued               ? ZKC_EBUSY
                                          : ZKC_OK;
  if (rc == ZKC_OK) {
    s->cand.queued = 1;
    s->cand.failed = ZKC_OK; /* try again: the ACL may have been fixed */
    pthread_cond_broadcast(&s->cand.cv);
  }
  pthread_mutex_unlock(&s->cand.mu);
  if (rc == ZKC_EINVAL)
    zkc__refuse(s->cand.client, rc,
                "zkc_selector_requeue: the selector was "
                "never started (zkc_selector_start)");
  return rc;
}

int zkc_selector_requeue(zkc_selector_t *s) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, selector_requeue_impl(s));
}

int zkc_selector_error(const zkc_selector_t *cs) {
  zkc_selector_t *s = (zkc_selector_t *)cs; /* locking is not a change */
  return zkc__candidate_error(s ? &s->cand : NULL, __func__, "selector");
}

static int selector_close_impl(zkc_selector_t *s) {
  if (s == NULL) return ZKC_OK;
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  int own = zkc__candidate_on_thread(&s->cand);
  int do_join = 0;
  pthread_mutex_lock(&s->cand.mu);
  if (s->cand.state != ZKC__CLOSED) {
    s->cand.state = ZKC__CLOSED;
    s->cand.queued = 0;
    atomic_store(&s->cand.cancel, 1); /* should_stop answers 1 */
    pthread_cond_broadcast(&s->cand.cv);
  }
  if (own) { /* from take_leadership: the thread ends after it returns */
    pthread_mutex_unlock(&s->cand.mu);
    return ZKC_OK;
  }
  if (s->cand.thread_started && !s->join_claimed) {
    s->join_claimed = 1;
    do_join = 1;
  } else {
    while (s->cand.thread_started && !s->joined)
      pthread_cond_wait(&s->cand.cv, &s->cand.mu);
  }
  pthread_mutex_unlock(&s->cand.mu);
  if (do_join) {
    /* A wait inside the lock queue ends; the thread released its node
     * on the way out. */
    zkc__cancel_wake(s->cand.client);
    pthread_join(s->cand.thread, NULL);
    pthread_mutex_lock(&s->cand.mu);
    s->joined = 1;
    pthread_cond_broadcast(&s->cand.cv);
    pthread_mutex_unlock(&s->cand.mu);
  }
  pthread_mutex_lock(&s->cand.cb_mu); /* waits out a state callback running */
  s->cb_off = 1;
  pthread_mutex_unlock(&s->cand.cb_mu);
  return ZKC_OK;
}

int zkc_selector_close(zkc_selector_t *s) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, selector_close_impl(s));
}

static int selector_destroy_impl(zkc_selector_t *s) {
  if (s == NULL) return ZKC_OK;
  if (zkc__on_callback_thread() || zkc__candidate_on_thread(&s->cand))
    return ZKC_EDEADLK;
  int rc = zkc_selector_close(s);
  if (rc == ZKC_OK) rc = zkc__candidate_destroy(&s->cand);
  if (rc != ZKC_OK) return rc;
  free(s);
  return ZKC_OK;
}

int zkc_selector_destroy(zkc_selector_t *s) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, selector_destroy_impl(s));
}

int zkc_selector_should_stop(const zkc_selector_t *s) {
  if (s == NULL) return 1;
  return atomic_load(&s->cand.rec.lost) || atomic_load(&s->cand.cancel) ||
         zkc__client_facts(s->cand.client).closed;
}

int zkc_selector_has_leadership(const zkc_selector_t *cs) {
  if (cs == NULL) return 0;
  zkc_selector_t *s = (zkc_selector_t *)cs; /* locking is not a change */
  pthread_mutex_lock(&s->cand.mu);
  int leading = s->cand.has_node;
  pthread_mutex_unlock(&s->cand.mu);
  return leading && !zkc_selector_should_stop(s);
}

const char *zkc_selector_id(const zkc_selector_t *s) {
  return s ? s->cand.id : NULL;
}

int zkc_selector_stats(const zkc_selector_t *s, zkc_lock_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__candidate_stats(s ? &s->cand : NULL, __func__,
                                                "selector", out));
}

const char *zkc_selector_path(const zkc_selector_t *s) {
  return s ? s->cand.path : NULL;
}

int zkc__selector_participants(zkc_selector_t *s, zkc__participant_t **out,
                              size_t *count) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__candidate_participants(s ? &s->cand : NULL,
                                                       __func__, "selector",
                                                       out, count));
}

int zkc_selector_leader_id(zkc_selector_t *s, char **id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__candidate_leader_id(s ? &s->cand : NULL,
                                                    __func__, "selector", id));
}
