/* SPDX-License-Identifier: Apache-2.0 */
/* A waiter stopped past its session must not be granted when it resumes
 * (issue 24, part 1), for every recipe that waits.
 *
 * A holds; the waiter B, a helper process with a 4 s session, queues right
 * behind A and sets its watches; C waits behind B. B is stopped (SIGSTOP).
 * A lets go, so the event for A's node is sent to B's connection and waits
 * in its socket; B's session expires on the server, which deletes B's node,
 * and C is granted. Then B is continued: its ZooKeeper client reads the
 * queued event before it reads the end of the connection, while nothing
 * has told it yet that its session is gone. B must not take that event
 * for a grant: it may give up with a session error, or queue again on a
 * new session and be granted only after C lets go, with a newer token. A
 * hold (or leadership) that B reports while C holds fails the case.
 *
 * B reaches server 1 through the fault proxy, which holds back everything
 * after the event (the end of the connection included) until B's client
 * has given up on the connection by itself: so B surely reads the event
 * first and learns nothing more for a while (without the proxy the end of
 * the connection follows within microseconds, and whether B's threads
 * decide before they see it is a race: about half the runs).
 *
 * Every step is awaited, none slept: B queued with its watches on the
 * server (4-letter word wchc), A's event sent (B's watch on A's node gone
 * from the server, and the event's bytes passed on to B by the proxy), B's
 * node deleted by the expiry, C granted, B continued, B's connection given
 * up (SUSPENDED), and then B's own sign that it dealt with the loss
 * (FAILED, or a node of its new session in the queue) before the verdict.
 * B is continued and reaped by the teardown whatever failed. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)
#define PATH_LEN 512   /* a case's lock paths */
#define NODE_LEN 1200  /* nodes under them */
#define B_SESSION_MS 4000
#define MAX_CLIENTS 6
#define MAX_WORKERS 4
#define MAX_QUEUE 8

/* ---- the waiter B: a helper process ---- */

typedef struct helper {
  zkt_proc_t p;
  int live;             /* spawned and not yet reaped */
  int eof;              /* its output ended */
  int64_t sid;          /* its session when it queued */
  char node[NODE_LEN];  /* its node in the queue it waits in */
  const char *hold;     /* the prefix of its hold lines */
  int64_t stopped_ms, continued_ms;
  unsigned long long down; /* bytes the proxy had sent B when it stopped */
  int logged;           /* its LOG lines read (ZKT_HOLDER_LOG) */
} helper_t;

static helper_t B;

/* The fault proxy between B and server 1. It holds back the end of B's
 * connection (stall) until B's client has given up on it: B then surely
 * reads the event queued for it first, before any sign of the expiry. */
static zkt_proc_t proxy;
static int proxy_live;

static unsigned long long proxy_down(void) {
  char line[256];
  zkt_send(&proxy, "stats");
  if (!zkt_expect(&proxy, "STATS ", line, sizeof line, zkt_ms(5000)))
    fail_msg("proxy did not answer stats");
  const char *d = strstr(line, " down=");
  if (d == NULL) fail_msg("proxy stats without down=: %s", line);
  return strtoull(d + 6, NULL, 10);
}

static const char *b_connect(void) {
  proxy = zkt_proxy_start(1);
  proxy_live = 1;
  return zkt_proxy_connect(&proxy);
}

/* A hold (or leadership) B reported. */
typedef struct report {
  int64_t token;
  int held; /* the recipe's is_held right after the grant (leaders: 1) */
  int64_t ns;
  char node[NODE_LEN]; /* "" for leaders */
} report_t;

static void parse_hold(const char *line, report_t *r) {
  memset(r, 0, sizeof *r);
  long long token = 0, ns = 0;
  if (strncmp(line, "HELD ", 5) == 0) {
    if (sscanf(line + 5, "%lld %1199s %d %lld", &token, r->node, &r->held,
               &ns) != 4)
      fail_msg("B: malformed line '%s'", line);
  } else if (sscanf(line + 7, "%lld %lld", &token, &ns) == 2) {
    r->held = 1;
  } else {
    fail_msg("B: malformed line '%s'", line);
  }
  r->token = token;
  r->ns = ns;
}

static void b_read_session(void) {
  char line[256];
  if (!zkt_expect(&B.p, "SESSION ", line, sizeof line, zkt_ms(15000)))
    fail_msg("B did not start");
  B.sid = (int64_t)strtoull(line + 8, NULL, 0);
  assert_true(B.sid != 0);
}

/* B as zkt_holder in `mode` on `path` (count: its semaphore's count node). */
static void b_spawn_holder(const char *mode, const char *path,
                           const char *count) {
  const char *bin = getenv("ZKT_HOLDER");
  if (bin == NULL) fail_msg("ZKT_HOLDER is not set");
  char session[16];
  snprintf(session, sizeof session, "%d", B_SESSION_MS);
  char *argv[] = {(char *)bin, (char *)b_connect(), (char *)path, session,
                  NULL};
  setenv("ZKT_HOLDER_MODE", mode, 1);
  if (count) setenv("ZKT_HOLDER_COUNT", count, 1);
  B.p = zkt_spawn(argv);
  unsetenv("ZKT_HOLDER_MODE");
  unsetenv("ZKT_HOLDER_COUNT");
  B.live = 1;
  B.logged = 0;
  B.hold = "HELD ";
  b_read_session();
}

