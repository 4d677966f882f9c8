/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper process: a leader latch participant.
 *   zkt_latch_holder CONNECT PATH ID SESSION_TIMEOUT_MS
 * Prints, one line each, flushed:
 *   SESSION <id>                    its session id (0x<hex>, as 4-letter
 *                                   words show it), before it takes part
 *   STATE <n> <name>                every connection state change
 *   LEADER <token> <monotonic ns>   when it becomes leader
 *   NOTLEADER <monotonic ns>        when it stops being leader
 *   CLOSED                          after stdin closed (close NOTIFY_LEADER)
 * With $ZKT_LATCH_SELECTOR set it takes part through a leader selector
 * (auto_requeue) instead: LEADER as take_leadership starts, NOTLEADER as it
 * returns (once should_stop is 1), CLOSED after stdin closed and the
 * selector was closed.
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

static void on_state(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)ctx, (void)c;
  printf("STATE %d %s\n", (int)st, zkc_state_name(st));
  fflush(stdout);
}

static void say_leader(int64_t token) {
  printf("LEADER %lld %lld\n", (long long)token, now_ns());
  fflush(stdout);
}

static void say_not_leader(void) {
  printf("NOTLEADER %lld\n", now_ns());
  fflush(stdout);
}

static void is_leader(void *ctx, zkc_latch_t *l) {
  (void)ctx;
  int64_t token = 0;
  zkc_hold_fencing_token(zkc_latch_hold(l), &token);
  say_leader(token);
}

static void not_leader(void *ctx, zkc_latch_t *l) {
  (void)ctx, (void)l;
  say_not_leader();
}

/* The selector's turn: leads until told to stop. */
static void take_leadership(void *ctx, zkc_selector_t *s) {
  (void)ctx;
  int64_t token = 0;
  zkc_hold_fencing_token(zkc_selector_hold(s), &token);
  say_leader(token);
  while (!zkc_selector_should_stop(s)) usleep(1000);
  say_not_leader();
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: zkt_latch_holder CONNECT PATH ID SESSION_MS\n");
    return 64;
  }
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = atoi(argv[4]);
  zkc_client_t *c;
  zkc_latch_t *l = NULL;
  zkc_selector_t *s = NULL;
  int64_t sid = 0;
  int rc = zkc_client_open(&c, argv[1], &o);
  if (rc == ZKC_OK) rc = zkc_client_add_listener(c, on_state, NULL);
  if (rc == ZKC_OK) rc = zkc_client_session_id(c, &sid);
  if (rc == ZKC_OK) {
    printf("SESSION 0x%llx\n", (unsigned long long)sid);
    fflush(stdout);
  }
  if (rc == ZKC_OK && getenv("ZKT_LATCH_SELECTOR") != NULL) {
    zkc_selector_opts_t so;
    zkc_selector_opts_init(&so);
    so.auto_requeue = 1;
    so.id = argv[3];
    rc = zkc_selector_create(&s, c, argv[2], take_leadership, NULL, &so);
    if (rc == ZKC_OK) rc = zkc_selector_start(s);
  } else if (rc == ZKC_OK) {
    zkc_latch_opts_t lo;
    zkc_latch_opts_init(&lo);
    lo.is_leader = is_leader;
    lo.not_leader = not_leader;
    rc = zkc_latch_create(&l, c, argv[2], argv[3], &lo);
    if (rc == ZKC_OK) rc = zkc_latch_start(l);
  }
  if (rc != ZKC_OK) {
    fprintf(stderr, "zkt_latch_holder: %s\n", zkc_strerror(rc));
    return 1;
  }
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
  if (s != NULL) {
    zkc_selector_close(s);
  } else {
    zkc_latch_close(l, ZKC_CLOSE_NOTIFY_LEADER);
  }
  printf("CLOSED\n");
  fflush(stdout);
  zkc_selector_destroy(s);
  zkc_latch_destroy(l);
  zkc_client_close(c);
  return 0;
}
