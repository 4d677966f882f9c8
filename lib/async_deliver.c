/* SPDX-License-Identifier: Apache-2.0 */
/* The async context's callback queue: callbacks are queued by the engine
 * and the maintenance thread and run either by the engine or by the
 * application's zkc_async_dispatch, whose descriptor (an eventfd) is
 * readable while the queue is not empty. */
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "async_int.h"
#include "hold_notice.h"
#include "util.h"
#include "zkcoord/common.h"

static void run_one(zkc_async_t *a, const zkc__event_cb_t *e) {
  switch (e->kind) {
    case EV_ACQUIRED: e->acquired(e->ctx, e->rc, e->hold); break;
    case EV_RELEASED: e->released(e->ctx, e->rc); break;
    case EV_LOST: /* the hold's notice, then the context's callback */
      zkc__hold_notice_tell(a, e->why, e->token);
      if (e->lost) e->lost(e->ctx, e->why, e->token);
      break;
    case EV_STATE: e->state_fn(e->ctx, e->state); break;
  }
}

int zkc__async_run_events(zkc_async_t *a) {
  pthread_mutex_lock(&a->mu);
  zkc__event_cb_t *list = a->events;
  a->events = NULL;
  a->events_tail = &a->events;
  if (a->fd >= 0) { /* drained: readable again only for later callbacks */
    uint64_t n;
    ssize_t r = read(a->fd, &n, sizeof n); /* EAGAIN when already empty */
    (void)r;
  }
  pthread_mutex_unlock(&a->mu);
  int ran = 0;
  zkc__dispatch_enter();
  while (list) {
    zkc__event_cb_t *e = list;
    list = e->next;
    run_one(a, e);
    free(e);
    ran++;
  }
  zkc__dispatch_leave();
  return ran;
}

void zkc__async_op_done(void *ctx) {
  zkc_async_t *a = ctx;
  pthread_mutex_lock(&a->mu);
  a->inflight--;
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

void zkc__async_kick(void *ctx) {
  zkc_async_t *a = ctx;
  pthread_mutex_lock(&a->mu);
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
}
