/* The async acquire's engine: each pending acquire is a state machine over
 * the mutex's queue protocol (protected node, pipelined children read,
 * watch on the predecessor, a fresh read before every grant), stepped by
 * one engine thread per context whenever a request completes or a watch
 * fires. No thread per waiter. A release's delete is stepped here too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "async_int.h"

#include "decide.h"
#include "names.h"
#include "session.h"
#include "util.h"

#define POLL_MS 100 /* state the engine is not told of (connection, deadlines) */

void zkc__async_append_locked(zkc_async_t *a, acq_t *q) {
  q->next = NULL;
  *a->acqs_tail = q;
  a->acqs_tail = &q->next;
}

/* ---- requests, each telling the engine when done ---- */

static int op_start(zkc_async_t *a, zkc__op_t **op) {
  if ((*op = zkc__op_new()) == NULL) return ZKC_ENOMEM;
  (*op)->notify = zkc__async_op_done;
  (*op)->notify_ctx = a;
  pthread_mutex_lock(&a->mu);
  a->inflight++;
  pthread_mutex_unlock(&a->mu);
  return ZKC_OK;
}

/* Frees a finished request. */
static void op_end(zkc__op_t **op) {
  zkc__op_free(*op);
  *op = NULL;
}

/* Gives up a request still in flight at the limit: its completion frees
 * it and tells nobody, so it no longer counts as in flight. */
static void op_drop(zkc_async_t *a, zkc__op_t **op) {
  if (*op == NULL) return;
  if (zkc__op_done(*op)) {
    op_end(op);
    return;
  }
  zkc__op_give_up(*op);
  *op = NULL;
  pthread_mutex_lock(&a->mu);
  a->inflight--;
  pthread_mutex_unlock(&a->mu);
}

static int submit_list(zkc_async_t *a, acq_t *q) {
  op_end(&q->list);
  int rc = op_start(a, &q->list);
  if (rc == ZKC_OK) {
    q->proof = zkc__boot_ms();
    zkc__submit_children(a->c, q->list, q->base);
  }
  return rc;
}

static void unwatch(zkc_async_t *a, acq_t *q, int remove) {
  if (!q->w_reg) return;
  if (remove) zkc__waiter_unwatch(a->c, &q->w);
  zkc__waiter_unregister(a->c, &q->w);
  q->w_reg = 0;
  free(q->pred);
  q->pred = NULL;
}

/* ---- results ---- */

/* Fixes the result unless a cancel fixed it first; 0 if it was. */
static int decide(zkc_async_t *a, acq_t *q, int rc) {
  pthread_mutex_lock(&a->mu);
  int mine = !q->decided;
  if (mine) {
    q->decided = 1;
    q->rc = rc;
  }
  pthread_mutex_unlock(&a->mu);
  return mine;
}

static void post(zkc_async_t *a, const zkc__event_cb_t *ev) {
  pthread_mutex_lock(&a->mu);
  int rc = zkc__async_post_locked(a, ev);
  pthread_mutex_unlock(&a->mu);
  if (rc != ZKC_OK)
    zkc__log(a->c, ZKC_LOG_ERROR, "out of memory: an async callback is lost");
}

static void deliver(zkc_async_t *a, acq_t *q, zkc_hold_t *hold) {
  zkc__event_cb_t ev = {.rc = q->rc, .ctx = q->ctx};
  if (q->fn) {
    ev.kind = EV_ACQUIRED;
    ev.acquired = q->fn;
    ev.hold = hold;
  } else if (q->released) {
    ev.kind = EV_RELEASED;
    ev.released = q->released;
  } else {
    q->st = S_DONE;
    return;
  }
  post(a, &ev);
  q->st = S_DONE;
}

/* Ends with q->rc: our node (if any) is deleted first, also one whose
 * create was answered but not looked at yet. */
static void finish(zkc_async_t *a, acq_t *q) {
  unwatch(a, q, 1);
  op_end(&q->list);
  if (q->st == S_CREATING && q->op != NULL) {
    int rc = q->op->rc;
    q->node = q->op->created, q->op->created = NULL;
    if (q->node == NULL && (zkc__retryable(rc) || rc == ZKC_ESESSIONEXPIRED ||
                            rc == ZKC_ENOMEM))
      zkc__janitor_add(a->c, q->base, q->uuid); /* applied or not */
  }
  op_end(&q->op);
  if (q->node && !zkc__client_closed(a->c) &&
      op_start(a, &q->op) == ZKC_OK) {
    zkc__submit_delete(a->c, q->op, q->node);
    q->st = S_REMOVING;
    return;
  }
  if (q->node) zkc__janitor_add(a->c, q->node, NULL);
  deliver(a, q, NULL);
}

