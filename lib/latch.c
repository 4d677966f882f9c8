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
#include "zkcoord/leader.h"

#define LATCH_NAME "latch-" /* Curator's LeaderLatch.LOCK_NAME */
/* Pause after an election step failed with a ZooKeeper error that outlasted
 * the retry policy (ZKC_ENOAUTH, ...), before trying again. */
#define ERROR_PAUSE_MS 1000

enum { LATENT = 0, STARTED = 1, CLOSED = 2 };

struct zkc_latch {
  zkc_client_t *client; /* set at create, never changes */
  char *path;
  char *id;

  pthread_mutex_t mu; /* guards the fields below up to cb_mu */
  pthread_cond_t cv;  /* state, leadership, connection changes */
  int state;          /* LATENT, STARTED, CLOSED */
  int leader;         /* has leadership now */
  int shown;          /* ... and is_leader is told: others see it */
  int drop;           /* the observer took leadership away */
  int has_node;       /* held is valid (while leader) */
  zkc__held_t held;
  uint64_t guard;     /* the watch on held.node */
  int live;               /* the client's connection is up */
  int64_t lost_session;   /* the last session reported LOST */
  uint64_t suspend_gen;   /* SUSPENDED/READ_ONLY reports seen */
  pthread_t thread;
  int thread_started;
  atomic_uint_fast64_t thread_id; /* zkc__thread_id() of the latch thread */
  atomic_int cancel;      /* close: the latch thread must stop */

  pthread_mutex_t cb_mu;  /* held while a callback runs */
  atomic_int cb_off;      /* no callback may start any more */
  int told;               /* 1 after is_leader, 0 after not_leader */
  zkc_latch_opts_t opts;
};

/* The latch whose callback the calling thread is running, if any: a
 * NOTIFY_LEADER close runs not_leader on the closing thread itself. */
static _Thread_local const zkc_latch_t *in_callback_of;

static int on_latch_thread(const zkc_latch_t *l) {
  /* thread_id is set by the latch thread itself when it starts (0 before). */
  return atomic_load(&l->thread_id) == zkc__thread_id() || in_callback_of == l;
}

/* Leadership as callers see it: from the call of is_leader on. Caller
 * holds l->mu. */
static int shown_locked(const zkc_latch_t *l) { return l->leader && l->shown; }

/* Tells the callbacks that leadership is now `leader`, once per change.
 * Leadership is shown to callers as is_leader is called, under cb_mu: one
 * that sees it and closes silently waits for is_leader to return, and one
 * the callback signals sees it at once. Leadership that the observer took
 * away before is not told at all. */
static void tell(zkc_latch_t *l, int leader) {
  pthread_mutex_lock(&l->cb_mu);
  int go = !atomic_load(&l->cb_off) && l->told != leader;
  if (go && leader) {
    pthread_mutex_lock(&l->mu);
    go = l->shown = l->leader;
    pthread_cond_broadcast(&l->cv); /* awaiters */
    pthread_mutex_unlock(&l->mu);
  }
  if (go) {
    l->told = leader;
    zkc_latch_fn fn = leader ? l->opts.is_leader : l->opts.not_leader;
    in_callback_of = l;
    if (fn) fn(l->opts.ctx, l);
    in_callback_of = NULL;
  }
  pthread_mutex_unlock(&l->cb_mu);
}

static int live_state(zkc_state_t st) {
  return st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED;
}

/* Client observer (maintenance thread): tracks the connection and takes
 * leadership away at once; the latch thread then tells not_leader. */
static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_latch_t *l = ctx;
  int suspended = st == ZKC_STATE_SUSPENDED || st == ZKC_STATE_READ_ONLY;
  int drop_on_suspend = zkc__lost_on_suspended(l->client); /* set at open */
  pthread_mutex_lock(&l->mu);
  l->live = live_state(st);
  int drop = 0;
  if (st == ZKC_STATE_LOST) {
    l->lost_session = lost_session;
    drop = l->leader && l->held.session_id == lost_session;
  } else if (suspended) {
    l->suspend_gen++;
    drop = l->leader && drop_on_suspend;
  }
  if (drop) {
    l->leader = 0;
    l->drop = 1;
  }
  pthread_cond_broadcast(&l->cv);
  pthread_mutex_unlock(&l->mu);
  if (drop)
    zkc__log(l->client, ZKC_LOG_WARN, "latch %s: leadership lost (%s)",
             l->path, zkc_state_name(st));
}

/* Our node was deleted by another client while the session lived:
 * leadership is gone; the latch thread rejoins with a new node. */
