/* SPDX-License-Identifier: Apache-2.0 */
/* The async acquire's engine: each pending acquire is a run that never
 * blocks, the same one a blocking acquire drives (drive.h): a lock's run of
 * the queue engine (qengine.c), or a semaphore's acquire
 * (sem_run.c),, stepped
 * through its calls (zkc__run_calls_t) by one engine thread per context
 * whenever a request completes, a watch fires or the session changes. No
 * thread per waiter. A release's delete is stepped here too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "async_int.h"

#include "hold_fate.h"
#include "kernel_door.h" /* its ops whole: the async driver */
#include "mutex_sides.h"
#include "names.h"
#include "queue.h" /* the queue run's calls */
#include "sem_run.h" /* the semaphore run's calls */
#include "session.h"
#include "test_hooks.h"
#include "util.h"

void (*zkc__async_grant_seam)(const char *node, uint64_t guard);

/* A sweep of every entry at least this often: a safety net only. What the
 * engine must see in time is told (a completion, a watch, a state change,
 * a cancel) or timed (deadlines, backoffs, limits); a sweep of 10,000
 * waiting entries takes tens of milliseconds. */
#define POLL_MS 1000

void zkc__async_append_locked(zkc_async_t *a, acq_t *q) {
  q->a = a;
  q->next = NULL;
  q->prev = a->acqs_last;
  *a->acqs_tail = q;
  a->acqs_tail = &q->next;
  a->acqs_last = q;
}

void zkc__async_ready_locked(zkc_async_t *a, acq_t *q) {
  if (q->ready) return;
  q->ready = 1;
  q->ready_next = NULL;
  *a->ready_tail = q;
  a->ready_tail = &q->ready_next;
}

/* Takes q off the list of all entries (a->mu held). */
static void unlink_locked(zkc_async_t *a, acq_t *q) {
  if (q->prev) q->prev->next = q->next;
  else a->acqs = q->next;
  if (q->next) q->next->prev = q->prev;
  else a->acqs_last = q->prev;
  if (a->acqs_tail == &q->next)
    a->acqs_tail = q->prev ? &q->prev->next : &a->acqs;
  q->next = q->prev = NULL;
}

/* ---- requests, each telling the engine when done ---- */

/* The context's, for a release's delete and an acquire's run: the
 * completion tells the context (which outlives every request), and the
 * entry is stepped at every look while it has requests in flight. */
static zkc__op_t *ctx_op_start(zkc_async_t *a) {
  zkc__op_t *op = zkc__op_new();
  if (op == NULL) return NULL;
  op->notify = zkc__async_op_done;
  op->notify_ctx = a;
  pthread_mutex_lock(&a->mu);
  a->inflight++;
  pthread_mutex_unlock(&a->mu);
  return op;
}

static zkc__op_t *op_start(void *ctx) {
  acq_t *q = ctx;
  return ctx_op_start(q->a);
}

/* An op given up in flight no longer counts: its completion tells nobody. */
static void op_dropped(void *ctx) {
  zkc_async_t *a = ((acq_t *)ctx)->a;
  pthread_mutex_lock(&a->mu);
  a->inflight--;
  pthread_mutex_unlock(&a->mu);
}

/* A run's waiter would wake (the client's lock held; the waiter is the
 * run's, registered while the entry lives): step that entry. */