/* Ends with rc, or with the code of a cancel that came first. */
static void fail(zkc_async_t *a, acq_t *q, int rc) {
  decide(a, q, rc);
  finish(a, q);
}

/* Our node went with a lost session, or was deleted: queue again at the
 * back once a session is up; the deadline still holds. */
static void requeue(zkc_async_t *a, acq_t *q) {
  unwatch(a, q, 0);
  op_end(&q->list);
  if (q->node) zkc__janitor_add(a->c, q->node, NULL);
  free(q->node);
  q->node = NULL;
  zkc__log(a->c, ZKC_LOG_INFO, "lock %s: node lost while waiting (async), "
                               "queueing again", q->base);
  q->st = S_START;
}

static void backoff(zkc_async_t *a, acq_t *q) {
  q->wake_at = zkc__now_ms() + zkc__background_backoff_ms(&q->retries);
  (void)a;
  q->st = S_BACKOFF;
}


/* seq: a->state_seq when the session was seen live for this grant. */
static void grant(zkc_async_t *a, acq_t *q, uint64_t seq) {
  zkc_hold_t *h = calloc(1, sizeof *h);
  if (h == NULL) {
    fail(a, q, ZKC_ENOMEM);
    return;
  }
  h->a = a;
  h->held.node = q->node;
  h->held.token = q->stat.czxid;
  h->held.session_id = q->stat.ephemeral_owner;
  if (zkc__guard_add(a->c, q->node, h->held.session_id, zkc__async_on_node_gone, a,
                     &h->guard) != ZKC_OK) {
    free(h);
    fail(a, q, ZKC_ENOMEM);
    return;
  }
  pthread_mutex_lock(&a->mu);
  /* A state change since the session was seen live went by this hold
   * (on_state walks only a->holds): look at the session again. */
  int stale = a->state_seq != seq, undecided = !q->decided;
  int mine = undecided && !stale;
  if (mine) {
    q->decided = 1;
    q->rc = ZKC_OK;
    h->next = a->holds;
    a->holds = h;
    a->holds_alive++;
  }
  pthread_mutex_unlock(&a->mu);
  if (stale && undecided) {
    zkc__guard_remove(a->c, h->guard);
    free(h);
    q->st = S_DOUBT; /* read the queue again once connected */
    return;
  }
  if (!mine) { /* cancelled just before the grant */
    zkc__guard_remove(a->c, h->guard);
    free(h);
    finish(a, q);
    return;
  }
  q->node = NULL; /* the hold's now */
  deliver(a, q, h);
}

/* ---- the state machine ---- */

static void start(zkc_async_t *a, acq_t *q) {
  zkc_client_t *c = a->c;
  if (!zkc__session_live(c)) {
    if (zkc__now_ms() >= q->deadline) fail(a, q, ZKC_ETIMEDOUT);
    return;
  }
  int rc = zkc__uuid_new(q->uuid);
  char prefix[ZKC__PATH_MAX + 64];
  snprintf(prefix, sizeof prefix, "%s/" ZKC__PROTECTED_PREFIX "%s-" ZKC__LOCK_NAME,
           q->base, q->uuid);
  if (rc == ZKC_OK) rc = op_start(a, &q->op);
  if (rc != ZKC_OK) {
    fail(a, q, rc);
    return;
  }
  const char *data = zkc__holder_id(c);
  zkc__submit_create(c, q->op, ZKC_NODE_PARTICIPANT, prefix, data,
                     (int)strlen(data), ZKC__CREATE_EPHEMERAL_SEQUENTIAL);
  q->st = S_CREATING;
  submit_list(a, q); /* a read not started is seen by eval */
}

static void eval(zkc_async_t *a, acq_t *q);
static void relist(zkc_async_t *a, acq_t *q);