static void on_node_gone(void *ctx, uint64_t guard) {
  zkc_latch_t *l = ctx;
  pthread_mutex_lock(&l->mu);
  int drop = l->leader && l->guard == guard;
  if (drop) {
    l->leader = 0;
    l->drop = 1;
    pthread_cond_broadcast(&l->cv);
  }
  pthread_mutex_unlock(&l->mu);
  if (drop)
    zkc__log(l->client, ZKC_LOG_WARN,
             "latch %s: leadership lost (node deleted by another client)",
             l->path);
}

/* Takes the node (and its watch) from the latch; caller holds l->mu. */
static zkc__held_t take_node_locked(zkc_latch_t *l, uint64_t *guard) {
  zkc__held_t held = l->held;
  *guard = l->guard;
  l->guard = 0;
  l->has_node = 0;
  l->held.node = NULL;
  return held;
}

/* Waits on l->cv until the deadline or cancel; caller holds l->mu. */
static void pause_locked(zkc_latch_t *l, int64_t deadline) {
  while (!atomic_load(&l->cancel) &&
         zkc__cond_wait_until(&l->cv, &l->mu, deadline) != ETIMEDOUT) {
  }
}

/* One turn: wait for a live connection, queue, lead until leadership is
 * lost. Returns 0 when the thread must stop. */
static int one_turn(zkc_latch_t *l) {
  zkc_client_t *c = l->client;
  pthread_mutex_lock(&l->mu);
  while (!atomic_load(&l->cancel) && !l->live)
    pthread_cond_wait(&l->cv, &l->mu);
  uint64_t gen0 = l->suspend_gen;
  pthread_mutex_unlock(&l->mu);
  if (atomic_load(&l->cancel)) return 0;

  zkc__held_t held = {0};
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return 0; /* client closed */
  rc = zkc__lock_acquire_data(c, l->path, LATCH_NAME, l->id, ZKC__FOREVER,
                              &held);
  zkc__call_leave(c);
  if (rc == ZKC_ECLOSED) return 0; /* latch or client closing */
  if (rc != ZKC_OK) {
    zkc__log(c, ZKC_LOG_ERROR, "latch %s: cannot join the election: %s; "
             "trying again", l->path, zkc_strerror(rc));
    pthread_mutex_lock(&l->mu);
    pause_locked(l, zkc__deadline_after(ERROR_PAUSE_MS));
    pthread_mutex_unlock(&l->mu);
    return !atomic_load(&l->cancel);
  }

  /* First in the queue with a node of the current session. Trouble that
   * came while we queued may already have taken it away: the observer
   * records every state under l->mu whether we lead or not, so a change
   * dispatched between the grant and this check is seen here, one after it
   * by the observer's drop. A node of any session but the current one is
   * not ours to lead with, whichever LOST was reported last. */
  pthread_mutex_lock(&l->mu);
  int doubt = zkc__lost_on_suspended(c) && (l->suspend_gen != gen0 || !l->live);
  int bad = atomic_load(&l->cancel) || held.session_id == l->lost_session ||
            held.session_id != zkc__session_id(c) || doubt;
  if (!bad) {
    l->held = held;
    l->has_node = 1;
    l->leader = 1;
    l->shown = 0;
    l->drop = 0;
    /* Under l->mu, so that the guard cannot fire before it is recorded. */
    if (zkc__guard_add(c, held.node, held.session_id, on_node_gone, l,
                       &l->guard) != ZKC_OK)
      zkc__log(c, ZKC_LOG_WARN, "out of memory: latch %s unwatched", l->path);
  }
  pthread_mutex_unlock(&l->mu);
  if (bad) {
    zkc__lock_release(c, &held);
    return !atomic_load(&l->cancel);
  }
  zkc__log(c, ZKC_LOG_INFO, "latch %s: leader (%s)", l->path, held.node);
  tell(l, 1);

  pthread_mutex_lock(&l->mu);
  while (!atomic_load(&l->cancel) && !l->drop)
    pthread_cond_wait(&l->cv, &l->mu);
  if (atomic_load(&l->cancel)) { /* close takes over the node */
    pthread_mutex_unlock(&l->mu);
    return 0;
  }
  uint64_t guard;
  held = take_node_locked(l, &guard);
  l->drop = 0;
  pthread_mutex_unlock(&l->mu);
  zkc__guard_remove(c, guard);
  tell(l, 0);
  /* The node is gone with the session, or (suspended) must go so that the
   * next participant can lead: a guaranteed delete. */
  zkc__lock_release(c, &held);
  return 1;
}

