/* SPDX-License-Identifier: Apache-2.0 */
/* Scenarios a, b, c (timed loops of lock cycles against the raw baselines,
 * one session per worker) and f (reentrant re-acquire). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* raw: create + delete (baseline 1, the two-write limit); naive: create,
 * then list, then delete (baseline 2); pipelined: the list sent with the
 * create (the floor of an acquire that reads the queue); raw-async: the
 * raw cycle through the client's asynchronous calls, each answer awaited
 * as zkcoord awaits its own (the client's completion thread hands it over,
 * where a synchronous call is woken by its I/O thread); the last two only
 * with distinct paths. zkcoord-nowait: zkcoord with
 * zkc_mutex_release_nowait, and raw-nowait, its raw twin (a create, then a
 * delete not waited for); only with distinct paths, each in rounds of its
 * own, one after the other (a delete not waited for would be charged to
 * the next variant's cycle if mixed). */
typedef enum {
  V_RAW, V_NAIVE, V_ZKC, V_PIPE, V_ASYNC, V_NOWAIT, V_RAW_NOWAIT, V_COUNT
} variant_t;
#define V_MIXED V_NOWAIT /* the variants that mix cycle by cycle */
static const char *const vname[V_COUNT] = {
    "raw",       "naive",          "zkcoord",   "pipelined",
    "raw-async", "zkcoord-nowait", "raw-nowait"};

/* One worker: one session of each kind. It runs one variant for a whole
 * round, or (mixed) the three in turn, one cycle each, so that load
 * changes on a busy machine hit them alike. */
typedef struct worker {
  zhandle_t *zh;
  zkc_client_t *c;
  zkc_mutex_t *m;
  char path[256]; /* zkcoord: the lock path */
  char raw_path[264]; /* raw: parent of the nodes, beside the lock path: a
                         raw node a cut request leaves behind (its session
                         lives on) must not queue ahead of zkcoord's cycles */
  variant_t first; /* the variant of the first (or only) cycle */
  int mixed;
  int handoffs; /* record hand-offs (shared path, several workers) */
  char created[400]; /* raw: the node of the current cycle */
  long cycles[V_COUNT];
  int64_t busy_ns[V_COUNT];  /* time spent in each variant's cycles */
  samples_t acquire[V_COUNT]; /* raw: create; naive, pipelined: + list */
  samples_t whole[V_COUNT];   /* the whole cycle */
  pthread_mutex_t mu; /* pipelined, raw-async: completions of the requests */
  pthread_cond_t cv;
  int replies;
  int reply_rc; /* the first failed reply's code, else ZOK */
  samples_t handoff; /* release call of the previous holder -> acquire return */
  pthread_t th;
} worker_t;

static pthread_barrier_t start_line;
static atomic_llong round_end;    /* monotonic ns: no new cycle after it */
static atomic_llong release_call; /* when the holder called release */

static void pipe_reply(worker_t *w, int rc) {
  if (rc != ZOK && !raw_transient(rc))
    die("pipelined request: %s", zerror(rc));
  pthread_mutex_lock(&w->mu);
  if (rc != ZOK && w->reply_rc == ZOK) w->reply_rc = rc;
  w->replies++;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}
static void pipe_created(int rc, const char *name, const void *data) {
  worker_t *w = (worker_t *)data;
  if (rc == ZOK) snprintf(w->created, sizeof w->created, "%s", name);
  pipe_reply(w, rc);
}
static void pipe_listed(int rc, const struct String_vector *v, const void *data) {
  (void)v;
  pipe_reply((worker_t *)data, rc);
}

static void async_deleted(int rc, const void *data) {
  if (rc == ZNONODE) rc = ZOK; /* a cut delete that was applied */
  pipe_reply((worker_t *)data, rc);
}

/* Sends asynchronous requests (send() returns how many) and awaits every
 * answer; all again after 50 ms while one is transient. */
