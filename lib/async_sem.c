/* SPDX-License-Identifier: Apache-2.0 */
/* The async semaphore acquire's run (async_sem.h): the steps of
 * zkc_sem_acquire (semaphore.c) as states, each request told through the
 * driver instead of waited for. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "async_sem.h"

#include "queue.h"
#include "run_kernel.h"
#include "session.h"
#include "util.h"

typedef enum {
  S_LAYOUT,   /* read the path's layout, unless accepted before */
  S_LAYING,   /* its answer */
  S_BACKOFF,  /* a retry's backoff, then S_CONNECT */
  S_CONNECT,  /* wait for a live session, then `then` */
  S_QUEUE,    /* the queue run on locks/ */
  S_QUEUING,
  S_LEASES,   /* the lease run, as the head of the queue */
  S_LEASING,
  S_CLEAN,    /* an attempt failed: delete its nodes */
  S_CLEANING, /* their answers */
  S_DONE
} asem_state_t;

enum { D_QUEUE, D_LEASE, D_PARENT }; /* what a cleaning delete removes */

typedef struct del {
  char *path;
  zkc__op_t *op; /* NULL: not sent (its answer is rc) */
  int rc;
  int kind;
} del_t;

struct zkc__asem {
  zkc_sem_t *s;
  unsigned qty;
  int64_t deadline;
  const zkc__qdriver_t *drv;
  void *drv_ctx;
  asem_state_t st, then; /* then: where S_CONNECT goes on */
  int rc;                /* S_CLEAN on, S_DONE: the result */
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

static zkc__op_t *op_new(zkc__asem_t *r) { return r->drv->op_new(r->drv_ctx); }

/* An op dropped, answered or not (an unanswered one tells nobody). */
static void op_drop(zkc__asem_t *r, zkc__op_t **op) {
  if (*op == NULL) return;
  if (zkc__op_give_up(*op)) r->drv->op_dropped(r->drv_ctx);
  *op = NULL;
}

zkc__asem_t *zkc__asem_new(zkc_sem_t *s, unsigned qty, int64_t deadline,
                           const zkc__qdriver_t *drv, void *drv_ctx) {
  zkc__asem_t *r = calloc(1, sizeof *r);
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

static void end(zkc__asem_t *r, int rc) {
  r->rc = rc;
  r->st = S_DONE;
}

static void clean(zkc__asem_t *r, int rc) {
  r->rc = rc;
  r->st = S_CLEAN;
}

static void add_del(zkc__asem_t *r, char *path, int kind) {
  if (path == NULL) return;
  r->dels[r->ndel++] = (del_t){.path = path, .kind = kind};
}

/* The failed attempt's deletes, in zkc_sem_acquire's order (the queue
 * node, the lease nodes, then after a refused layout the parents we made
 * if empty), sent together: the session applies them before anything of
 * a next attempt. A node's delete while the session is not live is the
 * janitor's, as a blocking one's is. */
static void send_deletes(zkc__asem_t *r) {
  zkc_client_t *c = r->s->client;
  r->ndel = 0;
  add_del(r, r->qn.node, D_QUEUE);
  r->qn.node = NULL;
  for (size_t i = 0; i < r->lease->n; i++) {
    add_del(r, r->lease->nodes[i].node, D_LEASE);
    r->lease->nodes[i].node = NULL;
  }
  r->lease->n = 0;
  if (r->rc == ZKC_ELAYOUT && !(r->before & ZKC_LAYOUT_SEMAPHORE)) {
    add_del(r, strdup(r->s->leases), D_PARENT);
    add_del(r, strdup(r->s->locks), D_PARENT);
  }
  for (int i = 0; i < r->ndel; i++) {
    del_t *d = &r->dels[i];
    if (zkc__client_closed(c)) continue; /* the nodes went with it */
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
 * the attempt failed (waiting cannot cure it); a loss queues again. */
static void deletes_answered(zkc__asem_t *r) {
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
  zkc__log(c, ZKC_LOG_INFO,
           "semaphore %s: lost while acquiring, queueing again", r->s->path);
  r->st = S_CONNECT;
  r->then = S_LAYOUT;
}

/* The layout read answered: on to the queue, a retry, or the end. */
static void layout_answered(zkc__asem_t *r) {
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
    r->st = S_QUEUE;
  } else if (zkc__retryable(rc) &&
             (rc = zkc__retry_delay(c, &r->attempt, rc, r->deadline,
                                    &r->wake_at)) == ZKC_OK) {
    r->st = S_BACKOFF;
    r->then = S_LAYOUT;
  } else {
    end(r, rc);
  }
}

static void start_queue(zkc__asem_t *r) {
  zkc_sem_t *s = r->s;
  /* No room is trusted under a shared count (lease_run.h): no read. */
  zkc__qrun_how_t how = {.base = s->locks, .name = ZKC__LOCK_NAME,
                         .deadline = r->deadline, .requeue = 1,
                         .also = s->count_path ? NULL : s->leases,
                         .unproven = 1, .drv = r->drv, .drv_ctx = r->drv_ctx};
  zkc__qrun_init(&r->q, s->client, &how);
  r->q_on = 1;
  r->st = S_QUEUING;
}

static void queue_done(zkc__asem_t *r) {
  int rc = zkc__qrun_result(&r->q, &r->qn);
  r->seen = zkc__qrun_also_seen(&r->q);
  zkc__qrun_clear(&r->q);
  r->q_on = 0;
  if (rc == ZKC_OK && r->stop_rc) rc = r->stop_rc;
  if (rc == ZKC_OK) r->st = S_LEASES;
  else clean(r, rc);
}

static void start_leases(zkc__asem_t *r) {
  int rc = r->lease ? ZKC_OK : ZKC_ENOMEM;
  if (rc == ZKC_OK)
    rc = zkc__sem_leases_init(&r->l, r->s, r->qty, &r->qn, r->seen,
                              r->deadline, r->drv, r->drv_ctx);
  if (rc != ZKC_OK) {
    clean(r, rc);
    return;
  }
  r->l_on = 1;
  r->st = S_LEASING;
}

static void leases_done(zkc__asem_t *r) {
  int gone = 0;
  int rc = zkc__sem_leases_end(&r->l, r->qty, r->lease, &gone);
  r->l_on = 0;
  if (rc == ZKC_OK && r->stop_rc) rc = r->stop_rc;
  if (rc != ZKC_OK) {
    clean(r, rc);
    return;
  }
  /* Let go behind the leases' round, or now, not waited for: the
   * admission rests on the leases read. */
  if (!gone) (void)zkc__lock_delete_sent(r->s->client, r->qn.node);
  free(r->qn.node);
  r->qn.node = NULL;
  atomic_store(&r->s->layout_known, 1);
  end(r, ZKC_OK);
}

static int dels_pending(const zkc__asem_t *r) {
  for (int i = 0; i < r->ndel; i++)
    if (r->dels[i].op && !zkc__op_done(r->dels[i].op)) return 1;
  return 0;
}

static zkc__qneed_t a_step(void *run) {
  zkc__asem_t *r = run;
  zkc_client_t *c = r->s->client;
  zkc__qneed_t n;
  for (;;) {
    if (r->stop_rc && (r->st == S_LAYOUT || r->st == S_BACKOFF ||
                       r->st == S_CONNECT || r->st == S_QUEUE)) {
      end(r, r->stop_rc); /* nothing of ours made */
      continue;
    }
    switch (r->st) {
      case S_LAYOUT:
        r->before = ZKC_LAYOUT_SEMAPHORE;
        if (atomic_load(&r->s->layout_known)) {
          r->st = S_QUEUE;
        } else if ((r->op = op_new(r)) == NULL) {
          end(r, ZKC_ENOMEM);
        } else {
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
        if (zkc__session_live(c)) r->st = r->then;
        else if (zkc__client_closed(c)) end(r, ZKC_ECLOSED);
        else if (zkc__now_ms() >= r->deadline) end(r, ZKC_ETIMEDOUT);
        else return ZKC__QN_SESSION;
        break;
      case S_QUEUE: start_queue(r); break;
      case S_QUEUING:
        if ((n = zkc__qrun_calls.step(&r->q)) != ZKC__QN_DONE) return n;
        queue_done(r);
        break;
      case S_LEASES:
        if (r->stop_rc) clean(r, r->stop_rc);
        else start_leases(r);
        break;
      case S_LEASING:
        if ((n = zkc__sem_lease_calls.step(&r->l)) != ZKC__QN_DONE) return n;
        leases_done(r);
        break;
      case S_CLEAN: send_deletes(r); break;
      case S_CLEANING:
        if (dels_pending(r)) return ZKC__QN_REPLY;
        deletes_answered(r);
        break;
      case S_DONE: return ZKC__QN_DONE;
    }
  }
}

static int a_ops(void *run, zkc__op_t **ops) {
  zkc__asem_t *r = run;
  if (r->q_on) return zkc__qrun_calls.ops(&r->q, ops);
  if (r->l_on) return zkc__sem_lease_calls.ops(&r->l, ops);
  int n = 0;
  if (r->st == S_LAYING && r->op) ops[n++] = r->op;
  if (r->st == S_CLEANING) /* the last sent first (zkc__qrun_ops) */
    for (int i = r->ndel - 1; i >= 0; i--)
      if (r->dels[i].op) ops[n++] = r->dels[i].op;
  return n;
}

static void a_give_up(void *run) {
  zkc__asem_t *r = run;
  if (r->q_on) {
    zkc__qrun_calls.give_up(&r->q);
  } else if (r->l_on) {
    zkc__sem_lease_calls.give_up(&r->l);
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

static zkc__waiter_t *a_waiter(void *run) {
  zkc__asem_t *r = run;
  if (r->q_on) return zkc__qrun_calls.waiter(&r->q);
  return r->l_on ? zkc__sem_lease_calls.waiter(&r->l) : NULL;
}

static void a_woken(void *run, zkc__wake_t why) {
  zkc__asem_t *r = run;
  if (r->q_on) zkc__qrun_calls.woken(&r->q, why);
  else if (r->l_on) zkc__sem_lease_calls.woken(&r->l, why);
}

static int64_t a_wake_at(const void *run) {
  const zkc__asem_t *r = run;
  if (r->q_on) return zkc__qrun_calls.wake_at(&r->q);
  if (r->l_on) return zkc__sem_lease_calls.wake_at(&r->l);
  return r->wake_at;
}

static void a_stop(void *run, int rc) {
  zkc__asem_t *r = run;
  if (rc == ZKC_OK) return;
  if (r->stop_rc == 0) r->stop_rc = rc;
  if (r->q_on) zkc__qrun_calls.stop(&r->q, rc);
  else if (r->l_on) zkc__sem_lease_calls.stop(&r->l, rc);
  else if (r->st == S_DONE && r->rc == ZKC_OK && r->lease) clean(r, rc);
}

const zkc__run_calls_t zkc__asem_calls = {a_step,   a_ops,   a_give_up,
                                          a_waiter, a_woken, a_wake_at,
                                          a_stop};

int zkc__asem_result(zkc__asem_t *r, zkc_lease_t **out) {
  if (r->rc == ZKC_OK && out) {
    *out = r->lease;
    r->lease = NULL;
  }
  return r->rc;
}

void zkc__asem_refuse(zkc__asem_t *r, zkc_lease_t *l, int rc) {
  r->lease = l;
  if (rc != ZKC_ELOST && r->stop_rc == 0) r->stop_rc = rc;
  clean(r, rc);
}

void zkc__asem_free(zkc__asem_t *r) {
  if (r == NULL) return;
  zkc_client_t *c = r->s->client;
  if (r->q_on) zkc__qrun_clear(&r->q); /* gives its node up */
  if (r->l_on) {
    int gone = 0;
    (void)zkc__sem_leases_end(&r->l, r->qty, r->lease, &gone);
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