static void *latch_main(void *arg) {
  zkc_latch_t *l = arg;
  atomic_store(&l->thread_id, zkc__thread_id());
  zkc__cancel_bind(&l->cancel);
  while (one_turn(l)) {
  }
  zkc__cancel_bind(NULL);
  return NULL;
}

void zkc_latch_opts_init(zkc_latch_opts_t *opts) {
  if (opts) memset(opts, 0, sizeof *opts);
}

static void latch_free(zkc_latch_t *l) {
  pthread_cond_destroy(&l->cv);
  pthread_mutex_destroy(&l->mu);
  pthread_mutex_destroy(&l->cb_mu);
  free(l->path);
  free(l->id);
  free(l);
}

int zkc_latch_create(zkc_latch_t **out, zkc_client_t *client, const char *path,
                     const char *id, const zkc_latch_opts_t *opts) {
  if (out != NULL) *out = NULL;
  if (out == NULL || client == NULL || zkc__path_validate(path) != ZKC_OK ||
      zkc__id_validate(id) != ZKC_OK)
    return ZKC_EINVAL;
  zkc_latch_t *l = calloc(1, sizeof *l);
  if (l == NULL) return ZKC_ENOMEM;
  if (opts) l->opts = *opts;
  l->path = strdup(path);
  l->id = strdup(id ? id : zkc__holder_id(client));
  int ok = l->path && l->id;
  int inits = 0;
  if (ok && pthread_mutex_init(&l->mu, NULL) == 0) inits++;
  if (inits == 1 && pthread_mutex_init(&l->cb_mu, NULL) == 0) inits++;
  if (inits == 2 && zkc__cond_init(&l->cv) == ZKC_OK) inits++;
  int rc = inits == 3 ? ZKC_OK : ZKC_ENOMEM;
  /* Everything on_state reads is set before it can run. */
  l->client = client;
  atomic_init(&l->cancel, 0);
  atomic_init(&l->thread_id, 0);
  atomic_init(&l->cb_off, 0);
  if (rc == ZKC_OK) rc = zkc__client_ref(client);
  if (rc == ZKC_OK) {
    rc = zkc__observer_add(client, on_state, l);
    if (rc != ZKC_OK) zkc__client_unref(client);
  }
  if (rc != ZKC_OK) {
    if (inits >= 3) pthread_cond_destroy(&l->cv);
    if (inits >= 2) pthread_mutex_destroy(&l->cb_mu);
    if (inits >= 1) pthread_mutex_destroy(&l->mu);
    free(l->path);
    free(l->id);
    free(l);
    return rc;
  }
  *out = l;
  return ZKC_OK;
}

int zkc_latch_set_listener(zkc_latch_t *l, zkc_latch_fn is_leader,
                           zkc_latch_fn not_leader, void *ctx) {
  if (l == NULL) return ZKC_EINVAL;
  pthread_mutex_lock(&l->mu);
  int rc = l->state == LATENT ? ZKC_OK : ZKC_EBUSY;
  pthread_mutex_unlock(&l->mu);
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&l->cb_mu); /* not started: no callback can run */
  l->opts.is_leader = is_leader;
  l->opts.not_leader = not_leader;
  l->opts.ctx = ctx;
  pthread_mutex_unlock(&l->cb_mu);
  return ZKC_OK;
}

int zkc_latch_start(zkc_latch_t *l) {
  if (l == NULL) return ZKC_EINVAL;
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  zkc_client_t *c = l->client;
  zkc_state_t st;
  pthread_mutex_lock(&l->mu);
  /* Read under l->mu: a state the observer reports after this read is
   * recorded after it, never overwritten by it. */
  zkc_client_state(c, &st);
  if (st == ZKC_STATE_CLOSED) {
    pthread_mutex_unlock(&l->mu);
    return ZKC_ECLOSED;
  }
  if (l->state != LATENT) {
    pthread_mutex_unlock(&l->mu);
    return ZKC_EBUSY;
  }
  /* The observer keeps `live` current from here on; this reads the state
   * it may have missed since create. */
  l->live = live_state(st);
  l->state = STARTED;
  int rc = pthread_create(&l->thread, NULL, latch_main, l) == 0 ? ZKC_OK
                                                               : ZKC_ESYSTEM;
  if (rc == ZKC_OK) {
    l->thread_started = 1;
  } else {
    l->state = LATENT;
  }
  pthread_mutex_unlock(&l->mu);
  return rc;
}

