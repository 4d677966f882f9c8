/* SPDX-License-Identifier: Apache-2.0 */
/* scheduler: a daemon of which exactly one copy does the periodic work.
 *
 *   scheduler [--connect HOSTS] [--id ID] [--path P] [--ticks N]
 *
 * Run three copies: they elect a leader through a zkcoord leader latch
 * (Curator LeaderLatch compatible); the leader prints
 *   tick <n> leader=<id> token=<fencing token>
 * twice a second. Kill it and another copy takes over within the session
 * timeout (at once if it exits cleanly). The fencing token (the czxid of
 * the leader's latch node) grows with every new leader: a store that
 * remembers the largest token seen can refuse a deposed leader's writes.
 * --ticks N: exit after printing N ticks (default 0 = run until SIGINT or
 * SIGTERM). --connect defaults to $ZKCOORD_CONNECT, else the three local
 * servers. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zkcoord/zkcoord.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

/* Runs on the latch's thread: must not block. */
static void is_leader(void *ctx, zkc_latch_t *latch) {
  (void)ctx;
  fprintf(stderr, "scheduler %s: now leader\n", zkc_latch_id(latch));
}

static void not_leader(void *ctx, zkc_latch_t *latch) {
  (void)ctx;
  fprintf(stderr, "scheduler %s: no longer leader\n", zkc_latch_id(latch));
}

int main(int argc, char **argv) {
  const char *connect = "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183";
  const char *id = NULL, *path = "/zkcoord-examples/scheduler";
  long ticks = 0;
  const char *env = getenv("ZKCOORD_CONNECT");
  if (env != NULL && *env != '\0') connect = env;
  static const struct option opts[] = {{"connect", required_argument, 0, 'c'},
                                       {"id", required_argument, 0, 'i'},
                                       {"path", required_argument, 0, 'p'},
                                       {"ticks", required_argument, 0, 't'},
                                       {0, 0, 0, 0}};
  for (int o; (o = getopt_long(argc, argv, "c:i:p:t:", opts, NULL)) != -1;) {
    if (o == 'c') connect = optarg;
    else if (o == 'i') id = optarg;
    else if (o == 'p') path = optarg;
    else if (o == 't') ticks = atol(optarg);
    else {
      fprintf(stderr, "usage: scheduler [--connect HOSTS] [--id ID] "
                      "[--path P] [--ticks N]\n");
      return 64;
    }
  }
  char fallback[64];
  if (id == NULL) {
    snprintf(fallback, sizeof fallback, "scheduler-%d", (int)getpid());
    id = fallback;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);

  zkc_client_opts_t copts;
  zkc_client_opts_init(&copts);
  copts.session_timeout_ms = 4000;
  copts.lost_on_suspended = 1; /* stop ticking as soon as the link drops */
  /* Missing parents of the election path become containers: the server
   * removes them once the last copy has left. */
  copts.parent_mode = ZKC_PARENTS_CONTAINER;
  zkc_client_t *client;
  int rc = zkc_client_open(&client, connect, &copts);
  if (rc != ZKC_OK) {
    fprintf(stderr, "scheduler: %s\n", zkc_strerror(rc));
    return 1;
  }
  zkc_latch_opts_t lopts;
  zkc_latch_opts_init(&lopts);
  lopts.is_leader = is_leader;
  lopts.not_leader = not_leader;
  zkc_latch_t *latch = NULL;
  rc = zkc_latch_create(&latch, client, path, id, &lopts);
  if (rc == ZKC_OK) rc = zkc_latch_start(latch);

  long n = 0;
  while (rc == ZKC_OK && !stop && (ticks == 0 || n < ticks)) {
    rc = zkc_latch_await(latch, 500); /* wake up now and then for signals */
    if (rc == ZKC_ETIMEDOUT) {
      rc = ZKC_OK;
      continue;
    }
    int64_t token;
    if (rc == ZKC_OK && zkc_hold_fencing_token(zkc_latch_hold(latch), &token) == ZKC_OK) {
      /* The work: a real scheduler would pass `token` with every write. */
      printf("tick %ld leader=%s token=%lld\n", ++n, id, (long long)token);
      fflush(stdout);
      usleep(500 * 1000);
    }
  }
  if (rc != ZKC_OK) fprintf(stderr, "scheduler: %s\n", zkc_strerror(rc));
  zkc_latch_close(latch, ZKC_CLOSE_NOTIFY_LEADER);
  zkc_latch_destroy(latch);
  zkc_client_close(client);
  return rc == ZKC_OK ? 0 : 1;
}
