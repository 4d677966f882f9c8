/* SPDX-License-Identifier: Apache-2.0 */
/* Self-test of zkt_proxy against the real test ensemble (server 1 of the local ensemble).
 *
 *   zkt_proxy_selftest <path-to-zkt_proxy>
 *
 * Starts the proxy as a child (commands over its stdin/stdout), connects the
 * ZooKeeper C client through it and directly, and checks forwarding, many
 * connections, stall/unstall, cut, cut-after-create, refuse and session expiry
 * under a long stall. Prints one line per check (with timings) and exits 0
 * when every check passes. Works under /zkt-proxy-selftest-<pid>, removed at
 * the end. Timeouts scale with $ZKC_TEST_TIMEOUT_MULT; $ZKT_ZKLOG=1 shows the
 * C client's own INFO log. */
#define _GNU_SOURCE
#define THREADED
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#define SESSION_MS 3000 /* short, so that the expiry check is quick (scaled, at most 10 s) */
#define RAW_CONNS 300

static int mult = 1;
static int SERVER_PORT; /* server 1's client port */
static int session_ms; /* negotiated session timeout of the proxied handle */
static int failures;
static char root[64];
static int64_t start_ms;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t ms(int64_t base) { return base * mult; }

static void sleep_ms(int64_t t) {
  struct timespec ts = {(time_t)(t / 1000), (long)(t % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

/* Reports a failed expectation and counts it; returns cond. */
#define CHECK(cond, ...) check((cond), __LINE__, __VA_ARGS__)
static bool check(bool cond, int line, const char *fmt, ...) {
  if (cond) return true;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stdout, "  FAIL (line %d): ", line);
  vfprintf(stdout, fmt, ap);
  fputc('\n', stdout);
  fflush(stdout);
  va_end(ap);
  failures++;
  return false;
}

static void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("  ", stdout);
  vfprintf(stdout, fmt, ap);
  fputc('\n', stdout);
  fflush(stdout);
  va_end(ap);
}

/* ---- every watcher event a handle receives, with its time ---- */

struct events {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n;
  struct {
    int type, state;
    char path[128];
    int64_t t;
  } ev[1024];
};

static void events_init(struct events *e) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, &a);
  pthread_condattr_destroy(&a);
  e->n = 0;
}

static void watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx) {
  (void)zh;
  struct events *e = ctx;
  pthread_mutex_lock(&e->mu);
  if (e->n < (int)(sizeof e->ev / sizeof e->ev[0])) {
    e->ev[e->n].type = type;
    e->ev[e->n].state = state;
    snprintf(e->ev[e->n].path, sizeof e->ev[e->n].path, "%s", path ? path : "");
    e->ev[e->n].t = now_ms();
    e->n++;
  }
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
}

static int events_count(struct events *e) {
  pthread_mutex_lock(&e->mu);
  int n = e->n;
  pthread_mutex_unlock(&e->mu);
  return n;
}

/* Index of the first event at or after `from` matching type (and state unless
 * -1, and path unless NULL) within timeout_ms, else -1. */
static int events_wait(struct events *e, int from, int type, int state, const char *path,
                       int64_t timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  pthread_mutex_lock(&e->mu);
  for (;;) {
    for (int i = from; i < e->n; i++) {
      if (e->ev[i].type == type && (state == -1 || e->ev[i].state == state) &&
          (!path || strcmp(e->ev[i].path, path) == 0)) {
        pthread_mutex_unlock(&e->mu);
        return i;
      }
    }
    int64_t left = deadline - now_ms();
    if (left <= 0) break;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(left / 1000);
    ts.tv_nsec += (long)(left % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&e->cv, &e->mu, &ts);
  }
  pthread_mutex_unlock(&e->mu);
  return -1;
}

static const char *state_name(int s) {
  if (s == ZOO_CONNECTED_STATE) return "CONNECTED";
  if (s == ZOO_CONNECTING_STATE) return "CONNECTING";
  if (s == ZOO_ASSOCIATING_STATE) return "ASSOCIATING";
  if (s == ZOO_EXPIRED_SESSION_STATE) return "EXPIRED_SESSION";
  if (s == ZOO_AUTH_FAILED_STATE) return "AUTH_FAILED";
  if (s == ZOO_READONLY_STATE) return "READONLY";
  if (s == ZOO_NOTCONNECTED_STATE) return "NOTCONNECTED";
  if (s == 0) return "0 (between connection attempts)";
  return "?";
}

