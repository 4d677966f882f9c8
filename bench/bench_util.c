/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of zkc_bench: see bench.h. */
#include <arpa/inet.h>
#include <dirent.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

bench_cfg_t cfg;

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("zkc_bench: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

/* ---- statistics ---- */

void samples_add(samples_t *s, double x) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    if (s->v == NULL) die("out of memory");
  }
  s->v[s->n++] = x;
}

void samples_append(samples_t *s, const samples_t *from) {
  for (size_t i = 0; i < from->n; i++) samples_add(s, from->v[i]);
}

void samples_free(samples_t *s) {
  free(s->v);
  *s = (samples_t){0};
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double samples_quantile(samples_t *s, double q) {
  if (s->n == 0) return 0;
  qsort(s->v, s->n, sizeof *s->v, cmp_double);
  double pos = q * (double)(s->n - 1); /* interpolated between neighbours */
  size_t i = (size_t)pos;
  if (i + 1 >= s->n) return s->v[s->n - 1];
  return s->v[i] + (pos - (double)i) * (s->v[i + 1] - s->v[i]);
}

double median_of(const double *runs, int k) {
  samples_t s = {0};
  for (int i = 0; i < k; i++) samples_add(&s, runs[i]);
  double m = samples_quantile(&s, 0.5);
  samples_free(&s);
  return m;
}

void emit(const char *scen, int n, const char *measure, const char *variant,
          const char *unit, const double *runs, int k) {
  samples_t s = {0};
  for (int i = 0; i < k; i++) samples_add(&s, runs[i]);
  double med = samples_quantile(&s, 0.5);
  printf("R,%s,%d,%s,%s,%s,%.6g,%.6g,%.6g,%d\n", scen, n, measure, variant,
         unit, med, s.n ? s.v[0] : 0, s.n ? s.v[s.n - 1] : 0, k);
  fflush(stdout);
  samples_free(&s);
}

int emit_target(const char *scen, const char *what, double value,
                const char *op, double threshold) {
  int met = strcmp(op, "<") == 0    ? value < threshold
            : strcmp(op, "<=") == 0 ? value <= threshold
            : strcmp(op, ">=") == 0 ? value >= threshold
            : strcmp(op, ">") == 0  ? value > threshold
                                    : value == threshold;
  printf("T,%s,%s,%s,%.6g,%s %.6g\n", scen, what, met ? "met" : "MISSED",
         value, op, threshold);
  fflush(stdout);
  return met;
}

/* ---- raw sessions ---- */

typedef struct raw_ctx {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int connected;
} raw_ctx_t;

static void raw_watcher(zhandle_t *zh, int type, int state, const char *path,
                        void *ctx) {
  (void)zh, (void)path;
  raw_ctx_t *r = ctx;
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) {
    pthread_mutex_lock(&r->mu);
    r->connected = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
  }
}

zhandle_t *raw_open(void) { return raw_open_at(cfg.connect); }

zhandle_t *raw_open_at(const char *hosts) {
  raw_ctx_t *r = calloc(1, sizeof *r);
  if (r == NULL) die("out of memory");
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  zhandle_t *zh = zookeeper_init2(hosts, raw_watcher, 10000, NULL, r, 0, NULL);
  if (zh == NULL) die("zookeeper_init2 failed");
  /* As zkcoord's own sessions: no name resolution on every I/O pass, which
   * would otherwise be most of a request's client CPU (the baseline is the
   * ensemble's limit, not the resolver's). */
  zoo_set_servers_resolution_delay(zh, 1000);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 30;
  pthread_mutex_lock(&r->mu);
  while (!r->connected)
    if (pthread_cond_timedwait(&r->cv, &r->mu, &until) != 0)
      die("no connection to %s", hosts);
  pthread_mutex_unlock(&r->mu);
  return zh;
}

int raw_transient(int zk_rc) {
  return zk_rc == ZCONNECTIONLOSS || zk_rc == ZOPERATIONTIMEOUT;
}

void raw_close(zhandle_t *zh) {
  raw_ctx_t *r = (raw_ctx_t *)zoo_get_context(zh);
  zookeeper_close(zh);
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  free(r);
}

