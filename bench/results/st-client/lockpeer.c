/* SPDX-License-Identifier: Apache-2.0 */
/* The experiment of this directory's README: go-zookeeper's lock protocol
 * (create, children, watch the predecessor, children again; delete) on
 * the ZooKeeper C client's asynchronous calls, one session and one worker
 * thread per contender, in one of two builds:
 *
 *   st-loop   linked with the single-threaded client: each session has its
 *             own I/O thread (zookeeper_interest, poll, zookeeper_process)
 *             on which the answers' callbacks run; a call is sent by the
 *             worker's own thread, under the session's mutex.
 *   mt-async  (-DMT -DTHREADED) linked with the threaded client, whose own
 *             I/O and completion threads do the same.
 *
 * The worker waits for each answer on a condition variable, as zkcoord's
 * waiters do. A prototype: no reconnection, no error handling beyond
 * giving up; a send that fills the socket is not handed to the I/O thread.
 *
 *   lockpeer CONNECT ROOT ROUND_MS contend:N...
 * prints M,contend,N,rate,-1,-1 (bench/peers/README.md).
 *
 * LOCKPEER_SYNC set: each wait on a predecessor is sent behind a sync
 * through the leader, answered before the wait begins, as zkcoord's
 * waiting round is (six requests per contended cycle instead of five):
 * the protocol's own cost of that sync, apart from the library's
 * (bench/cpu-cycle.sh, mt-sync). LOCKPEER_BARRIER set instead: a multi of
 * one check of the waiter's own node in the sync's place (a write through
 * a quorum, ../leader-sync/): what such a round would cost. */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#ifdef MT
/* The client's completion thread runs the callbacks: they lock. */
#define CB_LOCK(s) pthread_mutex_lock(&(s)->mu)
#define CB_UNLOCK(s) pthread_mutex_unlock(&(s)->mu)
#else
/* The session's I/O thread runs them, holding the session's mutex. */
#define CB_LOCK(s) (void)0
#define CB_UNLOCK(s) (void)0
#endif

