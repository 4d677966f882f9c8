/* SPDX-License-Identifier: Apache-2.0 */
/* The reentrant mutex: a per-thread hold table over the lock queue,
 * told of connection trouble so that holders learn when a lock is lost.
 * The two sides of a read-write lock are mutexes too (rwlock.c), told
 * apart by their side and linked as twins. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fenced.h"
#include "hash.h"
#include "hold_fate.h"
#include "queue.h"
#include "names.h"
#include "rwside.h"
#include "session.h"
#include "test_hooks.h"
#include "util.h"
#include "zkcoord/mutex.h"

/* The node names of each side: Curator's. */
static const char *const lock_names[] = {[ZKC__SIDE_MUTEX] = ZKC__LOCK_NAME,
                                         [ZKC__SIDE_WRITE] = "__WRIT__",
                                         [ZKC__SIDE_READ] = "__READ__"};

/* record(): the grant came too late, queue again (never returned). */
#define ZKC__REQUEUE 1

/* One thread's hold on the mutex. */
typedef struct hold {
  uint64_t thread; /* zkc__thread_id() of the holder */
  unsigned count;
  zkc__held_t held;
  int in_doubt; /* connection down: the lock may be gone */
  int lost;     /* the lock is gone (or being given up) */
  int told;     /* its loss is being told to the lost callback */
  zkc_revoke_fn revoke_fn; /* non-NULL: revocable (its node's data empty) */
  void *revoke_ctx;
  uint64_t guard; /* the watch on our own node */
  UT_hash_handle hh;
} hold_t;

struct zkc_mutex {
  zkc_client_t *client; /* set at create, never changes */
  char *path;
  pthread_mutex_t mu; /* guards everything below */
  hold_t *holds;
  int users; /* threads inside a call: destroy refuses while > 0 */
  zkc_lost_fn lost_fn;
  void *lost_ctx;
  zkc_revoke_fn revoke_fn; /* non-NULL: new holds are revocable */
  void *revoke_ctx;
  zkc__side_t side;    /* set at create, never changes */
  zkc_mutex_t *twin;   /* the other side of a read-write lock, or NULL */
};

/* The calling thread's hold, or NULL. Caller holds m->mu. */
static hold_t *my_hold(const zkc_mutex_t *m) {
  uint64_t me = zkc__thread_id();
  hold_t *h = NULL;
  HASH_FIND(hh, m->holds, &me, sizeof me, h);
  return h;
}

/* The user's lost callback for one hold of m (hold_fate.h's teller). */
typedef struct {
  zkc_mutex_t *m;
  zkc_lost_fn fn;
  void *ctx;
} teller_t;

static void tell_one(void *ctx, zkc_lost_reason_t why, int64_t token) {
  teller_t *t = ctx;
  if (t->fn) t->fn(t->ctx, t->m, why, token);
}

/* Tells the user of each lost hold, outside m->mu. */
static void lost_tell(zkc_mutex_t *m, zkc_lost_fn fn, void *ctx,
                      zkc_lost_reason_t why, zkc__lost_list_t *l) {
  teller_t t = {m, fn, ctx};
  zkc__lost_tell(m->client, "lock", m->path, why, l, tell_one, &t);
}

/* Marks h lost (m->mu held) and, the first time, names it in `l` for the
 * lost callback: 1 then, else 0. A hold the holding thread found lost
 * itself (zkc_mutex_fenced_set) is marked lost there but told here, on the
 * maintenance thread, when the client learns of the loss, as any other. */
static int lose_locked(hold_t *h, zkc__lost_list_t *l) {
  h->lost = 1;
  if (h->told) return 0;
  h->told = 1;
  zkc__lost_push(l, h->held.token);
  return 1;
}

/* Connection states reach every hold: in doubt while disconnected, lost
 * with the session (or already when disconnected, by the client's policy).
 * A lost node that may still exist is deleted by whichever session is
 * current next (its path is unique to this hold: deleting it can never
 * remove anyone else's node), so the next waiter gets the lock. */
