/* Curator's InterProcessMutex (Java, Debian's Curator 5.4) and zkcoord queue
 * on one lock path: mutual exclusion holds across both and each sees the
 * other in the participant list. Curator's InterProcessSemaphoreV2 and
 * zkcoord's semaphore on one path never exceed the limit together. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define C_THREADS 2
#define MAX_HOLDS 4096

struct shared {
  char path[512], marker[512];
  atomic_int stop, overlaps, saw_curator, errors, holds;
  int64_t iv[MAX_HOLDS][2];
};

static int is_curator_node(const char *node) {
  char data[128];
  return zkt_get_data(node, data, sizeof data) > 0 &&
         strncmp(data, "curator:", 8) == 0;
}

static void *c_contender(void *arg) {
  struct shared *s = arg;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  if (zkc_mutex_create(&m, c, s->path) != ZKC_OK) abort();
  for (int i = 0; !atomic_load(&s->stop) || i < 10; i++) {
    if (zkc_mutex_acquire(m) != ZKC_OK) {
      atomic_fetch_add(&s->errors, 1);
      break;
    }
    int64_t start = zkt_now_ns();
    int fd = open(s->marker, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0 && errno == EEXIST) atomic_fetch_add(&s->overlaps, 1);
    char **nodes;
    size_t n;
    if (zkc_mutex_participant_nodes(m, &nodes, &n) == ZKC_OK) {
      for (size_t k = 1; k < n; k++)
        if (is_curator_node(nodes[k])) atomic_store(&s->saw_curator, 1);
      zkc_strings_free(nodes, n);
    }
    usleep(20000); /* the work done under the lock */
    if (fd >= 0) {
      close(fd);
      unlink(s->marker);
    }
    int k = atomic_fetch_add(&s->holds, 1);
    if (k < MAX_HOLDS) s->iv[k][0] = start, s->iv[k][1] = zkt_now_ns();
    zkc_mutex_release(m);
  }
  zkc_mutex_destroy(m);
  zkc_client_close(c);
  return NULL;
}

/* Reads the Curator contender's lines until it exits: its holds (HELD
 * <node> <start> <end>, at most 64) into jiv; *done on DONE, *saw_other
 * when it says saw_other=true, *overlaps counts OVERLAP. Returns the
 * number of holds. */
static int read_curator(zkt_proc_t *java, int64_t (*jiv)[2], int *done,
                        int *saw_other, atomic_int *overlaps) {
  char line[2048];
  int holds = 0;
  while (zkt_read_line(java, line, sizeof line, zkt_ms(60000))) {
    long long a, b;
    char node[1024];
    if (sscanf(line, "HELD %1023s %lld %lld", node, &a, &b) == 3 && holds < 64) {
      jiv[holds][0] = a, jiv[holds][1] = b;
      holds++;
    }
    if (strncmp(line, "DONE", 4) == 0) {
      *done = 1;
      *saw_other = strstr(line, "saw_other=true") != NULL;
    }
    if (strcmp(line, "OVERLAP") == 0) atomic_fetch_add(overlaps, 1);
  }
  return holds;
}

static void curator_mutex_shares_queue(void **state) {
  (void)state;
  struct shared *s = calloc(1, sizeof *s);
  snprintf(s->path, sizeof s->path, "%s", zkt_path("lock"));
  snprintf(s->marker, sizeof s->marker, "%s/interop-marker-%d",
           getenv("ZKT_BUILD") ? getenv("ZKT_BUILD") : "/tmp", (int)getpid());
  unlink(s->marker);
  char script[1024];
  snprintf(script, sizeof script, "%s/run-curator.sh", getenv("ZKT_INTEROP"));
  char *argv[] = {script, getenv("ZKT_BUILD"), "mutex", (char *)zkt_connect(),
                  s->path, "20", "20", s->marker, NULL};
  pthread_t t[C_THREADS];
  for (int i = 0; i < C_THREADS; i++) pthread_create(&t[i], NULL, c_contender, s);
  zkt_proc_t java = zkt_spawn(argv);

  int done = 0, saw_other = 0;
  int64_t (*jiv)[2] = calloc(64, sizeof *jiv);
  int java_holds = read_curator(&java, jiv, &done, &saw_other, &s->overlaps);
  atomic_store(&s->stop, 1);
  int status = zkt_wait(&java, zkt_ms(30000));
  for (int i = 0; i < C_THREADS; i++) pthread_join(t[i], NULL);

  assert_int_equal(status, 0);
  assert_true(done);
  assert_int_equal(java_holds, 20);
  assert_int_equal(atomic_load(&s->errors), 0);
  assert_int_equal(atomic_load(&s->overlaps), 0);
  assert_true(saw_other);                     /* Curator saw zkcoord's nodes */
  assert_true(atomic_load(&s->saw_curator));  /* and zkcoord saw Curator's */
  /* No zkcoord hold overlaps a Curator hold (same monotonic clock). */
  int holds = atomic_load(&s->holds);
  if (holds > MAX_HOLDS) holds = MAX_HOLDS;
  for (int j = 0; j < java_holds; j++)
    for (int k = 0; k < holds; k++)
      if (s->iv[k][0] < jiv[j][1] && jiv[j][0] < s->iv[k][1])
        fail_msg("zkcoord hold %d overlaps Curator hold %d", k, j);
  printf("interop: %d Curator holds, %d zkcoord holds, no overlap\n", java_holds, holds);
  free(jiv);
  free(s);
}

