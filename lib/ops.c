/* SPDX-License-Identifier: Apache-2.0 */
/* Asynchronous ZooKeeper requests with a result the submitter waits for,
 * and node watches. Completions and watchers run on the ZooKeeper
 * completion thread: they translate and copy the result and signal, nothing
 * more. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>


#include "acl.h"
#include "client_struct.h"
#include "names.h"
#include "session_shared.h"
#include "zkcoord/common.h"

int zkc__op_init(zkc__op_t *op) {
  memset(op, 0, sizeof *op);
  if (pthread_mutex_init(&op->mu, NULL) != 0) return ZKC_ESYSTEM;
  if (zkc__cond_init(&op->cv) != ZKC_OK) { /* monotonic: bounded waits */
    pthread_mutex_destroy(&op->mu);
    return ZKC_ESYSTEM;
  }
  return ZKC_OK;
}

void zkc__op_clear(zkc__op_t *op) {
  free(op->created);
  free(op->data);
  for (int i = 0; i < op->children.count; i++) free(op->children.data[i]);
  free(op->children.data);
  pthread_cond_destroy(&op->cv);
  pthread_mutex_destroy(&op->mu);
}

int zkc__op_wait(zkc__op_t *op) {
  pthread_mutex_lock(&op->mu);
  while (!op->done) pthread_cond_wait(&op->cv, &op->mu);
  int rc = op->rc;
  int zk_rc = op->zk_rc;
  pthread_mutex_unlock(&op->mu);
  zkc__note_zk_code(zk_rc); /* on the waiting thread, for its logs */
  return rc;
}

zkc__op_t *zkc__op_new(void) {
  zkc__op_t *op = malloc(sizeof *op);
  if (op == NULL) return NULL;
  if (zkc__op_init(op) != ZKC_OK) {
    free(op);
    return NULL;
  }
  return op;
}

void zkc__op_free(zkc__op_t *op) {
  if (op == NULL) return;
  zkc__op_clear(op);
  free(op);
}

int zkc__op_wait_until(zkc__op_t *op, int64_t limit_ms) {
  int64_t cap = ZKC__FOREVER;
  pthread_mutex_lock(&op->mu);
  for (;;) {
    while (!op->done &&
           zkc__cond_wait_until(&op->cv, &op->mu, limit_ms) == 0) {
    }
    if (op->done || limit_ms == ZKC__FOREVER || op->c == NULL) break;
    /* The limit passed. A silent connection gives up now; one still
     * answering other requests is busy, not silent: wait on, a grace past
     * its latest answer at a time. */
    zkc_client_t *c = op->c;
    if (cap == ZKC__FOREVER)
      cap = limit_ms + (int64_t)c->opts.session_timeout_ms * 2 / 3;
    int64_t last = atomic_load(&c->last_answer_ms);
    if (zkc__now_ms() - last >= ZKC__GRACE_MS || zkc__now_ms() >= cap) break;
    limit_ms = last + ZKC__GRACE_MS < cap ? last + ZKC__GRACE_MS : cap;
  }
  int done = op->done;
  int rc = done ? op->rc : ZKC_ETIMEDOUT;
  int zk_rc = done ? op->zk_rc : 0;
  pthread_mutex_unlock(&op->mu);
  if (done) zkc__note_zk_code(zk_rc);
  return rc;
}

int zkc__op_give_up(zkc__op_t *op) {
  if (op == NULL) return 0;
  pthread_mutex_lock(&op->mu);
  int done = op->done;
  if (!done) op->orphan = 1; /* op_finish frees it */
  pthread_mutex_unlock(&op->mu);
  if (done) zkc__op_free(op);
  return !done;
}

int zkc__op_done(zkc__op_t *op) {
  pthread_mutex_lock(&op->mu);
  int done = op->done;
  pthread_mutex_unlock(&op->mu);
  return done;
}

/* A ZooKeeper result entering zkcoord. The handle closed under the
 * request: because the client closes, or because a lost session's handle
 * is being replaced (then the request is to be retried on the new session,
 * like any connection loss). */
static int translate(zkc_client_t *c, int zk_rc) {
  if (zk_rc == ZCLOSING)
    return atomic_load(&c->zh_closed) ? ZKC_ECLOSED : ZKC_ECONNLOSS;
  return zkc__zk_error(zk_rc);
}