static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_mutex_t *m = ctx;
  zkc_client_t *c = m->client;
  zkc__lost_list_t lost = {0};
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  pthread_mutex_lock(&m->mu);
  hold_t *h, *tmp;
  int lost_on_suspended = zkc__lost_on_suspended(c);
  HASH_ITER(hh, m->holds, h, tmp) {
    zkc_lost_reason_t w = why;
    zkc__hold_fate_t f = zkc__hold_fate_on_state(
        st, lost_session, h->held.session_id, lost_on_suspended, &w);
    h->in_doubt = f != ZKC__HOLD_STANDS;
    if (f == ZKC__HOLD_LOST && lose_locked(h, &lost)) {
      why = w;
      zkc__janitor_add(c, h->held.node, NULL);
    }
  }
  zkc_lost_fn fn = m->lost_fn;
  void *fn_ctx = m->lost_ctx;
  pthread_mutex_unlock(&m->mu);
  lost_tell(m, fn, fn_ctx, why, &lost);
}

/* Someone wrote the revocation marker into a revocable hold's node: told
 * with the callback the hold was granted with. */
static void on_revoked(void *ctx, uint64_t guard) {
  zkc_mutex_t *m = ctx;
  int64_t token = 0;
  zkc_revoke_fn fn = NULL;
  void *fn_ctx = NULL;
  pthread_mutex_lock(&m->mu);
  hold_t *h, *tmp;
  HASH_ITER(hh, m->holds, h, tmp) {
    if (h->guard == guard && !h->lost) {
      token = h->held.token;
      fn = h->revoke_fn;
      fn_ctx = h->revoke_ctx;
    }
  }
  pthread_mutex_unlock(&m->mu);
  if (fn == NULL) return;
  zkc__log(m->client, ZKC_LOG_INFO, "lock %s: revocation requested, token %lld",
           m->path, (long long)token);
  fn(fn_ctx, m, token);
}

/* Our node was deleted while the session lived: the lock is gone. */
static void on_node_gone(void *ctx, uint64_t guard) {
  zkc_mutex_t *m = ctx;
  zkc__lost_list_t lost = {0};
  pthread_mutex_lock(&m->mu);
  hold_t *h, *tmp;
  HASH_ITER(hh, m->holds, h, tmp) {
    if (h->guard == guard) lose_locked(h, &lost);
  }
  zkc_lost_fn fn = m->lost_fn;
  void *fn_ctx = m->lost_ctx;
  pthread_mutex_unlock(&m->mu);
  lost_tell(m, fn, fn_ctx, ZKC_LOST_DELETED, &lost);
}

int zkc_mutex_create(zkc_mutex_t **out, zkc_client_t *client,
                     const char *path) {
  if (out != NULL) *out = NULL;
  int rc = zkc__refuse_null(client, "zkc_mutex_create", "out", out == NULL,
                            "client", client == NULL, (char *)NULL);
  if (rc == ZKC_OK)
    rc = zkc__check_path(client, "zkc_mutex_create", "lock path", path);
  if (rc != ZKC_OK) return rc;
  return zkc__mutex_new(out, client, path, ZKC__SIDE_MUTEX);
}

int zkc__mutex_new(zkc_mutex_t **out, zkc_client_t *client, const char *path,
                   zkc__side_t side) {
  zkc_mutex_t *m = calloc(1, sizeof *m);
  if (m == NULL) return ZKC_ENOMEM;
  if ((m->path = strdup(path)) == NULL ||
      pthread_mutex_init(&m->mu, NULL) != 0) {
    free(m->path);
    free(m);
    return ZKC_ENOMEM;
  }
  /* Everything on_state reads is set before it can run: the maintenance
   * thread calls it from the attach on, with no lock of ours between (TSan
   * saw the first state change race with these writes). */
  m->client = client;
  m->side = side;
  int rc = zkc__recipe_attach(client, on_state, m);
  if (rc != ZKC_OK) {
    pthread_mutex_destroy(&m->mu);
    free(m->path);
    free(m);
    return rc;
  }
  *out = m;
  return ZKC_OK;
}

void zkc__mutex_twin(zkc_mutex_t *w, zkc_mutex_t *r) {
  w->twin = r;
  r->twin = w;
}

int zkc__mutex_busy(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  int busy = m->holds != NULL || m->users > 0;
  pthread_mutex_unlock(&m->mu);
  return busy;
}

