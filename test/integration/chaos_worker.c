/* SPDX-License-Identifier: Apache-2.0 */
/* chaos_worker: one contender process of the randomized fault test.
 *
 *   zkt_chaos_worker CONNECT PATH STORE SESSION_MS SEED THREADS LOG [patient]
 *
 * "patient": every wait gets a timeout that outlasts a stop of the process
 * (the worker the nemesis stops past its session while next in line), and
 * no thread takes the asynchronous acquire (run it with THREADS 1: one
 * blocking waiter, whose watches are the session's only ones).
 *
 * THREADS threads loop on PATH: acquire with a random timeout (0 = try
 * once), do a few fenced writes of their token to STORE through their hold
 * (zkc_hold_t, whatever the recipe), hold a little, release. Threads pair
 * up on one client and one mutex object (two threads of one session: one
 * times out behind the other's hold), the odd one out has its own. Every
 * step is appended to LOG as one line stamped with CLOCK_MONOTONIC in
 * microseconds (one clock for every process on the host), written with one
 * write(2) so that a SIGKILL loses no finished line:
 *
 *   ACQ  <us> <token> <node> <dec>    acquire returned ZKC_OK; <dec>: when
 *                                     the library decided that grant on
 *                                     this thread (its grant seam), 0 if
 *                                     elsewhere (latch, selector)
 *   W    <us-start> <us-end> <token>  a fenced write that landed
 *   RDW  <us> <token> <rc>            a read hold's write, refused with
 *                                     <rc> (ZKC_EINVAL, or it is wrong)
 *   REL  <us> <token> <rc>            release called at <us> (the hold's end)
 *   LOST <us> <token> <reason> [R|W]  the lost callback named this hold (of
 *                                     the read or write side)
 *
 * The odd thread out takes the lock through the asynchronous acquire (its
 * own client and async context; it waits for the callbacks, and now and
 * then cancels a pending acquire), with the same log lines and rule.
 *
 * With $ZKT_CHAOS_SEM=N the threads take one lease each of a semaphore of
 * N leases on PATH instead (ACQ names the lease node; each lease set
 * writes STORE through zkc_lease_hold: leases overlap, so do their writes);
 * the odd thread out through the asynchronous acquire
 * (zkc_async_acquire_leases), cancelling now and then as above.
 *
 * With $ZKT_CHAOS_RW=1 the paired threads share a read-write lock instead
 * of a mutex and take, round by round, the read side (whose hold tries a
 * write, which must be refused: an RDW line),
 * the write side, or the write side and then the read side (a downgrade:
 * the read node carries the write node's sequence; the write side is
 * released first). ACQ names the node, so its kind shows. A downgrade's
 * read hold has its write hold's token: the two REL lines come in the
 * order of the releases (write first), and a LOST line names the side.
 *
 * The exclusive holders (a mutex, a write side, a term of leadership, a
 * multi-lock's set) also count: under the hold they read the node
 * $ZKT_CHAOS_COUNT through the hold (zkc_hold_fenced_get) and write it
 * back one higher with a fenced compare-and-set (zkc_hold_fenced_cas):
 *
 *   INC  <us> <token> <value>         the increment to <value> landed
 *   INC? <us> <token> <value>         it may have landed (connection lost
 *                                     before its answer, and no read under
 *                                     the hold could tell)
 *
 * With $ZKT_CHAOS_LEADER=latch each thread (its own client) joins a leader
 * latch on PATH, waits for leadership with a random timeout, leads a
 * little, closes the latch; =selector: a leader selector with auto_requeue
 * whose take_leadership leads a little. ACQ is "became leader" (the node,
 * or "?" for the selector, whose node the checker finds by its token), REL
 * "gave leadership up", LOST the latch's not_leader told before that. The
 * leader writes through a hold bound to its term (zkc_hold_bind): a write
 * after the term ended must be refused.
 *
 * With $ZKT_CHAOS_MULTI=1, PATH-a and PATH-b are two locks: the paired
 * threads take both at once through a multi-lock (one ACQ line per lock,
 * with the same time stamp, one REL per lock after the release) and write
 * through the set's hold (its token: its newest node's), the odd one out a
 * plain mutex on PATH-b (no writes, no async thread).
 *
 * Runs until its standard input reaches EOF, then lets every thread finish
 * its round, closes the clients and exits 0. */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_hooks.h" /* zkc__grant_seam */
