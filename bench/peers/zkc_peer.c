/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord's mutex, read-write lock and semaphore in the peer protocol of
 * bench/run.sh (bench/peers/README.md): the same loops as the Curator, kazoo
 * and go-zookeeper peers, so that the libraries are timed alike; one
 * zkcoord client (session) per worker.
 *
 *   zkc_peer CONNECT ROOT ROUND_MS [MEASURE:N...]
 * prints M,measure,n,rate,handoff_p50_us,handoff_p99_us per measure (and
 * the extra lines of the recipe measures, see the README). With
 * ZKC_PEER_RAW set, the mutex measures run the raw C client instead (raw-c
 * in run-peers.sh). */
#include <arpa/inet.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../bench.h"

typedef struct peer {
  zkc_client_t *c;
  zkc_mutex_t *m;
  pthread_t th;
  /* ZKC_PEER_RAW: the raw C client instead, in go-zookeeper's protocol */
  zhandle_t *zh;
  char base[256], node[320];
  raw_event_t ev; /* the predecessor's delete */
} peer_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long count, cycles; /* in the window; every cycle, warm-up and tail too */
static int64_t last_release, warm, end;
static int shared;
static samples_t handoffs;

/* ---- the raw baseline (ZKC_PEER_RAW set): no zkcoord, the ZooKeeper C
 * client's synchronous calls in go-zookeeper's Lock protocol (create an
 * ephemeral-sequential node, read the children, wait on the predecessor's
 * watch, read again; delete to release), so that the C client's own cost
 * is measured beside go-zookeeper's, in the same rounds. ---- */

static int raw;

static double mntr_counts(double *packets);

static long seq_of(const char *name) {
  const char *dash = strrchr(name, '-');
  return dash ? atol(dash + 1) : -1;
}

static void raw_acquire(peer_t *p) {
  char prefix[300];
  snprintf(prefix, sizeof prefix, "%s/lock-", p->base);
  if (zoo_create(p->zh, prefix, "", 0, &ZOO_OPEN_ACL_UNSAFE,
                 ZOO_EPHEMERAL_SEQUENTIAL, p->node, sizeof p->node) != ZOK)
    die("raw create under %s failed", p->base);
  long mine = seq_of(p->node);
  for (;;) {
    struct String_vector v;
    if (zoo_get_children(p->zh, p->base, 0, &v) != ZOK) die("raw children failed");
    long low = mine, prev = -1;
    char pred[600] = "";
    for (int i = 0; i < v.count; i++) {
      long q = seq_of(v.data[i]);
      if (q < low) low = q;
      if (q < mine && q > prev) {
        prev = q;
        snprintf(pred, sizeof pred, "%s/%s", p->base, v.data[i]);
      }
    }
    deallocate_String_vector(&v);
    if (low == mine) return;
    raw_event_arm(&p->ev);
    struct Stat st;
    int rc = zoo_wexists(p->zh, pred, raw_on_deleted, &p->ev, &st);
    if (rc == ZNONODE) continue;
    if (rc != ZOK) die("raw exists failed");
    raw_event_wait(&p->ev);
  }
}

static void raw_release(peer_t *p) {
  if (zoo_delete(p->zh, p->node, -1) != ZOK) die("raw delete failed");
}

static void *loop(void *arg) {
  peer_t *p = arg;
  while (now_ns() < end) {
    if (raw) raw_acquire(p);
    else zkc_check(zkc_mutex_acquire(p->m), "acquire");
    int64_t t = now_ns();
    pthread_mutex_lock(&mu);
    cycles++;
    if (t > warm && t < end) {
      count++;
      if (shared && last_release) samples_add(&handoffs, (double)(t - last_release) / 1e3);
    }
    if (shared) last_release = now_ns();
    pthread_mutex_unlock(&mu);
    if (raw) raw_release(p);
    else zkc_check(zkc_mutex_release(p->m), "release");
  }
  return NULL;
}

/* The requests zkcoord's sessions sent so far (0 for the raw client). */
static double client_requests(const peer_t *ps, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) {
    zkc_client_stats_t st;
    if (ps[i].c && zkc_client_stats(ps[i].c, &st) == ZKC_OK) sum += (double)st.requests;
  }
  return sum;
}

