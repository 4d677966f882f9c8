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
  const char *path; /* the watched node (the waiter's own string) */
  int fired;      /* a node event arrived */
  int event_type; /* ZOO_DELETED_EVENT, ZOO_CHANGED_EVENT, ... */
  uint64_t handle_gen; /* the handle (session) its watch was set through */
  pthread_cond_t cv;
  UT_hash_handle hh;
} zkc__waiter_t;

/* A delete the maintenance thread must finish: a node path, or (uuid set)
 * the protected node with that uuid under `path`. Whatever session is
 * current does it: the path (or uuid) names one attempt's node only, so the
 * delete can never remove anyone else's, and a node of a lost session that
 * the server still keeps is freed at once instead of at its expiry. */
typedef struct zkc__pending {
  char *path;
  char uuid[37];
  struct zkc__pending *next;
} zkc__pending_t;

/* Context of one ZooKeeper handle: events of a replaced handle are told
 * apart by their generation. */
typedef struct zkc__handle_ctx {
  zkc_client_t *c;
  uint64_t gen;
} zkc__handle_ctx_t;

/* A raw session event, queued by the watcher for the maintenance thread. */
typedef struct zkc__event {
  uint64_t gen; /* handle generation */
  int zk_state;
  int64_t session_id;
  struct zkc__event *next;
} zkc__event_t;

/* Recipes learn of state changes before the user's listeners do. */
typedef void (*zkc__observer_fn)(void *ctx, zkc_state_t state,
                                 int64_t lost_session);

/* A registered state listener or recipe observer. */
typedef struct zkc__listener {
  zkc_state_fn fn;
  zkc__observer_fn observer;
  void *ctx;
  struct zkc__listener *next;
} zkc__listener_t;

struct zkc_client {
  pthread_mutex_t mu;       /* guards the fields below except zh */
  pthread_cond_t state_cv;  /* session state, call drain, maintenance work */
  pthread_rwlock_t zh_lock; /* read: submitting on zh; write: swapping it */
  zhandle_t *zh;
  atomic_int zh_closed;     /* set with zh = NULL by close (under zh_lock) */
  zkc__handle_ctx_t *hctx;  /* context of the current handle */
  uint64_t handle_gen;

  int zk_state;       /* last ZOO_*_STATE seen on the current handle */
  int64_t session_id; /* 0 until connected */
  int session_timeout_ms;
  int session_dead; /* expired, auth failed or presumed lost */
  int closed;

  /* Public state, driven by the maintenance thread. */
  zkc_state_t state;       /* 0 before the first connection */
  int64_t public_session;  /* session of the last CONNECTED */
  int64_t suspended_since; /* monotonic ms, while SUSPENDED/READ_ONLY */
  int recreate;            /* LOST: a new handle is needed */
  int64_t recreate_at;     /* next attempt when opening one failed */
  zkc__event_t *events, **events_tail;
  zkc__listener_t *listeners; /* user listeners and recipe observers */
  int dispatching;            /* the maintenance thread is calling them */
  pthread_t maint;
  int maint_started;
  int64_t janitor_retry_at; /* backoff after a failed delete */
  int janitor_attempt;
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

  struct zkc__guard *guards; /* holders' watches on their own nodes */
  uint64_t next_guard_id;
  uint64_t guard_dispatching; /* guard whose owner is being told */
  int guard_requests;         /* guard watches being set */

  int log_slot;
  log_callback_fn log_cb; /* bound once, reused by every handle */
  char *connect;
  char *holder_id;
  char *auth_digest;                  /* copy of opts.auth_digest */
  struct ACL_vector acl_participant;  /* of lock, latch and selector nodes */
  struct ACL_vector acl_parent;       /* of parents zkcoord creates */
  int auth_failed;                    /* the ensemble refused the credentials */
  zkc_client_opts_t opts; /* with holder_id, auth_digest at the copies above */
};

/* ---- holders watching their own nodes (guard.c) ---- */

typedef struct zkc__guard zkc__guard_t;
/* Told, on the maintenance thread, that the guarded node was deleted while
 * its session lived. */
typedef void (*zkc__guard_fn)(void *ctx, uint64_t guard_id);

/* Watches `path` (a node of session_id) until zkc__guard_remove, from a
 * short while after this call on; sets *id (never 0). No ZooKeeper traffic
 * here. ZKC_OK or ZKC_ENOMEM. */
int zkc__guard_add(zkc_client_t *c, const char *path, int64_t session_id,
                   zkc__guard_fn fn, void *ctx, uint64_t *id);
/* Stops guarding; once it returns, fn is not running for it (unless called
 * from fn itself). id 0 is ignored. */