static void die(const char *m) {
  fprintf(stderr, "lockpeer: %s\n", m);
  exit(1);
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

typedef struct sess {
  zhandle_t *zh;
  pthread_mutex_t mu; /* the handle (st-loop) and every field below */
  pthread_cond_t cv;
  int wake[2];        /* st-loop: wakes the I/O thread to stop */
  pthread_t io, worker;
  int stop, connected;
  int done, rc;       /* the answer awaited */
  int deleted;        /* the predecessor's delete */
  int synced;         /* LOCKPEER_SYNC: the round's sync answered */
  zoo_op_t check;     /* LOCKPEER_BARRIER: the round's one-check multi */
  zoo_op_result_t checked;
  char node[320], base[256];
  struct String_vector kids;
} sess_t;

#ifndef MT
static void *io_main(void *arg) {
  sess_t *s = arg;
  pthread_mutex_lock(&s->mu);
  while (!s->stop) {
    int fd = -1, interest = 0;
    struct timeval tv = {1, 0};
    zookeeper_interest(s->zh, &fd, &interest, &tv);
    pthread_mutex_unlock(&s->mu);
    struct pollfd p[2] = {{s->wake[0], POLLIN, 0}, {fd, 0, 0}};
    if (interest & ZOOKEEPER_READ) p[1].events |= POLLIN;
    if (interest & ZOOKEEPER_WRITE) p[1].events |= POLLOUT;
    poll(p, fd >= 0 ? 2 : 1, (int)(tv.tv_sec * 1000 + tv.tv_usec / 1000));
    int ev = 0;
    if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) ev |= ZOOKEEPER_READ;
    if (p[1].revents & POLLOUT) ev |= ZOOKEEPER_WRITE;
    pthread_mutex_lock(&s->mu);
    zookeeper_process(s->zh, ev);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}
#endif

static void answered(sess_t *s, int rc) {
  s->rc = rc;
  s->done = 1;
  pthread_cond_signal(&s->cv);
}

static void on_session(zhandle_t *zh, int type, int state, const char *path,
                       void *ctx) {
  (void)zh, (void)path;
  sess_t *s = ctx;
  if (type != ZOO_SESSION_EVENT || state != ZOO_CONNECTED_STATE) return;
  CB_LOCK(s);
  s->connected = 1;
  pthread_cond_broadcast(&s->cv);
  CB_UNLOCK(s);
}

static void on_created(int rc, const char *name, const void *d) {
  sess_t *s = (sess_t *)d;
  CB_LOCK(s);
  if (rc == ZOK) snprintf(s->node, sizeof s->node, "%s", name);
  answered(s, rc);
  CB_UNLOCK(s);
}

static void on_children(int rc, const struct String_vector *v, const void *d) {
  sess_t *s = (sess_t *)d;
  CB_LOCK(s);
  if (rc == ZOK) {
    s->kids.count = v->count;
    s->kids.data = calloc((size_t)v->count + 1, sizeof(char *));
    for (int i = 0; i < v->count; i++) s->kids.data[i] = strdup(v->data[i]);
  }
  answered(s, rc);
  CB_UNLOCK(s);
}

static void on_stat(int rc, const struct Stat *st, const void *d) {
  (void)st;
  sess_t *s = (sess_t *)d;
  CB_LOCK(s);
  answered(s, rc);
  CB_UNLOCK(s);
}

static void on_void(int rc, const void *d) {
  sess_t *s = (sess_t *)d;
  CB_LOCK(s);
  answered(s, rc);
  CB_UNLOCK(s);
}

static void on_synced(int rc, const char *path, const void *d) {
  (void)path;
  sess_t *s = (sess_t *)d;
  CB_LOCK(s);
  if (rc != ZOK) die("sync failed");
  s->synced = 1;
  CB_UNLOCK(s);
}

static void on_checked(int rc, const void *d) {
  sess_t *s = (sess_t *)d;
  CB_LOCK(s);
  if (rc != ZOK) die("own node's check failed");
  s->synced = 1;
  CB_UNLOCK(s);
}

static void on_deleted(zhandle_t *zh, int type, int state, const char *path,
                       void *ctx) {
  (void)zh, (void)state, (void)path;
  sess_t *s = ctx;
  if (type != ZOO_DELETED_EVENT) return;
  CB_LOCK(s);
  s->deleted = 1;
  pthread_cond_signal(&s->cv);
  CB_UNLOCK(s);
}

/* With s->mu held, after a call: its answer's code. */
static int await_answer(sess_t *s) {
  while (!s->done) pthread_cond_wait(&s->cv, &s->mu);
  s->done = 0;
  return s->rc;
}

static int with_sync, with_barrier;

static long seq_of(const char *name) {
  const char *dash = strrchr(name, '-');
  return dash ? atol(dash + 1) : -1;
}

static void acquire(sess_t *s) {
  char prefix[300];
  snprintf(prefix, sizeof prefix, "%s/lock-", s->base);
  pthread_mutex_lock(&s->mu);
  zoo_acreate(s->zh, prefix, "", 0, &ZOO_OPEN_ACL_UNSAFE,
              ZOO_EPHEMERAL_SEQUENTIAL, on_created, s);
  if (await_answer(s) != ZOK) die("create failed");
  long mine = seq_of(s->node);
  for (;;) {
    zoo_aget_children(s->zh, s->base, 0, on_children, s);
    if (await_answer(s) != ZOK) die("children failed");
    long low = mine, prev = -1;
    char pred[600] = "";
    for (int i = 0; i < s->kids.count; i++) {
      long q = seq_of(s->kids.data[i]);
      if (q < low) low = q;
      if (q < mine && q > prev) {
        prev = q;
        snprintf(pred, sizeof pred, "%s/%s", s->base, s->kids.data[i]);
      }
      free(s->kids.data[i]);
    }
    free(s->kids.data);
    s->kids.data = NULL;
    if (low == mine) break;
    s->deleted = 0;
    s->synced = !with_sync && !with_barrier;
    if (with_sync) zoo_async(s->zh, s->base, on_synced, s);
    if (with_barrier) {
      zoo_check_op_init(&s->check, s->node, -1);
      zoo_amulti(s->zh, 1, &s->check, &s->checked, on_checked, s);
    }
    zoo_awexists(s->zh, pred, on_deleted, s, on_stat, s);
    int rc = await_answer(s); /* the sync's answer came before it */
    if (!s->synced) die("sync unanswered");
    if (rc == ZNONODE) continue;
    if (rc != ZOK) die("exists failed");
    while (!s->deleted) pthread_cond_wait(&s->cv, &s->mu);
  }
  pthread_mutex_unlock(&s->mu);
}

static void release(sess_t *s) {
  pthread_mutex_lock(&s->mu);
  zoo_adelete(s->zh, s->node, -1, on_void, s);
  if (await_answer(s) != ZOK) die("delete failed");
  pthread_mutex_unlock(&s->mu);
}

static pthread_mutex_t count_mu = PTHREAD_MUTEX_INITIALIZER;
static long count;
static int64_t warm, end;

static void *worker_main(void *arg) {
  sess_t *s = arg;
  while (now_ns() < end) {
    acquire(s);
    int64_t t = now_ns();
    pthread_mutex_lock(&count_mu);
    if (t > warm && t < end) count++;
    pthread_mutex_unlock(&count_mu);
    release(s);
  }
  return NULL;
}

/* The path and its parents, through session s. */
static void ensure(sess_t *s, const char *path) {
  char p[256];
  snprintf(p, sizeof p, "%s", path);
  for (char *q = p + 1;; q++) {
    if (*q != '/' && *q != '\0') continue;
    char c = *q;
    *q = '\0';
    pthread_mutex_lock(&s->mu);
    zoo_acreate(s->zh, p, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, on_created, s);
    int rc = await_answer(s);
    pthread_mutex_unlock(&s->mu);
    if (rc != ZOK && rc != ZNODEEXISTS) die("parent create failed");
    *q = c;
    if (c == '\0') break;
  }
}

static sess_t *open_sess(const char *connect) {
  sess_t *s = calloc(1, sizeof *s);
  if (s == NULL || pipe(s->wake) != 0) die("no memory or pipe");
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  pthread_mutex_lock(&s->mu);
  s->zh = zookeeper_init(connect, on_session, 10000, NULL, s, 0);
  if (s->zh == NULL) die("zookeeper_init failed");
  zoo_set_servers_resolution_delay(s->zh, 1000); /* as zkcoord's sessions */
#ifndef MT
  pthread_create(&s->io, NULL, io_main, s);
#endif
  while (!s->connected) pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  return s;
}

static void close_sess(sess_t *s) {
#ifndef MT
  pthread_mutex_lock(&s->mu);
  s->stop = 1;
  if (write(s->wake[1], "x", 1) != 1) die("wake failed");
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->io, NULL);
#endif
  zookeeper_close(s->zh);
  close(s->wake[0]);
  close(s->wake[1]);
  free(s);
}

