/* SPDX-License-Identifier: Apache-2.0 */
/* The session's state as the rest of the library asks for it: one place
 * for "is it live", the session id, a node's fate, waiting until
 * connected, and the client's settings. Reads the client under its lock and
 * calls nothing but util. */

#include <errno.h>

#include "session.h"
#include "client_struct.h"
#include "kernel_door.h"
#include "session_shared.h"
#include "stall.h"
#include "test_hooks.h"
#include "zkcoord/common.h"

const char *zkc_state_name(zkc_state_t state) {
  switch (state) {
    case ZKC_STATE_CONNECTED: return "CONNECTED";
    case ZKC_STATE_SUSPENDED: return "SUSPENDED";
    case ZKC_STATE_RECONNECTED: return "RECONNECTED";
    case ZKC_STATE_LOST: return "LOST";
    case ZKC_STATE_READ_ONLY: return "READ_ONLY";
    case ZKC_STATE_CLOSED: return "CLOSED";
    default: return "UNKNOWN";
  }
}

int zkc__call_enter(zkc_client_t *c) {
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  pthread_mutex_lock(&c->mu);
  int closed = c->closed;
  if (!closed) c->active_calls++;
  pthread_mutex_unlock(&c->mu);
  return closed ? ZKC_ECLOSED : ZKC_OK;
}

void zkc__call_leave(zkc_client_t *c) {
  pthread_mutex_lock(&c->mu);
  if (--c->active_calls == 0 && c->closed)
    pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

/* Connected, and the session proven renewed at the leader (probe.c): a
 * connection alone may be a follower's cut off from it, or a session the
 * leader is about to expire after a stall of this process. */
int zkc__live_locked(const zkc_client_t *c) {
  return c->link == ZKC__LINK_CONNECTED && !c->session_dead && !c->recreate &&
         zkc__renewed_locked(c);
}

int zkc__session_live(zkc_client_t *c) {
  pthread_mutex_lock(&c->mu);
  int live = zkc__live_locked(c);
  pthread_mutex_unlock(&c->mu);
  return live;
}

/* Closed, or the thread's wait cancelled (the latch closes): give up. */
static int gave_up_locked(const zkc_client_t *c) {
  return c->closed || zkc__cancelled();
}

static int connected_or_gave_up(void *arg) {
  const zkc_client_t *c = arg;
  return gave_up_locked(c) || zkc__live_locked(c);
}

int zkc__wait_connected(zkc_client_t *c, int64_t deadline_ms) {
  pthread_mutex_lock(&c->mu);
  int rc = zkc__cond_await(&c->state_cv, &c->mu, deadline_ms,
                           connected_or_gave_up, c);
  if (gave_up_locked(c)) rc = ZKC_ECLOSED;
  pthread_mutex_unlock(&c->mu);
  return rc;
}

/* Connected as the client sees it and as its listeners were told. */
static int usable_locked(const zkc_client_t *c) {
  return zkc__live_locked(c) && (c->state == ZKC_STATE_CONNECTED ||
                                 c->state == ZKC_STATE_RECONNECTED);
}

static int connected_or_refused(void *arg) {
  const zkc_client_t *c = arg;
  return usable_locked(c) || c->auth_failed || c->closed;
}

int zkc__wait_connected_or_refused(zkc_client_t *c, int64_t deadline_ms) {
  pthread_mutex_lock(&c->mu);
  int rc = zkc__cond_await(&c->state_cv, &c->mu, deadline_ms,
                           connected_or_refused, c);
  /* A refusal learnt while the connection was down (the server closed it
   * before the client read the verdict) is as final as one read in time. */
  if (!usable_locked(c) && c->auth_failed) rc = ZKC_EAUTHFAILED;
  pthread_mutex_unlock(&c->mu);
  return rc;
}

zkc__session_fate_t zkc__session_fate_locked(const zkc_client_t *c,
                                             int64_t session_id) {
  if (session_id == 0 || c->session_dead || c->recreate ||
      c->session_id != session_id)
    return ZKC__SESSION_GONE;
  return zkc__live_locked(c) ? ZKC__SESSION_LIVE : ZKC__SESSION_DOUBT;
}

zkc__session_fate_t zkc__session_fate(zkc_client_t *c, int64_t session_id) {
  pthread_mutex_lock(&c->mu);
  zkc__session_fate_t fate = zkc__session_fate_locked(c, session_id);
  pthread_mutex_unlock(&c->mu);
  return fate;
}

const struct zkc__qworld *zkc__client_world(zkc_client_t *c) { return c->world; }

zkc__client_facts_t zkc__client_facts(zkc_client_t *c) {
  zkc__client_facts_t f = {.holder_id = c->holder_id,
                           .lost_on_suspended = c->opts.lost_on_suspended,
                           .stats = &c->stats};
  pthread_mutex_lock(&c->mu);
  f.session_id = c->session_id;
  f.session = zkc__session_fate_locked(c, c->session_id);
  f.closed = c->closed;
  pthread_mutex_unlock(&c->mu);
  return f;
}

static int client_session_id_impl(zkc_client_t *c, int64_t *session_id) {
  int rc_ = zkc__refuse_null(c, "zkc_client_session_id", "client", c == NULL,
                             "session_id", session_id == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  pthread_mutex_lock(&c->mu);
  int closed = c->closed;
  *session_id = c->link == ZKC__LINK_CONNECTED ? c->session_id : 0;
  pthread_mutex_unlock(&c->mu);
  return closed ? ZKC_ECLOSED : ZKC_OK;
}

int zkc_client_session_id(zkc_client_t *c, int64_t *session_id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_session_id_impl(c, session_id));
}

static int client_state_impl(zkc_client_t *c, zkc_state_t *state) {
  int rc_ = zkc__refuse_null(c, "zkc_client_state", "client", c == NULL,
                             "state", state == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  pthread_mutex_lock(&c->mu);
  *state = c->closed ? ZKC_STATE_CLOSED : c->state;
  pthread_mutex_unlock(&c->mu);
  return ZKC_OK;
}

int zkc_client_state(zkc_client_t *c, zkc_state_t *state) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, client_state_impl(c, state));
}

