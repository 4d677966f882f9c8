/* SPDX-License-Identifier: Apache-2.0 */
/* multilock: several locks taken as one, all or nothing, with a zkcoord
 * multi-lock.
 *
 *   multilock [--connect HOSTS] [--path P] [--accounts K] [--workers W]
 *             [--transfers N]
 *
 * K accounts, each a record guarded by a lock of its own (<P>/account-<k>),
 * so that work on different accounts runs in parallel. A transfer touches
 * two accounts: it takes both locks as one multi-lock. The multi-lock takes
 * its locks in one order (by path) whatever order they are given in, so a
 * transfer from A to B and one from B to A cannot deadlock, and when it
 * fails it holds nothing. Under the locks a transfer reads both balances,
 * pauses, and writes both back: without the locks, concurrent transfers
 * would overwrite each other and money would appear or vanish.
 *
 * W workers make N transfers each between random accounts. Each worker is
 * a thread with a client of its own, as a separate process would be. (Here
 * the records are files in a temporary directory; the same code guards
 * records in any store without transactions, for processes on many
 * machines.) The end:
 *   transfers <n>, total <t> (started with <t0>)
 * Missing parents are created as container nodes, which the server removes
 * once empty: nothing is left on the ensemble, nor in the file system.
 *
 * Exit status: 0 when every transfer was made and the total is unchanged;
 * 1 otherwise (an unreachable ensemble too); 64 for bad usage. */
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

#define MAX_ACCOUNTS 32
#define MAX_WORKERS 32
#define OPENING_BALANCE 1000
#define ACQUIRE_TIMEOUT_MS 60000

static const char *connect_string =
    "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183";
static const char *path = "/zkcoord-examples/bank";
static int accounts = 4, transfers = 5;
static char dir[4096]; /* the accounts' files */

static atomic_int made, failures;

static void sleep_ms(int ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* An account's record: a file holding its balance. */
static void account_file(int k, char *buf, size_t len) {
  snprintf(buf, len, "%s/account-%d", dir, k);
}

static int read_balance(int k, long *balance) {
  char name[4200];
  account_file(k, name, sizeof name);
  FILE *f = fopen(name, "r");
  if (f == NULL) return -1;
  int ok = fscanf(f, "%ld", balance) == 1;
  fclose(f);
  return ok ? 0 : -1;
}

static int write_balance(int k, long balance) {
  char name[4200];
  account_file(k, name, sizeof name);
  FILE *f = fopen(name, "w");
  if (f == NULL) return -1;
  fprintf(f, "%ld\n", balance);
  return fclose(f);
}

/* Moves `amount` from account a to account b; the caller holds both locks. */
static int move(int a, int b, long amount) {
  long from, to;
  if (read_balance(a, &from) != 0 || read_balance(b, &to) != 0) return -1;
  sleep_ms(2); /* where another transfer would slip in without the locks */
  if (write_balance(a, from - amount) != 0) return -1;
  return write_balance(b, to + amount);
}

static void *worker(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  zkc_client_opts_t copts;
  zkc_client_opts_init(&copts);
  copts.parent_mode = ZKC_PARENTS_CONTAINER;
  zkc_client_t *client = NULL;
  zkc_mutex_t *locks[MAX_ACCOUNTS] = {0};
  int rc = zkc_client_open(&client, connect_string, &copts);
  /* One lock per account. */
  for (int k = 0; rc == ZKC_OK && k < accounts; k++) {
    char lock_path[1100];
    snprintf(lock_path, sizeof lock_path, "%s/account-%d", path, k);
    rc = zkc_mutex_create(&locks[k], client, lock_path);
  }
  for (int i = 0; rc == ZKC_OK && i < transfers; i++) {
    int a = rand_r(&seed) % accounts;
    int b = (a + 1 + rand_r(&seed) % (accounts - 1)) % accounts;
    /* The pair, as this transfer names it: from, to. */
    zkc_mutex_t *pair[2] = {locks[a], locks[b]};
    zkc_multilock_t *both = NULL;
    rc = zkc_multilock_create(&both, pair, 2);
    if (rc == ZKC_OK)
      rc = zkc_multilock_acquire_timeout(both, ACQUIRE_TIMEOUT_MS);
    if (rc == ZKC_OK) {
      if (move(a, b, 1 + rand_r(&seed) % 10) == 0)
        atomic_fetch_add(&made, 1);
      else
        atomic_fetch_add(&failures, 1);
      rc = zkc_multilock_release(both);
    }
    zkc_multilock_destroy(both);
  }
  if (rc != ZKC_OK) {
    fprintf(stderr, "multilock: %s\n", zkc_strerror(rc));
    atomic_fetch_add(&failures, 1);
  }
  for (int k = 0; k < accounts; k++) zkc_mutex_destroy(locks[k]);
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
  int workers = 4;
  const char *env = getenv("ZKCOORD_CONNECT");
  if (env && *env) connect_string = env;
  static const struct option opts[] = {{"connect", required_argument, 0, 'c'},
                                       {"path", required_argument, 0, 'p'},
                                       {"accounts", required_argument, 0, 'a'},
                                       {"workers", required_argument, 0, 'w'},
                                       {"transfers", required_argument, 0, 'n'},
                                       {0, 0, 0, 0}};
  int bad = 0;
  for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    if (o == 'c') connect_string = optarg;
    else if (o == 'p') path = optarg;
    else if (o == 'a') bad |= number(optarg, 2, MAX_ACCOUNTS, &accounts);
    else if (o == 'w') bad |= number(optarg, 1, MAX_WORKERS, &workers);
    else if (o == 'n') bad |= number(optarg, 1, 1000, &transfers);
    else bad = 1;
  }
  if (bad || optind < argc) {
    fprintf(stderr, "usage: multilock [--connect HOSTS] [--path P] "
                    "[--accounts K] [--workers W] [--transfers N]\n");
    return 64;
  }

  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/zkcoord-multilock-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(dir) == NULL) {
    perror("multilock: temporary directory");
    return 1;
  }
  int ok = 1;
  for (int k = 0; k < accounts; k++)
    ok &= write_balance(k, OPENING_BALANCE) == 0;

  pthread_t threads[MAX_WORKERS];
  int started = 0;
  for (; ok && started < workers; started++)
    if (pthread_create(&threads[started], NULL, worker,
                       (void *)(uintptr_t)(started + 1)) != 0)
      break;
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);

  long total = 0;
  for (int k = 0; k < accounts; k++) {
    long balance = 0;
    ok &= read_balance(k, &balance) == 0;
    total += balance;
    char name[4200];
    account_file(k, name, sizeof name);
    unlink(name);
  }
  rmdir(dir);
  long opening = (long)accounts * OPENING_BALANCE;
  printf("transfers %d, total %ld (started with %ld)\n", atomic_load(&made),
         total, opening);
  return ok && atomic_load(&failures) == 0 &&
                 atomic_load(&made) == workers * transfers && total == opening
             ? 0
             : 1;
}
