/* SPDX-License-Identifier: Apache-2.0 */
/* Scenario h: pending asynchronous acquires. One process queues N async
 * acquires behind a held lock and reports the memory each pending acquire
 * costs (heap and RSS, its share of the client's buffers included) and the
 * threads the process gained (none per waiter: the context's engine is
 * one thread). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

static atomic_int told;

static void on_done(void *ctx, int rc, zkc_hold_t *hold) {
  (void)ctx, (void)rc;
  if (hold) zkc_hold_free(hold);
  atomic_fetch_add(&told, 1);
}

void scen_async(void) {
  const int n = cfg.quick ? 200 : 1000;
  char path[256];
  snprintf(path, sizeof path, "%s/async", cfg.root);
  zhandle_t *zh = raw_open();
  double heap[64], rss[64], threads[64];
  for (int r = 0; r < cfg.rounds; r++) {
    zkc_client_t *holder_c = zkc_open(), *c = zkc_open();
    zkc_mutex_t *m = NULL;
    zkc_check(zkc_mutex_create(&m, holder_c, path), "mutex");
    zkc_check(zkc_mutex_acquire(m), "acquire");
    zkc_async_t *a = NULL;
    zkc_check(zkc_async_create(&a, c, NULL), "async");
    atomic_store(&told, 0);
    int t0 = threads_now();
    long heap0 = heap_bytes(), rss0 = rss_bytes();
    for (int i = 0; i < n; i++)
      zkc_check(zkc_async_acquire(a, path, -1, on_done, NULL, NULL), "queue");
    while (raw_children_count(zh, path) < n + 1) sleep_ms(20);
    sleep_ms(200); /* every waiter's watch set */
    heap[r] = (double)(heap_bytes() - heap0) / n;
    rss[r] = (double)(rss_bytes() - rss0) / n;
    threads[r] = threads_now() - t0;
    zkc_check(zkc_async_destroy(a), "destroy"); /* completes them: ECLOSED */
    if (atomic_load(&told) != n) die("async: %d of %d told", atomic_load(&told), n);
    zkc_check(zkc_mutex_release(m), "release");
    zkc_check(zkc_mutex_destroy(m), "mutex destroy");
    zkc_client_close(c);
    zkc_client_close(holder_c);
  }
  emit("h", n, "memory per pending async acquire (heap)", "zkcoord", "B", heap,
       cfg.rounds);
  emit("h", n, "memory per pending async acquire (RSS)", "zkcoord", "B", rss,
       cfg.rounds);
  emit("h", n, "threads added by pending acquires", "zkcoord", "count",
       threads, cfg.rounds);
  raw_close(zh);
}