/* The raw code is kept for logs; the library sees the ZKC_* code only. */
static int from_zk(zkc__op_t *op, int zk_rc) {
  op->zk_rc = zk_rc;
  return translate(op->c, zk_rc);
}

/* A request refused at once because the handle's session is over: after
 * refused credentials that is ZAUTHFAILED, which the session's watcher
 * may not have reported yet. Caller holds zh_lock (read). */
static int refusal(zhandle_t *zh, int zk_rc) {
  if (zk_rc == ZINVALIDSTATE && zoo_state(zh) == ZOO_AUTH_FAILED_STATE)
    return ZAUTHFAILED;
  return zk_rc;
}

/* Marks op done with rc (a ZKC_* code); the submitter may free op as soon
 * as it sees done, so nothing touches op after the unlock, except an op
 * given up (zkc__op_give_up), which nobody waits for: freed here. */
static void op_finish(zkc__op_t *op, int rc, const struct Stat *stat) {
  void (*notify)(void *) = op->notify;
  void *notify_ctx = op->notify_ctx;
  pthread_mutex_lock(&op->mu);
  if (op->orphan) {
    op->done = 1;
    pthread_mutex_unlock(&op->mu);
    zkc__op_free(op);
    return;
  }
  op->rc = rc;
  if (stat) {
    op->stat.czxid = stat->czxid;
    op->stat.ctime = stat->ctime;
    op->stat.ephemeral_owner = stat->ephemeralOwner;
    op->stat.version = stat->version;
  }
  op->done = 1;
  pthread_cond_signal(&op->cv);
  pthread_mutex_unlock(&op->mu);
  if (notify) notify(notify_ctx);
}

static void op_link(zkc_client_t *c, zkc__op_t *op) {
  op->c = c;
  pthread_mutex_lock(&c->ops_mu);
  op->prev = NULL;
  op->next = c->ops;
  if (c->ops) c->ops->prev = op;
  c->ops = op;
  op->in_flight = 1;
  pthread_mutex_unlock(&c->ops_mu);
}

/* Takes op out of the in-flight list; 0 if close already finished it. */
static int op_claim(zkc__op_t *op) {
  zkc_client_t *c = op->c;
  pthread_mutex_lock(&c->ops_mu);
  int mine = op->in_flight;
  if (mine) {
    if (op->prev) op->prev->next = op->next;
    else c->ops = op->next;
    if (op->next) op->next->prev = op->prev;
    op->in_flight = 0;
    if (c->ops == NULL) pthread_cond_broadcast(&c->ops_cv);
  }
  pthread_mutex_unlock(&c->ops_mu);
  return mine;
}

void zkc__ops_drain(zkc_client_t *c, int64_t deadline_ms) {
  pthread_mutex_lock(&c->ops_mu);
  while (c->ops != NULL &&
         zkc__cond_wait_until(&c->ops_cv, &c->ops_mu, deadline_ms) == 0) {
  }
  pthread_mutex_unlock(&c->ops_mu);
}

void zkc__ops_abandon(zkc_client_t *c, int rc) {
  pthread_mutex_lock(&c->ops_mu);
  zkc__op_t *list = c->ops;
  c->ops = NULL;
  for (zkc__op_t *op = list; op; op = op->next) op->in_flight = 0;
  pthread_cond_broadcast(&c->ops_cv);
  pthread_mutex_unlock(&c->ops_mu);
  /* Finished outside ops_mu: an op's notify may take other locks. */
  while (list) {
    zkc__op_t *op = list;
    list = op->next; /* op may be freed once finished */
    op_finish(op, rc, NULL);
  }
}

/* A completion arrives: on the callback thread, for an op that close has
 * not finished already (NULL then). *rc is the translated result. */
static zkc__op_t *arrive(const void *data, int zk_rc, int *rc) {
  zkc__op_t *op = (zkc__op_t *)data;
  zkc__mark_callback_thread();
  if (!op_claim(op)) return NULL;
  atomic_store(&op->c->last_answer_ms, zkc__now_ms()); /* not silent */
  *rc = from_zk(op, zk_rc);
  return op;
}

static void on_void(int zk_rc, const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op) op_finish(op, rc, NULL);
}

