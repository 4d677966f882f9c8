/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's one acquire run (sem_run.h): the layout read, the queue
 * run and the lease run as states, each request told to whichever driver
 * steps it instead of waited for. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sem_run.h"

#include "hold_notice.h"
#include "kernel_door.h"
#include "lease_run.h"
#include "run_kernel.h"
#include "session.h"
#include "test_hooks.h"
#include "util.h"

void (*zkc__sem_seam)(const char *leases);
void (*zkc__sem_layout_seam)(void);

typedef enum {
  S_LAYOUT,   /* read the path's layout, unless accepted before */
  S_LAYING,   /* its answer */
  S_BACKOFF,  /* a retry's backoff, then S_CONNECT */
  S_CONNECT,  /* wait for a live session, then S_LAYOUT */
  S_QUEUING,  /* the queue run on locks/ */
  S_LEASING,  /* the lease run, as the head of the queue */
  S_CLEANING, /* an attempt failed: its nodes' deletes answered */
  S_DONE
} srun_state_t;

enum { D_QUEUE, D_LEASE, D_PARENT }; /* what a cleaning delete removes */

typedef struct del {
  char *path;
  zkc__op_t *op; /* NULL: not sent (its answer is rc) */
  int rc;
  int kind;
} del_t;

struct zkc__srun {
  zkc_sem_t *s;
  unsigned qty;
  int64_t deadline;
  const zkc__qdriver_t *drv; /* NULL: the blocking driver */
  void *drv_ctx;
  srun_state_t st;
  int rc;                /* S_CLEANING on, S_DONE: the result */
  int stop_rc;           /* a stop from outside, or 0 */
  int attempt;           /* the layout read's retries */
  int64_t wake_at;       /* S_BACKOFF's end */
  unsigned before;       /* the layouts the first read showed */
  unsigned q_on : 1, l_on : 1; /* the queue run, the lease run live */
  zkc__op_t *op;         /* the layout read */
  zkc__held_t qn;        /* our queue node, once first */
  int seen;              /* leases the read that made it first showed */
  zkc_lease_t *lease;    /* the lease nodes made */
  del_t *dels;           /* qty + 3 slots */
  int ndel;
  zkc__qrun_t q;
  zkc__lrun_t l;
};

/* The cleaning's deletes and the layout read fit where the lease run's
 * round does, and the queue run's requests too. */
_Static_assert(ZKC__LRUN_READS >= 3 && ZKC__LRUN_READS >= ZKC__QRUN_OPS_MAX,
               "a lease round is the most a run awaits");

int zkc__srun_ops_max(unsigned qty) { return (int)qty + ZKC__LRUN_READS; }

static zkc__op_t *op_new(zkc__srun_t *r) {
  return r->drv ? r->drv->op_new(r->drv_ctx) : zkc__op_new();
}

/* An op dropped, answered or not (an unanswered one tells nobody). */
static void op_drop(zkc__srun_t *r, zkc__op_t **op) {
  if (*op == NULL) return;
  if (zkc__op_give_up(*op) && r->drv) r->drv->op_dropped(r->drv_ctx);
  *op = NULL;
}

/* ---- the lease run, as the head of the queue ---- */

/* The lease nodes this object's leases hold (a lease run's `held`). */
static size_t held_nodes(void *ctx) {
  zkc_sem_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  size_t n = s->held_nodes;
  pthread_mutex_unlock(&s->mu);
  return n;
}

static int leases_init(zkc__srun_t *r) {
  zkc_sem_t *s = r->s;
  zkc__lrun_how_t how = {.path = s->path, .leases = s->leases,
                         .count = s->count_path, .queue_node = r->qn.node,
                         .queue_session = r->qn.session_id, .qty = r->qty,
                         .max = s->max, .held = held_nodes, .held_ctx = s,
                         .deadline = r->deadline,
                         .layout_known = atomic_load(&s->layout_known) != 0,
                         .seen = r->seen, .drv = r->drv,
                         .drv_ctx = r->drv_ctx};
  return zkc__lrun_init(&r->l, s->client, &how);
}