/* ---- semaphore ---- */

#define SEM_MAX 2
#define SEM_C_THREADS 3

struct sem_shared {
  char path[512];
  atomic_int stop, saw_curator, errors, holds;
  int64_t iv[MAX_HOLDS][2];
};

static void *c_lease_taker(void *arg) {
  struct sem_shared *s = arg;
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = SEM_MAX;
  zkc_sem_t *sem;
  if (zkc_sem_create(&sem, c, s->path, &o) != ZKC_OK) abort();
  for (int i = 0; !atomic_load(&s->stop) || i < 10; i++) {
    zkc_lease_t *l;
    if (zkc_sem_acquire(sem, 1, zkt_ms(60000), &l) != ZKC_OK) {
      atomic_fetch_add(&s->errors, 1);
      break;
    }
    int64_t start = zkt_now_ns();
    zkc_contender_t *leases, *queue;
    size_t nl, nq;
    if (zkc_sem_contenders(c, s->path, &leases, &nl, &queue, &nq) == ZKC_OK) {
      for (size_t k = 0; k < nl; k++)
        if (strncmp(leases[k].data, "curator:", 8) == 0)
          atomic_store(&s->saw_curator, 1);
      zkc_contenders_free(leases, nl);
      zkc_contenders_free(queue, nq);
    }
    usleep(20000); /* the work done under the lease */
    int k = atomic_fetch_add(&s->holds, 1);
    if (k < MAX_HOLDS) s->iv[k][0] = start, s->iv[k][1] = zkt_now_ns();
    zkc_lease_free(l);
  }
  zkc_sem_destroy(sem);
  zkc_client_close(c);
  return NULL;
}

static void curator_semaphore_shares_limit(void **state) {
  (void)state;
  struct sem_shared *s = calloc(1, sizeof *s);
  snprintf(s->path, sizeof s->path, "%s", zkt_path("sem"));
  char script[1024], max[8];
  snprintf(script, sizeof script, "%s/run-curator.sh", getenv("ZKT_INTEROP"));
  snprintf(max, sizeof max, "%d", SEM_MAX);
  char *argv[] = {script, getenv("ZKT_BUILD"), "semaphore", (char *)zkt_connect(),
                  s->path, max, "20", "20", NULL};
  pthread_t t[SEM_C_THREADS];
  for (int i = 0; i < SEM_C_THREADS; i++)
    pthread_create(&t[i], NULL, c_lease_taker, s);
  zkt_proc_t java = zkt_spawn(argv);

  int done = 0, saw_other = 0;
  atomic_int overlaps = 0;
  int64_t (*jiv)[2] = calloc(64, sizeof *jiv);
  int java_holds = read_curator(&java, jiv, &done, &saw_other, &overlaps);
  atomic_store(&s->stop, 1);
  int status = zkt_wait(&java, zkt_ms(30000));
  for (int i = 0; i < SEM_C_THREADS; i++) pthread_join(t[i], NULL);

  assert_int_equal(status, 0);
  assert_true(done);
  assert_int_equal(java_holds, 20);
  assert_int_equal(atomic_load(&s->errors), 0);
  assert_true(atomic_load(&s->saw_curator)); /* one semaphore, both kinds */
  int holds = atomic_load(&s->holds);
  if (holds > MAX_HOLDS) holds = MAX_HOLDS;
  int64_t st[MAX_HOLDS + 64], en[MAX_HOLDS + 64];
  for (int k = 0; k < holds; k++) st[k] = s->iv[k][0], en[k] = s->iv[k][1];
  for (int j = 0; j < java_holds; j++)
    st[holds + j] = jiv[j][0], en[holds + j] = jiv[j][1];
  int most = zkt_max_concurrent(st, en, holds + java_holds);
  printf("interop: %d Curator leases, %d zkcoord leases, at most %d at once "
         "(limit %d)\n", java_holds, holds, most, SEM_MAX);
  assert_true(most <= SEM_MAX);
  free(jiv);
  free(s);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(curator_mutex_shares_queue),
      cmocka_unit_test(curator_semaphore_shares_limit),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "interop");
}