int zkc_mutex_destroy(zkc_mutex_t *m) {
  if (m == NULL) return ZKC_OK;
  if (m->side != ZKC__SIDE_MUTEX) /* its rwlock's */
    return zkc__refuse(m->client, ZKC_EINVAL,
                       "zkc_mutex_destroy: a side of a "
                       "read-write lock goes with zkc_rwlock_destroy");
  if (zkc__mutex_busy(m)) return ZKC_EBUSY;
  return zkc__mutex_free(m);
}

int zkc__mutex_free(zkc_mutex_t *m) {
  int rc = zkc__recipe_detach(m->client, on_state, m);
  if (rc != ZKC_OK) return rc;
  pthread_mutex_destroy(&m->mu);
  free(m->path);
  free(m);
  return ZKC_OK;
}

static void leave(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  m->users--;
  pthread_mutex_unlock(&m->mu); /* the last touch of m in a call */
}

zkc_client_t *zkc__mutex_client(const zkc_mutex_t *m) { return m->client; }

int zkc__mutex_hold_enter(zkc_mutex_t *m, int64_t *session_id) {
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  int rc = h == NULL ? ZKC_ENOTOWNER : h->lost ? ZKC_ELOST : ZKC_OK;
  if (rc == ZKC_OK) {
    *session_id = h->held.session_id;
    m->users++;
  }
  pthread_mutex_unlock(&m->mu);
  return rc;
}

int zkc__mutex_hold_check(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  int rc = h == NULL ? ZKC_ENOTOWNER : h->lost ? ZKC_ELOST : ZKC_OK;
  pthread_mutex_unlock(&m->mu);
  return rc;
}

void zkc__mutex_hold_leave(zkc_mutex_t *m) { leave(m); }

void (*zkc__mutex_seam)(zkc_mutex_t *m, zkc__seam_t where);

/* Watches the hold's own node (see guard.c). Under m->mu, so that the guard
 * cannot fire before the hold carries its id. */
static void guard_hold(zkc_mutex_t *m, hold_t *h, int32_t told) {
  int rc = h->revoke_fn
               ? zkc__guard_add_revocable(m->client, h->held.node,
                                          h->held.session_id, on_node_gone,
                                          on_revoked, m, told, &h->guard)
               : zkc__guard_add(m->client, h->held.node, h->held.session_id,
                                on_node_gone, m, &h->guard);
  if (rc != ZKC_OK)
    zkc__log(m->client, ZKC_LOG_WARN, "out of memory: %s is held unwatched",
             m->path);
}

/* Records a granted hold, or returns ZKC__REQUEUE when it is gone already.
 * The session's fate is read under m->mu: a state dispatched before this
 * shows in it, one dispatched after finds the hold in the table. Caller
 * holds m->mu (which ranks above the client's lock). */
static int record(zkc_mutex_t *m, hold_t *h) {
  zkc_client_t *c = m->client;
  zkc__hold_fate_t fate = zkc__hold_fate_at_grant(
      zkc__session_fate(c, h->held.session_id), zkc__lost_on_suspended(c));
  if (fate == ZKC__HOLD_LOST) return ZKC__REQUEUE;
  h->in_doubt = fate == ZKC__HOLD_IN_DOUBT;
  if (!ZKC__HASH_ADD_U64(m->holds, thread, h)) return ZKC_ENOMEM;
  guard_hold(m, h, -1);
  return ZKC_OK;
}

/* The full path of the calling thread's hold on m (malloc), or NULL when it
 * has none or the hold is lost (*lost set). */
static char *my_node(zkc_mutex_t *m, int *lost) {
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  *lost = h != NULL && h->lost;
  char *node = h != NULL && !h->lost ? strdup(h->held.node) : NULL;
  pthread_mutex_unlock(&m->mu);
  return node;
}

/* The write holder takes the read side: a read node that carries the write
 * node's sequence (Curator 5.5), so that a writer queued behind the write
 * node stays behind the reader once the write side is released. Granted
 * without queueing once the write node is seen, after the read node was
 * made, to be still this session's: no other writer can have been granted
 * meanwhile, and none can be while the read node is before it.
 * The hold's token is the write node's czxid, not the read node's: the
 * read node is made after writers already queued behind the write node,
 * and its own czxid would be larger than theirs, who hold after it. */