/* The lease run done: its result, its nodes moved into the lease whatever
 * the result (ours to delete on failure), *q_gone when its last create
 * let the queue node go. */
static int leases_end(zkc__srun_t *r, int *q_gone) {
  zkc_lease_t *l = r->lease;
  int rc = zkc__lrun_result(&r->l);
  zkc__held_t *nodes = zkc__lrun_take_nodes(&r->l);
  *q_gone = zkc__lrun_let_go(&r->l);
  zkc__lrun_clear(&r->l);
  r->l_on = 0;
  for (unsigned i = 0; nodes && i < r->qty; i++)
    if (nodes[i].node) l->nodes[l->n++] = nodes[i];
  free(nodes);
  return rc;
}

/* ---- the lease handle the run fills ---- */

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

char *zkc__sem_lease_joined(const zkc_lease_t *l) {
  size_t len = 1;
  for (size_t i = 0; i < l->n; i++) len += strlen(l->nodes[i].node) + 1;
  char *out = malloc(len), *p = out;
  for (size_t i = 0; out != NULL && i < l->n; i++) {
    size_t one = strlen(l->nodes[i].node);
    if (i > 0) *p++ = '\n';
    memcpy(p, l->nodes[i].node, one);
    p += one;
  }
  if (out != NULL) *p = '\0';
  return out;
}

/* ---- the run ---- */

zkc__srun_t *zkc__srun_new(zkc_sem_t *s, unsigned qty, int64_t deadline,
                           const zkc__qdriver_t *drv, void *drv_ctx) {
  zkc__srun_t *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->dels = calloc(qty + 3, sizeof *r->dels);
  r->lease = zkc__sem_lease_new(qty);
  if (r->dels == NULL || r->lease == NULL) {
    free(r->dels);
    if (r->lease) zkc__sem_lease_delete(r->lease);
    free(r);
    return NULL;
  }
  r->s = s;
  r->qty = qty;
  r->deadline = deadline;
  r->drv = drv;
  r->drv_ctx = drv_ctx;
  r->st = S_LAYOUT;
  return r;
}

static void end(zkc__srun_t *r, int rc) {
  r->rc = rc;
  r->st = S_DONE;
}

static void add_del(zkc__srun_t *r, char *path, int kind) {
  if (path == NULL) return;
  r->dels[r->ndel++] = (del_t){.path = path, .kind = kind};
}

/* An attempt failed with rc: its deletes, in order (the queue node, the
 * lease nodes, then after a refused layout the parents we made if empty),
 * sent together: the session applies them before anything of a next
 * attempt. A node's delete while the session is not live is the
 * janitor's. */
static void clean(zkc__srun_t *r, int rc) {
  zkc_client_t *c = r->s->client;
  r->rc = rc;
  r->ndel = 0;
  add_del(r, r->qn.node, D_QUEUE);
  r->qn.node = NULL;
  for (size_t i = 0; i < r->lease->n; i++) {
    add_del(r, r->lease->nodes[i].node, D_LEASE);
    r->lease->nodes[i].node = NULL;
  }
  r->lease->n = 0;
  if (rc == ZKC_ELAYOUT && !(r->before & ZKC_LAYOUT_SEMAPHORE)) {
    add_del(r, strdup(r->s->leases), D_PARENT);
    add_del(r, strdup(r->s->locks), D_PARENT);
  }
  for (int i = 0; i < r->ndel; i++) {
    del_t *d = &r->dels[i];
    if (zkc__client_facts(c).closed) continue; /* the nodes went with it */
    if (!zkc__session_live(c) || (d->op = op_new(r)) == NULL) {
      if (d->kind != D_PARENT) zkc__janitor_add(c, d->path, NULL);
      continue;
    }
    zkc__send(c, d->op,
              &(zkc__req_t){.kind = ZKC__REQ_DELETE, .path = d->path});
  }
  r->st = S_CLEANING;
}

