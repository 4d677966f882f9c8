/* The leader selector: a thread per selector acquires the mutex protocol's
 * "lock-" node, runs the user's take_leadership while holding it, releases
 * it when that returns and queues again if asked. A client observer sets
 * should_stop as soon as the connection is in doubt or the session is lost,
 * and tells the user's state callback, serialised by cb_mu so that close can
 * make sure no callback runs after it returned. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "hash.h"
#include "internals.h"
#include "janitor.h"
#include "log.h"
#include "ops.h"
#include "retry.h"
#include "session.h"
#include "util.h"
#include "waiters.h"
#include "leader_impl.h"
#include "names.h"
#include "zkcoord/selector.h"

#define LOCK_NAME "lock-" /* Curator's LeaderSelector uses InterProcessMutex */
/* Pause after an election step failed with a ZooKeeper error that outlasted
 * the retry policy (ZKC_ENOAUTH, ...), before trying again (auto_requeue). */
#define ERROR_PAUSE_MS 1000

enum { LATENT = 0, STARTED = 1, CLOSED = 2 };

struct zkc_selector {
  zkc_client_t *client; /* set at create, never changes */
  char *path;
  char *id;
  zkc_selector_fn take;
  void *ctx;
  int auto_requeue;
  zkc_selector_state_fn on_state_fn;

  pthread_mutex_t mu; /* guards the fields below up to cb_mu */
  pthread_cond_t cv;  /* queued, connection and close changes; joined */
  int state;          /* LATENT, STARTED, CLOSED */
  int queued;         /* a turn is wanted or under way (incl. leading) */
  int leading;        /* take_leadership is running */
  int has_node;       /* held is valid (while leading) */
  zkc__held_t held;
  uint64_t guard;     /* the watch on held.node */
  int live;             /* the client's connection is up */
  int64_t lost_session; /* the last session reported LOST */
  pthread_t thread;
  int thread_started;
  int join_claimed; /* a closer is joining the thread */
  int joined;       /* the thread has been joined */
  atomic_int stop;   /* this turn of leadership must end (connection) */
  atomic_int cancel; /* close: the thread must stop */
  atomic_uint_fast64_t thread_id; /* zkc__thread_id() of the thread */

  pthread_mutex_t cb_mu; /* held while the state callback runs */
  int cb_off;            /* no state callback may run any more */
};

static int on_selector_thread(const zkc_selector_t *s) {
  return atomic_load(&s->thread_id) == zkc__thread_id();
}

static int live_state(zkc_state_t st) {
  return st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED;
}

/* Client observer (maintenance thread, before the user's listeners): every
 * state but RECONNECTED ends a turn of leadership at once. On LOST this
 * runs before the client opens its next session, and so before anything of
 * this process can act on the new one. */
static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_selector_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  s->live = live_state(st);
  if (st == ZKC_STATE_LOST) s->lost_session = lost_session;
  int leading = s->leading;
  if (leading && st != ZKC_STATE_RECONNECTED) atomic_store(&s->stop, 1);
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  if (!leading) return;
  if (st != ZKC_STATE_RECONNECTED)
    zkc__log(s->client, ZKC_LOG_WARN, "selector %s: leadership interrupted (%s)",
             s->path, zkc_state_name(st));
  pthread_mutex_lock(&s->cb_mu);
  if (!s->cb_off && s->on_state_fn) s->on_state_fn(s->ctx, s, st);
  pthread_mutex_unlock(&s->cb_mu);
}

/* Our node was deleted by another client while the session lived: this
 * turn of leadership must end (should_stop answers 1). */
static void on_node_gone(void *ctx, uint64_t guard) {
  zkc_selector_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  int mine = s->leading && s->guard == guard;
  if (mine) atomic_store(&s->stop, 1);
  pthread_mutex_unlock(&s->mu);
  if (mine)
    zkc__log(s->client, ZKC_LOG_WARN, "selector %s: leadership interrupted "
             "(node deleted by another client)", s->path);
}

