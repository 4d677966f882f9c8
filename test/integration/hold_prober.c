/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper process: takes one grant of a recipe, watches it through its
 * hold's loss notice and answers what the hold says when asked, so that a
 * test can stop it past its session and look at its hold afterwards.
 *   zkt_hold_prober RECIPE CONNECT PATH SESSION_TIMEOUT_MS PROBE_PATH
 * RECIPE is one of hold_subject.h's. A leader's term is watched through a
 * hold bound to it (its view would follow a later term). Prints, one line
 * each, flushed:
 *   HELD <token>     once granted: its hold's fencing token
 *   LOST <reason> <token>   told by the hold's loss notice
 *   CHECK <token_rc> <token> <is_held> <get_rc> <set_rc> <cas_rc> <create_rc>
 *                    for each line read from stdin: the hold's token, and
 *                    its fenced calls on PROBE_PATH
 *   FAILED <rc>      the grant failed (then it exits 1)
 *   DONE             after stdin closed, the grant let go */
#include <unistd.h>

#include "hold_subject.h"

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *line) {
  pthread_mutex_lock(&out_mu);
  fputs(line, stdout);
  fflush(stdout);
  pthread_mutex_unlock(&out_mu);
}

static void on_lost(void *ctx, zkc_lost_reason_t why, int64_t token) {
  (void)ctx;
  char line[64];
  snprintf(line, sizeof line, "LOST %d %lld\n", (int)why, (long long)token);
  say(line);
}

static void check(zkc_hold_t *h, const char *probe) {
  int64_t token = 0;
  int token_rc = zkc_hold_fencing_token(h, &token);
  char *data = NULL;
  size_t len = 0;
  int32_t version = 0;
  int get_rc = zkc_hold_fenced_get(h, probe, &data, &len, &version);
  free(data);
  int set_rc = zkc_hold_fenced_set(h, probe, "p", 1);
  int cas_rc = zkc_hold_fenced_cas(h, probe, "p", 1, 0, NULL);
  int create_rc = zkc_hold_fenced_create(h, probe, "p", 1);
  char line[160];
  snprintf(line, sizeof line, "CHECK %d %lld %d %d %d %d %d\n", token_rc,
           (long long)token, zkc_hold_is_held(h), get_rc, set_rc, cas_rc,
           create_rc);
  say(line);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: zkt_hold_prober RECIPE CONNECT PATH SESSION_MS "
                    "PROBE_PATH\n");
    return 64;
  }
  zkc_client_t *c;
  int rc = subject_client(&c, argv[2], argv[4]);
  subject_t s;
  if (rc == ZKC_OK) rc = subject_take(&s, argv[1], c, argv[3], 60000);
  zkc_hold_t *h = rc == ZKC_OK ? subject_hold(&s) : NULL, *bound = NULL;
  if (rc == ZKC_OK && (s.latch || s.sel)) rc = zkc_hold_bind(h, &bound);
  if (bound) h = bound;
  int64_t token = 0;
  if (rc == ZKC_OK) rc = zkc_hold_fencing_token(h, &token);
  if (rc == ZKC_OK) rc = zkc_hold_set_lost_callback(h, on_lost, NULL);
  char line[160];
  if (rc != ZKC_OK) {
    snprintf(line, sizeof line, "FAILED %d\n", rc);
    say(line);
    return 1;
  }
  snprintf(line, sizeof line, "HELD %lld\n", (long long)token);
  say(line);
  while (fgets(line, sizeof line, stdin) != NULL) check(h, argv[5]);
  (void)zkc_hold_set_lost_callback(h, NULL, NULL);
  if (bound) zkc_hold_free(bound);
  subject_drop(&s);
  zkc_client_close(c);
  say("DONE\n");
  return 0;
}