static int settled(int rc) {
  return rc == ZKC_OK || rc == ZKC_ELOST || rc == ZKC_ECLOSED;
}

/* Every delete answered: a refused one is reported rather than the reason
 * the attempt failed (waiting cannot cure it: a queue node left blocks
 * everyone behind it); a loss queues again. */
static void deletes_answered(zkc__srun_t *r) {
  zkc_client_t *c = r->s->client;
  int refused = ZKC_OK, left = ZKC_OK;
  for (int i = 0; i < r->ndel; i++) {
    del_t *d = &r->dels[i];
    int a = d->rc;
    if (d->op) {
      a = zkc__delete_answered(c, d->path, d->op->rc);
      zkc__op_free(d->op);
      d->op = NULL;
    }
    if (d->kind == D_QUEUE) left = a;
    else if (d->kind == D_LEASE && !settled(a) && refused == ZKC_OK) refused = a;
    free(d->path);
    d->path = NULL;
  }
  r->ndel = 0;
  int rc = r->rc;
  if (refused != ZKC_OK) rc = refused;
  else if (!settled(left)) rc = left;
  if (rc == ZKC_ELAYOUT) atomic_store(&r->s->layout_known, 0);
  if (rc != ZKC_ELOST || r->stop_rc) {
    end(r, rc);
    return;
  }
  /* The session went while queueing or waiting (or a node of ours was
   * deleted under us): queue again, once connected, within the time. */
  zkc__log(c, ZKC_LOG_INFO,
           "semaphore %s: lost while acquiring, queueing again", r->s->path);
  r->st = S_CONNECT;
}

/* No room is trusted under a shared count (lease_run.h): no read of
 * leases/ behind the queue's then. */
static void start_queue(zkc__srun_t *r) {
  zkc_sem_t *s = r->s;
  zkc__qrun_how_t how = {.base = s->locks, .name = ZKC__LOCK_NAME,
                         .deadline = r->deadline, .requeue = 1,
                         .also = s->count_path ? NULL : s->leases,
                         .unproven = 1, .drv = r->drv, .drv_ctx = r->drv_ctx};
  zkc__qrun_init(&r->q, s->client, &how);
  r->q_on = 1;
  r->st = S_QUEUING;
}

/* The layout read answered: on to the queue, a retry, or the end. Before
 * the object's first grant the path's layout is read before any node is
 * made, so that a semaphore on another recipe's path is refused before it
 * makes a node there, which that recipe's users would take for a
 * semaphore's. */
static void layout_answered(zkc__srun_t *r) {
  zkc_client_t *c = r->s->client;
  int rc = r->op->rc;
  if (rc == ZKC_OK)
    rc = zkc__rk_layout(c, ZKC__AS_SEMAPHORE, ZKC__LRUN_WHO, r->s->path,
                        &r->op->children, &r->before);
  zkc__op_free(r->op);
  r->op = NULL;
  if (rc == ZKC_ENONODE) rc = ZKC_OK; /* nothing there yet */
  if (r->stop_rc) rc = r->stop_rc;
  if (rc == ZKC_OK) {
    start_queue(r);
  } else if (rc == ZKC_ESESSIONEXPIRED) {
    /* Sent on a session that ended before the client told us so (a run
     * queueing again after a loss reads the layout first): nothing was
     * made, so it is a loss like any other, queued again once live. */
    r->st = S_CONNECT;
  } else if (zkc__retryable(rc) &&
             (rc = zkc__retry_delay(c, &r->attempt, rc, r->deadline,
                                    &r->wake_at)) == ZKC_OK) {
    r->st = S_BACKOFF;
  } else {
    end(r, rc);
  }
}

/* As the head of the queue (its read having shown `seen` leases): the
 * lease run, its nodes ours whatever its result. */
