/* SPDX-License-Identifier: Apache-2.0 */
/* The observer: an election's leader or a lock's holder, told at each
 * change to a non-participant (zkcoord/observer.h). One thread per
 * observer reads the path, tells what changed, watches the one node whose
 * change can change the answer (the leader's, or the path's children when
 * nobody leads) and sleeps until that watch fires, the session is
 * replaced, the connection comes back or the observer closes. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "observe_pick.h"
#include "session.h"
#include "util.h"
#include "zkcoord/observer.h"

enum { LATENT = 0, STARTED = 1, CLOSED = 2 };

struct zkc_observer {
  zkc_client_t *c;
  char *path;
  zkc_observe_kind_t kind;
  zkc_observe_fn fn;
  void *ctx;

  pthread_mutex_t mu; /* guards the fields below */
  pthread_cond_t cv;  /* a new state, or the end */
  int state;          /* LATENT, STARTED, CLOSED */
  pthread_t thread;
  int thread_started;
  zkc_observation_t *latest; /* the newest state told (a copy) */
  uint64_t returned;         /* the change zkc_observer_next returned last */
  int ended;                 /* the error that ended observing, or ZKC_OK */
  int over;                  /* the thread stopped: nothing more comes */

  /* The thread's: a wait inside the session layer gives up once `wake`
   * is set (close, or a reconnect: read again). */
  atomic_int wake;
  atomic_int closing;
  atomic_uint_fast64_t thread_id;
  pthread_mutex_t cb_mu; /* held while the user's callback runs */
  zkc__observe_seen_t seen;
  zkc__waiter_t w;
};

/* ---- states told ---- */

/* A copy of a state in one block: the struct, its id and its node. */
static zkc_observation_t *observation_new(int has_leader, const char *id,
                                          size_t id_len, int denied,
                                          int64_t token, const char *node,
                                          int64_t session, uint64_t change) {
  size_t node_len = node ? strlen(node) : 0;
  zkc_observation_t *ev = malloc(sizeof *ev + id_len + 1 + node_len + 1);
  if (ev == NULL) return NULL;
  char *idp = (char *)(ev + 1), *nodep = idp + id_len + 1;
  if (id_len) memcpy(idp, id, id_len);
  idp[id_len] = '\0';
  if (node_len) memcpy(nodep, node, node_len);
  nodep[node_len] = '\0';
  *ev = (zkc_observation_t){.has_leader = has_leader,
                            .id = idp,
                            .id_len = id_len,
                            .id_denied = denied,
                            .token = token,
                            .node = nodep,
                            .session = session,
                            .change = change};
  return ev;
}

static zkc_observation_t *observation_copy(const zkc_observation_t *e) {
  return observation_new(e->has_leader, e->id, e->id_len, e->id_denied,
                         e->token, e->node, e->session, e->change);
}

void zkc_observation_free(zkc_observation_t *ev) { free(ev); }

/* Tells a state that zkc__observe_change called a change: kept for
 * zkc_observer_next, then given to the callback (outside o->mu). */
static int tell(zkc_observer_t *o, const zkc_observation_t *ev) {
  zkc_observation_t *copy = observation_copy(ev);
  if (copy == NULL) return ZKC_ENOMEM;
  pthread_mutex_lock(&o->mu);
  zkc_observation_t *old = o->latest;
  o->latest = copy;
  pthread_cond_broadcast(&o->cv);
  pthread_mutex_unlock(&o->mu);
  free(old);
  if (o->fn) {
    pthread_mutex_lock(&o->cb_mu);
    if (!atomic_load(&o->closing)) {
      zkc__dispatch_enter(); /* a blocking call from it: ZKC_EDEADLK */
      o->fn(o->ctx, o, ZKC_OK, ev);
      zkc__dispatch_leave();
    }
    pthread_mutex_unlock(&o->cb_mu);
  }
  return ZKC_OK;
}

