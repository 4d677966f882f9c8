/* SPDX-License-Identifier: Apache-2.0 */
/* The async context's inner parts shared by its files: the context and its
 * pending acquires (async.c, the public calls), the engine stepping them
 * (async_engine.c), the hold handles (async_hold.c), their losses
 * (async_loss.c) and the callback queue (async_deliver.c). */
#ifndef ZKC_ASYNC_INT_H
#define ZKC_ASYNC_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "run_kernel.h"
#include "hold_fate.h"
#include "hold_view.h"
#include "qengine.h"
#include "session.h"
#include "stats.h"
#include "zkcoord/async.h"
#include "zkcoord/lease.h"

/* One queued callback. */
typedef struct zkc__event_cb {
  enum { EV_ACQUIRED, EV_RELEASED, EV_LOST, EV_STATE } kind;
  int rc;
  zkc_hold_t *hold;          /* EV_ACQUIRED */
  zkc_acquired_fn acquired;  /* EV_ACQUIRED */
  zkc_released_fn released;  /* EV_RELEASED */
  zkc_hold_lost_fn lost;     /* EV_LOST */
  zkc_lost_reason_t why;     /* EV_LOST */
  int64_t token;             /* EV_LOST */
  zkc_async_state_fn state_fn; /* EV_STATE */
  zkc_state_t state;         /* EV_STATE */
  void *ctx;
  struct zkc__event_cb *next;
} zkc__event_cb_t;

struct zkc_hold {
  zkc__hold_head_t head; /* first; its kind NULL (calloc): an async hold */
  zkc_async_t *a;
  zkc__held_t held; /* a set's: node holds its nodes joined with '\n' */
  zkc__hold_rec_t rec; /* its standing: in doubt, lost, told */
  uint64_t guard; /* the watch on our own node */
  /* A semaphore's lease set (NULL: a lock's): its nodes and their watches
   * (lease->guards), counted by its semaphore until released. */
  zkc_lease_t *lease;
  int released;
  unsigned char reader; /* a read side's: no fenced write */
  zkc__lstats_t *st;  /* its path's stats record (NULL: none) */
  int64_t granted_us; /* when it was granted (stats) */
  struct zkc_hold *next; /* in a->holds while not released */
};

/* One node of a hold being released: its delete (NULL: handed to the
 * janitor) and the hold's watch on it, removed by the engine (removing it
 * may wait for a guard's check). */
typedef struct zkc__rm {
  char *node;
  zkc__op_t *op;
  uint64_t guard;
} zkc__rm_t;

/* A pending acquire (a run driven by the engine through its calls: a
 * lock's through the queue, or a semaphore's) or a release's delete; each
 * ends with one callback. Kept small: one lives per pending acquire. The
 * flags are bytes, not bits: they are written by different threads. */
typedef struct acq {
  uint64_t id;
  zkc_acquired_fn fn; /* an acquire's (NULL: a release's deletes) */
  const zkc__run_calls_t *calls; /* an acquire's run and how it is */
  void *run;                     /* stepped: &run (a lock's) or sem */
  struct zkc__srun *sem;         /* a semaphore's run (sem_run.h) */
  zkc_sem_t *sem_obj;            /* ... and its semaphore */
  int64_t deadline;              /* an acquire's */
  zkc_released_fn released;
  void *ctx;
  int rc;                  /* the result, once decided */
  unsigned char finished;  /* told (or nobody to tell): leaves the list */
  unsigned char decided;   /* the result is fixed: cancel says ZKC_EALREADY */
  unsigned char stop_told; /* a result decided from outside was passed to
                              the run */
  union {
    zkc__qrun_t qrun; /* a lock's; it owns qrun.base (the lock's path) */
    struct {         /* a release's: one delete per node of the hold */
      zkc__rm_t *rm;
      size_t nrm;
    };
  };
  struct zkc_async *a;
  zkc__lstats_t *st;  /* an acquire's: its path's stats record */
  int64_t began_us;   /* ... when it was asked for */
  int64_t woken_us;   /* ... when its watch last fired (0: never) */
  struct acq *next, *prev;  /* in a->acqs */
  struct acq *ready_next;   /* in a->ready while `ready` */
  unsigned char ready;
} acq_t;