int zkc_latch_close(zkc_latch_t *l, zkc_close_mode_t mode) {
  if (l == NULL) return ZKC_OK;
  if (mode != ZKC_CLOSE_SILENT && mode != ZKC_CLOSE_NOTIFY_LEADER)
    return ZKC_EINVAL;
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  zkc_client_t *c = l->client;
  if (mode == ZKC_CLOSE_SILENT) {
    /* No callback starts from here on: set before waiting for cb_mu, so
     * that a tell() waiting for it too cannot start one after close has
     * begun. A running one is waited out. */
    atomic_store(&l->cb_off, 1);
    pthread_mutex_lock(&l->cb_mu);
    pthread_mutex_unlock(&l->cb_mu);
  }
  pthread_mutex_lock(&l->mu);
  if (l->state == CLOSED) {
    pthread_mutex_unlock(&l->mu);
    return ZKC_OK;
  }
  l->state = CLOSED;
  atomic_store(&l->cancel, 1);
  pthread_cond_broadcast(&l->cv);
  pthread_mutex_unlock(&l->mu);
  if (l->thread_started) {
    zkc__cancel_wake(c); /* a wait inside the lock internals sees cancel */
    pthread_join(l->thread, NULL);
  }
  /* The thread is gone: leadership and the node are ours to end. */
  pthread_mutex_lock(&l->mu);
  int has_node = l->has_node;
  uint64_t guard;
  zkc__held_t held = take_node_locked(l, &guard);
  l->leader = 0;
  pthread_mutex_unlock(&l->mu);
  zkc__guard_remove(c, guard);
  if (mode == ZKC_CLOSE_NOTIFY_LEADER) tell(l, 0); /* only if it was told 1 */
  atomic_store(&l->cb_off, 1);
  pthread_mutex_lock(&l->cb_mu); /* waits out a callback running */
  pthread_mutex_unlock(&l->cb_mu);
  if (has_node) zkc__lock_release(c, &held);
  return ZKC_OK;
}

int zkc_latch_destroy(zkc_latch_t *l) {
  if (l == NULL) return ZKC_OK;
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  int rc = zkc_latch_close(l, ZKC_CLOSE_SILENT);
  if (rc != ZKC_OK) return rc;
  rc = zkc__observer_remove(l->client, on_state, l);
  if (rc == ZKC_EDEADLK) return rc;
  zkc__client_unref(l->client);
  latch_free(l);
  return ZKC_OK;
}

int zkc_latch_has_leadership(const zkc_latch_t *cl) {
  if (cl == NULL) return 0;
  zkc_latch_t *l = (zkc_latch_t *)cl; /* locking is not a logical change */
  /* Closing the client sends no state: its session and node are gone. */
  if (zkc__client_closed(l->client)) return 0;
  pthread_mutex_lock(&l->mu);
  int leader = shown_locked(l) && l->state == STARTED;
  pthread_mutex_unlock(&l->mu);
  return leader;
}

int zkc_latch_await(zkc_latch_t *l, int64_t timeout_ms) {
  if (l == NULL) return ZKC_EINVAL;
  if (zkc__on_callback_thread() || on_latch_thread(l)) return ZKC_EDEADLK;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  int rc;
  pthread_mutex_lock(&l->mu);
  for (;;) {
    if (l->state == LATENT) {
      rc = ZKC_EINVAL;
      break;
    }
    if (l->state == CLOSED) {
      rc = ZKC_ECLOSED;
      break;
    }
    /* Closing the client sends no state: look at it now and then. */
    pthread_mutex_unlock(&l->mu);
    int closed = zkc__client_closed(l->client);
    pthread_mutex_lock(&l->mu);
    if (closed) {
      rc = ZKC_ECLOSED;
      break;
    }
    if (shown_locked(l)) {
      rc = ZKC_OK;
      break;
    }
    int64_t now = zkc__now_ms();
    if (now >= deadline) {
      rc = ZKC_ETIMEDOUT;
      break;
    }
    int64_t until = deadline - now > 200 ? now + 200 : deadline;
    zkc__cond_wait_until(&l->cv, &l->mu, until);
  }
  pthread_mutex_unlock(&l->mu);
  return rc;
}

int zkc_latch_fencing_token(const zkc_latch_t *cl, int64_t *token) {
  if (cl == NULL || token == NULL) return ZKC_EINVAL;
  zkc_latch_t *l = (zkc_latch_t *)cl;
  if (zkc__client_closed(l->client)) return ZKC_ENOTOWNER;
  pthread_mutex_lock(&l->mu);
  int rc = shown_locked(l) && l->has_node ? ZKC_OK : ZKC_ENOTOWNER;
  if (rc == ZKC_OK) *token = l->held.token;
  pthread_mutex_unlock(&l->mu);
  return rc;
}

