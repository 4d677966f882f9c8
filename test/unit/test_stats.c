/* SPDX-License-Identifier: Apache-2.0 */
/* The stats' records without a server: bucket placement at the bounds,
 * what each end of an acquire counts, and what the event hook is told. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"

/* A value at a bound falls in that bound's bucket, one above it in the
 * next; above the last bound is the overflow bucket. */
static void buckets_at_their_bounds(void **state) {
  (void)state;
  assert_int_equal(zkc__stats_bucket(0), 0);
  assert_int_equal(zkc__stats_bucket(100), 0);
  assert_int_equal(zkc__stats_bucket(101), 1);
  assert_int_equal(zkc__stats_bucket(250), 1);
  assert_int_equal(zkc__stats_bucket(999), 3);
  assert_int_equal(zkc__stats_bucket(1000), 3);
  assert_int_equal(zkc__stats_bucket(1000000), 12);
  assert_int_equal(zkc__stats_bucket(1000001), 13);
  assert_int_equal(zkc__stats_bucket(1000000000), ZKC_STATS_BUCKETS - 1);
  assert_int_equal(zkc__stats_bucket(1000000001), ZKC_STATS_BUCKETS);
  assert_int_equal(zkc__stats_bucket(INT64_MAX), ZKC_STATS_BUCKETS);
  /* Bounds rise three per decade, from 100 us to 1000 s. */
  assert_int_equal(zkc_stats_bucket_bound_us(0), 100);
  assert_int_equal(zkc_stats_bucket_bound_us(ZKC_STATS_BUCKETS - 1),
                   1000000000);
  assert_true(zkc_stats_bucket_bound_us(ZKC_STATS_BUCKETS) == INT64_MAX);
  for (size_t i = 0; i + 3 < ZKC_STATS_BUCKETS; i++)
    assert_int_equal(zkc_stats_bucket_bound_us(i + 3),
                     10 * zkc_stats_bucket_bound_us(i));
}

typedef struct {
  zkc_event_t ev[8];
  char paths[8][16];
  int n;
} heard_t;

static void hear(void *ctx, const zkc_event_t *ev) {
  heard_t *h = ctx;
  if (h->n == 8) return;
  h->ev[h->n] = *ev;
  if (ev->path) snprintf(h->paths[h->n], sizeof h->paths[0], "%s", ev->path);
  h->n++;
}

static zkc_lock_stats_t snapshot(const zkc__lstats_t *s) {
  zkc_lock_stats_t out;
  assert_int_equal(zkc__stats_copy(s, &out), ZKC_OK);
  return out;
}

/* A grant counts an acquire, a hold and its wait (and its hand-off when it
 * was woken); a timeout and a refusal count only themselves; a release
 * ends the hold with its time. Each is told to the hook as counted. */
static void each_end_counts_once(void **state) {
  (void)state;
  zkc__stats_hub_t hub;
  assert_int_equal(zkc__stats_hub_init(&hub), ZKC_OK);
  heard_t heard = {0};
  assert_int_equal(zkc__stats_hook_set(&hub, hear, &heard), ZKC_OK);
  zkc__lstats_t *s = zkc__stats_for(&hub, ZKC_RECIPE_WRITE, "/w");
  assert_non_null(s);
  assert_ptr_equal(zkc__stats_for(&hub, ZKC_RECIPE_WRITE, "/w"), s);
  assert_ptr_not_equal(zkc__stats_for(&hub, ZKC_RECIPE_READ, "/w"), s);

  /* Granted 3 ms after it began, woken 1.5 ms before the grant, plus
   * whatever the lines between take (milliseconds under valgrind, whose
   * first run of new code is slow): each time lands in the bucket of the
   * value the hook was told, and the wake stays 1.5 ms after the start. */
  int64_t began = zkc__stats_begin(s);
  assert_int_equal(snapshot(s).waiters, 1);
  int64_t now = zkc__now_us();
  int64_t granted = zkc__stats_end(s, began - 3000, ZKC_OK, now - 1500);
  zkc_lock_stats_t v = snapshot(s);
  assert_int_equal(v.acquires, 1);
  assert_int_equal(v.holds, 1);
  assert_int_equal(v.waiters, 0);
  assert_int_equal(v.wait.count, 1);
  assert_int_equal(heard.n, 1);
  assert_int_equal(v.wait.buckets[zkc__stats_bucket(heard.ev[0].wait_us)], 1);
  assert_true(v.wait.sum_us >= 3000);
  assert_int_equal(v.handoff.count, 1);
  assert_int_equal(
      v.handoff.buckets[zkc__stats_bucket(heard.ev[0].handoff_us)], 1);
  assert_int_equal(v.hold.count, 0);

  zkc__stats_begin(s);
  zkc__stats_end(s, zkc__now_us(), ZKC_ETIMEDOUT, 0);
  zkc__stats_begin(s);
  zkc__stats_end(s, zkc__now_us(), ZKC_ENOAUTH, 0);
  zkc__stats_released(s, granted - 600000, ZKC_OK);
  zkc__stats_lost(s, ZKC_LOST_SESSION);
  v = snapshot(s);
  assert_int_equal(v.acquires, 1);
  assert_int_equal(v.timeouts, 1);
  assert_int_equal(v.refusals, 1);
  assert_int_equal(v.releases, 1);
  assert_int_equal(v.lost[ZKC_LOST_SESSION], 1);
  assert_int_equal(v.holds, 0);
  assert_int_equal(v.waiters, 0);
  assert_int_equal(v.wait.count, 1); /* timeouts and refusals not timed */
  assert_int_equal(v.handoff.count, 1);
  assert_int_equal(v.hold.count, 1);
  assert_int_equal(v.hold.buckets[zkc__stats_bucket(heard.ev[3].hold_us)], 1);
  assert_int_equal(v.recipe, ZKC_RECIPE_WRITE);
  assert_string_equal(v.path, "/w");

  assert_int_equal(heard.n, 5);
  assert_int_equal(heard.ev[0].type, ZKC_EVENT_ACQUIRED);
  assert_int_equal(heard.ev[0].recipe, ZKC_RECIPE_WRITE);
  assert_string_equal(heard.paths[0], "/w");
  assert_true(heard.ev[0].wait_us >= 3000);
  assert_true(heard.ev[0].handoff_us >= 1500);
  assert_true(heard.ev[0].wait_us - heard.ev[0].handoff_us >= 1500);
  assert_int_equal(heard.ev[1].type, ZKC_EVENT_TIMED_OUT);
  assert_int_equal(heard.ev[1].handoff_us, -1);
  assert_int_equal(heard.ev[2].type, ZKC_EVENT_REFUSED);
  assert_int_equal(heard.ev[2].rc, ZKC_ENOAUTH);
  assert_int_equal(heard.ev[3].type, ZKC_EVENT_RELEASED);
  assert_true(heard.ev[3].hold_us >= 600000);
  assert_int_equal(heard.ev[4].type, ZKC_EVENT_LOST);
  assert_int_equal(heard.ev[4].reason, ZKC_LOST_SESSION);

  /* Another hook, then none: each event reaches the hook set then. */
  heard_t second = {0};
  assert_int_equal(zkc__stats_hook_set(&hub, hear, &second), ZKC_OK);
  zkc__stats_state_count(&hub, ZKC_STATE_SUSPENDED);
  zkc__stats_state_tell(&hub, ZKC_STATE_SUSPENDED);
  assert_int_equal(zkc__stats_hook_set(&hub, NULL, NULL), ZKC_OK);
  zkc__stats_state_count(&hub, ZKC_STATE_RECONNECTED);
  zkc__stats_state_tell(&hub, ZKC_STATE_RECONNECTED);
  assert_int_equal(heard.n, 5);
  assert_int_equal(second.n, 1);
  assert_int_equal(second.ev[0].type, ZKC_EVENT_STATE);
  assert_int_equal(second.ev[0].state, ZKC_STATE_SUSPENDED);
  assert_null(second.ev[0].path);
  assert_int_equal(hub.state_counts[ZKC_STATE_SUSPENDED], 1);
  assert_int_equal(hub.state_counts[ZKC_STATE_RECONNECTED], 1);
  zkc__stats_hub_free(&hub);
}

