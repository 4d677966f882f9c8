/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper process: takes a lock and holds it until stdin closes (then
 * releases and exits 0) or until it is killed or stopped.
 *   zkt_holder CONNECT PATH SESSION_TIMEOUT_MS [STORE_PATH]
 * Prints, one line each, flushed:
 *   HELD <token> <node> <held> <ns>
 *                            once the lock is held: its fencing token and
 *                            node, whether the recipe called it held (1/0:
 *                            zkc_hold_is_held or the recipe's) right after
 *                            the grant, and then the monotonic clock in ns
 *   STATE <n> <name> <ns>    every connection state change, with the
 *                            monotonic clock in ns
 *   LOST <reason> <token> <ns>  when the lock is lost (1 suspended, 2
 *                            session), with the monotonic clock in ns
 *   FENCED <rc>              with STORE_PATH: the result of a fenced write
 *                            of "<token>" every 20 ms, printed when it changes
 *   RELEASED <rc>            after stdin closed (with $ZKT_HOLDER_LINGER_MS,
 *                            the lock kept that long after: a loss told
 *                            then still prints its LOST line)
 *   FAILED <rc> <name>       the acquire failed (then it exits 1)
 * With $ZKT_HOLDER_SEM=N it takes one lease of a semaphore of N leases on
 * PATH instead (no STORE_PATH): HELD, STATE, LOST and RELEASED as above.
 * With $ZKT_HOLDER_MODE it first prints
 *   SESSION <id>             its session id (0x<hex>, as 4-letter words do)
 * before it queues, and takes, by the mode:
 *   mutex   the mutex on PATH, as without a mode
 *   read    the read side of a read-write lock on PATH
 *   write   the write side of a read-write lock on PATH
 *   multi   a multi-lock over the mutexes PATH/a and PATH/b (the HELD line
 *           names PATH/b's node and token)
 *   async   the lock of PATH through an async context (zkc_async_acquire)
 *   sem     one lease as with $ZKT_HOLDER_SEM (default 1), its limit read
 *           from the shared count node $ZKT_HOLDER_COUNT when that is set
 * With $ZKT_HOLDER_PARK_AT_ROUND, once, when its queue engine starts the
 * round that watches its own node and the one ahead, before that round's
 * requests go out, it prints
 *   ROUND                    and the acquiring thread waits for SIGUSR1
 * (the client's threads go on: its connection stays up).
 * With $ZKT_HOLDER_LOG, each of the library's lines (down to DEBUG) that
 * holds that text:
 *   LOG <message>
 * With $ZKT_HOLDER_STOP_AT_SET_READ (mode multi), once, when the read of
 * its set's nodes is answered and before it is judged, it prints
 *   SET READ                 and stops itself, every thread (SIGSTOP). */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_hooks.h"
#include "zkcoord/zkcoord.h"
#include "../harness/hold_node.h"

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&out_mu);
  vprintf(fmt, ap);
  fflush(stdout);
  pthread_mutex_unlock(&out_mu);
  va_end(ap);
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void say_held(int64_t token, const char *node, int held) {
  say("HELD %lld %s %d %lld\n", (long long)token, node, held ? 1 : 0, now_ns());
}

static int failed(int rc) {
  say("FAILED %d %s\n", rc, zkc_err_name(rc));
  fprintf(stderr, "zkt_holder: %s\n", zkc_strerror(rc));
  return 1;
}

static void on_state(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)ctx, (void)c;
  say("STATE %d %s %lld\n", (int)st, zkc_state_name(st), now_ns());
}

static void say_lost(zkc_lost_reason_t why, int64_t token) {
  say("LOST %d %lld %lld\n", (int)why, (long long)token, now_ns());
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

static void on_hold_lost(void *ctx, zkc_lost_reason_t why, int64_t token) {
  (void)ctx;
  say_lost(why, token);
}

/* With $ZKT_HOLDER_LINGER_MS, after the release: the objects kept that
 * long, so that a loss told after the release still prints. */
static void linger(void) {
  const char *ms = getenv("ZKT_HOLDER_LINGER_MS");
  if (ms != NULL) poll(NULL, 0, atoi(ms));
}

/* Until stdin closes. */
static void await_eof(void) {
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
}

/* The semaphore mode: one lease until stdin closes. */
static int hold_lease(zkc_client_t *c, const char *path, int max) {
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.max_leases = max;
  so.count_path = getenv("ZKT_HOLDER_COUNT");
  zkc_sem_t *s;
  zkc_lease_t *l = NULL;
  int rc = zkc_sem_create(&s, c, path, &so);
  if (rc == ZKC_OK) rc = zkc_sem_set_lost_callback(s, on_lease_lost, NULL);
  if (rc == ZKC_OK) rc = zkc_sem_acquire(s, 1, -1, &l);
  if (rc != ZKC_OK) return failed(rc);
  int held = zkc_hold_is_held(zkc_lease_hold(l));
  int64_t token = 0;
  zkc_list_t *nodes;
  zkc_hold_fencing_token(zkc_lease_hold(l), &token);
  if (zkc_hold_node_list(zkc_lease_hold(l), &nodes) != ZKC_OK) return 1;
  say_held(token, zkc_list_string(nodes, 0), held);
  zkc_list_free(nodes);
  await_eof();
  rc = zkc_lease_free(l);
  say("RELEASED %d\n", rc);
  linger(); /* the semaphore kept: a loss told after the release prints */
  zkc_sem_destroy(s);
  zkc_client_close(c);
  return 0;
}

/* The async mode: the acquire's result, kept for the main thread. */
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static zkc_hold_t *the_hold;
static int hold_rc = 1; /* 1: not decided yet */

static void on_acquired(void *ctx, int rc, zkc_hold_t *h) {
  (void)ctx;
  /* Kept as it is told, under the lock: once told, stdin may close and the
   * main thread release it at once. */
  pthread_mutex_lock(&hold_mu);
  the_hold = h;
  hold_rc = rc;
  if (rc == ZKC_OK) {
    int held = zkc_hold_is_held(h);
    int64_t token = 0;
    char node[1200] = "";
    zkc_hold_fencing_token(h, &token);
    zkt_hold_node(h, node, sizeof node);
    say_held(token, node, held);
  } else {
    failed(rc);
  }
  pthread_mutex_unlock(&hold_mu);
}

static void on_released(void *ctx, int rc) {
  (void)ctx;
  say("RELEASED %d\n", rc);
}

/* The lock of `path` through an async context until stdin closes; a
 * pending acquire is then cancelled by the context's destruction. */
static int hold_async(zkc_client_t *c, const char *path) {
  zkc_async_opts_t ao;
  zkc_async_opts_init(&ao);
  ao.on_lost = on_hold_lost;
  zkc_async_t *a = NULL;
  int rc = zkc_async_create(&a, c, &ao);
  if (rc == ZKC_OK) rc = zkc_async_acquire(a, path, -1, on_acquired, NULL, NULL);
  if (rc != ZKC_OK) return failed(rc);
  await_eof();
  pthread_mutex_lock(&hold_mu);
  zkc_hold_t *h = the_hold;
  rc = hold_rc;
  pthread_mutex_unlock(&hold_mu);
  if (h != NULL) {
    zkc_hold_release(a, h, on_released, NULL);
    zkc_hold_free(h);
    linger(); /* the context kept: a loss told after the release prints */
  }
  zkc_async_destroy(a); /* runs the release's callback */
  zkc_client_close(c);
  return rc == ZKC_OK ? 0 : 1;
}

/* The mutex modes (mutex, read, write, multi). */
static int hold_mutex(zkc_client_t *c, const char *mode, const char *path,
                      const char *store) {
  zkc_rwlock_t *rw = NULL;
  zkc_multilock_t *ml = NULL;
  zkc_mutex_t *m[2] = {NULL, NULL};
  size_t n = 1;
  int rc;
  if (strcmp(mode, "read") == 0 || strcmp(mode, "write") == 0) {
    rc = zkc_rwlock_create(&rw, c, path);
    if (rc == ZKC_OK)
      m[0] = mode[0] == 'r' ? zkc_rwlock_read_side(rw) : zkc_rwlock_write_side(rw);
  } else if (strcmp(mode, "multi") == 0) {
    char pa[1100], pb[1100];
    snprintf(pa, sizeof pa, "%s/a", path);
    snprintf(pb, sizeof pb, "%s/b", path);
    n = 2;
    rc = zkc_mutex_create(&m[0], c, pa);
    if (rc == ZKC_OK) rc = zkc_mutex_create(&m[1], c, pb);
    if (rc == ZKC_OK) rc = zkc_multilock_create(&ml, m, n);
  } else {
    rc = zkc_mutex_create(&m[0], c, path);
  }
  for (size_t i = 0; i < n && rc == ZKC_OK; i++)
    rc = zkc_mutex_set_lost_callback(m[i], on_lost, NULL);
  if (rc == ZKC_OK) rc = ml ? zkc_multilock_acquire(ml) : zkc_mutex_acquire(m[0]);
  if (rc != ZKC_OK) return failed(rc);
  zkc_mutex_t *last = m[n - 1];
  int held = ml ? zkc_hold_is_held(zkc_multilock_hold(ml)) : zkc_hold_is_held(zkc_mutex_hold(last));
  int64_t token = 0;
  char node[1200], value[32];
  zkc_hold_fencing_token(zkc_mutex_hold(last), &token);
  zkt_hold_node(zkc_mutex_hold(last), node, sizeof node);
  say_held(token, node, held);
  int len = snprintf(value, sizeof value, "%lld", (long long)token);

  int prev = 1; /* no fenced result printed yet */
  for (;;) {
    struct pollfd p = {.fd = 0, .events = POLLIN};
    if (poll(&p, 1, store ? 20 : -1) > 0) {
      char buf[64];
      if (read(0, buf, sizeof buf) <= 0) break;
    }
    if (store) {
      rc = zkc_hold_fenced_set(zkc_mutex_hold(last), store, value, (size_t)len);
      if (rc != prev) say("FENCED %d\n", rc);
      prev = rc;
    }
  }
  rc = ml ? zkc_multilock_release(ml) : zkc_mutex_release(last);
  say("RELEASED %d\n", rc);
  linger();
  zkc_multilock_destroy(ml);
  if (rw) {
    zkc_rwlock_destroy(rw);
  } else {
    for (size_t i = 0; i < n; i++) zkc_mutex_destroy(m[i]);
  }
  zkc_client_close(c);
  return 0;
}

static void park_once(void) {
  static atomic_int parked;
  if (atomic_exchange(&parked, 1)) return;
  say("ROUND\n");
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  int sig = 0;
  sigwait(&set, &sig);
}

/* The multi-lock's seam: stops the whole process, as a debugger or the
 * kernel would, with the set's answers in memory. */
static void stop_at_set_read(void) {
  zkc__multilock_seam = NULL;
  say("SET READ\n");
  raise(SIGSTOP);
}

/* $ZKT_HOLDER_LOG: the library's lines that hold it, on stdout. */
static const char *log_text;
static void log_line(void *ctx, zkc_log_level_t level, const char *message) {
  (void)ctx, (void)level;
  if (strstr(message, log_text) != NULL) say("LOG %s\n", message);
}

int main(int argc, char **argv) {
  if (getenv("ZKT_HOLDER_STOP_AT_SET_READ")) zkc__multilock_seam = stop_at_set_read;
  if (getenv("ZKT_HOLDER_PARK_AT_ROUND")) {
    sigset_t set; /* blocked in every thread, taken by sigwait */
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    zkc__round_seam = park_once;
  }
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: zkt_holder CONNECT PATH SESSION_MS [STORE_PATH]\n");
    return 64;
  }
  const char *store = argc == 5 ? argv[4] : NULL;
  const char *mode = getenv("ZKT_HOLDER_MODE");
  const char *sem = getenv("ZKT_HOLDER_SEM");
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = atoi(argv[3]);
  if ((log_text = getenv("ZKT_HOLDER_LOG")) != NULL) {
    o.log_fn = log_line;
    o.log_level = ZKC_LOG_DEBUG;
  }
  zkc_client_t *c;
  int rc = zkc_client_open(&c, argv[1], &o);
  if (rc == ZKC_OK) rc = zkc_client_add_listener(c, on_state, NULL);
  int64_t sid = 0;
  if (rc == ZKC_OK && mode != NULL) rc = zkc_client_session_id(c, &sid);
  if (rc != ZKC_OK) return failed(rc);
  if (mode != NULL) say("SESSION 0x%llx\n", (unsigned long long)sid);
  if (mode != NULL && strcmp(mode, "sem") == 0 && sem == NULL) sem = "1";
  if (sem != NULL) return hold_lease(c, argv[2], atoi(sem));
  if (mode != NULL && strcmp(mode, "async") == 0) return hold_async(c, argv[2]);
  return hold_mutex(c, mode ? mode : "mutex", argv[2], store);
}