static void await_sent(worker_t *w,
                       int (*send)(worker_t *w, const char *prefix),
                       const char *prefix) {
  int rc;
  do {
    w->replies = 0;
    w->reply_rc = ZOK;
    int n = send(w, prefix);
    pthread_mutex_lock(&w->mu);
    while (w->replies < n) pthread_cond_wait(&w->cv, &w->mu);
    rc = w->reply_rc;
    pthread_mutex_unlock(&w->mu);
    if (rc != ZOK) sleep_ms(50);
  } while (rc != ZOK);
}
static void sent(const char *what, int rc) {
  if (rc != ZOK) die("%s: %s", what, zerror(rc));
}
static int send_pipelined(worker_t *w, const char *prefix) {
  sent("raw pipelined", zoo_acreate(w->zh, prefix, "x", 1, &ZOO_OPEN_ACL_UNSAFE,
                                    ZOO_EPHEMERAL_SEQUENTIAL, pipe_created, w));
  sent("raw pipelined",
       zoo_aget_children(w->zh, w->raw_path, 0, pipe_listed, w));
  return 2;
}
static void shaped_created(int rc, const char *name, const struct Stat *st,
                           const void *data) {
  (void)st;
  pipe_created(rc, name, data);
}
/* 1: raw-async's nodes have the shape of zkcoord's (a protected name, the
 * holder id as data, create2 answering with the stat), so that the node's
 * shape can be told apart from the library's own path:
 * ZKC_BENCH_RAW_ASYNC_SHAPE=zkcoord, read once per scenario. */
static int raw_async_shaped;

/* raw-async's create. */
static int send_create(worker_t *w, const char *prefix) {
  static const char holder[] = "bench-host-name:123456";
  if (raw_async_shaped) {
    char shaped[400];
    snprintf(shaped, sizeof shaped,
             "%s/_c_0b6f7a0e-3c1d-4e5f-9a8b-7c6d5e4f3a2b-lock-", w->raw_path);
    sent("raw-async create",
         zoo_acreate2(w->zh, shaped, holder, (int)sizeof holder - 1,
                      &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL,
                      shaped_created, w));
  } else {
    sent("raw-async create",
         zoo_acreate(w->zh, prefix, "x", 1, &ZOO_OPEN_ACL_UNSAFE,
                     ZOO_EPHEMERAL_SEQUENTIAL, pipe_created, w));
  }
  return 1;
}
static int send_delete(worker_t *w, const char *prefix) {
  (void)prefix;
  sent("raw-async delete",
       zoo_adelete(w->zh, w->created, -1, async_deleted, w));
  return 1;
}

static void unwaited_delete(int rc, const void *data) {
  (void)data; /* a cut one leaves an ephemeral node, gone with its session */
  if (rc != ZOK && !raw_transient(rc) && rc != ZCLOSING)
    die("raw delete (not waited for): %s", zerror(rc));
}

/* One lock cycle of variant v; returns when it was acquired. */
static int64_t cycle(worker_t *w, variant_t v, int64_t end) {
  int64_t acquired;
  if (v == V_ZKC || v == V_NOWAIT) {
    zkc_check(zkc_mutex_acquire(w->m), "acquire");
    acquired = now_ns();
    int64_t rel = atomic_load(&release_call);
    if (w->handoffs && rel > 0 && acquired <= end)
      samples_add(&w->handoff, (double)(acquired - rel) / 1e3);
    atomic_store(&release_call, now_ns());
    zkc_check(v == V_NOWAIT ? zkc_mutex_release_nowait(w->m)
                            : zkc_mutex_release(w->m),
              "release");
    return acquired;
  }
  char prefix[300];
  char *created = w->created;
  snprintf(prefix, sizeof prefix, "%s/raw-", w->raw_path);
  int rc;
  if (v == V_ASYNC) {
    await_sent(w, send_create, prefix);
    acquired = now_ns();
    await_sent(w, send_delete, prefix);
    return acquired;
  }
  if (v == V_PIPE) {
    await_sent(w, send_pipelined, prefix);
  } else {
    while (raw_transient(rc = zoo_create(w->zh, prefix, "x", 1,
                                     &ZOO_OPEN_ACL_UNSAFE,
                                     ZOO_EPHEMERAL_SEQUENTIAL, created,
                                     sizeof w->created)))
      sleep_ms(50);
    if (rc != ZOK) die("raw create: %s", zerror(rc));
  }
  if (v == V_NAIVE) {
    struct String_vector sv;
    while (raw_transient(rc = zoo_get_children(w->zh, w->raw_path, 0, &sv)))
      sleep_ms(50);
    if (rc != ZOK) die("raw children: %s", zerror(rc));
    deallocate_String_vector(&sv);
  }
  acquired = now_ns();
  if (v == V_RAW_NOWAIT) {
    rc = zoo_adelete(w->zh, created, -1, unwaited_delete, NULL);
  } else {
    while (raw_transient(rc = zoo_delete(w->zh, created, -1))) sleep_ms(50);
    if (rc == ZNONODE) rc = ZOK; /* a cut delete that was applied */
  }
  if (rc != ZOK) die("raw delete: %s", zerror(rc));
  return acquired;
}

