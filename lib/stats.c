/* SPDX-License-Identifier: Apache-2.0 */
/* The stats' records and counts: one record per client, recipe and path,
 * made when an object is created and kept until the client closes; counting
 * is atomic increments only, so it can stay on. The event hook is told as
 * each event is counted. The client's public calls are in stats_client.c,
 * the Prometheus text in stats_prom.c. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "zkcoord/common.h"

struct zkc__hook {
  zkc_event_fn fn;
  void *ctx;
  struct zkc__hook *next; /* in old_hooks */
};

/* Three bounds per decade, 100 us to 1000 s. */
static const int64_t bounds_us[ZKC_STATS_BUCKETS] = {
    100,       250,       500,       1000,       2500,       5000,
    10000,     25000,     50000,     100000,     250000,     500000,
    1000000,   2500000,   5000000,   10000000,   25000000,   50000000,
    100000000, 250000000, 500000000, 1000000000};

static const char *const recipe_names[] = {
    [ZKC_RECIPE_MUTEX] = "mutex",         [ZKC_RECIPE_READ] = "read",
    [ZKC_RECIPE_WRITE] = "write",         [ZKC_RECIPE_SEMAPHORE] = "semaphore",
    [ZKC_RECIPE_MULTILOCK] = "multilock", [ZKC_RECIPE_LATCH] = "latch",
    [ZKC_RECIPE_SELECTOR] = "selector",   [ZKC_RECIPE_ASYNC] = "async"};

const char *zkc_recipe_name(zkc_recipe_t r) {
  return r >= ZKC_RECIPE_MUTEX && r <= ZKC_RECIPE_ASYNC ? recipe_names[r]
                                                        : "unknown";
}

int64_t zkc_stats_bucket_bound_us(size_t i) {
  return i < ZKC_STATS_BUCKETS ? bounds_us[i] : INT64_MAX;
}

int64_t zkc__now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