#include "zkcoord/zkcoord.h"
#include "../harness/hold_node.h"

typedef struct {
  zkc_client_t *c;
  zkc_mutex_t *m;
  zkc_mutex_t *mb;        /* multi mode: the lock on PATH-b */
  zkc_multilock_t *multi; /* multi mode: both */
  zkc_rwlock_t *rw; /* read-write mode */
  zkc_sem_t *s;   /* semaphore mode */
  zkc_async_t *a; /* the async thread's */
} shared_t;

static shared_t shared[16];
static int log_fd = -1;
static int debug_fd = -1; /* ZKC_CHAOS_DEBUG: the library's lines, LOG.debug */
static atomic_int stopping;
static const char *connect_str, *lock_path, *store_path;
static int session_ms;
static int sem_max; /* 0: the mutex */
static int rw_mode; /* the read-write lock */
static const char *leader_mode; /* "latch", "selector" or NULL */
static int multi_mode;
static const char *count_path;  /* the counter node, or NULL */
static char path_a[1100], path_b[1100];

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* When the library last decided a grant on this thread (zkc__grant_seam),
 * 0 once taken: the nemesis stops whole processes, and a stop between the
 * decision and the ACQ line moves the line, not the grant. */
static _Thread_local long long decided_us;
static void on_grant(void) { decided_us = now_us(); }

/* The stamp of the grant just returned on this thread, taken (0: none). */
static long long take_decided(void) {
  long long d = decided_us;
  decided_us = 0;
  return d;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n > 0 && write(log_fd, line, (size_t)n) != n) _exit(70);
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void on_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                    int64_t token) {
  (void)m;
  say("LOST %lld %lld %d%s\n", now_us(), (long long)token, (int)why,
      ctx ? (const char *)ctx : "");
}

static void on_lease_lost(void *ctx, zkc_sem_t *s, zkc_lost_reason_t why,
                          int64_t token) {
  (void)ctx, (void)s;
  say("LOST %lld %lld %d\n", now_us(), (long long)token, (int)why);
}

static void on_async_lost(void *ctx, zkc_lost_reason_t why, int64_t token) {
  (void)ctx;
  say("LOST %lld %lld %d\n", now_us(), (long long)token, (int)why);
}

static void debug_line(void *ctx, zkc_log_level_t level, const char *msg) {
  (void)ctx;
  char line[1200];
  int n = snprintf(line, sizeof line, "%lld %d %s\n", now_us(), (int)level, msg);
  if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
  if (n > 0 && write(debug_fd, line, (size_t)n) < 0) _exit(70);
}

/* Opens a client and its mutex (or semaphore, or async context); opening
 * may meet a quorum loss, so it is tried until stopped. */
static void open_shared(shared_t *sh, int async) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = session_ms;
  o.log_level = ZKC_LOG_NONE;
  if (debug_fd >= 0) {
    o.log_level = ZKC_LOG_DEBUG;
    o.log_fn = debug_line;
  }
  while (!atomic_load(&stopping) &&
         zkc_client_open(&sh->c, connect_str, &o) != ZKC_OK)
    sleep_ms(100);
  if (sh->c == NULL || leader_mode) return; /* leaders: their own objects */
  if (multi_mode) {
    if (zkc_mutex_create(&sh->mb, sh->c, path_b) != ZKC_OK ||
        zkc_mutex_set_lost_callback(sh->mb, on_lost, NULL) != ZKC_OK)
      _exit(71);
    if (async) return; /* the odd one out: a plain mutex on PATH-b */
    if (zkc_mutex_create(&sh->m, sh->c, path_a) != ZKC_OK ||
        zkc_mutex_set_lost_callback(sh->m, on_lost, NULL) != ZKC_OK)
      _exit(71);
    zkc_mutex_t *both[] = {sh->m, sh->mb};
    if (zkc_multilock_create(&sh->multi, both, 2) != ZKC_OK) _exit(71);
    return;
  }
  if (sem_max > 0) {
    zkc_sem_opts_t so;
    zkc_sem_opts_init(&so);
    so.max_leases = sem_max;
    if (zkc_sem_create(&sh->s, sh->c, lock_path, &so) != ZKC_OK ||
        zkc_sem_set_lost_callback(sh->s, on_lease_lost, NULL) != ZKC_OK)
      _exit(71);
    /* its leases' losses are told by the semaphore's callback */
    if (async && zkc_async_create(&sh->a, sh->c, NULL) != ZKC_OK) _exit(71);
    return;
  }
  if (async) {
    zkc_async_opts_t ao;
    zkc_async_opts_init(&ao);
    ao.on_lost = on_async_lost;
    if (zkc_async_create(&sh->a, sh->c, &ao) != ZKC_OK) _exit(71);
    return;
  }
  if (rw_mode) {
    if (zkc_rwlock_create(&sh->rw, sh->c, lock_path) != ZKC_OK ||
        zkc_mutex_set_lost_callback(zkc_rwlock_read_side(sh->rw), on_lost,
                                    " R") != ZKC_OK ||
        zkc_mutex_set_lost_callback(zkc_rwlock_write_side(sh->rw), on_lost,
                                    " W") != ZKC_OK)
      _exit(71);
    return;
  }
  if (zkc_mutex_create(&sh->m, sh->c, lock_path) != ZKC_OK ||
      zkc_mutex_set_lost_callback(sh->m, on_lost, NULL) != ZKC_OK)
    _exit(71);
}

