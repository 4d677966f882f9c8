/* SPDX-License-Identifier: Apache-2.0 */
/* Curator's InterProcessMutex (Java, Debian's Curator 5.4) and zkcoord queue
 * on one lock path: mutual exclusion holds across both and each sees the
 * other in the participant list. Curator's InterProcessSemaphoreV2 and
 * zkcoord's semaphore on one path never exceed the limit together.
 * Curator's InterProcessReadWriteLock, kazoo's ReadLock/WriteLock (Debian's
 * python3-kazoo, renamed to Curator's node names) and zkcoord's read-write
 * lock on one path: readers share across implementations, no writer
 * overlaps anyone, and the peers' writers stay behind a zkcoord downgrade.
 * Revocation works both ways with Curator's makeRevocable and
 * Revoker.attemptRevoke. A peer's reader on a path refuses a zkcoord
 * mutex, a peer's mutex a zkcoord read-write lock (ZKC_ELAYOUT): the
 * peers would not exclude the other layout's holders; kazoo's "__lock__",
 * which its Lock and its WriteLock share, cannot be told and queues. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

/* The peers' node data: the Curator contender's client writes "curator:<pid>",
 * the kazoo contender's locks "kazoo:<pid>". */
static int is_peer_node(const char *node, const char *tag) {
  char data[128];
  return zkt_get_data(node, data, sizeof data) > 0 &&
         strncmp(data, tag, strlen(tag)) == 0;
}

/* The path of a runner script in test/interop (a static buffer: one per
 * argv). */
