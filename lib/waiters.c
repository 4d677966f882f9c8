/* SPDX-License-Identifier: Apache-2.0 */
/* Threads waiting for a watched node to change. Each waiter has its own
 * condition variable, so a watch wakes exactly the thread that set it: no
 * herd inside the process either. */
#include <errno.h>
#include <string.h>


#include "session.h"
#include "client_struct.h"
#include "session_shared.h"
#include "zkcoord/common.h"

/* What w's watch is judged against from now on: no event yet, the
 * client's event order and handle as they are. Caller holds c->mu. */
static void start_locked(zkc_client_t *c, zkc__waiter_t *w) {
  w->epoch = c->watch_epoch;
  w->fired = 0;
  w->handle_gen = c->handle_gen;
}

int zkc__waiter_register(zkc_client_t *c, zkc__waiter_t *w, const char *path) {
  return zkc__waiter_register_polled(c, w, path, NULL, NULL);
}

int zkc__waiter_register_polled(zkc_client_t *c, zkc__waiter_t *w,
                                const char *path, void (*notify)(void *),
                                void *ctx) {
  int rc = zkc__cond_init(&w->cv);
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&c->mu);
  w->id = ++c->next_waiter_id;
  w->path = path;
  w->also = NULL;
  w->own = NULL;
  w->own_touched = 0;
  w->parent = NULL;
  w->parent_touched = 0;
  w->parent_wakes = 0;
  w->clean = 0;
  start_locked(c, w);
  w->notify = notify;
  w->notify_ctx = ctx;
  int added = ZKC__HASH_ADD_U64(c->waiters, id, w);
  pthread_mutex_unlock(&c->mu);
  if (!added) {
    pthread_cond_destroy(&w->cv);
    return ZKC_ENOMEM;
  }
  return ZKC_OK;
}

void zkc__waiter_unregister(zkc_client_t *c, zkc__waiter_t *w) {
  pthread_mutex_lock(&c->mu);
  HASH_DELETE(hh, c->waiters, w);
  pthread_mutex_unlock(&c->mu);
  pthread_cond_destroy(&w->cv);
}

/* The session dies, or its handle is replaced (which clears session_dead
 * again): either way the waiter's watch is gone with it. */
static int waiter_session_gone(zkc_client_t *c, const zkc__waiter_t *w) {
  return c->session_dead || c->handle_gen != w->handle_gen;
}

zkc__wake_t zkc__waiter_wait(zkc_client_t *c, zkc__waiter_t *w,
                             int64_t deadline_ms) {
  zkc__wake_t why;
  pthread_mutex_lock(&c->mu);
  for (;;) {
    if (c->closed || zkc__cancelled()) {
      why = ZKC__WAKE_CLOSED;
      break;
    }
    if (w->fired) {
      why = ZKC__WAKE_FIRED;
      break;
    }
    if (waiter_session_gone(c, w)) {
      why = ZKC__WAKE_LOST;
      break;
    }
    if (zkc__cond_wait_until(&w->cv, &c->mu, deadline_ms) == ETIMEDOUT) {
      why = w->fired ? ZKC__WAKE_FIRED : ZKC__WAKE_TIMEOUT;
      break;
    }
  }
  pthread_mutex_unlock(&c->mu);
  return why;
}

int zkc__waiter_check(zkc_client_t *c, zkc__waiter_t *w, zkc__wake_t *why) {
  pthread_mutex_lock(&c->mu);
  int woke = 1;
  if (c->closed) *why = ZKC__WAKE_CLOSED;
  else if (w->fired) *why = ZKC__WAKE_FIRED;
  else if (waiter_session_gone(c, w)) *why = ZKC__WAKE_LOST;
  else woke = 0;
  pthread_mutex_unlock(&c->mu);
  return woke;
}

/* Wakes one waiter: its thread, or its polling owner. */
static void wake(zkc__waiter_t *w) {
  pthread_cond_signal(&w->cv);
  if (w->notify) w->notify(w->notify_ctx);
}

