/* SPDX-License-Identifier: Apache-2.0 */
/* rwlock: many readers at once or one writer, with a zkcoord read-write
 * lock (Curator's InterProcessReadWriteLock layout).
 *
 *   rwlock [--connect HOSTS] [--path P] [--readers R] [--writers W]
 *          [--rounds N]
 *
 * The lock guards a file that is not written atomically: a writer reads
 * the generation number in it, then rewrites the file line by line, each
 * line carrying the next generation, with a pause after each line. A reader
 * that came in halfway would see lines of two generations (a torn read),
 * and two writers at once would lose a generation. Readers hold the read
 * side, so they read together; writers hold the write side, alone.
 *
 * Each reader and writer is a thread with a client of its own, as a
 * separate process would be. (Here the file is a temporary one on this
 * host; the same code guards a file on shared storage, or any resource
 * that has no locking of its own, for processes on many machines.) The end:
 *   reads <n>, torn 0, at most <m> readers at once; writes <w>, generation <g>
 * Missing parents are created as container nodes, which the server removes
 * once empty: nothing is left on the ensemble, nor in the file system.
 *
 * Exit status: 0 when no read was torn and the generation counts every
 * write; 1 otherwise (an unreachable ensemble too); 64 for bad usage. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <zkcoord/zkcoord.h>

#define MAX_THREADS 64
#define LINES 5
#define ACQUIRE_TIMEOUT_MS 60000

static const char *connect_string =
    "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183";
static const char *path = "/zkcoord-examples/rwlock";
static char file[4096];
static int rounds = 3;

static atomic_int readers_in, most_readers; /* readers inside, at most */
static atomic_int reads, torn, writes, failures;

static void sleep_ms(int ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* The generation of every line of the file into gen[]; the number of lines
 * read (LINES for a whole file). */
static int read_file(long gen[LINES]) {
  FILE *f = fopen(file, "r");
  if (f == NULL) return 0;
  int n = 0;
  while (n < LINES && fscanf(f, "generation %ld\n", &gen[n]) == 1) n++;
  fclose(f);
  return n;
}

/* Rewrites the file slowly: LINES lines of generation `gen`. */
static int write_file(long gen) {
  FILE *f = fopen(file, "w");
  if (f == NULL) return -1;
  for (int i = 0; i < LINES; i++) {
    fprintf(f, "generation %ld\n", gen);
    fflush(f); /* readers without the lock would see this half */
    sleep_ms(2);
  }
  return fclose(f);
}

/* Under the read side: other readers may be in, writers are not. */
static void reader_round(void) {
  int now = atomic_fetch_add(&readers_in, 1) + 1;
  for (int m = atomic_load(&most_readers); now > m;)
    if (atomic_compare_exchange_weak(&most_readers, &m, now)) break;
  long gen[LINES];
  int n = read_file(gen);
  int whole = n == LINES;
  for (int i = 1; whole && i < n; i++) whole = gen[i] == gen[0];
  if (!whole) atomic_fetch_add(&torn, 1);
  atomic_fetch_add(&reads, 1);
  sleep_ms(10); /* stay a while, so that readers overlap */
  atomic_fetch_sub(&readers_in, 1);
}

/* Under the write side: alone. A read-modify-write of the generation. */
static void writer_round(void) {
  long gen[LINES];
  if (read_file(gen) != LINES || write_file(gen[0] + 1) != 0)
    atomic_fetch_add(&failures, 1);
  atomic_fetch_add(&writes, 1);
}

static void *participant(void *arg) {
  int writer = arg != NULL;
  zkc_client_opts_t copts;
  zkc_client_opts_init(&copts);
  copts.parent_mode = ZKC_PARENTS_CONTAINER;
  zkc_client_t *client = NULL;
  zkc_rwlock_t *rw = NULL;
  int rc = zkc_client_open(&client, connect_string, &copts);
  if (rc == ZKC_OK) rc = zkc_rwlock_create(&rw, client, path);
  /* Each side is a zkc_mutex_t: the mutex calls work on it. */
  zkc_mutex_t *side = writer ? zkc_rwlock_write_side(rw)
                             : zkc_rwlock_read_side(rw);
  for (int i = 0; rc == ZKC_OK && i < rounds; i++) {
    rc = zkc_mutex_acquire_timeout(side, ACQUIRE_TIMEOUT_MS);
    if (rc != ZKC_OK) break;
    if (writer)
      writer_round();
    else
      reader_round();
    rc = zkc_mutex_release(side);
  }
  if (rc != ZKC_OK) {
    fprintf(stderr, "rwlock: %s: %s\n", writer ? "writer" : "reader",
            zkc_strerror(rc));
    atomic_fetch_add(&failures, 1);
  }
  zkc_rwlock_destroy(rw);
  zkc_client_close(client);
  return NULL;
}

static int number(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

int main(int argc, char **argv) {
  int readers = 4, writers = 2;
  const char *env = getenv("ZKCOORD_CONNECT");
  if (env && *env) connect_string = env;
  static const struct option opts[] = {{"connect", required_argument, 0, 'c'},
                                       {"path", required_argument, 0, 'p'},
                                       {"readers", required_argument, 0, 'r'},
                                       {"writers", required_argument, 0, 'w'},
                                       {"rounds", required_argument, 0, 'n'},
                                       {0, 0, 0, 0}};
  int bad = 0;
  for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    if (o == 'c') connect_string = optarg;
    else if (o == 'p') path = optarg;
    else if (o == 'r') bad |= number(optarg, 0, MAX_THREADS / 2, &readers);
    else if (o == 'w') bad |= number(optarg, 0, MAX_THREADS / 2, &writers);
    else if (o == 'n') bad |= number(optarg, 1, 1000, &rounds);
    else bad = 1;
  }
  if (bad || optind < argc) {
    fprintf(stderr, "usage: rwlock [--connect HOSTS] [--path P] "
                    "[--readers R] [--writers W] [--rounds N]\n");
    return 64;
  }

  const char *tmp = getenv("TMPDIR");
  snprintf(file, sizeof file, "%s/zkcoord-rwlock-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(file);
  if (fd < 0 || close(fd) != 0 || write_file(0) != 0) {
    perror("rwlock: temporary file");
    return 1;
  }

  /* Readers and writers start in turns, so that both kinds queue. */
  pthread_t threads[MAX_THREADS];
  int started = 0, r = 0, w = 0, ok = 1;
  while (ok && (r < readers || w < writers)) {
    int writer = w < writers && (w < r || r == readers);
    ok = pthread_create(&threads[started], NULL, participant,
                        writer ? (void *)1 : NULL) == 0;
    started += ok;
    if (writer)
      w++;
    else
      r++;
  }
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);

  long gen[LINES];
  long generation = read_file(gen) == LINES ? gen[0] : -1;
  unlink(file);
  printf("reads %d, torn %d, at most %d readers at once; writes %d, "
         "generation %ld\n", atomic_load(&reads), atomic_load(&torn),
         atomic_load(&most_readers), atomic_load(&writes), generation);
  return ok && atomic_load(&failures) == 0 && atomic_load(&torn) == 0 &&
                 generation == writers * rounds
             ? 0
             : 1;
}