static const int64_t timeouts[] = {0, 50, 300, 1000, 3000};
static int patient; /* every wait long enough to outlast a stop */
static int rest_ms; /* the mutex's threads rest up to this between holds */

/* A wait's timeout: one of the short ones, or for the patient worker (the
 * one the nemesis stops past its session, next in line) long enough that
 * the wait is still on when it is continued: a wait that timed out during
 * the stop could never take the stale event for a grant. */
static int64_t pick_timeout(unsigned *seed) {
  int64_t t = timeouts[rand_r(seed) % 5];
  return patient ? 20000 : t;
}

/* What a hold does with the store: nothing, write (and count), or, a
 * read hold, try a write that must be refused. */
typedef enum { H_NONE, H_WRITE, H_READ } hold_use_t;

/* One increment of the counter under hold m (see the top). */
static void count_once(zkc_hold_t *m, int64_t token) {
  char *data = NULL;
  size_t len = 0;
  int32_t version = 0;
  if (zkc_hold_fenced_get(m, count_path, &data, &len, &version) != ZKC_OK)
    return;
  long long value = data ? atoll(data) : 0;
  free(data);
  char next[32];
  int n = snprintf(next, sizeof next, "%lld", value + 1);
  int rc = zkc_hold_fenced_cas(m, count_path, next, (size_t)n, version, NULL);
  if (rc == ZKC_OK) {
    say("INC %lld %lld %lld\n", now_us(), (long long)token, value + 1);
  } else if (rc == ZKC_ECONNLOSS || rc == ZKC_EOPTIMEOUT) {
    /* Applied or not: a read under the same hold tells (a version past
     * ours is this write's, every writer holding the lock). */
    char *again = NULL;
    int32_t v2 = 0;
    int r = zkc_hold_fenced_get(m, count_path, &again, &len, &v2);
    free(again);
    if (r == ZKC_OK && v2 > version)
      say("INC %lld %lld %lld\n", now_us(), (long long)token, value + 1);
    else if (r != ZKC_OK)
      say("INC? %lld %lld %lld\n", now_us(), (long long)token, value + 1);
  }
}

/* The work under a granted hold: up to three fenced writes of its token
 * (each followed by an increment when counting), or a read hold's refused
 * write, with short rests between. */
static void use_hold(zkc_hold_t *hold, hold_use_t use, int64_t token,
                     unsigned *seed) {
  char data[32];
  int len = snprintf(data, sizeof data, "%lld", (long long)token);
  if (use == H_READ) { /* a read hold may not write */
    long long t0 = now_us();
    int rc = zkc_hold_fenced_set(hold, store_path, data, (size_t)len);
    say("RDW %lld %lld %d\n", t0, (long long)token, rc);
  }
  if (use != H_WRITE) {
    sleep_ms(rand_r(seed) % 100);
    return;
  }
  for (int w = rand_r(seed) % 3; w >= 0; w--) {
    long long t0 = now_us();
    if (zkc_hold_fenced_set(hold, store_path, data, (size_t)len) == ZKC_OK)
      say("W %lld %lld %lld\n", t0, now_us(), (long long)token);
    if (count_path) count_once(hold, token);
    sleep_ms(rand_r(seed) % 100);
  }
}

/* A lease set's round from its grant at t (decided: see take_decided):
 * the ACQ line and a hold of a little, through its hold (a blocking
 * lease's view or an async hold); its token, for the caller's release and
 * REL line. */
