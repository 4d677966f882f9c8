/* The client's internals, shared by the recipes. Recipes reach ZooKeeper only
 * through the helpers declared here (ops, waiters, retry, janitor). */
#ifndef ZKC_CLIENT_IMPL_H
#define ZKC_CLIENT_IMPL_H

#define THREADED
#include <pthread.h>
#include <stdatomic.h>
#include <zookeeper/zookeeper.h>

#include "hash.h"
#include "util.h"
#include "zkcoord/client.h"

/* A thread blocked until the node it watches changes. Lives on the waiting
 * thread's stack while registered; the ZooKeeper watcher finds it by id, so
 * a watch that fires after the waiter left touches nothing. */
typedef struct zkc__waiter {
  uint64_t id;
  int fired;      /* a node event arrived */
  int event_type; /* ZOO_DELETED_EVENT, ZOO_CHANGED_EVENT, ... */
  int64_t session_id;
  pthread_cond_t cv;
  UT_hash_handle hh;
} zkc__waiter_t;

/* A delete the janitor thread must finish: a node path, or (uuid set) the
 * protected node with that uuid under `path`. */
typedef struct zkc__pending {
  char *path;
  char uuid[37];
  int64_t session_id;
  struct zkc__pending *next;
} zkc__pending_t;

struct zkc_client {
  pthread_mutex_t mu;       /* guards the fields below except zh */
  pthread_cond_t state_cv;  /* session state, call drain, janitor work */
  pthread_rwlock_t zh_lock; /* read: submitting on zh; write: dropping it */
  zhandle_t *zh;

  int zk_state;       /* last ZOO_*_STATE seen */
  int64_t session_id; /* 0 until connected */
  int session_timeout_ms;
  int session_dead; /* expired or auth failed: the handle is unusable */
  int closed;
  int active_calls; /* blocking calls in progress (close waits for them) */
  atomic_int refs;  /* the user's plus one per recipe object */
  atomic_uint_fast64_t requests; /* submitted to ZooKeeper (tests read it) */

  /* Requests in flight. The ZooKeeper client does not always complete the
   * requests still pending when the handle closes; close finishes them. */
  pthread_mutex_t ops_mu;
  pthread_cond_t ops_cv; /* signalled when the last request completes */
  struct zkc__op *ops;

  zkc__waiter_t *waiters;
  uint64_t next_waiter_id;

  zkc__pending_t *pending;
  int janitor_started;
  pthread_t janitor;

  int log_slot;
  char *connect;
  char *holder_id;
  zkc_client_opts_t opts; /* with holder_id pointing at the copy above */
};

/* ---- life cycle and calls (client.c) ---- */

/* Takes a reference for a recipe object; ZKC_ECLOSED if already closed. */
int zkc__client_ref(zkc_client_t *c);
void zkc__client_unref(zkc_client_t *c);

/* Brackets a blocking call: fails with ZKC_EDEADLK on a callback thread and
 * ZKC_ECLOSED after close; close waits until every entered call left. */
int zkc__call_enter(zkc_client_t *c);
void zkc__call_leave(zkc_client_t *c);

/* Waits until the session is connected read-write, up to deadline_ms.
 * ZKC_OK, ZKC_ETIMEDOUT, ZKC_ECLOSED or ZKC_ELOST. */
int zkc__wait_connected(zkc_client_t *c, int64_t deadline_ms);

/* Current session id (0 if none). */
int64_t zkc__session_id(zkc_client_t *c);