void raw_on_deleted(zhandle_t *zh, int type, int state, const char *path,
                    void *ctx) {
  (void)zh, (void)state, (void)path;
  if (type != ZOO_DELETED_EVENT) return;
  int64_t t = now_ns();
  raw_event_t *e = ctx;
  pthread_mutex_lock(&e->mu);
  e->at = t;
  pthread_cond_signal(&e->cv);
  pthread_mutex_unlock(&e->mu);
}

void raw_event_arm(raw_event_t *e) {
  pthread_mutex_lock(&e->mu);
  e->at = 0;
  pthread_mutex_unlock(&e->mu);
}

void raw_event_wait(raw_event_t *e) {
  pthread_mutex_lock(&e->mu);
  while (e->at == 0) pthread_cond_wait(&e->cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
}

void raw_ensure(zhandle_t *zh, const char *path) {
  int rc = zoo_create(zh, path, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  if (rc == ZOK || rc == ZNODEEXISTS) return;
  if (rc != ZNONODE) die("create %s: %s", path, zerror(rc));
  char parent[512];
  snprintf(parent, sizeof parent, "%s", path);
  *strrchr(parent, '/') = '\0';
  raw_ensure(zh, parent);
  raw_ensure(zh, path);
}

void raw_delete_tree(zhandle_t *zh, const char *path) {
  struct String_vector v = {0};
  int rc = zoo_get_children(zh, path, 0, &v);
  if (rc == ZNONODE) return;
  if (rc != ZOK) die("children of %s: %s", path, zerror(rc));
  char **paths = calloc((size_t)v.count + 1, sizeof *paths);
  if (paths == NULL) die("out of memory");
  for (int i = 0; i < v.count; i++) {
    size_t len = strlen(path) + strlen(v.data[i]) + 2;
    if ((paths[i] = malloc(len)) == NULL) die("out of memory");
    snprintf(paths[i], len, "%s/%s", path, v.data[i]);
    /* Lock and raw nodes have no children: skip the read for those. */
    if (strstr(v.data[i], "lock-") == NULL && strncmp(v.data[i], "raw-", 4))
      raw_delete_tree(zh, paths[i]);
  }
  raw_bulk(zh, paths, v.count, 0);
  for (int i = 0; i < v.count; i++) free(paths[i]);
  free(paths);
  deallocate_String_vector(&v);
  rc = zoo_delete(zh, path, -1);
  if (rc != ZOK && rc != ZNONODE) die("delete %s: %s", path, zerror(rc));
}

int raw_children_count(zhandle_t *zh, const char *path) {
  struct Stat st;
  int rc = zoo_exists(zh, path, 0, &st);
  if (rc == ZNONODE) return -1;
  if (rc != ZOK) die("exists %s: %s", path, zerror(rc));
  return st.numChildren;
}

/* Pipelined requests: at most WINDOW in flight, all waited for. */
#define WINDOW 256
typedef struct bulk {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int pending, failed;
} bulk_t;

static void bulk_done(bulk_t *b, int rc) {
  pthread_mutex_lock(&b->mu);
  if (rc != ZOK && rc != ZNODEEXISTS && rc != ZNONODE) b->failed = rc;
  b->pending--;
  pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&b->mu);
}
static void bulk_void(int rc, const void *data) { bulk_done((bulk_t *)data, rc); }
static void bulk_str(int rc, const char *v, const void *data) {
  (void)v;
  bulk_done((bulk_t *)data, rc);
}

void raw_bulk(zhandle_t *zh, char **paths, int n, int create) {
  bulk_t b = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  for (int i = 0; i <= n; i++) {
    pthread_mutex_lock(&b.mu);
    while (b.pending >= (i < n ? WINDOW : 1)) pthread_cond_wait(&b.cv, &b.mu);
    if (i < n) b.pending++;
    pthread_mutex_unlock(&b.mu);
    if (i == n) break;
    int rc = create ? zoo_acreate(zh, paths[i], NULL, -1, &ZOO_OPEN_ACL_UNSAFE,
                                  0, bulk_str, &b)
                    : zoo_adelete(zh, paths[i], -1, bulk_void, &b);
    if (rc != ZOK) bulk_done(&b, rc);
  }
  if (b.failed) die("bulk %s: %s", create ? "create" : "delete", zerror(b.failed));
}

/* ---- zkcoord ---- */

zkc_client_t *zkc_open(void) {
  zkc_client_t *c;
  zkc_check(zkc_client_open(&c, cfg.connect, NULL), "zkc_client_open");
  return c;
}

void zkc_check(int rc, const char *what) {
  if (rc != ZKC_OK) die("%s: %s", what, zkc_strerror(rc));
}

/* ---- 4-letter words ---- */

char *fourlw(int server, const char *word) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return NULL;
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons((uint16_t)(cfg.port_base + server))};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      write(fd, word, 4) != 4) {
    close(fd);
    return NULL;
  }
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  ssize_t r;
  while (buf && (r = read(fd, buf + len, cap - len - 1)) > 0) {
    len += (size_t)r;
    if (cap - len < 1024 && (buf = realloc(buf, cap *= 2)) == NULL) break;
  }
  close(fd);
  if (buf) buf[len] = '\0';
  return buf;
}