static void *worker_main(void *arg) {
  worker_t *w = arg;
  pthread_barrier_wait(&start_line);
  int64_t end = atomic_load(&round_end);
  variant_t v = w->first;
  for (;;) {
    int64_t t0 = now_ns();
    if (t0 >= end) break;
    int64_t acquired = cycle(w, v, end), t1 = now_ns();
    if (t1 <= end) {
      w->cycles[v]++;
      w->busy_ns[v] += t1 - t0;
      samples_add(&w->acquire[v], (double)(acquired - t0) / 1e3);
      samples_add(&w->whole[v], (double)(t1 - t0) / 1e3);
    }
    if (w->mixed) v = (variant_t)((v + 1) % V_MIXED);
  }
  return NULL;
}

/* Per-round figures of each variant. */
typedef struct figures {
  double rate[64], cycle_p50[64], acquire_p50[64], handoff_p50[64],
      handoff_p99[64];
} figures_t;

/* One timed round on all n workers, of variant v or (v < 0) the first
 * V_MIXED mixed; fills round r of f[variant]. */
static void run_round(worker_t *ws, int n, int v, figures_t *f, int r) {
  pthread_barrier_init(&start_line, NULL, (unsigned)n + 1);
  atomic_store(&release_call, 0);
  for (int i = 0; i < n; i++) {
    worker_t *w = &ws[i];
    w->mixed = v < 0;
    w->first = (variant_t)(v < 0 ? i % V_MIXED : v);
    memset(w->cycles, 0, sizeof w->cycles);
    memset(w->busy_ns, 0, sizeof w->busy_ns);
    if (pthread_create(&w->th, NULL, worker_main, w) != 0) die("pthread_create");
  }
  int64_t start = now_ns();
  atomic_store(&round_end, start + (int64_t)cfg.round_ms * 1000000);
  pthread_barrier_wait(&start_line);
  for (int i = 0; i < n; i++) pthread_join(ws[i].th, NULL);
  pthread_barrier_destroy(&start_line);
  for (int u = 0; u < (v < 0 ? V_MIXED : V_COUNT); u++) {
    if (v >= 0 && u != v) continue;
    long cycles = 0;
    int64_t busy = 0;
    samples_t acq = {0}, whole = {0};
    for (int i = 0; i < n; i++) {
      cycles += ws[i].cycles[u];
      busy += ws[i].busy_ns[u];
      samples_append(&acq, &ws[i].acquire[u]);
      samples_append(&whole, &ws[i].whole[u]);
      samples_free(&ws[i].acquire[u]);
      samples_free(&ws[i].whole[u]);
    }
    f[u].cycle_p50[r] = samples_quantile(&whole, 0.5);
    samples_free(&whole);
    /* Mixed: n workers each spending busy/n in this variant. */
    double secs = v < 0 ? (double)busy / 1e9 / n : (double)cfg.round_ms / 1e3;
    f[u].rate[r] = secs > 0 ? (double)cycles / secs : 0;
    f[u].acquire_p50[r] = samples_quantile(&acq, 0.5);
    samples_free(&acq);
  }
  samples_t hand = {0};
  for (int i = 0; i < n; i++) {
    samples_append(&hand, &ws[i].handoff);
    samples_free(&ws[i].handoff);
  }
  if (v == V_ZKC) {
    f[v].handoff_p50[r] = samples_quantile(&hand, 0.5);
    f[v].handoff_p99[r] = samples_quantile(&hand, 0.99);
  }
  samples_free(&hand);
}

static void ratios(const double *a, const double *b, int k, double *out) {
  for (int i = 0; i < k; i++) out[i] = b[i] > 0 ? a[i] / b[i] : 0;
}

/* Runs the variants interleaved (drift hits all alike) on n workers: one
 * lock path each (distinct) or one for all. Emits the figures and returns
 * the zkcoord rate's median. */