static int64_t lease_work(zkc_hold_t *h, long long t, long long decided,
                          unsigned *seed) {
  int64_t token = 0;
  char nodes[2200] = "?";
  zkc_hold_fencing_token(h, &token);
  zkt_hold_node(h, nodes, sizeof nodes);
  char *nl = strchr(nodes, '\n');
  if (nl) *nl = '\0'; /* its first node names it */
  const char *slash = strrchr(nodes, '/');
  say("ACQ %lld %lld %s %lld\n", t, (long long)token, slash ? slash + 1 : "?",
      decided);
  use_hold(h, H_WRITE, token, seed); /* count_path unset */
  sleep_ms(rand_r(seed) % 100);
  return token;
}

/* Semaphore mode: one lease per round. */
static void lease_rounds(zkc_sem_t *s, unsigned seed) {
  while (!atomic_load(&stopping)) {
    zkc_lease_t *l;
    decided_us = 0;
    int rc = zkc_sem_acquire(s, 1, pick_timeout(&seed), &l);
    if (rc != ZKC_OK) {
      if (rc != ZKC_ETIMEDOUT) sleep_ms(20); /* connection trouble */
      continue;
    }
    long long t = now_us();
    int64_t token = lease_work(zkc_lease_hold(l), t, take_decided(), &seed);
    t = now_us();
    rc = zkc_lease_free(l);
    say("REL %lld %lld %d\n", t, (long long)token, rc);
  }
}

/* The async thread waits for its callbacks (the engine runs them). */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, rc;
  zkc_hold_t *hold;
  long long at; /* when the callback ran: the grant's time stamp */
  long long decided; /* the grant's decision, on the engine's thread */
} waitbox_t;