static void created(zkc_async_t *a, acq_t *q) {
  int rc = q->op->rc;
  q->stat = q->op->stat;
  q->node = q->op->created, q->op->created = NULL;
  op_end(&q->op);
  if (rc == ZKC_OK && q->stat.ephemeral_owner != zkc__session_id(a->c)) {
    requeue(a, q); /* created by a session already replaced */
    return;
  }
  if (rc == ZKC_OK) {
    eval(a, q);
    return;
  }
  op_end(&q->list);
  if (q->node) { /* created, but cannot go on (out of memory) */
    fail(a, q, rc);
    return;
  }
  if (rc == ZKC_ENONODE && q->parents++ < ZKC__PARENT_RECREATE_MAX) {
    /* a missing parent: made on the engine, a few round trips, rare */
    rc = zkc__ensure_path(a->c, q->base);
    if (rc == ZKC_OK) {
      q->st = S_START;
      return;
    }
  }
  if (zkc__retryable(rc) || rc == ZKC_ESESSIONEXPIRED) {
    /* the create may have been applied: delete it by its uuid, try anew */
    zkc__janitor_add(a->c, q->base, q->uuid);
    backoff(a, q);
    q->node = NULL;
    return;
  }
  /* Out of memory for the answer: the node may exist; its uuid finds it. */
  if (rc == ZKC_ENOMEM) zkc__janitor_add(a->c, q->base, q->uuid);
  fail(a, q, rc == ZKC_ENONODE ? ZKC_ENOROOT : rc);
}

/* A children read is in q->list: first, wait, or read again. */
static void eval(zkc_async_t *a, acq_t *q) {
  if (q->list == NULL) { /* the read could not even be started */
    fail(a, q, ZKC_ESYSTEM);
    return;
  }
  int rc = q->list->rc;
  if (rc != ZKC_OK) {
    op_end(&q->list);
    if (zkc__retryable(rc)) backoff(a, q);
    else if (rc == ZKC_ESESSIONEXPIRED) requeue(a, q);
    else fail(a, q, rc);
    return;
  }
  q->retries = 0;
  zkc__q_decision_t d;
  rc = zkc__queue_decide(q->list->children.data,
                         (size_t)q->list->children.count,
                         zkc__basename(q->node), 0, &d);
  if (rc != ZKC_OK) {
    fail(a, q, rc);
    return;
  }
  char *pred = d.verdict == ZKC__Q_WAIT ? zkc__path_join(q->base, d.blocker)
                                        : NULL;
  op_end(&q->list); /* no copy of the queue kept while waiting */
  if (d.verdict == ZKC__Q_GONE) {
    requeue(a, q);
    return;
  }
  if (d.verdict == ZKC__Q_FIRST) {
    pthread_mutex_lock(&a->mu);
    uint64_t seq = a->state_seq;
    pthread_mutex_unlock(&a->mu);
    switch (zkc__session_fate(a->c, q->stat.ephemeral_owner)) {
      case ZKC__SESSION_LIVE:
        /* A read answer that waited out a stall of this process proves
         * nothing about the session now (zkc__grant_fresh): read again. */
        if (zkc__grant_fresh(a->c, q->proof)) grant(a, q, seq);
        else relist(a, q);
        return;
      case ZKC__SESSION_GONE: requeue(a, q); return;
      default: q->st = S_DOUBT; return;
    }
  }
  if (pred == NULL) {
    fail(a, q, ZKC_ENOMEM);
    return;
  }
  if (zkc__now_ms() >= q->deadline) {
    free(pred);
    fail(a, q, ZKC_ETIMEDOUT);
    return;
  }
  q->pred = pred;
  rc = zkc__waiter_register_polled(a->c, &q->w, q->pred, zkc__async_kick, a);
  if (rc == ZKC_OK) q->w_reg = 1;
  if (rc == ZKC_OK) rc = op_start(a, &q->op);
  if (rc != ZKC_OK) {
    fail(a, q, rc);
    return;
  }
  zkc__submit_watch(a->c, q->op, q->pred, q->w.id);
  q->st = S_WATCHING;
}

static void relist(zkc_async_t *a, acq_t *q) {
  if (zkc__session_fate(a->c, q->stat.ephemeral_owner) == ZKC__SESSION_GONE) {
    requeue(a, q);
    return;
  }
  int rc = submit_list(a, q);
  if (rc != ZKC_OK) fail(a, q, rc);
  else q->st = S_LISTING;
}

