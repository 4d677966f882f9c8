/* SPDX-License-Identifier: Apache-2.0 */
/* A client that asks for no log sink: connects, takes and releases a lock,
 * and meets errors (an invalid path, a release of a lock it does not hold,
 * an ensemble that is not there, a name that does not resolve; another
 * recipe's path, a read hold's write, a hold lost to an outsider's delete,
 * an observer and an async acquire that time out), once with the default
 * options and once at ZKC_LOG_DEBUG. Run by check-quiet.sh,
 * which fails when anything reached stderr: without a sink neither zkcoord
 * nor the ZooKeeper client it drives may print there. Its own failures go
 * to stdout, exit 1. */
#define THREADED
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include "zkcoord/zkcoord.h"

static int failed;

#define CHECK(expr, want)                                                   \
  do {                                                                      \
    int rc_ = (expr);                                                       \
    if (rc_ != (want)) {                                                    \
      printf("quiet: %s: %s, expected %s\n", #expr, zkc_err_name(rc_),      \
             zkc_err_name(want));                                           \
      failed = 1;                                                           \
    }                                                                       \
  } while (0)

static const char *connect_string(void) {
  static char buf[128];
  const char *s = getenv("ZKC_TEST_CONNECT");
  if (s && *s) return s;
  s = getenv("ZKC_ENSEMBLE_PORT_BASE");
  int base = s && *s ? atoi(s) : 2180;
  snprintf(buf, sizeof buf, "127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d",
           base + 1, base + 2, base + 3);
  return buf;
}

/* A loopback port nobody listens on: one the kernel handed out, closed. */
static int closed_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
      getsockname(s, (struct sockaddr *)&a, &len) != 0) {
    printf("quiet: no loopback port\n");
    exit(1);
  }
  close(s);
  return ntohs(a.sin_port);
}

static void lock_cycle(zkc_log_level_t level, const char *path) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_level = level; /* no sink: nothing printed, whatever the level */
  zkc_client_t *c = NULL;
  CHECK(zkc_client_open(&c, connect_string(), &o), ZKC_OK);
  if (c == NULL) return;
  zkc_mutex_t *m = NULL;
  CHECK(zkc_mutex_create(&m, c, "relative/path"), ZKC_EINVAL);
  CHECK(zkc_mutex_create(&m, c, path), ZKC_OK);
  if (m != NULL) {
    CHECK(zkc_mutex_acquire(m), ZKC_OK);
    CHECK(zkc_mutex_release(m), ZKC_OK);
    CHECK(zkc_mutex_release(m), ZKC_ENOTOWNER);
    CHECK(zkc_mutex_destroy(m), ZKC_OK);
  }
  zkc_client_close(c);

  /* Nobody at the address: refused connections, then ECONNECT. */
  char where[64];
  snprintf(where, sizeof where, "127.0.0.1:%d", closed_port());
  o.connect_timeout_ms = 500;
  c = NULL;
  CHECK(zkc_client_open(&c, where, &o), ZKC_ECONNECT);
  zkc_client_close(c);
  CHECK(zkc_client_open(&c, "host:99999", &o), ZKC_EINVAL);
  CHECK(zkc_client_open(&c, "zkc-test-host.invalid:2181", &o), ZKC_ECONNECT);
}

static void no_log(const char *message) { (void)message; }

static zhandle_t *raw_handle(void) {
  return zookeeper_init2(connect_string(), NULL, 10000, NULL, NULL,
                         ZOO_NO_LOG_CLIENTENV, no_log);
}

static atomic_int lost_told, async_told;

static void on_lost(void *ctx, zkc_lost_reason_t reason, int64_t token) {
  (void)ctx, (void)reason, (void)token;
  atomic_store(&lost_told, 1);
}

static void on_acquired(void *ctx, int rc, zkc_hold_t *hold) {
  (void)hold;
  *(int *)ctx = rc;
  atomic_store(&async_told, 1);
}

/* Waits (10 s at most) for a callback's flag. */
static int await_flag(atomic_int *flag) {
  struct timespec step = {0, 10 * 1000 * 1000};
  for (int i = 0; i < 1000 && !atomic_load(flag); i++) nanosleep(&step, NULL);
  return atomic_load(flag);
}

/* The other recipes' failures, each of which the library logs (a refusal
 * at ZKC_LOG_ERROR, a loss, a timeout): a semaphore's and a latch's
 * refusal, an async acquire's and an observer's timeout, a mutex's loss,
 * a read hold's write. None may reach stderr. */