static char *interop_script(const char *file) {
  static char script[1024];
  snprintf(script, sizeof script, "%s/%s", getenv("ZKT_INTEROP"), file);
  return script;
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
    if (zkt_mutex_nodes(m, &nodes, &n) == ZKC_OK) {
      for (size_t k = 1; k < n; k++)
        if (is_peer_node(nodes[k], "curator:")) atomic_store(&s->saw_curator, 1);
      zkt_strings_free(nodes, n);
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
  char *argv[] = {interop_script("run-curator.sh"), getenv("ZKT_BUILD"), "mutex",
                  (char *)zkt_connect(),
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
    usleep(20000); /* the work done under the lease */
    int k = atomic_fetch_add(&s->holds, 1);
    if (k < MAX_HOLDS) s->iv[k][0] = start, s->iv[k][1] = zkt_now_ns();
    zkc_lease_free(l);
  }
  zkc_sem_destroy(sem);
  zkc_client_close(c);
  return NULL;
}

/* Lists the semaphore's leases until told to stop: zkcoord sees Curator's
 * leases among its own. A look once per zkcoord lease missed them in a
 * loaded run, when no zkcoord lease happened to overlap a Curator one. */
static void *curator_lease_seer(void *arg) {
  struct sem_shared *s = arg;
  zkc_client_t *c = zkt_open(NULL);
  while (!atomic_load(&s->stop) && !atomic_load(&s->saw_curator)) {
    zkc_contender_t *leases, *queue;
    size_t nl, nq;
    if (zkt_sem_contenders(c, s->path, &leases, &nl, &queue, &nq) != ZKC_OK) {
      usleep(1000); /* before the semaphore's first use */
      continue;
    }
    for (size_t k = 0; k < nl; k++)
      if (strncmp(leases[k].data, "curator:", 8) == 0)
        atomic_store(&s->saw_curator, 1);
    zkt_contenders_free(leases, nl);
    zkt_contenders_free(queue, nq);
    usleep(2000);
  }
  zkc_client_close(c);
  return NULL;
}

static void curator_semaphore_shares_limit(void **state) {
  (void)state;
  struct sem_shared *s = calloc(1, sizeof *s);
  snprintf(s->path, sizeof s->path, "%s", zkt_path("sem"));
  char max[8];
  snprintf(max, sizeof max, "%d", SEM_MAX);
  char *argv[] = {interop_script("run-curator.sh"), getenv("ZKT_BUILD"), "semaphore",
                  (char *)zkt_connect(), s->path, max, "20", "20", NULL};
  pthread_t t[SEM_C_THREADS], seer;
  for (int i = 0; i < SEM_C_THREADS; i++)
    pthread_create(&t[i], NULL, c_lease_taker, s);
  pthread_create(&seer, NULL, curator_lease_seer, s);
  zkt_proc_t java = zkt_spawn(argv);

  int done = 0, saw_other = 0;
  atomic_int overlaps = 0;
  int64_t (*jiv)[2] = calloc(64, sizeof *jiv);
  int java_holds = read_curator(&java, jiv, &done, &saw_other, &overlaps);
  atomic_store(&s->stop, 1);
  int status = zkt_wait(&java, zkt_ms(30000));
  for (int i = 0; i < SEM_C_THREADS; i++) pthread_join(t[i], NULL);
  pthread_join(seer, NULL);

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

/* ---- read-write lock ---- */

#define RW_PEER_CYCLES 15
#define RW_C_READERS 2
#define RW_C_WRITERS 2

/* A peer of the read-write lock tests: how to start it and the node data
 * that tells its nodes apart. */
typedef struct rw_peer {
  const char *name, *tag;
  int curator; /* run-curator.sh, else run-kazoo.sh */
} rw_peer_t;

static const rw_peer_t curator_peer = {"Curator", "curator:", 1};
static const rw_peer_t kazoo_peer = {"kazoo", "kazoo:", 0};

typedef struct rw_iv {
  int64_t start, end; /* monotonic ns, inside the hold */
  int write, peer;    /* the write side; the peer's (else zkcoord's) */
} rw_iv_t;

struct rw_shared {
  char path[512];
  const rw_peer_t *peer;
  atomic_int stop, errors, saw_peer, n;
  rw_iv_t iv[MAX_HOLDS];
};

static void rw_record(struct rw_shared *s, int64_t start, int64_t end,
                      int write, int peer) {
  int k = atomic_fetch_add(&s->n, 1);
  if (k < MAX_HOLDS) s->iv[k] = (rw_iv_t){start, end, write, peer};
}

/* Children of path whose data is the peer's. */
static int peer_nodes(const char *path, const char *tag) {
  struct String_vector v = {0};
  zkt_sync_handle(zkt_raw(), path); /* the raw handle's server may lag */
  if (zoo_get_children(zkt_raw(), path, 0, &v) != ZOK) return 0;
  int n = 0;
  for (int i = 0; i < v.count; i++) {
    char node[2048];
    snprintf(node, sizeof node, "%s/%s", path, v.data[i]);
    n += is_peer_node(node, tag);
  }
  deallocate_String_vector(&v);
  return n;
}

struct peer_wait {
  struct rw_shared *s;
  zkt_proc_t *p;
};

/* The peer's node is on the path, or the peer has already written or closed
 * its output (it prints nothing before its first hold ends). */
static int peer_queued_or_ended(void *arg) {
  struct peer_wait *w = arg;
  struct pollfd pfd = {.fd = w->p->out_fd, .events = POLLIN};
  return peer_nodes(w->s->path, w->s->peer->tag) > 0 || poll(&pfd, 1, 0) > 0;
}

/* Waits until the peer p has queued on s->path; a peer that ends first (a
 * missing JDK, jar or kazoo module) fails the test at once. */
static void await_peer_queued(struct rw_shared *s, zkt_proc_t *p) {
  struct peer_wait w = {s, p};
  zkt_await(peer_queued_or_ended, &w, zkt_ms(60000));
  if (peer_nodes(s->path, s->peer->tag) == 0)
    fail_msg("the %s peer did not queue on %s (exit status %d)", s->peer->name,
             s->path, zkt_wait(p, zkt_ms(30000)));
}

/* Starts the peer on s->path: <cycles> holds of the <kind> side, each
 * <hold_ms> long. */
static zkt_proc_t spawn_rw_peer(struct rw_shared *s, const char *kind,
                                int cycles, int64_t hold_ms) {
  char n[16], hold[24];
  snprintf(n, sizeof n, "%d", cycles);
  snprintf(hold, sizeof hold, "%lld", (long long)hold_ms);
  char *connect = (char *)zkt_connect(), *k = (char *)kind;
  if (s->peer->curator) {
    char *argv[] = {interop_script("run-curator.sh"), getenv("ZKT_BUILD"), "rwlock",
                    connect, s->path, k, n, hold, NULL};
    return zkt_spawn(argv);
  }
  char *argv[] = {interop_script("run-kazoo.sh"), "rwlock", connect, s->path,
                  k, n, hold, NULL};
  return zkt_spawn(argv);
}

/* Reads a peer's lines until it exits: each "HELD <kind> <node> <start>
 * <end>" is recorded (a hold of another kind than asked counts as an error),
 * *acquired is set from "DONE acquired=<n>" (-1 without it). Returns the
 * number of holds. */
static int read_rw_peer(zkt_proc_t *p, struct rw_shared *s, const char *kind,
                        int *acquired) {
  char line[2048];
  int holds = 0;
  *acquired = -1;
  while (zkt_read_line(p, line, sizeof line, zkt_ms(60000))) {
    char k[16], node[1024];
    long long a, b;
    if (sscanf(line, "HELD %15s %1023s %lld %lld", k, node, &a, &b) == 4) {
      if (strcmp(k, kind) != 0) atomic_fetch_add(&s->errors, 1);
      rw_record(s, a, b, strcmp(k, "write") == 0, 1);
      holds++;
    }
    sscanf(line, "DONE acquired=%d", acquired);
  }
  return holds;
}

/* Readers share across the implementations, made certain rather than left
 * to chance: zkcoord reader A holds until the peer's reader has printed its
 * hold (printed when it ends, so the peer was granted beside A), and zkcoord
 * reader B, asking once the peer's node is queued, is granted while the
 * peer's reader holds. */
static void rw_readers_share(struct rw_shared *s) {
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *a, *b;
  assert_int_equal(zkc_rwlock_create(&a, c, s->path), ZKC_OK);
  assert_int_equal(zkc_rwlock_create(&b, c, s->path), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire_timeout(zkc_rwlock_read_side(a), zkt_ms(10000)),
                   ZKC_OK);
  int64_t a_start = zkt_now_ns();
  zkt_proc_t p = spawn_rw_peer(s, "read", 1, zkt_ms(3000));
  await_peer_queued(s, &p);
  assert_int_equal(zkc_mutex_acquire_timeout(zkc_rwlock_read_side(b), zkt_ms(10000)),
                   ZKC_OK);
  int64_t b_start = zkt_now_ns();
  int first = atomic_load(&s->n), acquired;
  int holds = read_rw_peer(&p, s, "read", &acquired);
  int64_t end = zkt_now_ns();
  assert_int_equal(zkc_mutex_release(zkc_rwlock_read_side(b)), ZKC_OK);
  assert_int_equal(zkc_mutex_release(zkc_rwlock_read_side(a)), ZKC_OK);
  rw_record(s, a_start, end, 0, 0);
  rw_record(s, b_start, end, 0, 0);
  assert_int_equal(zkt_wait(&p, zkt_ms(30000)), 0);
  assert_int_equal(holds, 1);
  assert_int_equal(acquired, 1);
  if (b_start >= s->iv[first].end)
    fail_msg("zkcoord reader granted %.1f ms after the %s reader let go: "
             "it waited for it", (b_start - s->iv[first].end) / 1e6,
             s->peer->name);
  assert_int_equal(zkc_rwlock_destroy(b), ZKC_OK);
  assert_int_equal(zkc_rwlock_destroy(a), ZKC_OK);
  zkc_client_close(c);
}

struct rw_worker {
  struct rw_shared *s;
  int write;
};

static void *rw_contender(void *arg) {
  struct rw_worker *w = arg;
  struct rw_shared *s = w->s;
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  if (zkc_rwlock_create(&rw, c, s->path) != ZKC_OK) abort();
  zkc_mutex_t *m = w->write ? zkc_rwlock_write_side(rw) : zkc_rwlock_read_side(rw);
  for (int i = 0; !atomic_load(&s->stop) || i < 5; i++) {
    if (zkc_mutex_acquire_timeout(m, zkt_ms(60000)) != ZKC_OK) {
      atomic_fetch_add(&s->errors, 1);
      break;
    }
    int64_t start = zkt_now_ns();
    if (!atomic_load(&s->saw_peer) && peer_nodes(s->path, s->peer->tag) > 0)
      atomic_store(&s->saw_peer, 1);
    usleep(20000); /* the work done under the lock */
    rw_record(s, start, zkt_now_ns(), w->write, 0);
    zkc_mutex_release(m);
  }
  zkc_rwlock_destroy(rw);
  zkc_client_close(c);
  return NULL;
}

static const char *rw_who(const rw_iv_t *v, const rw_peer_t *peer) {
  return v->peer ? peer->name : "zkcoord";
}

/* No write hold overlaps any other hold; returns how many pairs of read
 * holds overlapped. */
static int rw_check(const struct rw_shared *s, int n) {
  int shared = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      const rw_iv_t *x = &s->iv[i], *y = &s->iv[j];
      if (!(x->start < y->end && y->start < x->end)) continue;
      if (x->write || y->write)
        fail_msg("%s %s hold %d overlaps %s %s hold %d", rw_who(x, s->peer),
                 x->write ? "write" : "read", i, rw_who(y, s->peer),
                 y->write ? "write" : "read", j);
      shared++;
    }
  return shared;
}

/* zkcoord readers and writers (threads) and the peer's reader and writer
 * (processes) on one path: readers share, writers exclude everyone. */
static void rw_shares_queue(const rw_peer_t *peer) {
  struct rw_shared *s = calloc(1, sizeof *s);
  s->peer = peer;
  snprintf(s->path, sizeof s->path, "%s", zkt_path("rw"));
  rw_readers_share(s);

  struct rw_worker w[RW_C_READERS + RW_C_WRITERS];
  pthread_t t[RW_C_READERS + RW_C_WRITERS];
  for (int i = 0; i < RW_C_READERS + RW_C_WRITERS; i++) {
    w[i] = (struct rw_worker){s, i >= RW_C_READERS};
    pthread_create(&t[i], NULL, rw_contender, &w[i]);
  }
  zkt_proc_t reader = spawn_rw_peer(s, "read", RW_PEER_CYCLES, 20);
  zkt_proc_t writer = spawn_rw_peer(s, "write", RW_PEER_CYCLES, 20);
  int r_acquired, w_acquired;
  int r_holds = read_rw_peer(&reader, s, "read", &r_acquired);
  int w_holds = read_rw_peer(&writer, s, "write", &w_acquired);
  atomic_store(&s->stop, 1);
  int r_status = zkt_wait(&reader, zkt_ms(30000));
  int w_status = zkt_wait(&writer, zkt_ms(30000));
  for (int i = 0; i < RW_C_READERS + RW_C_WRITERS; i++) pthread_join(t[i], NULL);

  assert_int_equal(r_status, 0);
  assert_int_equal(w_status, 0);
  assert_int_equal(r_holds, RW_PEER_CYCLES);
  assert_int_equal(w_holds, RW_PEER_CYCLES);
  assert_int_equal(r_acquired, RW_PEER_CYCLES);
  assert_int_equal(w_acquired, RW_PEER_CYCLES);
  assert_int_equal(atomic_load(&s->errors), 0);
  assert_true(atomic_load(&s->saw_peer)); /* the peer queued beside zkcoord */
  int n = atomic_load(&s->n);
  assert_true(n <= MAX_HOLDS);
  int shared = rw_check(s, n);
  assert_true(shared > 0);
  int c_reads = 0, c_writes = 0;
  for (int i = 0; i < n; i++)
    if (!s->iv[i].peer) s->iv[i].write ? c_writes++ : c_reads++;
  assert_true(c_writes > 0);
  printf("interop: %s %d read + %d write holds, zkcoord %d read + %d write "
         "holds; %d pairs of readers overlapped, no writer overlapped anyone\n",
         peer->name, r_holds + 1, w_holds, c_reads, c_writes, shared);
  free(s);
}

static void curator_rwlock_shares_queue(void **state) {
  (void)state;
  rw_shares_queue(&curator_peer);
}

static void kazoo_rwlock_shares_queue(void **state) {
  (void)state;
  rw_shares_queue(&kazoo_peer);
}

/* A zkcoord writer downgrades (takes the read side, then lets the write side
 * go) while the peer's writer is queued behind it: the downgrade node
 * carries the write node's sequence, so the peer's writer stays behind the
 * reader (Curator 5.5's layout; Curator 5.4 itself would let it in). */
static void writer_waits_behind_downgrade(const rw_peer_t *peer) {
  struct rw_shared *s = calloc(1, sizeof *s);
  s->peer = peer;
  snprintf(s->path, sizeof s->path, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  assert_int_equal(zkc_rwlock_create(&rw, c, s->path), ZKC_OK);
  zkc_mutex_t *w = zkc_rwlock_write_side(rw), *r = zkc_rwlock_read_side(rw);
  assert_int_equal(zkc_mutex_acquire_timeout(w, zkt_ms(10000)), ZKC_OK);
  zkt_proc_t p = spawn_rw_peer(s, "write", 1, 0);
  await_peer_queued(s, &p);
  assert_int_equal(zkc_mutex_acquire_timeout(r, zkt_ms(10000)), ZKC_OK);
  assert_int_equal(zkc_mutex_release(w), ZKC_OK);
  /* The peer's writer prints its hold as soon as it has it: nothing may
   * come while the reader holds. */
  char line[2048];
  if (zkt_read_line(&p, line, sizeof line, zkt_ms(1000)))
    fail_msg("%s writer went past the downgraded reader: %s", peer->name, line);
  int64_t released = zkt_now_ns();
  assert_int_equal(zkc_mutex_release(r), ZKC_OK);
  int acquired;
  assert_int_equal(read_rw_peer(&p, s, "write", &acquired), 1);
  assert_int_equal(zkt_wait(&p, zkt_ms(30000)), 0);
  assert_int_equal(acquired, 1);
  assert_true(s->iv[0].start > released);
  assert_int_equal(zkc_rwlock_destroy(rw), ZKC_OK);
  zkc_client_close(c);
  free(s);
}

static void curator_writer_waits_behind_downgrade(void **state) {
  (void)state;
  writer_waits_behind_downgrade(&curator_peer);
}

static void kazoo_writer_waits_behind_downgrade(void **state) {
  (void)state;
  writer_waits_behind_downgrade(&kazoo_peer);
}

/* ---- the other lock layout: refused ---- */

/* Starts a peer holding one lock on s->path for hold_ms: Curator's
 * InterProcessMutex ("mutex") or a side of its read-write lock ("read",
 * "write"); kazoo's own Lock, ReadLock or WriteLock with kazoo's own node
 * names ("lock", "read", "write"). */
static zkt_proc_t spawn_holder(struct rw_shared *s, const char *kind,
                               int64_t hold_ms) {
  char hold[24];
  snprintf(hold, sizeof hold, "%lld", (long long)hold_ms);
  char *connect = (char *)zkt_connect(), *k = (char *)kind;
  if (s->peer->curator && strcmp(kind, "mutex") == 0) {
    static char marker[600];
    snprintf(marker, sizeof marker, "%s/interop-marker-%d",
             getenv("ZKT_BUILD") ? getenv("ZKT_BUILD") : "/tmp", (int)getpid());
    unlink(marker);
    char *argv[] = {interop_script("run-curator.sh"), getenv("ZKT_BUILD"),
                    "mutex", connect, s->path, "1", hold, marker, NULL};
    return zkt_spawn(argv);
  }
  if (s->peer->curator) return spawn_rw_peer(s, kind, 1, hold_ms);
  char *argv[] = {interop_script("run-kazoo.sh"), "native", connect, s->path,
                  k, "1", hold, NULL};
  return zkt_spawn(argv);
}

/* The peer's hold ends as it should: one hold, exit status 0. */
static void holder_ends(zkt_proc_t *p) {
  char line[2048];
  int held = 0;
  while (zkt_read_line(p, line, sizeof line, zkt_ms(60000)))
    held += strncmp(line, "HELD ", 5) == 0;
  assert_int_equal(zkt_wait(p, zkt_ms(30000)), 0);
  assert_int_equal(held, 1);
}

/* The peer's reader holds the path: a zkcoord mutex is refused, with or
 * without a limit, and leaves nothing there; the reader holds on. */
static void mutex_refused_beside_reader(const rw_peer_t *peer) {
  struct rw_shared *s = calloc(1, sizeof *s);
  s->peer = peer;
  snprintf(s->path, sizeof s->path, "%s", zkt_path("rw"));
  zkt_proc_t p = spawn_holder(s, "read", zkt_ms(4000));
  await_peer_queued(s, &p);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  assert_int_equal(zkc_mutex_create(&m, c, s->path), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(2000)), ZKC_ELAYOUT);
  assert_non_null(strstr(zkc_last_error_message(), "read-write lock"));
  assert_int_equal(zkc_mutex_acquire(m), ZKC_ELAYOUT);
  assert_false(zkc_mutex_is_acquired_in_this_process(m));
  assert_int_equal(zkt_children_count(s->path), 1); /* the peer's reader */
  assert_int_equal(peer_nodes(s->path, peer->tag), 1);
  holder_ends(&p);
  assert_int_equal(zkc_mutex_destroy(m), ZKC_OK);
  zkc_client_close(c);
  free(s);
}

static void curator_reader_refuses_mutex(void **state) {
  (void)state;
  mutex_refused_beside_reader(&curator_peer);
}

/* kazoo's own ReadLock: "__rlock__", which only a reader makes. */
static void kazoo_reader_refuses_mutex(void **state) {
  (void)state;
  mutex_refused_beside_reader(&kazoo_peer);
}

/* Curator's InterProcessMutex holds the path: both sides of a zkcoord
 * read-write lock are refused and leave nothing there. */
static void curator_mutex_refuses_rwlock(void **state) {
  (void)state;
  struct rw_shared *s = calloc(1, sizeof *s);
  s->peer = &curator_peer;
  snprintf(s->path, sizeof s->path, "%s", zkt_path("lock"));
  zkt_proc_t p = spawn_holder(s, "mutex", zkt_ms(4000));
  await_peer_queued(s, &p);
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  assert_int_equal(zkc_rwlock_create(&rw, c, s->path), ZKC_OK);
  assert_int_equal(
      zkc_mutex_acquire_timeout(zkc_rwlock_read_side(rw), zkt_ms(2000)),
      ZKC_ELAYOUT);
  assert_non_null(strstr(zkc_last_error_message(), "plain lock"));
  assert_int_equal(
      zkc_mutex_acquire_timeout(zkc_rwlock_write_side(rw), zkt_ms(2000)),
      ZKC_ELAYOUT);
  assert_int_equal(zkt_children_count(s->path), 1); /* Curator's node */
  holder_ends(&p);
  assert_int_equal(zkc_rwlock_destroy(rw), ZKC_OK);
  zkc_client_close(c);
  free(s);
}

/* kazoo's Lock makes "__lock__" nodes, as its WriteLock does: no one can
 * tell which, so neither zkcoord lock refuses it; each queues behind it
 * (its holder excludes both). */
static void kazoo_lock_queues_with_both(void **state) {
  (void)state;
  struct rw_shared *s = calloc(1, sizeof *s);
  s->peer = &kazoo_peer;
  snprintf(s->path, sizeof s->path, "%s", zkt_path("lock"));
  zkt_proc_t p = spawn_holder(s, "lock", zkt_ms(4000));
  await_peer_queued(s, &p);
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  zkc_mutex_t *m;
  assert_int_equal(zkc_rwlock_create(&rw, c, s->path), ZKC_OK);
  assert_int_equal(zkc_mutex_create(&m, c, s->path), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire_timeout(zkc_rwlock_read_side(rw), 0),
                   ZKC_ETIMEDOUT);
  assert_int_equal(zkc_mutex_acquire_timeout(zkc_rwlock_write_side(rw), 0),
                   ZKC_ETIMEDOUT);
  assert_int_equal(zkc_mutex_acquire_timeout(m, 0), ZKC_ETIMEDOUT);
  assert_int_equal(zkt_children_count(s->path), 1); /* kazoo's node */
  holder_ends(&p);
  assert_int_equal(zkc_mutex_destroy(m), ZKC_OK);
  assert_int_equal(zkc_rwlock_destroy(rw), ZKC_OK);
  zkc_client_close(c);
  free(s);
}

/* ---- revocation ---- */

typedef struct revoke_seen {
  atomic_int calls;
  _Atomic int64_t token;
} revoke_seen_t;

static void on_revoke(void *ctx, zkc_mutex_t *m, int64_t token) {
  (void)m;
  revoke_seen_t *v = ctx;
  atomic_store(&v->token, token);
  atomic_fetch_add(&v->calls, 1);
}

static int revoke_told(void *ctx) {
  return atomic_load(&((revoke_seen_t *)ctx)->calls) > 0;
}

/* A revocable zkcoord hold on m, asked by Curator's Revoker to let go: its
 * node carries no data until the marker, the callback names the hold, and
 * the holder releases. */
static void revoke_by_curator(zkc_mutex_t *m, const char *what) {
  revoke_seen_t v = {0};
  assert_int_equal(zkc_mutex_set_revocable(m, on_revoke, &v), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(10000)), ZKC_OK);
  char node[1024], data[64];
  assert_int_equal(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node), ZKC_OK);
  assert_int_equal(zkt_get_data(node, data, sizeof data), 0);

  char *argv[] = {interop_script("run-curator.sh"), getenv("ZKT_BUILD"), "revoke",
                  (char *)zkt_connect(), node, NULL};
  zkt_proc_t java = zkt_spawn(argv);
  char line[256];
  assert_true(zkt_expect(&java, "REVOKE_SENT", line, sizeof line, zkt_ms(60000)));
  assert_int_equal(zkt_wait(&java, zkt_ms(30000)), 0);
  if (!zkt_await(revoke_told, &v, zkt_ms(10000)))
    fail_msg("the %s holder was not told of Curator's revocation", what);
  int64_t token;
  assert_int_equal(zkc_hold_fencing_token(zkc_mutex_hold(m), &token), ZKC_OK);
  assert_int_equal(atomic_load(&v.token), token);
  assert_int_equal(zkt_get_data(node, data, sizeof data), 10);
  assert_memory_equal(data, "__REVOKE__", 10);

  assert_int_equal(zkc_mutex_release(m), ZKC_OK);
  assert_false(zkt_exists(node, NULL));
  assert_int_equal(atomic_load(&v.calls), 1); /* once per request */
  assert_int_equal(zkc_mutex_set_revocable(m, NULL, NULL), ZKC_OK);
  printf("interop: Curator's Revoker reached the zkcoord %s holder\n", what);
}