static void on_stat(int zk_rc, const struct Stat *stat, const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op) op_finish(op, rc, rc == ZKC_OK ? stat : NULL);
}

static void on_data(int zk_rc, const char *value, int len,
                    const struct Stat *stat, const void *data) {
  (void)value, (void)len;
  on_stat(zk_rc, stat, data);
}

static void on_get(int zk_rc, const char *value, int len,
                   const struct Stat *stat, const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op == NULL) return;
  if (rc == ZKC_OK) {
    if (len < 0 || value == NULL) len = 0;
    op->data = malloc((size_t)len + 1);
    if (op->data == NULL) {
      rc = ZKC_ENOMEM;
    } else {
      if (len > 0) memcpy(op->data, value, (size_t)len);
      op->data[len] = '\0';
      op->data_len = len;
    }
  }
  op_finish(op, rc, rc == ZKC_OK ? stat : NULL);
}

static void on_created(int zk_rc, const char *name, const struct Stat *stat,
                       const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op == NULL) return;
  if (rc == ZKC_OK) {
    op->created = strdup(name);
    if (op->created == NULL) rc = ZKC_ENOMEM; /* node exists: caller cleans */
  }
  op_finish(op, rc, rc == ZKC_OK ? stat : NULL);
}

static void on_children(int zk_rc, const struct String_vector *v,
                        const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op == NULL) return;
  if (rc == ZKC_OK && v != NULL && v->count > 0) {
    /* The vector belongs to the client: copy it. */
    op->children.data = calloc((size_t)v->count, sizeof(char *));
    if (op->children.data == NULL) {
      rc = ZKC_ENOMEM;
    } else {
      op->children.count = v->count;
      for (int i = 0; i < v->count; i++)
        if ((op->children.data[i] = strdup(v->data[i])) == NULL) rc = ZKC_ENOMEM;
    }
  }
  op_finish(op, rc, NULL);
}

/* Runs `call` on the live handle under the read lock, so close cannot free
 * the handle mid-call. A synchronous refusal finishes op at once. */
#define ZKC__SUBMIT(c, op, call)                              \
  do {                                                        \
    op_link((c), (op));                                       \
    pthread_rwlock_rdlock(&(c)->zh_lock);                     \
    zhandle_t *zh = (c)->zh;                                  \
    int src_ = zh != NULL         ? refusal(zh, (call))       \
               : atomic_load(&(c)->zh_closed) ? ZCLOSING      \
                                : ZCONNECTIONLOSS; /* new session coming */ \
    if (zh != NULL) atomic_fetch_add(&(c)->requests, 1);      \
    pthread_rwlock_unlock(&(c)->zh_lock);                     \
    if (src_ != ZOK && op_claim(op))                          \
      op_finish((op), from_zk((op), src_), NULL);             \
  } while (0)

static int zk_mode(zkc__create_mode_t mode) {
  switch (mode) {
    case ZKC__CREATE_CONTAINER: return ZOO_CONTAINER;
    case ZKC__CREATE_EPHEMERAL_SEQUENTIAL: return ZOO_EPHEMERAL_SEQUENTIAL;
    case ZKC__CREATE_EPHEMERAL: return ZOO_EPHEMERAL;
    default: return ZOO_PERSISTENT;
  }
}

void zkc__submit_create(zkc_client_t *c, zkc__op_t *op, zkc_node_kind_t kind,
                        const char *path, const char *data, int len,
                        zkc__create_mode_t mode) {
  struct ACL_vector tmp;
  const struct ACL_vector *acl;
  int rc = zkc__acl_for(c, path, kind, &tmp, &acl);
  if (rc != ZKC_OK) {
    op_link(c, op);
    if (op_claim(op)) op_finish(op, rc, NULL);
    return;
  }
  /* The request is serialized before zoo_acreate2 returns: tmp may go. */
  ZKC__SUBMIT(c, op,
              zoo_acreate2(zh, path, data, len, acl, zk_mode(mode), on_created,
                           op));
  zkc__acl_tmp_free(&tmp);
}

void zkc__submit_children(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_aget_children(zh, path, 0, on_children, op));
}

void zkc__submit_delete(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_adelete(zh, path, -1, on_void, op));
}

