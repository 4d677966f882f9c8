/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper process: takes a multi-lock over the given paths, in the
 * given order, ROUNDS times in a row.
 *   zkt_multilock_racer CONNECT ROUNDS MARKER PATH...
 * Each round first tries at once; when that fails it checks that no lock of
 * the set is held (all or nothing), then waits up to 60 s. While holding it
 * creates MARKER exclusively (O_CREAT|O_EXCL): a marker already there means
 * another process holds an overlapping set at the same time.
 * Prints "DONE <rounds> <failed tries>" and exits 0; 1 on an error,
 * 2 when a failed try left part of the set held, 3 on an overlap,
 * 64 on a bad command line. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "zkcoord/zkcoord.h"

#define MAX_LOCKS 8

static void nap_ms(long ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  int n = argc - 4;
  if (n < 1 || n > MAX_LOCKS) return 64;
  int rounds = atoi(argv[2]);
  const char *marker = argv[3];
  zkc_client_t *c;
  if (zkc_client_open(&c, argv[1], NULL) != ZKC_OK) return 1;
  zkc_mutex_t *m[MAX_LOCKS];
  for (int i = 0; i < n; i++)
    if (zkc_mutex_create(&m[i], c, argv[4 + i]) != ZKC_OK) return 1;
  zkc_multilock_t *ml;
  if (zkc_multilock_create(&ml, m, (size_t)n) != ZKC_OK) return 1;
  int failed_tries = 0, status = 0, done = 0;
  for (; done < rounds && status == 0; done++) {
    int rc = zkc_multilock_acquire_timeout(ml, 0);
    if (rc == ZKC_ETIMEDOUT) {
      failed_tries++;
      for (int i = 0; i < n; i++)
        if (zkc_mutex_is_owned_by_current_thread(m[i])) status = 2;
      if (status) break;
      rc = zkc_multilock_acquire_timeout(ml, 60000);
    }
    if (rc != ZKC_OK) {
      fprintf(stderr, "acquire: %s\n", zkc_strerror(rc));
      status = 1;
      break;
    }
    int fd = open(marker, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0) {
      status = errno == EEXIST ? 3 : 1;
    } else {
      nap_ms(2); /* a short critical section, so the other side queues */
      close(fd);
      unlink(marker);
    }
    if (zkc_multilock_release(ml) != ZKC_OK && status == 0) status = 1;
  }
  printf("DONE %d %d\n", done, failed_tries);
  fflush(stdout);
  zkc_multilock_destroy(ml);
  for (int i = 0; i < n; i++) zkc_mutex_destroy(m[i]);
  zkc_client_close(c);
  return status;
}