double mntr_sum(const char *key) {
  double sum = 0;
  size_t klen = strlen(key);
  for (int s = 1; s <= 3; s++) {
    char *out = fourlw(s, "mntr");
    if (out == NULL) die("no mntr answer from server %d", s);
    for (char *line = out; line && *line; line = strchr(line, '\n')) {
      if (*line == '\n') line++;
      if (strncmp(line, key, klen) == 0 && line[klen] == '\t')
        sum += atof(line + klen + 1);
    }
    free(out);
  }
  return sum;
}

long watches_total(void) {
  long sum = 0;
  for (int s = 1; s <= 3; s++) {
    char *out = fourlw(s, "wchs");
    char *p = out ? strstr(out, "Total watches:") : NULL;
    if (p == NULL) die("no wchs answer from server %d", s);
    sum += atol(p + strlen("Total watches:"));
    free(out);
  }
  return sum;
}

/* ---- memory ---- */

long rss_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  if (f) fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

long heap_bytes(void) {
  struct mallinfo2 mi = mallinfo2();
  return (long)(mi.uordblks + mi.hblkhd);
}

/* ---- actors ---- */

/* The hold's node path, copied into buf (its list's one entry). */
static void hold_node(zkc_hold_t *hold, char *buf, size_t len) {
  zkc_list_t *nodes = NULL;
  zkc_check(zkc_hold_node_list(hold, &nodes), "zkc_hold_node_list");
  snprintf(buf, len, "%s", zkc_list_string(nodes, 0));
  zkc_list_free(nodes);
}

static void *actor_main(void *arg) {
  actor_t *a = arg;
  pthread_mutex_lock(&a->mu);
  for (;;) {
    while (a->cmd == CMD_NONE) pthread_cond_wait(&a->cv, &a->mu);
    int cmd = a->cmd;
    if (cmd == CMD_QUIT) break;
    pthread_mutex_unlock(&a->mu);
    int64_t t0 = now_ns();
    zkc_check(cmd == CMD_ACQUIRE ? zkc_mutex_acquire(a->m)
                                 : zkc_mutex_release(a->m),
              cmd == CMD_ACQUIRE ? "acquire" : "release");
    int64_t t1 = now_ns();
    if (cmd == CMD_ACQUIRE) /* only this thread can ask: after the timing */
      hold_node(zkc_mutex_hold(a->m), a->node, sizeof a->node);
    pthread_mutex_lock(&a->mu);
    a->t_call = t0, a->t_ret = t1;
    a->cmd = CMD_NONE;
    pthread_cond_broadcast(&a->cv);
  }
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

void actor_start(actor_t *a) {
  a->cmd = CMD_NONE;
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->cv, NULL);
  if (pthread_create(&a->th, NULL, actor_main, a) != 0) die("pthread_create");
}

void actor_send(actor_t *a, int cmd) {
  pthread_mutex_lock(&a->mu);
  a->cmd = cmd;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

void actor_wait(actor_t *a) {
  pthread_mutex_lock(&a->mu);
  while (a->cmd != CMD_NONE) pthread_cond_wait(&a->cv, &a->mu);
  pthread_mutex_unlock(&a->mu);
}

void actor_stop(actor_t *a) {
  actor_send(a, CMD_QUIT);
  pthread_join(a->th, NULL);
  pthread_cond_destroy(&a->cv);
  pthread_mutex_destroy(&a->mu);
}

int threads_now(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  if (d) closedir(d);
  return n;
}