void zkc__cancel_wake(zkc_client_t *c) {
  pthread_mutex_lock(&c->mu);
  zkc__waiters_wake_all_locked(c);
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

/* Wakes the waiters other than `except` watching path, as if their watch
 * had fired, so that they read the queue and set it again. A waiter whose
 * own node it was has lost that watch silently. */
static void renew_locked(zkc_client_t *c, const char *path,
                         const zkc__waiter_t *except) {
  zkc__waiter_t *w, *tmp;
  HASH_ITER(hh, c->waiters, w, tmp) {
    if (w->own && strcmp(w->own, path) == 0) w->own_touched = 1;
    if (w->parent && strcmp(w->parent, path) == 0) w->parent_touched = 1;
    if (w == except || (strcmp(w->path, path) != 0 &&
                        (w->also == NULL || strcmp(w->also, path) != 0)))
      continue;
    w->fired = 1;
    wake(w);
  }
}

/* A removal clears this session's watch for every watcher here, without
 * an event: no event order holds across it (see watch_epoch). It ends
 * client's lock held, with the renewals. */
static void unwatch_begin(zkc_client_t *c) {
  pthread_mutex_lock(&c->mu);
  c->unwatching++;
  c->watch_epoch++;
  pthread_mutex_unlock(&c->mu);
}

static void unwatch_end_locked(zkc_client_t *c) {
  c->unwatching--;
  c->watch_epoch++;
}

/* The others watching `also` (renew_locked's wake, a guard's renewal). */
static void renew_also_locked(zkc_client_t *c, const zkc__waiter_t *w) {
  if (w->also == NULL) return;
  renew_locked(c, w->also, w);
  c->guards_renew_locked(c, w->also);
}

void zkc__waiter_unwatch(zkc_client_t *c, zkc__waiter_t *w) {
  unwatch_begin(c);
  zkc__remove_watch(c, w->path, w->id);
  if (w->also) zkc__remove_watch(c, w->also, w->id);
  pthread_mutex_lock(&c->mu);
  unwatch_end_locked(c);
  renew_locked(c, w->path, w);
  c->guards_renew_locked(c, w->path);
  renew_also_locked(c, w);
  pthread_mutex_unlock(&c->mu);
}

void zkc__waiter_also(zkc_client_t *c, zkc__waiter_t *w, const char *also) {
  pthread_mutex_lock(&c->mu);
  w->also = also;
  pthread_mutex_unlock(&c->mu);
}

void zkc__waiter_rearm(zkc_client_t *c, zkc__waiter_t *w) {
  pthread_mutex_lock(&c->mu);
  w->fired = 0;
  pthread_mutex_unlock(&c->mu);
}

void zkc__waiter_unwatch_children(zkc_client_t *c, zkc__waiter_t *w) {
  unwatch_begin(c);
  zkc__remove_child_watch(c, w->path, w->id);
  if (w->also) zkc__remove_watch(c, w->also, w->id);
  pthread_mutex_lock(&c->mu);
  unwatch_end_locked(c);
  renew_locked(c, w->path, w);
  renew_also_locked(c, w);
  pthread_mutex_unlock(&c->mu);
}

zkc__wake_t zkc__waiter_end(zkc_client_t *c, zkc__waiter_t *w, int wait,
                            zkc__watch_left_t set) {
  zkc__wake_t why =
      wait ? zkc__waiter_wait(c, w, ZKC__FOREVER) : ZKC__WAKE_CLOSED;
  /* A watch that did not fire is left on the server, unless the session
   * that set it is gone (and its watches with it). */
  int left = why == ZKC__WAKE_CLOSED || why == ZKC__WAKE_TIMEOUT;
  if (left && set == ZKC__LEFT_DATA) zkc__waiter_unwatch(c, w);
  else if (left && set == ZKC__LEFT_CHILDREN)
    zkc__waiter_unwatch_children(c, w);
  zkc__waiter_unregister(c, w);
  return why;
}

void zkc__waiters_wake_all_locked(zkc_client_t *c) {
  zkc__waiter_t *w, *tmp;
  HASH_ITER(hh, c->waiters, w, tmp) wake(w);
}

void zkc__waiter_watch_own(zkc_client_t *c, zkc__waiter_t *w, const char *own) {
  pthread_mutex_lock(&c->mu);
  w->own = own;
  pthread_mutex_unlock(&c->mu);
}

void zkc__waiter_watch_parent(zkc_client_t *c, zkc__waiter_t *w,
                              const char *parent, int wakes) {
  pthread_mutex_lock(&c->mu);
  w->parent = parent;
  w->parent_wakes = wakes;
  pthread_mutex_unlock(&c->mu);
}

/* Nothing since w registered has broken the order of this client's node
 * events (see watch_epoch), and no removal is under way. */
static int order_kept_locked(const zkc_client_t *c, const zkc__waiter_t *w) {
  return w->epoch == c->watch_epoch && c->unwatching == 0;
}

/* w watches its own node, no event has come on it, and its order holds. */
static int own_intact_locked(const zkc_client_t *c, const zkc__waiter_t *w) {
  return w->own != NULL && !w->own_touched && order_kept_locked(c, w);
}

int zkc__waiter_clean(zkc_client_t *c, zkc__waiter_t *w, int path_absent) {
  pthread_mutex_lock(&c->mu);
  /* the children's event that the blocker's own delete causes comes
   * after that delete's: w->clean was decided before it */
  int clean = own_intact_locked(c, w) &&
              (path_absent ? !w->parent_touched : w->clean);
  pthread_mutex_unlock(&c->mu);
  return clean;
}

void zkc__waiter_renew(zkc_client_t *c, zkc__waiter_t *w) {
  pthread_mutex_lock(&c->mu);
  start_locked(c, w);
  pthread_mutex_unlock(&c->mu);
}

int zkc__waiter_intact(zkc_client_t *c, zkc__waiter_t *w) {
  pthread_mutex_lock(&c->mu);
  int intact =
      !w->fired && order_kept_locked(c, w) && !waiter_session_gone(c, w);
  pthread_mutex_unlock(&c->mu);
  return intact;
}

/* Any change wakes the waiter. Whether it may skip reading the queue is
 * decided here, on the completion thread, where node events and session
 * events are told one after the other in the server's order. */
void zkc__waiter_event(zkc_client_t *c, uint64_t id, const char *path,
                       int deleted) {
  zkc__waiter_t *w = NULL;
  pthread_mutex_lock(&c->mu);
  HASH_FIND(hh, c->waiters, &id, sizeof id, w);
  int quiet = 0;
  if (w != NULL) {
    if (w->own && strcmp(path, w->own) == 0) {
      w->own_touched = 1;
    } else if (w->parent && strcmp(path, w->parent) == 0) {
      w->parent_touched = 1;
      quiet = !w->parent_wakes;
    } else if (deleted && own_intact_locked(c, w) && !w->parent_touched &&
               strcmp(path, w->path) == 0) {
      w->clean = 1;
    }
    if (!quiet) {
      w->fired = 1;
      wake(w);
    }
  }
  pthread_mutex_unlock(&c->mu);
}