/* B as zkt_latch_holder on `path`: a latch, or a selector. */
static void b_spawn_leader(const char *path, int selector) {
  const char *bin = getenv("ZKT_LATCH_HOLDER");
  if (bin == NULL) fail_msg("ZKT_LATCH_HOLDER is not set");
  char session[16];
  snprintf(session, sizeof session, "%d", B_SESSION_MS);
  char *argv[] = {(char *)bin, (char *)b_connect(), (char *)path, "B",
                  session, NULL};
  if (selector) setenv("ZKT_LATCH_SELECTOR", "1", 1);
  B.p = zkt_spawn(argv);
  unsetenv("ZKT_LATCH_SELECTOR");
  B.live = 1;
  B.hold = "LEADER ";
  b_read_session();
}

/* B's next line within wait_ms (0: only one already written). Lines are
 * written whole, so once one has begun the rest is there. */
static int b_line(char *line, size_t len, int wait_ms) {
  if (B.eof) return 0;
  struct pollfd p = {.fd = B.p.out_fd, .events = POLLIN};
  if (poll(&p, 1, wait_ms) <= 0) return 0;
  if (!zkt_read_line(&B.p, line, len, zkt_ms(5000))) {
    B.eof = 1;
    return 0;
  }
  printf("B: %s\n", line);
  B.logged += strncmp(line, "LOG ", 4) == 0;
  return 1;
}

/* B has stopped (by SIGSTOP, sent or raised): waited for and noted. */
static void b_stopped(void) {
  int st = 0;
  assert_int_equal(waitpid(B.p.pid, &st, WUNTRACED), B.p.pid);
  assert_true(WIFSTOPPED(st));
  B.stopped_ms = zkt_now_ms();
  B.down = proxy_down();
}

static void b_stop(void) {
  assert_int_equal(kill(B.p.pid, SIGSTOP), 0);
  b_stopped();
}

static void b_continue(void) {
  assert_int_equal(kill(B.p.pid, SIGCONT), 0);
  B.continued_ms = zkt_now_ms();
}

/* Continues B whatever state it is in, ends its input and reaps it. */
static void b_reap(void) {
  if (!B.live) return;
  kill(B.p.pid, SIGCONT);
  if (B.p.in_fd >= 0) close(B.p.in_fd);
  B.p.in_fd = -1;
  zkt_wait(&B.p, zkt_ms(5000)); /* SIGKILL after that */
  B.live = 0;
}

/* The proxy lets everything through again (a stalled B may have a
 * release to make, and ends its session through it). */
static void proxy_unstall(void) {
  char line[256];
  if (!proxy_live) return;
  zkt_send(&proxy, "unstall");
  zkt_expect(&proxy, "OK unstall", line, sizeof line, zkt_ms(5000));
}

static void proxy_end(void) {
  if (!proxy_live) return;
  close(proxy.in_fd);
  proxy.in_fd = -1;
  zkt_wait(&proxy, zkt_ms(5000));
  proxy_live = 0;
}

/* ---- the queue, read through the harness's raw handle ---- */

typedef struct queue {
  int n;
  char node[MAX_QUEUE][NODE_LEN]; /* full paths */
  int64_t owner[MAX_QUEUE];
} queue_t;

static void read_queue(const char *path, queue_t *q) {
  q->n = 0;
  zhandle_t *zh = zkt_raw();
  zkt_sync_handle(zh, path);
  struct String_vector v = {0};
  int rc = zoo_get_children(zh, path, 0, &v);
  if (rc == ZNONODE) return;
  if (rc != ZOK) fail_msg("get_children %s: %s", path, zerror(rc));
  for (int i = 0; i < v.count && q->n < MAX_QUEUE; i++) {
    struct Stat st;
    snprintf(q->node[q->n], NODE_LEN, "%s/%s", path, v.data[i]);
    if (zoo_exists(zh, q->node[q->n], 0, &st) == ZOK)
      q->owner[q->n++] = st.ephemeralOwner;
  }
  deallocate_String_vector(&v);
}

/* The node of `path`'s queue that session sid owns, into out (NODE_LEN). */
static int owned_node(const char *path, int64_t sid, char *out) {
  queue_t q;
  read_queue(path, &q);
  for (int i = 0; i < q.n; i++)
    if (q.owner[i] == sid) {
      snprintf(out, NODE_LEN, "%s", q.node[i]);
      return 1;
    }
  return 0;
}

typedef struct owned {
  const char *path;
  int64_t sid;
  char *out;
} owned_t;
static int has_owned_node(void *ctx) {
  owned_t *o = ctx;
  return owned_node(o->path, o->sid, o->out);
}

/* Waits for sid's node in `path` (into out, NODE_LEN). */
static void await_node(const char *path, int64_t sid, char *out) {
  owned_t o = {path, sid, out};
  if (!zkt_await(has_owned_node, &o, zkt_ms(10000)))
    fail_msg("no node of session 0x%llx in %s", (unsigned long long)sid, path);
}

static int node_gone(void *ctx) { return !zkt_exists((const char *)ctx, NULL); }

static void await_watch(int64_t sid, const char *path, int want) {
  if (!zkt_await_watch(sid, path, want, zkt_ms(10000)))
    fail_msg("session 0x%llx %s %s", (unsigned long long)sid,
             want ? "never watched" : "still watches", path);
}

/* ---- the test's own participants (A, C, ...) ---- */

static zkc_client_t *clients[MAX_CLIENTS];

static zkc_client_t *open_client(void) {
  for (int i = 0; i < MAX_CLIENTS; i++)
    if (clients[i] == NULL) return clients[i] = zkt_open(NULL);
  fail_msg("too many clients");
  return NULL;
}

static int64_t sid_of(zkc_client_t *c) {
  int64_t sid = 0;
  OK(zkc_client_session_id(c, &sid));
  return sid;
}

/* A lock holder in its own thread (a hold belongs to the thread that took
 * it): a mutex, a side of a read-write lock, a multi-lock or a lease. */
