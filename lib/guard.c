/* SPDX-License-Identifier: Apache-2.0 */
/* Guards: a holder watches its own node, so that a delete by anyone else
 * (an operator's "deleteall", a misbehaving participant with the rights to
 * do it) is noticed while the session lives, instead of the holder going on
 * in the belief that it still holds the lock.
 *
 * The watch is an exists-watch, set by the maintenance thread once the node
 * has been held for GUARD_DELAY_MS: short holds cost nothing (no request, no
 * notification of our own delete), and a delete before the watch is set is
 * still seen (the exists then finds no node), only later. Answers and
 * events arrive on the ZooKeeper completion thread, which only marks the
 * guard; the maintenance thread tells the owner and sets the watch again
 * when it was cut off. A delete is confirmed by a read sent without
 * waiting (its answer marks the guard too): a removal never waits for it,
 * only for the owner's callback, and an answer that comes after the
 * removal finds no guard.
 *
 * A revocable hold's guard is a get-watch set at once: each data version
 * that carries the revocation marker is told to the owner once (a marker
 * written while the owner still waited shows in the first read). */
#include <stdlib.h>
#include <string.h>


#include "session.h"
#include "client_struct.h"
#include "kernel_door.h"
#include "names.h"
#include "session_shared.h"
#include "test_hooks.h"
#include "zkcoord/common.h"

#define GUARD_DELAY_MS 100

typedef struct zkc__guard zkc__guard_t;
struct zkc__guard {
  uint64_t id;
  char *path;
  int64_t session_id; /* the session that owns the node */
  zkc__guard_fn fn;
  void *ctx;
  int armed;  /* a watch is (or is being) set */
  int64_t arm_at;   /* when to set it (monotonic ms) */
  int gone;   /* a delete was seen: confirm, then tell the owner */
  int checking;     /* the confirming read is in flight */
  int tell_due;     /* the delete is confirmed: tell the owner */
  int64_t check_at; /* next confirmation attempt after a failed one */
  int checks;       /* failed confirmations so far */
  zkc__guard_fn revoked_fn; /* non-NULL: revocable */
  int revoke_due;           /* a marker was read: tell the owner */
  int32_t told_version;     /* the data version last told (-1: none) */
  UT_hash_handle hh;
};

void (*zkc__guard_check_seam)(uint64_t guard);

static atomic_ullong told_total; /* deletes told to owners (test hook) */

uint64_t zkc__guard_told(void) { return atomic_load(&told_total); }

/* A guard's watch request: an op that tells the guard its answer. */
typedef struct guard_req {
  zkc__op_t op; /* its client is op.c (set by the send) */
  uint64_t id;
} guard_req_t;

static zkc__guard_t *find_locked(zkc_client_t *c, uint64_t id) {
  zkc__guard_t *g = NULL;
  HASH_FIND(hh, c->guards, &id, sizeof id, g);
  return g;
}

void zkc__guard_event(zkc_client_t *c, uint64_t id, const char *path,
                      int deleted) {
  (void)path;
  pthread_mutex_lock(&c->mu);
  zkc__guard_t *g = find_locked(c, id);
  if (g != NULL) {
    /* Deleted: tell the owner. Changed (overwritten by someone): the watch
     * is spent, set it again. */
    if (deleted) g->gone = 1;
    g->armed = 0;
    pthread_cond_broadcast(&c->state_cv);
  }
  pthread_mutex_unlock(&c->mu);
}

/* The answer to a watch request (the op's notify, on the completion
 * thread, or on the thread that dropped the handle under it); for a
 * revocable guard with the data. A watch not set is set again after
 * GUARD_DELAY_MS: a send refused at once must not spin the maintenance
 * thread, and a delete meanwhile is still seen by the next exists. */
static void guard_answer(void *ctx) {
  guard_req_t *req = ctx;
  const zkc__op_t *op = &req->op;
  zkc_client_t *c = op->c;
  pthread_mutex_lock(&c->mu);
  zkc__guard_t *g = find_locked(c, req->id);
  if (g != NULL && op->rc == ZKC_ENONODE) { /* gone before the watch was set */
    g->gone = 1;
  } else if (g != NULL && op->rc != ZKC_OK) { /* not set (connection loss, close) */
    g->armed = 0;
    g->arm_at = zkc__now_ms() + GUARD_DELAY_MS;
  } else if (g != NULL && g->revoked_fn &&
             zkc__is_revoke_marker(op->data, op->data_len) &&
             op->stat.version != g->told_version) {
    g->revoke_due = 1;
    g->told_version = op->stat.version;
  }
  if (g != NULL) pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
  zkc__op_clear(&req->op);
  free(req);
}

