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

#include "drive.h"
#include "hold_fate.h"
#include "hold_notice.h"
#include "lease_run.h"
#include "names.h"
#include "queue.h"
#include "sem.h"
#include "session.h"
#include "unsized.h"
#include "test_hooks.h"
#include "util.h"

void (*zkc__sem_seam)(const char *leases);

void zkc__sem_opts_defaults(zkc_sem_opts_t *o) {
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
  zkc__hold_notice_tell(t->s, why, token); /* the lease's one notice */
  if (t->fn) t->fn(t->ctx, t->s, why, token);
}

static void lost_tell(zkc_sem_t *s, zkc_sem_lost_fn fn, void *ctx,
                      zkc_lost_reason_t why, zkc__lost_list_t *l) {
  teller_t t = {s, fn, ctx};
  zkc__lost_tell(s->client, s->st, "lease on", s->path, why, l, tell_one, &t);
}

/* Hands l's nodes that may still exist to whichever session is current
 * next. */
static void leave_to_janitor(zkc_sem_t *s, zkc_lease_t *l) {
  for (size_t i = 0; i < l->n; i++)
    zkc__janitor_add(s->client, l->nodes[i].node, NULL);
}

static void on_state(void *ctx, zkc_state_t st, int64_t lost_session) {
  zkc_sem_t *s = ctx;
  zkc__lost_list_t lost = {0};
  zkc_lost_reason_t why = ZKC_LOST_SESSION;
  int on_suspend = zkc__lost_on_suspended(s->client);
  pthread_mutex_lock(&s->mu);
  for (zkc_lease_t *l = s->held; l; l = l->next)
    if (zkc__hold_rec_on_state(&l->rec, st, lost_session, on_suspend, &lost,
                               &why))
      leave_to_janitor(s, l);
  /* Leases released in doubt: a loss learnt only now is told all the same. */
  zkc__released_on_state(&s->released, st, lost_session, on_suspend, &lost,
                         &why);
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
      if (l->guards[i] == guard) zkc__hold_rec_lose(&l->rec, &lost);
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

static int sem_create_impl(zkc_sem_t **out, zkc_client_t *client,
                           const char *path, const zkc_sem_opts_t *opts) {
  if (out != NULL) *out = NULL;
  zkc_sem_opts_t def;
  zkc__sem_opts_defaults(&def);
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
  s->st = zkc__stats_for(zkc__client_stats_hub(client), ZKC_STATS_SEMAPHORE,
                         path);
  int rc = zkc__recipe_attach(client, on_state, s);
  if (rc != ZKC_OK) {
    pthread_mutex_destroy(&s->mu);
    sem_free(s);
    return rc;
  }
  *out = s;
  return ZKC_OK;
}

int zkc__sem_create(zkc_sem_t **out, zkc_client_t *client, const char *path,
                    const zkc_sem_opts_t *opts) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave("zkc_sem_create", mark,
                           sem_create_impl(out, client, path, opts));
}

static int sem_destroy_impl(zkc_sem_t *s) {
  if (s == NULL) return ZKC_OK;
  pthread_mutex_lock(&s->mu);
  int busy = s->held != NULL || s->users > 0;
  pthread_mutex_unlock(&s->mu);
  if (busy) return ZKC_EBUSY;
  int rc = zkc__recipe_detach(s->client, on_state, s);
  if (rc != ZKC_OK) return rc;
  zkc__released_clear(&s->released); /* no callback after destroy */
  zkc__hold_notice_forget(s);
  pthread_mutex_destroy(&s->mu);
  sem_free(s);
  return ZKC_OK;
}

int zkc_sem_destroy(zkc_sem_t *s) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, sem_destroy_impl(s));
}

static int sem_set_lost_callback_impl(zkc_sem_t *s, zkc_sem_lost_fn fn,
                                      void *ctx) {
  if (s == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_sem_set_lost_callback: sem is NULL");
  pthread_mutex_lock(&s->mu);
  s->lost_fn = fn;
  s->lost_ctx = ctx;
  pthread_mutex_unlock(&s->mu);
  return ZKC_OK;
}

int zkc_sem_set_lost_callback(zkc_sem_t *s, zkc_sem_lost_fn fn, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           sem_set_lost_callback_impl(s, fn, ctx));
}

const char *zkc_sem_path(const zkc_sem_t *s) { return s ? s->path : NULL; }