static void curator_revokes_zkcoord(void **state) {
  (void)state;
  char lock[512], rw_path[512];
  snprintf(lock, sizeof lock, "%s", zkt_path("lock"));
  snprintf(rw_path, sizeof rw_path, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  zkc_rwlock_t *rw;
  assert_int_equal(zkc_mutex_create(&m, c, lock), ZKC_OK);
  assert_int_equal(zkc_rwlock_create(&rw, c, rw_path), ZKC_OK);
  revoke_by_curator(m, "mutex");
  revoke_by_curator(zkc_rwlock_write_side(rw), "write side");
  revoke_by_curator(zkc_rwlock_read_side(rw), "read side");
  assert_int_equal(zkc_rwlock_destroy(rw), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(m), ZKC_OK);
  zkc_client_close(c);
}

/* Curator's revocable holder on path (its node's data empty, as Curator
 * makes it); its node into node. */
static zkt_proc_t spawn_revocable(const char *path, char node[1024]) {
  char hold[24];
  snprintf(hold, sizeof hold, "%lld", (long long)zkt_ms(30000));
  char *argv[] = {interop_script("run-curator.sh"), getenv("ZKT_BUILD"), "revocable",
                  (char *)zkt_connect(), (char *)path, hold, NULL};
  zkt_proc_t java = zkt_spawn(argv);
  char line[2048], data[64];
  assert_true(zkt_expect(&java, "HELD ", line, sizeof line, zkt_ms(60000)));
  assert_int_equal(sscanf(line, "HELD %1023s", node), 1);
  assert_int_equal(zkt_get_data(node, data, sizeof data), 0);
  return java;
}

/* Waits for the Curator holder to say it let go because it was asked. */
static void expect_revoked(zkt_proc_t *java) {
  char line[256];
  if (!zkt_expect(java, "REVOKED", line, sizeof line, zkt_ms(30000)))
    fail_msg("Curator's holder did not let go when asked");
  assert_int_equal(zkt_wait(java, zkt_ms(30000)), 0);
}

struct holder_is {
  zkc_mutex_t *m;
  const char *node;
};

/* m's server lists exactly one participant, `node`. */
static int holder_is(void *ctx) {
  struct holder_is *w = ctx;
  char **nodes;
  size_t n;
  if (zkt_mutex_nodes(w->m, &nodes, &n) != ZKC_OK) return 0;
  int ok = n == 1 && strcmp(nodes[0], w->node) == 0;
  zkt_strings_free(nodes, n);
  return ok;
}

static void zkcoord_revokes_curator(void **state) {
  (void)state;
  char path[512], node[1024];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  assert_int_equal(zkc_mutex_create(&m, c, path), ZKC_OK);

  /* zkc_revoke on the holder's node, as the participant list shows it. */
  zkt_proc_t java = spawn_revocable(path, node);
  assert_true(zkt_await_participants(m, 1, zkt_ms(10000)));
  char **nodes;
  size_t n;
  assert_int_equal(zkt_mutex_nodes(m, &nodes, &n), ZKC_OK);
  assert_int_equal(n, 1);
  assert_string_equal(nodes[0], node);
  assert_int_equal(zkc_revoke(c, nodes[0]), ZKC_OK);
  zkt_strings_free(nodes, n);
  expect_revoked(&java);
  assert_false(zkt_exists(node, NULL));

  /* zkc_revoke_holders on the path: the lock passes to a zkcoord waiter. */
  java = spawn_revocable(path, node);
  /* c's server may not have applied the new holder's create yet, nor the
   * first one's delete (a loaded run asked nobody here): await it there. */
  struct holder_is second = {m, node};
  assert_true(zkt_await(holder_is, &second, zkt_ms(10000)));
  size_t asked;
  assert_int_equal(zkc_revoke_holders(c, path, &asked), ZKC_OK);
  assert_int_equal(asked, 1);
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(30000)), ZKC_OK);
  expect_revoked(&java);
  assert_int_equal(zkc_mutex_release(m), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(m), ZKC_OK);
  zkc_client_close(c);
  printf("interop: Curator's revocable holder let go when zkcoord asked\n");
}

