/* SPDX-License-Identifier: Apache-2.0 */
/* selector: daemons that take turns leading, with a zkcoord leader selector
 * (Curator's LeaderSelector: the same lock nodes, so Java selectors on the
 * same path join the rotation).
 *
 *   selector [--connect HOSTS] [--path P] [--participants N] [--turns T]
 *            [--lead-ms MS]
 *
 * N participants, each with a client of its own as separate processes
 * would have, run a selector with auto_requeue on P: the leader's callback
 * does one turn of work (MS milliseconds, polling should_stop between
 * steps) and returns, which gives leadership to the next in line; the
 * selector queues again at the back. Each turn prints
 *   turn <t>: <id> leads, token <fencing token>
 * and the end
 *   turns <T> done, at most <m> leading at once, tokens rising: yes|no
 * Missing parents are created as container nodes: nothing is left on the
 * ensemble after the run.
 *
 * Exit status: 0 when T turns ran, never two at once, each with a larger
 * token than the one before; 1 otherwise (an unreachable ensemble too); 64
 * for bad usage. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <zkcoord/zkcoord.h>

#define MAX_PARTICIPANTS 16
#define WAIT_MS 60000 /* the whole run gives up after a minute */

static const char *connect_string =
    "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183";
static const char *path = "/zkcoord-examples/selector";
static int turns = 6, lead_ms = 100;

/* What the turns did, in this process. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int done, leading, most, rising = 1;
static int64_t last_token;

static void sleep_ms(int ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* One turn of leadership: runs on the selector's own thread. */
static void lead(void *ctx, zkc_selector_t *sel) {
  (void)ctx;
  int64_t token = 0;
  zkc_hold_fencing_token(zkc_selector_hold(sel), &token);
  pthread_mutex_lock(&lock);
  if (++leading > most) most = leading;
  if (token <= last_token) rising = 0;
  last_token = token;
  int turn = done + 1;
  pthread_mutex_unlock(&lock);
  printf("turn %d: %s leads, token %lld\n", turn, zkc_selector_id(sel),
         (long long)token);
  fflush(stdout);
  /* The work, in short steps: leadership may be in doubt at any moment. */
  for (int t = 0; t < lead_ms && !zkc_selector_should_stop(sel); t += 10)
    sleep_ms(10);
  pthread_mutex_lock(&lock);
  leading--;
  done++;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
} /* returning gives leadership to the next in line */

static int number(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* Waits until `turns` turns are done or the minute is up. */
static int wait_for_turns(void) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&lock);
  int rc = 0;
  while (done < turns && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&changed, &lock, &until);
  int ok = done >= turns;
  pthread_mutex_unlock(&lock);
  return ok;
}

int main(int argc, char **argv) {
  int participants = 3;
  const char *env = getenv("ZKCOORD_CONNECT");
  if (env && *env) connect_string = env;
  static const struct option opts[] = {
      {"connect", required_argument, 0, 'c'},
      {"path", required_argument, 0, 'p'},
      {"participants", required_argument, 0, 'n'},
      {"turns", required_argument, 0, 't'},
      {"lead-ms", required_argument, 0, 'm'},
      {0, 0, 0, 0}};
  int bad = 0;
  for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    if (o == 'c') connect_string = optarg;
    else if (o == 'p') path = optarg;
    else if (o == 'n') bad |= number(optarg, 1, MAX_PARTICIPANTS, &participants);
    else if (o == 't') bad |= number(optarg, 1, 1000, &turns);
    else if (o == 'm') bad |= number(optarg, 0, 10000, &lead_ms);
    else bad = 1;
  }
  if (bad || optind < argc) {
    fprintf(stderr, "usage: selector [--connect HOSTS] [--path P] "
                    "[--participants N] [--turns T] [--lead-ms MS]\n");
    return 64;
  }

  zkc_client_t *clients[MAX_PARTICIPANTS] = {0};
  zkc_selector_t *sels[MAX_PARTICIPANTS] = {0};
  int rc = ZKC_OK, n = 0;
  for (; rc == ZKC_OK && n < participants; n++) {
    zkc_client_opts_t copts;
    zkc_client_opts_init(&copts);
    copts.parent_mode = ZKC_PARENTS_CONTAINER;
    rc = zkc_client_open(&clients[n], connect_string, &copts);
    char id[32];
    snprintf(id, sizeof id, "participant-%d", n + 1);
    zkc_selector_opts_t sopts;
    zkc_selector_opts_init(&sopts);
    sopts.auto_requeue = 1; /* take turns: queue again after leading */
    sopts.id = id;          /* copied by zkc_selector_create */
    if (rc == ZKC_OK)
      rc = zkc_selector_create(&sels[n], clients[n], path, lead, NULL, &sopts);
    if (rc == ZKC_OK) rc = zkc_selector_start(sels[n]);
  }
  int ok = rc == ZKC_OK && wait_for_turns();
  if (rc != ZKC_OK) fprintf(stderr, "selector: %s\n", zkc_strerror(rc));
  else if (!ok) fprintf(stderr, "selector: %d turns not done in time\n", turns);
  /* Destroying a selector waits for its callback to return. */
  for (int i = 0; i < n; i++) {
    zkc_selector_destroy(sels[i]);
    zkc_client_close(clients[i]);
  }
  pthread_mutex_lock(&lock);
  printf("turns %d done, at most %d leading at once, tokens rising: %s\n",
         done, most, rising ? "yes" : "no");
  ok = ok && most == 1 && rising;
  pthread_mutex_unlock(&lock);
  return ok ? 0 : 1;
}
