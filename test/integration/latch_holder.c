/* Test helper process: a leader latch participant.
 *   zkt_latch_holder CONNECT PATH ID SESSION_TIMEOUT_MS
 * Prints, one line each, flushed:
 *   LEADER <token> <monotonic ns>   when it becomes leader
 *   NOTLEADER <monotonic ns>        when it stops being leader
 *   CLOSED                          after stdin closed (close NOTIFY_LEADER)
 * Runs until stdin closes or it is killed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "zkcoord/zkcoord.h"

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void is_leader(void *ctx, zkc_latch_t *l) {
  (void)ctx;
  int64_t token = 0;
  zkc_latch_fencing_token(l, &token);
  printf("LEADER %lld %lld\n", (long long)token, now_ns());
  fflush(stdout);
}

static void not_leader(void *ctx, zkc_latch_t *l) {
  (void)ctx, (void)l;
  printf("NOTLEADER %lld\n", now_ns());
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: zkt_latch_holder CONNECT PATH ID SESSION_MS\n");
    return 64;
  }
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = atoi(argv[4]);
  zkc_latch_opts_t lo;
  zkc_latch_opts_init(&lo);
  lo.is_leader = is_leader;
  lo.not_leader = not_leader;
  zkc_client_t *c;
  zkc_latch_t *l = NULL;
  int rc = zkc_client_open(&c, argv[1], &o);
  if (rc == ZKC_OK) rc = zkc_latch_create(&l, c, argv[2], argv[3], &lo);
  if (rc == ZKC_OK) rc = zkc_latch_start(l);
  if (rc != ZKC_OK) {
    fprintf(stderr, "zkt_latch_holder: %s\n", zkc_strerror(rc));
    return 1;
  }
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
  zkc_latch_close(l, ZKC_CLOSE_NOTIFY_LEADER);
  printf("CLOSED\n");
  fflush(stdout);
  zkc_latch_destroy(l);
  zkc_client_close(c);
  return 0;
}