/* Internal log line through the user's sink. */
void zkc__log(zkc_client_t *c, zkc_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- retry (retry.c) ---- */

/* 1 for the codes worth retrying: connection loss, operation timeout. */
int zkc__retryable(int rc);

/* After a retryable failure: sleeps the policy's backoff for `*attempt`,
 * then waits for the connection, both bounded by deadline_ms, and returns
 * ZKC_OK to try again (attempt incremented), or the reason to stop:
 * `rc` itself when the policy is exhausted, ZKC_ETIMEDOUT, ZKC_ECLOSED,
 * ZKC_ELOST. */
int zkc__retry_wait(zkc_client_t *c, int *attempt, int rc,
                    int64_t deadline_ms);

/* ---- asynchronous operations waited for (ops.c) ---- */

/* One ZooKeeper request in flight and its result. Ops are submitted
 * asynchronously so that several ride in one round trip (a session's
 * requests are applied in order); zkc__op_wait collects each result. */
typedef struct zkc__op {
  zkc_client_t *c;
  struct zkc__op *prev, *next; /* in c->ops while in flight */
  int in_flight;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  int rc;
  struct Stat stat;
  char *created;                 /* create: the node's path (malloc) */
  struct String_vector children; /* get children (free with op_clear) */
} zkc__op_t;

int zkc__op_init(zkc__op_t *op);
void zkc__op_clear(zkc__op_t *op); /* frees results and the op's sync */
/* Waits for the result and returns its rc. */
int zkc__op_wait(zkc__op_t *op);

/* Each submit either queues the request (its completion fills op) or fails
 * at once, in which case op is marked done with the error. */
void zkc__submit_create(zkc_client_t *c, zkc__op_t *op, const char *path,
                        const char *data, int len, int mode);
void zkc__submit_children(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_delete(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_exists(zkc_client_t *c, zkc__op_t *op, const char *path);
/* Reads a node's data and leaves a data watch that wakes `w`. */
void zkc__submit_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                       zkc__waiter_t *w);

/* After the handle is closed: finishes every request still in flight with
 * ZKC_ECLOSED (no completion can arrive any more). */
void zkc__ops_abandon(zkc_client_t *c);

/* Waits until no request is in flight or deadline_ms passes. */
void zkc__ops_drain(zkc_client_t *c, int64_t deadline_ms);

/* Submit + wait, for the single-request cases. */
int zkc__op_run_delete(zkc_client_t *c, const char *path);
int zkc__op_run_exists(zkc_client_t *c, const char *path, struct Stat *stat);
int zkc__op_run_create(zkc_client_t *c, const char *path, const char *data,
                       int len, int mode);

/* Removes the data watch that `w` left on `path` (client and server side). */
void zkc__unwatch(zkc_client_t *c, const char *path, zkc__waiter_t *w);

/* ---- waiters (waiters.c) ---- */

/* Registers w (fresh id, its own condition variable). */
int zkc__waiter_register(zkc_client_t *c, zkc__waiter_t *w);
void zkc__waiter_unregister(zkc_client_t *c, zkc__waiter_t *w);

typedef enum {
  ZKC__WAKE_FIRED,
  ZKC__WAKE_TIMEOUT,
  ZKC__WAKE_CLOSED,
  ZKC__WAKE_LOST
} zkc__wake_t;

/* Blocks until the watch fires, the deadline passes, the client closes or
 * the waiter's session is gone. */
zkc__wake_t zkc__waiter_wait(zkc_client_t *c, zkc__waiter_t *w,
                             int64_t deadline_ms);

/* Wakes every waiter (session change or close); caller holds c->mu. */
void zkc__waiters_wake_all_locked(zkc_client_t *c);

/* The ZooKeeper watcher_fn that signals the waiter whose id is the context. */
void zkc__waiter_watcher(zhandle_t *zh, int type, int state, const char *path,
                         void *ctx);

/* ---- guaranteed deletes (janitor.c) ---- */

/* Queues a delete of `path` (or, with uuid, of the protected node with that
 * uuid under `path`) to be retried until done or the session ends. */
void zkc__janitor_add(zkc_client_t *c, const char *path, const char *uuid,
                      int64_t session_id);
int zkc__janitor_start(zkc_client_t *c);
void zkc__janitor_stop(zkc_client_t *c);
/* Frees queued items (after stop). */
void zkc__janitor_free(zkc_client_t *c);

/* ---- log routing (log.c) ---- */

/* Binds c to a ZooKeeper log callback that reaches only c's sink.
 * Returns the callback, or a shared fallback when all slots are taken. */
log_callback_fn zkc__log_bind(zkc_client_t *c);
void zkc__log_unbind(zkc_client_t *c);
/* Delivers one line to c's sink (filtering by level). */
void zkc__log_deliver(zkc_client_t *c, zkc_log_level_t level, const char *msg);

#endif /* ZKC_CLIENT_IMPL_H */