static void queue_done(zkc__srun_t *r) {
  int rc = zkc__qrun_result(&r->q, &r->qn);
  r->seen = zkc__qrun_also_seen(&r->q);
  zkc__qrun_clear(&r->q);
  r->q_on = 0;
  if (rc == ZKC_OK && r->stop_rc) rc = r->stop_rc;
  if (rc == ZKC_OK && zkc__sem_seam) zkc__sem_seam(r->s->leases);
  if (rc == ZKC_OK && (rc = leases_init(r)) == ZKC_OK) {
    r->l_on = 1;
    r->st = S_LEASING;
    return;
  }
  clean(r, rc);
}

/* The lease run done. Granted: the queue node let go behind the leases'
 * round, or now, not waited for (the admission rests on the leases read,
 * and the session's later requests go after it). */
static void leases_done(zkc__srun_t *r) {
  int gone = 0;
  int rc = leases_end(r, &gone);
  if (rc == ZKC_OK && r->stop_rc) rc = r->stop_rc;
  if (rc != ZKC_OK) {
    clean(r, rc);
    return;
  }
  if (!gone && zkc__delete_unwaited(r->s->client, r->qn.node) == ZKC_ENOMEM)
    zkc__janitor_add(r->s->client, r->qn.node, NULL);
  free(r->qn.node);
  r->qn.node = NULL;
  atomic_store(&r->s->layout_known, 1);
  end(r, ZKC_OK);
}

static int dels_pending(const zkc__srun_t *r) {
  for (int i = 0; i < r->ndel; i++)
    if (r->dels[i].op && !zkc__op_done(r->dels[i].op)) return 1;
  return 0;
}

static zkc__qneed_t s_step(void *run) {
  zkc__srun_t *r = run;
  zkc_client_t *c = r->s->client;
  zkc__qneed_t n;
  for (;;) {
    if (r->stop_rc && (r->st == S_LAYOUT || r->st == S_BACKOFF ||
                       r->st == S_CONNECT)) {
      end(r, r->stop_rc); /* nothing of ours made */
      continue;
    }
    switch (r->st) {
      case S_LAYOUT:
        r->before = ZKC_LAYOUT_SEMAPHORE;
        if (atomic_load(&r->s->layout_known)) {
          start_queue(r);
        } else if ((r->op = op_new(r)) == NULL) {
          end(r, ZKC_ENOMEM);
        } else {
          if (zkc__sem_layout_seam) zkc__sem_layout_seam();
          zkc__send(c, r->op,
                    &(zkc__req_t){.kind = ZKC__REQ_CHILDREN,
                                  .path = r->s->path});
          r->st = S_LAYING;
        }
        break;
      case S_LAYING:
        if (!zkc__op_done(r->op)) return ZKC__QN_REPLY;
        layout_answered(r);
        break;
      case S_BACKOFF:
        if (zkc__now_ms() < r->wake_at) return ZKC__QN_TIME;
        r->st = S_CONNECT;
        break;
      case S_CONNECT:
        if (zkc__session_live(c)) r->st = S_LAYOUT;
        else if (zkc__client_facts(c).closed) end(r, ZKC_ECLOSED);
        else if (zkc__now_ms() >= r->deadline) end(r, ZKC_ETIMEDOUT);
        else return ZKC__QN_SESSION;
        break;
      case S_QUEUING:
        if ((n = zkc__qrun_step(&r->q)) != ZKC__QN_DONE) return n;
        queue_done(r);
        break;
      case S_LEASING:
        if ((n = zkc__qrun_step(&r->l.q)) != ZKC__QN_DONE) return n;
        leases_done(r);
        break;
      case S_CLEANING:
        if (dels_pending(r)) return ZKC__QN_REPLY;
        deletes_answered(r);
        break;
      case S_DONE: return ZKC__QN_DONE;
    }
  }
}

static int s_ops(void *run, zkc__op_t **ops) {
  zkc__srun_t *r = run;
  if (r->q_on) return zkc__qrun_ops(&r->q, ops);
  if (r->l_on) return zkc__qrun_ops(&r->l.q, ops);
  int n = 0;
  if (r->st == S_LAYING && r->op) ops[n++] = r->op;
  if (r->st == S_CLEANING) /* the last sent first (zkc__qrun_ops) */
    for (int i = r->ndel - 1; i >= 0; i--)
      if (r->dels[i].op) ops[n++] = r->dels[i].op;
  return n;
}