void zkc__submit_exists(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_aexists(zh, path, 0, on_stat, op));
}

void zkc__submit_get(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_aget(zh, path, 0, on_get, op));
}

/* The handle's session is read under zh_lock with the submit, so a handle
 * swapped in meanwhile is never used: its session has not seen what
 * session_id saw. */
static int in_session(zhandle_t *zh, int64_t session_id) {
  const clientid_t *id = zoo_client_id(zh);
  return id != NULL && id->client_id != 0 && id->client_id == session_id;
}

void zkc__submit_get_in_session(zkc_client_t *c, zkc__op_t *op,
                                const char *path, int64_t session_id) {
  ZKC__SUBMIT(c, op,
              in_session(zh, session_id) ? zoo_aget(zh, path, 0, on_get, op)
                                         : ZSESSIONEXPIRED);
}

static void on_synced(int zk_rc, const char *value, const void *data) {
  (void)value;
  on_void(zk_rc, data);
}

void zkc__submit_sync(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_async(zh, path, on_synced, op));
}

void zkc__submit_set(zkc_client_t *c, zkc__op_t *op, const char *path,
                     const void *data, int len) {
  ZKC__SUBMIT(c, op,
              zoo_aset(zh, path, (const char *)data, len, -1, on_stat, op));
}

/* A node event for the owner of kind `kind` whose id is the context.
 * Session events reach every watcher; the client's own watcher (handle.c)
 * handles those. */
static void tell_owner(zhandle_t *zh, int type, zkc__watch_kind_t kind,
                       const char *path, void *ctx) {
  zkc__mark_callback_thread();
  if (type == ZOO_SESSION_EVENT) return;
  const zkc__handle_ctx_t *h = zoo_get_context(zh);
  h->c->watch_fns[kind](h->c, (uint64_t)(uintptr_t)ctx, path ? path : "",
                        type == ZOO_DELETED_EVENT);
}

static void waiter_watcher(zhandle_t *zh, int type, int state,
                           const char *path, void *ctx) {
  (void)state;
  tell_owner(zh, type, ZKC__WATCH_WAITER, path, ctx);
}

static void guard_watcher(zhandle_t *zh, int type, int state,
                          const char *path, void *ctx) {
  (void)state;
  tell_owner(zh, type, ZKC__WATCH_GUARD, path, ctx);
}

void zkc__submit_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                       uint64_t id) {
  ZKC__SUBMIT(c, op,
              zoo_awget(zh, path, waiter_watcher, (void *)(uintptr_t)id,
                        on_data, op));
}

void zkc__submit_get_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                           uint64_t id) {
  ZKC__SUBMIT(c, op,
              zoo_awget(zh, path, waiter_watcher, (void *)(uintptr_t)id,
                        on_get, op));
}

void zkc__submit_children_watch(zkc_client_t *c, zkc__op_t *op,
                                const char *path, uint64_t id) {
  ZKC__SUBMIT(c, op,
              zoo_awget_children(zh, path, waiter_watcher,
                                 (void *)(uintptr_t)id, on_children, op));
}

/* The answer to a guard's watch request, handed on translated. */
typedef struct answer {
  zkc_client_t *c;
  zkc__answer_fn done;
  void *ctx;
} answer_t;

static void guard_answered(answer_t *a, int zk_rc, const char *value, int len,
                           const struct Stat *stat) {
  zkc__mark_callback_thread();
  int ok = zk_rc == ZOK && stat != NULL;
  a->done(a->ctx, translate(a->c, zk_rc), ok ? value : NULL,
          ok && len > 0 ? len : 0, ok ? stat->version : -1);
  free(a);
}

static void on_guard_stat(int zk_rc, const struct Stat *stat, const void *data) {
  guard_answered((answer_t *)data, zk_rc, NULL, 0, stat);
}

static void on_guard_data(int zk_rc, const char *value, int value_len,
                          const struct Stat *stat, const void *data) {
  guard_answered((answer_t *)data, zk_rc, value, value_len, stat);
}