/* Waits on s->cv until the deadline or cancel; caller holds s->mu. */
static void pause_locked(zkc_selector_t *s, int64_t deadline) {
  while (!atomic_load(&s->cancel) &&
         zkc__cond_wait_until(&s->cv, &s->mu, deadline) != ETIMEDOUT) {
  }
}

/* One turn: wait until queued with a live connection, acquire, lead until
 * take_leadership returns, release. Returns 0 when the thread must stop. */
static int one_turn(zkc_selector_t *s) {
  zkc_client_t *c = s->client;
  pthread_mutex_lock(&s->mu);
  while (!atomic_load(&s->cancel) && !(s->queued && s->live))
    pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  if (atomic_load(&s->cancel)) return 0;

  zkc__held_t held = {0};
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return 0; /* client closed */
  rc = zkc__lock_acquire_data(c, s->path, LOCK_NAME, s->id, ZKC__FOREVER,
                              &held);
  zkc__call_leave(c);
  if (rc == ZKC_ECLOSED) return 0; /* selector or client closing */
  if (rc != ZKC_OK) {
    zkc__log(c, ZKC_LOG_ERROR, "selector %s: cannot take part in the "
             "election: %s%s", s->path, zkc_strerror(rc),
             s->auto_requeue ? "; trying again" : "");
    pthread_mutex_lock(&s->mu);
    if (s->auto_requeue)
      pause_locked(s, zkc__deadline_after(ERROR_PAUSE_MS));
    else
      s->queued = 0;
    pthread_mutex_unlock(&s->mu);
    return !atomic_load(&s->cancel);
  }

  /* First in the queue with a node of the current session. Trouble that
   * came while we queued may already have put it in doubt: then give the
   * node up and queue again. */
  pthread_mutex_lock(&s->mu);
  int bad = atomic_load(&s->cancel) || !s->live ||
            held.session_id == s->lost_session ||
            held.session_id != zkc__session_id(c);
  if (!bad) {
    s->held = held;
    s->has_node = 1;
    atomic_store(&s->stop, 0);
    s->leading = 1;
    /* Under s->mu, so that the guard cannot fire before it is recorded. */
    if (zkc__guard_add(c, held.node, held.session_id, on_node_gone, s,
                       &s->guard) != ZKC_OK)
      zkc__log(c, ZKC_LOG_WARN, "out of memory: selector %s unwatched",
               s->path);
  }
  pthread_mutex_unlock(&s->mu);
  if (bad) {
    zkc__lock_release(c, &held);
    return !atomic_load(&s->cancel);
  }
  zkc__log(c, ZKC_LOG_INFO, "selector %s: leader (%s)", s->path, held.node);

  s->take(s->ctx, s);

  pthread_mutex_lock(&s->mu);
  s->leading = 0;
  held = s->held;
  s->has_node = 0;
  s->held.node = NULL;
  s->queued = s->auto_requeue && s->state == STARTED;
  uint64_t guard = s->guard;
  s->guard = 0;
  pthread_mutex_unlock(&s->mu);
  zkc__guard_remove(c, guard);
  /* A guaranteed delete: the next participant leads once it is gone. A
   * node of a lost session is gone already. */
  zkc__lock_release(c, &held);
  zkc__log(c, ZKC_LOG_INFO, "selector %s: leadership given up", s->path);
  return 1;
}

static void *selector_main(void *arg) {
  zkc_selector_t *s = arg;
  atomic_store(&s->thread_id, zkc__thread_id());
  /* Close cancels the election waits, and the blocking zkcoord calls
   * take_leadership makes, through this flag. */
  zkc__cancel_bind(&s->cancel);
  while (one_turn(s)) {
  }
  zkc__cancel_bind(NULL);
  return NULL;
}

void zkc_selector_opts_init(zkc_selector_opts_t *opts) {
  if (opts) memset(opts, 0, sizeof *opts);
}