/* Observing ended for good with rc (or the observer closes, rc 0). */
static void finish(zkc_observer_t *o, int rc) {
  pthread_mutex_lock(&o->mu);
  o->ended = rc;
  o->over = 1;
  pthread_cond_broadcast(&o->cv);
  pthread_mutex_unlock(&o->mu);
  if (rc != ZKC_OK && rc != ZKC_ELAYOUT) /* a refusal said it already */
    zkc__log(o->c, ZKC_LOG_ERROR, "observer of %s: stopped: %s", o->path,
             zkc_strerror(rc));
  if (rc != ZKC_OK && o->fn) {
    pthread_mutex_lock(&o->cb_mu);
    if (!atomic_load(&o->closing)) {
      zkc__dispatch_enter();
      o->fn(o->ctx, o, rc, NULL);
      zkc__dispatch_leave();
    }
    pthread_mutex_unlock(&o->cb_mu);
  }
}

/* ---- one round: read, tell, watch, wait ---- */

/* What a round's read found. */
typedef struct {
  int has_leader;
  char *node; /* full path of the leader's node */
  char *data;
  int data_len;
  int denied;
  zkc__stat_t stat;
} found_t;

/* Tells `f` if it is a change. */
static int tell_found(zkc_observer_t *o, const found_t *f) {
  if (!zkc__observe_change(&o->seen, f->has_leader, f->stat.czxid)) {
    /* Not told: a leader read again, or a stale read (older than one
     * told). */
    return ZKC_OK;
  }
  zkc_observation_t ev = {
      .has_leader = f->has_leader,
      .id = f->has_leader && f->data ? f->data : "",
      .id_len = f->has_leader && f->data ? (size_t)f->data_len : 0,
      .id_denied = f->denied,
      .token = f->has_leader ? f->stat.czxid : 0,
      .node = f->has_leader ? f->node : "",
      .session = f->has_leader ? f->stat.ephemeral_owner : 0};
  pthread_mutex_lock(&o->mu);
  ev.change = o->latest ? o->latest->change + 1 : 1;
  pthread_mutex_unlock(&o->mu);
  return tell(o, &ev);
}

/* Sends one watch request for the registered waiter and waits for its
 * answer. */
static int watch(zkc_observer_t *o, zkc__req_kind_t kind, const char *path,
                 zkc__call_t *call) {
  *call = (zkc__call_t){
      .rq = {.kind = kind, .path = path, .watch = o->w.id}};
  return zkc__call(o->c, call, 1, NULL);
}

/* A round. ZKC_OK: the watch fired or the session was replaced (read
 * again); ZKC_ECLOSED: woken by close or a reconnect; else the error. */