static void run(const char *root, const char *measure, int n, int round_ms) {
  peer_t *ps = calloc((size_t)n, sizeof *ps);
  if (!ps) die("out of memory");
  shared = strcmp(measure, "paths") != 0;
  for (int i = 0; i < n; i++) {
    char path[256];
    int len = snprintf(path, sizeof path, "%s/%s-%d", root, measure, n);
    if (!shared) snprintf(path + len, sizeof path - (size_t)len, "/%d", i);
    if (raw) {
      ps[i].zh = raw_open();
      raw_ensure(ps[i].zh, path);
      snprintf(ps[i].base, sizeof ps[i].base, "%s", path);
      pthread_mutex_init(&ps[i].ev.mu, NULL);
      pthread_cond_init(&ps[i].ev.cv, NULL);
      continue;
    }
    ps[i].c = zkc_open();
    zkc_check(zkc_mutex_create(&ps[i].m, ps[i].c, path), "zkc_mutex_create");
  }
  count = cycles = 0;
  last_release = 0;
  /* ZKC_PEER_COUNTS: every cycle of the loop, warm-up and tail included
   * (what a count over the whole process divides by), and the servers'
   * requests received over it per cycle (pings included). */
  const int counts = getenv("ZKC_PEER_COUNTS") != NULL;
  double p0 = 0, p1 = 0, s0 = 0, s1 = 0;
  if (counts) {
    mntr_counts(&p0);
    s0 = client_requests(ps, n);
  }
  warm = now_ns() + (int64_t)round_ms / 5 * 1000000;
  end = warm + (int64_t)round_ms * 1000000;
  for (int i = 0; i < n; i++)
    if (pthread_create(&ps[i].th, NULL, loop, &ps[i]) != 0) die("pthread_create");
  for (int i = 0; i < n; i++) pthread_join(ps[i].th, NULL);
  if (counts) {
    mntr_counts(&p1);
    s1 = client_requests(ps, n);
  }
  for (int i = 0; i < n; i++) {
    if (raw) {
      raw_close(ps[i].zh);
      pthread_cond_destroy(&ps[i].ev.cv);
      pthread_mutex_destroy(&ps[i].ev.mu);
      continue;
    }
    zkc_mutex_destroy(ps[i].m);
    zkc_client_close(ps[i].c);
  }
  free(ps);
  double p50 = -1, p99 = -1;
  if (shared && n > 1) {
    p50 = samples_quantile(&handoffs, 0.5);
    p99 = samples_quantile(&handoffs, 0.99);
  }
  samples_free(&handoffs);
  printf("M,%s,%d,%.1f,%.0f,%.0f\n", measure, n, (double)count / (round_ms / 1e3), p50, p99);
  if (counts && cycles) {
    printf("M,%s-requests,%d,%.3f,-1,-1\n", measure, n, (p1 - p0) / (double)cycles);
    printf("M,%s-cycles,%d,%ld,-1,-1\n", measure, n, cycles);
    if (!raw) /* the library's own count (zkc_client_stats) */
      printf("M,%s-lib-requests,%d,%.3f,-1,-1\n", measure, n, (s1 - s0) / (double)cycles);
  }
  fflush(stdout);
}


/* ---- the recipe measures (rw*, rwherd*, sem*) ---- */

/* Watch notifications fired so far on the servers of CONNECT: the sum of
 * every zk_sum_node_*_watch_count of `mntr` over the servers; *packets (when
 * not NULL) gets the sum of zk_packets_received (client requests, pings
 * included). */
static double mntr_counts(double *packets) {
  char hosts[512];
  snprintf(hosts, sizeof hosts, "%s", cfg.connect);
  double sum = 0;
  if (packets) *packets = 0;
  char *save = NULL;
  for (char *h = strtok_r(hosts, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(h, ':');
    if (colon == NULL) die("no port in %s", h);
    *colon = '\0';
    struct addrinfo hint = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(h, colon + 1, &hint, &ai) != 0) die("cannot resolve %s", h);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 || write(fd, "mntr", 4) != 4)
      die("no mntr from %s:%s", h, colon + 1);
    freeaddrinfo(ai);
    static char buf[1 << 16];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 && (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)r;
    close(fd);
    buf[len] = '\0';
    for (char *line = buf; line && *line; line = strchr(line, '\n')) {
      if (*line == '\n') line++;
      char *tab = strchr(line, '\t');
      if (strncmp(line, "zk_sum_node_", 12) == 0 && tab && tab - line > 12 &&
          strncmp(tab - 12, "_watch_count", 12) == 0)
        sum += atof(tab + 1);
      if (packets && strncmp(line, "zk_packets_received\t", 20) == 0) *packets += atof(tab + 1);
    }
  }
  return sum;
}