void zkc__guard_remove(zkc_client_t *c, uint64_t id);
/* The guards on path set their watch again soon (it was removed from the
 * server); caller holds c->mu. */
void zkc__guards_renew_locked(zkc_client_t *c, const char *path);
/* Maintenance thread: tells one owner or re-sets one watch; 1 if it did. */
int zkc__guard_step_locked(zkc_client_t *c);
/* When a watch is to be set or a failed confirmation is due again
 * (ZKC__FOREVER if none). */
int64_t zkc__guard_next_locked(zkc_client_t *c);
/* Close: waits (bounded) for watch requests in flight. */
void zkc__guards_drain(zkc_client_t *c, int64_t deadline_ms);
void zkc__guards_free(zkc_client_t *c);

/* ---- credentials and ACLs (acl.c) ---- */

/* 1 when the auth and ACL options are well-formed. */
int zkc__acl_opts_valid(const zkc_client_opts_t *opts);
/* Copies the credentials and builds the ACL vectors from c->opts. */
int zkc__acl_setup(zkc_client_t *c);
void zkc__acl_free(zkc_client_t *c);
/* The ACL for a node about to be created at `path`: one of the client's
 * vectors, or the acl_fn's answer converted into *tmp (freed with
 * zkc__acl_tmp_free after the request is submitted). */
int zkc__acl_for(zkc_client_t *c, const char *path, zkc_node_kind_t kind,
                 struct ACL_vector *tmp, const struct ACL_vector **out);
void zkc__acl_tmp_free(struct ACL_vector *tmp);

/* ---- life cycle and calls (client.c) ---- */

/* Takes a reference for a recipe object; ZKC_ECLOSED if already closed. */
int zkc__client_ref(zkc_client_t *c);
void zkc__client_unref(zkc_client_t *c);

/* Brackets a blocking call: fails with ZKC_EDEADLK on a callback thread and
 * ZKC_ECLOSED after close; close waits until every entered call left. */
int zkc__call_enter(zkc_client_t *c);
void zkc__call_leave(zkc_client_t *c);

/* 1 while a live session is connected read-write: no expiry, auth failure
 * or presumed loss, and no replacement under way. Caller holds c->mu. */
int zkc__live_locked(const zkc_client_t *c);

/* Waits until a live session is connected read-write (through a session
 * re-creation if one is under way), up to deadline_ms.
 * ZKC_OK, ZKC_ETIMEDOUT or ZKC_ECLOSED. */
int zkc__wait_connected(zkc_client_t *c, int64_t deadline_ms);

/* Current session id (0 if none). */
int64_t zkc__session_id(zkc_client_t *c);

/* How a node owned by session_id stands now. */
typedef enum {
  ZKC__SESSION_LIVE,  /* the current session, connected read-write */
  ZKC__SESSION_DOUBT, /* the current session, connection down or read-only */
  ZKC__SESSION_GONE   /* expired, presumed lost, replaced, or never ours */
} zkc__session_fate_t;
zkc__session_fate_t zkc__session_fate(zkc_client_t *c, int64_t session_id);
/* The same with c->mu held (a recipe that must order the answer with the
 * state dispatch calls it under its own lock, which ranks above c->mu). */
zkc__session_fate_t zkc__session_fate_locked(const zkc_client_t *c,
                                             int64_t session_id);

/* 1 once zkc_client_close has begun. */
int zkc__client_closed(zkc_client_t *c);

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
  char *data;                    /* get data: a copy, NUL-terminated */
  int data_len;
} zkc__op_t;

int zkc__op_init(zkc__op_t *op);
void zkc__op_clear(zkc__op_t *op); /* frees results and the op's sync */
/* Waits for the result and returns its rc. */
int zkc__op_wait(zkc__op_t *op);

/* Each submit either queues the request (its completion fills op) or fails
 * at once, in which case op is marked done with the error. */
void zkc__submit_create(zkc_client_t *c, zkc__op_t *op, zkc_node_kind_t kind,
                        const char *path, const char *data, int len, int mode);
