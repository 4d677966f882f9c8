/* SPDX-License-Identifier: Apache-2.0 */
/* The counting semaphore in Curator's InterProcessSemaphoreV2 layout: a
 * queue mutex under <path>/locks, lease nodes under <path>/leases. The head
 * of the queue creates all the lease nodes it asks for, then waits (alone
 * watching <path>/leases and the shared count) until they fit the limit.
 * Here: the object, its losses and acquiring; the lease handles are in
 * sem_lease.c, the shared count in sem_count.c. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "hold_fate.h"
#include "names.h"
#include "queue.h"
#include "sem.h"
#include "session.h"
#include "util.h"

#define LEASE_NAME "lease-"
/* read_leases: the count node was just created, read again (never
 * returned to callers). */
#define AGAIN 1

void zkc_sem_opts_init(zkc_sem_opts_t *o) {
  if (o == NULL) return;
  memset(o, 0, sizeof *o);
  o->max_leases = 1;
}

/* ---- lost leases ---- */

/* The user's lost callback for one lease of s (hold_fate.h's teller). */
typedef struct {
  zkc_sem_t *s;
  zkc_sem_lost_fn fn;
  void *ctx;
} teller_t;

static void tell_one(void *ctx, zkc_lost_reason_t why, int64_t token) {
  teller_t *t = ctx;
  if (t->fn) t->fn(t->ctx, t->s, why, token);
}

static void lost_tell(zkc_sem_t *s, zkc_sem_lost_fn fn, void *ctx,
                      zkc_lost_reason_t why, zkc__lost_list_t *l) {
  teller_t t = {s, fn, ctx};
  zkc__lost_tell(s->client, "lease on", s->path, why, l, tell_one, &t);
}

/* Marks l lost (s->mu held); its nodes that may still exist are deleted by
 * whichever session is current next. */
static void mark_lost(zkc_sem_t *s, zkc_lease_t *l, zkc__lost_list_t *list,
                      int delete_nodes) {
  if (atomic_exchange(&l->lost, 1)) return;
  zkc__lost_push(list, l->token);
  if (delete_nodes)
    for (size_t i = 0; i < l->n; i++)
      zkc__janitor_add(s->client, l->nodes[i].node, NULL);
}

static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_sem_t *s = ctx;
  zkc__lost_list_t lost = {0};
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  int on_suspend = zkc__lost_on_suspended(s->client);
  pthread_mutex_lock(&s->mu);
  for (zkc_lease_t *l = s->held; l; l = l->next) {
    zkc_lost_reason_t w = why;
    zkc__hold_fate_t f = zkc__hold_fate_on_state(
        st, lost_session, l->nodes[0].session_id, on_suspend, &w);
    atomic_store(&l->in_doubt, f != ZKC__HOLD_STANDS);
    if (f == ZKC__HOLD_LOST) {
      why = w;
      mark_lost(s, l, &lost, 1);
    }
  }
  zkc_sem_lost_fn fn = s->lost_fn;
  void *fn_ctx = s->lost_ctx;
  pthread_mutex_unlock(&s->mu);
  lost_tell(s, fn, fn_ctx, why, &lost);
}

void zkc__sem_on_node_gone(void *ctx, uint64_t guard) {
  zkc_sem_t *s = ctx;
  zkc__lost_list_t lost = {0};
  pthread_mutex_lock(&s->mu);
  for (zkc_lease_t *l = s->held; l; l = l->next)
    for (size_t i = 0; i < l->n; i++)
      if (l->guards[i] == guard) mark_lost(s, l, &lost, 0);
  zkc_sem_lost_fn fn = s->lost_fn;
  void *fn_ctx = s->lost_ctx;
  pthread_mutex_unlock(&s->mu);
  lost_tell(s, fn, fn_ctx, ZKC_LOST_DELETED, &lost);
}

/* ---- the semaphore object ---- */

static void sem_free(zkc_sem_t *s) {
  free(s->path);
  free(s->locks);
  free(s->leases);
  free(s->count_path);
  free(s);
}