static void box_acquired(void *ctx, int rc, zkc_hold_t *hold) {
  waitbox_t *b = ctx;
  long long at = now_us(), decided = take_decided();
  pthread_mutex_lock(&b->mu);
  b->done = 1, b->rc = rc, b->hold = hold, b->at = at, b->decided = decided;
  pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

static void box_released(void *ctx, int rc) { box_acquired(ctx, rc, NULL); }

static void box_wait(waitbox_t *b) {
  pthread_mutex_lock(&b->mu);
  while (!b->done) pthread_cond_wait(&b->cv, &b->mu);
  b->done = 0;
  pthread_mutex_unlock(&b->mu);
}

/* One hold's work, for the mutex and the async hold alike: the ACQ line,
 * then the hold's use. */
static void hold_work(long long t, long long decided, int64_t token,
                      const char *node, zkc_hold_t *hold, hold_use_t use,
                      unsigned *seed) {
  const char *slash = strrchr(node, '/');
  say("ACQ %lld %lld %s %lld\n", t, (long long)token, slash ? slash + 1 : node,
      decided);
  use_hold(hold, use, token, seed);
}

/* Releases async hold h, its answer awaited (told to b). */
static int release_told(zkc_async_t *a, zkc_hold_t *h, waitbox_t *b) {
  int rc = zkc_hold_release(a, h, box_released, b);
  if (rc == ZKC_OK) {
    box_wait(b);
    rc = b->rc;
  }
  return rc;
}

/* An accepted acquire `id`, cancelled now and then: 1 once granted (the
 * box says how), 0 when it ended otherwise. */
static int box_result(zkc_async_t *a, waitbox_t *b, uint64_t id,
                      unsigned *seed) {
  if (rand_r(seed) % 8 == 0) { /* give up early now and then */
    sleep_ms(rand_r(seed) % 100);
    zkc_async_cancel(a, id); /* ZKC_EALREADY: it completed first */
  }
  box_wait(b);
  if (b->rc == ZKC_OK) return 1;
  if (b->rc != ZKC_ETIMEDOUT && b->rc != ZKC_ECANCELED) sleep_ms(20);
  return 0;
}

/* Semaphore mode's odd thread out: one lease per round through the async
 * acquire, stamped in its callback. */
static void async_lease_rounds(zkc_async_t *a, zkc_sem_t *s, unsigned seed) {
  waitbox_t b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
  while (!atomic_load(&stopping)) {
    uint64_t id = 0;
    if (zkc_async_acquire_leases(a, s, 1, pick_timeout(&seed), box_acquired,
                                 &b, &id) != ZKC_OK)
      _exit(72);
    if (!box_result(a, &b, id, &seed)) continue;
    zkc_hold_t *h = b.hold;
    int64_t token = lease_work(h, b.at, b.decided, &seed);
    long long t = now_us();
    int rc = release_told(a, h, &b);
    say("REL %lld %lld %d\n", t, (long long)token, rc);
    zkc_hold_free(h);
  }
}

/* With ZKT_CHAOS_REST (rest_ms): after bursts of one to five holds back
 * to back, a rest of up to rest_ms, so that the path is often empty and a
 * hold alone lets its mutex's next acquire grant on its create alone (the
 * quick grant), under the same faults. *burst counts the burst down. */
static void rest_after_hold(unsigned *burst, unsigned *seed) {
  if (rest_ms <= 0 || (*burst)-- > 0) return;
  sleep_ms((int)((unsigned)rand_r(seed) % (unsigned)rest_ms));
  *burst = (unsigned)rand_r(seed) % 5;
}

static void async_rounds(zkc_async_t *a, unsigned seed) {
  waitbox_t b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
  unsigned burst = 0;
  while (!atomic_load(&stopping)) {
    rest_after_hold(&burst, &seed);
    uint64_t id = 0;
    int rc = zkc_async_acquire(a, lock_path, pick_timeout(&seed),
                               box_acquired, &b, &id);
    if (rc != ZKC_OK) _exit(72);
    if (!box_result(a, &b, id, &seed)) continue;
    zkc_hold_t *h = b.hold;
    int64_t token = 0;
    long long t = b.at; /* stamped in the callback, not after a wake-up */
    char node[1100] = "?";
    zkc_hold_fencing_token(h, &token);
    zkt_hold_node(h, node, sizeof node);
    hold_work(t, b.decided, token, node, h, H_WRITE, &seed);
    t = now_us();
    rc = release_told(a, h, &b);
    say("REL %lld %lld %d\n", t, (long long)token, rc);
    zkc_hold_free(h);
  }
}

/* One hold of m: ACQ, the work, and unless keep, REL. Returns its token,
 * or -1 when the acquire failed. */
static int64_t mutex_round(zkc_mutex_t *m, int64_t timeout, hold_use_t use,
                           int keep, unsigned *seed) {
  decided_us = 0;
  int rc = zkc_mutex_acquire_timeout(m, timeout);
  if (rc != ZKC_OK) {
    if (rc != ZKC_ETIMEDOUT) sleep_ms(20); /* connection trouble */
    return -1;
  }
  int64_t token = 0;
  char node[1100] = "?";
  long long t = now_us(), decided = take_decided();
  zkc_hold_fencing_token(zkc_mutex_hold(m), &token);
  zkt_hold_node(zkc_mutex_hold(m), node, sizeof node);
  hold_work(t, decided, token, node, zkc_mutex_hold(m), use, seed);
  if (!keep) {
    t = now_us();
    rc = zkc_mutex_release(m);
    say("REL %lld %lld %d\n", t, (long long)token, rc);
  }
  return token;
}

/* Read-write mode: a reader, a writer, or a writer that downgrades. */
static void rw_rounds(zkc_rwlock_t *rw, unsigned seed) {
  zkc_mutex_t *r = zkc_rwlock_read_side(rw), *w = zkc_rwlock_write_side(rw);
  while (!atomic_load(&stopping)) {
    int64_t timeout = pick_timeout(&seed);
    unsigned kind = (unsigned)rand_r(&seed) % 10;
    if (kind < 5) {
      mutex_round(r, timeout, H_READ, 0, &seed);
      continue;
    }
    int downgrade = kind == 9;
    int64_t wt = mutex_round(w, timeout, H_WRITE, downgrade, &seed);
    if (!downgrade || wt < 0) continue;
    int64_t rt = mutex_round(r, 0, H_READ, 1, &seed);
    long long t = now_us();
    int rc = zkc_mutex_release(w);
    say("REL %lld %lld %d\n", t, (long long)wt, rc);
    if (rt < 0) continue;
    sleep_ms(rand_r(&seed) % 100);
    t = now_us();
    rc = zkc_mutex_release(r);
    say("REL %lld %lld %d\n", t, (long long)rt, rc);
  }
}

/* ---- leader modes ---- */

static void on_not_leader(void *ctx, zkc_latch_t *l) {
  (void)ctx;
  int64_t token = 0;
  zkc_hold_fencing_token(zkc_latch_hold(l), &token);
  say("LOST %lld %lld 0\n", now_us(), (long long)token);
}

/* A leader's work: writes through a hold bound to this term (refused once
 * it is over), if it is still on. */
static void term_work(zkc_hold_t *view, int64_t token, unsigned *seed) {
  zkc_hold_t *term = NULL;
  if (zkc_hold_bind(view, &term) == ZKC_OK) {
    use_hold(term, H_WRITE, token, seed);
    zkc_hold_free(term);
  }
}

static void latch_rounds(zkc_client_t *c, unsigned seed) {
  while (!atomic_load(&stopping)) {
    zkc_latch_t *l = NULL;
    if (zkc_latch_create(&l, c, lock_path, NULL, NULL) != ZKC_OK) _exit(73);
    zkc_latch_set_listener(l, NULL, on_not_leader, NULL);
    if (zkc_latch_start(l) != ZKC_OK) _exit(73);
    if (zkc_latch_await(l, pick_timeout(&seed)) == ZKC_OK) {
      long long t = now_us();
      int64_t token = 0;
      char node[1100] = "?";
      zkc_hold_fencing_token(zkc_latch_hold(l), &token);
      zkt_hold_node(zkc_latch_hold(l), node, sizeof node);
      const char *slash = strrchr(node, '/');
      say("ACQ %lld %lld %s 0\n", t, (long long)token, slash ? slash + 1 : node);
      term_work(zkc_latch_hold(l), token, &seed);
      t = now_us();
      zkc_latch_close(l, ZKC_CLOSE_SILENT);
      say("REL %lld %lld 0\n", t, (long long)token);
    }
    zkc_latch_destroy(l);
  }
}

static void lead_a_little(void *ctx, zkc_selector_t *sel) {
  unsigned *seed = ctx;
  int64_t token = 0;
  zkc_hold_fencing_token(zkc_selector_hold(sel), &token);
  say("ACQ %lld %lld ? 0\n", now_us(), (long long)token);
  term_work(zkc_selector_hold(sel), token, seed);
  for (unsigned ms = rand_r(seed) % 100; ms > 0 && !zkc_selector_should_stop(sel);
       ms = ms > 10 ? ms - 10 : 0)
    sleep_ms(10);
  say("REL %lld %lld 0\n", now_us(), (long long)token);
}

static void selector_rounds(zkc_client_t *c, unsigned seed) {
  zkc_selector_opts_t o;
  zkc_selector_opts_init(&o);
  o.auto_requeue = 1;
  zkc_selector_t *sel = NULL;
  if (zkc_selector_create(&sel, c, lock_path, lead_a_little, &seed, &o) !=
          ZKC_OK ||
      zkc_selector_start(sel) != ZKC_OK)
    _exit(74);
  while (!atomic_load(&stopping)) sleep_ms(50);
  zkc_selector_destroy(sel);
}

/* Multi mode: both locks at once, or (odd one out) PATH-b alone. */
static void multi_rounds(shared_t *sh, int plain, unsigned seed) {
  while (!atomic_load(&stopping)) {
    if (plain) {
      mutex_round(sh->mb, pick_timeout(&seed), H_NONE, 0, &seed);
      continue;
    }
    decided_us = 0;
    int rc = zkc_multilock_acquire_timeout(sh->multi, pick_timeout(&seed));
    if (rc != ZKC_OK) {
      if (rc != ZKC_ETIMEDOUT) sleep_ms(20);
      continue;
    }
    long long t = now_us(), d = take_decided();
    int64_t ta = 0, tb = 0;
    char na[1100] = "?", nb[1100] = "?";
    zkc_hold_fencing_token(zkc_mutex_hold(sh->m), &ta);
    zkc_hold_fencing_token(zkc_mutex_hold(sh->mb), &tb);
    zkt_hold_node(zkc_mutex_hold(sh->m), na, sizeof na);
    zkt_hold_node(zkc_mutex_hold(sh->mb), nb, sizeof nb);
    say("ACQ %lld %lld %s %lld\n", t, (long long)ta,
        strrchr(na, '/') ? strrchr(na, '/') + 1 : na, d);
    say("ACQ %lld %lld %s %lld\n", t, (long long)tb,
        strrchr(nb, '/') ? strrchr(nb, '/') + 1 : nb, d);
    zkc_hold_t *set = zkc_multilock_hold(sh->multi);
    int64_t ts = 0;
    zkc_hold_fencing_token(set, &ts); /* the newest node's: W names it */
    use_hold(set, H_WRITE, ts, &seed);
    t = now_us();
    rc = zkc_multilock_release(sh->multi);
    say("REL %lld %lld %d\n", t, (long long)ta, rc);
    say("REL %lld %lld %d\n", t, (long long)tb, rc);
  }
}

static void *contender(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg >> 4;
  shared_t *sh = &shared[(uintptr_t)arg & 15];
  if (leader_mode) {
    if (strcmp(leader_mode, "latch") == 0) latch_rounds(sh->c, seed);
    else selector_rounds(sh->c, seed);
    return NULL;
  }
  if (multi_mode) {
    multi_rounds(sh, sh->multi == NULL, seed);
    return NULL;
  }
  if (sem_max > 0) {
    if (sh->a) async_lease_rounds(sh->a, sh->s, seed);
    else lease_rounds(sh->s, seed);
    return NULL;
  }
  if (sh->a) {
    async_rounds(sh->a, seed);
    return NULL;
  }
  if (sh->rw) {
    rw_rounds(sh->rw, seed);
    return NULL;
  }
  unsigned burst = 0;
  while (!atomic_load(&stopping)) {
    mutex_round(sh->m, pick_timeout(&seed), H_WRITE, 0, &seed);
    rest_after_hold(&burst, &seed);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 8 && !(argc == 9 && strcmp(argv[8], "patient") == 0)) {
    fprintf(stderr, "usage: zkt_chaos_worker CONNECT PATH STORE SESSION_MS "
                    "SEED THREADS LOG [patient]\n");
    return 64;
  }
  zkc__grant_seam = on_grant;
  connect_str = argv[1], lock_path = argv[2], store_path = argv[3];
  session_ms = atoi(argv[4]);
  unsigned seed = (unsigned)strtoul(argv[5], NULL, 10);
  /* Half the workers learn ahead whatever their round trips (which on
   * loopback are too short for it), so that the nemesis meets both. */
  if (seed & 1) zkc__learn_ahead_floor_us = 0;
  int threads = atoi(argv[6]);
  patient = argc == 9;
  const char *sem = getenv("ZKT_CHAOS_SEM");
  sem_max = sem ? atoi(sem) : 0;
  rw_mode = getenv("ZKT_CHAOS_RW") != NULL;
  leader_mode = getenv("ZKT_CHAOS_LEADER");
  multi_mode = getenv("ZKT_CHAOS_MULTI") != NULL;
  const char *rest = getenv("ZKT_CHAOS_REST");
  rest_ms = rest ? atoi(rest) : 0;
  count_path = getenv("ZKT_CHAOS_COUNT");
  snprintf(path_a, sizeof path_a, "%s-a", lock_path);
  snprintf(path_b, sizeof path_b, "%s-b", lock_path);
  log_fd = open(argv[7], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0 || threads < 1 || threads > 16) return 64;
  if (getenv("ZKC_CHAOS_DEBUG")) {
    char debug[1100];
    snprintf(debug, sizeof debug, "%s.debug", argv[7]);
    debug_fd = open(debug, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  pthread_t t[16];
  /* the odd thread out (its own client) is the async one */
  /* Leader modes: a client per thread (one participant per session). */
  int per = leader_mode ? 1 : 2;
  for (int i = 0; i < threads; i += per)
    open_shared(&shared[i / per], !patient && !leader_mode &&
                                      i + 1 == threads);
  for (int i = 0; i < threads; i++) {
    uintptr_t arg = ((uintptr_t)(seed * 31u + (unsigned)i) << 4) | (unsigned)(i / per);
    pthread_create(&t[i], NULL, contender, (void *)arg);
  }
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
  atomic_store(&stopping, 1);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 16; i++) {
    zkc_multilock_destroy(shared[i].multi);
    zkc_mutex_destroy(shared[i].mb);
    zkc_mutex_destroy(shared[i].m);
    zkc_rwlock_destroy(shared[i].rw);
    zkc_async_destroy(shared[i].a);
    zkc_sem_destroy(shared[i].s);
    zkc_client_close(shared[i].c);
  }
  /* How many grants rested on a quick run's create alone (the checker
   * sums them: a resting run must have met some). */
  say("QUICK %llu\n", (unsigned long long)zkc__quick_grants());
  close(log_fd);
  return 0;
}