static double notifications(void) { return mntr_counts(NULL); }

typedef struct rpeer {
  zkc_client_t *c;
  zkc_rwlock_t *rw;
  zkc_sem_t *sem;
  unsigned seed;
  pthread_t th;
} rpeer_t;

static int read_pct, sem_k;
static long ops; /* every release, inside the window or not */

static void *rw_loop(void *arg) {
  rpeer_t *p = arg;
  while (now_ns() < end) {
    int reader = (int)(rand_r(&p->seed) % 100) < read_pct;
    zkc_mutex_t *m = reader ? zkc_rwlock_read_side(p->rw) : zkc_rwlock_write_side(p->rw);
    zkc_check(zkc_mutex_acquire(m), "acquire");
    int64_t t = now_ns();
    pthread_mutex_lock(&mu);
    if (t > warm && t < end) count++;
    ops++;
    pthread_mutex_unlock(&mu);
    zkc_check(zkc_mutex_release(m), "release");
  }
  return NULL;
}

static void *sem_loop(void *arg) {
  rpeer_t *p = arg;
  while (now_ns() < end) {
    zkc_lease_t *l;
    zkc_check(zkc_sem_acquire(p->sem, (unsigned)sem_k, -1, &l), "sem_acquire");
    int64_t t = now_ns();
    pthread_mutex_lock(&mu);
    if (t > warm && t < end) count += sem_k;
    ops++;
    pthread_mutex_unlock(&mu);
    zkc_check(zkc_lease_release(l), "lease_release");
    zkc_lease_free(l);
  }
  return NULL;
}

/* rwPCT:N (PCT % reads) or semLkK:N (L leases, K per acquire). */
static void run_recipe(const char *root, const char *measure, int n, int round_ms, int pct,
                       int leases, int k) {
  rpeer_t *ps = calloc((size_t)n, sizeof *ps);
  if (!ps) die("out of memory");
  char path[256];
  snprintf(path, sizeof path, "%s/%s-%d", root, measure, n);
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = leases;
  for (int i = 0; i < n; i++) {
    ps[i].c = zkc_open();
    ps[i].seed = (unsigned)i * 7919u + 1;
    if (pct >= 0) zkc_check(zkc_rwlock_create(&ps[i].rw, ps[i].c, path), "zkc_rwlock_create");
    else zkc_check(zkc_sem_create(&ps[i].sem, ps[i].c, path, &o), "zkc_sem_create");
  }
  /* One untimed cycle first (every peer does): connected and warmed up. */
  if (pct >= 0) {
    zkc_check(zkc_mutex_acquire(zkc_rwlock_write_side(ps[0].rw)), "warm-up");
    zkc_check(zkc_mutex_release(zkc_rwlock_write_side(ps[0].rw)), "warm-up");
  } else {
    zkc_lease_t *l;
    zkc_check(zkc_sem_acquire(ps[0].sem, 1, -1, &l), "warm-up");
    zkc_lease_free(l);
  }
  read_pct = pct;
  sem_k = k;
  count = ops = 0;
  double p0, p1, n0 = mntr_counts(&p0);
  warm = now_ns() + (int64_t)round_ms / 5 * 1000000;
  end = warm + (int64_t)round_ms * 1000000;
  for (int i = 0; i < n; i++)
    if (pthread_create(&ps[i].th, NULL, pct >= 0 ? rw_loop : sem_loop, &ps[i]) != 0)
      die("pthread_create");
  for (int i = 0; i < n; i++) pthread_join(ps[i].th, NULL);
  sleep_ms(200); /* the last deletes' notifications */
  double n1 = mntr_counts(&p1);
  for (int i = 0; i < n; i++) {
    if (ps[i].rw) zkc_check(zkc_rwlock_destroy(ps[i].rw), "zkc_rwlock_destroy");
    if (ps[i].sem) zkc_check(zkc_sem_destroy(ps[i].sem), "zkc_sem_destroy");
    zkc_client_close(ps[i].c);
  }
  free(ps);
  printf("M,%s,%d,%.1f,-1,-1\n", measure, n, (double)count / (round_ms / 1e3));
  if (ops) printf("M,%s-notify,%d,%.3f,-1,-1\n", measure, n, (n1 - n0) / (double)ops);
  if (ops) printf("M,%s-requests,%d,%.3f,-1,-1\n", measure, n, (p1 - p0) / (double)ops);
  printf("M,%s-timeouts,%d,0,-1,-1\n", measure, n);
  fflush(stdout);
}