static void wake(void *ctx) {
  acq_t *q = ctx;
  zkc_async_t *a = q->a;
  pthread_mutex_lock(&a->mu);
  zkc__async_ready_locked(a, q);
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

static const zkc__qdriver_t engine = {
    .op_new = op_start, .op_dropped = op_dropped, .wake = wake};

void zkc__async_acq_init(zkc_async_t *a, acq_t *q, char *base, int side,
                         int64_t deadline) {
  q->a = a;
  q->deadline = deadline;
  const char *name = zkc__side_name(side);
  zkc__qrun_how_t how = {.base = base, .name = name,
                         .deadline = deadline,
                         .layout = zkc__marker_layout(name),
                         .reader = side == ZKC__SIDE_READ, .requeue = 1,
                         .drv = &engine, .drv_ctx = q};
  zkc__qrun_init(&q->qrun, a->c, &how);
  q->calls = &zkc__qrun_calls;
  q->run = &q->qrun;
}

int zkc__async_sem_init(zkc_async_t *a, acq_t *q, zkc_sem_t *s, unsigned qty,
                        int64_t deadline) {
  q->a = a;
  q->deadline = deadline;
  q->sem = zkc__srun_new(s, qty, deadline, &engine, q);
  if (q->sem == NULL) return ZKC_ENOMEM;
  q->sem_obj = s;
  q->calls = &zkc__srun_calls;
  q->run = q->sem;
  return ZKC_OK;
}

/* ---- results ---- */

/* Fixes the result unless a cancel or a close fixed it first. */
static void decide(zkc_async_t *a, acq_t *q, int rc) {
  pthread_mutex_lock(&a->mu);
  if (!q->decided) {
    q->decided = 1;
    q->rc = rc;
  }
  pthread_mutex_unlock(&a->mu);
}

static void post(zkc_async_t *a, const zkc__event_cb_t *ev) {
  pthread_mutex_lock(&a->mu);
  int rc = zkc__async_post_locked(a, ev);
  pthread_mutex_unlock(&a->mu);
  if (rc != ZKC_OK)
    zkc__log(a->c, ZKC_LOG_ERROR, "out of memory: an async callback is lost");
}

/* Queues q's callback; an acquire's hold (NULL on failure). */
static void deliver(zkc_async_t *a, acq_t *q, zkc_hold_t *hold) {
  zkc__event_cb_t ev = {.rc = q->rc, .ctx = q->ctx};
  q->finished = 1;
  if (q->fn) {
    /* Counted before the callback is queued: the hold is nobody else's
     * until it runs. */
    int64_t at = zkc__stats_end(q->st, q->began_us, q->rc, q->woken_us);
    if (hold) hold->st = q->st, hold->granted_us = at;
    ev.kind = EV_ACQUIRED;
    ev.acquired = q->fn;
    ev.hold = hold;
  } else if (q->released) {
    ev.kind = EV_RELEASED;
    ev.released = q->released;
  } else {
    return;
  }
  post(a, &ev);
}

/* The run says first: the hold, unless a cancel came first (the run then
 * deletes the node) or a state change went by since the session was seen
 * live (seq: a->state_seq then; on_state walks only a->holds, so this hold
 * could miss the loss): the run reads the queue again once connected. The
 * guard on the node starts only once the hold is listed, where its told
 * delete is looked for (zkc__async_on_node_gone): a delete before is then
 * found by its first watch request, never told to nobody. 1 when the run
 * goes on. */
static int grant(zkc_async_t *a, acq_t *q, uint64_t seq) {
  zkc__qrun_t *r = &q->qrun;
  zkc_hold_t *h = calloc(1, sizeof *h);
  if (h != NULL && zkc__guard_add_held(a->c, r->node, r->owner,
                                       zkc__async_on_node_gone, a,
                                       &h->guard) != ZKC_OK) {
    free(h);
    h = NULL;
  }
  if (h == NULL) {
    zkc__qrun_stop(r, ZKC_ENOMEM);
    return 1;
  }
  h->a = a;
  uint64_t guard = h->guard;
  if (zkc__async_grant_seam) zkc__async_grant_seam(r->node, guard);
  pthread_mutex_lock(&a->mu);
  int stale = a->state_seq != seq, undecided = !q->decided;
  int mine = undecided && !stale;
  if (mine) {
    q->decided = 1;
    q->rc = ZKC_OK;
    (void)zkc__qrun_result(r, &h->held); /* the node is the hold's now */
    zkc__hold_rec_set(&h->rec, h->held.token, h->held.session_id);
    h->reader = r->reader;
    h->next = a->holds;
    a->holds = h;
    a->holds_alive++;
  }
  int rc = q->rc;
  pthread_mutex_unlock(&a->mu);
  if (mine) {
    zkc__guard_start(a->c, guard);
    deliver(a, q, h);
    return 0;
  }
  zkc__guard_remove(a->c, h->guard);
  free(h);
  if (stale && undecided) zkc__qrun_doubt(r);
  else zkc__qrun_stop(r, rc); /* cancelled just before the grant */
  return 1;
}

/* The hold of lease set l (its nodes joined, each watched but the watches
 * not started, its standing by the session's fate now): ZKC_OK, ZKC_ELOST
 * (the session gone: queue again) or ZKC_ENOMEM. */
static int lease_hold_new(zkc_async_t *a, zkc_lease_t *l, zkc_hold_t **out) {
  zkc_hold_t *h = calloc(1, sizeof *h);
  if (h == NULL || (h->held.node = zkc__sem_lease_joined(l)) == NULL) {
    free(h);
    return ZKC_ENOMEM;
  }
  h->a = a;
  h->lease = l;
  int rc = zkc__hold_rec_grant(&h->rec, a->c, l->nodes[l->n - 1].token,
                               l->nodes[0].session_id) == ZKC__HOLD_LOST
               ? ZKC_ELOST
               : ZKC_OK;
  for (size_t i = 0; rc == ZKC_OK && i < l->n; i++)
    rc = zkc__guard_add_held(a->c, l->nodes[i].node, l->nodes[i].session_id,
                             zkc__async_on_node_gone, a, &l->guards[i]);
  *out = h;
  return rc;
}

/* A lease hold never handed out: its watches removed, the lease the
 * caller's again. */
static void lease_hold_drop(zkc_async_t *a, zkc_hold_t *h) {
  for (size_t i = 0; i < h->lease->n; i++) {
    zkc__guard_remove(a->c, h->lease->guards[i]); /* 0: none */
    h->lease->guards[i] = 0;
  }
  free(h->held.node);
  free(h);
}

/* A semaphore's run says its leases fit: a hold over the lease set, unless
 * a cancel or a close came first (the run then deletes its nodes), or the
 * grant finds the session gone or changed since it was seen live (seq, as
 * for a lock's grant): the run deletes them and queues again, as the
 * blocking acquire does. Decided before the grant, so that a cancel from
 * now on says ZKC_EALREADY; undone only when it queues again (a cancel in
 * that window said ZKC_EALREADY and the acquire goes on; a destroy's close
 * ends it). The watches start once the hold is listed (see grant()).
 * 1 when the run goes on. */
static int grant_leases(zkc_async_t *a, acq_t *q, uint64_t seq) {
  zkc_lease_t *l = NULL;
  (void)zkc__srun_result(q->sem, &l);
  pthread_mutex_lock(&a->mu);
  int mine = !q->decided;
  if (mine) {
    q->decided = 1;
    q->rc = ZKC_OK;
  }
  int rc = q->rc;
  pthread_mutex_unlock(&a->mu);
  if (!mine) {
    zkc__srun_refuse(q->sem, l, rc);
    return 1;
  }
  zkc_hold_t *h = NULL;
  rc = lease_hold_new(a, l, &h);
  pthread_mutex_lock(&a->mu);
  if (rc == ZKC_OK && a->state_seq != seq) rc = ZKC_ELOST;
  if (rc == ZKC_OK) {
    h->next = a->holds;
    a->holds = h;
    a->holds_alive++;
  } else if (rc == ZKC_ENOMEM || a->stopping) {
    q->rc = rc = rc == ZKC_ENOMEM ? rc : ZKC_ECLOSED; /* decided: ends */
  } else { /* ELOST: pending again */
    q->decided = 0;
    q->rc = ZKC_OK;
  }
  pthread_mutex_unlock(&a->mu);
  if (rc == ZKC_OK) {
    zkc__sem_grant_owned(q->sem_obj, l); /* counted until released */
    for (size_t i = 0; i < l->n; i++) zkc__guard_start(a->c, l->guards[i]);
    deliver(a, q, h);
    return 0;
  }
  if (h) lease_hold_drop(a, h);
  zkc__srun_refuse(q->sem, l, rc);
  return 1;
}

/* Steps an acquire's run as far as it goes, through its calls; tells
 * *next_wake when it must be looked at again without being told. 1 while
 * it awaits answers (to be stepped at every look: a completion tells the
 * context only). */
static int step_acquire(zkc_async_t *a, acq_t *q, int64_t *next_wake) {
  const zkc__run_calls_t *run = q->calls;
  void *r = q->run;
  const int64_t limit = zkc__limit_after(q->deadline);
  for (;;) {
    pthread_mutex_lock(&a->mu);
    uint64_t seq = a->state_seq;
    int stop = q->decided && !q->stop_told ? q->rc : ZKC_OK;
    if (q->decided) q->stop_told = 1;
    pthread_mutex_unlock(&a->mu);
    if (stop != ZKC_OK) run->stop(r, stop); /* cancelled or closed */
    else if (!q->stop_told && zkc__client_facts(a->c).closed) {
      q->stop_told = 1;
      run->stop(r, ZKC_ECLOSED);
    }
    int64_t now = zkc__now_ms(), at = ZKC__FOREVER;
    zkc__wake_t why;
    switch (run->step(r)) {
      case ZKC__QN_REPLY: /* answered by the limit, or given up */
        if (now < limit) {
          at = limit;
          if (at < *next_wake) *next_wake = at;
          return 1;
        }
        run->give_up(r);
        continue;
      case ZKC__QN_EVENT:
        if (zkc__waiter_check(a->c, run->waiter(r), &why)) {
          if (why == ZKC__WAKE_FIRED) /* the hand-off starts */
            q->woken_us = zkc__now_us();
          run->woken(r, why);
          continue;
        }
        if (now >= q->deadline) {
          run->woken(r, ZKC__WAKE_TIMEOUT);
          continue;
        }
        at = q->deadline;
        break;
      case ZKC__QN_SESSION: /* told by on_state's kick, and the poll */
        at = q->deadline;
        break;
      case ZKC__QN_TIME: at = run->wake_at(r); break;
      case ZKC__QN_DONE: {
        int rc = q->sem ? zkc__srun_result(q->sem, NULL)
                        : zkc__qrun_result(&q->qrun, NULL);
        if (rc == ZKC_OK) {
          if (q->sem ? grant_leases(a, q, seq) : grant(a, q, seq)) continue;
          return 0;
        }
        decide(a, q, rc);
        deliver(a, q, NULL);
        return 0;
      }
    }
    if (at < *next_wake) *next_wake = at;
    return 0;
  }
}

/* A release's deletes all answered (or handed to the janitor): its result,
 * the first failure of its nodes', and the hold's watches gone. */
static void removed(zkc_async_t *a, acq_t *q) {
  int rc = ZKC_OK;
  for (size_t i = 0; i < q->nrm; i++) {
    zkc__rm_t *m = &q->rm[i];
    zkc__guard_remove(a->c, m->guard); /* 0: none */
    m->guard = 0;
    if (m->op == NULL) continue;
    int r = m->op->rc;
    zkc__op_free(m->op);
    m->op = NULL;
    if (zkc__retryable(r) || r == ZKC_ESESSIONEXPIRED) {
      zkc__janitor_add(a->c, m->node, NULL);
      r = ZKC_OK;
    }
    if (rc == ZKC_OK) rc = r;
  }
  if (q->rc == ZKC_OK) q->rc = rc == ZKC_ENONODE ? ZKC_ELOST : rc;
  deliver(a, q, NULL);
}

/* Steps q; 1 while it awaits answers (see step_acquire). */
static int step(zkc_async_t *a, acq_t *q, int64_t *next_wake) {
  if (q->finished) return 0;
  if (zkc__async_is_acquire(q)) return step_acquire(a, q, next_wake);
  for (size_t i = 0; i < q->nrm; i++)
    if (q->rm[i].op && !zkc__op_done(q->rm[i].op)) return 1;
  removed(a, q);
  return 0;
}

void zkc__async_acq_free(acq_t *q) {
  if (q->sem_obj) {
    zkc__srun_free(q->sem);
    zkc__sem_leave(q->sem_obj); /* its destroy may go on */
  } else if (q->fn) {
    char *base = (char *)q->qrun.base; /* the run borrowed it from us */
    zkc__qrun_clear(&q->qrun);
    free(base);
  } else {
    for (size_t i = 0; i < q->nrm; i++) free(q->rm[i].node);
    free(q->rm);
  }
  free(q);
}

/* After q's step: a finished entry leaves the lists and is freed (only
 * here); one awaiting answers is stepped again at the next look. */
static void settle(zkc_async_t *a, acq_t *q, int busy) {
  pthread_mutex_lock(&a->mu);
  int gone = q->finished;
  if (gone) {
    unlink_locked(a, q);
    if (q->ready) { /* told again meanwhile: off the ready list too */
      acq_t **pp = &a->ready;
      while (*pp != q) pp = &(*pp)->ready_next;
      *pp = q->ready_next;
      if (a->ready_tail == &q->ready_next) a->ready_tail = pp;
      q->ready = 0;
    }
  } else if (busy) {
    zkc__async_ready_locked(a, q);
  }
  pthread_mutex_unlock(&a->mu);
  if (gone) zkc__async_acq_free(q);
}

/* One look: every entry when sweeping (a state change, a cancel, a
 * deadline or the poll may concern any), else only those on the ready
 * list: with 10,000 acquires waiting, a grant steps the few it concerns,
 * not all of them. */
static void step_some(zkc_async_t *a, int sweep, int64_t *next_wake) {
  pthread_mutex_lock(&a->mu);
  acq_t *list = a->ready;
  a->ready = NULL;
  a->ready_tail = &a->ready;
  if (sweep) { /* every entry is stepped below: the list is dropped */
    for (acq_t *q = list; q; q = q->ready_next) q->ready = 0;
    list = a->acqs;
  }
  pthread_mutex_unlock(&a->mu);
  while (list) {
    acq_t *q = list;
    pthread_mutex_lock(&a->mu);
    acq_t *next = q->ready_next; /* read before a tell can reuse it */
    if (!sweep) q->ready = 0;     /* a tell from now on steps it again */
    pthread_mutex_unlock(&a->mu);
    int busy = step(a, q, next_wake);
    if (sweep) {
      pthread_mutex_lock(&a->mu);
      next = q->next;
      pthread_mutex_unlock(&a->mu);
    }
    settle(a, q, busy);
    list = next;
  }
}

void *zkc__async_engine(void *arg) {
  zkc_async_t *a = arg;
  zkc__mark_callback_thread(); /* blocking calls from callbacks: EDEADLK */
  int64_t next_wake = ZKC__FOREVER;
  for (;;) {
    pthread_mutex_lock(&a->mu);
    while (!a->kicked && zkc__now_ms() < next_wake)
      zkc__cond_wait_until(&a->cv, &a->mu, next_wake);
    a->kicked = 0;
    int sweep = a->sweep || zkc__now_ms() >= next_wake;
    a->sweep = 0;
    int done = a->stopping && a->acqs == NULL && a->inflight == 0;
    int busy = a->acqs != NULL;
    pthread_mutex_unlock(&a->mu);
    if (done) break;
    /* The timers and the poll sweep (next_wake). */
    if (sweep) next_wake = busy ? zkc__now_ms() + POLL_MS : ZKC__FOREVER;
    step_some(a, sweep, &next_wake);
    if (a->fd < 0) zkc__async_run_events(a);
    pthread_mutex_lock(&a->mu);
    if (a->stopping) next_wake = zkc__now_ms() + 10;
    pthread_mutex_unlock(&a->mu);
  }
  if (a->fd < 0) zkc__async_run_events(a);
  return NULL;
}

/* Moves h's nodes and their watches into q's deletes (a->mu held): a
 * lease set's each, its lease then the caller's to uncount and free.
 * ZKC_OK or ZKC_ENOMEM (nothing moved). */
static int take_nodes_locked(zkc_hold_t *h, acq_t *q) {
  zkc_lease_t *l = h->lease;
  size_t n = l ? l->n : 1;
  if ((q->rm = calloc(n, sizeof *q->rm)) == NULL) return ZKC_ENOMEM;
  q->nrm = n;
  if (l == NULL) {
    q->rm[0].node = h->held.node;
    q->rm[0].guard = h->guard;
    h->guard = 0;
  } else {
    for (size_t i = 0; i < n; i++) {
      q->rm[i].node = l->nodes[i].node;
      l->nodes[i].node = NULL;
      q->rm[i].guard = l->guards[i];
      l->guards[i] = 0;
    }
    free(h->held.node); /* the set's joined names */
  }
  h->held.node = NULL;
  return ZKC_OK;
}

/* Takes h out of the held list and queues the delete of its nodes. */
int zkc__async_release(zkc_async_t *a, zkc_hold_t *h, zkc_released_fn done,
                       void *ctx) {
  acq_t *q = calloc(1, sizeof *q);
  if (q == NULL) return ZKC_ENOMEM;
  /* A hold whose session is not proven live as it is released (the
   * connection down, or its renewal at the leader not proven: a stop of
   * this process past its session) may have been lost before: not a clean
   * end (hold_fate.h). Looked at before the hold leaves a->holds: a loss
   * told meanwhile marks it lost there, one learnt after finds it among
   * the released in doubt. The session is the hold's since its grant. */
  int closed = zkc__client_facts(a->c).closed, unproven = 0;
  int doubt =
      closed ? ZKC_OK : zkc__hold_rec_release_code(&h->rec, a->c, &unproven);
  pthread_mutex_lock(&a->mu);
  int rc = h->released ? ZKC_ENOTOWNER : take_nodes_locked(h, q);
  if (rc != ZKC_OK) {
    pthread_mutex_unlock(&a->mu);
    free(q);
    return rc;
  }
  h->released = 1;
  zkc_hold_t **pp = &a->holds;
  while (*pp != h) pp = &(*pp)->next;
  *pp = h->next;
  zkc_lease_t *lease = h->lease;
  h->lease = NULL;
  q->released = done;
  q->ctx = ctx;
  q->decided = 1;
  int lost = atomic_load(&h->rec.lost);
  q->rc = lost ? ZKC_ELOST : doubt;
  /* In doubt: its nodes are the janitor's (no waited delete). Its loss not
   * told yet, it is kept until its session's fate is known, so that a loss
   * learnt after this release is still told, once. */
  int untold = !lost && unproven;
  zkc__hold_rec_keep(&h->rec, q->rc, &a->released);
  q->id = 0;
  /* The hold is off a->holds: its guards, should they fire on our own
   * deletes, find nothing to tell. The engine removes them (see
   * removed()), so this call never waits on a guard's check, which may
   * take a round trip. */
  pthread_mutex_unlock(&a->mu);
  if (lease) { /* its semaphore counts it no more (destroy may go on) */
    zkc__sem_ungrant(lease->sem, lease);
    zkc__sem_lease_delete(lease);
  }
  /* The hold ends with this call, whatever its deletes answer. */
  zkc__stats_released(h->st, h->granted_us, closed ? ZKC_ECLOSED : q->rc);
  /* start the deletes from here: they never wait for the network */
  if (closed) {
    for (size_t i = 0; i < q->nrm; i++)
      zkc__guard_remove(a->c, q->rm[i].guard);
    if (done) {
      zkc__event_cb_t ev = {.kind = EV_RELEASED, .released = done, .ctx = ctx,
                            .rc = ZKC_ECLOSED};
      post(a, &ev);
    }
    zkc__async_acq_free(q);
    return ZKC_OK;
  }
  for (size_t i = 0; i < q->nrm; i++) {
    zkc__rm_t *m = &q->rm[i];
    if (untold || (m->op = ctx_op_start(a)) == NULL)
      /* sent while the session lives; or still deleted, untold */
      zkc__janitor_add(a->c, m->node, NULL);
    else
      zkc__send(a->c, m->op,
                &(zkc__req_t){.kind = ZKC__REQ_DELETE, .path = m->node});
  }
  pthread_mutex_lock(&a->mu);
  zkc__async_append_locked(a, q);
  zkc__async_ready_locked(a, q);
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return ZKC_OK;
}
