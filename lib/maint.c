/* SPDX-License-Identifier: Apache-2.0 */
/* The maintenance thread: the state machine that turns the handle's raw
 * events into CONNECTED, SUSPENDED, RECONNECTED, LOST and READ_ONLY,
 * declares a session lost after a whole session timeout without a
 * connection (the C client only learns of expiry once it reconnects),
 * replaces a lost session's handle with a new one, tells recipes and
 * listeners, and drives the guards and the janitor. It sits above all of
 * them: nothing it drives calls back into it. */

#include <errno.h>
#include <stdlib.h>

#include "session.h"
#include "client_struct.h"
#include "stats.h"
#include "session_shared.h"
#include "stall.h"
#include "zkcoord/common.h"

static void transition_locked(zkc_client_t *c, zkc_state_t st,
                              int64_t lost_session) {
  c->state = st;
  zkc__stats_state_count(&c->stats, st);
  if (st == ZKC_STATE_SUSPENDED || st == ZKC_STATE_READ_ONLY)
    c->suspended_since = zkc__now_ms();
  pthread_cond_broadcast(&c->state_cv);
  zkc__listeners_dispatch_locked(c, st, lost_session);
}

static int live(zkc_state_t st) {
  return st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED;
}

static void declare_lost_locked(zkc_client_t *c) {
  int64_t lost = c->public_session;
  c->session_dead = 1; /* waiters and requests give up on this session */
  zkc__waiters_wake_all_locked(c);
  c->recreate = 1;
  c->recreate_at = 0;
  transition_locked(c, ZKC_STATE_LOST, lost);
}

static void process_event_locked(zkc_client_t *c, const zkc__event_t *ev) {
  zkc__link_t s = ev->link;
  if (ev->gen != c->handle_gen || c->recreate) return; /* a replaced handle */
  if (s == ZKC__LINK_CONNECTED) {
    if (ev->session_id != c->public_session) {
      c->public_session = ev->session_id;
      transition_locked(c, ZKC_STATE_CONNECTED, 0);
    } else if (!live(c->state) && zkc__renewed_locked(c)) {
      transition_locked(c, ZKC_STATE_RECONNECTED, 0);
    } /* else back once a probe proves the session renewed (renewal_step) */
  } else if (s == ZKC__LINK_READ_ONLY) {
    if (c->state != ZKC_STATE_READ_ONLY)
      transition_locked(c, ZKC_STATE_READ_ONLY, 0);
  } else if (s == ZKC__LINK_EXPIRED || s == ZKC__LINK_AUTH_FAILED) {
    if (c->state != ZKC_STATE_LOST) declare_lost_locked(c);
    /* Refused credentials will be refused again: do not hammer. */
    if (s == ZKC__LINK_AUTH_FAILED)
      c->recreate_at = zkc__now_ms() + c->opts.session_timeout_ms;
  } else if (live(c->state)) { /* connecting: the connection dropped */
    transition_locked(c, ZKC_STATE_SUSPENDED, 0);
  }
}

/* The session's renewal at the leader while connected (probe.c): a lapse
 * puts the client in SUSPENDED, as a drop does, before the leader can have
 * expired the session (holds in doubt, told so); the proof's return brings
 * RECONNECTED. A lapse that a probe ended before this thread saw it is
 * shown all the same. 1 when the state changed; else *wake lowered to the
 * next lapse (monotonic ms). */
static int renewal_step_locked(zkc_client_t *c, int64_t now, int64_t *wake) {
  if (c->link != ZKC__LINK_CONNECTED || c->session_dead || c->recreate)
    return 0;
  int renewed = zkc__renewed_locked(c);
  if (live(c->state) && (!renewed || c->renewal_lapsed)) {
    zkc__log(c, ZKC_LOG_WARN, "the session's renewal at the leader is not "
             "proven: suspended until it is");
    c->renewal_lapsed = 0;
    transition_locked(c, ZKC_STATE_SUSPENDED, 0);
    return 1;
  }
  if (c->state == ZKC_STATE_SUSPENDED && renewed) {
    c->renewal_lapsed = 0;
    transition_locked(c, ZKC_STATE_RECONNECTED, 0);
    return 1;
  }
  if (live(c->state)) {
    int64_t at = now + (zkc__renewal_lapses_at(&c->renewal, c->session_timeout_ms) -
                        zkc__boot_ms());
    if (at < *wake) *wake = at;
  }
  return 0;
}