/* An object without a record (memory ran out at create) counts nothing
 * and its snapshot says so. */
static void no_record_counts_nothing(void **state) {
  (void)state;
  int64_t began = zkc__stats_begin(NULL);
  zkc__stats_end(NULL, began, ZKC_OK, 0);
  zkc__stats_released(NULL, began, ZKC_OK);
  zkc__stats_lost(NULL, ZKC_LOST_DELETED);
  zkc_lock_stats_t out;
  memset(&out, 0xff, sizeof out);
  assert_int_equal(zkc__stats_copy(NULL, &out), ZKC_ENOMEM);
  assert_int_equal(out.acquires, 0);
  assert_null(out.path);
}

/* One record per (recipe, path), found again by both, whatever else the
 * hub holds; zkc__stats_find makes none. */
static void records_found_by_recipe_and_path(void **state) {
  (void)state;
  zkc__stats_hub_t hub;
  assert_int_equal(zkc__stats_hub_init(&hub), ZKC_OK);
  assert_null(zkc__stats_find(&hub, ZKC_RECIPE_ASYNC, "/p0"));
  zkc__lstats_t *async[100], *mutex[100];
  char path[32];
  for (int i = 0; i < 100; i++) {
    snprintf(path, sizeof path, "/p%d", i);
    async[i] = zkc__stats_for(&hub, ZKC_RECIPE_ASYNC, path);
    mutex[i] = zkc__stats_for(&hub, ZKC_RECIPE_MUTEX, path);
    assert_non_null(async[i]);
    assert_ptr_not_equal(async[i], mutex[i]);
  }
  for (int i = 0; i < 100; i++) {
    snprintf(path, sizeof path, "/p%d", i);
    assert_ptr_equal(zkc__stats_find(&hub, ZKC_RECIPE_ASYNC, path), async[i]);
    assert_ptr_equal(zkc__stats_for(&hub, ZKC_RECIPE_MUTEX, path), mutex[i]);
    assert_null(zkc__stats_find(&hub, ZKC_RECIPE_LATCH, path));
    assert_string_equal(async[i]->path, path);
    assert_int_equal(mutex[i]->recipe, ZKC_RECIPE_MUTEX);
  }
  assert_null(zkc__stats_find(&hub, ZKC_RECIPE_ASYNC, "/p100"));
  size_t n = 0;
  for (zkc__lstats_t *s = zkc__stats_records(&hub); s; s = s->next) n++;
  assert_int_equal(n, 200);
  zkc__stats_hub_free(&hub);
}

static void recipe_names(void **state) {
  (void)state;
  assert_string_equal(zkc_recipe_name(ZKC_RECIPE_MUTEX), "mutex");
  assert_string_equal(zkc_recipe_name(ZKC_RECIPE_ASYNC), "async");
  assert_string_equal(zkc_recipe_name(0), "unknown");
  assert_string_equal(zkc_recipe_name(99), "unknown");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(buckets_at_their_bounds),
      cmocka_unit_test(each_end_counts_once),
      cmocka_unit_test(no_record_counts_nothing),
      cmocka_unit_test(records_found_by_recipe_and_path),
      cmocka_unit_test(recipe_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
