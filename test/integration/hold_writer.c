/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper process: takes one grant of a recipe and writes through its
 * hold until stdin closes or it is killed or stopped.
 *   zkt_hold_writer RECIPE CONNECT PATH SESSION_TIMEOUT_MS STORE_PATH
 * RECIPE is one of hold_subject.h's (mutex write multi lease latch
 * selector async). Prints, one line each, flushed:
 *   SESSION <id>     its session id, before it takes part
 *   HELD <token>     once granted: its hold's fencing token
 *   FENCED <rc>      the result of zkc_hold_fenced_set of "<token>" into
 *                    STORE_PATH, tried every 20 ms, printed when it changes
 *   FAILED <rc>      the grant failed (then it exits 1)
 *   DONE             after stdin closed, the grant let go */
#include <poll.h>
#include <unistd.h>

#include "hold_subject.h"

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: zkt_hold_writer RECIPE CONNECT PATH SESSION_MS "
                    "STORE_PATH\n");
    return 64;
  }
  zkc_client_t *c;
  int64_t sid = 0;
  int rc = subject_client(&c, argv[2], argv[4]);
  if (rc == ZKC_OK) rc = zkc_client_session_id(c, &sid);
  if (rc == ZKC_OK) printf("SESSION 0x%llx\n", (unsigned long long)sid);
  fflush(stdout);
  subject_t s;
  if (rc == ZKC_OK) rc = subject_take(&s, argv[1], c, argv[3], 60000);
  zkc_hold_t *h = rc == ZKC_OK ? subject_hold(&s) : NULL;
  int64_t token = 0;
  if (rc == ZKC_OK) rc = zkc_hold_fencing_token(h, &token);
  if (rc != ZKC_OK) {
    printf("FAILED %d\n", rc);
    fflush(stdout);
    return 1;
  }
  printf("HELD %lld\n", (long long)token);
  fflush(stdout);
  char value[32];
  int len = snprintf(value, sizeof value, "%lld", (long long)token);
  int prev = 1; /* no result printed yet */
  for (;;) {
    struct pollfd p = {.fd = 0, .events = POLLIN};
    if (poll(&p, 1, 20) > 0) {
      char buf[64];
      if (read(0, buf, sizeof buf) <= 0) break;
    }
    rc = zkc_hold_fenced_set(h, argv[5], value, (size_t)len);
    if (rc != prev) {
      printf("FENCED %d\n", rc);
      fflush(stdout);
    }
    prev = rc;
  }
  subject_drop(&s);
  zkc_client_close(c);
  printf("DONE\n");
  fflush(stdout);
  return 0;
}