static int downgrade(zkc_mutex_t *m, const char *wnode, const char *data,
                     int64_t deadline, zkc__held_t *out) {
  zkc_client_t *c = m->client;
  int64_t seq = 0;
  if (!zkc__node_sequence(zkc__basename(wnode), &seq)) return ZKC_ELOST;
  char name[32];
  snprintf(name, sizeof name, "%s%010d", lock_names[ZKC__SIDE_READ], (int)seq);
  int rc = zkc__node_create_mode(c, m->path, name, data, 1, deadline, out);
  if (rc != ZKC_OK) return rc;
  /* The write node's read keeps the call's limit, as the queue engine's
   * requests do, and is retried by the client's policy. The grant rests on
   * it as any other: read through the leader, and read again when its
   * answer went stale (this process stopped meanwhile). */
  int64_t limit = zkc__limit_after(deadline);
  zkc__stat_t st;
  int attempt = 0;
  for (;;) {
    int64_t sent = zkc__boot_ms();
    rc = zkc__op_run_exists_via_leader(c, wnode, &st, limit);
    if (zkc__mutex_seam) zkc__mutex_seam(m, ZKC__SEAM_DOWNGRADE_READ);
    if (zkc__retryable(rc)) {
      if (zkc__retry_wait(c, &attempt, rc, deadline) == ZKC_OK) continue;
      break;
    }
    if (rc != ZKC_OK) break;
    zkc__session_fate_t fate = zkc__session_fate(c, out->session_id);
    if (fate == ZKC__SESSION_LIVE && zkc__grant_fresh(c, sent)) break;
    if (fate == ZKC__SESSION_GONE) {
      rc = ZKC_ELOST;
      break;
    }
    if (fate == ZKC__SESSION_DOUBT &&
        (rc = zkc__wait_connected(c, deadline)) != ZKC_OK)
      break;
  }
  if (rc == ZKC_OK && st.ephemeral_owner == out->session_id) {
    out->token = st.czxid;
    return ZKC_OK;
  }
  (void)zkc__lock_delete_by(c, out->node, limit);
  free(out->node);
  out->node = NULL;
  return rc == ZKC_OK || rc == ZKC_ENONODE ? ZKC_ELOST : rc;
}

/* Before m's own lock: the calling thread's holds change only by its own
 * calls, and the twins' locks are never held together. For the read side
 * of a thread holding the write side, *wnode is the write node to carry
 * the sequence of. */
static int twin_check(zkc_mutex_t *m, char **wnode) {
  *wnode = NULL;
  if (m->twin == NULL || zkc_mutex_is_owned_by_current_thread(m)) return ZKC_OK;
  if (!zkc_mutex_is_owned_by_current_thread(m->twin)) return ZKC_OK;
  /* A reader asking for the write side would queue behind its own read
   * node for ever: refuse at once. */
  if (m->side == ZKC__SIDE_WRITE) return ZKC_EDEADLK;
  int lost = 0;
  *wnode = my_node(m->twin, &lost);
  if (*wnode == NULL) return lost ? ZKC_ELOST : ZKC_ENOMEM;
  return ZKC_OK;
}