/* `zkcoord revoke` on a path Curator's revocable holder holds: the marker
 * reaches it (its node's data is empty, as a revocable hold's is), it lets
 * go, and the tool says so and exits 0. Skipped without the tool. */
static void zkcoord_cli_revokes_curator(void **state) {
  (void)state;
  const char *cli = getenv("ZKT_CLI");
  if (cli == NULL || *cli == '\0') skip();
  char path[512], node[1024], line[2048], want[1100];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t java = spawn_revocable(path, node);
  char *argv[] = {(char *)cli, "--connect", (char *)zkt_connect(), "revoke",
                  path, NULL};
  zkt_proc_t r = zkt_spawn(argv);
  snprintf(want, sizeof want, "%s: asked 1 holder to let go", path);
  assert_true(zkt_read_line(&r, line, sizeof line, zkt_ms(30000)));
  assert_string_equal(line, want);
  expect_revoked(&java);
  snprintf(want, sizeof want, "%s: the holder let go after ", path);
  assert_true(zkt_expect(&r, want, line, sizeof line, zkt_ms(30000)));
  assert_int_equal(zkt_wait(&r, zkt_ms(30000)), 0);
  assert_false(zkt_exists(node, NULL));
  printf("interop: zkcoord revoke reached Curator's revocable holder\n");
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(curator_mutex_shares_queue),
      cmocka_unit_test(curator_semaphore_shares_limit),
      cmocka_unit_test(curator_rwlock_shares_queue),
      cmocka_unit_test(kazoo_rwlock_shares_queue),
      cmocka_unit_test(curator_writer_waits_behind_downgrade),
      cmocka_unit_test(kazoo_writer_waits_behind_downgrade),
      cmocka_unit_test(curator_reader_refuses_mutex),
      cmocka_unit_test(kazoo_reader_refuses_mutex),
      cmocka_unit_test(curator_mutex_refuses_rwlock),
      cmocka_unit_test(kazoo_lock_queues_with_both),
      cmocka_unit_test(curator_revokes_zkcoord),
      cmocka_unit_test(zkcoord_revokes_curator),
      cmocka_unit_test(zkcoord_cli_revokes_curator),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "interop");
}