int zkc_selector_create(zkc_selector_t **out, zkc_client_t *client,
                        const char *path, zkc_selector_fn take_leadership,
                        void *ctx, const zkc_selector_opts_t *opts) {
  if (out != NULL) *out = NULL;
  if (out == NULL || client == NULL || take_leadership == NULL ||
      zkc__path_validate(path) != ZKC_OK ||
      (opts && zkc__id_validate(opts->id) != ZKC_OK))
    return ZKC_EINVAL;
  zkc_selector_t *s = calloc(1, sizeof *s);
  if (s == NULL) return ZKC_ENOMEM;
  s->take = take_leadership;
  s->ctx = ctx;
  if (opts) {
    s->auto_requeue = opts->auto_requeue != 0;
    s->on_state_fn = opts->on_state;
  }
  const char *id = opts && opts->id ? opts->id : zkc__holder_id(client);
  s->path = strdup(path);
  s->id = strdup(id);
  int ok = s->path && s->id;
  int inits = 0;
  if (ok && pthread_mutex_init(&s->mu, NULL) == 0) inits++;
  if (inits == 1 && pthread_mutex_init(&s->cb_mu, NULL) == 0) inits++;
  if (inits == 2 && zkc__cond_init(&s->cv) == ZKC_OK) inits++;
  int rc = inits == 3 ? ZKC_OK : ZKC_ENOMEM;
  /* Everything on_state reads is set before it can run. */
  s->client = client;
  atomic_init(&s->stop, 0);
  atomic_init(&s->cancel, 0);
  atomic_init(&s->thread_id, 0);
  if (rc == ZKC_OK) rc = zkc__client_ref(client);
  if (rc == ZKC_OK) {
    rc = zkc__observer_add(client, on_state, s);
    if (rc != ZKC_OK) zkc__client_unref(client);
  }
  if (rc != ZKC_OK) {
    if (inits >= 3) pthread_cond_destroy(&s->cv);
    if (inits >= 2) pthread_mutex_destroy(&s->cb_mu);
    if (inits >= 1) pthread_mutex_destroy(&s->mu);
    free(s->path);
    free(s->id);
    free(s);
    return rc;
  }
  *out = s;
  return ZKC_OK;
}

int zkc_selector_start(zkc_selector_t *s) {
  if (s == NULL) return ZKC_EINVAL;
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  zkc_state_t st;
  pthread_mutex_lock(&s->mu);
  /* Read under s->mu: a state the observer reports after this read is
   * recorded after it, never overwritten by it. */
  zkc_client_state(s->client, &st);
  if (st == ZKC_STATE_CLOSED) {
    pthread_mutex_unlock(&s->mu);
    return ZKC_ECLOSED;
  }
  if (s->state != LATENT) {
    pthread_mutex_unlock(&s->mu);
    return ZKC_EBUSY;
  }
  /* The observer keeps `live` current from here on; this reads the state
   * it may have missed since create. */
  s->live = live_state(st);
  s->state = STARTED;
  s->queued = 1;
  int rc = pthread_create(&s->thread, NULL, selector_main, s) == 0
               ? ZKC_OK
               : ZKC_ESYSTEM;
  if (rc == ZKC_OK) {
    s->thread_started = 1;
  } else {
    s->state = LATENT;
    s->queued = 0;
  }
  pthread_mutex_unlock(&s->mu);
  return rc;
}

int zkc_selector_requeue(zkc_selector_t *s) {
  if (s == NULL) return ZKC_EINVAL;
  int closed = zkc__client_closed(s->client);
  pthread_mutex_lock(&s->mu);
  int rc = s->state == LATENT   ? ZKC_EINVAL
           : s->state == CLOSED ? ZKC_ECLOSED
           : closed             ? ZKC_ECLOSED
           : s->queued          ? ZKC_EBUSY
                                : ZKC_OK;
  if (rc == ZKC_OK) {
    s->queued = 1;
    pthread_cond_broadcast(&s->cv);
  }
  pthread_mutex_unlock(&s->mu);
  return rc;
}