int zkc_latch_node(const zkc_latch_t *cl, char *buf, size_t buf_len) {
  if (cl == NULL || buf == NULL || buf_len == 0) return ZKC_EINVAL;
  zkc_latch_t *l = (zkc_latch_t *)cl;
  pthread_mutex_lock(&l->mu);
  int rc = shown_locked(l) && l->has_node ? ZKC_OK : ZKC_ENOTOWNER;
  if (rc == ZKC_OK) {
    size_t len = strlen(l->held.node);
    if (len < buf_len)
      memcpy(buf, l->held.node, len + 1);
    else
      rc = ZKC_EINVAL;
  }
  pthread_mutex_unlock(&l->mu);
  return rc;
}

const char *zkc_latch_id(const zkc_latch_t *l) { return l ? l->id : NULL; }

const char *zkc_latch_path(const zkc_latch_t *l) { return l ? l->path : NULL; }

void zkc_participants_free(zkc_participant_t *p, size_t count) {
  if (p == NULL) return;
  for (size_t i = 0; i < count; i++) free(p[i].id);
  free(p);
}

/* Lists the nodes and reads every node's data in one round trip. A node
 * that went away between the two is left out; when that was the head, the
 * leader is not known: *retry is set. */
static int read_participants(zkc_client_t *c, const char *path,
                             zkc_participant_t **out, size_t *count,
                             int *retry) {
  char **nodes = NULL;
  size_t n = 0;
  *retry = 0;
  int rc = zkc__lock_participants(c, path, &nodes, &n);
  if (rc != ZKC_OK || n == 0) return rc;
  zkc__op_t *ops = calloc(n, sizeof *ops);
  zkc_participant_t *parts = calloc(n, sizeof *parts);
  size_t inited = 0, found = 0;
  if (ops == NULL || parts == NULL) rc = ZKC_ENOMEM;
  for (; rc == ZKC_OK && inited < n; inited++) {
    if ((rc = zkc__op_init(&ops[inited])) != ZKC_OK) break;
    zkc__submit_get(c, &ops[inited], nodes[inited]);
  }
  for (size_t i = 0; i < inited; i++) {
    int orc = zkc__op_wait(&ops[i]);
    if (rc == ZKC_OK && orc == ZKC_OK) {
      parts[found].id = ops[i].data, ops[i].data = NULL;
      parts[found].is_leader = i == 0;
      found++;
    } else if (rc == ZKC_OK && orc == ZKC_ENONODE) {
      if (i == 0) *retry = 1;
    } else if (rc == ZKC_OK) {
      rc = orc;
    }
    zkc__op_clear(&ops[i]);
  }
  free(ops);
  zkc_strings_free(nodes, n);
  if (rc != ZKC_OK || found == 0) {
    zkc_participants_free(parts, found);
    return rc;
  }
  *out = parts;
  *count = found;
  return ZKC_OK;
}

int zkc__participants_read(zkc_client_t *c, const char *path,
                           zkc_participant_t **out, size_t *count) {
  *out = NULL;
  *count = 0;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  int retry = 1;
  /* The head vanished between the list and the read: read again (a few
   * times; then the list is returned without a leader marked). */
  for (int i = 0; rc == ZKC_OK && retry && i < 5; i++) {
    zkc_participants_free(*out, *count);
    *out = NULL;
    *count = 0;
    rc = read_participants(c, path, out, count, &retry);
  }
  zkc__call_leave(c);
  return rc;
}

int zkc_latch_participants(zkc_latch_t *l, zkc_participant_t **out,
                           size_t *count) {
  if (l == NULL || out == NULL || count == NULL) return ZKC_EINVAL;
  return zkc__participants_read(l->client, l->path, out, count);
}

int zkc_latch_leader_id(zkc_latch_t *l, char **id) {
  if (l == NULL || id == NULL) return ZKC_EINVAL;
  *id = NULL;
  zkc_participant_t *p;
  size_t n;
  int rc = zkc_latch_participants(l, &p, &n);
  if (rc != ZKC_OK) return rc;
  for (size_t i = 0; i < n && *id == NULL; i++)
    if (p[i].is_leader) *id = p[i].id, p[i].id = NULL;
  zkc_participants_free(p, n);
  return ZKC_OK;
}