int zkc__send_guard_watch(zkc_client_t *c, const char *path, uint64_t id,
                          int with_data, zkc__answer_fn done, void *ctx) {
  answer_t *a = malloc(sizeof *a);
  if (a == NULL) return ZKC_ENOMEM;
  a->c = c, a->done = done, a->ctx = ctx;
  void *wctx = (void *)(uintptr_t)id;
  pthread_rwlock_rdlock(&c->zh_lock);
  int zk_rc =
      c->zh == NULL ? (atomic_load(&c->zh_closed) ? ZCLOSING : ZCONNECTIONLOSS)
      : with_data   ? refusal(c->zh, zoo_awget(c->zh, path, guard_watcher, wctx,
                                               on_guard_data, a))
                    : refusal(c->zh, zoo_awexists(c->zh, path, guard_watcher,
                                                  wctx, on_guard_stat, a));
  if (c->zh && zk_rc == ZOK) atomic_fetch_add(&c->requests, 1);
  pthread_rwlock_unlock(&c->zh_lock);
  if (zk_rc != ZOK) free(a);
  return translate(c, zk_rc);
}

/* Removes the watches of one type on path (see zkc__remove_watch), without
 * waiting for the server: a caller giving up at its deadline must not wait
 * on a silent ensemble. Requests on one session are applied in order, so a
 * watch set again after this call is set after the removal. The request is
 * an op given up at once (its answer frees it): it counts as in flight, so
 * that close lets it finish before the handle goes (the C client leaks a
 * request still pending at close). Refused or cut off, the server's watch
 * stays until its node changes, and the event then finds no waiter. The
 * client's own registrations go when the answer comes (or the session
 * ends). The completion is passed as the C client's API declares it, a
 * pointer it calls as a void_completion_t; its `local` mode is not used:
 * it takes `data` for a synchronous call's. */
static void remove_watch(zkc_client_t *c, const char *path, uint64_t id,
                         ZooWatcherType type) {
  (void)id;
  zkc__op_t *op = zkc__op_new();
  if (op == NULL) return;
  op_link(c, op); /* not counted in c->requests: the tests count the rest */
  pthread_rwlock_rdlock(&c->zh_lock);
  int zk_rc = c->zh == NULL
                  ? ZCONNECTIONLOSS
                  : zoo_aremove_all_watches(c->zh, path, type, 0,
                                            (void_completion_t *)on_void, op);
  pthread_rwlock_unlock(&c->zh_lock);
  if (zk_rc != ZOK && op_claim(op)) op_finish(op, from_zk(op, zk_rc), NULL);
  zkc__op_give_up(op);
}

void zkc__forget_watch(zkc_client_t *c, const char *path, uint64_t id) {
  pthread_rwlock_rdlock(&c->zh_lock);
  if (c->zh != NULL)
    zoo_remove_watches(c->zh, path, ZWATCHTYPE_DATA, waiter_watcher,
                       (void *)(uintptr_t)id, 1);
  pthread_rwlock_unlock(&c->zh_lock);
}

void zkc__remove_child_watch(zkc_client_t *c, const char *path, uint64_t id) {
  remove_watch(c, path, id, ZWATCHTYPE_CHILD);
}

/* Removing one watcher only drops the client's registration: the server
 * keeps one watch per path and session, and only "remove all" clears it,
 * for every watcher of this session on the path. If the server cannot be
 * reached, the local registration is dropped; a late event then finds no
 * waiter. */
void zkc__remove_watch(zkc_client_t *c, const char *path, uint64_t id) {
  remove_watch(c, path, id, ZWATCHTYPE_DATA);
}

static int run(zkc__op_t *op) {
  int rc = zkc__op_wait(op);
  zkc__op_clear(op);
  return rc;
}

int zkc__op_find_protected(zkc_client_t *c, const char *base,
                           const char *uuid, int64_t limit_ms, char **node) {
  zkc__op_t *sync = zkc__op_new(), *op = sync ? zkc__op_new() : NULL;
  if (op == NULL) {
    zkc__op_free(sync);
    return ZKC_ENOMEM;
  }
  *node = NULL;
  /* Read where a create cut off is known to be visible (a lagging server
   * would show no node, and it would stay). */
  zkc__submit_sync(c, sync, base);
  zkc__submit_children(c, op, base);
  int src = zkc__op_wait_until(sync, limit_ms);
  int rc = src == ZKC_ETIMEDOUT ? src : zkc__op_wait_until(op, limit_ms);
  if (rc == ZKC_ETIMEDOUT) {
    zkc__op_give_up(sync);
    zkc__op_give_up(op);
    return rc;
  }
  zkc__op_free(sync);
  if (src != ZKC_OK) rc = src;
  if (rc == ZKC_ENONODE) rc = ZKC_OK; /* no parent: no node either */
  for (int i = 0; rc == ZKC_OK && i < op->children.count; i++) {
    if (zkc__name_has_uuid(op->children.data[i], uuid)) {
      *node = zkc__path_join(base, op->children.data[i]);
      if (*node == NULL) rc = ZKC_ENOMEM;
      break;
    }
  }
  zkc__op_free(op);
  return rc;
}