typedef struct worker {
  zkc_client_t *c;
  int64_t sid;
  zkc_mutex_t *m;        /* the mutex, the side, or the multi-lock's last */
  zkc_mutex_t *parts[2]; /* a multi-lock's mutexes */
  zkc_rwlock_t *rw;
  zkc_multilock_t *ml;
  zkc_sem_t *sem;
  zkc_lease_t *lease;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int decided, rc;       /* the acquire returned rc */
  int release_now, released, release_rc;
  int64_t token;
  char node[NODE_LEN];
  pthread_t t;
  int started;
} worker_t;

static worker_t *workers[MAX_WORKERS];

static worker_t *new_worker(void) {
  for (int i = 0; i < MAX_WORKERS; i++)
    if (workers[i] == NULL) {
      worker_t *w = calloc(1, sizeof *w);
      pthread_mutex_init(&w->mu, NULL);
      pthread_cond_init(&w->cv, NULL);
      w->c = open_client();
      w->sid = sid_of(w->c);
      return workers[i] = w;
    }
  fail_msg("too many workers");
  return NULL;
}

static worker_t *mutex_worker(const char *path) {
  worker_t *w = new_worker();
  OK(zkc_mutex_create(&w->m, w->c, path));
  return w;
}

static worker_t *side_worker(const char *path, int write) {
  worker_t *w = new_worker();
  OK(zkc_rwlock_create(&w->rw, w->c, path));
  w->m = write ? zkc_rwlock_write_side(w->rw) : zkc_rwlock_read_side(w->rw);
  return w;
}

/* A multi-lock over path/a and path/b, as zkt_holder's multi mode. */
static worker_t *multi_worker(const char *path) {
  worker_t *w = new_worker();
  char p[NODE_LEN];
  snprintf(p, sizeof p, "%s/a", path);
  OK(zkc_mutex_create(&w->parts[0], w->c, p));
  snprintf(p, sizeof p, "%s/b", path);
  OK(zkc_mutex_create(&w->parts[1], w->c, p));
  OK(zkc_multilock_create(&w->ml, w->parts, 2));
  w->m = w->parts[1];
  return w;
}

/* One lease of a semaphore of 1 (count: its shared count node or NULL). */
static worker_t *sem_worker(const char *path, const char *count) {
  worker_t *w = new_worker();
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = 1;
  o.count_path = count;
  OK(zkc_sem_create(&w->sem, w->c, path, &o));
  return w;
}