static double loops(const char *scen, int n, int distinct, figures_t f[V_COUNT]) {
  const int nv = distinct ? V_MIXED : V_PIPE; /* variants run mixed */
  worker_t *ws = calloc((size_t)n, sizeof *ws);
  if (ws == NULL) die("out of memory");
  char base[200];
  snprintf(base, sizeof base, "%s/%s-%d", cfg.root, scen, n);
  const char *shape = getenv("ZKC_BENCH_RAW_ASYNC_SHAPE");
  raw_async_shaped = shape != NULL && strcmp(shape, "zkcoord") == 0;
  zhandle_t *admin = raw_open();
  for (int i = 0; i < n; i++) {
    worker_t *w = &ws[i];
    if (distinct) snprintf(w->path, sizeof w->path, "%s/p%d", base, i);
    else snprintf(w->path, sizeof w->path, "%s/p", base);
    snprintf(w->raw_path, sizeof w->raw_path, "%s-raw", w->path);
    raw_ensure(admin, w->path);
    raw_ensure(admin, w->raw_path);
    w->zh = raw_open();
    w->c = zkc_open();
    zkc_check(zkc_mutex_create(&w->m, w->c, w->path), "mutex_create");
    w->handoffs = !distinct && n > 1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
  }
  /* Warm-up: every session and path once. Distinct paths mix the variants
   * cycle by cycle; one shared path needs all workers on one variant, so
   * the rounds alternate instead. */
  int saved = cfg.round_ms;
  cfg.round_ms = 100;
  for (int v = 0; v < nv; v++) run_round(ws, n, v, f, 0);
  if (distinct) {
    run_round(ws, n, V_NOWAIT, f, 0);
    run_round(ws, n, V_RAW_NOWAIT, f, 0);
  }
  cfg.round_ms = saved;
  for (int r = 0; r < cfg.rounds; r++) {
    for (int v = distinct ? -1 : 0; v < (distinct ? 0 : nv); v++)
      run_round(ws, n, v, f, r);
    if (distinct) { /* alternating which goes first */
      run_round(ws, n, r % 2 ? V_RAW_NOWAIT : V_NOWAIT, f, r);
      run_round(ws, n, r % 2 ? V_NOWAIT : V_RAW_NOWAIT, f, r);
    }
  }
  for (int i = 0; i < n; i++) {
    pthread_cond_destroy(&ws[i].cv);
    pthread_mutex_destroy(&ws[i].mu);
    zkc_check(zkc_mutex_destroy(ws[i].m), "mutex_destroy");
    zkc_client_close(ws[i].c);
    raw_close(ws[i].zh);
  }
  raw_delete_tree(admin, base);
  raw_close(admin);
  free(ws);

  int k = cfg.rounds;
  double ratio[64];
  const int ne = distinct ? V_COUNT : nv; /* variants emitted */
  for (int v = 0; v < ne; v++)
    emit(scen, n, "cycle rate", vname[v], "/s", f[v].rate, k);
  ratios(f[V_ZKC].rate, f[V_RAW].rate, k, ratio);
  emit(scen, n, "cycle rate", "zkcoord/raw", "x", ratio, k);
  ratios(f[V_ZKC].rate, f[V_NAIVE].rate, k, ratio);
  emit(scen, n, "cycle rate", "zkcoord/naive", "x", ratio, k);
  if (distinct) {
    ratios(f[V_NOWAIT].rate, f[V_RAW].rate, k, ratio);
    emit(scen, n, "cycle rate", "zkcoord-nowait/raw", "x", ratio, k);
    ratios(f[V_NOWAIT].rate, f[V_RAW_NOWAIT].rate, k, ratio);
    emit(scen, n, "cycle rate", "zkcoord-nowait/raw-nowait", "x", ratio, k);
    ratios(f[V_ASYNC].rate, f[V_RAW].rate, k, ratio);
    emit(scen, n, "cycle rate", "raw-async/raw", "x", ratio, k);
    ratios(f[V_ZKC].rate, f[V_ASYNC].rate, k, ratio);
    emit(scen, n, "cycle rate", "zkcoord/raw-async", "x", ratio, k);
  }
  for (int v = 0; v < ne; v++)
    emit(scen, n, "cycle p50", vname[v], "us", f[v].cycle_p50, k);
  ratios(f[V_ZKC].cycle_p50, f[V_RAW].cycle_p50, k, ratio);
  emit(scen, n, "cycle p50", "zkcoord/raw", "x", ratio, k);
  for (int v = 0; v < ne; v++)
    emit(scen, n, "acquire p50", vname[v], "us", f[v].acquire_p50, k);
  ratios(f[V_ZKC].acquire_p50, f[V_RAW].acquire_p50, k, ratio);
  emit(scen, n, "acquire p50", "zkcoord/raw", "x", ratio, k);
  if (distinct) {
    ratios(f[V_ZKC].acquire_p50, f[V_PIPE].acquire_p50, k, ratio);
    emit(scen, n, "acquire p50", "zkcoord/pipelined", "x", ratio, k);
  }
  if (!distinct && n > 1) {
    emit(scen, n, "hand-off p50", "zkcoord", "us", f[V_ZKC].handoff_p50, k);
    emit(scen, n, "hand-off p99", "zkcoord", "us", f[V_ZKC].handoff_p99, k);
  }
  return median_of(f[V_ZKC].rate, k);
}