static int client_session_timeout_impl(zkc_client_t *c, int *timeout_ms) {
  int rc_ =
      zkc__refuse_null(c, "zkc_client_session_timeout", "client", c == NULL,
                       "timeout_ms", timeout_ms == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  pthread_mutex_lock(&c->mu);
  int closed = c->closed;
  *timeout_ms = c->session_timeout_ms;
  pthread_mutex_unlock(&c->mu);
  return closed ? ZKC_ECLOSED : ZKC_OK;
}

int zkc_client_session_timeout(zkc_client_t *c, int *timeout_ms) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_session_timeout_impl(c, timeout_ms));
}

int zkc__grant_fresh(zkc_client_t *c, int64_t sent_boot_ms) {
  pthread_mutex_lock(&c->mu);
  int64_t timeout = c->session_timeout_ms;
  pthread_mutex_unlock(&c->mu);
  if (timeout <= 0 || zkc__boot_ms() - sent_boot_ms >= timeout / 2) return 0;
  /* An answer or event read after a stall of this process may be old
   * news from a server cut off since (stall.h). */
  int64_t gap = 0;
  if (zkc__stalled_since(sent_boot_ms, &gap)) {
    zkc__log(c, ZKC_LOG_INFO, "this process stalled for %lld ms since the "
             "proof was sent: reading again", (long long)gap);
    return 0;
  }
  return 1;
}

/* Test seam (test_hooks.h): NULL in every program but the tests. */
void (*zkc__grant_seam)(void);

void zkc__granted(zkc_client_t *c) {
  (void)c;
  if (zkc__grant_seam) zkc__grant_seam();
}

int zkc__on_maint_thread_locked(const zkc_client_t *c) {
  return c->maint_started && pthread_equal(pthread_self(), c->maint);
}

zkc_parent_mode_t zkc__parent_mode(const zkc_client_t *c) {
  return c->opts.parent_mode;
}

uint64_t zkc__requests(const zkc_client_t *c) {
  return (uint64_t)atomic_load(&c->requests);
}
