/* SPDX-License-Identifier: Apache-2.0 */
/* Scenario k: asynchronous acquire at scale (issue 28, part 5). One process
 * queues N (10,000) zkc_async_acquire calls on one lock path behind one
 * holder, through one async context on one client (one session):
 *   - memory per pending acquire: RSS (statm) and heap delta / N, taken
 *     once every acquire's node is queued and its watch set;
 *   - threads added (/proc/self/task): 0 wanted (the context's engine
 *     thread is started before the first count);
 *   - watches the servers gained (wchs), per pending acquire;
 *   - grant rate: the holder releases, each grant releases its hold at
 *     once (zkc_hold_free in the callback); grants per second from the
 *     holder's release to the last grant.
 * Against the blocking mutex on the same one client: T threads (1,000;
 * 10,000 threads is not practical here), each its own zkc_mutex_t on the
 * path, blocked in acquire behind the same holder: the same figures (the
 * threads' stacks included), in the same rounds. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

static atomic_int granted;
static atomic_llong last_grant;

static void on_grant(void *ctx, int rc, zkc_hold_t *hold) {
  (void)ctx;
  if (rc != ZKC_OK) die("async acquire: %s", zkc_strerror(rc));
  zkc_hold_free(hold); /* releases at once */
  atomic_store(&last_grant, now_ns());
  atomic_fetch_add(&granted, 1);
}

typedef struct waiter {
  zkc_mutex_t *m;
  pthread_t th;
} waiter_t;

static void *blocking_waiter(void *arg) {
  waiter_t *w = arg;
  zkc_check(zkc_mutex_acquire(w->m), "blocking acquire");
  zkc_check(zkc_mutex_release(w->m), "blocking release");
  atomic_store(&last_grant, now_ns());
  atomic_fetch_add(&granted, 1);
  return NULL;
}

typedef struct figures {
  double rss, heap, threads, watches, rate, queue_s;
} figures_t;

/* Every waiter's node queued and its watch set on the servers (the
 * waiters' first children reads may still be in flight long after the
 * nodes exist: their answers are not steady-state memory). */
static void wait_queued(zhandle_t *zh, const char *path, int n, long w0) {
  while (raw_children_count(zh, path) < n + 1) sleep_ms(20);
  int64_t limit = now_ns() + 600 * (int64_t)1000000000;
  while (watches_total() - w0 < n && now_ns() < limit) sleep_ms(200);
  sleep_ms(500);
}

static figures_t run_async(zhandle_t *zh, const char *path, int n) {
  figures_t f;
  zkc_client_t *holder_c = zkc_open(), *c = zkc_open();
  zkc_mutex_t *m = NULL;
  zkc_check(zkc_mutex_create(&m, holder_c, path), "mutex");
  zkc_check(zkc_mutex_acquire(m), "acquire");
  zkc_async_t *a = NULL;
  zkc_check(zkc_async_create(&a, c, NULL), "async");
  atomic_store(&granted, 0);
  sleep_ms(100);
  int t0 = threads_now();
  long w0 = watches_total();
  long heap0 = heap_bytes(), rss0 = rss_bytes();
  int64_t q0 = now_ns();
  for (int i = 0; i < n; i++)
    zkc_check(zkc_async_acquire(a, path, -1, on_grant, NULL, NULL), "queue");
  wait_queued(zh, path, n, w0);
  f.queue_s = (double)(now_ns() - q0) / 1e9;
  f.heap = (double)(heap_bytes() - heap0) / n;
  f.rss = (double)(rss_bytes() - rss0) / n;
  f.threads = threads_now() - t0;
  f.watches = (double)(watches_total() - w0) / n;
  int64_t t_rel = now_ns();
  zkc_check(zkc_mutex_release(m), "release");
  while (atomic_load(&granted) < n) sleep_ms(5);
  f.rate = n / ((double)(atomic_load(&last_grant) - t_rel) / 1e9);
  zkc_check(zkc_async_destroy(a), "async destroy");
  zkc_check(zkc_mutex_destroy(m), "mutex destroy");
  zkc_client_close(c);
  zkc_client_close(holder_c);
  return f;
}