static int round_once(zkc_observer_t *o) {
  int rc = zkc__wait_connected(o->c, ZKC__FOREVER);
  if (rc != ZKC_OK) return rc;
  /* The sync first: on a follower the read behind it shows everything
   * committed before the sync was sent (on the leader, a committed prefix:
   * a later watch's event tells the rest). */
  zkc__call_t list[2] = {
      {.rq = {.kind = ZKC__REQ_SYNC, .path = o->path}},
      {.rq = {.kind = ZKC__REQ_CHILDREN, .path = o->path}}};
  rc = zkc__call(o->c, list, 2, NULL);
  int missing = rc == ZKC_ENONODE;
  zkc__log(o->c, ZKC_LOG_DEBUG, "observer of %s: read %s", o->path,
           zkc_err_name(rc));
  if (rc != ZKC_OK && !missing) {
    zkc__call_clear(list, 2);
    return rc;
  }
  rc = ZKC_OK; /* a missing path is read as nobody */
  char **names = list[1].children.data;
  size_t n = missing ? 0 : (size_t)list[1].children.count;
  unsigned refused = zkc__observe_refused(o->kind, names, n);
  if (refused != 0) {
    zkc__call_clear(list, 2);
    return zkc__refuse(o->c, ZKC_ELAYOUT, "observer of %s: the path holds %s",
                       o->path, zkc__layout_what(refused));
  }
  long lead = zkc__observe_leader(names, n);
  found_t f = {.has_leader = lead >= 0};
  const char *watched = o->path;
  int child_watch = 0, set = 0; /* the watch is set on the server */
  zkc__call_t got = {0};
  if (lead >= 0 && (f.node = zkc__path_join(o->path, names[lead])) == NULL)
    rc = ZKC_ENOMEM;
  zkc__call_clear(list, 2);
  if (rc != ZKC_OK) return rc;
  if (f.has_leader) watched = f.node;
  if ((rc = zkc__waiter_register(o->c, &o->w, watched)) != ZKC_OK) {
    free(f.node);
    return rc;
  }
  if (f.has_leader) {
    /* The leader's data (its id) and a watch on it: its delete (or a data
     * change) is the one change of this node that matters. */
    rc = watch(o, ZKC__REQ_GET_WATCH, f.node, &got);
    if (rc == ZKC_ENOAUTH) { /* its ACL hides the id: the stat will do */
      zkc__call_clear(&got, 1);
      f.denied = 1;
      rc = watch(o, ZKC__REQ_EXISTS_WATCH, f.node, &got);
    }
    if (rc == ZKC_OK) {
      f.stat = got.stat;
      f.data = got.data;
      f.data_len = got.data_len;
    }
  } else if (missing) {
    /* No path: its creation fires an exists watch (left also on a node
     * that is not there). */
    rc = watch(o, ZKC__REQ_EXISTS_WATCH, o->path, &got);
    set = rc == ZKC_OK || rc == ZKC_ENONODE;
    if (rc == ZKC_OK) rc = ZKC_ENONODE; /* made meanwhile: read again */
    else if (rc == ZKC_ENONODE) rc = ZKC_OK;
  } else {
    /* Nobody: any new child may lead. */
    child_watch = 1;
    rc = watch(o, ZKC__REQ_CHILDREN_WATCH, o->path, &got);
    if (rc == ZKC_OK && got.children.count > 0 &&
        zkc__observe_leader(got.children.data, (size_t)got.children.count) >= 0)
      rc = ZKC_ENONODE; /* a contender came meanwhile: read again */
    set = rc == ZKC_OK || rc == ZKC_ENONODE;
  }
  if (f.has_leader) set = rc == ZKC_OK;
  zkc__log(o->c, ZKC_LOG_DEBUG, "observer of %s: watch on %s: %s", o->path,
           watched, zkc_err_name(rc));
  if (rc == ZKC_OK) rc = tell_found(o, &f);
  /* Waits when all went well; else the watch, if set, did not fire and is
   * removed. */
  zkc__watch_left_t kind = !set          ? ZKC__LEFT_NONE
                           : child_watch ? ZKC__LEFT_CHILDREN
                                         : ZKC__LEFT_DATA;
  zkc__wake_t why = zkc__waiter_end(o->c, &o->w, rc == ZKC_OK, kind);
  zkc__call_clear(&got, 1);
  free(f.node);
  /* ZKC_ENONODE: the leader's node went (or a node came) between the
   * listing and the watch: read again at once. */
  if (rc == ZKC_ENONODE) return ZKC_OK;
  if (rc != ZKC_OK) return rc;
  return why == ZKC__WAKE_CLOSED ? ZKC_ECLOSED : ZKC_OK;
}

static void *observer_main(void *arg) {
  zkc_observer_t *o = arg;
  atomic_store(&o->thread_id, zkc__thread_id());
  zkc__cancel_bind(&o->wake);
  int attempt = 0, rc = ZKC_OK;
  for (;;) {
    rc = round_once(o);
    if (atomic_load(&o->closing)) {
      rc = ZKC_OK;
      break;
    }
    if (rc == ZKC_OK) {
      attempt = 0;
      continue;
    }
    if (rc == ZKC_ECLOSED) {
      if (zkc__client_facts(o->c).closed) break; /* next: ZKC_ECLOSED */
      atomic_store(&o->wake, 0);            /* a reconnect: read again */
      continue;
    }
    /* Connection loss, a timeout, no memory: again after a pause. */
    int why = zkc__background_retry(o->c, rc, &attempt);
    if (why == rc) break; /* it would recur */
    if (why != ZKC_OK && !atomic_load(&o->closing) &&
        !zkc__client_facts(o->c).closed)
      atomic_store(&o->wake, 0);
  }
  zkc__cancel_bind(NULL);
  finish(o, rc == ZKC_ECLOSED ? ZKC_OK : rc);
  return NULL;
}