static int sem_stats_impl(const zkc_sem_t *s, zkc_lock_stats_t *out) {
  if (s == NULL || out == NULL)
    return zkc__refuse(s ? s->client : NULL, ZKC_EINVAL,
                       "zkc_sem_stats: %s is NULL", s ? "out" : "sem");
  return zkc__stats_copy(s->st, out);
}

int zkc_sem_stats(const zkc_sem_t *s, zkc_lock_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, sem_stats_impl(s, out));
}

/* The lease nodes this object's leases hold (a lease run's `held`). */
static size_t held_nodes(void *ctx) {
  zkc_sem_t *s = ctx;
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

/* The lease run's calls, for the blocking driver (drive.h). */
static zkc__qneed_t l_step(void *r) { return zkc__lrun_step(r); }
static int l_ops(void *r, zkc__op_t **ops) { return zkc__lrun_ops(r, ops); }
static void l_give_up(void *r) { zkc__lrun_give_up(r); }
static zkc__waiter_t *l_waiter(void *r) { return zkc__lrun_waiter(r); }
static void l_woken(void *r, zkc__wake_t why) { zkc__lrun_woken(r, why); }
static int64_t l_wake_at(const void *r) { return zkc__lrun_wake_at(r); }
static void l_stop(void *r, int rc) { zkc__lrun_stop(r, rc); }
const zkc__run_calls_t zkc__sem_lease_calls = {
    l_step, l_ops, l_give_up, l_waiter, l_woken, l_wake_at, l_stop};

int zkc__sem_leases_init(zkc__lrun_t *run, zkc_sem_t *s, unsigned qty,
                         const zkc__held_t *q, int seen, int64_t deadline,
                         const zkc__qdriver_t *drv, void *drv_ctx) {
  zkc__lrun_how_t how = {.path = s->path, .leases = s->leases,
                         .count = s->count_path, .queue_node = q->node,
                         .queue_session = q->session_id, .qty = qty,
                         .max = s->max, .held = held_nodes, .held_ctx = s,
                         .deadline = deadline,
                         .layout_known = atomic_load(&s->layout_known) != 0,
                         .seen = seen, .drv = drv, .drv_ctx = drv_ctx};
  return zkc__lrun_init(run, s->client, &how);
}

int zkc__sem_leases_end(zkc__lrun_t *run, unsigned qty, zkc_lease_t *l,
                        int *q_gone) {
  int rc = zkc__lrun_result(run);
  zkc__held_t *nodes = zkc__lrun_take_nodes(run);
  *q_gone = zkc__lrun_let_go(run);
  zkc__lrun_clear(run);
  for (unsigned i = 0; nodes && i < qty; i++)
    if (nodes[i].node) l->nodes[l->n++] = nodes[i];
  free(nodes);
  return rc;
}

/* As the head of the queue (q, its read having shown `seen` leases), takes
 * the leases into l: the lease run, its nodes moved to l whatever the
 * result. *woken_us: when the run was last told its way was clear (left as
 * it was when it waited for none). *q_gone: the run let the queue node go. */
static int take_leases(zkc_sem_t *s, unsigned qty, const zkc__held_t *q,
                       int seen, int64_t deadline, zkc_lease_t *l,
                       int64_t *woken_us, int *q_gone) {
  zkc__lrun_t run;
  zkc__op_t **ops = malloc((qty + ZKC__LRUN_READS) * sizeof *ops);
  int rc = ops ? zkc__sem_leases_init(&run, s, qty, q, seen, deadline, NULL,
                                      NULL)
               : ZKC_ENOMEM;
  if (rc != ZKC_OK) {
    free(ops);
    return rc;
  }
  zkc__drive_here(&zkc__sem_lease_calls, &run, s->client, deadline, ops,
                  woken_us);
  free(ops);
  return zkc__sem_leases_end(&run, qty, l, q_gone);
}

/* Deletes `path` if it is empty (a parent we made on a path refused after
 * all); any answer will do. */
static void remove_if_empty(zkc_client_t *c, const char *path, int64_t limit) {
  zkc__call_t del = {.rq = {.kind = ZKC__REQ_DELETE, .path = path}};
  (void)zkc__call(c, &del, 1,
                  &(zkc__call_opts_t){.limit_ms = limit,
                                      .retry = ZKC__CALL_ONCE});
}

/* The layout of the semaphore's path (its own children: locks/ and
 * leases/ are the semaphore's, a lock's or a latch's nodes another
 * recipe's), into *layouts: ZKC_ELAYOUT when another recipe's, told to the
 * thread and the log. Connection loss is retried under the client's policy
 * within the deadline. */
static int layout_check(zkc_sem_t *s, int64_t deadline, unsigned *layouts) {
  zkc_client_t *c = s->client;
  zkc__call_t list = {.rq = {.kind = ZKC__REQ_CHILDREN, .path = s->path}};
  int rc = zkc__call(c, &list, 1,
                     &(zkc__call_opts_t){.limit_ms = zkc__limit_after(deadline),
                                         .retry = ZKC__CALL_RETRY,
                                         .deadline_ms = deadline});
  if (rc == ZKC_OK)
    rc = zkc__rk_layout(c, ZKC__AS_SEMAPHORE, ZKC__LRUN_WHO, s->path,
                        &list.children, layouts);
  zkc__call_clear(&list, 1);
  return rc == ZKC_ENONODE ? ZKC_OK : rc; /* nothing there yet */
}

/* One pass: the queue node on locks/ (every read of the queue has a read
 * of leases/ behind it), then the lease run (the lease nodes with the
 * reads the admission rests on behind them, the path's layout among them
 * until this object accepted it once: of two recipes begun on the path at
 * once, the one whose read sees the other's nodes gives way). Two round
 * trips when nobody is in the way. Before the first grant of this object
 * the path's layout is read first, so that a semaphore on another recipe's
 * path is refused before it makes a node there, which that recipe's users
 * would take for a semaphore's. The queue node's delete is not waited for:
 * the admission rests on the leases read, and the session's later requests
 * go after it. When the leases read with the queue's showed room for ours,
 * our lease's create deletes it in the same transaction: the next head is
 * woken a round trip sooner, and the ensemble writes once for both
 * (lease_run.h's seen). On failure
 * no node of ours is left, and after a refusal of the layout no parent we
 * made either. *woken_us: when the acquire was last
 * told its way was clear, by the queue or the leases (0: never). */
static int attempt(zkc_sem_t *s, unsigned qty, int64_t deadline,
                   zkc_lease_t *l, int64_t *woken_us) {
  zkc_client_t *c = s->client;
  int64_t limit = zkc__limit_after(deadline);
  unsigned before = ZKC_LAYOUT_SEMAPHORE;
  int rc = atomic_load(&s->layout_known) ? ZKC_OK
                                         : layout_check(s, deadline, &before);
  zkc__held_t q = {0};
  int seen = -1, q_gone = 0;
  if (rc == ZKC_OK)
    /* No room is trusted under a shared count (lease_run.h): no read. */
    rc = zkc__lock_acquire_also(c, s->locks, ZKC__LOCK_NAME,
                                s->count_path ? NULL : s->leases, deadline,
                                &q, &seen);
  if (rc == ZKC_OK) {
    *woken_us = q.woken_us;
    if (zkc__sem_seam) zkc__sem_seam(s->leases);
    rc = take_leases(s, qty, &q, seen, deadline, l, woken_us, &q_gone);
  }
  if (rc == ZKC_OK) {
    /* Let go behind the leases' round, or now; a refusal is logged. */
    if (!q_gone) (void)zkc__lock_delete_nowait(c, q.node);
    free(q.node);
    atomic_store(&s->layout_known, 1);
    return ZKC_OK;
  }
  /* A queue node we cannot delete blocks everyone behind it: a refused
   * delete is reported rather than the reason we stopped (as the mutex
   * does), since waiting cannot cure it. One let go already is deleted
   * again, waited for: gone, that is settled; refused, it is reported
   * (queueing again behind it would wait for ever). */
  int left = q.node ? zkc__lock_delete_by(c, q.node, limit) : ZKC_OK;
  free(q.node);
  int refused = drop_nodes(c, l, limit);
  if (refused != ZKC_OK) rc = refused;
  else if (!delete_settled(left)) rc = left;
  if (rc == ZKC_ELAYOUT) {
    atomic_store(&s->layout_known, 0);
    if (!(before & ZKC_LAYOUT_SEMAPHORE)) {
      remove_if_empty(c, s->leases, limit);
      remove_if_empty(c, s->locks, limit);
    }
  }
  return rc;
}

/* Records a granted lease (s->mu held): guards its nodes. ZKC_ELOST when
 * its session is gone already (or in doubt, when that counts as lost). */
static int record(zkc_sem_t *s, zkc_lease_t *l) {
  zkc_client_t *c = s->client;
  if (zkc__hold_rec_grant(&l->rec, c, l->nodes[l->n - 1].token,
                          l->nodes[0].session_id) == ZKC__HOLD_LOST)
    return ZKC_ELOST;
  for (size_t i = 0; i < l->n; i++)
    if (zkc__guard_add(c, l->nodes[i].node, l->nodes[i].session_id,
                       zkc__sem_on_node_gone, s, &l->guards[i]) != ZKC_OK)
      zkc__log(c, ZKC_LOG_WARN, "out of memory: a lease of %s is unwatched",
               s->path);
  l->sem = s;
  l->next = s->held;
  if (s->held) s->held->prev = l;
  s->held = l;
  s->held_nodes += l->n;
  return ZKC_OK;
}

int zkc__sem_grant(zkc_sem_t *s, zkc_lease_t *l) {
  pthread_mutex_lock(&s->mu);
  int rc = record(s, l);
  pthread_mutex_unlock(&s->mu);
  return rc;
}

zkc_lease_t *zkc__sem_lease_new(unsigned qty) {
  zkc_lease_t *l = calloc(1, sizeof *l);
  if (l == NULL) return NULL;
  zkc__hold_view_init(&l->view, ZKC__HOLD_LEASE, l);
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
  zkc__hold_notice_drop(&l->view); /* never told once freed */
  for (size_t i = 0; i < l->n; i++) free(l->nodes[i].node);
  free(l->nodes);
  free(l->guards);
  free(l);
}

int zkc__sem_qty_check(const zkc_sem_t *s, const char *fn, unsigned qty) {
  if (qty == 0) return zkc__refuse(s->client, ZKC_EINVAL, "%s: qty is 0", fn);
  if (s->count_path == NULL && qty > (unsigned)s->max)
    return zkc__refuse(s->client, ZKC_EINVAL,
                       "%s: qty %u is above the limit %d (max_leases)", fn,
                       qty, s->max);
  return ZKC_OK;
}

int zkc__sem_enter(zkc_sem_t *s, unsigned qty) {
  int rc = ZKC_OK;
  pthread_mutex_lock(&s->mu);
  if (s->count_path == NULL && s->held_nodes > 0 &&
      s->held_nodes + qty > (size_t)s->max)
    rc = ZKC_EDEADLK; /* this object's own leases stand in the way */
  else
    s->users++;
  pthread_mutex_unlock(&s->mu);
  return rc;
}

void zkc__sem_leave(zkc_sem_t *s) {
  pthread_mutex_lock(&s->mu);
  s->users--;
  pthread_mutex_unlock(&s->mu);
}

static int sem_acquire_impl(zkc_sem_t *s, unsigned qty, int64_t timeout_ms,
                            zkc_lease_t **out) {
  if (out != NULL) *out = NULL;
  int rc_ = zkc__refuse_null(s ? s->client : NULL, "zkc_sem_acquire", "sem",
                             s == NULL, "out", out == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  int rc = zkc__sem_qty_check(s, "zkc_sem_acquire", qty);
  if (rc != ZKC_OK) return rc;
  zkc_client_t *c = s->client;
  int64_t began = zkc__stats_begin(s->st), woken = 0;
  rc = zkc__call_enter(c); /* callback thread, closed client */
  if (rc != ZKC_OK) {
    zkc__stats_end(s->st, began, rc, 0);
    return rc;
  }
  rc = zkc__sem_enter(s, qty);
  if (rc != ZKC_OK) {
    zkc__stats_end(s->st, began, rc, 0);
    zkc__call_leave(c);
    return rc;
  }
  zkc_lease_t *l = zkc__sem_lease_new(qty);
  if (l == NULL) rc = ZKC_ENOMEM;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  while (rc == ZKC_OK) {
    rc = attempt(s, qty, deadline, l, &woken);
    if (rc == ZKC_OK) {
      rc = zkc__sem_grant(s, l);
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
  /* Only this thread touches the new lease until *out is set. */
  int64_t ended = zkc__stats_end(s->st, began, rc, woken);
  if (rc == ZKC_OK) {
    l->granted_us = ended;
    *out = l;
  } else if (l != NULL) {
    zkc__sem_lease_delete(l);
  }
  zkc__call_leave(c);
  zkc__sem_leave(s);
  return rc;
}

int zkc_sem_acquire(zkc_sem_t *s, unsigned qty, int64_t timeout_ms,
                    zkc_lease_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           sem_acquire_impl(s, qty, timeout_ms, out));
}