static const char *type_name(int t) {
  if (t == ZOO_SESSION_EVENT) return "SESSION";
  if (t == ZOO_CREATED_EVENT) return "CREATED";
  if (t == ZOO_DELETED_EVENT) return "DELETED";
  if (t == ZOO_CHANGED_EVENT) return "CHANGED";
  if (t == ZOO_CHILD_EVENT) return "CHILD";
  return "?";
}

/* Prints the events from index `from` on, times relative to t0. */
static void events_print(struct events *e, int from, int64_t t0) {
  pthread_mutex_lock(&e->mu);
  for (int i = from; i < e->n; i++)
    note("  event +%lld ms: %s %s %s", (long long)(e->ev[i].t - t0), type_name(e->ev[i].type),
         state_name(e->ev[i].state), e->ev[i].path);
  pthread_mutex_unlock(&e->mu);
}

/* ---- the proxy child ---- */

static struct {
  pid_t pid;
  int in, out; /* its stdin (write end) and stdout (read end) */
  char buf[4096];
  size_t len;
  int port;
  int cuts_seen; /* "CUT <xid>" lines read so far */
  int last_cut_xid;
} px = {.pid = -1, .in = -1, .out = -1};

/* Reads one line of the proxy's stdout within timeout_ms; false on timeout/EOF. */
static bool px_line(char *line, size_t len, int64_t timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    char *nl = memchr(px.buf, '\n', px.len);
    if (nl) {
      size_t n = (size_t)(nl - px.buf);
      snprintf(line, len, "%.*s", (int)n, px.buf);
      memmove(px.buf, nl + 1, px.len - n - 1);
      px.len -= n + 1;
      return true;
    }
    int64_t left = deadline - now_ms();
    if (left <= 0 || px.len == sizeof px.buf) return false;
    struct pollfd p = {.fd = px.out, .events = POLLIN};
    int r = poll(&p, 1, (int)left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    ssize_t k = read(px.out, px.buf + px.len, sizeof px.buf - px.len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    px.len += (size_t)k;
  }
}

/* Reads a line, consuming asynchronous "CUT <xid>" lines on the way. */
static bool px_reply(char *line, size_t len, int64_t timeout_ms) {
  while (px_line(line, len, timeout_ms)) {
    if (strncmp(line, "CUT ", 4) != 0) return true;
    px.cuts_seen++;
    px.last_cut_xid = atoi(line + 4);
  }
  return false;
}

static bool px_cmd(const char *cmd, char *reply, size_t len) {
  char line[256];
  int n = snprintf(line, sizeof line, "%s\n", cmd);
  if (write(px.in, line, (size_t)n) != n) return false;
  return px_reply(reply, len, ms(5000));
}

static bool px_ok(const char *cmd) {
  char reply[256], want[256];
  snprintf(want, sizeof want, "OK %s", cmd);
  bool ok = px_cmd(cmd, reply, sizeof reply) && strcmp(reply, want) == 0;
  return CHECK(ok, "proxy command '%s' answered '%s'", cmd, ok ? "" : reply);
}

static bool px_stats(long *conns, long *accepted, long *cuts) {
  char reply[256] = "";
  bool ok = px_cmd("stats", reply, sizeof reply) &&
            sscanf(reply, "STATS conns=%ld accepted=%ld cuts=%ld", conns, accepted, cuts) == 3;
  return CHECK(ok, "stats answered '%s'", reply);
}

/* Waits until more than `seen` CUT lines have been read. */
static bool px_wait_cut(int seen, int64_t timeout_ms) {
  char line[256];
  int64_t deadline = now_ms() + timeout_ms;
  while (px.cuts_seen <= seen) {
    int64_t left = deadline - now_ms();
    if (left <= 0 || !px_line(line, sizeof line, left)) return false;
    if (strncmp(line, "CUT ", 4) != 0) return false; /* no command was pending */
    px.cuts_seen++;
    px.last_cut_xid = atoi(line + 4);
  }
  return true;
}

static bool px_start(const char *path) {
  int in[2], out[2];
  if (pipe(in) < 0 || pipe(out) < 0) return false;
  px.pid = fork();
  if (px.pid < 0) return false;
  if (px.pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    char target[16];
    snprintf(target, sizeof target, "%d", SERVER_PORT);
    execl(path, path, "0", target, (char *)NULL);
    perror(path);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  px.in = in[1];
  px.out = out[0];
  char line[256];
  return px_line(line, sizeof line, ms(5000)) && sscanf(line, "READY %d", &px.port) == 1 &&
         px.port > 0;
}

/* Closes the proxy's stdin and returns its exit status (-1: had to kill it). */
static int px_stop(void) {
  if (px.pid <= 0) return -1;
  if (px.in >= 0) close(px.in);
  px.in = -1;
  int64_t deadline = now_ms() + ms(5000);
  int st;
  for (;;) {
    pid_t r = waitpid(px.pid, &st, WNOHANG);
    if (r == px.pid) break;
    if (now_ms() > deadline) {
      kill(px.pid, SIGKILL);
      waitpid(px.pid, &st, 0);
      px.pid = -1;
      return -1;
    }
    sleep_ms(10);
  }
  px.pid = -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- ZooKeeper helpers ---- */

static zhandle_t *zk_open(int port, int timeout, struct events *e) {
  char host[32];
  snprintf(host, sizeof host, "127.0.0.1:%d", port);
  events_init(e);
  return zookeeper_init(host, watcher, timeout, NULL, e, 0);
}

static char *path_of(const char *leaf) {
  static char p[8][128];
  static int k;
  k = (k + 1) % 8;
  snprintf(p[k], sizeof p[k], "%s/%s", root, leaf);
  return p[k];
}

static void delete_tree(zhandle_t *zh, const char *path) {
  struct String_vector kids = {0, NULL};
  if (zoo_get_children(zh, path, 0, &kids) == ZOK) {
    for (int i = 0; i < kids.count; i++) {
      char child[512];
      snprintf(child, sizeof child, "%s/%s", path, kids.data[i]);
      delete_tree(zh, child);
    }
    deallocate_String_vector(&kids);
  }
  zoo_delete(zh, path, -1);
}

/* One asynchronous result, signalled by a completion. */
struct result {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, rc;
  char value[64];
};

static void result_init(struct result *r) {
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  r->done = 0;
  r->rc = 0;
  r->value[0] = '\0';
}

static void data_done(int rc, const char *value, int len, const struct Stat *st, const void *d) {
  (void)st;
  struct result *r = (struct result *)d;
  pthread_mutex_lock(&r->mu);
  r->rc = rc;
  if (rc == ZOK && value) snprintf(r->value, sizeof r->value, "%.*s", len, value);
  r->done++;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

static void string_done(int rc, const char *value, const void *d) {
  (void)value;
  struct result *r = (struct result *)d;
  pthread_mutex_lock(&r->mu);
  if (rc != ZOK) r->rc = rc;
  r->done++;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
}

/* Polls until r->done >= n or timeout_ms passes. Returns the count done and,
 * when rc is not NULL, the latest result code, both read under the lock: the
 * completion thread may still be writing them. */
static int result_wait(struct result *r, int n, int64_t timeout_ms, int *rc) {
  int64_t deadline = now_ms() + timeout_ms;
  pthread_mutex_lock(&r->mu);
  while (r->done < n && now_ms() < deadline) {
    pthread_mutex_unlock(&r->mu);
    sleep_ms(5);
    pthread_mutex_lock(&r->mu);
  }
  int done = r->done;
  if (rc) *rc = r->rc;
  pthread_mutex_unlock(&r->mu);
  return done;
}

static int raw_connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons((uint16_t)port);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
    close(fd);
    return -1;
  }
  struct timeval tv = {(time_t)(5 * mult), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

/* ---- the checks ---- */

static zhandle_t *dz, *pz; /* direct to the server / through the proxy */
static struct events dev, pev;

/* Long enough for any reconnect through a working proxy. */
static int64_t reconnect_wait(void) { return 3 * session_ms + ms(1000); }

static bool await_connected(zhandle_t *zh, int64_t timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  while (zoo_state(zh) != ZOO_CONNECTED_STATE && now_ms() < deadline) sleep_ms(5);
  return zoo_state(zh) == ZOO_CONNECTED_STATE;
}

static void check_protocol(void) {
  char reply[256] = "";
  long conns, acc, cuts;
  CHECK(px_cmd("no-such-command", reply, sizeof reply) && strncmp(reply, "ERR ", 4) == 0,
        "unknown command answered '%s'", reply);
  CHECK(px_cmd("cut-after-create -3", reply, sizeof reply) && strncmp(reply, "ERR ", 4) == 0,
        "bad count answered '%s'", reply);
  px_ok("cut-after-create 0");
  if (px_stats(&conns, &acc, &cuts))
    CHECK(conns == 1 && acc >= 1 && cuts == 0, "stats conns=%ld accepted=%ld cuts=%ld", conns, acc,
          cuts);
}

static void check_forwarding(void) {
  char buf[64];
  int len;
  int rc = zoo_create(pz, root, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  CHECK(rc == ZOK, "create %s: %s", root, zerror(rc));
  rc = zoo_create(pz, path_of("a"), "hello", 5, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  CHECK(rc == ZOK, "create a: %s", zerror(rc));
  len = sizeof buf;
  rc = zoo_get(dz, path_of("a"), 0, buf, &len, NULL);
  CHECK(rc == ZOK && len == 5 && memcmp(buf, "hello", 5) == 0, "direct get a: %s", zerror(rc));
  len = sizeof buf;
  rc = zoo_get(pz, path_of("a"), 0, buf, &len, NULL);
  CHECK(rc == ZOK && len == 5 && memcmp(buf, "hello", 5) == 0, "proxied get a: %s", zerror(rc));

  /* watches set through the proxy fire on changes made directly */
  int i0 = events_count(&pev);
  rc = zoo_exists(pz, path_of("a"), 1, NULL);
  CHECK(rc == ZOK, "exists+watch a: %s", zerror(rc));
  int64_t t0 = now_ms();
  rc = zoo_set(dz, path_of("a"), "world", 5, -1);
  CHECK(rc == ZOK, "direct set a: %s", zerror(rc));
  int k = events_wait(&pev, i0, ZOO_CHANGED_EVENT, -1, path_of("a"), ms(5000));
  CHECK(k >= 0, "no CHANGED event through the proxy");
  int64_t t_watch = now_ms() - t0;
  struct String_vector kids = {0, NULL};
  rc = zoo_get_children(pz, root, 1, &kids);
  deallocate_String_vector(&kids);
  CHECK(rc == ZOK, "get_children+watch: %s", zerror(rc));
  rc = zoo_create(dz, path_of("b"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  CHECK(rc == ZOK, "direct create b: %s", zerror(rc));
  CHECK(events_wait(&pev, i0, ZOO_CHILD_EVENT, -1, root, ms(5000)) >= 0, "no CHILD event");
  rc = zoo_exists(pz, path_of("b"), 1, NULL);
  rc = rc == ZOK ? zoo_delete(dz, path_of("b"), -1) : rc;
  CHECK(rc == ZOK, "exists b / delete b: %s", zerror(rc));
  CHECK(events_wait(&pev, i0, ZOO_DELETED_EVENT, -1, path_of("b"), ms(5000)) >= 0,
        "no DELETED event");
  rc = zoo_delete(pz, path_of("a"), -1);
  CHECK(rc == ZOK, "proxied delete a: %s", zerror(rc));
  CHECK(zoo_exists(dz, path_of("a"), 0, NULL) == ZNONODE, "a still exists");

  /* a packet far larger than the proxy's 64 KiB buffers, both ways */
  enum { BIG = 1000 * 1000 };
  char *big = malloc(BIG), *back = malloc(BIG);
  for (int i = 0; i < BIG; i++) big[i] = (char)(i * 7 + i / 251);
  t0 = now_ms();
  rc = zoo_create(pz, path_of("big"), big, BIG, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  CHECK(rc == ZOK, "create 1 MB node: %s", zerror(rc));
  len = BIG;
  rc = zoo_get(pz, path_of("big"), 0, back, &len, NULL);
  int64_t t_big = now_ms() - t0;
  CHECK(rc == ZOK && len == BIG && memcmp(big, back, BIG) == 0, "proxied get 1 MB: %s len %d",
        zerror(rc), len);
  len = BIG;
  rc = zoo_get(dz, path_of("big"), 0, back, &len, NULL);
  CHECK(rc == ZOK && len == BIG && memcmp(big, back, BIG) == 0, "direct get 1 MB: %s", zerror(rc));
  free(big);
  free(back);
  zoo_delete(pz, path_of("big"), -1);

  /* many pipelined requests: several packets per read */
  struct result r;
  result_init(&r);
  t0 = now_ms();
  for (int i = 0; i < 200; i++) {
    char leaf[32];
    snprintf(leaf, sizeof leaf, "p-%03d", i);
    zoo_acreate(pz, path_of(leaf), "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, string_done, &r);
  }
  int pipe_rc;
  int done = result_wait(&r, 200, ms(10000), &pipe_rc);
  int64_t t_pipe = now_ms() - t0;
  CHECK(done == 200 && pipe_rc == ZOK, "200 async creates: %d done, rc %s", done,
        zerror(pipe_rc));
  kids = (struct String_vector){0, NULL};
  rc = zoo_get_children(dz, root, 0, &kids);
  CHECK(rc == ZOK && kids.count == 200, "children after async creates: %d", kids.count);
  deallocate_String_vector(&kids);
  for (int i = 0; i < 200; i++) {
    char leaf[32];
    snprintf(leaf, sizeof leaf, "p-%03d", i);
    zoo_delete(dz, path_of(leaf), -1);
  }
  note("watch fired %lld ms after the direct set; 1 MB create+get %lld ms; 200 pipelined "
       "creates %lld ms",
       (long long)t_watch, (long long)t_big, (long long)t_pipe);
}

static void check_many_connections(void) {
  long conns0, conns, acc, cuts;
  if (!px_stats(&conns0, &acc, &cuts)) return;
  static int fd[RAW_CONNS];
  int opened = 0;
  for (int i = 0; i < RAW_CONNS; i++) {
    fd[i] = raw_connect(px.port);
    if (fd[i] >= 0) opened++;
  }
  CHECK(opened == RAW_CONNS, "only %d of %d connections opened", opened, RAW_CONNS);
  int64_t deadline = now_ms() + ms(5000);
  do {
    px_stats(&conns, &acc, &cuts);
  } while (conns != conns0 + opened && now_ms() < deadline && (sleep_ms(20), 1));
  CHECK(conns == conns0 + opened, "proxy reports %ld connections, want %ld", conns,
        conns0 + opened);
  /* a 4-letter word on each: the server answers and closes, the proxy must
   * pass the answer and then the close on */
  for (int i = 0; i < RAW_CONNS; i++)
    if (fd[i] >= 0 && write(fd[i], "ruok", 4) != 4) CHECK(false, "write ruok %d", i);
  int good = 0;
  for (int i = 0; i < RAW_CONNS; i++) {
    if (fd[i] < 0) continue;
    char b[16];
    size_t got = 0;
    ssize_t n;
    while ((n = read(fd[i], b + got, sizeof b - got)) > 0) got += (size_t)n;
    if (n == 0 && got == 4 && memcmp(b, "imok", 4) == 0) good++;
    close(fd[i]);
  }
  CHECK(good == opened, "%d of %d connections answered imok then closed", good, opened);
  deadline = now_ms() + ms(5000);
  do {
    px_stats(&conns, &acc, &cuts);
  } while (conns != conns0 && now_ms() < deadline && (sleep_ms(20), 1));
  CHECK(conns == conns0, "after closing, proxy reports %ld connections, want %ld", conns, conns0);
  note("%d concurrent connections: all answered ruok -> imok + EOF", good);
}

static void check_short_stall(void) {
  struct result r;
  result_init(&r);
  int i0 = events_count(&pev);
  if (!px_ok("stall")) return;
  int rc = zoo_aget(pz, root, 0, data_done, &r);
  CHECK(rc == ZOK, "aget: %s", zerror(rc));
  sleep_ms(500);
  CHECK(result_wait(&r, 1, 0, NULL) == 0, "a request completed while stalled");
  px_ok("unstall");
  int64_t t0 = now_ms();
  /* The wait is its own statement: CHECK's arguments are evaluated in no
   * set order, so a message reading the result could run before the wait
   * while the completion thread writes it. */
  int got_rc = ZOK;
  int got = result_wait(&r, 1, ms(3000), &got_rc);
  CHECK(got == 1 && got_rc == ZOK, "request after unstall: %s",
        got ? zerror(got_rc) : "not done");
  CHECK(events_count(&pev) == i0, "session events during a 500 ms stall");
  note("500 ms stall: request held, then answered %lld ms after unstall; no session event",
       (long long)(now_ms() - t0));
}

/* Two cuts of an idle connection: the C client reconnects at once after the
 * first, but delays later attempts by recv_timeout/60 ("Delaying connection
 * after exhaustively trying all servers": the proxy is its only server). */
static void check_cut(void) {
  long c0, c1, acc, cuts0, cuts1;
  int rc = zoo_create(pz, path_of("eph"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0);
  CHECK(rc == ZOK, "create ephemeral: %s", zerror(rc));
  int64_t sid = zoo_client_id(pz)->client_id;
  for (int round = 1; round <= 2; round++) {
    px_stats(&c0, &acc, &cuts0);
    int i0 = events_count(&pev);
    int64_t t0 = now_ms();
    if (!px_ok("cut")) return;
    int a = events_wait(&pev, i0, ZOO_SESSION_EVENT, ZOO_CONNECTING_STATE, NULL, ms(5000));
    int b = events_wait(&pev, i0, ZOO_SESSION_EVENT, ZOO_CONNECTED_STATE, NULL, reconnect_wait());
    CHECK(a >= 0, "no CONNECTING event after cut");
    CHECK(b >= 0, "no CONNECTED event after cut");
    events_print(&pev, i0, t0);
    CHECK(zoo_client_id(pz)->client_id == sid, "session changed across cut");
    struct Stat st;
    rc = zoo_exists(pz, path_of("eph"), 0, &st);
    CHECK(rc == ZOK && st.ephemeralOwner == sid, "ephemeral after cut: %s", zerror(rc));
    px_stats(&c1, &acc, &cuts1);
    CHECK(cuts1 == cuts0 + c0, "cuts went %ld -> %ld with %ld connections", cuts0, cuts1, c0);
    if (a >= 0 && b >= 0)
      note("cut #%d: CONNECTING after %lld ms, CONNECTED (same session) after %lld ms", round,
           (long long)(pev.ev[a].t - t0), (long long)(pev.ev[b].t - t0));
    sleep_ms(200);
  }
}

static int do_create(int kind, const char *path) {
  switch (kind) {
  case 0:
    return zoo_create(pz, path, "v", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  case 1:
    return zoo_create2(pz, path, "v", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0, NULL);
  case 2:
    return zoo_create(pz, path, "v", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_CONTAINER, NULL, 0);
  default:
    return zoo_create_ttl(pz, path, "v", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, 60000,
                          NULL, 0);
  }
}

static void check_cut_after_create(void) {
  static const char *kinds[] = {"create (op 1)", "create2 (op 15)", "container (op 19)",
                                "ttl (op 21)"};
  for (int kind = 0; kind < 4; kind++) {
    char leaf[32];
    snprintf(leaf, sizeof leaf, "cac-%d", kind);
    const char *path = path_of(leaf);
    CHECK(await_connected(pz, reconnect_wait()), "proxied handle not connected");
    if (!px_ok("cut-after-create 1")) return;
    int seen = px.cuts_seen;
    int i0 = events_count(&pev);
    /* other requests pass while armed */
    CHECK(zoo_exists(pz, root, 0, NULL) == ZOK, "exists while armed");
    int64_t t0 = now_ms();
    int rc = do_create(kind, path);
    int64_t t_rc = now_ms() - t0;
    CHECK(rc == ZCONNECTIONLOSS, "%s through armed proxy returned %s", kinds[kind], zerror(rc));
    CHECK(px_wait_cut(seen, ms(3000)), "no CUT line");
    int exists = zoo_exists(dz, path, 0, NULL);
    /* TTL nodes need extendedTypesEnabled on the server; without it the
     * server refuses the create, but the proxy must still cut on the reply */
    if (kind < 3)
      CHECK(exists == ZOK, "%s: node not on the server: %s", kinds[kind], zerror(exists));
    int b = events_wait(&pev, i0, ZOO_SESSION_EVENT, ZOO_CONNECTED_STATE, NULL, reconnect_wait());
    CHECK(b >= 0, "no reconnect after cut-after-create");
    note("%s: returned %s after %lld ms, proxy printed CUT %d, node on server: %s, "
         "reconnected after %lld ms",
         kinds[kind], zerror(rc), (long long)t_rc, px.last_cut_xid, exists == ZOK ? "yes" : "no",
         b >= 0 ? (long long)(pev.ev[b].t - t0) : -1LL);
    if (kind == 0) events_print(&pev, i0, t0);
  }
  /* disarmed again: the next create goes through untouched */
  int rc = zoo_create(pz, path_of("after"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  CHECK(rc == ZOK, "create after the armed ones: %s", zerror(rc));
  /* arming counts creates, not connections: two armed creates on one
   * connection, the first reply cuts it and the second is lost with it */
  if (!px_ok("cut-after-create 2")) return;
  struct result r;
  result_init(&r);
  int seen = px.cuts_seen;
  zoo_acreate(pz, path_of("two-1"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, string_done, &r);
  zoo_acreate(pz, path_of("two-2"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, string_done, &r);
  int two_rc = ZOK;
  int two = result_wait(&r, 2, ms(5000), &two_rc);
  CHECK(two == 2 && two_rc == ZCONNECTIONLOSS, "two pipelined armed creates: %d done, %s",
        two, zerror(two_rc));
  CHECK(px_wait_cut(seen, ms(3000)), "no CUT line for pipelined creates");
  CHECK(zoo_exists(dz, path_of("two-1"), 0, NULL) == ZOK, "two-1 missing on server");
  CHECK(await_connected(pz, reconnect_wait()), "no reconnect");
  px_ok("cut-after-create 0");
  char line[64] = "";
  CHECK(!px_line(line, sizeof line, 200), "unexpected proxy line '%s'", line);
}

/* expire-after-create: the create's reply says "session expired", the
 * connection stays open (the next request is answered), the node was made. */
static void check_expire_after_create(void) {
  const char *path = path_of("eac");
  CHECK(await_connected(pz, reconnect_wait()), "proxied handle not connected");
  if (!px_ok("expire-after-create 1")) return;
  CHECK(zoo_exists(pz, root, 0, NULL) == ZOK, "exists while armed");
  int rc = zoo_create(pz, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
  CHECK(rc == ZSESSIONEXPIRED, "armed create returned %s", zerror(rc));
  char line[64] = "";
  CHECK(px_line(line, sizeof line, ms(3000)) && strncmp(line, "EXPIRED ", 8) == 0,
        "no EXPIRED line (read '%s')", line);
  CHECK(zoo_exists(dz, path, 0, NULL) == ZOK, "node not on the server");
  CHECK(zoo_state(pz) == ZOO_CONNECTED_STATE, "proxied handle not connected after");
  CHECK(zoo_exists(pz, path, 0, NULL) == ZOK, "request after the rewrite");
  rc = zoo_create(pz, path_of("eac-after"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                  NULL, 0);
  CHECK(rc == ZOK, "create after the armed one: %s", zerror(rc));
  note("armed create answered %s, node on server, connection kept", zerror(ZSESSIONEXPIRED));
}

/* drop-after-create: the create's reply never comes; the next reply is out
 * of order for the client, which drops the connection and tells the
 * requests in flight ZRUNTIMEINCONSISTENCY. */
static void check_drop_after_create(void) {
  const char *path = path_of("dac");
  CHECK(await_connected(pz, reconnect_wait()), "proxied handle not connected");
  if (!px_ok("drop-after-create 1")) return;
  int i0 = events_count(&pev);
  struct result r;
  result_init(&r);
  zoo_acreate(pz, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, string_done, &r);
  zoo_acreate(pz, path_of("dac-2"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
              string_done, &r);
  int rc = ZOK;
  int done = result_wait(&r, 2, ms(5000), &rc);
  CHECK(done == 2 && rc == ZRUNTIMEINCONSISTENCY, "two creates behind a dropped reply: "
        "%d done, %s", done, zerror(rc));
  char line[64] = "";
  CHECK(px_line(line, sizeof line, ms(3000)) && strncmp(line, "DROPPED ", 8) == 0,
        "no DROPPED line (read '%s')", line);
  CHECK(zoo_exists(dz, path, 0, NULL) == ZOK, "node not on the server");
  int b = events_wait(&pev, i0, ZOO_SESSION_EVENT, ZOO_CONNECTED_STATE, NULL, reconnect_wait());
  CHECK(b >= 0, "no reconnect after the reply out of order");
  note("creates behind a dropped reply answered %s, the handle reconnected",
       zerror(ZRUNTIMEINCONSISTENCY));
}

static void check_refuse(void) {
  long c, acc0, acc1, cuts;
  if (!px_ok("refuse on") || !px_stats(&c, &acc0, &cuts)) return;
  struct events rev;
  int64_t t0 = now_ms();
  zhandle_t *rz = zk_open(px.port, session_ms, &rev);
  CHECK(rz != NULL, "zookeeper_init failed");
  if (!rz) return;
  int k = events_wait(&rev, 0, ZOO_SESSION_EVENT, ZOO_CONNECTED_STATE, NULL, ms(3000));
  CHECK(k < 0, "connected while the proxy refuses");
  CHECK(zoo_exists(pz, root, 0, NULL) == ZOK, "existing connection hurt by refuse on");
  px_stats(&c, &acc1, &cuts);
  int n_ev = events_count(&rev);
  int state = zoo_state(rz);
  int64_t t1 = now_ms();
  px_ok("refuse off");
  k = events_wait(&rev, 0, ZOO_SESSION_EVENT, ZOO_CONNECTED_STATE, NULL, reconnect_wait());
  CHECK(k >= 0, "no CONNECTED after refuse off");
  note("refuse on for %lld ms: %ld connection attempts refused, %d watcher events, state %s; "
       "after refuse off CONNECTED in %lld ms",
       (long long)(t1 - t0), acc1 - acc0, n_ev, state_name(state),
       k >= 0 ? (long long)(rev.ev[k].t - t1) : -1LL);
  events_print(&rev, 0, t0);
  zookeeper_close(rz);
}

static void check_stall_expires(void) {
  CHECK(await_connected(pz, reconnect_wait()), "proxied handle not connected");
  int rc = zoo_create(pz, path_of("eph2"), "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0);
  CHECK(rc == ZOK, "create ephemeral: %s", zerror(rc));
  long c, acc0, acc1, cuts;
  px_stats(&c, &acc0, &cuts);
  int i0 = events_count(&pev);
  int64_t t0 = now_ms();
  if (!px_ok("stall")) return;
  int a = events_wait(&pev, i0, ZOO_SESSION_EVENT, ZOO_CONNECTING_STATE, NULL, 2 * session_ms);
  CHECK(a >= 0, "client did not notice the stall");
  /* the server expires the session it no longer hears from */
  int64_t deadline = now_ms() + 4 * session_ms;
  while (zoo_exists(dz, path_of("eph2"), 0, NULL) == ZOK && now_ms() < deadline) sleep_ms(20);
  int64_t t_gone = now_ms() - t0;
  CHECK(zoo_exists(dz, path_of("eph2"), 0, NULL) == ZNONODE, "ephemeral survived the stall");
  px_stats(&c, &acc1, &cuts);
  int64_t t1 = now_ms();
  px_ok("unstall");
  int b = events_wait(&pev, i0, ZOO_SESSION_EVENT, ZOO_EXPIRED_SESSION_STATE, NULL, ms(5000));
  CHECK(b >= 0, "no EXPIRED_SESSION after unstall");
  CHECK(zoo_state(pz) == ZOO_EXPIRED_SESSION_STATE, "state %s", state_name(zoo_state(pz)));
  events_print(&pev, i0, t0);
  note("stall: client CONNECTING after %lld ms, server dropped the ephemeral after %lld ms "
       "(session timeout %d ms), %ld reconnect attempts accepted while stalled, "
       "EXPIRED_SESSION %lld ms after unstall",
       a >= 0 ? (long long)(pev.ev[a].t - t0) : -1LL, (long long)t_gone, session_ms, acc1 - acc0,
       b >= 0 ? (long long)(pev.ev[b].t - t1) : -1LL);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: zkt_proxy_selftest <path-to-zkt_proxy>\n");
    return 2;
  }
  const char *m = getenv("ZKC_TEST_TIMEOUT_MULT");
  if (m && atoi(m) > 0) mult = atoi(m);
  const char *pb = getenv("ZKC_ENSEMBLE_PORT_BASE");
  SERVER_PORT = (pb && *pb ? atoi(pb) : 2180) + 1;
  signal(SIGPIPE, SIG_IGN);
  zoo_set_debug_level(getenv("ZKT_ZKLOG") ? ZOO_LOG_LEVEL_INFO : ZOO_LOG_LEVEL_ERROR);
  start_ms = now_ms();
  snprintf(root, sizeof root, "/zkt-proxy-selftest-%d", (int)getpid());

  if (!px_start(argv[1])) {
    fprintf(stdout, "FAIL: cannot start %s\n", argv[1]);
    px_stop();
    return 1;
  }
  dz = zk_open(SERVER_PORT, 10000, &dev);
  int want = SESSION_MS * mult > 10000 ? 10000 : SESSION_MS * mult;
  pz = zk_open(px.port, want, &pev);
  if (!dz || !pz || !await_connected(dz, ms(10000)) || !await_connected(pz, ms(10000))) {
    fprintf(stdout, "FAIL: cannot connect to 127.0.0.1:%d directly and through the proxy :%d\n",
            SERVER_PORT, px.port);
    px_stop();
    return 1;
  }
  session_ms = zoo_recv_timeout(pz);
  printf("proxy on 127.0.0.1:%d -> %d, root %s, session timeout %d ms\n", px.port, SERVER_PORT,
         root, session_ms);

  static const struct {
    const char *name;
    void (*fn)(void);
  } checks[] = {
      {"protocol", check_protocol},
      {"forwarding", check_forwarding},
      {"many_connections", check_many_connections},
      {"short_stall", check_short_stall},
      {"cut", check_cut},
      {"cut_after_create", check_cut_after_create},
      {"expire_after_create", check_expire_after_create},
      {"drop_after_create", check_drop_after_create},
      {"refuse", check_refuse},
      {"stall_expires_session", check_stall_expires}, /* last: ends pz's session */
  };
  for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
    int before = failures;
    int64_t t0 = now_ms();
    printf("%s:\n", checks[i].name);
    fflush(stdout);
    checks[i].fn();
    printf("%s %s (%lld ms)\n", failures == before ? "PASS" : "FAIL", checks[i].name,
           (long long)(now_ms() - t0));
    fflush(stdout);
  }

  delete_tree(dz, root);
  CHECK(zoo_exists(dz, root, 0, NULL) == ZNONODE, "%s left behind", root);
  zookeeper_close(pz);
  zookeeper_close(dz);
  int st = px_stop();
  CHECK(st == 0, "proxy exit status %d after stdin EOF", st);
  printf("%s: %d failure(s), %lld ms\n", failures ? "FAILED" : "ALL PASSED", failures,
         (long long)(now_ms() - start_ms));
  return failures ? 1 : 0;
}