int zkc__op_run_delete(zkc_client_t *c, const char *path) {
  zkc__op_t op;
  int rc = zkc__op_init(&op);
  if (rc != ZKC_OK) return rc;
  zkc__submit_delete(c, &op, path);
  return run(&op);
}

int zkc__op_run_exists_until(zkc_client_t *c, const char *path,
                             zkc__stat_t *stat, int64_t limit_ms) {
  zkc__op_t *op = zkc__op_new();
  if (op == NULL) return ZKC_ENOMEM;
  zkc__submit_exists(c, op, path);
  int rc = zkc__op_wait_until(op, limit_ms);
  if (rc == ZKC_ETIMEDOUT) {
    zkc__op_give_up(op);
    return rc;
  }
  if (rc == ZKC_OK && stat) *stat = op->stat;
  zkc__op_free(op);
  return rc;
}

int zkc__op_run_exists_via_leader(zkc_client_t *c, const char *path,
                                  zkc__stat_t *stat, int64_t limit_ms) {
  zkc__op_t *sync = zkc__op_new(), *op = zkc__op_new();
  if (sync == NULL || op == NULL) {
    zkc__op_free(sync);
    zkc__op_free(op);
    return ZKC_ENOMEM;
  }
  zkc__submit_sync(c, sync, path);
  zkc__submit_exists(c, op, path);
  int src = zkc__op_wait_until(sync, limit_ms);
  int rc = zkc__op_wait_until(op, limit_ms);
  if (src == ZKC_ETIMEDOUT || rc == ZKC_ETIMEDOUT) {
    zkc__op_give_up(sync);
    zkc__op_give_up(op);
    return ZKC_ETIMEDOUT;
  }
  if (src != ZKC_OK && src != ZKC_ENONODE) rc = src;
  if (rc == ZKC_OK && stat) *stat = op->stat;
  zkc__op_free(sync);
  zkc__op_free(op);
  return rc;
}

int zkc__op_run_exists(zkc_client_t *c, const char *path, zkc__stat_t *stat) {
  zkc__op_t op;
  int rc = zkc__op_init(&op);
  if (rc != ZKC_OK) return rc;
  zkc__submit_exists(c, &op, path);
  rc = zkc__op_wait(&op);
  if (rc == ZKC_OK && stat) *stat = op.stat;
  zkc__op_clear(&op);
  return rc;
}

int zkc__op_run_create(zkc_client_t *c, zkc_node_kind_t kind, const char *path,
                       const char *data, int len, zkc__create_mode_t mode) {
  zkc__op_t op;
  int rc = zkc__op_init(&op);
  if (rc != ZKC_OK) return rc;
  zkc__submit_create(c, &op, kind, path, data, len, mode);
  return run(&op);
}

/* 1 when zh's session is over (expired, or credentials refused). */
static int handle_over(zhandle_t *zh) {
  int state = zoo_state(zh);
  return state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE;
}

/* zoo_amulti, but not on a handle whose session is over: the C client
 * (3.8) refuses the first operation of such a multi, then frees the path
 * of the next one, which it never initialised (a stale pointer: in practice
 * the first operation's path, a double free of the caller's string, found
 * by faults.fenced_set_on_expired_session_is_lost), and reports a
 * marshalling error. Such a handle refuses every request anyway: the
 * refusal is ZINVALIDSTATE, as for any other request. *sync_rc is
 * zoo_amulti's own result when it was called, else ZOK. */
