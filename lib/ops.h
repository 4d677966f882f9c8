/* ZooKeeper requests, the only door to the ZooKeeper client: every request
 * goes out here and every result comes back here, translated to a ZKC_*
 * code (errors.h), with zkcoord's own view of a node's stat and children.
 * Nothing above this file includes zookeeper.h. */
#ifndef ZKC_OPS_H
#define ZKC_OPS_H

#include <pthread.h>
#include <stdint.h>

#include "zkcoord/client.h"

/* What zkcoord reads of a node's stat. */
typedef struct zkc__stat {
  int64_t czxid;           /* the create's zxid: the fencing token */
  int64_t ctime;           /* ms since the epoch */
  int64_t ephemeral_owner; /* session id, 0 for a persistent node */
  int32_t version;         /* the data version */
} zkc__stat_t;

/* A children list (names only), owned by the op that read it. */
typedef struct zkc__names {
  int count;
  char **data;
} zkc__names_t;

/* Node kinds zkcoord creates. */
typedef enum {
  ZKC__CREATE_PERSISTENT,
  ZKC__CREATE_CONTAINER,
  ZKC__CREATE_EPHEMERAL_SEQUENTIAL,
  ZKC__CREATE_EPHEMERAL
} zkc__create_mode_t;

/* One ZooKeeper request in flight and its result. Ops are submitted
 * asynchronously so that several ride in one round trip (a session's
 * requests are applied in order); zkc__op_wait collects each result. */
typedef struct zkc__op {
  zkc_client_t *c;
  struct zkc__op *prev, *next; /* in the client's list while in flight */
  int in_flight;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  int rc;    /* ZKC_* */
  int zk_rc; /* the ZooKeeper client's own code, for logs */
  zkc__stat_t stat;
  char *created;         /* create: the node's path (malloc) */
  zkc__names_t children; /* children read */
  char *data;            /* get data: a copy, NUL-terminated */
  int data_len;
  /* Optional: called once the op is done, after its last touch of op (an
   * async acquire's engine learns of it so; NULL for waited ops). */
  void (*notify)(void *ctx);
  void *notify_ctx;
} zkc__op_t;

int zkc__op_init(zkc__op_t *op);
void zkc__op_clear(zkc__op_t *op); /* frees results and the op's sync */
/* Waits for the result and returns its rc (a failed request's raw code is
 * noted for zkc_last_zk_code on this thread). */
int zkc__op_wait(zkc__op_t *op);
/* 1 once op's result is in (never blocks). */
int zkc__op_done(zkc__op_t *op);

/* Each submit either queues the request (its completion fills op) or fails
 * at once, in which case op is marked done with the error. */
void zkc__submit_create(zkc_client_t *c, zkc__op_t *op, zkc_node_kind_t kind,
                        const char *path, const char *data, int len,
                        zkc__create_mode_t mode);
