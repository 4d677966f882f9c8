/* SPDX-License-Identifier: Apache-2.0 */
/* Scenarios at scale: d (1,000 waiters queued on one path from 10
 * processes: watches per waiter, notifications per release, memory per
 * waiter) and e (10,000 distinct locks held by one process: memory and
 * acquire cost). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* ---- d: the worker process ----
 * argv: PATH WAITERS. Opens one client, says "ready", and on "go" starts
 * WAITERS threads that each acquire PATH, release it and end. On "mem" it
 * answers "mem <rss delta> <heap delta>" (bytes since before the threads);
 * once every thread is done it says "done" and exits. */

static zkc_mutex_t *worker_mutex;

static void *waiter_main(void *arg) {
  (void)arg;
  zkc_check(zkc_mutex_acquire(worker_mutex), "acquire");
  zkc_check(zkc_mutex_release(worker_mutex), "release");
  return NULL;
}

int queue_worker(int argc, char **argv) {
  if (argc != 2) die("--queue-worker PATH WAITERS");
  int n = atoi(argv[1]);
  zkc_client_t *c = zkc_open();
  zkc_check(zkc_mutex_create(&worker_mutex, c, argv[0]), "mutex_create");
  pthread_t *ths = calloc((size_t)n, sizeof *ths);
  if (ths == NULL) die("out of memory");
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 128 * 1024);
  char line[64];
  long rss0 = rss_bytes(), heap0 = heap_bytes();
  printf("ready\n");
  fflush(stdout);
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "go", 2) == 0) {
      for (int i = 0; i < n; i++)
        if (pthread_create(&ths[i], &attr, waiter_main, NULL) != 0)
          die("pthread_create");
    } else if (strncmp(line, "mem", 3) == 0) {
      printf("mem %ld %ld\n", rss_bytes() - rss0, heap_bytes() - heap0);
      fflush(stdout);
    } else if (strncmp(line, "wait", 4) == 0) {
      break;
    }
  }
  for (int i = 0; i < n; i++) pthread_join(ths[i], NULL);
  printf("done\n");
  fflush(stdout);
  pthread_attr_destroy(&attr);
  free(ths);
  zkc_check(zkc_mutex_destroy(worker_mutex), "mutex_destroy");
  zkc_client_close(c);
  return 0;
}

/* ---- d: the coordinator ---- */

typedef struct proc {
  pid_t pid;
  FILE *in, *out;
} proc_t;

static proc_t spawn_worker(const char *path, int waiters) {
  int to[2], from[2];
  if (pipe(to) != 0 || pipe(from) != 0) die("pipe");
  char count[16];
  snprintf(count, sizeof count, "%d", waiters);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    dup2(to[0], 0);
    dup2(from[1], 1);
    close(to[0]), close(to[1]), close(from[0]), close(from[1]);
    execl(cfg.self, cfg.self, "--queue-worker", path, count, (char *)NULL);
    _exit(127);
  }
  close(to[0]), close(from[1]);
  proc_t p = {pid, fdopen(to[1], "w"), fdopen(from[0], "r")};
  if (p.in == NULL || p.out == NULL) die("fdopen");
  return p;
}

static void say(proc_t *p, const char *line) {
  fprintf(p->in, "%s\n", line);
  fflush(p->in);
}

/* Reads the worker's next line, which must start with `word`. */
static void hear(proc_t *p, const char *word, char *line, size_t len) {
  if (fgets(line, (int)len, p->out) == NULL || strncmp(line, word, strlen(word)))
    die("worker %d: expected '%s'", (int)p->pid, word);
}

/* Waits until `path` has `want` children (the whole queue is in). */
static void await_children(zhandle_t *zh, const char *path, int want) {
  int64_t until = now_ns() + (int64_t)300 * 1000000000;
  while (raw_children_count(zh, path) != want) {
    if (now_ns() > until) die("queue on %s never reached %d", path, want);
    sleep_ms(20);
  }
}

/* Waits until the servers report `want` watches, or they stop changing. */
static long await_watches(long want) {
  long seen = -1, now;
  int still = 0;
  while ((now = watches_total()) != want && still < 25) {
    still = now == seen ? still + 1 : 0;
    seen = now;
    sleep_ms(200);
  }
  return now;
}