static void recipes_fail(zkc_log_level_t level, const char *path) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_level = level;
  zkc_client_t *c = NULL;
  CHECK(zkc_client_open(&c, connect_string(), &o), ZKC_OK);
  if (c == NULL) return;
  zkc_mutex_t *m = NULL;
  CHECK(zkc_mutex_create(&m, c, path), ZKC_OK);
  if (m == NULL) {
    zkc_client_close(c);
    return;
  }
  CHECK(zkc_mutex_acquire(m), ZKC_OK);
  /* A semaphore on a lock's path: refused. */
  zkc_sem_t *sem = NULL;
  CHECK(zkc_sem_create(&sem, c, path, NULL), ZKC_OK);
  zkc_lease_t *lease = NULL;
  if (sem != NULL) CHECK(zkc_sem_acquire(sem, 1, 5000, &lease), ZKC_ELAYOUT);
  CHECK(zkc_sem_destroy(sem), ZKC_OK);
  /* A leader latch on it: refused too (its thread's end). */
  zkc_latch_t *l = NULL;
  CHECK(zkc_latch_create(&l, c, path, "quiet", NULL), ZKC_OK);
  if (l != NULL) {
    CHECK(zkc_latch_start(l), ZKC_OK);
    CHECK(zkc_latch_await(l, 10000), ZKC_ELAYOUT);
    CHECK(zkc_latch_close(l, ZKC_CLOSE_SILENT), ZKC_OK);
    CHECK(zkc_latch_destroy(l), ZKC_OK);
  }
  /* An async acquire of the held lock that runs out of time. */
  zkc_async_t *a = NULL;
  CHECK(zkc_async_create(&a, c, NULL), ZKC_OK);
  int async_rc = ZKC_OK;
  atomic_store(&async_told, 0);
  if (a != NULL) {
    CHECK(zkc_async_acquire(a, path, 200, on_acquired, &async_rc, NULL), ZKC_OK);
    if (!await_flag(&async_told)) printf("quiet: the async acquire never ended\n");
    CHECK(async_rc, ZKC_ETIMEDOUT);
    CHECK(zkc_async_destroy(a), ZKC_OK);
  }
  /* An observer of the lock that sees no change in time. */
  zkc_observer_t *obs = NULL;
  CHECK(zkc_observer_create(&obs, c, path, ZKC_OBSERVE_LOCK), ZKC_OK);
  if (obs != NULL) {
    CHECK(zkc_observer_start(obs), ZKC_OK);
    zkc_observation_t *ev = NULL;
    CHECK(zkc_observer_next(obs, 10000, &ev), ZKC_OK); /* the holder */
    zkc_observation_free(ev);
    ev = NULL;
    CHECK(zkc_observer_next(obs, 100, &ev), ZKC_ETIMEDOUT);
    zkc_observation_free(ev);
    CHECK(zkc_observer_destroy(obs), ZKC_OK);
  }
  /* The hold lost to an outsider's delete: told, and the release says so. */
  zkc_list_t *nodes = NULL;
  atomic_store(&lost_told, 0);
  CHECK(zkc_hold_set_lost_callback(zkc_mutex_hold(m), on_lost, NULL), ZKC_OK);
  CHECK(zkc_hold_node_list(zkc_mutex_hold(m), &nodes), ZKC_OK);
  zhandle_t *zh = raw_handle();
  if (zh != NULL && nodes != NULL && zkc_list_count(nodes) == 1) {
    int rc = zoo_delete(zh, zkc_list_string(nodes, 0), -1);
    for (int t = 0; t < 50 && rc == ZCONNECTIONLOSS; t++)
      rc = zoo_delete(zh, zkc_list_string(nodes, 0), -1);
    if (rc != ZOK) printf("quiet: the outsider's delete failed (%d)\n", rc);
  }
  if (zh != NULL) zookeeper_close(zh);
  zkc_list_free(nodes);
  if (!await_flag(&lost_told)) printf("quiet: the loss was never told\n");
  CHECK(zkc_mutex_release(m), ZKC_ELOST);
  CHECK(zkc_mutex_destroy(m), ZKC_OK);
  /* A read hold's write: refused. */
  zkc_rwlock_t *rw = NULL;
  char rwpath[200];
  snprintf(rwpath, sizeof rwpath, "%s-rw", path);
  CHECK(zkc_rwlock_create(&rw, c, rwpath), ZKC_OK);
  if (rw != NULL) {
    zkc_mutex_t *r = zkc_rwlock_read_side(rw);
    CHECK(zkc_mutex_acquire(r), ZKC_OK);
    CHECK(zkc_hold_fenced_set(zkc_mutex_hold(r), rwpath, "x", 1), ZKC_EINVAL);
    CHECK(zkc_mutex_release(r), ZKC_OK);
    CHECK(zkc_rwlock_destroy(rw), ZKC_OK);
  }
  zkc_client_close(c);
}

/* The test's own clean-up, through a handle whose lines go nowhere. */
static void remove_tree(const char *root) {
  zhandle_t *zh = raw_handle();
  if (zh == NULL) return;
  const char *sub[] = {"a", "b", "c", "c-rw", "d", "d-rw"};
  for (int i = 0; i < 6; i++) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", root, sub[i]);
    int rc = zoo_delete(zh, p, -1);
    for (int t = 0; t < 50 && rc == ZCONNECTIONLOSS; t++)
      rc = zoo_delete(zh, p, -1);
  }
  zoo_delete(zh, root, -1);
  zookeeper_close(zh);
}

int main(void) {
  char root[128], a[160], b[160], c[160], d[160];
  snprintf(root, sizeof root, "/zkc-test/quiet-%ld-%d", (long)getpid(),
           rand() % 100000);
  snprintf(a, sizeof a, "%s/a", root);
  snprintf(b, sizeof b, "%s/b", root);
  snprintf(c, sizeof c, "%s/c", root);
  snprintf(d, sizeof d, "%s/d", root);
  lock_cycle(ZKC_LOG_ERROR, a); /* the default level */
  lock_cycle(ZKC_LOG_DEBUG, b);
  recipes_fail(ZKC_LOG_ERROR, c);
  recipes_fail(ZKC_LOG_DEBUG, d);
  remove_tree(root);
  if (failed) return 1;
  printf("quiet: connect, lock, release, the recipes' errors and a loss "
         "at the default level and at ZKC_LOG_DEBUG, no sink\n");
  return 0;
}