size_t zkc__stats_bucket(int64_t us) {
  size_t lo = 0, hi = ZKC_STATS_BUCKETS; /* the first bound >= us */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (bounds_us[mid] < us)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void observe(zkc__hist_t *h, int64_t us) {
  if (us < 0) us = 0;
  atomic_fetch_add_explicit(&h->buckets[zkc__stats_bucket(us)], 1,
                            memory_order_relaxed);
  atomic_fetch_add_explicit(&h->sum_us, (uint_fast64_t)us,
                            memory_order_relaxed);
}

static void bump(atomic_uint_fast64_t *n) {
  atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
}

static void gauge(atomic_int_fast64_t *g, int delta) {
  atomic_fetch_add_explicit(g, delta, memory_order_relaxed);
}

/* Tells the client's hook, if any. */
static void tell(zkc__stats_hub_t *hub, const zkc_event_t *ev) {
  zkc__hook_t *h = atomic_load_explicit(&hub->hook, memory_order_acquire);
  if (h != NULL) h->fn(h->ctx, ev);
}

static void tell_record(const zkc__lstats_t *s, zkc_event_t *ev) {
  ev->recipe = s->recipe;
  ev->path = s->path;
  tell(s->hub, ev);
}

int zkc__stats_hub_init(zkc__stats_hub_t *hub) {
  memset(hub, 0, sizeof *hub);
  return pthread_mutex_init(&hub->mu, NULL) == 0 ? ZKC_OK : ZKC_ENOMEM;
}

/* The first record of path (of whichever recipe); caller holds hub->mu. */
static zkc__lstats_t *path_head_locked(zkc__stats_hub_t *hub,
                                       const char *path) {
  zkc__lstats_t *s = NULL;
  HASH_FIND(hh, hub->by_path, path, strlen(path), s);
  return s;
}

/* The record of (recipe, path); caller holds hub->mu. */
static zkc__lstats_t *find_locked(zkc__stats_hub_t *hub,
                                  zkc_recipe_t recipe, const char *path) {
  zkc__lstats_t *s = path_head_locked(hub, path);
  while (s && s->recipe != recipe) s = s->same_path;
  return s;
}

/* Makes s findable: the head of its path's chain, or next in it. 0 when
 * the table could not grow. */
static int index_locked(zkc__stats_hub_t *hub, zkc__lstats_t *s) {
  zkc__lstats_t *head = path_head_locked(hub, s->path);
  if (head != NULL) {
    s->same_path = head->same_path;
    head->same_path = s;
    return 1;
  }
  zkc__hash_oom = 0;
  HASH_ADD_KEYPTR(hh, hub->by_path, s->path, strlen(s->path), s);
  return !zkc__hash_oom;
}

zkc__lstats_t *zkc__stats_find(zkc__stats_hub_t *hub, zkc_recipe_t recipe,
                               const char *path) {
  pthread_mutex_lock(&hub->mu);
  zkc__lstats_t *s = find_locked(hub, recipe, path);
  pthread_mutex_unlock(&hub->mu);
  return s;
}

zkc__lstats_t *zkc__stats_for(zkc__stats_hub_t *hub, zkc_recipe_t recipe,
                              const char *path) {
  pthread_mutex_lock(&hub->mu);
  zkc__lstats_t *s = find_locked(hub, recipe, path);
  if (s == NULL && (s = calloc(1, sizeof *s)) != NULL) {
    s->hub = hub;
    s->recipe = recipe;
    if ((s->path = strdup(path)) == NULL || !index_locked(hub, s)) {
      free(s->path);
      free(s);
      s = NULL;
    } else {
      s->next = hub->records;
      hub->records = s;
    }
  }
  pthread_mutex_unlock(&hub->mu);
  return s;
}

int64_t zkc__stats_begin(zkc__lstats_t *s) {
  if (s) gauge(&s->waiters, 1);
  return zkc__now_us();
}

int64_t zkc__stats_end(zkc__lstats_t *s, int64_t began_us, int rc,
                       int64_t woken_us) {
  int64_t now = zkc__now_us();
  if (s == NULL) return now;
  zkc_event_t ev = {.wait_us = now - began_us, .handoff_us = -1, .rc = rc};
  gauge(&s->waiters, -1);
  if (rc == ZKC_OK) {
    bump(&s->acquires);
    gauge(&s->holds, 1);
    observe(&s->wait, ev.wait_us);
    if (woken_us > 0) {
      ev.handoff_us = now - woken_us;
      observe(&s->handoff, ev.handoff_us);
    }
    ev.type = ZKC_EVENT_ACQUIRED;
  } else if (rc == ZKC_ETIMEDOUT) {
    bump(&s->timeouts);
    ev.type = ZKC_EVENT_TIMED_OUT;
  } else {
    bump(&s->refusals);
    ev.type = ZKC_EVENT_REFUSED;
  }
  tell_record(s, &ev);
  return now;
}

void zkc__stats_released(zkc__lstats_t *s, int64_t granted_us, int rc) {
  if (s == NULL) return;
  zkc_event_t ev = {.type = ZKC_EVENT_RELEASED,
                    .hold_us = zkc__now_us() - granted_us,
                    .handoff_us = -1,
                    .rc = rc};
  bump(&s->releases);
  gauge(&s->holds, -1);
  observe(&s->hold, ev.hold_us);
  tell_record(s, &ev);
}

void zkc__stats_lost(zkc__lstats_t *s, zkc_lost_reason_t why) {
  if (s == NULL || why < ZKC_LOST_SUSPENDED || why > ZKC_LOST_DELETED) return;
  zkc_event_t ev = {.type = ZKC_EVENT_LOST, .handoff_us = -1, .reason = why};
  bump(&s->lost[why]);
  tell_record(s, &ev);
}

void zkc__stats_state_count(zkc__stats_hub_t *hub, zkc_state_t st) {
  if ((int)st >= 0 && (int)st <= ZKC_STATE_CLOSED) bump(&hub->state_counts[st]);
}

void zkc__stats_state_tell(zkc__stats_hub_t *hub, zkc_state_t st) {
  zkc_event_t ev = {.type = ZKC_EVENT_STATE, .handoff_us = -1, .state = st};
  tell(hub, &ev);
}

static void read_hist(const zkc__hist_t *h, zkc_histogram_t *out) {
  out->count = 0;
  for (size_t i = 0; i <= ZKC_STATS_BUCKETS; i++) {
    out->buckets[i] = atomic_load_explicit(&h->buckets[i], memory_order_relaxed);
    out->count += out->buckets[i];
  }
  out->sum_us = atomic_load_explicit(&h->sum_us, memory_order_relaxed);
}

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

void zkc__stats_read(const zkc__lstats_t *s, zkc_lock_stats_t *out) {
  memset(out, 0, sizeof *out);
  out->recipe = s->recipe;
  out->path = s->path;
  out->acquires = LOAD(s->acquires);
  out->timeouts = LOAD(s->timeouts);
  out->refusals = LOAD(s->refusals);
  out->releases = LOAD(s->releases);
  for (int i = 0; i < 4; i++) out->lost[i] = LOAD(s->lost[i]);
  out->holds = LOAD(s->holds);
  out->waiters = LOAD(s->waiters);
  read_hist(&s->wait, &out->wait);
  read_hist(&s->hold, &out->hold);
  read_hist(&s->handoff, &out->handoff);
}

int zkc__stats_copy(const zkc__lstats_t *s, zkc_lock_stats_t *out) {
  if (s == NULL) {
    memset(out, 0, sizeof *out);
    return ZKC_ENOMEM;
  }
  zkc__stats_read(s, out);
  return ZKC_OK;
}

zkc__lstats_t *zkc__stats_records(zkc__stats_hub_t *hub) {
  pthread_mutex_lock(&hub->mu);
  zkc__lstats_t *head = hub->records;
  pthread_mutex_unlock(&hub->mu);
  return head;
}

int zkc__stats_hook_set(zkc__stats_hub_t *hub, zkc_event_fn fn, void *ctx) {
  zkc__hook_t *h = NULL;
  if (fn != NULL) {
    if ((h = calloc(1, sizeof *h)) == NULL) return ZKC_ENOMEM;
    h->fn = fn;
    h->ctx = ctx;
  }
  pthread_mutex_lock(&hub->mu);
  zkc__hook_t *old = atomic_exchange(&hub->hook, h);
  if (old != NULL) {
    old->next = hub->old_hooks;
    hub->old_hooks = old;
  }
  pthread_mutex_unlock(&hub->mu);
  return ZKC_OK;
}

void zkc__stats_hub_free(zkc__stats_hub_t *hub) {
  HASH_CLEAR(hh, hub->by_path);
  while (hub->records) {
    zkc__lstats_t *s = hub->records;
    hub->records = s->next;
    free(s->path);
    free(s);
  }
  free(atomic_load(&hub->hook));
  while (hub->old_hooks) {
    zkc__hook_t *h = hub->old_hooks;
    hub->old_hooks = h->next;
    free(h);
  }
  pthread_mutex_destroy(&hub->mu);
}