void scen_queue(void) {
  const int procs = cfg.quick ? 2 : 10, per = cfg.quick ? 50 : 100;
  const int waiters = procs * per, runs = cfg.quick ? 1 : 3;
  char path[200];
  snprintf(path, sizeof path, "%s/d/lock", cfg.root);
  zhandle_t *zh = raw_open();
  double watches[8], all_watches[8], beyond[8], notified[8], woken_max[8], children_events[8], rss[8],
      heap[8], rate[8];
  proc_t *ps = calloc((size_t)procs, sizeof *ps);
  if (ps == NULL) die("out of memory");
  char line[128];
  for (int r = 0; r < runs; r++) {
    zkc_client_t *hc = zkc_open();
    zkc_mutex_t *hm;
    zkc_check(zkc_mutex_create(&hm, hc, path), "mutex_create");
    zkc_check(zkc_mutex_acquire(hm), "acquire");
    for (int i = 0; i < procs; i++) ps[i] = spawn_worker(path, per);
    for (int i = 0; i < procs; i++) hear(&ps[i], "ready", line, sizeof line);
    for (int i = 0; i < procs; i++) say(&ps[i], "go");
    await_children(zh, path, waiters + 1);
    /* The holder watches its own node (to learn of an outside delete), and
     * so does the next in line (to be granted on its predecessor's delete
     * alone): the rest are the waiters' watches, each on its predecessor
     * and, learning ahead, on the node before that. A server keeps one
     * watch per path and session, so watches of waiters in one process
     * coincide (a waiter's ahead is its predecessor's blocker): between
     * 1,001 and 2,001 in all, as the processes' waiters interleave. The
     * count is read once it stops changing. */
    int total = await_watches(2 * waiters + 1);
    watches[r] = (double)(total - 2) / waiters;
    all_watches[r] = (double)total / waiters;
    beyond[r] = total - 2 * waiters;
    long rss_sum = 0, heap_sum = 0;
    for (int i = 0; i < procs; i++) {
      long a, b;
      say(&ps[i], "mem");
      hear(&ps[i], "mem", line, sizeof line);
      if (sscanf(line, "mem %ld %ld", &a, &b) != 2) die("bad answer %s", line);
      rss_sum += a;
      heap_sum += b;
    }
    rss[r] = (double)rss_sum / waiters;
    heap[r] = (double)heap_sum / waiters;
    /* srst clears each server's counters, so max is per this run. */
    for (int s = 1; s <= 3; s++) free(fourlw(s, "srst"));
    double del0 = mntr_sum("zk_sum_node_deleted_watch_count"),
           cnt0 = mntr_sum("zk_cnt_node_deleted_watch_count"),
           ch0 = mntr_sum("zk_sum_node_children_watch_count");
    int64_t t0 = now_ns();
    zkc_check(zkc_mutex_release(hm), "release");
    for (int i = 0; i < procs; i++) say(&ps[i], "wait");
    for (int i = 0; i < procs; i++) {
      hear(&ps[i], "done", line, sizeof line);
      int st;
      waitpid(ps[i].pid, &st, 0);
      fclose(ps[i].in), fclose(ps[i].out);
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) die("worker failed");
    }
    rate[r] = (waiters + 1) / ((double)(now_ns() - t0) / 1e9);
    double del = mntr_sum("zk_sum_node_deleted_watch_count") - del0,
           cnt = mntr_sum("zk_cnt_node_deleted_watch_count") - cnt0;
    /* Every release but the last waiter's has a waiter behind it. A delete
     * notifies its successor, the one behind that (learning ahead) and the
     * releasing holder's own-node watch (one notification per session): at
     * most 3, where a herd would show as many as there are waiters. */
    notified[r] = del / waiters;
    /* Deletes that woke anyone at all, per release with a successor: below
     * 1 would mean a lost wake-up, above means a herd. */
    woken_max[r] = cnt / waiters;
    children_events[r] = mntr_sum("zk_sum_node_children_watch_count") - ch0;
    zkc_check(zkc_mutex_destroy(hm), "mutex_destroy");
    zkc_client_close(hc);
  }
  free(ps);
  raw_close(zh);
  emit("d", waiters, "watches per waiter", "zkcoord", "count", watches, runs);
  emit("d", waiters, "all watches per waiter (with both own nodes)", "zkcoord",
       "count", all_watches, runs);
  emit("d", waiters, "notifications per release", "zkcoord", "count", notified,
       runs);
  emit("d", waiters, "releases waking a waiter", "zkcoord", "share", woken_max,
       runs);
  emit("d", waiters, "children-watch events", "zkcoord", "count",
       children_events, runs);
  emit("d", waiters, "memory per waiter (RSS)", "zkcoord", "B", rss, runs);
  emit("d", waiters, "memory per waiter (heap)", "zkcoord", "B", heap, runs);
  emit("d", waiters, "hand-off rate", "zkcoord", "/s", rate, runs);
  emit("d", waiters, "watches beyond two per waiter", "zkcoord", "count",
       beyond, runs);
  emit_target("d", "watches beyond two per waiter (own nodes of holder and next in line)",
              median_of(beyond, runs), "<=", 2);
  emit_target("d", "notifications per release (successor + next but one + own node)",
              median_of(notified, runs), "<=", 3);
}