int zkc_mutex_acquire_timeout(zkc_mutex_t *m, int64_t timeout_ms) {
  if (m == NULL) /* timeout_ms < 0: no limit */
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_mutex_acquire_timeout: mutex is NULL");
  zkc_client_t *c = m->client;
  char *wnode = NULL;
  int rc = twin_check(m, &wnode);
  if (rc != ZKC_OK) return rc;
  zkc_revoke_fn revoke_fn = NULL;
  void *revoke_ctx = NULL;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h != NULL) { /* reentry: a count, no ZooKeeper call */
    if (h->lost)
      rc = ZKC_ELOST;
    else if (zkc__client_closed(c))
      rc = ZKC_ECLOSED;
    else if (h->count == UINT_MAX)
      rc = ZKC_EBUSY;
    else
      h->count++;
  } else {
    m->users++;
    revoke_fn = m->revoke_fn;
    revoke_ctx = m->revoke_ctx;
  }
  pthread_mutex_unlock(&m->mu);
  if (h != NULL) {
    free(wnode);
    return rc;
  }

  if ((rc = zkc__call_enter(c)) != ZKC_OK) {
    free(wnode);
    leave(m);
    return rc;
  }
  h = calloc(1, sizeof *h);
  if (h == NULL) rc = ZKC_ENOMEM;
  /* A revocable node carries no data: the marker is the only data it gets. */
  const char *data = revoke_fn ? "" : NULL;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  while (rc == ZKC_OK) {
    h->thread = zkc__thread_id();
    h->count = 1;
    h->revoke_fn = revoke_fn;
    h->revoke_ctx = revoke_ctx;
    if (wnode != NULL)
      rc = downgrade(m, wnode, data, deadline, &h->held);
    else
      rc = zkc__lock_acquire_side(c, m->path, lock_names[m->side], data,
                                  m->side == ZKC__SIDE_READ, deadline,
                                  &h->held);
    if (rc != ZKC_OK) break;
    if (zkc__mutex_seam) zkc__mutex_seam(m, ZKC__SEAM_GRANTED);
    pthread_mutex_lock(&m->mu);
    rc = record(m, h);
    m->users -= rc == ZKC_OK;
    pthread_mutex_unlock(&m->mu);
    if (rc != ZKC__REQUEUE) break;
    /* The session went (or, by policy, the connection) between the grant
     * and the record: the node is not a hold. Queue again, at the back. */
    zkc__log(c, ZKC_LOG_INFO, "lock %s: lost while being granted, queueing "
                              "again", m->path);
    zkc__janitor_add(c, h->held.node, NULL);
    free(h->held.node);
    h->held.node = NULL;
    rc = zkc__wait_connected(c, deadline);
  }
  free(wnode);
  if (rc != ZKC_OK) {
    if (h != NULL && h->held.node) zkc__lock_release(c, &h->held);
    free(h);
    leave(m);
  }
  zkc__call_leave(c);
  return rc;
}

int zkc_mutex_acquire(zkc_mutex_t *m) {
  if (m == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_mutex_acquire: mutex is NULL");
  return zkc_mutex_acquire_timeout(m, INT64_MAX);
}

/* zkc_mutex_release, or with `nowait` zkc_mutex_release_nowait. */
static int release(zkc_mutex_t *m, int nowait) {
  if (m == NULL)
    return zkc__refuse(
        NULL, ZKC_EINVAL, "%s: mutex is NULL",
        nowait ? "zkc_mutex_release_nowait" : "zkc_mutex_release");
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  zkc_client_t *c = m->client;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h == NULL) {
    pthread_mutex_unlock(&m->mu);
    return ZKC_ENOTOWNER;
  }
  /* A lost hold, or one of a closed client, has no node left to delete
   * here: the whole hold goes at once. */
  int rc = h->lost ? ZKC_ELOST : zkc__client_closed(c) ? ZKC_ECLOSED : ZKC_OK;
  if (rc == ZKC_OK && h->count > 1) {
    h->count--;
    pthread_mutex_unlock(&m->mu);
    return ZKC_OK;
  }
  /* Counted as a user until the last touch of the client: destroy (and
   * with it the client's last reference) waits for this call. */
  m->users++;
  pthread_mutex_unlock(&m->mu);
  if (zkc__mutex_seam) zkc__mutex_seam(m, ZKC__SEAM_RELEASING);
  /* A refused delete watches again: what was told is not told again. */
  int32_t told = zkc__guard_told_version(c, h->guard);
  zkc__guard_remove(c, h->guard); /* before the delete it would report */
  h->guard = 0;
  if (rc == ZKC_OK) {
    rc = nowait ? zkc__lock_delete_nowait(c, h->held.node)
                : zkc__lock_delete(c, h->held.node);
    if (rc != ZKC_OK && rc != ZKC_ECLOSED && rc != ZKC_ELOST) {
      /* Refused: the node is still there, so the lock is still held. */
      pthread_mutex_lock(&m->mu);
      guard_hold(m, h, told);
      m->users--;
      pthread_mutex_unlock(&m->mu);
      return rc;
    }
  }
  pthread_mutex_lock(&m->mu);
  HASH_DELETE(hh, m->holds, h);
  m->users--;
  pthread_mutex_unlock(&m->mu); /* the last touch of m */
  free(h->held.node);
  free(h);
  return rc;
}