static int multi_call(zhandle_t *zh, int count, const zoo_op_t *ops,
                      zoo_op_result_t *results, zkc__op_t *op, int *sync_rc) {
  if (handle_over(zh)) return ZINVALIDSTATE;
  *sync_rc = zoo_amulti(zh, count, ops, results, on_void, op);
  /* The session ended between the check and the call. */
  if (*sync_rc != ZOK && handle_over(zh)) return ZINVALIDSTATE;
  return *sync_rc;
}

/* A multi's result: the operation that failed carries the reason (its
 * index into *failed_op, -1 for none); the others say only that they were
 * not applied. */
static int multi_failure(int rc, const zoo_op_result_t *results, int n,
                         int *failed_op) {
  *failed_op = -1;
  for (int i = 0; rc != ZKC_OK && i < n; i++)
    if (results[i].err != ZOK && results[i].err != ZRUNTIMEINCONSISTENCY) {
      *failed_op = i;
      zkc__note_zk_code(results[i].err);
      return zkc__zk_error(results[i].err);
    }
  return rc;
}

int zkc__op_run_check_set(zkc_client_t *c, const char *check_path,
                          const char *path, const void *data, int len,
                          int *failed_op) {
  return zkc__op_run_check_set_version(c, check_path, path, data, len, -1,
                                       NULL, failed_op);
}

int zkc__op_run_check_set_version(zkc_client_t *c, const char *check_path,
                                  const char *path, const void *data, int len,
                                  int32_t version, int32_t *new_version,
                                  int *failed_op) {
  /* The multi gets a copy of check_path: when zoo_amulti refuses the call
   * itself (the session ended between multi_call's check and the call),
   * the client may have freed it (see multi_call), so it is not freed here
   * then: a few bytes lost rather than a double free. */
  char *check = strdup(check_path);
  if (check == NULL) return ZKC_ENOMEM;
  zkc__op_t op;
  int rc = zkc__op_init(&op);
  if (rc != ZKC_OK) {
    free(check);
    return rc;
  }
  zoo_op_t ops[2];
  zoo_op_result_t results[2];
  struct Stat stat;
  memset(results, 0, sizeof results);
  /* Version -1 checks only that the node exists. */
  zoo_check_op_init(&ops[0], check, -1);
  zoo_set_op_init(&ops[1], path, data, len, version, &stat);
  int sync_rc = ZOK;
  ZKC__SUBMIT(c, &op, multi_call(zh, 2, ops, results, &op, &sync_rc));
  rc = zkc__op_wait(&op);
  zkc__op_clear(&op);
  if (sync_rc == ZOK) free(check);
  rc = multi_failure(rc, results, 2, failed_op);
  if (rc == ZKC_OK && new_version != NULL) *new_version = stat.version;
  return rc;
}

int zkc__op_run_check_create(zkc_client_t *c, const char *check_path,
                             const char *path, const void *data, int len,
                             int *failed_op) {
  /* As zkc__op_run_check_set_version: the multi's own copy of the path it
   * may free itself. */
  char *check = strdup(check_path);
  if (check == NULL) return ZKC_ENOMEM;
  struct ACL_vector tmp;
  const struct ACL_vector *acl;
  int rc = zkc__acl_for(c, path, ZKC_NODE_PARENT, &tmp, &acl);
  zkc__op_t op;
  if (rc == ZKC_OK && (rc = zkc__op_init(&op)) != ZKC_OK)
    zkc__acl_tmp_free(&tmp);
  if (rc != ZKC_OK) {
    free(check);
    *failed_op = -1;
    return rc;
  }
  zoo_op_t ops[2];
  zoo_op_result_t results[2];
  memset(results, 0, sizeof results);
  zoo_check_op_init(&ops[0], check, -1);
  zoo_create_op_init(&ops[1], path, data, len, acl, ZOO_PERSISTENT, NULL, 0);
  int sync_rc = ZOK;
  /* The request is serialized before zoo_amulti returns: tmp may go. */
  ZKC__SUBMIT(c, &op, multi_call(zh, 2, ops, results, &op, &sync_rc));
  zkc__acl_tmp_free(&tmp);
  rc = zkc__op_wait(&op);
  zkc__op_clear(&op);
  if (sync_rc == ZOK) free(check);
  rc = multi_failure(rc, results, 2, failed_op);
  return rc;
}