/* ---- e: many locks held by one process ---- */

static void fill_paths(char **paths, int n, const char *base) {
  for (int i = 0; i < n; i++) {
    size_t len = strlen(base) + 16;
    if ((paths[i] = malloc(len)) == NULL) die("out of memory");
    snprintf(paths[i], len, "%s/l%05d", base, i);
  }
}

void scen_many(void) {
  const int nlocks = cfg.quick ? 1000 : 10000, chunks = 10;
  const int per = nlocks / chunks, raw_per = cfg.quick ? 50 : 200;
  char base[200];
  snprintf(base, sizeof base, "%s/e", cfg.root);
  zhandle_t *zh = raw_open();
  raw_ensure(zh, base);
  char **paths = calloc((size_t)nlocks, sizeof *paths);
  zkc_mutex_t **ms = calloc((size_t)nlocks, sizeof *ms);
  if (paths == NULL || ms == NULL) die("out of memory");
  fill_paths(paths, nlocks, base);
  raw_bulk(zh, paths, nlocks, 1); /* the parents exist: acquire = 1 create */

  zkc_client_t *c = zkc_open();
  long rss0 = rss_bytes(), heap0 = heap_bytes();
  for (int i = 0; i < nlocks; i++)
    zkc_check(zkc_mutex_create(&ms[i], c, paths[i]), "mutex_create");

  double raw_create[16], raw_delete[16], acq[16], rel[16];
  for (int j = 0; j < chunks; j++) {
    samples_t sc = {0}, sd = {0}, sa = {0};
    for (int i = 0; i < raw_per; i++) { /* raw: one create, one delete */
      char prefix[256], created[300];
      snprintf(prefix, sizeof prefix, "%s/raw-", paths[j * per + i % per]);
      int64_t t0 = now_ns();
      int rc = zoo_create(zh, prefix, "x", 1, &ZOO_OPEN_ACL_UNSAFE,
                          ZOO_EPHEMERAL_SEQUENTIAL, created, sizeof created);
      int64_t t1 = now_ns();
      if (rc == ZOK) rc = zoo_delete(zh, created, -1);
      if (rc != ZOK) die("raw: %s", zerror(rc));
      samples_add(&sc, (double)(t1 - t0) / 1e3);
      samples_add(&sd, (double)(now_ns() - t1) / 1e3);
    }
    for (int i = j * per; i < (j + 1) * per; i++) {
      int64_t t0 = now_ns();
      zkc_check(zkc_mutex_acquire(ms[i]), "acquire");
      samples_add(&sa, (double)(now_ns() - t0) / 1e3);
    }
    raw_create[j] = samples_quantile(&sc, 0.5);
    raw_delete[j] = samples_quantile(&sd, 0.5);
    acq[j] = samples_quantile(&sa, 0.5);
    samples_free(&sc), samples_free(&sd), samples_free(&sa);
  }
  double rss = (double)(rss_bytes() - rss0) / nlocks;
  double heap = (double)(heap_bytes() - heap0) / nlocks;
  for (int j = 0; j < chunks; j++) {
    samples_t sr = {0};
    for (int i = j * per; i < (j + 1) * per; i++) {
      int64_t t0 = now_ns();
      zkc_check(zkc_mutex_release(ms[i]), "release");
      samples_add(&sr, (double)(now_ns() - t0) / 1e3);
    }
    rel[j] = samples_quantile(&sr, 0.5);
    samples_free(&sr);
  }
  for (int i = 0; i < nlocks; i++) zkc_check(zkc_mutex_destroy(ms[i]), "destroy");
  zkc_client_close(c);
  raw_bulk(zh, paths, nlocks, 0);
  for (int i = 0; i < nlocks; i++) free(paths[i]);
  free(paths);
  free(ms);
  raw_close(zh);

  double ratio[16];
  emit("e", nlocks, "acquire p50", "raw", "us", raw_create, chunks);
  emit("e", nlocks, "acquire p50", "zkcoord", "us", acq, chunks);
  for (int j = 0; j < chunks; j++) ratio[j] = acq[j] / raw_create[j];
  emit("e", nlocks, "acquire p50", "zkcoord/raw", "x", ratio, chunks);
  emit("e", nlocks, "release p50", "raw", "us", raw_delete, chunks);
  emit("e", nlocks, "release p50", "zkcoord", "us", rel, chunks);
  for (int j = 0; j < chunks; j++) ratio[j] = rel[j] / raw_delete[j];
  emit("e", nlocks, "release p50", "zkcoord/raw", "x", ratio, chunks);
  emit("e", nlocks, "memory per held lock (RSS)", "zkcoord", "B", &rss, 1);
  emit("e", nlocks, "memory per held lock (heap)", "zkcoord", "B", &heap, 1);
}
