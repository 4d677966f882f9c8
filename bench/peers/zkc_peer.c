/* zkcoord's mutex in the peer protocol of bench/run.sh (bench/peers/README.md):
 * the same loop as the Curator, kazoo and go-zookeeper peers, so that the
 * libraries are timed alike; one zkcoord client (session) per worker.
 *
 *   zkc_peer CONNECT ROOT ROUND_MS [MEASURE:N...]
 * prints M,measure,n,rate,handoff_p50_us,handoff_p99_us per measure. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

typedef struct peer {
  zkc_client_t *c;
  zkc_mutex_t *m;
  pthread_t th;
} peer_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count;
static int64_t last_release, warm, end;
static int shared;
static samples_t handoffs;

static void *loop(void *arg) {
  peer_t *p = arg;
  while (now_ns() < end) {
    zkc_check(zkc_mutex_acquire(p->m), "acquire");
    int64_t t = now_ns();
    pthread_mutex_lock(&mu);
    if (t > warm && t < end) {
      count++;
      if (shared && last_release) samples_add(&handoffs, (double)(t - last_release) / 1e3);
    }
    if (shared) last_release = now_ns();
    pthread_mutex_unlock(&mu);
    zkc_check(zkc_mutex_release(p->m), "release");
  }
  return NULL;
}

static void run(const char *root, const char *measure, int n, int round_ms) {
  peer_t *ps = calloc((size_t)n, sizeof *ps);
  if (!ps) die("out of memory");
  shared = strcmp(measure, "paths") != 0;
  for (int i = 0; i < n; i++) {
    char path[256];
    int len = snprintf(path, sizeof path, "%s/%s-%d", root, measure, n);
    if (!shared) snprintf(path + len, sizeof path - (size_t)len, "/%d", i);
    ps[i].c = zkc_open();
    zkc_check(zkc_mutex_create(&ps[i].m, ps[i].c, path), "zkc_mutex_create");
  }
  count = 0;
  last_release = 0;
  warm = now_ns() + (int64_t)round_ms / 5 * 1000000;
  end = warm + (int64_t)round_ms * 1000000;
  for (int i = 0; i < n; i++)
    if (pthread_create(&ps[i].th, NULL, loop, &ps[i]) != 0) die("pthread_create");
  for (int i = 0; i < n; i++) pthread_join(ps[i].th, NULL);
  for (int i = 0; i < n; i++) {
    zkc_mutex_destroy(ps[i].m);
    zkc_client_close(ps[i].c);
  }
  free(ps);
  double p50 = -1, p99 = -1;
  if (shared && n > 1) {
    p50 = samples_quantile(&handoffs, 0.5);
    p99 = samples_quantile(&handoffs, 0.99);
  }
  samples_free(&handoffs);
  printf("M,%s,%d,%.1f,%.0f,%.0f\n", measure, n, (double)count / (round_ms / 1e3), p50, p99);
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: zkc_peer CONNECT ROOT ROUND_MS [MEASURE:N...]\n");
    return 2;
  }
  cfg.connect = argv[1];
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  for (int k = 4; k < argc; k++) {
    char name[32];
    int n;
    if (sscanf(argv[k], "%31[^:]:%d", name, &n) != 2 || n < 1) die("bad measure %s", argv[k]);
    run(argv[2], name, n, atoi(argv[3]));
  }
  return 0;
}
