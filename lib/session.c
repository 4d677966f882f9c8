/* Session life: the ZooKeeper handle, the public connection states and the
 * maintenance thread that drives them.
 *
 * The handle's watcher (on the ZooKeeper completion thread) only records
 * raw events. The maintenance thread turns them into CONNECTED, SUSPENDED,
 * RECONNECTED, LOST and READ_ONLY, declares a session lost after a whole
 * session timeout without a connection (the C client only learns of expiry
 * once it reconnects), replaces a lost session's handle with a new one,
 * tells recipes and listeners, and finishes interrupted deletes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client_impl.h"
#include "zkcoord/common.h"

/* Minimum interval between routine re-resolutions of the server names. */
#define RESOLVE_DELAY_MS 1000

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

/* ---- the handle ---- */

static void session_watcher(zhandle_t *zh, int type, int state,
                            const char *path, void *ctx) {
  (void)path;
  zkc__mark_callback_thread();
  if (type != ZOO_SESSION_EVENT) return;
  zkc__handle_ctx_t *h = ctx;
  zkc_client_t *c = h->c;
  zkc__event_t *ev = calloc(1, sizeof *ev);
  pthread_mutex_lock(&c->mu);
  if (h->gen != c->handle_gen) { /* a replaced handle's last words */
    pthread_mutex_unlock(&c->mu);
    free(ev);
    return;
  }
  c->zk_state = state;
  if (state == ZOO_CONNECTED_STATE) {
    const clientid_t *id = zoo_client_id(zh);
    c->session_id = id ? id->client_id : 0;
    c->session_timeout_ms = zoo_recv_timeout(zh);
  } else if (state == ZOO_EXPIRED_SESSION_STATE ||
             state == ZOO_AUTH_FAILED_STATE) {
    if (state == ZOO_AUTH_FAILED_STATE) c->auth_failed = 1;
    c->session_dead = 1;
    zkc__waiters_wake_all_locked(c);
  }
  if (ev) { /* without memory the maintenance thread still sees zk_state */
    ev->gen = h->gen;
    ev->zk_state = state;
    ev->session_id = c->session_id;
    *c->events_tail = ev;
    c->events_tail = &ev->next;
  }
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

int zkc__session_open_handle(zkc_client_t *c) {
  zkc__handle_ctx_t *h = calloc(1, sizeof *h);
  if (h == NULL) return ZKC_ENOMEM;
  h->c = c;
  pthread_mutex_lock(&c->mu);
  h->gen = ++c->handle_gen;
  c->zk_state = ZOO_CONNECTING_STATE;
  c->session_id = 0;
  c->session_dead = 0;
  /* A waiter that slept through the loss (session_dead set, then cleared
   * here) must still learn that its watch went with the old handle. */
  zkc__waiters_wake_all_locked(c);
  pthread_mutex_unlock(&c->mu);

  int flags = ZOO_NO_LOG_CLIENTENV | (c->opts.allow_read_only ? ZOO_READONLY : 0);
  if (c->log_cb == NULL) c->log_cb = zkc__log_bind(c);
  errno = 0;
  zhandle_t *zh = zookeeper_init2(c->connect, session_watcher,
                                  c->opts.session_timeout_ms, NULL, h, flags,
                                  c->log_cb);
  if (zh == NULL) {
    int rc = errno == EINVAL ? ZKC_EINVAL : errno == ENOMEM ? ZKC_ENOMEM
                                                            : ZKC_ESYSTEM;
    free(h);
    return rc;
  }
  /* By default the client resolves the server names again on every pass of
   * its I/O loop (getaddrinfo, netlink queries even for numeric addresses):
   * most of its CPU time per request. Once a second is enough to notice a
   * DNS change; a reconnect always resolves. */
  zoo_set_servers_resolution_delay(zh, RESOLVE_DELAY_MS);
  /* Queued before any request can use the handle; the C client sends it
   * first on every connection of this session. */
  if (c->auth_digest != NULL) {
    int rc = zoo_add_auth(zh, "digest", c->auth_digest,
                          (int)strlen(c->auth_digest), NULL, NULL);
    if (rc != ZOK) {
      zookeeper_close(zh);
      free(h);
      return rc;
    }
  }
  pthread_rwlock_wrlock(&c->zh_lock);
  c->zh = zh;
  c->hctx = h;
  pthread_rwlock_unlock(&c->zh_lock);
  return ZKC_OK;
}

void zkc__session_drop_handle(zkc_client_t *c, int closing) {
  pthread_rwlock_wrlock(&c->zh_lock);
  zhandle_t *zh = c->zh;
  zkc__handle_ctx_t *h = c->hctx;
  c->zh = NULL;
  c->hctx = NULL;
  if (closing) c->zh_closed = 1;
  pthread_rwlock_unlock(&c->zh_lock);
  if (zh) zookeeper_close(zh); /* no callback of it runs after this */
  zkc__ops_abandon(c, closing ? ZKC_ECLOSED : ZCONNECTIONLOSS);
  free(h);
}

/* ---- listeners and observers ---- */

static int listener_add(zkc_client_t *c, zkc_state_fn fn, zkc__observer_fn obs,
                        void *ctx) {
  zkc__listener_t *l = calloc(1, sizeof *l);
  if (l == NULL) return ZKC_ENOMEM;
  l->fn = fn, l->observer = obs, l->ctx = ctx;
  int rc = ZKC_OK;
  pthread_mutex_lock(&c->mu);
  for (zkc__listener_t *x = c->listeners; x; x = x->next)
    if (x->fn == fn && x->observer == obs && x->ctx == ctx) rc = ZKC_EINVAL;
  if (c->closed) rc = ZKC_ECLOSED;
  if (rc == ZKC_OK) { /* appended: called in registration order */
    zkc__listener_t **pp = &c->listeners;
    while (*pp) pp = &(*pp)->next;
    *pp = l;
  }
  pthread_mutex_unlock(&c->mu);
  if (rc != ZKC_OK) free(l);
  return rc;
}

static int on_maint_thread(zkc_client_t *c) {
  return c->maint_started && pthread_equal(pthread_self(), c->maint);
}

static int listener_remove(zkc_client_t *c, zkc_state_fn fn,
                           zkc__observer_fn obs, void *ctx, int strict) {
  zkc__listener_t *found = NULL;
  pthread_mutex_lock(&c->mu);
  int self = on_maint_thread(c);
  if (strict && self && c->dispatching) {
    pthread_mutex_unlock(&c->mu);
    return ZKC_EDEADLK;
  }
  for (zkc__listener_t **pp = &c->listeners; *pp; pp = &(*pp)->next) {
    zkc__listener_t *x = *pp;
    if (x->fn == fn && x->observer == obs && x->ctx == ctx) {
      *pp = x->next;
      found = x;
      break;
    }
  }
  /* After this returns the callback must not run any more: wait out a
   * dispatch in progress (it works on a copy of the list). */
  while (found && !self && c->dispatching)
    pthread_cond_wait(&c->state_cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  free(found);
  return found ? ZKC_OK : ZKC_EINVAL;
}

int zkc_client_add_listener(zkc_client_t *c, zkc_state_fn fn, void *ctx) {
  if (c == NULL || fn == NULL) return ZKC_EINVAL;
  return listener_add(c, fn, NULL, ctx);
}

int zkc_client_remove_listener(zkc_client_t *c, zkc_state_fn fn, void *ctx) {
  if (c == NULL || fn == NULL) return ZKC_EINVAL;
  return listener_remove(c, fn, NULL, ctx, 0);
}

int zkc__observer_add(zkc_client_t *c, zkc__observer_fn fn, void *ctx) {
  return listener_add(c, NULL, fn, ctx);
}

int zkc__observer_remove(zkc_client_t *c, zkc__observer_fn fn, void *ctx) {
  return listener_remove(c, NULL, fn, ctx, 1);
}

/* Tells observers, then listeners, of a new state. Called and returns with
 * c->mu held; works unlocked on a copy of the list. */
static void dispatch_locked(zkc_client_t *c, zkc_state_t st,
                            int64_t lost_session) {
  size_t n = 0;
  for (zkc__listener_t *x = c->listeners; x; x = x->next) n++;
  zkc__listener_t *copy = n ? calloc(n, sizeof *copy) : NULL;
  if (n && copy == NULL) return; /* out of memory: the state still shows */
  size_t i = 0;
  for (zkc__listener_t *x = c->listeners; x; x = x->next) copy[i++] = *x;
  c->dispatching = 1;
  int64_t session = c->session_id;
  pthread_mutex_unlock(&c->mu);
  /* The user's log sink never runs under a library lock. */
  zkc__log(c, st == ZKC_STATE_LOST ? ZKC_LOG_WARN : ZKC_LOG_INFO,
           "session 0x%llx %s", (unsigned long long)session,
           zkc_state_name(st));
  for (i = 0; i < n; i++)
    if (copy[i].observer) copy[i].observer(copy[i].ctx, st, lost_session);
  for (i = 0; i < n; i++)
    if (copy[i].fn) copy[i].fn(copy[i].ctx, c, st);
  free(copy);
  pthread_mutex_lock(&c->mu);
  c->dispatching = 0;
  pthread_cond_broadcast(&c->state_cv);
}

static void transition_locked(zkc_client_t *c, zkc_state_t st,
                              int64_t lost_session) {
  c->state = st;
  if (st == ZKC_STATE_SUSPENDED || st == ZKC_STATE_READ_ONLY)
    c->suspended_since = zkc__now_ms();
  pthread_cond_broadcast(&c->state_cv);
  dispatch_locked(c, st, lost_session);
}

/* ---- the state machine ---- */

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
  int s = ev->zk_state;
  if (ev->gen != c->handle_gen || c->recreate) return; /* a replaced handle */
  if (s == ZOO_CONNECTED_STATE) {
    if (ev->session_id != c->public_session) {
      c->public_session = ev->session_id;
      transition_locked(c, ZKC_STATE_CONNECTED, 0);
    } else if (!live(c->state)) {
      transition_locked(c, ZKC_STATE_RECONNECTED, 0);
    }
  } else if (s == ZOO_READONLY_STATE) {
    if (c->state != ZKC_STATE_READ_ONLY)
      transition_locked(c, ZKC_STATE_READ_ONLY, 0);
  } else if (s == ZOO_EXPIRED_SESSION_STATE || s == ZOO_AUTH_FAILED_STATE) {
    if (c->state != ZKC_STATE_LOST) declare_lost_locked(c);
    /* Refused credentials will be refused again: do not hammer. */
    if (s == ZOO_AUTH_FAILED_STATE)
      c->recreate_at = zkc__now_ms() + c->opts.session_timeout_ms;
  } else if (live(c->state)) { /* connecting: the connection dropped */
    transition_locked(c, ZKC_STATE_SUSPENDED, 0);
  }
}

/* Replaces a lost session's handle. Called and returns with c->mu held. */
static void recreate_locked(zkc_client_t *c) {
  pthread_mutex_unlock(&c->mu);
  zkc__session_drop_handle(c, 0);
  int rc = zkc__session_open_handle(c);
  if (rc == ZKC_OK)
    zkc__log(c, ZKC_LOG_INFO, "opening a new session");
  else
    zkc__log(c, ZKC_LOG_ERROR, "cannot open a new session: %s",
             zkc_strerror(rc));
  pthread_mutex_lock(&c->mu);
  if (rc == ZKC_OK)
    c->recreate = 0;
  else
    c->recreate_at = zkc__now_ms() + 1000;
}

static void *maint_main(void *arg) {
  zkc_client_t *c = arg;
  zkc__mark_callback_thread(); /* listeners run here: no blocking calls */
  pthread_mutex_lock(&c->mu);
  while (!c->closed) {
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
    if (zkc__guard_step_locked(c)) continue;
    if (zkc__janitor_step_locked(c)) continue;
    int64_t retry = zkc__janitor_next_locked(c);
    if (retry < wake) wake = retry;
    int64_t check = zkc__guard_next_locked(c);
    if (check < wake) wake = check;
    zkc__cond_wait_until(&c->state_cv, &c->mu, wake);
  }
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

int zkc__session_start(zkc_client_t *c) {
  if (pthread_create(&c->maint, NULL, maint_main, c) != 0) return ZKC_ESYSTEM;
  pthread_mutex_lock(&c->mu);
  c->maint_started = 1;
  pthread_mutex_unlock(&c->mu);
  return ZKC_OK;
}

void zkc__session_stop(zkc_client_t *c) {
  if (c->maint_started) pthread_join(c->maint, NULL);
  c->maint_started = 0;
}

int zkc__session_wait_first(zkc_client_t *c, int64_t deadline_ms) {
  int rc = ZKC_OK;
  pthread_mutex_lock(&c->mu);
  while (c->state != ZKC_STATE_CONNECTED) {
    if (c->auth_failed) {
      rc = ZAUTHFAILED;
      break;
    }
    if (zkc__cond_wait_until(&c->state_cv, &c->mu, deadline_ms) == ETIMEDOUT) {
      rc = ZKC_ETIMEDOUT;
      break;
    }
  }
  pthread_mutex_unlock(&c->mu);
  return rc;
}

void zkc__session_free(zkc_client_t *c) {
  while (c->listeners) {
    zkc__listener_t *l = c->listeners;
    c->listeners = l->next;
    free(l);
  }
  while (c->events) {
    zkc__event_t *e = c->events;
    c->events = e->next;
    free(e);
  }
  c->events_tail = &c->events;
}
