/* SPDX-License-Identifier: Apache-2.0 */
/* The process's stall watch (stall.h): one ticking thread, shared by every
 * client of the process, and the rule it feeds. */
#include "stall.h"

#include <pthread.h>

#include "util.h"
#include "zkcoord/common.h"

void zkc__stall_ticked(zkc__stall_t *s, int64_t now) {
  if (s->last_tick != 0 && now - s->last_tick > ZKC__STALL_MS) {
    s->gap_end = now;
    s->gap_len = now - s->last_tick;
    s->gaps++;
  }
  s->last_tick = now;
}

int zkc__stall_spans(const zkc__stall_t *s, int64_t since, int64_t now) {
  if (s->last_tick != 0 && now - s->last_tick > ZKC__STALL_MS) return 1;
  return s->gap_end != 0 && s->gap_end >= since;
}

/* ---- the process's one watch ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv; /* on CLOCK_MONOTONIC, made at the first join */
static int cv_made, users, stopping;
static int draining; /* a close is joining the thread it stopped */
static pthread_t ticker;
static zkc__stall_t watch;

static void *tick_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  while (!stopping) {
    zkc__stall_ticked(&watch, zkc__boot_ms());
    zkc__cond_wait_until(&cv, &mu, zkc__now_ms() + ZKC__STALL_TICK_MS);
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}

int zkc__stall_watch_join(void) {
  pthread_mutex_lock(&mu);
  int rc = ZKC_OK;
  if (!cv_made && zkc__cond_init(&cv) != 0) rc = ZKC_ESYSTEM;
  else cv_made = 1;
  while (rc == ZKC_OK && draining) /* the last close joins its thread */
    zkc__cond_wait_until(&cv, &mu, ZKC__FOREVER);
  if (rc == ZKC_OK && users == 0) {
    stopping = 0;
    /* no gap across a time without clients, and a stall before the
     * thread's first tick is one */
    watch.last_tick = zkc__boot_ms();
    if (pthread_create(&ticker, NULL, tick_main, NULL) != 0) rc = ZKC_ESYSTEM;
  }
  if (rc == ZKC_OK) users++;
  pthread_mutex_unlock(&mu);
  return rc;
}

void zkc__stall_watch_leave(void) {
  pthread_mutex_lock(&mu);
  int last = users == 1;
  if (users > 0) users--;
  if (last) {
    stopping = 1;
    draining = 1;
    pthread_cond_broadcast(&cv);
  }
  pthread_t t = ticker;
  pthread_mutex_unlock(&mu);
  if (!last) return;
  pthread_join(t, NULL);
  pthread_mutex_lock(&mu);
  draining = 0;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
}

int zkc__stalled_since(int64_t since_boot_ms, int64_t *gap_ms) {
  pthread_mutex_lock(&mu);
  int64_t now = zkc__boot_ms();
  int stalled = users > 0 && zkc__stall_spans(&watch, since_boot_ms, now);
  if (gap_ms)
    *gap_ms = watch.last_tick != 0 && now - watch.last_tick > ZKC__STALL_MS
                  ? now - watch.last_tick
                  : watch.gap_len;
  pthread_mutex_unlock(&mu);
  return stalled;
}

uint64_t zkc__stalls_seen(void) {
  pthread_mutex_lock(&mu);
  uint64_t n = watch.gaps;
  pthread_mutex_unlock(&mu);
  return n;
}