int zkc_selector_close(zkc_selector_t *s) {
  if (s == NULL) return ZKC_OK;
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  int own = on_selector_thread(s);
  int do_join = 0;
  pthread_mutex_lock(&s->mu);
  if (s->state != CLOSED) {
    s->state = CLOSED;
    s->queued = 0;
    atomic_store(&s->cancel, 1);
    atomic_store(&s->stop, 1);
    pthread_cond_broadcast(&s->cv);
  }
  if (own) { /* from take_leadership: the thread ends after it returns */
    pthread_mutex_unlock(&s->mu);
    return ZKC_OK;
  }
  if (s->thread_started && !s->join_claimed) {
    s->join_claimed = 1;
    do_join = 1;
  } else {
    while (s->thread_started && !s->joined) pthread_cond_wait(&s->cv, &s->mu);
  }
  pthread_mutex_unlock(&s->mu);
  if (do_join) {
    zkc__cancel_wake(s->client); /* a wait inside the lock internals ends */
    pthread_join(s->thread, NULL); /* it released its node on the way out */
    pthread_mutex_lock(&s->mu);
    s->joined = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
  }
  pthread_mutex_lock(&s->cb_mu); /* waits out a state callback running */
  s->cb_off = 1;
  pthread_mutex_unlock(&s->cb_mu);
  return ZKC_OK;
}

int zkc_selector_destroy(zkc_selector_t *s) {
  if (s == NULL) return ZKC_OK;
  if (zkc__on_callback_thread() || on_selector_thread(s)) return ZKC_EDEADLK;
  int rc = zkc_selector_close(s);
  if (rc != ZKC_OK) return rc;
  rc = zkc__observer_remove(s->client, on_state, s);
  if (rc == ZKC_EDEADLK) return rc;
  zkc__client_unref(s->client);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  pthread_mutex_destroy(&s->cb_mu);
  free(s->path);
  free(s->id);
  free(s);
  return ZKC_OK;
}

int zkc_selector_should_stop(const zkc_selector_t *s) {
  if (s == NULL) return 1;
  return atomic_load(&s->stop) || atomic_load(&s->cancel) ||
         zkc__client_closed(s->client);
}

int zkc_selector_has_leadership(const zkc_selector_t *cs) {
  if (cs == NULL) return 0;
  zkc_selector_t *s = (zkc_selector_t *)cs; /* locking is not a change */
  pthread_mutex_lock(&s->mu);
  int leading = s->leading;
  pthread_mutex_unlock(&s->mu);
  return leading && !zkc_selector_should_stop(s);
}

int zkc_selector_fencing_token(const zkc_selector_t *cs, int64_t *token) {
  if (cs == NULL || token == NULL) return ZKC_EINVAL;
  zkc_selector_t *s = (zkc_selector_t *)cs;
  pthread_mutex_lock(&s->mu);
  int rc = s->leading && s->has_node ? ZKC_OK : ZKC_ENOTOWNER;
  if (rc == ZKC_OK) *token = s->held.token;
  pthread_mutex_unlock(&s->mu);
  return rc;
}

const char *zkc_selector_id(const zkc_selector_t *s) {
  return s ? s->id : NULL;
}

const char *zkc_selector_path(const zkc_selector_t *s) {
  return s ? s->path : NULL;
}

int zkc_selector_participants(zkc_selector_t *s, zkc_participant_t **out,
                              size_t *count) {
  if (s == NULL || out == NULL || count == NULL) return ZKC_EINVAL;
  return zkc__participants_read(s->client, s->path, out, count);
}

int zkc_selector_leader_id(zkc_selector_t *s, char **id) {
  if (s == NULL || id == NULL) return ZKC_EINVAL;
  *id = NULL;
  zkc_participant_t *p;
  size_t n;
  int rc = zkc_selector_participants(s, &p, &n);
  if (rc != ZKC_OK) return rc;
  for (size_t i = 0; i < n && *id == NULL; i++)
    if (p[i].is_leader) *id = p[i].id, p[i].id = NULL;
  zkc_participants_free(p, n);
  return ZKC_OK;
}
