/* Threads waiting for a watched node to change (waiters.c). */
#ifndef ZKC_WAITERS_H
#define ZKC_WAITERS_H

#include <pthread.h>
#include <stdint.h>

#include "hash.h"
#include "zkcoord/client.h"

/* A thread blocked until the node it watches changes. Lives on the waiting
 * thread's stack while registered; the watch finds it by id, so a watch
 * that fires after the waiter left touches nothing. */
typedef struct zkc__waiter {
  uint64_t id;
  const char *path; /* the watched node (the waiter's own string) */
  const char *also; /* a second node with a data watch, or NULL */
  const char *own;  /* the waiter's own node, watched too, or NULL */
  int own_touched;  /* an event on `own` came, or its watch was removed */
  int clean;        /* `path` was deleted while `own` was untouched, in order */
  uint64_t epoch;   /* the client's watch_epoch at registration */
  int fired;        /* a node event arrived, or the watch must be set again */
  uint64_t handle_gen; /* the handle (session) its watch was set through */
  pthread_cond_t cv;
  /* Optional: told (client's lock held) whenever cv is signalled, for an
   * owner that polls instead of waiting (the async engine); NULL else. */
  void (*notify)(void *ctx);
  void *notify_ctx;
  UT_hash_handle hh;
} zkc__waiter_t;

/* Registers w (fresh id, its own condition variable) for a watch on path
 * (kept by reference: it must outlive the registration). */
int zkc__waiter_register(zkc_client_t *c, zkc__waiter_t *w, const char *path);
/* The same for an owner that polls (zkc__waiter_check) instead of waiting:
 * notify(ctx) is told, client's lock held, whenever the waiter would wake. */
int zkc__waiter_register_polled(zkc_client_t *c, zkc__waiter_t *w,
                                const char *path, void (*notify)(void *),
                                void *ctx);
void zkc__waiter_unregister(zkc_client_t *c, zkc__waiter_t *w);

typedef enum {
  ZKC__WAKE_FIRED,
  ZKC__WAKE_TIMEOUT,
  ZKC__WAKE_CLOSED,
  ZKC__WAKE_LOST
} zkc__wake_t;

/* Blocks until the watch fires, the deadline passes, the client closes (or
 * the thread's wait is cancelled) or the waiter's session is gone. */
zkc__wake_t zkc__waiter_wait(zkc_client_t *c, zkc__waiter_t *w,
                             int64_t deadline_ms);

/* The same answers without blocking (the caller's cancel flag aside): 1
 * with *why set once the waiter would wake, else 0. */
int zkc__waiter_check(zkc_client_t *c, zkc__waiter_t *w, zkc__wake_t *why);

/* A waiter giving up before its watch fired removes the watch. The server
 * keeps one watch per path and session, shared by every watcher of this
 * client on that path (another waiter, a holder's guard): those are told
 * to set theirs again, and a change meanwhile is seen by their next read. */
void zkc__waiter_unwatch(zkc_client_t *c, zkc__waiter_t *w);

/* A semaphore's head watches the children of w->path (and, once set here,
 * the data of `also`) with one waiter. */
void zkc__waiter_also(zkc_client_t *c, zkc__waiter_t *w, const char *also);
/* A waiter that may be granted on its predecessor's delete alone also
 * watches its own node `own` (kept by reference), so that the order of the
 * server's events proves the node was still there: set before the watch
 * request for `own` is sent, and that request sent before the one for
 * w->path. */
void zkc__waiter_watch_own(zkc_client_t *c, zkc__waiter_t *w, const char *own);
/* 1 when the events prove `own` existed when w->path was gone: w->path's
 * delete was told (or, path_absent, its watch request found no node) after
 * both watches were answered, with no event on `own`, no session event and
 * no watch removal in this client since the registration. Else 0: read the
 * queue. */
int zkc__waiter_clean(zkc_client_t *c, zkc__waiter_t *w, int path_absent);
/* Clears w's fired mark before its watches are set again (one waiter over
 * several rounds of reads). */
void zkc__waiter_rearm(zkc_client_t *c, zkc__waiter_t *w);
/* Removes both watches, as zkc__waiter_unwatch does for a data watch. */
void zkc__waiter_unwatch_children(zkc_client_t *c, zkc__waiter_t *w);

/* Wakes every waiter and every wait on the state condition, so that a
 * thread whose cancel flag was just set (zkc__cancel_bind) sees it. */
void zkc__cancel_wake(zkc_client_t *c);

/* ---- for the session layer ---- */

/* The watch handler of kind ZKC__WATCH_WAITER (ops.h). */
void zkc__waiter_event(zkc_client_t *c, uint64_t id, const char *path,
                       int deleted);
/* Wakes every waiter (session change or close); caller holds the client's
 * lock. */
void zkc__waiters_wake_all_locked(zkc_client_t *c);

#endif /* ZKC_WAITERS_H */