static void *worker_main(void *arg) {
  worker_t *w = arg;
  int64_t t = zkt_ms(60000);
  zkc_lease_t *lease = NULL;
  int rc = w->ml ? zkc_multilock_acquire_timeout(w->ml, t)
           : w->sem ? zkc_sem_acquire(w->sem, 1, t, &lease)
                    : zkc_mutex_acquire_timeout(w->m, t);
  int64_t token = 0;
  char node[NODE_LEN] = "";
  if (rc == ZKC_OK && lease) {
    char **nodes = NULL;
    size_t n = 0;
    zkc_hold_fencing_token(zkc_lease_hold(lease), &token);
    if (zkt_lease_nodes(lease, &nodes, &n) == ZKC_OK && n > 0)
      snprintf(node, sizeof node, "%s", nodes[0]);
    zkt_strings_free(nodes, n);
  } else if (rc == ZKC_OK) {
    zkc_hold_fencing_token(zkc_mutex_hold(w->m), &token);
    zkt_hold_node(zkc_mutex_hold(w->m), node, sizeof node);
  }
  pthread_mutex_lock(&w->mu);
  w->rc = rc;
  w->lease = lease;
  w->token = token;
  snprintf(w->node, sizeof w->node, "%s", node);
  w->decided = 1;
  pthread_cond_broadcast(&w->cv);
  while (rc == ZKC_OK && !w->release_now) pthread_cond_wait(&w->cv, &w->mu);
  pthread_mutex_unlock(&w->mu);
  if (rc != ZKC_OK) return NULL;
  rc = w->ml ? zkc_multilock_release(w->ml)
       : lease ? zkc_lease_release(lease)
               : zkc_mutex_release(w->m);
  pthread_mutex_lock(&w->mu);
  w->release_rc = rc;
  w->released = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

static void worker_start(worker_t *w) {
  assert_int_equal(pthread_create(&w->t, NULL, worker_main, w), 0);
  w->started = 1;
}

static int worker_decided(void *ctx) {
  worker_t *w = ctx;
  pthread_mutex_lock(&w->mu);
  int d = w->decided;
  pthread_mutex_unlock(&w->mu);
  return d;
}

/* The acquire's result, waited for. */
static int worker_result(worker_t *w) {
  if (!zkt_await(worker_decided, w, zkt_ms(20000)))
    fail_msg("an acquire of the test never returned");
  return w->rc;
}

static int worker_released(void *ctx) {
  worker_t *w = ctx;
  pthread_mutex_lock(&w->mu);
  int d = w->released;
  pthread_mutex_unlock(&w->mu);
  return d;
}

/* Lets the worker release, and waits until it has. */
static void worker_release(worker_t *w) {
  pthread_mutex_lock(&w->mu);
  w->release_now = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  if (!zkt_await(worker_released, w, zkt_ms(20000)))
    fail_msg("a release of the test never returned");
  OK(w->release_rc);
}

static void worker_free(worker_t *w) {
  pthread_mutex_lock(&w->mu);
  w->release_now = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  if (w->started) pthread_join(w->t, NULL); /* its client is closed */
  zkc_lease_free(w->lease);
  zkc_sem_destroy(w->sem);
  zkc_multilock_destroy(w->ml);
  zkc_mutex_destroy(w->parts[0]);
  zkc_mutex_destroy(w->parts[1]);
  if (w->rw) zkc_rwlock_destroy(w->rw);
  else if (w->ml == NULL) zkc_mutex_destroy(w->m);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
}

/* Leaders of the test: latches, or selectors that lead until let go. */
typedef struct leader {
  zkc_client_t *c;
  int64_t sid;
  zkc_latch_t *latch;
  zkc_selector_t *sel;
  atomic_int leading, give_up;
  atomic_llong token;
} leader_t;

#define MAX_LEADERS 2
static leader_t *leaders[MAX_LEADERS];

static void take(void *ctx, zkc_selector_t *sel) {
  leader_t *l = ctx;
  int64_t token = 0;
  zkc_hold_fencing_token(zkc_selector_hold(sel), &token);
  atomic_store(&l->token, token);
  atomic_store(&l->leading, 1);
  /* A leader polls should_stop (nothing else says when to stop). */
  while (!atomic_load(&l->give_up) && !zkc_selector_should_stop(sel))
    usleep(1000);
  atomic_store(&l->leading, 0);
}

static leader_t *new_leader(const char *path, int selector) {
  for (int i = 0; i < MAX_LEADERS; i++)
    if (leaders[i] == NULL) {
      leader_t *l = calloc(1, sizeof *l);
      l->c = open_client();
      l->sid = sid_of(l->c);
      if (selector) {
        OK(zkc_selector_create(&l->sel, l->c, path, take, l, NULL));
        OK(zkc_selector_start(l->sel));
      } else {
        OK(zkc_latch_create(&l->latch, l->c, path, NULL, NULL));
        OK(zkc_latch_start(l->latch));
      }
      return leaders[i] = l;
    }
  fail_msg("too many leaders");
  return NULL;
}

static int is_leading(void *ctx) {
  return atomic_load(&((leader_t *)ctx)->leading);
}

/* Waits until l leads; its token into *token. */
static void await_leading(leader_t *l, int64_t *token) {
  if (l->latch) {
    OK(zkc_latch_await(l->latch, zkt_ms(20000)));
    OK(zkc_hold_fencing_token(zkc_latch_hold(l->latch), token));
  } else {
    if (!zkt_await(is_leading, l, zkt_ms(20000))) fail_msg("never led");
    *token = atomic_load(&l->token);
  }
}

static int still_leads(leader_t *l) {
  return l->latch ? zkc_latch_has_leadership(l->latch)
                  : zkc_selector_has_leadership(l->sel);
}

/* Gives up leadership; returns once its node is deleted. */
static void leader_close(leader_t *l) {
  atomic_store(&l->give_up, 1);
  OK(l->latch ? zkc_latch_close(l->latch, ZKC_CLOSE_SILENT)
              : zkc_selector_close(l->sel));
}

/* Ends everything a case made, whatever it reached: B first (its proxy
 * unstalled, B continued and reaped), the leaders, the clients (an acquire
 * still waiting returns), the workers. The teardown then runs the
 * harness's check for nodes left over. */
static void stall_clear(void) {
  proxy_unstall();
  b_reap();
  proxy_end();
  memset(&B, 0, sizeof B);
  for (int i = 0; i < MAX_LEADERS; i++) {
    if (leaders[i] == NULL) continue;
    atomic_store(&leaders[i]->give_up, 1);
    zkc_latch_destroy(leaders[i]->latch);
    zkc_selector_destroy(leaders[i]->sel);
    free(leaders[i]);
    leaders[i] = NULL;
  }
  for (int i = 0; i < MAX_CLIENTS; i++) {
    zkc_client_close(clients[i]);
    clients[i] = NULL;
  }
  for (int i = 0; i < MAX_WORKERS; i++) {
    if (workers[i] != NULL) worker_free(workers[i]);
    workers[i] = NULL;
  }
}

static int stall_teardown(void **state) {
  stall_clear();
  return zkt_teardown(state);
}

/* ---- the steps ---- */

/* B's node in `queue` (into B.node). */
static void b_queued(const char *queue) { await_node(queue, B.sid, B.node); }

/* C (session c_sid) queued in `queue` behind B's node there: it watches it.
 * C's node into c_node (NODE_LEN). */
static void c_behind_b(int64_t c_sid, const char *queue, char *c_node) {
  char b_node[NODE_LEN];
  await_node(queue, B.sid, b_node);
  await_node(queue, c_sid, c_node);
  await_watch(c_sid, b_node, 1);
}

typedef struct sent {
  unsigned long long since;
} sent_t;
static int proxy_sent(void *ctx) {
  return proxy_down() > ((sent_t *)ctx)->since;
}

/* What B watched changed while B was stopped: the event for `path` was
 * sent (with data_watch, B's watch on it is gone from the server; wchc
 * does not show children watches), and the proxy has passed on to B at
 * least its size since B stopped (a silent client is sent nothing but its
 * events and the answer to a ping in flight, 20 bytes): the event waits in
 * B's socket. The proxy holds everything after it back from now on. */
static void b_event_queued(const char *path, int data_watch) {
  if (data_watch) await_watch(B.sid, path, 0);
  /* Length, xid, zxid, err; type, state, the path's length and bytes. */
  sent_t sent = {B.down + 4 + 16 + 12 + strlen(path) - 1};
  if (!zkt_await(proxy_sent, &sent, zkt_ms(10000)))
    fail_msg("the event for %s never reached B's connection", path);
  zkt_proxy_cmd(&proxy, "stall");
  printf("figure: the proxy passed B %llu bytes while it was stopped\n",
         proxy_down() - B.down);
}

/* B's session expired on the server: its node was deleted. */
static void b_expired(void) {
  if (!zkt_await(node_gone, B.node, zkt_ms(15000)))
    fail_msg("B's node outlived its session: %s", B.node);
  printf("figure: B's node deleted %lld ms after B was stopped\n",
         (long long)(zkt_now_ms() - B.stopped_ms));
}

/* A node of `queue` owned by a session none of the test's clients has and
 * B did not have when it queued: B's, on a new session. */
static int b_queued_again(const char *queue) {
  int64_t known[MAX_CLIENTS + 1];
  int n = 0;
  known[n++] = B.sid;
  for (int i = 0; i < MAX_CLIENTS; i++)
    if (clients[i] != NULL) known[n++] = sid_of(clients[i]);
  queue_t q;
  read_queue(queue, &q);
  for (int i = 0; i < q.n; i++) {
    int mine = 0;
    for (int k = 0; k < n; k++) mine |= q.owner[i] == known[k];
    if (!mine) return 1;
  }
  return 0;
}

static void no_hold(const char *line) {
  if (strncmp(line, B.hold, strlen(B.hold)) != 0) return;
  report_t r;
  parse_hold(line, &r);
  fail_msg("B reported a hold while C held (token %lld, is_held %d, %lld ms "
           "after it was continued): '%s'", (long long)r.token, r.held,
           (long long)((r.ns / 1000000) - B.continued_ms), line);
}

/* After B is continued: reads its reports until it shows that it dealt
 * with its session's loss, failing on any hold meanwhile. While the proxy
 * holds its connection, B's client can only give up on it (SUSPENDED, by
 * its own timeout); then the proxy lets the end of the connection through
 * and B learns of the expiry. Returns 1 when B queued again on a new
 * session (its node in `queue`), 0 when it gave up with a session error.
 * Then C (its node c_node) still holds. */
static int b_verdict(const char *queue, const char *c_node) {
  int64_t deadline = zkt_now_ms() + zkt_ms(20000), suspended_ms = 0;
  char line[1400];
  int again = -1;
  while (again < 0) {
    if (b_line(line, sizeof line, 20)) {
      no_hold(line);
      if (strncmp(line, "FAILED ", 7) == 0) {
        int rc = atoi(line + 7);
        if (rc != ZKC_ELOST && rc != ZKC_ESESSIONEXPIRED)
          fail_msg("B's acquire failed with %s, not a session error",
                   zkc_err_name(rc));
        again = 0;
      } else if (!suspended_ms && strncmp(line, "STATE 2 ", 8) == 0) {
        suspended_ms = zkt_now_ms();
        zkt_proxy_cmd(&proxy, "unstall");
      }
      continue;
    }
    if (suspended_ms && b_queued_again(queue)) {
      /* Whatever B wrote before it queued again is in the pipe now. */
      while (b_line(line, sizeof line, 0)) no_hold(line);
      again = 1;
    } else if (zkt_now_ms() > deadline || B.eof) {
      fail_msg("B showed no sign of its session's loss");
    }
  }
  printf("figure: B stopped %lld ms; continued, it gave up its connection "
         "after %lld ms and %s after %lld ms\n",
         (long long)(B.continued_ms - B.stopped_ms),
         (long long)(suspended_ms ? suspended_ms - B.continued_ms : -1),
         again ? "queued again on a new session" : "failed",
         (long long)(zkt_now_ms() - B.continued_ms));
  assert_true(zkt_exists(c_node, NULL)); /* C still holds */
  return again;
}

/* B queued again: it is granted after C let go (at c_gone_ns), with a
 * newer token and a new node, and held (unless `whole` is 0: a multi-lock
 * whose first lock went with B's old session, as B was told). */
static void b_granted_after(int64_t c_token, int64_t c_gone_ns, int whole) {
  char line[1400];
  int64_t deadline = zkt_now_ms() + zkt_ms(15000);
  for (;;) {
    if (b_line(line, sizeof line, 20) &&
        strncmp(line, B.hold, strlen(B.hold)) == 0)
      break;
    if (zkt_now_ms() > deadline || B.eof) fail_msg("B was never granted");
  }
  report_t r;
  parse_hold(line, &r);
  assert_true(r.ns >= c_gone_ns);
  assert_true(r.token > c_token);
  if (whole) assert_true(r.held);
  assert_string_not_equal(r.node, B.node);
}

/* Ends B: stdin closed, its last line `last`, its exit status `status`. */
static void b_finish(const char *last, int status) {
  close(B.p.in_fd);
  B.p.in_fd = -1;
  char line[1400];
  if (status == 0 && !zkt_expect(&B.p, last, line, sizeof line, zkt_ms(10000)))
    fail_msg("B did not end with %s", last);
  assert_int_equal(zkt_wait(&B.p, zkt_ms(10000)), status);
  B.live = 0;
  zkt_proxy_stop(&proxy);
  proxy_live = 0;
}

/* B continued, with C (its node in `queue`) granted while B was stopped:
 * B reports no hold while C holds, and, if it queued again, is granted
 * after C lets go (whole: and reports the hold held); then B ends. */
static void b_judged(const char *queue, worker_t *c, int whole) {
  b_continue();
  int again = b_verdict(queue, c->node);
  int64_t t = zkt_now_ns();
  worker_release(c);
  if (again) b_granted_after(c->token, t, whole);
  b_finish("RELEASED ", again ? 0 : 1);
}

/* The lock recipes: A (a worker, holding) in `queue`; B in `mode` waits
 * behind it, watching A's node and, with own_watch, its own; C (a worker
 * not started yet) queues behind B in c_queue. */
static void lock_case(worker_t *a, const char *b_mode, const char *b_path,
                      const char *queue, int own_watch, worker_t *c,
                      const char *c_queue) {
  worker_start(a);
  OK(worker_result(a));
  b_spawn_holder(b_mode, b_path, NULL);
  b_queued(queue);
  await_watch(B.sid, a->node, 1);
  if (own_watch) await_watch(B.sid, B.node, 1);
  worker_start(c);
  char c_node[NODE_LEN];
  c_behind_b(c->sid, c_queue, c_node);

  b_stop();
  worker_release(a);
  b_event_queued(a->node, 1);
  b_expired();
  OK(worker_result(c));
  b_judged(queue, c, strcmp(b_mode, "multi") != 0);
}

/* ---- the cases ---- */

static void stopped_mutex_waiter(void **state) {
  (void)state;
  char path[PATH_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  lock_case(mutex_worker(path), "mutex", path, path, 1, mutex_worker(path),
            path);
}

/* A reader behind a writer; C, a writer, behind it. */
static void stopped_reader_behind_writer(void **state) {
  (void)state;
  char path[PATH_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  lock_case(side_worker(path, 1), "read", path, path, 1, side_worker(path, 1),
            path);
}

/* A writer behind a reader; C, a writer, behind it. */
static void stopped_writer_behind_reader(void **state) {
  (void)state;
  char path[PATH_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  lock_case(side_worker(path, 0), "write", path, path, 1, side_worker(path, 1),
            path);
}

/* A writer behind a writer (no grant on the delete alone there: it
 * watches A's node only); C, a writer, behind it. */
static void stopped_writer_behind_writer(void **state) {
  (void)state;
  char path[PATH_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  lock_case(side_worker(path, 1), "write", path, path, 0, side_worker(path, 1),
            path);
}

/* B's multi-lock over path/a and path/b took path/a and waits on path/b
 * behind A; C's multi-lock waits on path/a behind B, then takes both. */
static void stopped_multilock_waiter(void **state) {
  (void)state;
  char path[PATH_LEN], a_path[NODE_LEN], b_path[NODE_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("multi"));
  snprintf(a_path, sizeof a_path, "%s/a", path);
  snprintf(b_path, sizeof b_path, "%s/b", path);
  lock_case(mutex_worker(b_path), "multi", path, b_path, 1, multi_worker(path),
            a_path);
}

/* B's multi-lock, in nobody's way, stops itself (SIGSTOP: every thread)
 * once the read of its set's nodes is answered, before judging it. Its
 * session expires meanwhile, and C takes path/b. Continued, B holds
 * answers from before the expiry that show its nodes there: it must not
 * report the set held on them. */
static void stopped_multilock_reading_its_set(void **state) {
  (void)state;
  char path[PATH_LEN], b_path[NODE_LEN], line[256];
  snprintf(path, sizeof path, "%s", zkt_path("multi"));
  snprintf(b_path, sizeof b_path, "%s/b", path);
  setenv("ZKT_HOLDER_STOP_AT_SET_READ", "1", 1);
  b_spawn_holder("multi", path, NULL);
  unsetenv("ZKT_HOLDER_STOP_AT_SET_READ");
  if (!zkt_expect(&B.p, "SET READ", line, sizeof line, zkt_ms(15000)))
    fail_msg("B never read its set");
  b_stopped();
  b_queued(b_path);
  b_expired();
  worker_t *c = mutex_worker(b_path);
  worker_start(c);
  OK(worker_result(c));
  b_judged(b_path, c, 1);
}

/* The async acquire (it watches A's node only); A and C are mutexes on
 * the same path. */
static void stopped_async_waiter(void **state) {
  (void)state;
  char path[PATH_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  lock_case(mutex_worker(path), "async", path, path, 0, mutex_worker(path),
            path);
}

/* The semaphore's queue (<path>/locks), limit 1: L holds the lease, A is
 * the queue's head waiting for it, B behind A, C behind B. When L lets go,
 * A takes the lease and leaves the queue (B's predecessor goes); once B's
 * session has expired C is the head, with its lease node waiting. B, woken
 * on a dead connection, must take no lease: its queue read proves nothing,
 * its lease create goes through the leader. */
static void stopped_sem_queue_waiter(void **state) {
  (void)state;
  char path[PATH_LEN], locks[NODE_LEN], leases[NODE_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(locks, sizeof locks, "%s/locks", path);
  snprintf(leases, sizeof leases, "%s/leases", path);
  worker_t *l = sem_worker(path, NULL), *a = sem_worker(path, NULL);
  worker_start(l);
  OK(worker_result(l));
  worker_start(a);
  char a_node[NODE_LEN], a_lease[NODE_LEN], c_node[NODE_LEN], c_lease[NODE_LEN];
  await_node(locks, a->sid, a_node);
  await_node(leases, a->sid, a_lease); /* A waits for the lease */
  b_spawn_holder("sem", path, NULL);
  b_queued(locks);
  await_watch(B.sid, a_node, 1);
  /* Its own node unwatched: the semaphore's queue proves no grant (each
   * lease rests on its own read behind its create), and sets no such watch. */
  await_watch(B.sid, B.node, 0);
  worker_t *c = sem_worker(path, NULL);
  worker_start(c);
  c_behind_b(c->sid, locks, c_node);

  b_stop();
  worker_release(l);
  OK(worker_result(a)); /* A has the lease and left the queue */
  b_event_queued(a_node, 1);
  b_expired();
  await_node(leases, c->sid, c_lease); /* C heads the queue, waits */
  b_continue();
  int again = b_verdict(locks, c_node);
  worker_release(a);
  OK(worker_result(c));
  int64_t t = zkt_now_ns();
  worker_release(c);
  if (again) b_granted_after(c->token, t, 1);
  b_finish("RELEASED ", again ? 0 : 1);
}

/* The semaphore's wait for a lease, limit 1 (a shared count node, whose
 * watch shows that B's read of the leases, sent just before it, has set
 * its watch on them): A holds the lease, B heads the queue with its lease
 * node waiting, C queues behind B. The semaphore is the case's nth; the
 * queue's path and the leases' into locks and leases (NODE_LEN each). */
static void sem_lease_wait(int n, worker_t **a, worker_t **c, char *locks,
                           char *leases) {
  char path[PATH_LEN], count[PATH_LEN], leaf[32];
  snprintf(leaf, sizeof leaf, "sem%d", n);
  snprintf(path, sizeof path, "%s", zkt_path(leaf));
  snprintf(leaf, sizeof leaf, "count%d", n);
  snprintf(count, sizeof count, "%s", zkt_path(leaf));
  snprintf(locks, NODE_LEN, "%s/locks", path);
  snprintf(leases, NODE_LEN, "%s/leases", path);
  *a = sem_worker(path, count);
  worker_start(*a);
  OK(worker_result(*a));
  b_spawn_holder("sem", path, count);
  b_queued(locks);
  char b_lease[NODE_LEN], c_node[NODE_LEN];
  await_node(leases, B.sid, b_lease);
  await_watch(B.sid, count, 1);
  *c = sem_worker(path, count);
  worker_start(*c);
  c_behind_b((*c)->sid, locks, c_node);
}

static void stopped_sem_lease_waiter(void **state) {
  (void)state;
  char locks[NODE_LEN], leases[NODE_LEN];
  worker_t *a, *c;
  sem_lease_wait(1, &a, &c, locks, leases);

  b_stop();
  worker_release(a);
  b_event_queued(leases, 0);
  b_expired();
  OK(worker_result(c));
  b_judged(locks, c, 1);
}

/* The same wait, with B stopped a step later: woken by A's release, B
 * sends its round (the sync, the leases read, the count read), and the
 * proxy stops B as the count's answer, the round's last, comes back, then
 * passes it on and holds everything after it. The round's answers, which
 * show room for B's lease, wait in B's socket while its session expires
 * and C takes the lease. Continued, B reads them first: a round sent
 * before its session expired proves nothing now, and B must read again,
 * as it says in its log. Returns whether it said so: B's client may
 * instead judge its connection timed out before it reads the answers
 * (B was stopped past 2/3 of its session), and then the run shows only
 * that B learnt of the loss, not the refusal. Every other check holds
 * either way. */
static int sem_lease_reader(int n) {
  char locks[NODE_LEN], leases[NODE_LEN], cmd[64], line[256];
  worker_t *a, *c;
  /* Refused as too old, or as resting on a session whose renewal at the
   * leader the stop left unproven: either line says "reading again". */
  setenv("ZKT_HOLDER_LOG", ": reading again", 1);
  sem_lease_wait(n, &a, &c, locks, leases);
  unsetenv("ZKT_HOLDER_LOG");

  snprintf(cmd, sizeof cmd, "stop-at-get 1 %d", (int)B.p.pid);
  zkt_proxy_cmd(&proxy, cmd);
  worker_release(a);
  if (!zkt_expect(&proxy, "STALLED", line, sizeof line, zkt_ms(10000)))
    fail_msg("B's round was never answered through the proxy");
  b_stopped();
  b_expired();
  OK(worker_result(c));
  b_judged(locks, c, 1);
  printf("figure: attempt %d: B %s the stale round\n", n,
         B.logged > 0 ? "refused" : "never read");
  return B.logged > 0;
}

#define READER_ATTEMPTS 3

static void stopped_sem_lease_reader(void **state) {
  (void)state;
  int refused = 0;
  for (int n = 1; n <= READER_ATTEMPTS && !refused; n++) {
    refused = sem_lease_reader(n);
    stall_clear();
  }
  if (!refused)
    fail_msg("in %d attempts B never read its stale round: nothing was "
             "shown", READER_ATTEMPTS);
}

/* The leader recipes: A leads, B (a latch or a selector) is next, C after
 * it. B must never lead while C does. */
static void leader_case(int selector) {
  char path[PATH_LEN];
  snprintf(path, sizeof path, "%s", zkt_path("election"));
  leader_t *a = new_leader(path, selector);
  int64_t token;
  await_leading(a, &token);
  char a_node[NODE_LEN], c_node[NODE_LEN];
  await_node(path, a->sid, a_node);
  b_spawn_leader(path, selector);
  b_queued(path);
  await_watch(B.sid, a_node, 1);
  await_watch(B.sid, B.node, 1);
  leader_t *c = new_leader(path, selector);
  c_behind_b(c->sid, path, c_node);

  b_stop();
  leader_close(a);
  b_event_queued(a_node, 1);
  b_expired();
  int64_t c_token;
  await_leading(c, &c_token);
  b_continue();
  int again = b_verdict(path, c_node);
  assert_true(still_leads(c));
  int64_t t = zkt_now_ns();
  leader_close(c);
  assert_true(again); /* a candidate never gives up */
  b_granted_after(c_token, t, 1);
  b_finish("CLOSED", 0);
}

static void stopped_latch_candidate(void **state) {
  (void)state;
  leader_case(0);
}

static void stopped_selector_candidate(void **state) {
  (void)state;
  leader_case(1);
}

/* B holds the lock (zkt_holder's `mode`: "mutex", or "async" through an
 * async context), is stopped past its session while X takes the lock (the
 * leader expired B's session), then is continued and lets go at once: its
 * release races with its client learning of the expiry. Whatever the
 * order, the release must not report a clean end of a hold the session
 * lost (ZKC_OK), and the loss must be told once: by the release's code
 * (ZKC_ELOST, ZKC_ECONNLOSS: in doubt; the async release's callback) and
 * by one LOST line, even when it is learnt after the release (B keeps its
 * lock object or context a while after, for the callback:
 * ZKT_HOLDER_LINGER_MS). */
/* X, the next holder of B's path: a writer of B's read-write lock, a
 * lease of B's semaphore (one), or the lock. */
typedef struct x_hold {
  zkc_rwlock_t *rw;
  zkc_mutex_t *m;
  zkc_sem_t *sem;
  zkc_lease_t *lease;
} x_hold_t;

static void x_take(x_hold_t *x, const char *mode, const char *path) {
  memset(x, 0, sizeof *x);
  zkc_client_t *c = open_client();
  if (strcmp(mode, "sem") == 0) {
    zkc_sem_opts_t so;
    zkc_sem_opts_init(&so);
    so.max_leases = 1;
    OK(zkc_sem_create(&x->sem, c, path, &so));
    OK(zkc_sem_acquire(x->sem, 1, zkt_ms(20000), &x->lease));
    return;
  }
  if (strcmp(mode, "read") == 0 || strcmp(mode, "write") == 0) {
    OK(zkc_rwlock_create(&x->rw, c, path));
    x->m = zkc_rwlock_write_side(x->rw);
  } else {
    OK(zkc_mutex_create(&x->m, c, path));
  }
  OK(zkc_mutex_acquire_timeout(x->m, zkt_ms(20000)));
}

static void x_drop(x_hold_t *x) {
  if (x->sem) {
    OK(zkc_lease_free(x->lease));
    OK(zkc_sem_destroy(x->sem));
  } else {
    OK(zkc_mutex_release(x->m));
    OK(x->rw ? zkc_rwlock_destroy(x->rw) : zkc_mutex_destroy(x->m));
  }
}

static void holder_lets_go_at_once(const char *mode) {
  char path[PATH_LEN], line[NODE_LEN + 64], linger[16];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(linger, sizeof linger, "%lld", (long long)zkt_ms(3000));
  setenv("ZKT_HOLDER_LINGER_MS", linger, 1);
  b_spawn_holder(mode, path, NULL);
  unsetenv("ZKT_HOLDER_LINGER_MS");
  int held = 0;
  int64_t end = zkt_now_ms() + zkt_ms(15000);
  while (!held && zkt_now_ms() < end)
    if (b_line(line, sizeof line, 100)) held = strncmp(line, "HELD ", 5) == 0;
  if (!held) fail_msg("B was not granted");
  b_stop();
  x_hold_t x;
  x_take(&x, mode, path); /* B's session gone */
  printf("figure: X granted %lld ms after B was stopped\n",
         (long long)(zkt_now_ms() - B.stopped_ms));

  b_continue();
  close(B.p.in_fd); /* let go at once */
  B.p.in_fd = -1;
  int lost = 0, released = 0, rc = 1;
  end = zkt_now_ms() + zkt_ms(15000);
  while (!B.eof && zkt_now_ms() < end) {
    if (!b_line(line, sizeof line, 100)) continue;
    if (strncmp(line, "LOST ", 5) == 0) lost++;
    if (sscanf(line, "RELEASED %d", &rc) == 1) released = 1;
  }
  x_drop(&x);
  if (!released) fail_msg("B never reported its release");
  printf("figure: B's (%s) release returned %s; its loss told %d time(s)\n",
         mode, zkc_err_name(rc), lost);
  if (rc == ZKC_OK)
    fail_msg("B's release reported a clean end of a hold its session lost");
  assert_true(rc == ZKC_ELOST || rc == ZKC_ECONNLOSS);
  if (lost != 1) fail_msg("B's loss was told %d times, not once", lost);
}

static void stopped_holder_lets_go_at_once(void **state) {
  (void)state;
  holder_lets_go_at_once("mutex");
}

/* The same with B's hold taken by an asynchronous acquire: the release's
 * code is the released callback's. */
static void stopped_async_holder_lets_go_at_once(void **state) {
  (void)state;
  holder_lets_go_at_once("async");
}

/* The same with B a reader, a writer, a semaphore's lease holder: X is a
 * writer, a lease (of one). */
static void stopped_reader_lets_go_at_once(void **state) {
  (void)state;
  holder_lets_go_at_once("read");
}

static void stopped_writer_lets_go_at_once(void **state) {
  (void)state;
  holder_lets_go_at_once("write");
}

static void stopped_lease_holder_lets_go_at_once(void **state) {
  (void)state;
  holder_lets_go_at_once("sem");
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* B's lines among cmocka's */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(stopped_mutex_waiter, stall_teardown),
      cmocka_unit_test_teardown(stopped_reader_behind_writer, stall_teardown),
      cmocka_unit_test_teardown(stopped_writer_behind_reader, stall_teardown),
      cmocka_unit_test_teardown(stopped_writer_behind_writer, stall_teardown),
      cmocka_unit_test_teardown(stopped_multilock_waiter, stall_teardown),
      cmocka_unit_test_teardown(stopped_multilock_reading_its_set,
                                stall_teardown),
      cmocka_unit_test_teardown(stopped_async_waiter, stall_teardown),
      cmocka_unit_test_teardown(stopped_sem_queue_waiter, stall_teardown),
      cmocka_unit_test_teardown(stopped_sem_lease_waiter, stall_teardown),
      cmocka_unit_test_teardown(stopped_sem_lease_reader, stall_teardown),
      cmocka_unit_test_teardown(stopped_latch_candidate, stall_teardown),
      cmocka_unit_test_teardown(stopped_selector_candidate, stall_teardown),
      cmocka_unit_test_teardown(stopped_holder_lets_go_at_once, stall_teardown),
      cmocka_unit_test_teardown(stopped_async_holder_lets_go_at_once,
                                stall_teardown),
      cmocka_unit_test_teardown(stopped_reader_lets_go_at_once, stall_teardown),
      cmocka_unit_test_teardown(stopped_writer_lets_go_at_once, stall_teardown),
      cmocka_unit_test_teardown(stopped_lease_holder_lets_go_at_once,
                                stall_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "stall");
}