/* Replaces a lost session's handle. Called and returns with c->mu held. */
static void recreate_locked(zkc_client_t *c) {
  pthread_mutex_unlock(&c->mu);
  zkc__handle_drop(c, 0);
  int rc = zkc__handle_open(c);
  if (rc == ZKC_OK)
    zkc__log(c, ZKC_LOG_INFO, "opening a new session");
  else
    zkc__log(c, ZKC_LOG_ERROR, "cannot open a new session: %s",
             zkc_strerror(rc));
  pthread_mutex_lock(&c->mu);
  if (rc == ZKC_OK) {
    c->recreate = 0;
    c->recreate_attempt = 0;
  } else {
    c->recreate_at = zkc__now_ms() + zkc__background_backoff_ms(&c->recreate_attempt);
  }
}

/* A server answered this handle's request "session expired" (ops.c): the
 * session is over, whatever the handle says. 1 when that was news. */
static int refused_step_locked(zkc_client_t *c) {
  uint64_t gen = c->refused_gen;
  c->refused_gen = 0;
  if (gen != c->handle_gen || c->recreate || c->session_dead) return 0;
  zkc__log(c, ZKC_LOG_WARN, "the ensemble answered that session 0x%llx "
           "expired while its connection stayed open: it is lost",
           (unsigned long long)c->session_id);
  c->watch_epoch++; /* no event order carries over */
  declare_lost_locked(c);
  return 1;
}

static void *maint_main(void *arg) {
  zkc_client_t *c = arg;
  zkc__mark_callback_thread(); /* listeners run here: no blocking calls */
  pthread_mutex_lock(&c->mu);
  while (!c->closed) {
    if (c->refused_gen && refused_step_locked(c)) continue;
    zkc__event_t *ev = c->events;
    if (ev) {
      if ((c->events = ev->next) == NULL) c->events_tail = &c->events;
      process_event_locked(c, ev);
      free(ev);
      continue;
    }
    int64_t now = zkc__now_ms();
    int64_t wake = ZKC__FOREVER;
    int doubtful = c->state == ZKC_STATE_SUSPENDED || c->state == ZKC_STATE_READ_ONLY;
    if (doubtful && c->session_timeout_ms > 0) {
      /* The C client only learns of expiry when it reconnects: after a
       * whole session timeout without a connection, presume it. */
      int64_t at = c->suspended_since + c->session_timeout_ms;
      if (now >= at) {
        declare_lost_locked(c);
        continue;
      }
      wake = at;
    }
    if (c->recreate) {
      if (now >= c->recreate_at) {
        recreate_locked(c);
        continue;
      }
      if (c->recreate_at < wake) wake = c->recreate_at;
    }
    if (renewal_step_locked(c, now, &wake)) continue;
    if (zkc__probe_step_locked(c, &wake)) continue;
    if (zkc__guard_step_locked(c)) continue;
    if (zkc__janitor_step_locked(c)) continue;
    int64_t retry = zkc__janitor_next_locked(c);
    if (retry < wake) wake = retry;
    int64_t check = zkc__guard_next_locked(c);
    if (check < wake) wake = check;
    c->maint_sleeps_until = wake;
    zkc__cond_wait_until(&c->state_cv, &c->mu, wake);
    c->maint_sleeps_until = 0;
  }
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

int zkc__maint_start(zkc_client_t *c) {
  /* The process's stall watch, which every grant of this client asks. */
  if (zkc__stall_watch_join() != ZKC_OK) return ZKC_ESYSTEM;
  if (pthread_create(&c->maint, NULL, maint_main, c) != 0) {
    zkc__stall_watch_leave();
    return ZKC_ESYSTEM;
  }
  pthread_mutex_lock(&c->mu);
  c->maint_started = 1;
  pthread_mutex_unlock(&c->mu);
  return ZKC_OK;
}

void zkc__maint_stop(zkc_client_t *c) {
  /* Only close calls this, but a recipe's own thread (a selector still
   * running at close) asks zkc__on_maint_thread_locked meanwhile. */
  pthread_mutex_lock(&c->mu);
  int started = c->maint_started;
  pthread_mutex_unlock(&c->mu);
  if (started) pthread_join(c->maint, NULL);
  pthread_mutex_lock(&c->mu);
  c->maint_started = 0;
  pthread_mutex_unlock(&c->mu);
  if (started) zkc__stall_watch_leave();
}

void zkc__maint_free(zkc_client_t *c) {
  while (c->events) {
    zkc__event_t *e = c->events;
    c->events = e->next;
    free(e);
  }
  c->events_tail = &c->events;
}