void zkc__submit_children(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_delete(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_exists(zkc_client_t *c, zkc__op_t *op, const char *path);
/* Reads a node's data (no watch) into op->data / op->data_len. */
void zkc__submit_get(zkc_client_t *c, zkc__op_t *op, const char *path);
/* Reads a node's data and leaves a data watch that wakes `w`. */
void zkc__submit_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                       zkc__waiter_t *w);

/* After the handle is closed: finishes every request still in flight with
 * rc (no completion can arrive any more). */
void zkc__ops_abandon(zkc_client_t *c, int rc);

/* Waits until no request is in flight or deadline_ms passes. */
void zkc__ops_drain(zkc_client_t *c, int64_t deadline_ms);

/* Submit + wait, for the single-request cases. */
int zkc__op_run_delete(zkc_client_t *c, const char *path);
int zkc__op_run_exists(zkc_client_t *c, const char *path, struct Stat *stat);
int zkc__op_run_create(zkc_client_t *c, zkc_node_kind_t kind, const char *path,
                       const char *data, int len, int mode);

/* One transaction: check that check_path exists, then set path's data.
 * Returns the failing operation's error with *failed_op its index (0 the
 * check, 1 the set), or ZOK. */
int zkc__op_run_check_set(zkc_client_t *c, const char *check_path,
                          const char *path, const void *data, int len,
                          int *failed_op);

/* Removes the data watch that `w` left on its path, client and server side.
 * The server keeps one watch per path and session, shared by every watcher
 * of this client on that path (another waiter, a holder's guard): those
 * are told to set theirs again. */
void zkc__unwatch(zkc_client_t *c, zkc__waiter_t *w);

/* ---- waiters (waiters.c) ---- */

/* Registers w (fresh id, its own condition variable) for a watch on path
 * (kept by reference: it must outlive the registration). */
int zkc__waiter_register(zkc_client_t *c, zkc__waiter_t *w, const char *path);
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

/* Wakes every waiter and every wait on the state condition, so that a
 * thread whose cancel flag was just set (zkc__cancel_bind) sees it. */
void zkc__cancel_wake(zkc_client_t *c);

/* Wakes the waiters other than `except` watching path, as if their watch
 * had fired, so that they set it again; caller holds c->mu. */
void zkc__waiters_renew_locked(zkc_client_t *c, const char *path,
                               const zkc__waiter_t *except);

/* Wakes every waiter (session change or close); caller holds c->mu. */
void zkc__waiters_wake_all_locked(zkc_client_t *c);

/* The ZooKeeper watcher_fn that signals the waiter whose id is the context. */
void zkc__waiter_watcher(zhandle_t *zh, int type, int state, const char *path,
                         void *ctx);

/* ---- guaranteed deletes (janitor.c) ---- */

/* Queues a delete of `path` (or, with uuid, of the protected node with that
 * uuid under `path`), retried by whatever session is current until the node
 * is gone or the server refuses. */
void zkc__janitor_add(zkc_client_t *c, const char *path, const char *uuid);
/* One step of janitor work for the maintenance thread, called with c->mu
 * held (released while working). Returns 1 if it did something. */
int zkc__janitor_step_locked(zkc_client_t *c);
/* When the janitor next has work to retry (ZKC__FOREVER if none). */
int64_t zkc__janitor_next_locked(zkc_client_t *c);
/* Frees queued items (after the maintenance thread stopped). */
void zkc__janitor_free(zkc_client_t *c);

/* ---- session life: handles, states, listeners (session.c) ---- */

/* Opens a ZooKeeper handle for c and installs it. ZKC_OK or an error. */
int zkc__session_open_handle(zkc_client_t *c);
/* Drops the current handle: close sets closing=1 (requests then fail with
 * ZKC_ECLOSED), session re-creation 0 (they fail with ZCONNECTIONLOSS). */
void zkc__session_drop_handle(zkc_client_t *c, int closing);
int zkc__session_start(zkc_client_t *c);
/* Joins the maintenance thread (c->closed must be set and signalled). */
void zkc__session_stop(zkc_client_t *c);
/* Waits for the first CONNECTED state, up to deadline_ms. */
int zkc__session_wait_first(zkc_client_t *c, int64_t deadline_ms);
/* Recipe observers: called on the maintenance thread for every state
 * change, before the user's listeners. Remove returns ZKC_EDEADLK when
 * called from the maintenance thread during a dispatch. */
int zkc__observer_add(zkc_client_t *c, zkc__observer_fn fn, void *ctx);
int zkc__observer_remove(zkc_client_t *c, zkc__observer_fn fn, void *ctx);
/* Frees listeners and queued events (after stop). */
void zkc__session_free(zkc_client_t *c);

/* ---- log routing (log.c) ---- */

/* Binds c to a ZooKeeper log callback that reaches only c's sink.
 * Returns the callback, or a shared fallback when all slots are taken. */
log_callback_fn zkc__log_bind(zkc_client_t *c);
void zkc__log_unbind(zkc_client_t *c);
/* Delivers one line to c's sink (filtering by level). */
void zkc__log_deliver(zkc_client_t *c, zkc_log_level_t level, const char *msg);

#endif /* ZKC_CLIENT_IMPL_H */
