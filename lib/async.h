/* The async context's inner parts shared by its files: the context, its
 * callback queue (async_deliver.c) and the engine stepping pending
 * acquires (async.c). */
#ifndef ZKC_ASYNC_INT_H
#define ZKC_ASYNC_INT_H

#include <pthread.h>
#include <stdint.h>

#include "queue.h"
#include "zkcoord/async.h"

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
  zkc_async_t *a;
  zkc__held_t held;
  uint64_t guard; /* the watch on our own node */
  int released;
  int lost;
  struct zkc_hold *next; /* in a->holds while not released */
};

struct acq;

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
  uint64_t next_id;
  zkc_hold_t *holds;  /* granted, not released */
  int holds_alive;    /* not freed yet */
  zkc__event_cb_t *events, **events_tail;
  int fd;             /* dispatch mode: eventfd, else -1 */
  int inflight;       /* requests whose completion has not told us yet */
};

/* Queues a callback (copied; ZKC_ENOMEM when it cannot be); caller holds
 * a->mu. In dispatch mode the descriptor becomes readable. */
int zkc__async_post_locked(zkc_async_t *a, const zkc__event_cb_t *ev);
/* Runs the queued callbacks on this thread, as a callback thread; returns
 * how many ran. Caller does not hold a->mu. */
int zkc__async_run_events(zkc_async_t *a);
/* Wakes the engine (a waiter's notify). */
void zkc__async_kick(void *a);
/* A request of the engine completed (an op's notify). */
void zkc__async_op_done(void *a);

#endif /* ZKC_ASYNC_INT_H */