static void watched(zkc_async_t *a, acq_t *q) {
  int rc = q->op->rc;
  op_end(&q->op);
  if (rc == ZKC_OK) {
    q->st = S_WAITING;
    return;
  }
  unwatch(a, q, 0);
  if (rc == ZKC_ENONODE) relist(a, q);
  else if (zkc__retryable(rc)) backoff(a, q);
  else if (rc == ZKC_ESESSIONEXPIRED) requeue(a, q);
  else fail(a, q, rc);
}

static void waiting(zkc_async_t *a, acq_t *q) {
  zkc__wake_t why;
  if (!zkc__waiter_check(a->c, &q->w, &why)) {
    if (zkc__now_ms() >= q->deadline) fail(a, q, ZKC_ETIMEDOUT);
    return;
  }
  if (why == ZKC__WAKE_CLOSED) {
    fail(a, q, ZKC_ECLOSED);
    return;
  }
  unwatch(a, q, 0);
  if (why == ZKC__WAKE_LOST) requeue(a, q);
  else relist(a, q);
}

static void removed(zkc_async_t *a, acq_t *q) {
  zkc__guard_remove(a->c, q->guard); /* 0: none */
  q->guard = 0;
  int rc = q->op->rc;
  op_end(&q->op);
  if (zkc__retryable(rc) || rc == ZKC_ESESSIONEXPIRED) {
    zkc__janitor_add(a->c, q->node, NULL);
    rc = ZKC_OK;
  }
  if (q->fn) { /* an acquire's own node: a refusal beats its failure code */
    if (rc != ZKC_OK && rc != ZKC_ENONODE && rc != ZKC_ECLOSED &&
        q->rc != ZKC_ECANCELED)
      q->rc = rc;
  } else if (q->rc == ZKC_OK) { /* a release */
    q->rc = rc == ZKC_ENONODE ? ZKC_ELOST : rc;
  }
  free(q->node);
  q->node = NULL;
  deliver(a, q, NULL);
}

/* An acquire whose requests are still unanswered at its limit (its
 * deadline and a grace: a silent ensemble) ends now, with the result
 * decided (ETIMEDOUT unless a cancel came first): what it had in flight is
 * given up, and its node, made or perhaps being made, is deleted in the
 * background (by its uuid when the create is unanswered). */
static void give_up(zkc_async_t *a, acq_t *q) {
  int creating = q->st == S_CREATING && q->op != NULL && q->node == NULL;
  op_drop(a, &q->op);
  op_drop(a, &q->list);
  unwatch(a, q, 1);
  if (creating) zkc__janitor_add(a->c, q->base, q->uuid);
  if (q->node) zkc__janitor_add(a->c, q->node, NULL);
  free(q->node);
  q->node = NULL;
  decide(a, q, ZKC_ETIMEDOUT);
  deliver(a, q, NULL);
}

/* One step of q; requests in flight are awaited first, an acquire's no
 * longer than its limit. */
static void step(zkc_async_t *a, acq_t *q, int64_t *next_wake) {
  int in_flight = (q->op != NULL && !zkc__op_done(q->op)) ||
                (q->list != NULL && !zkc__op_done(q->list));
  if (in_flight) {
    int64_t limit = zkc__limit_after(q->deadline);
    if (q->fn != NULL && zkc__now_ms() >= limit) give_up(a, q);
    else if (q->fn != NULL && limit < *next_wake) *next_wake = limit;
    return;
  }
  pthread_mutex_lock(&a->mu);
  int stop = q->decided && q->st != S_REMOVING && q->st != S_DONE;
  pthread_mutex_unlock(&a->mu);
  if (stop) { /* cancelled or closed from outside */
    finish(a, q);
    return;
  }
  if (q->st != S_REMOVING && q->st != S_DONE && zkc__client_closed(a->c)) {
    fail(a, q, ZKC_ECLOSED);
    return;
  }
  switch (q->st) {
    case S_START: start(a, q); break;
    case S_CREATING: created(a, q); break;
    case S_LISTING: eval(a, q); break;
    case S_WATCHING: watched(a, q); break;
    case S_WAITING: waiting(a, q); break;
    case S_BACKOFF:
      if (zkc__now_ms() >= q->deadline) fail(a, q, ZKC_ETIMEDOUT);
      else if (zkc__now_ms() < q->wake_at) {
        if (q->wake_at < *next_wake) *next_wake = q->wake_at;
      } else if (q->node) relist(a, q);
      else q->st = S_START;
      break;
    case S_DOUBT:
      if (zkc__session_live(a->c)) relist(a, q);
      else if (zkc__now_ms() >= q->deadline) fail(a, q, ZKC_ETIMEDOUT);
      break;
    case S_REMOVING: removed(a, q); break;
    case S_DONE: break;
  }
}