static void s_give_up(void *run) {
  zkc__srun_t *r = run;
  if (r->q_on) {
    zkc__qrun_give_up(&r->q);
  } else if (r->l_on) {
    zkc__lrun_give_up(&r->l);
  } else if (r->st == S_LAYING) {
    op_drop(r, &r->op);
    end(r, ZKC_ETIMEDOUT);
  } else if (r->st == S_CLEANING) { /* unanswered: the janitor's */
    for (int i = 0; i < r->ndel; i++) {
      del_t *d = &r->dels[i];
      if (d->op == NULL || zkc__op_done(d->op)) continue;
      op_drop(r, &d->op);
      if (d->kind != D_PARENT) zkc__janitor_add(r->s->client, d->path, NULL);
    }
  }
}

static zkc__waiter_t *s_waiter(void *run) {
  zkc__srun_t *r = run;
  if (r->q_on) return zkc__qrun_waiter(&r->q);
  return r->l_on ? zkc__qrun_waiter(&r->l.q) : NULL;
}

static void s_woken(void *run, zkc__wake_t why) {
  zkc__srun_t *r = run;
  if (r->q_on) zkc__qrun_woken(&r->q, why);
  else if (r->l_on) zkc__qrun_woken(&r->l.q, why);
}

static int64_t s_wake_at(const void *run) {
  const zkc__srun_t *r = run;
  if (r->q_on) return zkc__qrun_wake_at(&r->q);
  if (r->l_on) return zkc__qrun_wake_at(&r->l.q);
  return r->wake_at;
}

static void s_stop(void *run, int rc) {
  zkc__srun_t *r = run;
  if (rc == ZKC_OK) return;
  if (r->stop_rc == 0) r->stop_rc = rc;
  if (r->q_on) zkc__qrun_stop(&r->q, rc);
  else if (r->l_on) zkc__qrun_stop(&r->l.q, rc);
  else if (r->st == S_DONE && r->rc == ZKC_OK && r->lease) clean(r, rc);
}

const zkc__run_calls_t zkc__srun_calls = {s_step,   s_ops,   s_give_up,
                                          s_waiter, s_woken, s_wake_at,
                                          s_stop};

int zkc__srun_result(zkc__srun_t *r, zkc_lease_t **out) {
  if (r->rc == ZKC_OK && out) {
    *out = r->lease;
    r->lease = NULL;
  }
  return r->rc;
}

void zkc__srun_refuse(zkc__srun_t *r, zkc_lease_t *l, int rc) {
  r->lease = l;
  if (rc != ZKC_ELOST && r->stop_rc == 0) r->stop_rc = rc;
  clean(r, rc);
}

void zkc__srun_free(zkc__srun_t *r) {
  if (r == NULL) return;
  zkc_client_t *c = r->s->client;
  if (r->q_on) zkc__qrun_clear(&r->q); /* gives its node up */
  if (r->l_on) {
    int gone = 0;
    (void)leases_end(r, &gone);
  }
  op_drop(r, &r->op);
  for (int i = 0; i < r->ndel; i++) {
    del_t *d = &r->dels[i];
    if (d->op && !zkc__op_done(d->op) && d->kind != D_PARENT)
      zkc__janitor_add(c, d->path, NULL);
    op_drop(r, &d->op);
    free(d->path);
  }
  if (r->qn.node) zkc__janitor_add(c, r->qn.node, NULL);
  free(r->qn.node);
  if (r->lease) {
    for (size_t i = 0; i < r->lease->n; i++)
      zkc__janitor_add(c, r->lease->nodes[i].node, NULL);
    zkc__sem_lease_delete(r->lease);
  }
  free(r->dels);
  free(r);
}