/* The client's states: after a reconnect (same session) read again, as
 * the watch may have been set on a server that lagged; a new session
 * wakes the waiter by itself. */
static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_observer_t *o = ctx;
  (void)lost_session;
  if (st != ZKC_STATE_RECONNECTED && st != ZKC_STATE_CONNECTED) return;
  pthread_mutex_lock(&o->mu);
  int started = o->state == STARTED;
  pthread_mutex_unlock(&o->mu);
  if (!started) return;
  atomic_store(&o->wake, 1);
  zkc__cancel_wake(o->c);
}

/* ---- the public calls ---- */

static int observer_create_impl(zkc_observer_t **out, zkc_client_t *c,
                                const char *path, zkc_observe_kind_t kind) {
  if (out) *out = NULL;
  int rc = zkc__refuse_null(c, "zkc_observer_create", "out", out == NULL,
                            "client", c == NULL, (const char *)NULL);
  if (rc == ZKC_OK)
    rc = zkc__check_path(c, "zkc_observer_create", "observed path", path);
  if (rc == ZKC_OK)
    rc = ZKC__REFUSE_IF(c,
                        kind != ZKC_OBSERVE_ELECTION && kind != ZKC_OBSERVE_LOCK,
                        "zkc_observer_create", "unknown kind %d", (int)kind);
  if (rc != ZKC_OK) return rc;
  zkc_observer_t *o = calloc(1, sizeof *o);
  if (o == NULL || (o->path = strdup(path)) == NULL) {
    free(o);
    return ZKC_ENOMEM;
  }
  o->c = c;
  o->kind = kind;
  atomic_init(&o->wake, 0);
  atomic_init(&o->closing, 0);
  atomic_init(&o->thread_id, 0);
  int inits = 0;
  if (pthread_mutex_init(&o->mu, NULL) == 0) inits++;
  if (inits == 1 && pthread_mutex_init(&o->cb_mu, NULL) == 0) inits++;
  if (inits == 2 && zkc__cond_init(&o->cv) == ZKC_OK) inits++;
  rc = inits == 3 ? zkc__recipe_attach(c, on_state, o) : ZKC_ENOMEM;
  if (rc != ZKC_OK) {
    if (inits >= 3) pthread_cond_destroy(&o->cv);
    if (inits >= 2) pthread_mutex_destroy(&o->cb_mu);
    if (inits >= 1) pthread_mutex_destroy(&o->mu);
    free(o->path);
    free(o);
    return rc;
  }
  *out = o;
  return ZKC_OK;
}

int zkc_observer_create(zkc_observer_t **out, zkc_client_t *client,
                        const char *path, zkc_observe_kind_t kind) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           observer_create_impl(out, client, path, kind));
}

static int observer_set_callback_impl(zkc_observer_t *o, zkc_observe_fn fn,
                                      void *ctx) {
  int rc = ZKC__REFUSE_IF(NULL, o == NULL, "zkc_observer_set_callback",
                          "observer is NULL");
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&o->mu);
  if (o->state != LATENT) {
    rc = ZKC_EBUSY;
  } else {
    o->fn = fn;
    o->ctx = ctx;
  }
  pthread_mutex_unlock(&o->mu);
  return rc;
}

int zkc_observer_set_callback(zkc_observer_t *obs, zkc_observe_fn fn,
                              void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           observer_set_callback_impl(obs, fn, ctx));
}