/* Sends the watch for guard `id` on `path` (a get-watch when revocable).
 * c->mu not held. */
static void arm(zkc_client_t *c, uint64_t id, const char *path,
                int revocable) {
  guard_req_t *req = calloc(1, sizeof *req);
  if (req != NULL && zkc__op_init(&req->op) == ZKC_OK) {
    req->id = id;
    req->op.notify = guard_answer;
    req->op.notify_ctx = req;
    zkc__submit_guard_watch(c, &req->op, path, id, revocable);
    return;
  }
  free(req);
  pthread_mutex_lock(&c->mu);
  zkc__guard_t *g = find_locked(c, id);
  if (g != NULL) { /* no memory: the maintenance thread tries again */
    g->armed = 0;
    g->arm_at = zkc__now_ms() + GUARD_DELAY_MS;
  }
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

static int add(zkc_client_t *c, const char *path, int64_t session_id,
               zkc__guard_fn fn, zkc__guard_fn revoked_fn, void *ctx,
               int32_t told_version, int held, uint64_t *id);

/* A guard falls due at `at`: the maintenance thread is woken only if it
 * sleeps past that (client_struct.h), so that the guard of each grant, due
 * in GUARD_DELAY_MS and mostly removed before, does not wake it per grant.
 * Caller holds c->mu. */
static void due_locked(zkc_client_t *c, int64_t at) {
  if (c->maint_sleeps_until != 0 && at < c->maint_sleeps_until)
    pthread_cond_broadcast(&c->state_cv);
}

int zkc__guard_add(zkc_client_t *c, const char *path, int64_t session_id,
                   zkc__guard_fn fn, void *ctx,
                   const zkc__guard_revoke_t *revoke, uint64_t *id) {
  return revoke ? add(c, path, session_id, fn, revoke->revoked_fn, ctx,
                      revoke->told_version, 0, id)
                : add(c, path, session_id, fn, NULL, ctx, -1, 0, id);
}

int zkc__guard_add_held(zkc_client_t *c, const char *path, int64_t session_id,
                        zkc__guard_fn fn, void *ctx, uint64_t *id) {
  return add(c, path, session_id, fn, NULL, ctx, -1, 1, id);
}

/* held: nothing is done for it (arm_at FOREVER) until zkc__guard_start. */
static int add(zkc_client_t *c, const char *path, int64_t session_id,
               zkc__guard_fn fn, zkc__guard_fn revoked_fn, void *ctx,
               int32_t told_version, int held, uint64_t *id) {
  zkc__guard_t *g = calloc(1, sizeof *g);
  if (g == NULL || (g->path = strdup(path)) == NULL) {
    free(g);
    return ZKC_ENOMEM;
  }
  g->session_id = session_id;
  g->fn = fn, g->ctx = ctx;
  g->revoked_fn = revoked_fn;
  g->told_version = told_version;
  /* A revocation must not wait for the delay: watch at once. */
  g->arm_at = held ? ZKC__FOREVER
                   : zkc__now_ms() + (revoked_fn ? 0 : GUARD_DELAY_MS);
  pthread_mutex_lock(&c->mu);
  g->id = ++c->next_guard_id;
  int added = ZKC__HASH_ADD_U64(c->guards, id, g);
  if (added) due_locked(c, g->arm_at);
  pthread_mutex_unlock(&c->mu);
  if (!added) {
    free(g->path);
    free(g);
    return ZKC_ENOMEM;
  }
  *id = g->id;
  return ZKC_OK;
}

void zkc__guard_start(zkc_client_t *c, uint64_t id) {
  pthread_mutex_lock(&c->mu);
  zkc__guard_t *g = find_locked(c, id);
  if (g != NULL && !g->armed && g->arm_at == ZKC__FOREVER) {
    g->arm_at = zkc__now_ms() + GUARD_DELAY_MS;
    due_locked(c, g->arm_at);
  }
  pthread_mutex_unlock(&c->mu);
}

int zkc__guard_waiting(zkc_client_t *c, uint64_t id) {
  pthread_mutex_lock(&c->mu);
  zkc__guard_t *g = find_locked(c, id);
  int waiting = g != NULL && !g->armed && g->arm_at == ZKC__FOREVER;
  pthread_mutex_unlock(&c->mu);
  return waiting;
}

int32_t zkc__guard_remove(zkc_client_t *c, uint64_t id) {
  if (id == 0) return -1;
  pthread_mutex_lock(&c->mu);
  zkc__guard_t *g = find_locked(c, id);
  int32_t told = g ? g->told_version : -1;
  if (g != NULL) HASH_DELETE(hh, c->guards, g);
  /* Once this returns the owner's callback is not running for it; a check
   * still in flight finds no guard when answered. */
  int self = zkc__on_maint_thread_locked(c);
  while (!self && c->guard_dispatching == id)
    pthread_cond_wait(&c->state_cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  if (g != NULL) free(g->path);
  free(g);
  return told;
}

/* The server deletes a closing session's ephemeral nodes before it drops
 * the connection, so the session's own watch can report the delete of a
 * node lost with the session. A round trip that finds the node gone proves
 * the session alive: only then was the node deleted by someone else. It
 * goes through the guard's session only: once the client has moved to a
 * new session, the node is gone with the old one, which is not a delete.
 * A session check goes first (zkc__submit_session_check: a write to a
 * child the node never has), and the read counts only when the check
 * found the session live: a follower that applied the close may answer
 * the session's reads on a connection it still has (a follower checks no
 * session for a read), and the close was begun at the leader before any
 * server applied it, so the leader's check of the write, made after the
 * watch fired, finds the session closing. A sync would not do: the leader
 * answers a follower's sync whatever the session's state (a fresh root saw
 * a hold lost with its session told as deleted). The write is a
 * transaction of the ensemble's (an error one: it changes nothing), once
 * per delete told to a holder. The two are sent without waiting: a silent
 * ensemble answers them only when the connection is given up, and a
 * removal of the guard meanwhile (a hold's release on the async engine)
 * must not wait that long. */
#define SESSION_CHECK_CHILD "zkcoord-session-check"

typedef struct guard_check {
  zkc__op_t *live, *op;
  atomic_int pending; /* answers still due */
  zkc_client_t *c;
  uint64_t id; /* looked up again: the guard may be removed meanwhile */
} guard_check_t;

/* Both answers are in (the completion thread, or close): kept for the
 * maintenance thread, unless the guard was removed meanwhile. */
static void checked(void *ctx) {
  guard_check_t *k = ctx;
  if (atomic_fetch_sub(&k->pending, 1) != 1) return;
  zkc_client_t *c = k->c;
  /* the write found the session live (it finds no node to change) */
  int live = k->live->rc == ZKC_ENONODE || k->live->rc == ZKC_OK;
  int rc = live ? k->op->rc : k->live->rc;
  pthread_mutex_lock(&c->mu);
  zkc__guard_t *g = find_locked(c, k->id);
  /* a node at the path that is not the session's is another: ours went */
  if (g != NULL && rc == ZKC_OK &&
      k->op->stat.ephemeral_owner != g->session_id)
    rc = ZKC_ENONODE;
  if (g != NULL) {
    g->checking = 0;
    if (rc == ZKC_ENONODE) {
      g->tell_due = 1;
    } else if (rc == ZKC_OK) { /* it exists: watch again */
      g->gone = 0;
      g->checks = 0;
      g->armed = 0;
    } else { /* the session's fate is being decided: ask again later */
      g->check_at = zkc__now_ms() + zkc__background_backoff_ms(&g->checks);
    }
    pthread_cond_broadcast(&c->state_cv);
  }
  pthread_mutex_unlock(&c->mu);
  zkc__op_free(k->live);
  zkc__op_free(k->op);
  free(k);
}

/* Sends the session check and the read that confirm g's delete. Caller
 * holds c->mu; returns with it held. */
static void check(zkc_client_t *c, zkc__guard_t *g) {
  uint64_t id = g->id;
  int64_t session = g->session_id;
  char *path = strdup(g->path);
  char *child = path ? zkc__path_join(path, SESSION_CHECK_CHILD) : NULL;
  guard_check_t *k = child ? malloc(sizeof *k) : NULL;
  zkc__op_t *live = k ? zkc__op_new() : NULL;
  zkc__op_t *op = live ? zkc__op_new() : NULL;
  if (op == NULL) { /* no memory: try again later */
    if (live != NULL) zkc__op_free(live);
    free(child);
    free(path);
    free(k);
    g->check_at = zkc__now_ms() + zkc__background_backoff_ms(&g->checks);
    return;
  }
  k->live = live, k->op = op, k->c = c, k->id = id;
  atomic_init(&k->pending, 2);
  live->notify = op->notify = checked;
  live->notify_ctx = op->notify_ctx = k;
  g->checking = 1;
  pthread_mutex_unlock(&c->mu);
  if (zkc__guard_check_seam) zkc__guard_check_seam(id);
  zkc__submit_session_check(c, live, child, session);
  zkc__submit_exists_in_session(c, op, path, session);
  free(child);
  free(path);
  pthread_mutex_lock(&c->mu);
}

/* Tells the owner that g's node was deleted; the guard then rests (no
 * watch again). Caller holds c->mu; returns with it held. */
static void tell_deleted(zkc_client_t *c, zkc__guard_t *g) {
  uint64_t id = g->id;
  g->tell_due = 0;
  g->gone = 0;
  g->checks = 0;
  g->armed = 1;
  c->guard_dispatching = id; /* keeps g alive while unlocked */
  pthread_mutex_unlock(&c->mu);
  atomic_fetch_add(&told_total, 1);
  g->fn(g->ctx, id);
  pthread_mutex_lock(&c->mu);
  c->guard_dispatching = 0;
  pthread_cond_broadcast(&c->state_cv);
}

/* Tells the owner of a revocable guard that the marker was written. Caller
 * holds c->mu; returns with it held. */
static void tell_revoked(zkc_client_t *c, zkc__guard_t *g) {
  uint64_t id = g->id;
  g->revoke_due = 0;
  c->guard_dispatching = id; /* keeps g alive while unlocked */
  pthread_mutex_unlock(&c->mu);
  g->revoked_fn(g->ctx, id);
  pthread_mutex_lock(&c->mu);
  c->guard_dispatching = 0;
  pthread_cond_broadcast(&c->state_cv);
}

/* Guards work only on a live connection; a state change wakes the thread. */
int zkc__guard_step_locked(zkc_client_t *c) {
  if (!zkc__live_locked(c)) return 0;
  int64_t now = zkc__now_ms();
  zkc__guard_t *g, *tmp;
  HASH_ITER(hh, c->guards, g, tmp) {
    /* A node of an older session went with it: its owner learns through
     * the LOST state, not here. */
    if (g->session_id != c->session_id) continue;
    if (g->revoke_due && !g->gone) {
      tell_revoked(c, g);
      return 1;
    }
    if (g->tell_due) {
      tell_deleted(c, g);
      return 1;
    }
    if (g->gone && !g->checking && now >= g->check_at) {
      check(c, g);
      return 1;
    }
    if (!g->gone && !g->armed && now >= g->arm_at) {
      g->armed = 1;
      uint64_t id = g->id;
      char *path = strdup(g->path);
      int revocable = g->revoked_fn != NULL;
      pthread_mutex_unlock(&c->mu);
      if (path) arm(c, id, path, revocable);
      free(path);
      pthread_mutex_lock(&c->mu);
      return 1;
    }
  }
  return 0;
}

void zkc__guards_renew_locked(zkc_client_t *c, const char *path) {
  int64_t now = zkc__now_ms();
  zkc__guard_t *g, *tmp;
  HASH_ITER(hh, c->guards, g, tmp) {
    if (!g->armed || strcmp(g->path, path) != 0) continue;
    g->armed = 0; /* guard_step sets it again; a delete meanwhile is seen */
    g->arm_at = now;
  }
  pthread_cond_broadcast(&c->state_cv);
}

int64_t zkc__guard_next_locked(zkc_client_t *c) {
  int64_t next = ZKC__FOREVER;
  if (!zkc__live_locked(c)) return next;
  zkc__guard_t *g, *tmp;
  HASH_ITER(hh, c->guards, g, tmp) {
    if (g->session_id != c->session_id) continue;
    if (g->revoke_due && !g->gone) next = 0;
    if (g->tell_due) next = 0;
    if (g->gone && !g->checking && g->check_at < next) next = g->check_at;
    if (!g->gone && !g->armed && g->arm_at < next) next = g->arm_at;
  }
  return next;
}

void zkc__guards_free(zkc_client_t *c) {
  zkc__guard_t *g, *tmp;
  HASH_ITER(hh, c->guards, g, tmp) {
    HASH_DELETE(hh, c->guards, g);
    free(g->path);
    free(g);
  }
}