/* The reader herd: `writers` writers queued (the first holding), then r
 * readers queued behind them; the writers release in turn until every
 * reader holds. Prints the watch notifications fired on the servers
 * meanwhile, per reader. */
typedef struct hpeer {
  zkc_client_t *c;
  zkc_rwlock_t *rw;
  zkc_mutex_t *m;
  int go; /* release now (a lock side is released by its holding thread) */
  pthread_t th;
} hpeer_t;

static long granted;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *herd_member(void *arg) {
  hpeer_t *h = arg;
  zkc_check(zkc_mutex_acquire(h->m), "acquire");
  pthread_mutex_lock(&mu);
  granted++;
  while (!h->go) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  zkc_check(zkc_mutex_release(h->m), "release");
  return NULL;
}

static void herd_release(hpeer_t *h) {
  pthread_mutex_lock(&mu);
  h->go = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  pthread_join(h->th, NULL);
}

static size_t queue_len(zkc_client_t *c, const char *path) {
  zkc_list_t *v;
  zkc_check(zkc_lock_contender_list(c, path, &v), "zkc_lock_contender_list");
  size_t k = zkc_list_count(v);
  zkc_list_free(v);
  return k;
}

static void await_queue(zkc_client_t *c, const char *path, size_t want) {
  for (int i = 0; i < 5000 && queue_len(c, path) < want; i++) sleep_ms(2);
}

static void await_granted(long want) {
  for (int i = 0; i < 10000; i++) {
    pthread_mutex_lock(&mu);
    long g = granted;
    pthread_mutex_unlock(&mu);
    if (g >= want) return;
    sleep_ms(1);
  }
  die("herd: grants did not arrive");
}

static void run_herd(const char *root, const char *measure, int r, int writers) {
  int total = writers + r;
  hpeer_t *hs = calloc((size_t)total, sizeof *hs);
  if (!hs) die("out of memory");
  char path[256];
  snprintf(path, sizeof path, "%s/%s-%d", root, measure, r);
  for (int i = 0; i < total; i++) {
    hs[i].c = zkc_open();
    zkc_check(zkc_rwlock_create(&hs[i].rw, hs[i].c, path), "zkc_rwlock_create");
    hs[i].m = i < writers ? zkc_rwlock_write_side(hs[i].rw) : zkc_rwlock_read_side(hs[i].rw);
  }
  granted = 0;
  for (int i = 0; i < total; i++) { /* one at a time: the queue in this order */
    if (pthread_create(&hs[i].th, NULL, herd_member, &hs[i]) != 0) die("pthread_create");
    await_queue(hs[0].c, path, (size_t)i + 1);
  }
  await_granted(1);
  sleep_ms(500); /* every waiter's watch set */
  double n0 = notifications();
  for (int w = 0; w < writers; w++) {
    await_granted(w + 1);
    sleep_ms(100);
    herd_release(&hs[w]);
  }
  await_granted(total);
  sleep_ms(300);
  double n1 = notifications();
  for (int i = writers; i < total; i++) herd_release(&hs[i]);
  for (int i = 0; i < total; i++) {
    zkc_check(zkc_rwlock_destroy(hs[i].rw), "zkc_rwlock_destroy");
    zkc_client_close(hs[i].c);
  }
  free(hs);
  printf("M,%s,%d,%.3f,-1,-1\n", measure, r, (n1 - n0) / r);
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: zkc_peer CONNECT ROOT ROUND_MS [MEASURE:N...]\n");
    return 2;
  }
  cfg.connect = argv[1];
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  raw = getenv("ZKC_PEER_RAW") != NULL;
  for (int k = 4; k < argc; k++) {
    char name[32];
    int n;
    int a, b;
    if (sscanf(argv[k], "%31[^:]:%d", name, &n) != 2 || n < 1) die("bad measure %s", argv[k]);
    if (strcmp(name, "rwherd") == 0) run_herd(argv[2], name, n, 1);
    else if (strcmp(name, "rwherd2") == 0) run_herd(argv[2], name, n, 2);
    else if (sscanf(name, "rw%d", &a) == 1) run_recipe(argv[2], name, n, atoi(argv[3]), a, 0, 0);
    else if (sscanf(name, "sem%dk%d", &a, &b) == 2) run_recipe(argv[2], name, n, atoi(argv[3]), -1, a, b);
    else run(argv[2], name, n, atoi(argv[3]));
  }
  return 0;
}
