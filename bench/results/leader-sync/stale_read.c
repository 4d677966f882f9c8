/* SPDX-License-Identifier: Apache-2.0 */
/* Does a read behind a sync see another session's acknowledged write?
 * Session A creates and deletes a node; once A's delete is answered,
 * session B sends a sync (or, with BARRIER=1, a multi of one any-version
 * check on "/", a transaction) and then asks whether the node exists.
 * Prints how many of the reads still showed it.
 *
 * usage: stale_read HOSTS_A HOSTS_B COUNT BARRIER
 * build: cc -O2 -DTHREADED stale_read.c -lzookeeper_mt -lpthread */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int synced;

static void no_events(zhandle_t *zh, int type, int state, const char *path,
                      void *ctx) {
  (void)zh, (void)type, (void)state, (void)path, (void)ctx;
}

static void sync_answered(int rc, const char *value, const void *data) {
  (void)rc, (void)value, (void)data;
  pthread_mutex_lock(&mu);
  synced = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
}

static void sync_then_wait(zhandle_t *zh) {
  synced = 0;
  if (zoo_async(zh, "/", sync_answered, NULL) != ZOK) exit(1);
  pthread_mutex_lock(&mu);
  while (!synced) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

static void barrier(zhandle_t *zh) {
  zoo_op_t op;
  zoo_op_result_t res;
  zoo_check_op_init(&op, "/", -1);
  (void)zoo_multi(zh, 1, &op, &res);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s HOSTS_A HOSTS_B COUNT BARRIER\n", argv[0]);
    return 2;
  }
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  zhandle_t *a = zookeeper_init(argv[1], no_events, 10000, NULL, NULL, 0);
  zhandle_t *b = zookeeper_init(argv[2], no_events, 10000, NULL, NULL, 0);
  int count = atoi(argv[3]), use_barrier = atoi(argv[4]);
  if (a == NULL || b == NULL) return 1;
  while (zoo_state(a) != ZOO_CONNECTED_STATE ||
         zoo_state(b) != ZOO_CONNECTED_STATE)
    usleep(10000);
  zoo_create(a, "/stale-read", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  int stale = 0;
  for (int i = 0; i < count; i++) {
    char path[64];
    snprintf(path, sizeof path, "/stale-read/n%d", i);
    if (zoo_create(a, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0) != ZOK ||
        zoo_delete(a, path, -1) != ZOK)
      return 1;
    if (use_barrier) barrier(b);
    else sync_then_wait(b);
    struct Stat st;
    if (zoo_exists(b, path, 0, &st) == ZOK) stale++;
  }
  printf("%s: %d of %d reads showed the deleted node\n",
         use_barrier ? "barrier" : "sync", stale, count);
  zookeeper_close(a);
  zookeeper_close(b);
  return 0;
}
