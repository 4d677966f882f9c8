/* SPDX-License-Identifier: Apache-2.0 */
/* Node watches: a waiter's (a predecessor, a semaphore's leases), a
 * guard's (a holder's own node), their events handed to the owner's kind
 * by id on the completion thread, and their removal. */
#include <stdint.h>
#include <stdlib.h>

#include "kernel_door.h"
#include "ops_zk.h"
#include "qview.h"

/* A node event for the owner of kind `kind` whose id is the context.
 * Session events reach every watcher; the client's own watcher (handle.c)
 * handles those. */
static void tell_owner(zhandle_t *zh, int type, zkc__watch_kind_t kind,
                       const char *path, void *ctx) {
  zkc__mark_callback_thread();
  if (type == ZOO_SESSION_EVENT) return;
  const zkc__handle_ctx_t *h = zoo_get_context(zh);
  /* Before the owner is told: a waiter it wakes may ask the view. */
  if (type == ZOO_DELETED_EVENT && path) zkc__qview_gone(h->c, path);
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
                        zkc__on_data, op));
}

void zkc__submit_get_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                           uint64_t id) {
  ZKC__SUBMIT(c, op,
              zoo_awget(zh, path, waiter_watcher, (void *)(uintptr_t)id,
                        zkc__on_get, op));
}

void zkc__submit_children_watch(zkc_client_t *c, zkc__op_t *op,
                                const char *path, uint64_t id) {
  ZKC__SUBMIT(c, op,
              zoo_awget_children(zh, path, waiter_watcher,
                                 (void *)(uintptr_t)id, zkc__on_children, op));
}

/* An exists answers with a stat only: the op's stat completion. */
static void on_exists_watched(int zk_rc, const struct Stat *stat,
                              const void *data) {
  zkc__on_data(zk_rc, NULL, 0, stat, data);
}

void zkc__submit_exists_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                              uint64_t id) {
  ZKC__SUBMIT(c, op,
              zoo_awexists(zh, path, waiter_watcher, (void *)(uintptr_t)id,
                           on_exists_watched, op));
}

void zkc__submit_guard_watch(zkc_client_t *c, zkc__op_t *op, const char *path,
                             uint64_t id, int with_data) {
  void *wctx = (void *)(uintptr_t)id;
  if (with_data)
    ZKC__SUBMIT(c, op, zoo_awget(zh, path, guard_watcher, wctx, zkc__on_get, op));
  else
    ZKC__SUBMIT(c, op,
                zoo_awexists(zh, path, guard_watcher, wctx, on_exists_watched, op));
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
  zkc__op_link(c, op); /* not counted in c->requests: the tests count the rest */
  pthread_rwlock_rdlock(&c->zh_lock);
  int zk_rc = c->zh == NULL
                  ? ZCONNECTIONLOSS
                  : zoo_aremove_all_watches(c->zh, path, type, 0,
                                            (void_completion_t *)zkc__on_void, op);
  pthread_rwlock_unlock(&c->zh_lock);
  if (zk_rc != ZOK && zkc__op_claim(op))
    zkc__op_finish(op, zkc__op_from_zk(op, zk_rc), NULL);
  zkc__op_give_up(op);
}

/* Drops waiter id's watch of one type on path in this client only. */
static void forget(zkc_client_t *c, const char *path, uint64_t id,
                   ZooWatcherType type) {
  pthread_rwlock_rdlock(&c->zh_lock);
  if (c->zh != NULL)
    zoo_remove_watches(c->zh, path, type, waiter_watcher,
                       (void *)(uintptr_t)id, 1);
  pthread_rwlock_unlock(&c->zh_lock);
}

void zkc__forget_watch(zkc_client_t *c, const char *path, uint64_t id) {
  forget(c, path, id, ZWATCHTYPE_DATA);
}

void zkc__forget_child_watch(zkc_client_t *c, const char *path, uint64_t id) {
  forget(c, path, id, ZWATCHTYPE_CHILD);
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