static figures_t run_blocking(zhandle_t *zh, const char *path, int n) {
  figures_t f;
  zkc_client_t *holder_c = zkc_open(), *c = zkc_open();
  zkc_mutex_t *m = NULL;
  zkc_check(zkc_mutex_create(&m, holder_c, path), "mutex");
  zkc_check(zkc_mutex_acquire(m), "acquire");
  waiter_t *w = calloc((size_t)n, sizeof *w);
  if (w == NULL) die("out of memory");
  atomic_store(&granted, 0);
  sleep_ms(100);
  int t0 = threads_now();
  long w0 = watches_total();
  long heap0 = heap_bytes(), rss0 = rss_bytes();
  int64_t q0 = now_ns();
  for (int i = 0; i < n; i++) {
    zkc_check(zkc_mutex_create(&w[i].m, c, path), "mutex");
    if (pthread_create(&w[i].th, NULL, blocking_waiter, &w[i]) != 0)
      die("pthread_create %d", i);
  }
  wait_queued(zh, path, n, w0);
  f.queue_s = (double)(now_ns() - q0) / 1e9;
  f.heap = (double)(heap_bytes() - heap0) / n;
  f.rss = (double)(rss_bytes() - rss0) / n;
  f.threads = threads_now() - t0;
  f.watches = (double)(watches_total() - w0) / n;
  int64_t t_rel = now_ns();
  zkc_check(zkc_mutex_release(m), "release");
  for (int i = 0; i < n; i++) pthread_join(w[i].th, NULL);
  f.rate = n / ((double)(atomic_load(&last_grant) - t_rel) / 1e9);
  for (int i = 0; i < n; i++) zkc_check(zkc_mutex_destroy(w[i].m), "mutex destroy");
  free(w);
  zkc_check(zkc_mutex_destroy(m), "mutex destroy");
  zkc_client_close(c);
  zkc_client_close(holder_c);
  return f;
}

void scen_async_scale(void) {
  const int n = cfg.quick ? 200 : 10000;
  const int t = cfg.quick ? 20 : 1000;
  const int rounds = cfg.rounds < 2 ? cfg.rounds : 2; /* minutes a round */
  char path[256], bpath[256];
  zhandle_t *zh = raw_open();
  double v[6][64], b[6][64], ratio[64];
  for (int r = 0; r < rounds; r++) {
    snprintf(path, sizeof path, "%s/k/async-%d", cfg.root, r);
    snprintf(bpath, sizeof bpath, "%s/k/blocking-%d", cfg.root, r);
    figures_t fa = run_async(zh, path, n);
    figures_t fb = run_blocking(zh, bpath, t);
    fprintf(stderr, "zkc_bench k: round %d: async %.0f grants/s (queued in %.1f s), "
                    "blocking %.0f grants/s\n", r, fa.rate, fa.queue_s, fb.rate);
    double *pa[6] = {&fa.rss, &fa.heap, &fa.threads, &fa.watches, &fa.rate, &fa.queue_s};
    double *pb[6] = {&fb.rss, &fb.heap, &fb.threads, &fb.watches, &fb.rate, &fb.queue_s};
    for (int i = 0; i < 6; i++) v[i][r] = *pa[i], b[i][r] = *pb[i];
    raw_delete_tree(zh, path);
    raw_delete_tree(zh, bpath);
  }
  static const char *names[6] = {
      "memory per pending acquire (RSS)", "memory per pending acquire (heap)",
      "threads added by pending acquires", "server watches per pending acquire",
      "grants per second (each released at once)", "seconds to queue them all"};
  static const char *units[6] = {"B", "B", "count", "count", "1/s", "s"};
  for (int i = 0; i < 6; i++) {
    char measure[120];
    snprintf(measure, sizeof measure, "%s (async: %d pending)", names[i], n);
    emit("k", n, measure, "zkcoord", units[i], v[i], rounds);
    snprintf(measure, sizeof measure, "%s (blocking: %d threads)", names[i], t);
    emit("k", t, measure, "zkcoord", units[i], b[i], rounds);
  }
  for (int r = 0; r < rounds; r++) ratio[r] = v[4][r] / b[4][r];
  emit("k", n, "grant rate: async (N pending) / blocking (T threads)",
       "async/blocking", "x", ratio, rounds);
  for (int r = 0; r < rounds; r++) ratio[r] = b[0][r] / v[0][r];
  emit("k", n, "RSS per waiter: blocking thread / async acquire", "blocking/async",
       "x", ratio, rounds);
  emit_target("k", "threads added by pending async acquires", median_of(v[2], rounds),
              "==", 0);
  raw_close(zh);
}