struct zkc_async {
  zkc_client_t *c;
  zkc_async_opts_t opts;
  pthread_mutex_t mu; /* guards everything below */
  pthread_cond_t cv;  /* the engine's wake-up */
  int kicked;         /* something happened since the engine last looked */
  uint64_t state_seq; /* state changes seen: a grant decided across one is
                         looked at again (its hold could miss the loss) */
  int stopping;       /* destroy: finish everything, then stop */
  pthread_t engine;
  struct acq *acqs;   /* pending acquires and deletes, oldest first (the
                         engine removes; creates go out in this order) */
  struct acq **acqs_tail;
  struct acq *acqs_last;
  /* The entries to step at the next look (FIFO): a woken waiter's, a new
   * one, and every one with requests in flight (their completions tell
   * the context, not the entry). The others (waiting on a watch, a
   * connection or a time) are stepped when told, or by a sweep. */
  struct acq *ready, **ready_tail;
  int sweep;          /* step every entry at the next look */
  uint64_t next_id;
  zkc_hold_t *holds;  /* granted, not released */
  int holds_alive;    /* not freed yet */
  /* Released in doubt, their loss not told (hold_fate.h): kept until
   * their session's fate is known (async_loss.c), cleared at destroy. */
  zkc__released_list_t released;
  zkc__event_cb_t *events, **events_tail;
  int fd;             /* dispatch mode: eventfd, else -1 */
  int inflight;       /* requests whose completion has not told us yet */
};

/* ---- the engine (async_engine.c) ---- */

/* The engine thread's body (arg: the context). */
void *zkc__async_engine(void *arg);
/* Prepares an acquire's run on `base` (taken: freed with q) until
 * `deadline`: a lock's, or a read-write lock's side (zkc__side_t). */
void zkc__async_acq_init(zkc_async_t *a, acq_t *q, char *base, int side,
                         int64_t deadline);
/* Prepares a semaphore's acquire of qty leases of s until `deadline`:
 * ZKC_OK or ZKC_ENOMEM. */
int zkc__async_sem_init(zkc_async_t *a, acq_t *q, zkc_sem_t *s, unsigned qty,
                        int64_t deadline);
/* Appends q to the pending list; caller holds a->mu. */
void zkc__async_append_locked(zkc_async_t *a, acq_t *q);
/* Puts q on the list of entries to step next (a->mu held). */
void zkc__async_ready_locked(zkc_async_t *a, acq_t *q);
void zkc__async_acq_free(acq_t *q);
/* An acquire's entry is one of these (its run set up). */
static inline int zkc__async_is_acquire(const acq_t *q) {
  return q->fn != NULL;
}
/* Takes h out of the held list and queues the delete of its nodes (never
 * waits for the network); a hold whose session is not proven live leaves
 * its node to the janitor, tells done ZKC_ECONNLOSS or ZKC_ELOST and is
 * kept in a->released. ZKC_OK, ZKC_ENOTOWNER (released already) or
 * ZKC_ENOMEM. */
int zkc__async_release(zkc_async_t *a, zkc_hold_t *h, zkc_released_fn done,
                       void *ctx);

/* ---- losses (async_loss.c), told on the maintenance thread ---- */

/* The context's client observer. */
void zkc__async_on_state(void *ctx, zkc_state_t st, int64_t lost_session);
/* The guard of a hold's own node: deleted by another client. */
void zkc__async_on_node_gone(void *ctx, uint64_t guard);

/* ---- the callback queue (async_deliver.c) ---- */

/* Queues a callback (copied; ZKC_ENOMEM when it cannot be); caller holds
 * a->mu. In dispatch mode the descriptor becomes readable. Inline: the
 * engine and the losses both post, neither through the other. */
static inline int zkc__async_post_locked(zkc_async_t *a,
                                         const zkc__event_cb_t *ev) {
  zkc__event_cb_t *e = malloc(sizeof *e);
  if (e == NULL) return ZKC_ENOMEM;
  *e = *ev;
  e->next = NULL;
  *a->events_tail = e;
  a->events_tail = &e->next;
  if (a->fd >= 0) {
    uint64_t one = 1;
    ssize_t n = write(a->fd, &one, sizeof one); /* only fails when saturated */
    (void)n;
  } else {
    a->kicked = 1;
    pthread_cond_signal(&a->cv);
  }
  return ZKC_OK;
}
/* Runs the queued callbacks on this thread, as a callback thread; returns
 * how many ran. Caller does not hold a->mu. */
int zkc__async_run_events(zkc_async_t *a);
/* Wakes the engine (a waiter's notify). */
void zkc__async_kick(void *a);
/* A request of the engine completed (an op's notify). */
void zkc__async_op_done(void *a);

#endif /* ZKC_ASYNC_INT_H */