void scen_cycle(void) {
  figures_t f[V_COUNT];
  loops("a", 1, 1, f);
  double ratio[64];
  int k = cfg.rounds;
  ratios(f[V_ZKC].rate, f[V_RAW].rate, k, ratio);
  emit_target("a", "cycle rate zkcoord/raw", median_of(ratio, k), ">=", 0.95);
  ratios(f[V_NOWAIT].rate, f[V_RAW].rate, k, ratio);
  emit_target("a", "cycle rate zkcoord-nowait/raw", median_of(ratio, k), ">=",
              0.95);
  ratios(f[V_ZKC].rate, f[V_NAIVE].rate, k, ratio);
  emit_target("a", "cycle rate zkcoord/naive", median_of(ratio, k), ">", 1.0);
  ratios(f[V_ZKC].acquire_p50, f[V_RAW].acquire_p50, k, ratio);
  emit_target("a", "acquire p50 / raw create p50", median_of(ratio, k), "<=",
              1.25);
  ratios(f[V_ZKC].acquire_p50, f[V_PIPE].acquire_p50, k, ratio);
  emit_target("a", "acquire p50 / pipelined create+list p50",
              median_of(ratio, k), "<=", 1.1);
}

void scen_paths(void) {
  figures_t f[V_COUNT];
  loops("b", 8, 1, f);
  double ratio[64];
  ratios(f[V_ZKC].rate, f[V_RAW].rate, cfg.rounds, ratio);
  emit_target("b", "cycle rate zkcoord/raw", median_of(ratio, cfg.rounds),
              ">=", 0.95);
  ratios(f[V_NOWAIT].rate, f[V_RAW].rate, cfg.rounds, ratio);
  emit_target("b", "cycle rate zkcoord-nowait/raw",
              median_of(ratio, cfg.rounds), ">=", 0.95);
}

void scen_contend(void) {
  static const int full[] = {2, 8, 32, 128}, quick[] = {2, 8};
  const int *ns = cfg.quick ? quick : full;
  int count = cfg.quick ? 2 : 4;
  double rate8 = 0, rate_last = 0;
  figures_t f[V_COUNT];
  for (int i = 0; i < count; i++) {
    double rate = loops("c", ns[i], 0, f);
    if (ns[i] == 8) rate8 = rate;
    rate_last = rate;
  }
  char what[64];
  snprintf(what, sizeof what, "rate %d / rate 8 contenders", ns[count - 1]);
  emit_target("c", what, rate8 > 0 ? rate_last / rate8 : 0, ">=", 0.8);
}

/* f: re-acquire by the holding thread only moves a count. */
void scen_reentry(void) {
  zkc_client_t *c = zkc_open();
  zkc_mutex_t *m;
  char path[200];
  snprintf(path, sizeof path, "%s/f", cfg.root);
  zkc_check(zkc_mutex_create(&m, c, path), "mutex_create");
  zkc_check(zkc_mutex_acquire(m), "acquire");
  const int reps = cfg.quick ? 100000 : 1000000;
  double acq[64], rel[64];
  for (int r = 0; r < cfg.rounds; r++) {
    int64_t t0 = now_ns();
    for (int i = 0; i < reps; i++) zkc_check(zkc_mutex_acquire(m), "reacquire");
    int64_t t1 = now_ns();
    for (int i = 0; i < reps; i++) zkc_check(zkc_mutex_release(m), "release");
    int64_t t2 = now_ns();
    acq[r] = (double)(t1 - t0) / reps;
    rel[r] = (double)(t2 - t1) / reps;
  }
  zkc_check(zkc_mutex_release(m), "release");
  zkc_check(zkc_mutex_destroy(m), "mutex_destroy");
  zkc_client_close(c);
  emit("f", 1, "reentrant acquire", "zkcoord", "ns", acq, cfg.rounds);
  emit("f", 1, "reentrant release", "zkcoord", "ns", rel, cfg.rounds);
  emit_target("f", "reentrant acquire ns", median_of(acq, cfg.rounds), "<",
              1000);
}