int zkc_sem_create(zkc_sem_t **out, zkc_client_t *client, const char *path,
                   const zkc_sem_opts_t *opts) {
  if (out != NULL) *out = NULL;
  zkc_sem_opts_t def;
  zkc_sem_opts_init(&def);
  if (opts == NULL) opts = &def;
  int rc0 = zkc__refuse_null(client, "zkc_sem_create", "out", out == NULL,
                             "client", client == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(client, "zkc_sem_create", "semaphore path", path);
  if (rc0 == ZKC_OK)
    rc0 = ZKC__REFUSE_IF(client, opts->max_leases < 1, "zkc_sem_create",
                         "max_leases %d is below 1", opts->max_leases);
  if (rc0 == ZKC_OK && opts->count_path)
    rc0 = zkc__check_path(client, "zkc_sem_create", "count_path",
                          opts->count_path);
  if (rc0 != ZKC_OK) return rc0;
  zkc_sem_t *s = calloc(1, sizeof *s);
  if (s == NULL) return ZKC_ENOMEM;
  s->max = opts->max_leases;
  s->path = strdup(path);
  s->locks = zkc__path_join(path, "locks");
  s->leases = zkc__path_join(path, "leases");
  if (opts->count_path) s->count_path = strdup(opts->count_path);
  if (!s->path || !s->locks || !s->leases ||
      (opts->count_path && !s->count_path) ||
      pthread_mutex_init(&s->mu, NULL) != 0) {
    sem_free(s);
    return ZKC_ENOMEM;
  }
  /* Set before on_state can run (see zkc__mutex_new). */
  s->client = client;
  int rc = zkc__recipe_attach(client, on_state, s);
  if (rc != ZKC_OK) {
    pthread_mutex_destroy(&s->mu);
    sem_free(s);
    return rc;
  }
  *out = s;
  return ZKC_OK;
}

int zkc_sem_destroy(zkc_sem_t *s) {
  if (s == NULL) return ZKC_OK;
  pthread_mutex_lock(&s->mu);
  int busy = s->held != NULL || s->users > 0;
  pthread_mutex_unlock(&s->mu);
  if (busy) return ZKC_EBUSY;
  int rc = zkc__recipe_detach(s->client, on_state, s);
  if (rc != ZKC_OK) return rc;
  pthread_mutex_destroy(&s->mu);
  sem_free(s);
  return ZKC_OK;
}

int zkc_sem_set_lost_callback(zkc_sem_t *s, zkc_sem_lost_fn fn, void *ctx) {
  if (s == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_sem_set_lost_callback: sem is NULL");
  pthread_mutex_lock(&s->mu);
  s->lost_fn = fn;
  s->lost_ctx = ctx;
  pthread_mutex_unlock(&s->mu);
  return ZKC_OK;
}

const char *zkc_sem_path(const zkc_sem_t *s) { return s ? s->path : NULL; }

static size_t held_nodes(zkc_sem_t *s) {
  pthread_mutex_lock(&s->mu);
  size_t n = s->held_nodes;
  pthread_mutex_unlock(&s->mu);
  return n;
}

/* ---- acquiring ---- */

/* 1 for a delete's result that leaves nothing behind to report. */
static int delete_settled(int rc) {
  return rc == ZKC_OK || rc == ZKC_ELOST || rc == ZKC_ECLOSED;
}

/* Deletes the nodes of an acquisition that failed (guaranteed deletes).
 * Returns ZKC_OK, or the first refusal (an ACL without DELETE): those nodes
 * stay until the session ends, and the caller must say so. */
static int drop_nodes(zkc_client_t *c, zkc_lease_t *l, int64_t limit) {
  int refused = ZKC_OK;
  for (size_t i = 0; i < l->n; i++) {
    int r = zkc__lock_delete_by(c, l->nodes[i].node, limit);
    if (!delete_settled(r) && refused == ZKC_OK) refused = r;
    free(l->nodes[i].node);
    l->nodes[i].node = NULL;
  }
  l->n = 0;
  return refused;
}

/* How many of l's nodes are among the children read. */
static size_t present(const zkc_lease_t *l, const zkc__names_t *kids) {
  size_t found = 0;
  for (size_t i = 0; i < l->n; i++) {
    const char *name = zkc__basename(l->nodes[i].node);
    for (int k = 0; k < kids->count; k++)
      if (strcmp(kids->data[k], name) == 0) {
        found++;
        break;
      }
  }
  return found;
}

/* One read of the leases (and the count), leaving watches for w. Sets
 * *leases and *max; the count node is created with the seed when missing. */
static int read_leases(zkc_sem_t *s, zkc_lease_t *l, zkc__waiter_t *w,
                       int64_t limit, size_t *leases, size_t *mine,
                       int32_t *max) {
  zkc_client_t *c = s->client;
  zkc__op_t *sync = zkc__op_new(), *kids = zkc__op_new(),
            *cnt = s->count_path ? zkc__op_new() : NULL;
  if (sync == NULL || kids == NULL || (s->count_path && cnt == NULL)) {
    zkc__op_free(sync);
    zkc__op_free(kids);
    zkc__op_free(cnt);
    return ZKC_ENOMEM;
  }
  zkc__waiter_rearm(c, w);
  /* The admission rests on this read: through the leader (a follower cut
   * off from it answers from a frozen state; see zkc__submit_sync). */
  zkc__submit_sync(c, sync, s->leases);
  zkc__submit_children_watch(c, kids, s->leases, w->id);
  if (cnt) zkc__submit_get_watch(c, cnt, s->count_path, w->id);
  int src = zkc__op_wait_until(sync, limit);
  int rc = zkc__op_wait_until(kids, limit);
  int crc = cnt ? zkc__op_wait_until(cnt, limit) : ZKC_OK;
  if (src == ZKC_ETIMEDOUT || rc == ZKC_ETIMEDOUT || crc == ZKC_ETIMEDOUT) {
    zkc__op_give_up(sync); /* unanswered at the limit: freed on completion */
    zkc__op_give_up(kids);
    zkc__op_give_up(cnt);
    return ZKC_ETIMEDOUT;
  }
  zkc__op_free(sync);
  if (src != ZKC_OK && src != ZKC_ENONODE) rc = src;
  /* leases/ itself deleted under us (our nodes with it): queue again. */
  if (rc == ZKC_ENONODE) rc = ZKC_ELOST;
  *max = s->max;
  if (cnt) {
    if (crc == ZKC_OK) crc = zkc__sem_count_decode(cnt, max);
    if (crc == ZKC_ENONODE) {
      crc = zkc__sem_count_create(c, s->count_path, s->max, 1, limit);
      if (crc == ZKC_OK) crc = AGAIN;
    }
    if (crc == ZKC_EPROTO)
      zkc__log(c, ZKC_LOG_ERROR, "count node %s holds %d bytes, not 4",
               s->count_path, cnt->data_len);
    if (rc == ZKC_OK) rc = crc;
    zkc__op_free(cnt);
  }
  *leases = (size_t)kids->children.count;
  *mine = present(l, &kids->children);
  zkc__op_free(kids);
  return rc;
}

/* 1 while our queue node q still exists on the session of our leases: else
 * another client may be at the head too, and two heads whose pending leases
 * together exceed the limit would wait on each other for ever. */
static int still_head(zkc_client_t *c, const zkc_lease_t *l,
                      const zkc__held_t *q, int64_t limit, int *rc) {
  if (l->nodes[0].session_id != q->session_id) return 0;
  *rc = zkc__op_run_exists_until(c, q->node, NULL, limit);
  if (*rc == ZKC_ENONODE) *rc = ZKC_OK;
  else if (*rc == ZKC_OK) return 1;
  return 0;
}

/* Waits until the leases (ours among them) fit the limit. Our nodes exist;
 * we hold the queue (q), so nobody else is adding leases but foreign
 * clients. */
static int wait_fit(zkc_sem_t *s, zkc_lease_t *l, const zkc__held_t *q,
                    int64_t deadline, int64_t *proof) {
  zkc_client_t *c = s->client;
  zkc__waiter_t w;
  int rc = zkc__waiter_register(c, &w, s->leases);
  if (rc != ZKC_OK) return rc;
  if (s->count_path) zkc__waiter_also(c, &w, s->count_path);
  int retries = 0, warned = 0;
  int64_t limit = zkc__limit_after(deadline);
  for (;;) {
    size_t leases = 0, mine = 0;
    int32_t max = 0;
    int64_t sent = zkc__boot_ms(); /* the admission's proof (grant_fresh) */
    rc = read_leases(s, l, &w, limit, &leases, &mine, &max);
    if (rc == AGAIN && zkc__now_ms() < deadline) continue;
    if (rc == AGAIN) rc = ZKC_ETIMEDOUT;
    if (zkc__retryable(rc)) {
      rc = zkc__retry_wait(c, &retries, rc, deadline);
      if (rc == ZKC_OK) continue;
      break;
    }
    if (rc != ZKC_OK) break;
    retries = 0;
    zkc__l_verdict_t v = zkc__leases_decide(leases, mine, l->n, held_nodes(s),
                                            max);
    if (v == ZKC__L_GONE) { /* session gone, or an outsider deleted one */
      rc = ZKC_ELOST;
      break;
    }
    if (!warned && s->count_path == NULL && leases - l->n > (size_t)max) {
      warned = 1; /* only a disagreeing client (or a stranger) puts them there */
      zkc__log(c, ZKC_LOG_WARN,
               "semaphore %s: %zu leases held by others, more than this "
               "client's limit of %d: another client uses a higher limit (a "
               "shared count node makes them agree)", s->path, leases - l->n,
               (int)max);
    }
    if (v == ZKC__L_DEADLOCK) {
      rc = ZKC_EDEADLK; /* our own leases stand in the way */
      break;
    }
    if (v == ZKC__L_FIT) {
      zkc__session_fate_t fate = zkc__session_fate(c, l->nodes[0].session_id);
      /* An answer that waited out a stall of this process proves nothing
       * about the session now: read again. */
      if (fate == ZKC__SESSION_LIVE && zkc__grant_fresh(c, sent)) {
        *proof = sent;
        break;
      }
      if (fate == ZKC__SESSION_LIVE) continue;
      rc = fate == ZKC__SESSION_GONE ? ZKC_ELOST
                                     : zkc__wait_connected(c, deadline);
      if (rc != ZKC_OK) break;
      continue; /* read again on a connection that is up */
    }
    if (zkc__now_ms() >= deadline) {
      rc = ZKC_ETIMEDOUT;
      break;
    }
    if (!still_head(c, l, q, limit, &rc)) {
      if (zkc__retryable(rc)) continue; /* read again once connected */
      if (rc == ZKC_OK) rc = ZKC_ELOST; /* queue again */
      break;
    }
    zkc__wake_t why = zkc__waiter_wait(c, &w, deadline);
    if (why == ZKC__WAKE_TIMEOUT) rc = ZKC_ETIMEDOUT;
    else if (why == ZKC__WAKE_CLOSED) rc = ZKC_ECLOSED;
    else if (why == ZKC__WAKE_LOST) rc = ZKC_ELOST;
    if (rc != ZKC_OK) break;
  }
  /* Granted or not, the watches go: nobody waits on them any more. */
  if (!zkc__client_closed(c)) zkc__waiter_unwatch_children(c, &w);
  zkc__waiter_unregister(c, &w);
  /* A request refused by a dead handle (a process stopped past its session
   * timeout meets one on waking): the session expired and our nodes went
   * with it. Queue again, as for any other lost session. */
  return rc == ZKC_ESESSIONEXPIRED ? ZKC_ELOST : rc;
}

/* After leaving the queue: a grant whose proof went stale meanwhile (the
 * queue node's delete waited on a slow or silent connection) is confirmed
 * by a fresh read of the leases: ZKC_OK while all ours are there on a live
 * session, ZKC_ELOST (queue again) when one is gone. */
static int still_fit(zkc_sem_t *s, zkc_lease_t *l, int64_t proof,
                     int64_t limit) {
  zkc_client_t *c = s->client;
  if (zkc__grant_fresh(c, proof)) return ZKC_OK;
  zkc__op_t *sync = zkc__op_new(), *op = zkc__op_new();
  if (sync == NULL || op == NULL) {
    zkc__op_free(sync);
    zkc__op_free(op);
    return ZKC_ENOMEM;
  }
  zkc__submit_sync(c, sync, s->leases); /* through the leader, as wait_fit */
  zkc__submit_children(c, op, s->leases);
  int src = zkc__op_wait_until(sync, limit);
  int rc = zkc__op_wait_until(op, limit);
  if (src == ZKC_ETIMEDOUT || rc == ZKC_ETIMEDOUT) {
    zkc__op_give_up(sync);
    zkc__op_give_up(op);
    return ZKC_ETIMEDOUT;
  }
  zkc__op_free(sync);
  if (src != ZKC_OK && src != ZKC_ENONODE) rc = src;
  if (rc == ZKC_OK && present(l, &op->children) < l->n) rc = ZKC_ELOST;
  if (rc == ZKC_ENONODE || rc == ZKC_ESESSIONEXPIRED) rc = ZKC_ELOST;
  zkc__op_free(op);
  if (rc == ZKC_OK &&
      zkc__session_fate(c, l->nodes[0].session_id) == ZKC__SESSION_GONE)
    rc = ZKC_ELOST;
  return rc;
}

/* The layout of the semaphore's path (its own children: locks/ and
 * leases/ are the semaphore's, a lock's or a latch's nodes another
 * recipe's), into *layouts when not NULL: ZKC_ELAYOUT when another
 * recipe's, told to the thread and the log. Connection loss is retried
 * under the client's policy within the deadline. */
static int layout_check(zkc_sem_t *s, int64_t deadline, unsigned *layouts) {
  zkc_client_t *c = s->client;
  int attempt = 0;
  for (;;) {
    zkc__op_t *op = zkc__op_new();
    if (op == NULL) return ZKC_ENOMEM;
    zkc__submit_children(c, op, s->path);
    int rc = zkc__op_wait_until(op, zkc__limit_after(deadline));
    unsigned mask = 0;
    for (int i = 0; rc == ZKC_OK && i < op->children.count; i++)
      mask |= zkc__child_layout(op->children.data[i], -1);
    zkc__op_give_up(op);                /* freed now, or by its late answer */
    if (rc == ZKC_ENONODE) rc = ZKC_OK; /* nothing there yet */
    if (rc == ZKC_OK) {
      if (layouts) *layouts = mask;
      unsigned bad = zkc__layout_refused(ZKC__AS_SEMAPHORE, mask);
      if (bad == 0) return ZKC_OK;
      return zkc__refuse(c, ZKC_ELAYOUT,
                         "zkc_sem_acquire: path '%.300s' "
                         "holds %s, not a semaphore: refused (nothing of ours "
                         "left there)",
                         s->path, zkc__layout_what(bad));
    }
    if (!zkc__retryable(rc)) return rc;
    if ((rc = zkc__retry_wait(c, &attempt, rc, deadline)) != ZKC_OK) return rc;
  }
}

/* Deletes `path` if it is empty (a parent we made on a path refused after
 * all); any answer will do. */
static void remove_if_empty(zkc_client_t *c, const char *path, int64_t limit) {
  zkc__op_t *op = zkc__op_new();
  if (op == NULL) return;
  zkc__submit_delete(c, op, path);
  (void)zkc__op_wait_until(op, limit);
  zkc__op_give_up(op);
}

/* One pass: check the path's layout, queue on locks/, create the nodes,
 * wait until they fit, leave the queue, check the layout again (another
 * recipe that began on the path meanwhile, which the first check could not
 * see, may have missed locks/ as well). On failure no node of ours is
 * left, and after a refusal of the layout no parent we made either. */
static int attempt(zkc_sem_t *s, unsigned qty, int64_t deadline,
                   zkc_lease_t *l) {
  zkc_client_t *c = s->client;
  zkc__held_t q = {0};
  unsigned before = 0;
  int rc = layout_check(s, deadline, &before);
  if (rc == ZKC_OK)
    rc = zkc__lock_acquire(c, s->locks, ZKC__LOCK_NAME, deadline, &q);
  if (rc != ZKC_OK) return rc;
  for (unsigned i = 0; i < qty && rc == ZKC_OK; i++) {
    rc = zkc__node_create(c, s->leases, LEASE_NAME, NULL, deadline,
                          &l->nodes[i]);
    if (rc == ZKC_OK) l->n = i + 1;
  }
  int64_t proof = 0;
  if (rc == ZKC_OK) rc = wait_fit(s, l, &q, deadline, &proof);
  int64_t limit = zkc__limit_after(deadline);
  int left = zkc__lock_delete_by(c, q.node, limit);
  free(q.node);
  if (rc == ZKC_OK) rc = still_fit(s, l, proof, limit);
  if (rc == ZKC_OK) rc = layout_check(s, deadline, NULL);
  /* A queue node we cannot delete blocks everyone behind it (us too): give
   * the leases back. A refused delete is reported rather than the reason
   * we stopped (as the mutex does): waiting cannot cure it. */
  if (rc == ZKC_OK && !delete_settled(left)) rc = left;
  if (rc != ZKC_OK) {
    int refused = drop_nodes(c, l, limit);
    if (refused != ZKC_OK) rc = refused;
    else if (!delete_settled(left)) rc = left;
  }
  if (rc == ZKC_ELAYOUT && !(before & ZKC_LAYOUT_SEMAPHORE)) {
    remove_if_empty(c, s->leases, limit);
    remove_if_empty(c, s->locks, limit);
  }
  return rc;
}

/* Records a granted lease (s->mu held): guards its nodes. ZKC_ELOST when
 * its session is gone already (or in doubt, when that counts as lost). */
static int record(zkc_sem_t *s, zkc_lease_t *l) {
  zkc_client_t *c = s->client;
  zkc__hold_fate_t fate = zkc__hold_fate_at_grant(
      zkc__session_fate(c, l->nodes[0].session_id), zkc__lost_on_suspended(c));
  if (fate == ZKC__HOLD_LOST) return ZKC_ELOST;
  atomic_store(&l->in_doubt, fate == ZKC__HOLD_IN_DOUBT);
  for (size_t i = 0; i < l->n; i++)
    if (zkc__guard_add(c, l->nodes[i].node, l->nodes[i].session_id,
                       zkc__sem_on_node_gone, s, &l->guards[i]) != ZKC_OK)
      zkc__log(c, ZKC_LOG_WARN, "out of memory: a lease of %s is unwatched",
               s->path);
  l->token = l->nodes[l->n - 1].token;
  l->sem = s;
  l->next = s->held;
  if (s->held) s->held->prev = l;
  s->held = l;
  s->held_nodes += l->n;
  return ZKC_OK;
}

static zkc_lease_t *lease_new(unsigned qty) {
  zkc_lease_t *l = calloc(1, sizeof *l);
  if (l == NULL) return NULL;
  l->nodes = calloc(qty, sizeof *l->nodes);
  l->guards = calloc(qty, sizeof *l->guards);
  if (l->nodes == NULL || l->guards == NULL) {
    free(l->nodes);
    free(l->guards);
    free(l);
    return NULL;
  }
  return l;
}

void zkc__sem_lease_delete(zkc_lease_t *l) {
  for (size_t i = 0; i < l->n; i++) free(l->nodes[i].node);
  free(l->nodes);
  free(l->guards);
  free(l);
}

int zkc_sem_acquire(zkc_sem_t *s, unsigned qty, int64_t timeout_ms,
                    zkc_lease_t **out) {
  if (out != NULL) *out = NULL;
  int rc_ = zkc__refuse_null(s ? s->client : NULL, "zkc_sem_acquire", "sem",
                             s == NULL, "out", out == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  if (qty == 0)
    return zkc__refuse(s->client, ZKC_EINVAL, "zkc_sem_acquire: qty is 0");
  if (s->count_path == NULL && qty > (unsigned)s->max)
    return zkc__refuse(s->client, ZKC_EINVAL,
                       "zkc_sem_acquire: qty %u is "
                       "above the limit %d (max_leases)",
                       qty, s->max);
  zkc_client_t *c = s->client;
  int rc = zkc__call_enter(c); /* callback thread, closed client */
  if (rc != ZKC_OK) return rc;
  pthread_mutex_lock(&s->mu);
  if (s->count_path == NULL && s->held_nodes > 0 &&
      s->held_nodes + qty > (size_t)s->max)
    rc = ZKC_EDEADLK; /* this object's own leases stand in the way */
  else
    s->users++;
  pthread_mutex_unlock(&s->mu);
  if (rc != ZKC_OK) {
    zkc__call_leave(c);
    return rc;
  }
  zkc_lease_t *l = lease_new(qty);
  if (l == NULL) rc = ZKC_ENOMEM;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  while (rc == ZKC_OK) {
    rc = attempt(s, qty, deadline, l);
    if (rc == ZKC_OK) {
      pthread_mutex_lock(&s->mu);
      rc = record(s, l);
      pthread_mutex_unlock(&s->mu);
      if (rc != ZKC_OK) /* ELOST: the session went */
        (void)drop_nodes(c, l, zkc__limit_after(deadline));
    }
    if (rc != ZKC_ELOST) break;
    /* The session went while queueing or waiting (or a node of ours was
     * deleted under us): queue again, once connected, within the time. */
    zkc__log(c, ZKC_LOG_INFO, "semaphore %s: lost while acquiring, queueing "
                              "again", s->path);
    rc = zkc__wait_connected(c, deadline);
  }
  if (rc == ZKC_OK) {
    *out = l;
  } else if (l != NULL) {
    zkc__sem_lease_delete(l);
  }
  zkc__call_leave(c);
  pthread_mutex_lock(&s->mu);
  s->users--;
  pthread_mutex_unlock(&s->mu);
  return rc;
}