static int observer_start_impl(zkc_observer_t *o) {
  int rc = ZKC__REFUSE_IF(NULL, o == NULL, "zkc_observer_start",
                          "observer is NULL");
  if (rc != ZKC_OK) return rc;
  if (zkc__client_facts(o->c).closed) return ZKC_ECLOSED;
  pthread_mutex_lock(&o->mu);
  if (o->state != LATENT) {
    rc = ZKC_EBUSY;
  } else if (pthread_create(&o->thread, NULL, observer_main, o) != 0) {
    rc = ZKC_ESYSTEM;
  } else {
    o->thread_started = 1;
    o->state = STARTED;
  }
  pthread_mutex_unlock(&o->mu);
  return rc;
}

int zkc_observer_start(zkc_observer_t *obs) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, observer_start_impl(obs));
}

/* A new state for the consumer, or the end. */
static int next_ready_locked(const zkc_observer_t *o) {
  return (o->latest && o->latest->change > o->returned) || o->over ||
         o->state == CLOSED;
}

static int observer_next_impl(zkc_observer_t *o, int64_t timeout_ms,
                              zkc_observation_t **out) {
  if (out) *out = NULL;
  int rc = zkc__refuse_null(NULL, "zkc_observer_next", "observer", o == NULL,
                            "out", out == NULL, (const char *)NULL);
  if (rc != ZKC_OK) return rc;
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  pthread_mutex_lock(&o->mu);
  if (o->state == LATENT) {
    pthread_mutex_unlock(&o->mu);
    return ZKC__REFUSE_IF(o->c, 1, "zkc_observer_next",
                          "the observer was never started");
  }
  while (!next_ready_locked(o)) {
    if (zkc__cond_wait_until(&o->cv, &o->mu, deadline) == ETIMEDOUT) break;
  }
  if (o->latest && o->latest->change > o->returned) {
    *out = observation_copy(o->latest);
    if (*out == NULL) {
      rc = ZKC_ENOMEM;
    } else {
      (*out)->missed = o->latest->change - o->returned - 1;
      o->returned = o->latest->change;
    }
  } else if (o->state == CLOSED || (o->over && o->ended == ZKC_OK)) {
    rc = ZKC_ECLOSED;
  } else if (o->over) {
    rc = o->ended;
  } else {
    rc = ZKC_ETIMEDOUT;
  }
  pthread_mutex_unlock(&o->mu);
  return rc;
}

int zkc_observer_next(zkc_observer_t *obs, int64_t timeout_ms,
                      zkc_observation_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           observer_next_impl(obs, timeout_ms, out));
}

const char *zkc_observer_path(const zkc_observer_t *obs) {
  return obs ? obs->path : NULL;
}

static int observer_close_impl(zkc_observer_t *o) {
  if (o == NULL) return ZKC_OK;
  if (zkc__on_callback_thread() ||
      atomic_load(&o->thread_id) == zkc__thread_id())
    return ZKC_EDEADLK;
  pthread_mutex_lock(&o->mu);
  int was = o->state, join = o->thread_started;
  o->state = CLOSED;
  o->thread_started = 0;
  pthread_cond_broadcast(&o->cv);
  pthread_mutex_unlock(&o->mu);
  if (was == CLOSED || !join) return ZKC_OK;
  atomic_store(&o->closing, 1);
  atomic_store(&o->wake, 1);
  zkc__cancel_wake(o->c); /* a wait inside the session layer sees it */
  pthread_join(o->thread, NULL);
  return ZKC_OK;
}

int zkc_observer_close(zkc_observer_t *obs) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, observer_close_impl(obs));
}

static int observer_destroy_impl(zkc_observer_t *o) {
  if (o == NULL) return ZKC_OK;
  int rc = observer_close_impl(o);
  if (rc != ZKC_OK) return rc;
  if ((rc = zkc__recipe_detach(o->c, on_state, o)) != ZKC_OK) return rc;
  pthread_cond_destroy(&o->cv);
  pthread_mutex_destroy(&o->mu);
  pthread_mutex_destroy(&o->cb_mu);
  free(o->latest);
  free(o->path);
  free(o);
  return ZKC_OK;
}

int zkc_observer_destroy(zkc_observer_t *obs) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, observer_destroy_impl(obs));
}
