/* SPDX-License-Identifier: Apache-2.0 */
/* metrics: a daemon that exports what its lock does, for node_exporter's
 * textfile collector.
 *
 *   metrics [--connect HOSTS] [--path P] [--rounds N] [--hold-ms MS]
 *           --out FILE
 *
 * Takes the mutex on P N times, holding it MS each time, and after each
 * round writes the client's stats as Prometheus text to FILE: first to a
 * temporary file beside it, then renamed over FILE, so that a collector
 * reading FILE never sees half of it. Point node_exporter's
 * --collector.textfile.directory at FILE's directory (FILE must end in
 * .prom). At the end it prints
 *   rounds <n> done, <acquires> acquires counted, wrote <FILE>
 *
 * Exit status: 0 when every round ran and every write succeeded; 1
 * otherwise (an unreachable ensemble too); 64 for bad usage. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zkcoord/zkcoord.h>

static const char *connect_string =
    "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183";
static const char *path = "/zkcoord-examples/metrics";
static const char *out;
static int rounds = 5, hold_ms = 20;

static void sleep_ms(int ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* The client's stats to `out`, whole or not at all: written beside it,
 * then renamed over it. */
static int export_to(zkc_client_t *client, const char *file) {
  char *text = NULL;
  size_t len = 0;
  int rc = zkc_client_prometheus(client, &text, &len);
  if (rc != ZKC_OK) {
    fprintf(stderr, "metrics: %s\n", zkc_strerror(rc));
    return -1;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", file);
  FILE *f = fopen(tmp, "w");
  int ok = f != NULL && fwrite(text, 1, len, f) == len;
  ok = f != NULL && fclose(f) == 0 && ok;
  ok = ok && rename(tmp, file) == 0;
  if (!ok) perror(file);
  free(text);
  return ok ? 0 : -1;
}

static int usage(void) {
  fprintf(stderr, "usage: metrics [--connect HOSTS] [--path P] [--rounds N] "
                  "[--hold-ms MS] --out FILE\n");
  return 64;
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {
      {"connect", required_argument, NULL, 'c'},
      {"path", required_argument, NULL, 'p'},
      {"rounds", required_argument, NULL, 'n'},
      {"hold-ms", required_argument, NULL, 'm'},
      {"out", required_argument, NULL, 'o'},
      {NULL, 0, NULL, 0}};
  for (int ch; (ch = getopt_long(argc, argv, "", longopts, NULL)) != -1;) {
    if (ch == 'c') connect_string = optarg;
    else if (ch == 'p') path = optarg;
    else if (ch == 'n') rounds = atoi(optarg);
    else if (ch == 'm') hold_ms = atoi(optarg);
    else if (ch == 'o') out = optarg;
    else return usage();
  }
  if (optind != argc || out == NULL || rounds < 1 || hold_ms < 0)
    return usage();

  zkc_client_opts_t opts;
  zkc_client_opts_init(&opts);
  opts.parent_mode = ZKC_PARENTS_CONTAINER; /* nothing left after the run */
  zkc_client_t *client = NULL;
  int rc = zkc_client_open(&client, connect_string, &opts);
  if (rc != ZKC_OK) {
    fprintf(stderr, "metrics: cannot connect: %s\n", zkc_strerror(rc));
    return 1;
  }
  zkc_mutex_t *lock = NULL;
  rc = zkc_mutex_create(&lock, client, path);
  int failed = rc != ZKC_OK, n = 0;
  for (; !failed && n < rounds; n++) {
    if ((rc = zkc_mutex_acquire_timeout(lock, 30000)) != ZKC_OK) break;
    sleep_ms(hold_ms); /* the work the lock protects */
    rc = zkc_mutex_release(lock);
    failed = rc != ZKC_OK || export_to(client, out) != 0;
  }
  if (rc != ZKC_OK) fprintf(stderr, "metrics: %s\n", zkc_strerror(rc));
  zkc_lock_stats_t stats = {0};
  if (lock != NULL) zkc_mutex_stats(lock, &stats);
  printf("rounds %d done, %llu acquires counted, wrote %s\n", n,
         (unsigned long long)stats.acquires, out);
  zkc_mutex_destroy(lock);
  zkc_client_close(client);
  return failed || rc != ZKC_OK || n != rounds ? 1 : 0;
}