int main(int argc, char **argv) {
  if (argc < 4) die("usage: lockpeer CONNECT ROOT ROUND_MS contend:N...");
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  with_sync = getenv("LOCKPEER_SYNC") != NULL;
  with_barrier = !with_sync && getenv("LOCKPEER_BARRIER") != NULL;
  int round_ms = atoi(argv[3]);
  for (int a = 4; a < argc; a++) {
    char measure[64];
    int n;
    if (sscanf(argv[a], "%63[^:]:%d", measure, &n) != 2 || n < 1)
      die("a measure is NAME:N");
    char path[256];
    snprintf(path, sizeof path, "%s/%s-%d", argv[2], measure, n);
    sess_t **ss = calloc((size_t)n, sizeof *ss);
    if (ss == NULL) die("no memory");
    for (int i = 0; i < n; i++) {
      ss[i] = open_sess(argv[1]);
      snprintf(ss[i]->base, sizeof ss[i]->base, "%s", path);
    }
    ensure(ss[0], path);
    count = 0;
    warm = now_ns() + (int64_t)round_ms / 5 * 1000000;
    end = warm + (int64_t)round_ms * 1000000;
    for (int i = 0; i < n; i++)
      pthread_create(&ss[i]->worker, NULL, worker_main, ss[i]);
    for (int i = 0; i < n; i++) pthread_join(ss[i]->worker, NULL);
    for (int i = 0; i < n; i++) close_sess(ss[i]);
    free(ss);
    printf("M,%s,%d,%.1f,-1,-1\n", measure, n, (double)count / (round_ms / 1e3));
    fflush(stdout);
  }
  return 0;
}