void zkc__submit_children(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_delete(zkc_client_t *c, zkc__op_t *op, const char *path);
void zkc__submit_exists(zkc_client_t *c, zkc__op_t *op, const char *path);
/* Reads a node's data (no watch) into op->data / op->data_len. */
void zkc__submit_get(zkc_client_t *c, zkc__op_t *op, const char *path);

/* As zkc__submit_get, but only on a handle of session `session_id`: when
 * the client's handle belongs to another session (or to none), op is
 * finished at once with ZKC_ESESSIONEXPIRED and nothing is sent. A read
 * so sent is answered to that session alone, by a server that has applied
 * everything the session was answered before. */
void zkc__submit_get_in_session(zkc_client_t *c, zkc__op_t *op,
                                const char *path, int64_t session_id);

/* Sets a node's data (any version). */
void zkc__submit_set(zkc_client_t *c, zkc__op_t *op, const char *path,
                     const void *data, int len);

/* Submit + wait, for the single-request cases. */
/* Looks under base for the protected node carrying uuid (a create cut off
 * by connection loss may have been applied): *node is its path (malloc),
 * or NULL when there is none. ZKC_OK, or the read's error. */
int zkc__op_find_protected(zkc_client_t *c, const char *base,
                           const char *uuid, char **node);
int zkc__op_run_delete(zkc_client_t *c, const char *path);
int zkc__op_run_exists(zkc_client_t *c, const char *path, zkc__stat_t *stat);
int zkc__op_run_create(zkc_client_t *c, zkc_node_kind_t kind, const char *path,
                       const char *data, int len, zkc__create_mode_t mode);

/* One transaction: check that check_path exists, then set path's data.
 * Returns the failing operation's error with *failed_op its index (0 the
 * check, 1 the set), or ZKC_OK. */
int zkc__op_run_check_set(zkc_client_t *c, const char *check_path,
                          const char *path, const void *data, int len,
                          int *failed_op);
/* As zkc__op_run_check_set, the set only if path's data version is
 * `version` (-1: any). On success *new_version (when not NULL) is the
 * version the set gave path. */
int zkc__op_run_check_set_version(zkc_client_t *c, const char *check_path,
                                  const char *path, const void *data, int len,
                                  int32_t version, int32_t *new_version,
                                  int *failed_op);

/* ---- node watches ---- */

/* Who a node watch belongs to. The client keeps one handler per kind
 * (set at open), told on the ZooKeeper completion thread with the owner's
 * id: an owner that left meanwhile is simply not found. */
typedef enum {
  ZKC__WATCH_WAITER, /* a thread waiting on a predecessor (waiters.c) */
  ZKC__WATCH_GUARD,  /* a holder watching its own node (guard.c) */
  ZKC__WATCH_KINDS
} zkc__watch_kind_t;
typedef void (*zkc__watch_fn)(zkc_client_t *c, uint64_t id, const char *path,
                              int deleted);

/* Reads a node's data and leaves a data watch for waiter `id`. */
void zkc__submit_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                       uint64_t id);

/* Reads a node's data into op->data / op->data_len and leaves a data watch
 * for waiter `id`. */
void zkc__submit_get_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                           uint64_t id);
/* Reads a node's children and leaves a children watch for waiter `id`. */
void zkc__submit_children_watch(zkc_client_t *c, zkc__op_t *op,
                                const char *path, uint64_t id);

/* Sets a watch for guard `id` on path: an exists-watch, or with with_data
 * a get-watch. The answer (ZKC_OK: the node exists and is watched) goes to
 * done(ctx, rc, data, len, version) on the completion thread: the node's
 * data (with_data only; valid during the call) and data version (-1 when
 * rc is not ZKC_OK). When the request cannot be sent the code is returned
 * here and done is not called. */
typedef void (*zkc__answer_fn)(void *ctx, int rc, const char *data, int len,
                               int32_t version);
int zkc__send_guard_watch(zkc_client_t *c, const char *path, uint64_t id,
                          int with_data, zkc__answer_fn done, void *ctx);

/* Removes the data watch that waiter `id` left on path, client and server
 * side. The server keeps one watch per path and session, so this removes
 * it for every watcher of this client on path (see zkc__waiter_unwatch). */
void zkc__remove_watch(zkc_client_t *c, const char *path, uint64_t id);
/* The same for the children watch of waiter `id` on path. */
void zkc__remove_child_watch(zkc_client_t *c, const char *path, uint64_t id);
/* Drops waiter `id`'s data watch on path in this client only (no request:
 * the server's watch stays until the node changes, and its event then finds
 * no one), so that a waiter leaving without its event leaves nothing here.
 * Nothing happens when the watch already fired. */
void zkc__forget_watch(zkc_client_t *c, const char *path, uint64_t id);

/* ---- the client's requests as a whole (client.c, handle.c) ---- */

/* After the handle is closed: finishes every request still in flight with
 * rc (no completion can arrive any more). */
void zkc__ops_abandon(zkc_client_t *c, int rc);
/* Waits until no request is in flight or deadline_ms passes. */
void zkc__ops_drain(zkc_client_t *c, int64_t deadline_ms);

#endif /* ZKC_OPS_H */