int zkc_mutex_release(zkc_mutex_t *m) { return release(m, 0); }

int zkc_mutex_release_nowait(zkc_mutex_t *m) { return release(m, 1); }

int zkc_mutex_is_acquired_in_this_process(const zkc_mutex_t *cm) {
  if (cm == NULL) return 0;
  zkc_mutex_t *m = (zkc_mutex_t *)cm; /* locking is not a logical change */
  pthread_mutex_lock(&m->mu);
  int any = m->holds != NULL;
  pthread_mutex_unlock(&m->mu);
  return any;
}

int zkc_mutex_is_owned_by_current_thread(const zkc_mutex_t *cm) {
  if (cm == NULL) return 0;
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  pthread_mutex_lock(&m->mu);
  int mine = my_hold(m) != NULL;
  pthread_mutex_unlock(&m->mu);
  return mine;
}

int zkc_mutex_is_held(const zkc_mutex_t *cm) {
  if (cm == NULL) return 0;
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  int held = h != NULL && !h->lost && !h->in_doubt;
  pthread_mutex_unlock(&m->mu);
  return held;
}

int zkc_mutex_set_lost_callback(zkc_mutex_t *m, zkc_lost_fn fn, void *ctx) {
  if (m == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_mutex_set_lost_callback: mutex is NULL");
  pthread_mutex_lock(&m->mu);
  m->lost_fn = fn;
  m->lost_ctx = ctx;
  pthread_mutex_unlock(&m->mu);
  return ZKC_OK;
}

int zkc_mutex_set_revocable(zkc_mutex_t *m, zkc_revoke_fn fn, void *ctx) {
  if (m == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_mutex_set_revocable: mutex is NULL");
  pthread_mutex_lock(&m->mu);
  m->revoke_fn = fn;
  m->revoke_ctx = ctx;
  pthread_mutex_unlock(&m->mu);
  return ZKC_OK;
}

int zkc_mutex_fencing_token(const zkc_mutex_t *cm, int64_t *token) {
  int rc_ = zkc__refuse_null(cm ? cm->client : NULL, "zkc_mutex_fencing_token",
                             "mutex", cm == NULL, "token", token == NULL,
                             (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h) *token = h->held.token;
  pthread_mutex_unlock(&m->mu);
  return h ? ZKC_OK : ZKC_ENOTOWNER;
}

int zkc_mutex_lock_node(const zkc_mutex_t *cm, char *buf, size_t buf_len) {
  int rc_ =
      zkc__refuse_null(cm ? cm->client : NULL, "zkc_mutex_lock_node", "mutex",
                       cm == NULL, "buf", buf == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  if (buf_len == 0)
    return zkc__refuse(cm->client, ZKC_EINVAL,
                       "zkc_mutex_lock_node: buf_len is 0");
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  int rc = ZKC_ENOTOWNER;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h) {
    size_t len = strlen(h->held.node);
    rc = len < buf_len ? ZKC_OK : ZKC_EINVAL;
    if (rc == ZKC_OK) memcpy(buf, h->held.node, len + 1);
  }
  pthread_mutex_unlock(&m->mu);
  if (rc == ZKC_EINVAL)
    zkc__refuse(m->client, rc,
                "zkc_mutex_lock_node: buf_len %zu is too small "
                "for the node's path",
                buf_len);
  return rc;
}

const char *zkc_mutex_path(const zkc_mutex_t *m) { return m ? m->path : NULL; }

/* A side lists its own kind only (as Curator's sides do), kazoo's included. */
static void keep_side(zkc__side_t side, char ***nodes, size_t *count) {
  zkc__rw_kind_t want = side == ZKC__SIDE_READ ? ZKC__RW_READ : ZKC__RW_WRITE;
  char **v = *nodes;
  size_t kept = 0;
  for (size_t i = 0; i < *count; i++) {
    if (zkc__rw_kind(zkc__basename(v[i])) == want)
      v[kept++] = v[i];
    else
      free(v[i]);
  }
  *count = kept;
  if (kept == 0) {
    free(v);
    *nodes = NULL;
  }
}

int zkc_mutex_participant_nodes(zkc_mutex_t *m, char ***nodes, size_t *count) {
  int rc_ = zkc__refuse_null(
      m ? m->client : NULL, "zkc_mutex_participant_nodes", "mutex", m == NULL,
      "nodes", nodes == NULL, "count", count == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  int rc = zkc__call_enter(m->client);
  if (rc != ZKC_OK) return rc;
  rc = zkc__lock_participants(m->client, m->path, nodes, count);
  zkc__call_leave(m->client);
  if (rc == ZKC_OK && m->side != ZKC__SIDE_MUTEX) keep_side(m->side, nodes, count);
  return rc;
}

int zkc_mutex_fenced_set(zkc_mutex_t *m, const char *path, const void *data,
                         size_t len) {
  return zkc__mutex_fenced_write(m, path, data, len, -1, NULL);
}

int zkc_mutex_fenced_create(zkc_mutex_t *m, const char *path, const void *data,
                            size_t len) {
  return zkc__mutex_fenced_write(m, path, data, len, ZKC__FENCED_CREATE, NULL);
}

/* Why a fenced write refuses its arguments (fn names the public call). */
static int fenced_args(zkc_mutex_t *m, const char *fn, const char *path,
                       const void *data, size_t len) {
  if (m == NULL) return zkc__refuse(NULL, ZKC_EINVAL, "%s: mutex is NULL", fn);
  int rc = zkc__check_path(m->client, fn, "path", path);
  if (rc != ZKC_OK) return rc;
  const char *why =
      data == NULL && len > 0 ? "data is NULL with len above 0"
      : len > ZKC__DATA_MAX   ? "len is above 1020 KiB (ZooKeeper's default "
                                "request limit is 1 MiB)"
      : m->side == ZKC__SIDE_READ
          ? "a fenced write needs the write side of a read-write lock, not "
            "its read side"
          : NULL;
  return why ? zkc__refuse(m->client, ZKC_EINVAL, "%s: %s", fn, why) : ZKC_OK;
}

int zkc__mutex_fenced_write(zkc_mutex_t *m, const char *path,
                            const void *data, size_t len, int32_t version,
                            int32_t *new_version) {
  int create = version == ZKC__FENCED_CREATE;
  int rc = fenced_args(m,
                       create        ? "zkc_mutex_fenced_create"
                       : version < 0 ? "zkc_mutex_fenced_set"
                                     : "zkc_mutex_fenced_cas",
                       path, data, len);
  if (rc != ZKC_OK) return rc;
  zkc_client_t *c = m->client;
  if ((rc = zkc__call_enter(c)) != ZKC_OK) return rc;
  char *node = NULL;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  rc = h == NULL ? ZKC_ENOTOWNER : h->lost ? ZKC_ELOST : ZKC_OK;
  if (rc == ZKC_OK && (node = strdup(h->held.node)) == NULL) rc = ZKC_ENOMEM;
  if (rc == ZKC_OK) m->users++;
  pthread_mutex_unlock(&m->mu);
  if (rc == ZKC_OK) {
    int failed_op = -1;
    if (create)
      rc = zkc__fenced_create_node(c, node, path, data, len, &failed_op);
    else
      rc = zkc__op_run_check_set_version(c, node, path, data, (int)len, version,
                                         new_version, &failed_op);
    /* Our lock node is gone, or the session that owns it has expired (the
     * handle refuses every request): the hold is lost. The maintenance
     * thread tells the lost callback when it learns of it (the guard finds
     * the node gone, or the session's LOST is dispatched). */
    if ((rc == ZKC_ENONODE && failed_op == 0) || rc == ZKC_ESESSIONEXPIRED) {
      pthread_mutex_lock(&m->mu);
      if ((h = my_hold(m)) != NULL) h->lost = 1;
      pthread_mutex_unlock(&m->mu);
      rc = ZKC_ELOST;
    }
    leave(m);
  }
  free(node);
  zkc__call_leave(c);
  return rc;
}
