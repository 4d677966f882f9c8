/* Test helper process: takes a lock and holds it until stdin closes (then
 * releases and exits 0) or until it is killed or stopped.
 *   zkt_holder CONNECT PATH SESSION_TIMEOUT_MS [STORE_PATH]
 * Prints, one line each, flushed:
 *   HELD <token> <node>      once the lock is held
 *   STATE <name>             every connection state change
 *   LOST <reason>            when the lock is lost (1 suspended, 2 session)
 *   FENCED <rc>              with STORE_PATH: the result of a fenced write
 *                            of "<token>" every 20 ms, printed when it changes
 *   RELEASED <rc>            after stdin closed
 * With $ZKT_HOLDER_SEM=N it takes one lease of a semaphore of N leases on
 * PATH instead (no STORE_PATH): HELD, STATE, LOST and RELEASED as above,
 * and FAILED <rc> (then exit 1) when the acquire returns an error. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "zkcoord/zkcoord.h"

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *fmt, long long a, const char *b) {
  pthread_mutex_lock(&out_mu);
  printf(fmt, a, b);
  fflush(stdout);
  pthread_mutex_unlock(&out_mu);
}

static void on_state(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)ctx, (void)c;
  say("STATE %lld %s\n", (long long)st, zkc_state_name(st));
}

static void say_lost(zkc_lost_reason_t why, int64_t token) {
  char tok[32];
  snprintf(tok, sizeof tok, "%lld", (long long)token);
  say("LOST %lld %s\n", (long long)why, tok);
}

static void on_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                    int64_t token) {
  (void)ctx, (void)m;
  say_lost(why, token);
}

static void on_lease_lost(void *ctx, zkc_sem_t *s, zkc_lost_reason_t why,
                          int64_t token) {
  (void)ctx, (void)s;
  say_lost(why, token);
}

/* The semaphore mode: one lease until stdin closes. */
static int hold_lease(zkc_client_t *c, const char *path, int max) {
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.max_leases = max;
  zkc_sem_t *s;
  zkc_lease_t *l = NULL;
  int rc = zkc_sem_create(&s, c, path, &so);
  if (rc == ZKC_OK) rc = zkc_sem_set_lost_callback(s, on_lease_lost, NULL);
  if (rc == ZKC_OK) rc = zkc_sem_acquire(s, 1, -1, &l);
  if (rc != ZKC_OK) {
    say("FAILED %lld%s\n", (long long)rc, "");
    fprintf(stderr, "zkt_holder: %s\n", zkc_strerror(rc));
    return 1;
  }
  int64_t token = 0;
  char **nodes;
  size_t n;
  zkc_lease_fencing_token(l, &token);
  if (zkc_lease_nodes(l, &nodes, &n) != ZKC_OK) return 1;
  say("HELD %lld %s\n", (long long)token, nodes[0]);
  zkc_strings_free(nodes, n);
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
  rc = zkc_lease_free(l);
  say("RELEASED %lld%s\n", (long long)rc, "");
  zkc_sem_destroy(s);
  zkc_client_close(c);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: zkt_holder CONNECT PATH SESSION_MS [STORE_PATH]\n");
    return 64;
  }
  const char *store = argc == 5 ? argv[4] : NULL;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = atoi(argv[3]);
  zkc_client_t *c;
  zkc_mutex_t *m;
  int rc = zkc_client_open(&c, argv[1], &o);
  if (rc == ZKC_OK) rc = zkc_client_add_listener(c, on_state, NULL);
  const char *sem = getenv("ZKT_HOLDER_SEM");
  if (rc == ZKC_OK && sem != NULL) return hold_lease(c, argv[2], atoi(sem));
  if (rc == ZKC_OK) rc = zkc_mutex_create(&m, c, argv[2]);
  if (rc == ZKC_OK) rc = zkc_mutex_set_lost_callback(m, on_lost, NULL);
  if (rc == ZKC_OK) rc = zkc_mutex_acquire(m);
  if (rc != ZKC_OK) {
    fprintf(stderr, "zkt_holder: %s\n", zkc_strerror(rc));
    return 1;
  }
  int64_t token = 0;
  char node[1200], value[32];
  zkc_mutex_fencing_token(m, &token);
  zkc_mutex_lock_node(m, node, sizeof node);
  say("HELD %lld %s\n", (long long)token, node);
  int n = snprintf(value, sizeof value, "%lld", (long long)token);

  int last = 1; /* no fenced result printed yet */
  for (;;) {
    struct pollfd p = {.fd = 0, .events = POLLIN};
    if (poll(&p, 1, store ? 20 : -1) > 0) {
      char buf[64];
      if (read(0, buf, sizeof buf) <= 0) break;
    }
    if (store) {
      rc = zkc_mutex_fenced_set(m, store, value, (size_t)n);
      if (rc != last) say("FENCED %lld%s\n", (long long)rc, "");
      last = rc;
    }
  }
  rc = zkc_mutex_release(m);
  say("RELEASED %lld%s\n", (long long)rc, "");
  zkc_mutex_destroy(m);
  zkc_client_close(c);
  return 0;
}