void zkc__async_acq_free(acq_t *q) {
  free(q->base);
  free(q->node);
  free(q->pred);
  free(q);
}

/* Steps every entry; the finished ones leave the list (only here). */
static void step_all(zkc_async_t *a, int64_t *next_wake) {
  pthread_mutex_lock(&a->mu);
  acq_t *q = a->acqs;
  pthread_mutex_unlock(&a->mu);
  while (q) {
    step(a, q, next_wake);
    pthread_mutex_lock(&a->mu);
    acq_t *next = q->next;
    if (q->st == S_DONE) {
      acq_t **pp = &a->acqs;
      while (*pp != q) pp = &(*pp)->next;
      *pp = q->next;
      if (a->acqs_tail == &q->next) a->acqs_tail = pp;
    } else {
      q = NULL;
    }
    pthread_mutex_unlock(&a->mu);
    if (q) zkc__async_acq_free(q);
    q = next;
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
    int done = a->stopping && a->acqs == NULL && a->inflight == 0;
    int busy = a->acqs != NULL;
    pthread_mutex_unlock(&a->mu);
    if (done) break;
    next_wake = busy ? zkc__now_ms() + POLL_MS : ZKC__FOREVER;
    step_all(a, &next_wake);
    if (a->fd < 0) zkc__async_run_events(a);
    pthread_mutex_lock(&a->mu);
    if (a->stopping) next_wake = zkc__now_ms() + 10;
    pthread_mutex_unlock(&a->mu);
  }
  if (a->fd < 0) zkc__async_run_events(a);
  return NULL;
}

/* Takes h out of the held list and queues the delete of its node. */
int zkc__async_release(zkc_async_t *a, zkc_hold_t *h, zkc_released_fn done,
                       void *ctx) {
  acq_t *q = calloc(1, sizeof *q);
  if (q == NULL) return ZKC_ENOMEM;
  pthread_mutex_lock(&a->mu);
  if (h->released) {
    pthread_mutex_unlock(&a->mu);
    free(q);
    return ZKC_ENOTOWNER;
  }
  h->released = 1;
  zkc_hold_t **pp = &a->holds;
  while (*pp != h) pp = &(*pp)->next;
  *pp = h->next;
  q->node = h->held.node;
  h->held.node = NULL;
  q->released = done;
  q->ctx = ctx;
  q->decided = 1;
  q->rc = h->lost ? ZKC_ELOST : ZKC_OK;
  q->st = S_REMOVING; /* stepped: finish() below starts the delete */
  q->id = 0;
  /* The hold is off a->holds: its guard, should it fire on our own delete,
   * finds nothing to tell. The engine removes it (see removed()), so this
   * call never waits on a guard's check, which may take a round trip. */
  q->guard = h->guard;
  h->guard = 0;
  pthread_mutex_unlock(&a->mu);
  /* start the delete from here: it never waits for the network */
  if (zkc__client_closed(a->c)) {
    zkc__guard_remove(a->c, q->guard);
    q->rc = ZKC_ECLOSED;
    free(q->node);
    q->node = NULL;
    q->st = S_DONE;
    if (done) {
      zkc__event_cb_t ev = {.kind = EV_RELEASED, .released = done, .ctx = ctx,
                            .rc = ZKC_ECLOSED};
      post(a, &ev);
    }
    free(q);
    return ZKC_OK;
  }
  if (op_start(a, &q->op) != ZKC_OK) {
    zkc__janitor_add(a->c, q->node, NULL); /* still deleted, untold */
  } else {
    zkc__submit_delete(a->c, q->op, q->node);
  }
  pthread_mutex_lock(&a->mu);
  zkc__async_append_locked(a, q);
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return ZKC_OK;
}
