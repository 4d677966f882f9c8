/* SPDX-License-Identifier: Apache-2.0 */
/* A client that asks for no log sink: connects, takes and releases a lock,
 * and meets errors (an invalid path, a release of a lock it does not hold,
 * an ensemble that is not there, a name that does not resolve), once with
 * the default options and once at ZKC_LOG_DEBUG. Run by check-quiet.sh,
 * which fails when anything reached stderr: without a sink neither zkcoord
 * nor the ZooKeeper client it drives may print there. Its own failures go
 * to stdout, exit 1. */
#define THREADED
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* The test's own clean-up, through a handle whose lines go nowhere. */
static void remove_tree(const char *root) {
  zhandle_t *zh = zookeeper_init2(connect_string(), NULL, 10000, NULL, NULL,
                                  ZOO_NO_LOG_CLIENTENV, no_log);
  if (zh == NULL) return;
  const char *sub[] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
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
  char root[128], a[160], b[160];
  snprintf(root, sizeof root, "/zkc-test/quiet-%ld-%d", (long)getpid(),
           rand() % 100000);
  snprintf(a, sizeof a, "%s/a", root);
  snprintf(b, sizeof b, "%s/b", root);
  lock_cycle(ZKC_LOG_ERROR, a); /* the default level */
  lock_cycle(ZKC_LOG_DEBUG, b);
  remove_tree(root);
  if (failed) return 1;
  printf("quiet: connect, lock, release and errors at the default level "
         "and at ZKC_LOG_DEBUG, no sink\n");
  return 0;
}
