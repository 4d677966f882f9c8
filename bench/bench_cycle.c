/* Uncontended lock cycle against its physical limit, in one run:
 *   raw    create EPHEMERAL_SEQUENTIAL + delete, one session (two quorum
 *          writes: the floor for any ZooKeeper lock cycle)
 *   naive  create, then get children, then delete (one round trip each)
 *   zkcoord  zkc_mutex_acquire + zkc_mutex_release
 *   reentry  re-acquire + release by the holding thread (no network)
 * Each figure is the median of several rounds (min and max shown); the
 * ratios compare zkcoord with raw and naive measured in the same run.
 *
 *   bench_cycle [CONNECT] [CYCLES_PER_ROUND] [ROUNDS]
 */
#define THREADED
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include "zkcoord/zkcoord.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int connected;

static void watcher(zhandle_t *zh, int type, int state, const char *path,
                    void *ctx) {
  (void)zh, (void)path, (void)ctx;
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) {
    pthread_mutex_lock(&mu);
    connected = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
}

static zhandle_t *raw_open(const char *connect) {
  zhandle_t *zh = zookeeper_init2(connect, watcher, 10000, NULL, NULL,
                                  ZOO_NO_LOG_CLIENTENV, NULL);
  pthread_mutex_lock(&mu);
  while (zh && !connected) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return zh;
}

/* One round of n raw cycles; `naive` adds a children read in between. */
static double raw_round(zhandle_t *zh, const char *parent, int n, int naive) {
  char prefix[256], created[512];
  snprintf(prefix, sizeof prefix, "%s/raw-", parent);
  double t0 = now_s();
  for (int i = 0; i < n; i++) {
    if (zoo_create(zh, prefix, "x", 1, &ZOO_OPEN_ACL_UNSAFE,
                   ZOO_EPHEMERAL_SEQUENTIAL, created, sizeof created) != ZOK)
      abort();
    if (naive) {
      struct String_vector v;
      if (zoo_get_children(zh, parent, 0, &v) != ZOK) abort();
      deallocate_String_vector(&v);
    }
    if (zoo_delete(zh, created, -1) != ZOK) abort();
  }
  return n / (now_s() - t0);
}

static double lock_round(zkc_mutex_t *m, int n) {
  double t0 = now_s();
  for (int i = 0; i < n; i++)
    if (zkc_mutex_acquire(m) != ZKC_OK || zkc_mutex_release(m) != ZKC_OK)
      abort();
  return n / (now_s() - t0);
}

typedef struct {
  double med, min, max;
} stat_t;

static stat_t summarize(double *v, int k) {
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return (stat_t){v[k / 2], v[0], v[k - 1]};
}

int main(int argc, char **argv) {
  const char *connect = argc > 1 ? argv[1] : "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183";
  int n = argc > 2 ? atoi(argv[2]) : 500;
  int rounds = argc > 3 ? atoi(argv[3]) : 5;
  if (rounds > 32) rounds = 32;
  zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
  char parent[128];
  snprintf(parent, sizeof parent, "/zkcoord-bench/cycle-%d", (int)getpid());

  zhandle_t *zh = raw_open(connect);
  zkc_client_t *c;
  zkc_mutex_t *m;
  if (zh == NULL || zkc_client_open(&c, connect, NULL) != ZKC_OK ||
      zkc_mutex_create(&m, c, parent) != ZKC_OK) {
    fprintf(stderr, "bench_cycle: cannot reach the ensemble at %s\n", connect);
    return 1;
  }
  /* Creates the parent (persistent) and warms up every path. */
  lock_round(m, 50);
  raw_round(zh, parent, 50, 0);

  double raw[32], naive[32], lock[32], reentry[32];
  for (int r = 0; r < rounds; r++) { /* interleaved: drift hits all alike */
    raw[r] = raw_round(zh, parent, n, 0);
    naive[r] = raw_round(zh, parent, n, 1);
    lock[r] = lock_round(m, n);
  }
  /* The same cycle while already held: only the reentrancy count moves. */
  if (zkc_mutex_acquire(m) != ZKC_OK) abort();
  for (int r = 0; r < rounds; r++) reentry[r] = lock_round(m, 1000000);
  zkc_mutex_release(m);

  stat_t sr = summarize(raw, rounds), sn = summarize(naive, rounds),
         sl = summarize(lock, rounds), se = summarize(reentry, rounds);
  printf("%-28s %12s %12s %12s\n", "cycle (uncontended, 1 session)", "median/s",
         "min/s", "max/s");
  printf("%-28s %12.0f %12.0f %12.0f\n", "raw create+delete", sr.med, sr.min, sr.max);
  printf("%-28s %12.0f %12.0f %12.0f\n", "naive create+list+delete", sn.med, sn.min, sn.max);
  printf("%-28s %12.0f %12.0f %12.0f\n", "zkcoord acquire+release", sl.med, sl.min, sl.max);
  printf("%-28s %12.0f %12.0f %12.0f\n", "reentrant acquire+release", se.med, se.min, se.max);
  printf("ratio zkcoord/raw   %.3f\n", sl.med / sr.med);
  printf("ratio zkcoord/naive %.3f\n", sl.med / sn.med);
  printf("reentrant cycle     %.1f ns\n", 1e9 / se.med);

  zkc_mutex_destroy(m);
  zkc_client_close(c);
  zoo_delete(zh, parent, -1);
  zoo_delete(zh, "/zkcoord-bench", -1);
  zookeeper_close(zh);
  return 0;
}
