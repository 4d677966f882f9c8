/* SPDX-License-Identifier: Apache-2.0 */
/* semaphore: at most N jobs at once, however many workers want to run one,
 * with a zkcoord semaphore (Curator's InterProcessSemaphoreV2 layout).
 *
 *   semaphore [--connect HOSTS] [--path P] [--leases N] [--workers W]
 *             [--jobs J] [--job-ms MS]
 *
 * W workers each run J jobs; a job needs one of the N leases of the
 * semaphore on P (think of N licences, or N connections a database
 * accepts). Each worker has a client of its own, as a separate process
 * would: copies of this program on several machines, given the same path
 * and the same N, share the limit. Each job prints
 *   worker <w> job <j>: lease <fencing token>, <n> running here
 * and the end
 *   jobs <total> done, at most <m> at once (limit <N>)
 * Missing parents are created as container nodes, which the server removes
 * once empty: nothing is left on the ensemble after the run.
 *
 * Exit status: 0 when every job ran and never more than N ran at once in
 * this process; 1 otherwise (an unreachable ensemble too); 64 for bad
 * usage. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <zkcoord/zkcoord.h>

#define MAX_WORKERS 64
#define ACQUIRE_TIMEOUT_MS 60000 /* a worker gives up after a minute */

static const char *connect_string =
    "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183";
static const char *path = "/zkcoord-examples/semaphore";
static int leases = 2, jobs = 3, job_ms = 200;

static atomic_int running;  /* jobs running now, in this process */
static atomic_int most;     /* the largest value `running` reached */
static atomic_int done;     /* jobs finished */

static void sleep_ms(int ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* One job, run while holding a lease. */
static void job(int worker, int j, zkc_lease_t *lease) {
  int now = atomic_fetch_add(&running, 1) + 1;
  for (int m = atomic_load(&most); now > m;)
    if (atomic_compare_exchange_weak(&most, &m, now)) break;
  int64_t token = 0;
  zkc_hold_fencing_token(zkc_lease_hold(lease), &token);
  printf("worker %d job %d: lease %lld, %d running here\n", worker, j,
         (long long)token, now);
  sleep_ms(job_ms); /* the work */
  atomic_fetch_sub(&running, 1); /* before the lease goes to someone else */
}

static void *worker(void *arg) {
  int w = (int)(intptr_t)arg;
  zkc_client_opts_t copts;
  zkc_client_opts_init(&copts);
  copts.parent_mode = ZKC_PARENTS_CONTAINER;
  zkc_client_t *client = NULL;
  zkc_sem_t *sem = NULL;
  int rc = zkc_client_open(&client, connect_string, &copts);
  if (rc == ZKC_OK) {
    /* Every user of the path must be given the same limit (or use a shared
     * count node: zkc_sem_opts_t.count_path). */
    zkc_sem_opts_t sopts;
    zkc_sem_opts_init(&sopts);
    sopts.max_leases = leases;
    rc = zkc_sem_create(&sem, client, path, &sopts);
  }
  for (int j = 1; rc == ZKC_OK && j <= jobs; j++) {
    zkc_lease_t *lease = NULL;
    rc = zkc_sem_acquire(sem, 1, ACQUIRE_TIMEOUT_MS, &lease);
    if (rc != ZKC_OK) break;
    job(w, j, lease);
    rc = zkc_lease_free(lease); /* releases the lease, then frees it */
    if (rc == ZKC_OK) atomic_fetch_add(&done, 1);
  }
  if (rc != ZKC_OK)
    fprintf(stderr, "semaphore: worker %d: %s\n", w, zkc_strerror(rc));
  zkc_sem_destroy(sem);
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
                                       {"leases", required_argument, 0, 'n'},
                                       {"workers", required_argument, 0, 'w'},
                                       {"jobs", required_argument, 0, 'j'},
                                       {"job-ms", required_argument, 0, 'm'},
                                       {0, 0, 0, 0}};
  int bad = 0;
  for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    if (o == 'c') connect_string = optarg;
    else if (o == 'p') path = optarg;
    else if (o == 'n') bad |= number(optarg, 1, 1000, &leases);
    else if (o == 'w') bad |= number(optarg, 1, MAX_WORKERS, &workers);
    else if (o == 'j') bad |= number(optarg, 1, 1000, &jobs);
    else if (o == 'm') bad |= number(optarg, 0, 10000, &job_ms);
    else bad = 1;
  }
  if (bad || optind < argc) {
    fprintf(stderr, "usage: semaphore [--connect HOSTS] [--path P] "
                    "[--leases N] [--workers W] [--jobs J] [--job-ms MS]\n");
    return 64;
  }

  pthread_t threads[MAX_WORKERS];
  int started = 0;
  for (; started < workers; started++)
    if (pthread_create(&threads[started], NULL, worker,
                       (void *)(intptr_t)(started + 1)) != 0)
      break;
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);

  int total = atomic_load(&done), peak = atomic_load(&most);
  printf("jobs %d done, at most %d at once (limit %d)\n", total, peak, leases);
  return total == workers * jobs && peak <= leases ? 0 : 1;
}
