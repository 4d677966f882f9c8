/* Curator's InterProcessMutex (Java, Debian's Curator 5.4) and zkcoord queue
 * on one lock path: mutual exclusion holds across both and each sees the
 * other in the participant list. */
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

  char line[2048];
  int java_holds = 0, done = 0, saw_other = 0;
  int64_t (*jiv)[2] = calloc(64, sizeof *jiv);
  while (zkt_read_line(&java, line, sizeof line, zkt_ms(60000))) {
    long long a, b;
    char node[1024];
    if (sscanf(line, "HELD %1023s %lld %lld", node, &a, &b) == 3 && java_holds < 64) {
      jiv[java_holds][0] = a, jiv[java_holds][1] = b;
      java_holds++;
    }
    if (strncmp(line, "DONE", 4) == 0) {
      done = 1;
      saw_other = strstr(line, "saw_other=true") != NULL;
    }
    if (strcmp(line, "OVERLAP") == 0) atomic_fetch_add(&s->overlaps, 1);
  }
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

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(curator_mutex_shares_queue),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "interop");
}
