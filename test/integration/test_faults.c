/* SPDX-License-Identifier: Apache-2.0 */
/* Fault injection on the real ensemble: processes killed and paused,
 * sessions expired, servers killed, quorum lost, connections cut by the
 * test proxy. Every scenario checks the invariants: never two holders, no
 * orphan lock node afterwards (the harness teardown), the holder's node
 * owned by its current session, fencing never going backwards. Each prints
 * its figures. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "stall.h"
#include "queue.h"
#include "test_hooks.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

/* ---- helpers ---- */

static zkc_client_t *open_with(int session_ms, const char *connect) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = session_ms;
  zkc_client_t *c = NULL;
  int rc = zkc_client_open(&c, connect ? connect : zkt_connect(), &o);
  if (rc != ZKC_OK) fail_msg("open: %s", zkc_strerror(rc));
  return c;
}

static zkc_mutex_t *new_mutex(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  return m;
}

/* A holder process on `path`; its token into *token. */
static zkt_proc_t spawn_holder(const char *path, int session_ms,
                               const char *store, int64_t *token) {
  char session[16];
  snprintf(session, sizeof session, "%d", session_ms);
  const char *bin = getenv("ZKT_HOLDER");
  if (bin == NULL) fail_msg("ZKT_HOLDER is not set");
  char *argv[] = {(char *)bin, (char *)zkt_connect(), (char *)path, session,
                  (char *)store, NULL};
  zkt_proc_t p = zkt_spawn(argv);
  char line[1300];
  if (!zkt_expect(&p, "HELD ", line, sizeof line, zkt_ms(15000)))
    fail_msg("holder did not take the lock");
  if (token) *token = atoll(line + 5);
  return p;
}

/* Records what a client and its mutex are told, with times. */
typedef struct observed {
  pthread_mutex_t mu;
  int states[64];
  int64_t state_ms[64];
  int nstates;
  int lost_reason;
  int64_t lost_ms;
  int64_t lost_token; /* the lost hold named by the callback */
} observed_t;

static void observe_state(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)c;
  observed_t *o = ctx;
  pthread_mutex_lock(&o->mu);
  if (o->nstates < 64) {
    o->state_ms[o->nstates] = zkt_now_ms();
    o->states[o->nstates++] = st;
  }
  pthread_mutex_unlock(&o->mu);
}

static void observe_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                    int64_t token) {
  (void)m;
  observed_t *o = ctx;
  pthread_mutex_lock(&o->mu);
  if (o->lost_reason == 0) {
    o->lost_reason = why;
    o->lost_token = token;
    o->lost_ms = zkt_now_ms();
  }
  pthread_mutex_unlock(&o->mu);
}

typedef struct {
  observed_t *o;
  int state;
} seen_t;

static int saw_state(void *ctx) {
  seen_t *s = ctx;
  pthread_mutex_lock(&s->o->mu);
  int found = 0;
  for (int i = 0; i < s->o->nstates; i++) found |= s->o->states[i] == s->state;
  pthread_mutex_unlock(&s->o->mu);
  return found;
}

static int64_t state_time(observed_t *o, int state) {
  pthread_mutex_lock(&o->mu);
  int64_t t = 0;
  for (int i = 0; i < o->nstates && !t; i++)
    if (o->states[i] == state) t = o->state_ms[i];
  pthread_mutex_unlock(&o->mu);
  return t;
}

static int was_lost(void *ctx) {
  observed_t *o = ctx;
  pthread_mutex_lock(&o->mu);
  int lost = o->lost_reason != 0;
  pthread_mutex_unlock(&o->mu);
  return lost;
}

static void observe(observed_t *o, zkc_client_t *c, zkc_mutex_t *m) {
  memset(o, 0, sizeof *o);
  pthread_mutex_init(&o->mu, NULL);
  OK(zkc_client_add_listener(c, observe_state, o));
  if (m) OK(zkc_mutex_set_lost_callback(m, observe_lost, o));
}

/* The node `node` exists and belongs to the client's current session. */
static void assert_owned_by_session(zkc_client_t *c, const char *node) {
  struct Stat st;
  assert_true(zkt_exists(node, &st));
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  assert_int_equal(st.ephemeralOwner, sid);
}

static int ensemble_healthy(void) { return zkt_ensemble(NULL, 0, "wait") == 0; }

/* Teardown of the scenarios that stop servers: whatever happened, the next
 * test finds all three serving again. */
static int restore_ensemble(void **state) {
  zkt_close_open_clients(); /* before the wait: see open_clients.c */
  if (zkt_restore_ensemble() != 0) return -1;
  return zkt_teardown(state);
}

/* An acquire in its own thread, which holds until told to release (a
 * hold belongs to the thread that took it). */
typedef struct {
  zkc_mutex_t *m;
  int64_t timeout_ms;
  atomic_int acquired, release_now;
  int rc, release_rc;
  pthread_t t;
} bg_acquire_t;

static void *bg_acquire_main(void *arg) {
  bg_acquire_t *b = arg;
  b->rc = zkc_mutex_acquire_timeout(b->m, b->timeout_ms);
  atomic_store(&b->acquired, 1);
  if (b->rc != ZKC_OK) return NULL;
  while (!atomic_load(&b->release_now)) usleep(1000);
  b->release_rc = zkc_mutex_release(b->m);
  return NULL;
}

static void bg_acquire(bg_acquire_t *b, zkc_mutex_t *m, int64_t timeout_ms) {
  memset(b, 0, sizeof *b);
  b->m = m;
  b->timeout_ms = timeout_ms;
  pthread_create(&b->t, NULL, bg_acquire_main, b);
}

static int bg_done(void *ctx) {
  return atomic_load(&((bg_acquire_t *)ctx)->acquired);
}

/* Waits for the acquire's result, then lets the thread release. */
static int bg_result(bg_acquire_t *b) {
  if (!zkt_await(bg_done, b, zkt_ms(60000))) fail_msg("acquire never returned");
  return b->rc;
}

static void bg_release(bg_acquire_t *b) {
  atomic_store(&b->release_now, 1);
  pthread_join(b->t, NULL);
  OK(b->release_rc);
}


/* ---- 1 ---- */

static void holder_sigkill_next_waiter_acquires(void **state) {
  (void)state;
  const int session_ms = 2000;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t p = spawn_holder(path, session_ms, NULL, NULL);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  kill(p.pid, SIGKILL);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkt_wait(&p, zkt_ms(5000)), 128 + SIGKILL);
  OK(zkc_mutex_acquire_timeout(m, session_ms + zkt_ms(3000)));
  printf("figure: lock taken over %lld ms after SIGKILL (session %d ms)\n",
         (long long)(zkt_now_ms() - t0), session_ms);
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_owned_by_session(c, node);
  assert_int_equal(zkt_children_count(path), 1);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* ---- 2 ---- */

static void holder_session_expired_lost_and_recovers(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *a = open_with(4000, NULL), *b = zkt_open(NULL);
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  observed_t o;
  observe(&o, a, ma);
  OK(zkc_mutex_acquire(ma));
  assert_true(zkc_hold_is_held(zkc_mutex_hold(ma)));
  int64_t token = 0;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(ma), &token));
  bg_acquire_t waiter;
  bg_acquire(&waiter, mb, zkt_ms(20000));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));

  int64_t old = zkt_expire_session(a);
  int64_t t0 = zkt_now_ms();
  /* Usually the server drops the expired session's connection at once and
   * LOST follows within milliseconds; if not, the client learns at its next
   * ping: a session timeout at worst (awaited for two: a loaded machine). */
  assert_true(zkt_await(was_lost, &o, zkt_ms(8000)));
  printf("figure: LOST reported %lld ms after the expiry\n",
         (long long)(o.lost_ms - t0));
  assert_int_equal(o.lost_reason, ZKC_LOST_SESSION);
  assert_int_equal(o.lost_token, token); /* the callback names the hold */
  assert_false(zkc_hold_is_held(zkc_mutex_hold(ma)));
  seen_t lost = {&o, ZKC_STATE_LOST}; /* the listener hears it after the callback */
  assert_true(zkt_await(saw_state, &lost, zkt_ms(5000)));

  /* The lock is not wedged: the waiter gets it. */
  OK(bg_result(&waiter));
  assert_int_equal(zkc_mutex_release(ma), ZKC_ELOST); /* local state cleared */
  assert_false(zkc_mutex_is_owned_by_current_thread(ma));

  /* The client has a new session by itself and works on it. */
  seen_t connected_again = {&o, ZKC_STATE_CONNECTED};
  assert_true(zkt_await(saw_state, &connected_again, zkt_ms(10000)));
  int64_t now_sid;
  OK(zkc_client_session_id(a, &now_sid));
  assert_true(now_sid != 0 && now_sid != old);
  printf("figure: new session %lld ms after the expiry\n",
         (long long)(state_time(&o, ZKC_STATE_CONNECTED) - t0));
  bg_release(&waiter);
  OK(zkc_mutex_acquire_timeout(ma, zkt_ms(10000)));
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(ma), node, sizeof node));
  assert_owned_by_session(a, node);
  OK(zkc_mutex_release(ma));
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* ---- 2b ---- */

static void waiter_session_expired_requeues(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *a = zkt_open(NULL), *b = open_with(4000, NULL);
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  observed_t o;
  observe(&o, b, mb);
  OK(zkc_mutex_acquire(ma));
  bg_acquire_t waiter;
  bg_acquire(&waiter, mb, zkt_ms(30000));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  int64_t old = zkt_expire_session(b);
  int64_t t0 = zkt_now_ms();
  seen_t lost = {&o, ZKC_STATE_LOST}, again = {&o, ZKC_STATE_CONNECTED};
  assert_true(zkt_await(saw_state, &lost, zkt_ms(8000))); /* as above */
  printf("figure: LOST reported %lld ms after the expiry\n",
         (long long)(state_time(&o, ZKC_STATE_LOST) - t0));
  assert_true(zkt_await(saw_state, &again, zkt_ms(10000)));
  /* The waiter queued again on the new session: two nodes, none of the
   * expired session. */
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  assert_int_equal(o.lost_reason, 0); /* it held nothing: nothing was lost */
  OK(zkc_mutex_release(ma));
  OK(bg_result(&waiter));
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(mb, &nodes, &n));
  assert_int_equal(n, 1);
  assert_owned_by_session(b, nodes[0]);
  zkt_strings_free(nodes, n);
  int64_t sid;
  OK(zkc_client_session_id(b, &sid));
  assert_true(sid != old);
  bg_release(&waiter);
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* ---- 3 ---- */

static void holder_paused_beyond_timeout_is_fenced_off(void **state) {
  (void)state;
  const int session_ms = 2000;
  char path[512], store[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(store, sizeof store, "%s", zkt_path("store"));
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), store, "0", 1, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  int64_t t1;
  zkt_proc_t p = spawn_holder(path, session_ms, store, &t1);
  char line[1300];
  assert_true(zkt_expect(&p, "FENCED 0", line, sizeof line, zkt_ms(5000)));

  kill(p.pid, SIGSTOP);
  int64_t stopped = zkt_now_ms();
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire_timeout(m, session_ms + zkt_ms(3000)));
  int64_t t2;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &t2));
  assert_true(t2 > t1);
  char value[32];
  int n = snprintf(value, sizeof value, "%lld", (long long)t2);
  OK(zkc_hold_fenced_set(zkc_mutex_hold(m), store, value, (size_t)n));
  /* The pause itself is the fault: 1.5 session timeouts in all. */
  int64_t left = stopped + session_ms * 3 / 2 - zkt_now_ms();
  if (left > 0) usleep((useconds_t)left * 1000);
  kill(p.pid, SIGCONT);
  int64_t resumed = zkt_now_ms();

  assert_true(zkt_expect(&p, "LOST ", line, sizeof line, zkt_ms(5000)));
  printf("figure: paused %lld ms; the holder was told '%s' %lld ms after "
         "resuming\n", (long long)(resumed - stopped), line,
         (long long)(zkt_now_ms() - resumed));
  /* Let the paused holder keep trying its fenced writes for a while: none
   * may land. */
  int64_t until = zkt_now_ms() + zkt_ms(1000);
  while (zkt_now_ms() < until && zkt_read_line(&p, line, sizeof line, 100))
    if (strcmp(line, "FENCED 0") == 0) fail_msg("a stale fenced write landed");
  char data[64];
  assert_true(zkt_get_data(store, data, sizeof data) > 0);
  assert_string_equal(data, value); /* still the newer holder's write */

  close(p.in_fd);
  p.in_fd = -1;
  assert_true(zkt_expect(&p, "RELEASED ", line, sizeof line, zkt_ms(5000)));
  assert_int_equal(atoi(line + 9), ZKC_ELOST);
  assert_int_equal(zkt_wait(&p, zkt_ms(10000)), 0);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* A fenced write on a session that has expired, before the client has told
 * anyone: a slow log sink holds the maintenance thread at the session's
 * LOST line, ahead of every recipe. The write is refused as ZKC_ELOST (the
 * handle refuses every request of an expired session) and the hold is
 * marked lost at once; the lost callback is told once, with the session's
 * reason and the hold's token, when the maintenance thread goes on. */
typedef struct lost_gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int at_lost; /* the maintenance thread waits in the sink */
  int open;    /* let it go */
} lost_gate_t;

static void gate_log(void *ctx, zkc_log_level_t level, const char *msg) {
  lost_gate_t *g = ctx;
  if (level != ZKC_LOG_WARN || strncmp(msg, "session 0x", 10) != 0 ||
      strstr(msg, " LOST") == NULL)
    return;
  pthread_mutex_lock(&g->mu);
  g->at_lost = 1;
  pthread_cond_broadcast(&g->cv);
  while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
  pthread_mutex_unlock(&g->mu);
}

static int gate_reached(void *ctx) {
  lost_gate_t *g = ctx;
  pthread_mutex_lock(&g->mu);
  int at = g->at_lost;
  pthread_mutex_unlock(&g->mu);
  return at;
}

static void gate_open(lost_gate_t *g) {
  pthread_mutex_lock(&g->mu);
  g->open = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

static atomic_int fenced_lost_calls;
static atomic_int fenced_lost_reason;
static atomic_llong fenced_lost_token;
static void count_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                       int64_t token) {
  (void)ctx, (void)m;
  atomic_store(&fenced_lost_reason, (int)why);
  atomic_store(&fenced_lost_token, token);
  atomic_fetch_add(&fenced_lost_calls, 1);
}
static int lost_counted(void *ctx) {
  (void)ctx;
  return atomic_load(&fenced_lost_calls) > 0;
}

static void fenced_set_on_expired_session_is_lost(void **state) {
  (void)state;
  char path[512], store[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(store, sizeof store, "%s", zkt_path("store"));
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), store, "0", 1, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  lost_gate_t gate = {.mu = PTHREAD_MUTEX_INITIALIZER,
                      .cv = PTHREAD_COND_INITIALIZER};
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = gate_log;
  o.log_ctx = &gate;
  o.log_level = ZKC_LOG_WARN;
  zkc_client_t *c = zkt_open(&o);
  zkc_mutex_t *m = new_mutex(c, path);
  atomic_store(&fenced_lost_calls, 0);
  OK(zkc_mutex_set_lost_callback(m, count_lost, NULL));
  OK(zkc_mutex_acquire(m));
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &token));
  OK(zkc_hold_fenced_set(zkc_mutex_hold(m), store, "1", 1));

  zkt_expire_session(c);
  assert_true(zkt_await(gate_reached, &gate, zkt_ms(10000)));
  /* The client knows the session expired; no recipe has been told. */
  assert_int_equal(atomic_load(&fenced_lost_calls), 0);
  assert_true(zkc_mutex_is_owned_by_current_thread(m));
  int rc = zkc_hold_fenced_set(zkc_mutex_hold(m), store, "2", 1);
  gate_open(&gate); /* before asserting: a failure must not leave it shut */
  assert_int_equal(rc, ZKC_ELOST);
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m))); /* marked lost at once */
  assert_int_equal(zkc_hold_fenced_set(zkc_mutex_hold(m), store, "3", 1), ZKC_ELOST);

  assert_true(zkt_await(lost_counted, NULL, zkt_ms(10000)));
  assert_int_equal(atomic_load(&fenced_lost_reason), ZKC_LOST_SESSION);
  assert_int_equal(atomic_load(&fenced_lost_token), token);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  assert_int_equal(atomic_load(&fenced_lost_calls), 1); /* told once */
  char data[8];
  assert_true(zkt_get_data(store, data, sizeof data) == 1);
  assert_string_equal(data, "1");

  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  assert_int_equal(zoo_delete(zkt_raw(), store, -1), ZOK);
}

/* A fenced write that finds its own lock node deleted (an outsider) marks
 * the hold lost; the lost callback is still told, once, by the holder's
 * watch on its node. The write usually comes before the watch is set (it
 * is set once the lock has been held for 100 ms), and a hold marked lost
 * by the write was never told before. */
static void fenced_set_on_deleted_node_is_told(void **state) {
  (void)state;
  char path[512], store[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(store, sizeof store, "%s", zkt_path("store"));
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), store, "0", 1, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  atomic_store(&fenced_lost_calls, 0);
  OK(zkc_mutex_set_lost_callback(m, count_lost, NULL));
  OK(zkc_mutex_acquire(m));
  int64_t token;
  char node[1100];
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &token));
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_int_equal(zkc_hold_fenced_set(zkc_mutex_hold(m), store, "1", 1), ZKC_ELOST);
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_true(zkt_await(lost_counted, NULL, zkt_ms(10000)));
  assert_int_equal(atomic_load(&fenced_lost_reason), ZKC_LOST_DELETED);
  assert_int_equal(atomic_load(&fenced_lost_token), token);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  assert_int_equal(atomic_load(&fenced_lost_calls), 1);
  char data[8];
  assert_true(zkt_get_data(store, data, sizeof data) == 1);
  assert_string_equal(data, "0");
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  assert_int_equal(zoo_delete(zkt_raw(), store, -1), ZOK);
}

/* ---- 4 ---- */

/* The client pings after a third of the session timeout of quiet, so the
 * servers may last have heard from it that long before the pause; a pause
 * of another third leaves a third (2 s) for it to be heard again. */
static void holder_paused_below_timeout_keeps_lock(void **state) {
  (void)state;
  const int session_ms = 6000;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t p = spawn_holder(path, session_ms, NULL, NULL);
  kill(p.pid, SIGSTOP);
  usleep(session_ms / 3 * 1000); /* the fault: a third of a session timeout */
  kill(p.pid, SIGCONT);
  char line[1300];
  /* Watch its reports for a whole session timeout: no loss. */
  int64_t until = zkt_now_ms() + session_ms;
  while (zkt_now_ms() < until &&
         zkt_read_line(&p, line, sizeof line, until - zkt_now_ms()))
    if (strncmp(line, "LOST", 4) == 0) fail_msg("false loss: %s", line);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  assert_int_equal(zkc_mutex_acquire_timeout(m, 0), ZKC_ETIMEDOUT);
  close(p.in_fd);
  p.in_fd = -1;
  assert_true(zkt_expect(&p, "RELEASED ", line, sizeof line, zkt_ms(5000)));
  assert_int_equal(atoi(line + 9), ZKC_OK);
  assert_int_equal(zkt_wait(&p, zkt_ms(10000)), 0);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(5000)));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  printf("figure: paused %d ms with a %d ms session: no loss\n", session_ms / 3,
         session_ms);
}

/* ---- 5 ---- */

static void holder_server_killed_keeps_lock(void **state) {
  (void)state;
  char path[512], store[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(store, sizeof store, "%s", zkt_path("store"));
  /* A session that outlives the ensemble's own recovery when the killed
   * server was the leader: an election and the new leader's sync, about
   * 0.4 s here. Until the quorum relays retried their connect, a follower
   * could give up a round and the leader wait out initLimit (5 s) for it,
   * once or several times (seen: 5 to 21 s without a quorum). The lock must
   * survive any recovery its session outlasts. */
  zkc_client_t *c = open_with(15000, NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  observed_t o;
  observe(&o, c, m);
  OK(zkc_mutex_acquire(m));
  zoo_create(zkt_raw(), store, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  int server = zkt_session_server(sid);
  assert_true(server >= 1);
  assert_int_equal(zkt_ensemble(NULL, 0, "kill %d", server), 0);
  int64_t t0 = zkt_now_ms();
  seen_t reconnected = {&o, ZKC_STATE_RECONNECTED};
  assert_true(zkt_await(saw_state, &reconnected, zkt_ms(15000)));
  printf("figure: server %d killed; RECONNECTED after %lld ms\n", server,
         (long long)(state_time(&o, ZKC_STATE_RECONNECTED) - t0));
  assert_false(was_lost(&o));
  seen_t lost = {&o, ZKC_STATE_LOST};
  assert_false(saw_state(&lost));
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  OK(zkc_hold_fenced_set(zkc_mutex_hold(m), store, "x", 1));
  int64_t sid_after;
  OK(zkc_client_session_id(c, &sid_after));
  assert_int_equal(sid_after, sid);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  assert_int_equal(zkt_ensemble(NULL, 0, "start-server %d", server), 0);
  assert_true(ensemble_healthy());
}

/* ---- 6 ---- */

static void leader_killed_under_contention(void **state) {
  (void)state;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 6000;
  zkt_contention_t *k = zkt_contention_start(zkt_path("lock"), 4, 2, 2000, &o);
  int64_t deadline = zkt_now_ms() + zkt_ms(20000);
  while (zkt_contention_holds(k) < 30 && zkt_now_ms() < deadline) usleep(10000);
  char leader[16];
  assert_int_equal(zkt_ensemble(leader, sizeof leader, "leader"), 0);
  int before = zkt_contention_holds(k);
  assert_int_equal(zkt_ensemble(NULL, 0, "kill %s", leader), 0);
  int64_t t0 = zkt_now_ms();
  /* Contention resumes once a new leader is elected. */
  deadline = zkt_now_ms() + zkt_ms(30000);
  while (zkt_contention_holds(k) < before + 30 && zkt_now_ms() < deadline)
    usleep(10000);
  int after = zkt_contention_holds(k);
  int64_t resumed_ms = zkt_now_ms() - t0;
  int errors = 0;
  int holds = zkt_contention_stop(k, &errors); /* fails on any overlap */
  assert_true(after >= before + 30);
  printf("figure: leader %s killed; 30 more holds within %lld ms; %d holds, "
         "%d failed attempts, 0 overlaps\n", leader, (long long)resumed_ms,
         holds, errors);
  assert_int_equal(zkt_ensemble(NULL, 0, "start-server %s", leader), 0);
  assert_true(ensemble_healthy());
}

/* ---- 7 ---- */

static void no_quorum_grants_nothing(void **state) {
  (void)state;
  const int session_ms = 2000;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *h = open_with(session_ms, NULL);
  zkc_mutex_t *m = new_mutex(h, path);
  observed_t o;
  observe(&o, h, m);
  OK(zkc_mutex_acquire(m));
  zkc_client_opts_t co;
  zkc_client_opts_init(&co);
  co.session_timeout_ms = session_ms;
  /* Contenders queue behind the holder before the outage (a session cannot
   * even be opened without quorum) and keep trying through it. */
  zkt_contention_t *k = zkt_contention_start(path, 2, 2, 500, &co);
  char leader[16];
  assert_int_equal(zkt_ensemble(leader, sizeof leader, "leader"), 0);
  int keep = atoi(leader); /* stop the two others: no quorum is left */
  for (int s = 1; s <= 3; s++)
    if (s != keep) assert_int_equal(zkt_ensemble(NULL, 0, "stop-server %d", s), 0);
  usleep(session_ms * 2 * 1000); /* the outage: two session timeouts */
  /* The holder was told (by its own clock after one timeout; awaited a
   * little longer for a loaded machine). */
  assert_true(zkt_await(was_lost, &o, zkt_ms(5000)));
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_int_equal(zkt_contention_holds(k), 0);
  int64_t restart_ns = zkt_now_ns();
  for (int s = 1; s <= 3; s++)
    if (s != keep) assert_int_equal(zkt_ensemble(NULL, 0, "start-server %d", s), 0);
  assert_true(ensemble_healthy());
  int64_t deadline = zkt_now_ms() + zkt_ms(30000);
  while (zkt_contention_holds(k) < 10 && zkt_now_ms() < deadline) usleep(10000);
  int64_t first = zkt_contention_first_ns(k);
  int errors = 0;
  int holds = zkt_contention_stop(k, &errors);
  assert_true(holds >= 10);
  assert_true(first >= restart_ns); /* nothing granted without quorum */
  printf("figure: quorum lost %d ms; first hold %lld ms after the restart "
         "began; %d holds, %d failed attempts, 0 overlaps\n", session_ms * 2,
         (long long)((first - restart_ns) / 1000000), holds, errors);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(h);
}

/* ---- 8 ---- */

static void create_cut_recovered_by_uuid(void **state) {
  (void)state;
  const int rounds = 20;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  const char *connect = zkt_proxy_connect(&proxy);
  zkc_client_t *c = open_with(10000, connect);
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m)); /* creates the parents before any cut */
  OK(zkc_mutex_release(m));
  uint64_t requests0 = zkc__requests(c);
  for (int i = 0; i < rounds; i++) {
    zkt_proxy_cmd(&proxy, "cut-after-create 1");
    OK(zkc_mutex_acquire_timeout(m, zkt_ms(20000)));
    char node[1100];
    OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
    assert_owned_by_session(c, node);
    assert_int_equal(zkt_children_count(path), 1); /* found, not made twice */
    OK(zkc_mutex_release(m));
    assert_int_equal(zkt_children_count(path), 0);
  }
  zkt_send(&proxy, "stats");
  char line[256];
  assert_true(zkt_expect(&proxy, "STATS ", line, sizeof line, zkt_ms(5000)));
  const char *cuts = strstr(line, "cuts=");
  assert_non_null(cuts);
  assert_int_equal(atoi(cuts + 5), rounds);
  printf("figure: %d creates cut after being applied, all recovered by uuid, "
         "0 orphans, %llu requests\n", rounds,
         (unsigned long long)(zkc__requests(c) - requests0));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* ---- 8b: a create retried with the uuid of one applied (issue 37) ----
 *
 * A create cut off by connection loss after the leader applied it, whose
 * uuid search then ran on a server that had not applied it yet, is made
 * again with the same uuid: two nodes of one session carry the run's uuid,
 * the older ahead of the newer. The state is made here directly: the
 * uuid seam gives a node made through the client's own session (as the
 * first create would have been) and then the acquire the same uuid. */

static const char twin_uuid[] = "0b5e55ed-7a1e-4c0d-8e00-000000000037";
static atomic_int twin_uses; /* new uuids still to be given twin_uuid */

static void give_twin_uuid(char uuid[37]) {
  if (atomic_fetch_sub(&twin_uses, 1) > 0) memcpy(uuid, twin_uuid, 37);
}

static int64_t session_of(zkc_client_t *c) {
  int64_t sid = 0;
  OK(zkc_client_session_id(c, &sid));
  return sid;
}

/* The older node of our own session, with our uuid, sits ahead of ours:
 * the acquire must not wait behind it (it would time out and leave it,
 * wedging the lock for everyone until the session ends). */
static void retried_create_twin_does_not_wedge(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *b = open_with(10000, NULL), *c = open_with(10000, NULL);
  zkc_mutex_t *mb = new_mutex(b, path), *mc = new_mutex(c, path);
  OK(zkc_mutex_acquire(mb)); /* the parents */
  OK(zkc_mutex_release(mb));
  zkc__uuid_seam = give_twin_uuid;
  atomic_store(&twin_uses, 2);
  zkc__held_t first = {0};
  OK(zkc__node_create(b, path, ZKC__LOCK_NAME, NULL, zkt_now_ms() + zkt_ms(5000),
                      &first));
  assert_int_equal(first.session_id, session_of(b));
  int rc = zkc_mutex_acquire_timeout(mb, zkt_ms(3000));
  zkc__uuid_seam = NULL;
  int left = zkt_children_count(path);
  printf("figure: acquire with an older node of its own session and uuid "
         "ahead: %s, %d node(s) in the queue\n", zkc_err_name(rc), left);
  OK(rc);
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(mb), node, sizeof node));
  assert_string_not_equal(node, first.node);
  /* The older one goes as ours: no second node of ours stays queued. */
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  OK(zkc_mutex_release(mb));
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  OK(zkc_mutex_acquire_timeout(mc, zkt_ms(5000))); /* not wedged */
  OK(zkc_mutex_release(mc));
  free(first.node);
  OK(zkc_mutex_destroy(mb));
  OK(zkc_mutex_destroy(mc));
  zkc_client_close(b);
  zkc_client_close(c);
}

/* The read-write lock's downgrade makes a read node named exactly after
 * its uuid and the write node's sequence: a create retried after one was
 * applied meets ZKC_ENODEEXISTS. That node is ours: it is adopted, not
 * left behind an error. */
static void downgrade_read_node_exists_is_adopted(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *b = open_with(10000, NULL);
  zkc_rwlock_t *rw = NULL;
  OK(zkc_rwlock_create(&rw, b, path));
  zkc_mutex_t *w = zkc_rwlock_write_side(rw), *r = zkc_rwlock_read_side(rw);
  OK(zkc_mutex_acquire(w));
  char wnode[1100], name[64];
  OK(zkt_hold_node(zkc_mutex_hold(w), wnode, sizeof wnode));
  snprintf(name, sizeof name, "__READ__%s", wnode + strlen(wnode) - 10);
  zkc__uuid_seam = give_twin_uuid;
  atomic_store(&twin_uses, 2);
  zkc__held_t first = {0};
  OK(zkc__node_create_mode(b, path, name, NULL, 1, zkt_now_ms() + zkt_ms(5000),
                           &first));
  int rc = zkc_mutex_acquire_timeout(r, zkt_ms(3000));
  zkc__uuid_seam = NULL;
  printf("figure: downgrade whose read node exists already: %s\n",
         zkc_err_name(rc));
  OK(rc);
  char rnode[1100];
  OK(zkt_hold_node(zkc_mutex_hold(r), rnode, sizeof rnode));
  assert_string_equal(rnode, first.node); /* adopted */
  assert_int_equal(zkt_children_count(path), 2);
  OK(zkc_mutex_release(r));
  OK(zkc_mutex_release(w));
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  free(first.node);
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(b);
}

/* ---- 9 ---- */

static void release_while_disconnected(void **state) {
  (void)state;
  const int session_ms = 4000;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(2);
  const char *connect = zkt_proxy_connect(&proxy);
  zkc_client_t *c = open_with(session_ms, connect);
  zkc_mutex_t *m = new_mutex(c, path);
  observed_t o;
  observe(&o, c, m);
  OK(zkc_mutex_acquire(m));
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));

  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  seen_t suspended = {&o, ZKC_STATE_SUSPENDED};
  assert_true(zkt_await(saw_state, &suspended, zkt_ms(5000)));
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m))); /* in doubt */
  int64_t t0 = zkt_now_ms();
  /* Not a clean end: the hold may have been lost before the release. */
  assert_int_equal(zkc_mutex_release(m), ZKC_ECONNLOSS);
  int64_t release_ms = zkt_now_ms() - t0;
  assert_false(zkc_mutex_is_owned_by_current_thread(m));
  assert_true(zkt_exists(node, NULL)); /* the session lives: node still there */

  zkc_client_t *other = zkt_open(NULL);
  zkc_mutex_t *om = new_mutex(other, path);
  assert_int_equal(zkc_mutex_acquire_timeout(om, 0), ZKC_ETIMEDOUT);
  zkt_proxy_cmd(&proxy, "refuse off");
  int64_t t1 = zkt_now_ms();
  OK(zkc_mutex_acquire_timeout(om, session_ms + zkt_ms(3000)));
  printf("figure: release returned in %lld ms while disconnected; node deleted "
         "and lock taken %lld ms after the connection came back\n",
         (long long)release_ms, (long long)(zkt_now_ms() - t1));
  assert_false(zkt_exists(node, NULL));
  assert_false(was_lost(&o));
  OK(zkc_mutex_release(om));
  OK(zkc_mutex_destroy(om));
  zkc_client_close(other);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(5000))); /* and again, via the proxy */
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* ---- a session ended under an open connection ---- */

/* A server that revalidated a client's connection while the ensemble
 * closed its session goes on serving that connection, answering every
 * request "session expired"; the ZooKeeper client reports an expiry only
 * when it reconnects, so the handle stays connected (an async semaphore
 * acquire then queued again thousands of times a second on the dead
 * session). The proxy gives one create that answer while the real session
 * lives on: the client must take it as the session's end, say LOST, close
 * that session (its node goes with it) and go on with a new one. */
static void expired_answer_ends_the_session(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *c = open_with(10000, zkt_proxy_connect(&proxy));
  zkc_mutex_t *m = new_mutex(c, path);
  observed_t o;
  observe(&o, c, NULL);
  OK(zkc_mutex_acquire(m)); /* the parents exist before the rewrite */
  OK(zkc_mutex_release(m));
  zkt_new_session_t next = {c, 0};
  OK(zkc_client_session_id(c, &next.old));
  zkt_proxy_cmd(&proxy, "expire-after-create 1");
  int rc = zkc_mutex_acquire_timeout(m, zkt_ms(20000));
  char line[64];
  assert_true(zkt_expect(&proxy, "EXPIRED", line, sizeof line, zkt_ms(5000)));
  seen_t lost = {&o, ZKC_STATE_LOST};
  assert_true(zkt_await(saw_state, &lost, zkt_ms(5000)));
  assert_true(zkt_await(zkt_has_new_session, &next, zkt_ms(10000)));
  printf("figure: the acquire whose create was answered \"session expired\" "
         "returned %s\n", zkc_strerror(rc));
  if (rc == ZKC_OK) OK(zkc_mutex_release(m));
  else assert_int_equal(rc, ZKC_ELOST);
  /* the old session's node went with it; the lock works on the new one */
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_owned_by_session(c, node);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* A reply out of order: a server that lets a request go unanswered (as one
 * closing the session under it may) and answers the next. The ZooKeeper
 * client drops the connection and tells every request in flight
 * ZRUNTIMEINCONSISTENCY; their outcome is unknown, as after a connection
 * loss (an async semaphore acquire once failed with ZKC_EPROTO there). The
 * proxy drops the reply to the acquire's create: the node was made, the
 * acquire must find and adopt it, one node, no error. */
static void reply_out_of_order_is_a_connection_loss(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *c = open_with(10000, zkt_proxy_connect(&proxy));
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m)); /* the parents exist before the drop */
  OK(zkc_mutex_release(m));
  zkt_proxy_cmd(&proxy, "drop-after-create 1");
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(20000)));
  char line[64];
  assert_true(zkt_expect(&proxy, "DROPPED", line, sizeof line, zkt_ms(5000)));
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_owned_by_session(c, node);
  assert_int_equal(zkt_children_count(path), 1); /* adopted, not made twice */
  OK(zkc_mutex_release(m));
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* ---- 10 ---- */

#define RANDOM_CLIENTS 10
#define RANDOM_WAITERS 100

typedef struct {
  zkc_mutex_t *m;
  int64_t timeout_ms;
  atomic_int *inside, *overlaps, *acquired, *timedout, *closed, *other;
} random_waiter_t;

static void *random_waiter_main(void *arg) {
  random_waiter_t *w = arg;
  int rc = zkc_mutex_acquire_timeout(w->m, w->timeout_ms);
  if (rc == ZKC_OK) {
    if (atomic_fetch_add(w->inside, 1) != 0) atomic_fetch_add(w->overlaps, 1);
    usleep(1000);
    atomic_fetch_sub(w->inside, 1);
    atomic_fetch_add(w->acquired, 1);
    rc = zkc_mutex_release(w->m);
    if (rc != ZKC_OK && rc != ZKC_ECLOSED) atomic_fetch_add(w->other, 1);
  } else if (rc == ZKC_ETIMEDOUT) {
    atomic_fetch_add(w->timedout, 1);
  } else if (rc == ZKC_ECLOSED) {
    atomic_fetch_add(w->closed, 1);
  } else {
    atomic_fetch_add(w->other, 1);
  }
  return NULL;
}

static void random_waiters_leave_nothing(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *clients[RANDOM_CLIENTS];
  zkc_mutex_t *mutexes[RANDOM_WAITERS];
  for (int i = 0; i < RANDOM_CLIENTS; i++) clients[i] = zkt_open(NULL);
  zkc_mutex_t *holder = new_mutex(clients[0], path);
  OK(zkc_mutex_acquire(holder));
  atomic_int inside = 0, overlaps = 0, acquired = 0, timedout = 0, closed = 0,
             other = 0;
  random_waiter_t w[RANDOM_WAITERS];
  pthread_t t[RANDOM_WAITERS];
  unsigned seed = (unsigned)zkt_now_ns();
  printf("seed %u\n", seed);
  for (int i = 0; i < RANDOM_WAITERS; i++) {
    mutexes[i] = new_mutex(clients[1 + i % (RANDOM_CLIENTS - 1)], path);
    w[i] = (random_waiter_t){mutexes[i], rand_r(&seed) % 1500, &inside,
                             &overlaps, &acquired, &timedout, &closed, &other};
    pthread_create(&t[i], NULL, random_waiter_main, &w[i]);
  }
  usleep(300 * 1000); /* let some time out while the lock is held */
  OK(zkc_mutex_release(holder));
  usleep(100 * 1000);
  /* Cancel two clients' waiters mid-queue by closing them. */
  zkc_client_close(clients[1]);
  zkc_client_close(clients[2]);
  for (int i = 0; i < RANDOM_WAITERS; i++) pthread_join(t[i], NULL);
  printf("figure: %d acquired, %d timed out, %d cancelled by close, %d other\n",
         atomic_load(&acquired), atomic_load(&timedout), atomic_load(&closed),
         atomic_load(&other));
  assert_int_equal(atomic_load(&overlaps), 0);
  assert_int_equal(atomic_load(&other), 0);
  assert_int_equal(atomic_load(&acquired) + atomic_load(&timedout) +
                       atomic_load(&closed), RANDOM_WAITERS);
  for (int i = 0; i < RANDOM_WAITERS; i++) OK(zkc_mutex_destroy(mutexes[i]));
  OK(zkc_mutex_destroy(holder));
  for (int i = 0; i < RANDOM_CLIENTS; i++)
    if (i != 1 && i != 2) zkc_client_close(clients[i]);
  assert_true(zkt_await_closed(path, 0));
}

/* ---- paths to two holders (each failed before its fix) ---- */

/* Polls until session sid watches exactly `node` (its only watch). */
struct watching {
  int64_t sid;
  const char *node;
};
static int watches_node(void *ctx) {
  struct watching *w = ctx;
  char first[1100] = "";
  return zkt_session_watches(w->sid, first, sizeof first) == 1 &&
         strcmp(first, w->node) == 0;
}

/* Session w->sid watches w->node, maybe among others. */
static int watches_among(void *ctx) {
  struct watching *w = ctx;
  return zkt_session_watches_path(w->sid, w->node);
}

struct requeued {
  zkc_mutex_t *m;
  const char *old;
};

/* m's server lists three nodes, none of them `old`. */
static int requeued_last(void *ctx) {
  struct requeued *q = ctx;
  char **v;
  size_t n;
  if (zkt_mutex_nodes(q->m, &v, &n) != ZKC_OK) return 0;
  int ok = n == 3;
  for (size_t i = 0; ok && i < n; i++) ok = strcmp(v[i], q->old) != 0;
  zkt_strings_free(v, n);
  return ok;
}

/* H holds, A waits behind H, C behind A. An outsider deletes A's node; C
 * moves up behind H. When H releases, only C may hold: A's predecessor was
 * the head, but A's own node is gone. A, next in line, watches its own
 * node too: it learns of the delete at once and queues again behind C. */
static void outside_delete_of_waiter_grants_one(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *h = zkt_open(NULL), *a = zkt_open(NULL), *cc = zkt_open(NULL);
  zkc_mutex_t *mh = new_mutex(h, path), *ma = new_mutex(a, path),
              *mc = new_mutex(cc, path);
  OK(zkc_mutex_acquire(mh));
  char hnode[1100];
  OK(zkt_hold_node(zkc_mutex_hold(mh), hnode, sizeof hnode));
  bg_acquire_t wa, wc;
  bg_acquire(&wa, ma, zkt_ms(30000));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  bg_acquire(&wc, mc, zkt_ms(30000));
  assert_true(zkt_await_children(path, 3, zkt_ms(10000)));
  assert_true(zkt_await_participants(mh, 3, zkt_ms(10000)));

  char **nodes = NULL;
  size_t n = 0;
  OK(zkt_mutex_nodes(mh, &nodes, &n));
  assert_int_equal(n, 3);
  assert_string_equal(nodes[0], hnode);
  int64_t sid_a, sid_c;
  OK(zkc_client_session_id(a, &sid_a));
  OK(zkc_client_session_id(cc, &sid_c));
  char a_old[1100], c_node[1100];
  snprintf(a_old, sizeof a_old, "%s", nodes[1]);
  snprintf(c_node, sizeof c_node, "%s", nodes[2]);
  zkt_strings_free(nodes, n);
  struct watching a_on_h = {sid_a, hnode}, a_on_a = {sid_a, a_old},
                  c_on_h = {sid_c, hnode}, c_on_c = {sid_c, c_node};
  assert_true(zkt_await(watches_among, &a_on_h, zkt_ms(5000)));
  assert_true(zkt_await(watches_among, &a_on_a, zkt_ms(5000)));
  /* C, next but one, watches H too (learning ahead), never its own node:
   * only a sole round, the blocker next in line, watches that. */
  assert_true(zkt_await(watches_among, &c_on_h, zkt_ms(5000)));
  assert_false(watches_among(&c_on_c));
  assert_int_equal(zoo_delete(zkt_raw(), a_old, -1), ZOK); /* A's node */
  /* C re-reads the queue and, H now its sole blocker, proves its place:
   * it watches its own node. A queues again, behind C. */
  assert_true(zkt_await(watches_among, &c_on_c, zkt_ms(5000)));
  assert_true(zkt_await_children(path, 3, zkt_ms(10000)));
  /* H's server may lag: await A's old node gone and three listed there
   * (a server applies the delete before A's later create). */
  struct requeued rq = {mh, a_old};
  assert_true(zkt_await(requeued_last, &rq, zkt_ms(10000)));
  OK(zkt_mutex_nodes(mh, &nodes, &n));
  assert_int_equal(n, 3);
  assert_owned_by_session(a, nodes[2]);
  zkt_strings_free(nodes, n);

  OK(zkc_mutex_release(mh));
  OK(bg_result(&wc));
  /* A noticed its node was gone and queued again, behind C. */
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  assert_false(atomic_load(&wa.acquired));
  bg_release(&wc);
  OK(bg_result(&wa));
  bg_release(&wa);
  OK(zkc_mutex_destroy(mh));
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mc));
  zkc_client_close(h);
  zkc_client_close(a);
  zkc_client_close(cc);
}

/* Thread X holds (its own-node watch set), thread Y of the same client
 * times out behind it; removing Y's watch must not remove X's: an outside
 * delete of X's node is still reported to X. */
static void timed_out_waiter_keeps_holder_watch(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  observed_t o;
  observe(&o, c, m);
  bg_acquire_t x;
  bg_acquire(&x, m, zkt_ms(10000));
  OK(bg_result(&x));
  char **nodes = NULL;
  size_t n = 0;
  OK(zkt_mutex_nodes(m, &nodes, &n));
  assert_int_equal(n, 1);
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  struct watching guarded = {sid, nodes[0]};
  assert_true(zkt_await(watches_node, &guarded, zkt_ms(5000)));

  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(300)), ZKC_ETIMEDOUT);
  /* The server's watch is shared by the session: it is set again. */
  assert_true(zkt_await(watches_node, &guarded, zkt_ms(5000)));
  assert_int_equal(zoo_delete(zkt_raw(), nodes[0], -1), ZOK);
  zkt_strings_free(nodes, n);
  assert_true(zkt_await(was_lost, &o, zkt_ms(5000)));
  assert_int_equal(o.lost_reason, ZKC_LOST_DELETED);
  atomic_store(&x.release_now, 1);
  pthread_join(x.t, NULL);
  assert_int_equal(x.release_rc, ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* ---- the hand-off on the head's delete alone ---- */

/* Requests the waiter's client had submitted when its grant was made. */
static zkc_client_t *grant_client;
static atomic_ullong requests_at_grant;
static void count_at_grant(zkc_mutex_t *m, zkc__seam_t where) {
  (void)m;
  if (where == ZKC__SEAM_GRANTED)
    atomic_store(&requests_at_grant, zkc__requests(grant_client));
}

/* H holds the lock; W, in a thread (b), queues right behind it and has
 * set its watches on H's node and on its own. */
typedef struct {
  const char *path;
  zkc_client_t *h, *w;
  zkc_mutex_t *mh, *mw;
  int64_t sid; /* W's session */
  char mine[1100];
  uint64_t before; /* W's requests before it queued */
  bg_acquire_t b;
} next_in_line_t;

static void next_in_line_start(next_in_line_t *f, zkc_client_t *w) {
  f->path = zkt_path("lock");
  f->h = zkt_open(NULL);
  f->w = w;
  f->mh = new_mutex(f->h, f->path);
  f->mw = new_mutex(w, f->path);
  OK(zkc_mutex_acquire(f->mh));
  OK(zkc_client_session_id(w, &f->sid));
  f->before = zkc__requests(w);
  bg_acquire(&f->b, f->mw, zkt_ms(60000));
  assert_true(zkt_await_children(f->path, 2, zkt_ms(10000)));
  /* H's server may not have applied W's create yet (seen under load). */
  zkt_await_participants(f->mh, 2, zkt_ms(5000));
  char **nodes = NULL;
  size_t n = 0;
  OK(zkt_mutex_nodes(f->mh, &nodes, &n));
  assert_int_equal(n, 2);
  snprintf(f->mine, sizeof f->mine, "%s", nodes[1]);
  struct watching on_head = {f->sid, nodes[0]}, on_own = {f->sid, f->mine};
  assert_true(zkt_await(watches_among, &on_head, zkt_ms(5000)));
  assert_true(zkt_await(watches_among, &on_own, zkt_ms(5000)));
  zkt_strings_free(nodes, n);
}

/* After H's release: W holds with a node of its session other than
 * `not` (NULL: any). Then W releases and everything is closed. */
static void next_in_line_end(next_in_line_t *f, const char *not) {
  OK(bg_result(&f->b));
  /* H's server may not have applied W's latest create yet. */
  zkt_await_participants(f->mh, 1, zkt_ms(5000));
  char **nodes = NULL;
  size_t n = 0;
  int rc = zkt_mutex_nodes(f->mh, &nodes, &n);
  char held[1100] = "";
  if (rc == ZKC_OK && n == 1) snprintf(held, sizeof held, "%s", nodes[0]);
  zkt_strings_free(nodes, n);
  struct Stat st;
  int exists = held[0] && zkt_exists(held, &st);
  bg_release(&f->b); /* before any assert: the thread uses b */
  OK(rc);
  assert_int_equal(n, 1);
  assert_true(exists);
  assert_int_equal(st.ephemeralOwner, f->sid);
  if (not) assert_string_not_equal(held, not);
  OK(zkc_mutex_destroy(f->mh));
  OK(zkc_mutex_destroy(f->mw));
  zkc_client_close(f->h);
  zkc_client_close(f->w);
}

/* The next in line is granted on the head's delete without reading the
 * queue again: the watch on its own node, set before the one on the head,
 * proves by the order of the events that its node was still there. */
static void next_in_line_granted_on_delete_alone(void **state) {
  (void)state;
  next_in_line_t f;
  grant_client = zkt_open(NULL);
  atomic_store(&requests_at_grant, 0);
  zkc__mutex_seam = count_at_grant;
  uint64_t stalls = zkc__stalls_seen();
  next_in_line_start(&f, grant_client);
  OK(zkc_mutex_release(f.mh));
  OK(bg_result(&f.b));
  zkc__mutex_seam = NULL;
  uint64_t made = atomic_load(&requests_at_grant) - f.before;
  next_in_line_end(&f, NULL);
  /* The create, its queue read, the round's sync and two watches: no read
   * after the wake (but after a stall of this process, a busy machine's,
   * which voids the round's proof: stall.h). */
  if (zkc__stalls_seen() == stalls) assert_int_equal(made, 5);
  else assert_true(made >= 7);
}

/* Two threads of one client: the predecessor is of the waiter's own
 * session. Closing the session would delete both nodes in one transaction
 * and tell the two deletes in any order, so the waiter reads the queue
 * before it is granted. */
static void same_session_predecessor_reads_again(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  bg_acquire_t first, second;
  bg_acquire(&first, m, zkt_ms(30000));
  OK(bg_result(&first));
  /* The holder's own watch is set (after a short hold) before counting. */
  assert_int_equal(zkt_await_session_watches(c, 1, NULL, 0, zkt_ms(5000)), 1);
  grant_client = c;
  atomic_store(&requests_at_grant, 0);
  uint64_t before = zkc__requests(c), stalls = zkc__stalls_seen();
  zkc__mutex_seam = count_at_grant;
  bg_acquire(&second, m, zkt_ms(30000));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  char **nodes = NULL;
  size_t n = 0;
  OK(zkt_mutex_nodes(m, &nodes, &n));
  assert_int_equal(n, 2);
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  struct watching on_own = {sid, nodes[1]};
  assert_true(zkt_await(watches_among, &on_own, zkt_ms(5000)));
  zkt_strings_free(nodes, n);
  bg_release(&first);
  OK(bg_result(&second));
  zkc__mutex_seam = NULL;
  /* Create, queue read, the round's sync and two watches, the test's
   * participants read, the holder's delete and the path's watch behind it
   * (the holder had the path to itself: the quick grant's, set once), and
   * the read after the wake-up with the sync before it (a grant's read
   * passes through the leader). */
  uint64_t made = atomic_load(&requests_at_grant) - before;
  bg_release(&second);
  if (zkc__stalls_seen() == stalls) assert_int_equal(made, 10);
  else assert_true(made >= 10); /* a stall's read again (stall.h) */
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* A second thread of the waiter's client gives up behind it and removes the
 * session's watches on the waiter's node and on the head's (its blocker's
 * and the one it learned ahead by; the server keeps one per path and
 * session); an outsider then deletes the waiter's node. Whether the waiter
 * saw that delete (it set its watches again when told of the removal) or
 * not, the head's delete must not grant it: it reads the queue, finds its
 * node gone and queues again. */
static void unseen_delete_of_next_in_line_reads_again(void **state) {
  (void)state;
  next_in_line_t f;
  next_in_line_start(&f, zkt_open(NULL));
  bg_acquire_t second;
  bg_acquire(&second, f.mw, zkt_ms(300));
  assert_int_equal(bg_result(&second), ZKC_ETIMEDOUT);
  pthread_join(second.t, NULL);
  assert_int_equal(zoo_delete(zkt_raw(), f.mine, -1), ZOK);
  OK(zkc_mutex_release(f.mh));
  next_in_line_end(&f, f.mine);
}

/* The next in line is cut off; meanwhile an outsider deletes its node and
 * the head releases. On reconnection the server reports both deletes in no
 * particular order: the waiter must read the queue rather than trust that
 * order, find its node gone and queue again. */
static void deletes_while_disconnected_read_again(void **state) {
  (void)state;
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *w = open_with(10000, zkt_proxy_connect(&proxy));
  observed_t o;
  observe(&o, w, NULL);
  next_in_line_t f;
  next_in_line_start(&f, w);
  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  seen_t suspended = {&o, ZKC_STATE_SUSPENDED};
  assert_true(zkt_await(saw_state, &suspended, zkt_ms(10000)));
  assert_int_equal(zoo_delete(zkt_raw(), f.mine, -1), ZOK);
  OK(zkc_mutex_release(f.mh));
  zkt_proxy_cmd(&proxy, "refuse off");
  next_in_line_end(&f, f.mine);
  zkt_proxy_stop(&proxy);
}

/* The first queue read is cut off; the session is then presumed lost and
 * replaced while a zombie keeps it alive on the server, so the old node is
 * still first. The acquire must not be granted on it: it queues again on
 * the new session. */
static void grant_only_on_current_session(void **state) {
  (void)state;
  const int session_ms = zkt_zombie_session_ms();
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  const char *connect = zkt_proxy_connect(&proxy);
  zkc_client_t *c = open_with(session_ms, connect);
  zkc_mutex_t *m = new_mutex(c, path);
  observed_t o;
  observe(&o, c, m);
  OK(zkc_mutex_acquire(m)); /* parents made before the cut */
  /* Not waited for: the next acquire reads the queue (a waited release of
   * a hold alone would let it grant on its create alone, no read to cut). */
  OK(zkc_mutex_release_nowait(m));
  clientid_t old = zkt_session_credentials(c);

  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut-after-list 1");
  bg_acquire_t b;
  bg_acquire(&b, m, zkt_ms(60000));
  seen_t suspended = {&o, ZKC_STATE_SUSPENDED}, lost = {&o, ZKC_STATE_LOST};
  assert_true(zkt_await(saw_state, &suspended, zkt_ms(10000)));
  zhandle_t *zombie = zkt_attach_session(&old);
  assert_true(zkt_await(saw_state, &lost, zkt_ms(3 * session_ms)));
  assert_int_equal(zkt_children_count(path), 1); /* the zombie keeps it */
  zkt_proxy_cmd(&proxy, "refuse off");

  OK(bg_result(&b));
  char **nodes = NULL;
  size_t n = 0;
  OK(zkt_mutex_nodes(m, &nodes, &n));
  assert_int_equal(n, 1); /* the old node deleted */
  assert_owned_by_session(c, nodes[0]);
  zkt_strings_free(nodes, n);
  bg_release(&b);
  zookeeper_close(zombie);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* Between the grant and the record of the hold the session is lost (the
 * state is dispatched while the acquiring thread is in the seam): the hold
 * must not start as "held", it queues again on the new session. */
static observed_t *granted_o;
static zkc_client_t *granted_c;
static void expire_in_grant(zkc_mutex_t *m, zkc__seam_t where) {
  (void)m;
  if (where != ZKC__SEAM_GRANTED) return;
  zkc__mutex_seam = NULL; /* once */
  zkt_expire_session(granted_c);
  seen_t lost = {granted_o, ZKC_STATE_LOST};
  if (!zkt_await(saw_state, &lost, zkt_ms(10000)))
    fail_msg("LOST never dispatched");
}

static void state_change_during_grant_is_seen(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = open_with(4000, NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  observed_t o;
  observe(&o, c, m);
  granted_o = &o, granted_c = c;
  zkc__mutex_seam = expire_in_grant;
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(30000)));
  assert_null(zkc__mutex_seam); /* the seam ran */
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_owned_by_session(c, node);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_int_equal(o.lost_reason, 0); /* no hold was lost: none was given */
  OK(zkc_mutex_release(m));
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* The read-write downgrade grants its read hold on the write node's read:
 * an answer that predates a stop past the session proves nothing. W holds
 * the write side (through the fault proxy, 4 s session) and takes the read
 * side; C waits for the write side. At the seam the write node's read is
 * answered and not yet judged: there W's connection goes silent (the
 * proxy stalls), its session is ended from outside, C is granted, and
 * W's thread stays away past half its session, as a stopped process
 * would. Its client still believes the session connected. W must not
 * be granted the read side beside C's write hold. */
static struct {
  zkt_proc_t *proxy;
  zkc_client_t *w;
  bg_acquire_t *c;
  int ran;
} stale_dg;

static int half_session_passed(void *ctx) {
  return zkt_now_ms() >= *(int64_t *)ctx;
}

static void stale_downgrade_read(void) {
  if (stale_dg.ran) return;
  stale_dg.ran = 1;
  int64_t resume = zkt_now_ms() + 2100; /* past half of W's 4 s */
  zkt_proxy_cmd(stale_dg.proxy, "stall");
  zkt_expire_session(stale_dg.w);
  if (bg_result(stale_dg.c) != ZKC_OK) fail_msg("C was not granted");
  zkt_await(half_session_passed, &resume, zkt_ms(10000));
}

static void downgrade_on_stale_answer_reads_again(void **state) {
  (void)state;
  const char *path = zkt_path("rw");
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_t *w = open_with(4000, zkt_proxy_connect(&proxy));
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *wrw = NULL, *crw = NULL;
  OK(zkc_rwlock_create(&wrw, w, path));
  OK(zkc_rwlock_create(&crw, c, path));
  OK(zkc_mutex_acquire_timeout(zkc_rwlock_write_side(wrw), zkt_ms(10000)));
  bg_acquire_t cw;
  bg_acquire(&cw, zkc_rwlock_write_side(crw), zkt_ms(60000));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  stale_dg.proxy = &proxy, stale_dg.w = w, stale_dg.c = &cw, stale_dg.ran = 0;
  zkc__vouch_seam = stale_downgrade_read;
  int rc = zkc_mutex_acquire_timeout(zkc_rwlock_read_side(wrw), zkt_ms(3000));
  zkc__vouch_seam = NULL;
  int reading = zkc_mutex_is_owned_by_current_thread(zkc_rwlock_read_side(wrw));
  printf("W's downgrade after the stale answer: %s\n", zkc_strerror(rc));
  zkt_proxy_cmd(&proxy, "unstall");
  bg_release(&cw); /* C's node goes whatever the verdict */
  assert_true(stale_dg.ran);
  if (rc == ZKC_OK || reading)
    fail_msg("W was granted the read side beside C's write hold");
  /* W's write hold went with its session: known lost by now, or still in
   * doubt as its client learns of the end; never a clean release. */
  int rel = zkc_mutex_release(zkc_rwlock_write_side(wrw));
  printf("W's release of the write side: %s\n", zkc_err_name(rel));
  assert_true(rel == ZKC_ELOST || rel == ZKC_ECONNLOSS);
  zkc_rwlock_destroy(wrw);
  zkc_rwlock_destroy(crw);
  zkc_client_close(w);
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
}

/* The downgrade's read node deleted by an outsider before the read its
 * grant rests on. At the seam (the write node's first read answered) the
 * read node is deleted, and the thread stays away past half the session,
 * so that the answer is stale and the nodes are read again: that read,
 * after the delete, is what a grant would rest on. The write node alone
 * proves nothing for a read node that is gone: had the downgrade been
 * granted, C's writer would be granted beside this "reader" once the write
 * side went. ZKC_ELOST, and the write hold stands. */
static struct {
  const char *path;
  int ran, deleted;
} gone_rd;

static void delete_read_node_then_stall(void) {
  if (gone_rd.ran) return;
  gone_rd.ran = 1;
  struct String_vector kids = {0};
  zkt_sync_handle(zkt_raw(), gone_rd.path); /* sees W's read node */
  if (zoo_get_children(zkt_raw(), gone_rd.path, 0, &kids) == ZOK) {
    for (int i = 0; i < kids.count; i++)
      if (strstr(kids.data[i], "__READ__")) {
        char full[1200];
        snprintf(full, sizeof full, "%s/%s", gone_rd.path, kids.data[i]);
        if (zoo_delete(zkt_raw(), full, -1) == ZOK) gone_rd.deleted = 1;
      }
    deallocate_String_vector(&kids);
  }
  /* A stall the case makes (past half of W's 4 s session): the answer
   * goes stale, and the nodes are read again after the delete. */
  usleep(2100 * 1000);
}

static void downgrade_read_node_deleted_before_proof(void **state) {
  (void)state;
  char path[400];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *w = open_with(4000, NULL);
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *wrw = NULL, *crw = NULL;
  OK(zkc_rwlock_create(&wrw, w, path));
  OK(zkc_rwlock_create(&crw, c, path));
  zkc_mutex_t *ww = zkc_rwlock_write_side(wrw), *wr = zkc_rwlock_read_side(wrw);
  OK(zkc_mutex_acquire_timeout(ww, zkt_ms(10000)));
  bg_acquire_t cw;
  bg_acquire(&cw, zkc_rwlock_write_side(crw), zkt_ms(60000));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  gone_rd.path = path, gone_rd.ran = 0, gone_rd.deleted = 0;
  zkc__vouch_seam = delete_read_node_then_stall;
  int rc = zkc_mutex_acquire_timeout(wr, zkt_ms(10000));
  zkc__vouch_seam = NULL;
  assert_true(gone_rd.ran && gone_rd.deleted);
  if (rc == ZKC_OK) (void)zkc_mutex_release(wr);
  assert_int_equal(rc, ZKC_ELOST);
  assert_false(zkc_mutex_is_owned_by_current_thread(wr));
  assert_true(zkc_hold_is_held(zkc_mutex_hold(ww))); /* the write hold stands */
  OK(zkc_mutex_release(ww));
  OK(bg_result(&cw)); /* C's writer, once W's write node went */
  bg_release(&cw);
  OK(zkc_rwlock_destroy(wrw));
  OK(zkc_rwlock_destroy(crw));
  zkc_client_close(w);
  zkc_client_close(c);
}

/* The write hold reported lost while its downgrade is vouched for: W
 * (lost_on_suspended) loses its connection at the seam, after the write
 * node's read was answered; the write hold is told lost (its node handed
 * to the janitor, its token told), the same session comes back, and the
 * answer is still fresh. A read hold granted on it would rest on a hold
 * already reported lost, with its token: ZKC_ELOST instead, and no read
 * node left. */
static struct {
  zkt_proc_t *proxy;
  observed_t o; /* W's states and its write side's loss */
  int ran;
} cut_dg;

static void cut_during_downgrade(void) {
  if (cut_dg.ran) return;
  cut_dg.ran = 1;
  zkt_proxy_cmd(cut_dg.proxy, "cut");
  if (!zkt_await(was_lost, &cut_dg.o, zkt_ms(10000)))
    fail_msg("the write hold was not told lost");
  seen_t back = {&cut_dg.o, ZKC_STATE_RECONNECTED};
  if (!zkt_await(saw_state, &back, zkt_ms(10000)))
    fail_msg("W did not reconnect");
}

static void downgrade_of_write_hold_lost_meanwhile_is_refused(void **state) {
  (void)state;
  char path[400];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_opts_t opts;
  zkc_client_opts_init(&opts);
  opts.session_timeout_ms = 10000;
  opts.lost_on_suspended = 1;
  zkc_client_t *w = NULL;
  OK(zkc_client_open(&w, zkt_proxy_connect(&proxy), &opts));
  zkc_rwlock_t *wrw = NULL;
  OK(zkc_rwlock_create(&wrw, w, path));
  zkc_mutex_t *ww = zkc_rwlock_write_side(wrw), *wr = zkc_rwlock_read_side(wrw);
  observe(&cut_dg.o, w, ww);
  OK(zkc_mutex_acquire_timeout(ww, zkt_ms(10000)));
  cut_dg.proxy = &proxy, cut_dg.ran = 0;
  zkc__vouch_seam = cut_during_downgrade;
  int rc = zkc_mutex_acquire_timeout(wr, zkt_ms(10000));
  zkc__vouch_seam = NULL;
  assert_true(cut_dg.ran);
  int reading = zkc_mutex_is_owned_by_current_thread(wr);
  if (rc == ZKC_OK) (void)zkc_mutex_release(wr);
  assert_int_equal(rc, ZKC_ELOST);
  assert_false(reading);
  assert_int_equal(zkc_mutex_release(ww), ZKC_ELOST);
  /* Nothing of W's is left: the read node given up, the write node
   * deleted by the janitor. */
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  OK(zkc_rwlock_destroy(wrw));
  zkc_client_close(w);
  zkt_proxy_stop(&proxy);
}

/* A lost hold is released while another call destroys the mutex: destroy
 * must wait for the release to finish with the client (it drops the
 * client's last reference, which frees it once closed). */
static int destroy_rc = 1;
static void destroy_while_releasing(zkc_mutex_t *m, zkc__seam_t where) {
  if (where != ZKC__SEAM_RELEASING) return;
  zkc__mutex_seam = NULL;
  destroy_rc = zkc_mutex_destroy(m);
}

static void release_of_lost_hold_races_destroy(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  observed_t o;
  observe(&o, c, m);
  OK(zkc_mutex_acquire(m));
  zkt_expire_session(c);
  assert_true(zkt_await(was_lost, &o, zkt_ms(10000)));
  zkc__mutex_seam = destroy_while_releasing;
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  assert_null(zkc__mutex_seam); /* the seam ran */
  assert_int_equal(destroy_rc, ZKC_EBUSY); /* the release was still in it */
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* ---- the multi-lock's read of the locks it took first ---- */

/* The mutexes of the case's set, in the set's order, for its seams. */
static zkc_mutex_t *seam_set[2];

/* A multi-lock over zkt_path("a") and zkt_path("b"), its mutexes made on c
 * into m (and seam_set). */
static zkc_multilock_t *set_of_two(zkc_client_t *c, zkc_mutex_t *m[2]) {
  char a[1100], b[1100];
  snprintf(a, sizeof a, "%s", zkt_path("a"));
  snprintf(b, sizeof b, "%s", zkt_path("b"));
  m[0] = seam_set[0] = new_mutex(c, a);
  m[1] = seam_set[1] = new_mutex(c, b);
  zkc_multilock_t *ml = NULL;
  OK(zkc_multilock_create(&ml, m, 2));
  return ml;
}

/* Releases the set (when held) and destroys it and its mutexes. */
static void set_of_two_end(zkc_multilock_t *ml, zkc_mutex_t *m[2], int held) {
  if (held) OK(zkc_multilock_release(ml));
  OK(zkc_multilock_destroy(ml));
  OK(zkc_mutex_destroy(m[0]));
  OK(zkc_mutex_destroy(m[1]));
}

/* The set's first lock's node is deleted by an outsider the moment the
 * second is granted (once); the deleted node's path. The outsider is a
 * session on the leader, which answers it only once it has applied the
 * delete: answered by a follower, the delete could still be unapplied on
 * the leader when the set's check reads there (docs/failures.md, "What an
 * outsider can still do"), which is not what this case is about. */
static char deleted_node[1100];
static zhandle_t *seam_outsider;
static void delete_first_at_second_grant(zkc_mutex_t *m, zkc__seam_t where) {
  if (where != ZKC__SEAM_GRANTED || m == seam_set[0]) return;
  zkc__mutex_seam = NULL;
  if (zkt_hold_node(zkc_mutex_hold(seam_set[0]), deleted_node, sizeof deleted_node) ==
      ZKC_OK)
    (void)zoo_delete(seam_outsider, deleted_node, -1);
}

/* The first lock of a set is deleted by an outsider after its grant,
 * before the set is reported held: the set notices it (its holder may not
 * have been told yet), gives both back and takes both again. Reported
 * held, both of its nodes exist and the deleted one is not among them. */
static void multilock_first_lock_deleted_before_the_set_is_held(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m[2];
  zkc_multilock_t *ml = set_of_two(c, m);
  deleted_node[0] = '\0';
  seam_outsider = zkt_raw_on_leader();
  zkc__mutex_seam = delete_first_at_second_grant;
  OK(zkc_multilock_acquire_timeout(ml, zkt_ms(10000)));
  zookeeper_close(seam_outsider);
  assert_null(zkc__mutex_seam); /* the seam ran */
  assert_true(deleted_node[0] != '\0');
  char node[1100];
  for (int i = 0; i < 2; i++) {
    OK(zkt_hold_node(zkc_mutex_hold(m[i]), node, sizeof node));
    assert_true(zkt_exists(node, NULL));
    assert_string_not_equal(node, deleted_node);
  }
  set_of_two_end(ml, m, 1);
  zkc_client_close(c);
}

/* The acquiring thread stalls once the set's nodes were read again,
 * before the answers are judged, for more than half a session timeout;
 * with `expire`, the session is closed first (its nodes deleted, as an
 * expiry past a stop would). Answers that old prove nothing: the set reads
 * its nodes again. */
static zkc_client_t *stalled_client;
static char stalled_nodes[2][1100];
static int stall_expires;
static atomic_int judged_rounds; /* rounds whose answers came to be judged */
static void stall_past_half_session(void) {
  if (atomic_fetch_add(&judged_rounds, 1) > 0) return; /* the first only */
  for (int i = 0; i < 2; i++)
    if (zkt_hold_node(zkc_mutex_hold(seam_set[i]), stalled_nodes[i],
                            sizeof stalled_nodes[i]) != ZKC_OK)
      stalled_nodes[i][0] = '\0';
  int timeout_ms = 0;
  (void)zkc_client_session_timeout(stalled_client, &timeout_ms);
  if (stall_expires) zkt_expire_session(stalled_client);
  usleep((useconds_t)(timeout_ms / 2 + 200) * 1000); /* the stall itself */
}

/* Takes a set of two through a client with a 4 s session while the first
 * read of its nodes stalls; the set's nodes after. */
static void take_set_through_stall(int expire, char nodes[2][1100]) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 4000;
  zkc_client_t *c = zkt_open(&o);
  zkc_mutex_t *m[2];
  zkc_multilock_t *ml = set_of_two(c, m);
  stalled_client = c;
  stall_expires = expire;
  atomic_store(&judged_rounds, 0);
  zkc__multilock_seam = stall_past_half_session;
  int rc = zkc_multilock_acquire_timeout(ml, zkt_ms(20000));
  zkc__multilock_seam = NULL;
  OK(rc);
  /* The stalled round was not taken for proof: another was judged. */
  assert_true(atomic_load(&judged_rounds) >= 2);
  for (int i = 0; i < 2; i++) {
    assert_true(stalled_nodes[i][0] != '\0');
    OK(zkt_hold_node(zkc_mutex_hold(m[i]), nodes[i], 1100));
    assert_true(zkt_exists(nodes[i], NULL));
  }
  set_of_two_end(ml, m, 1);
  zkc_client_close(c);
}

/* A false alarm (a slow machine): the session lived through the stall, so
 * the second read finds the same nodes, and the set is held on them. */
static void multilock_stalled_after_its_read_reads_again(void **state) {
  (void)state;
  char nodes[2][1100];
  take_set_through_stall(0, nodes);
  for (int i = 0; i < 2; i++) assert_string_equal(nodes[i], stalled_nodes[i]);
}

/* A real one: the session ended during the stall, its nodes with it; the
 * second read finds them gone, and the set is taken again on the client's
 * new session. */
static void multilock_stalled_after_its_read_takes_the_set_again(
    void **state) {
  (void)state;
  char nodes[2][1100];
  take_set_through_stall(1, nodes);
  for (int i = 0; i < 2; i++) {
    assert_false(zkt_exists(stalled_nodes[i], NULL)); /* the stall's loss */
    assert_string_not_equal(nodes[i], stalled_nodes[i]);
  }
}

/* The first lock of the set is deleted by an outsider once the set's
 * nodes were read, and its holder learns of it before the answers are
 * judged: that round proves nothing, and the next stops at the lost hold,
 * before it pins the second lock. The set is taken again; the second lock
 * is left pinned by no call (a waiter inside it keeps destroy refused). */
static int first_hold_gone(void *ctx) {
  return !zkc_hold_is_held(zkc_mutex_hold((zkc_mutex_t *)ctx));
}
static void lose_first_after_read(void) {
  zkc__multilock_seam = NULL;
  char node[1100];
  if (zkt_hold_node(zkc_mutex_hold(seam_set[0]), node, sizeof node) == ZKC_OK &&
      zoo_delete(zkt_raw(), node, -1) == ZOK)
    (void)zkt_await(first_hold_gone, seam_set[0], zkt_ms(10000));
}

static void multilock_lock_lost_between_rounds_leaves_no_pin(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL), *other = zkt_open(NULL);
  zkc_mutex_t *m[2];
  zkc_multilock_t *ml = set_of_two(c, m);
  const char *b = zkc_mutex_path(m[1]);
  zkc__multilock_seam = lose_first_after_read;
  int rc = zkc_multilock_acquire_timeout(ml, zkt_ms(20000));
  int ran = zkc__multilock_seam == NULL;
  zkc__multilock_seam = NULL;
  OK(rc);
  assert_true(ran);
  /* Held means held: the round that read the first node before its
   * delete was not taken for proof (its hold was lost when it was judged). */
  char node[1100];
  for (int i = 0; i < 2; i++) {
    assert_true(zkc_hold_is_held(zkc_mutex_hold(m[i])));
    OK(zkt_hold_node(zkc_mutex_hold(m[i]), node, sizeof node));
    assert_true(zkt_exists(node, NULL));
  }
  OK(zkc_multilock_release(ml));
  /* b held elsewhere; a thread waits for it through m[1]: m[1] is in use. */
  zkc_mutex_t *ob = new_mutex(other, b);
  OK(zkc_mutex_acquire(ob));
  bg_acquire_t w;
  bg_acquire(&w, m[1], zkt_ms(3000));
  assert_true(zkt_await_children(b, 2, zkt_ms(10000)));
  assert_int_equal(zkc_mutex_destroy(m[1]), ZKC_EBUSY);
  assert_int_equal(bg_result(&w), ZKC_ETIMEDOUT);
  pthread_join(w.t, NULL);
  OK(zkc_mutex_release(ob));
  OK(zkc_mutex_destroy(ob));
  set_of_two_end(ml, m, 0);
  zkc_client_close(other);
  zkc_client_close(c);
}

/* A stranger's lease (made outside the queue) lands between the read that
 * made a waiter head, which showed room, and its lease round: the waiter
 * lets its queue node go with its lease's create, but its own leases read
 * shows them full, so it is not granted; with no place to wait in, it
 * queues again, waits as head, and times out leaving nothing of its own. */
static char stranger_lease[1400];
static void stranger_lease_at_head(const char *leases) {
  zkc__sem_seam = NULL; /* once */
  zkt_raw_child(leases, "_c_stranger-lease-", stranger_lease,
                sizeof stranger_lease);
}

typedef struct {
  zkc_sem_t *s;
  int rc;
} sem_try_t;

static void *sem_try_main(void *arg) {
  sem_try_t *t = arg;
  zkc_lease_t *l = NULL;
  t->rc = zkc_sem_acquire(t->s, 1, zkt_ms(1500), &l);
  if (l) (void)zkc_lease_free(l);
  return NULL;
}

/* One lease acquired on a thread of its own, for a case that must act
 * while the acquire waits. */
typedef struct {
  zkc_sem_t *s;
  zkc_lease_t *l;
  int rc;
} lease_try_t;

static void *lease_try_main(void *arg) {
  lease_try_t *t = arg;
  t->rc = zkc_sem_acquire(t->s, 1, zkt_ms(10000), &t->l);
  return NULL;
}

/* Between the lease run's grant (its proof fresh, the seam) and the
 * record of the lease the session is lost (LOST dispatched while the
 * acquiring thread is in the seam): the record must refuse the lease, the
 * run delete its nodes and queue again on the new session; no lease of the
 * old session is handed out, none is told lost. */
static struct {
  zkc_client_t *c;
  observed_t *o;
  const char *leases;
  atomic_int ran;
} sem_lost_at_grant;

static void expire_at_lease_grant(void) {
  /* The queue's head is decided first: only the lease run's grant counts,
   * the one with our lease node made. */
  if (zkt_children_count(sem_lost_at_grant.leases) != 1) return;
  zkc__grant_seam = NULL; /* once */
  atomic_store(&sem_lost_at_grant.ran, 1);
  zkt_expire_session(sem_lost_at_grant.c);
  seen_t lost = {sem_lost_at_grant.o, ZKC_STATE_LOST};
  if (!zkt_await(saw_state, &lost, zkt_ms(10000)))
    fail_msg("LOST never dispatched");
}

static atomic_int sem_told_lost;
static void count_sem_lost(void *ctx, zkc_sem_t *s, zkc_lost_reason_t why,
                           int64_t token) {
  (void)ctx, (void)s, (void)why, (void)token;
  atomic_fetch_add(&sem_told_lost, 1);
}

static void sem_session_lost_at_grant_queues_again(void **state) {
  (void)state;
  char path[1100], locks[1200], leases[1200];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(locks, sizeof locks, "%s/locks", path);
  snprintf(leases, sizeof leases, "%s/leases", path);
  zkc_client_t *c = open_with(4000, NULL);
  observed_t o;
  observe(&o, c, NULL);
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.max_leases = 1;
  zkc_sem_t *s = NULL;
  OK(zkc_sem_create(&s, c, path, &so));
  atomic_store(&sem_told_lost, 0);
  OK(zkc_sem_set_lost_callback(s, count_sem_lost, NULL));
  sem_lost_at_grant.c = c;
  sem_lost_at_grant.o = &o;
  sem_lost_at_grant.leases = leases;
  atomic_store(&sem_lost_at_grant.ran, 0);
  zkc__grant_seam = expire_at_lease_grant;
  zkc_lease_t *l = NULL;
  int rc = zkc_sem_acquire(s, 1, zkt_ms(30000), &l);
  zkc__grant_seam = NULL;
  OK(rc);
  assert_true(atomic_load(&sem_lost_at_grant.ran)); /* the seam ran */
  assert_true(zkc_hold_is_held(zkc_lease_hold(l)));
  zkc_list_t *nodes = NULL;
  OK(zkc_hold_node_list(zkc_lease_hold(l), &nodes));
  assert_int_equal(zkc_list_count(nodes), 1);
  assert_owned_by_session(c, zkc_list_string(nodes, 0));
  zkc_list_free(nodes);
  assert_int_equal(zkt_children_count(leases), 1); /* the old one went */
  /* the queue node's delete is sent behind the grant, not waited for */
  assert_true(zkt_await_children_exactly(locks, 0, zkt_ms(10000)));
  assert_int_equal(atomic_load(&sem_told_lost), 0); /* none was given */
  OK(zkc_lease_free(l));
  assert_int_equal(zkt_children_count(leases), 0);
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

static void stranger_lease_after_room_seen_is_no_grant(void **state) {
  (void)state;
  char path[1100], locks[1200], leases[1200], blocker[1400];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(locks, sizeof locks, "%s/locks", path);
  snprintf(leases, sizeof leases, "%s/leases", path);
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = 1;
  sem_try_t t = {NULL, -1};
  OK(zkc_sem_create(&t.s, c, path, &o));
  /* Made once: its layout known, its leases/ there. */
  zkc_lease_t *l;
  OK(zkc_sem_acquire(t.s, 1, zkt_ms(5000), &l));
  OK(zkc_lease_free(l));
  /* A queue node ahead of ours, so that the waiter reads leases/ when it
   * is woken (the read behind a create reads none). */
  zkt_raw_child(locks, "_c_blocker-lock-", blocker, sizeof blocker);
  stranger_lease[0] = '\0';
  zkc__sem_seam = stranger_lease_at_head;
  zkt_run_behind(c, locks, blocker, sem_try_main, &t);
  assert_null(zkc__sem_seam); /* the seam ran */
  assert_true(stranger_lease[0] != '\0');
  assert_int_equal(t.rc, ZKC_ETIMEDOUT);
  assert_int_equal(zkt_children_count(locks), 0);
  assert_int_equal(zkt_children_count(leases), 1); /* the stranger's */
  assert_int_equal(zoo_delete(zkt_raw(), stranger_lease, -1), ZOK);
  OK(zkc_sem_acquire(t.s, 1, zkt_ms(5000), &l)); /* room again */
  OK(zkc_lease_free(l));
  OK(zkc_sem_destroy(t.s));
  zkc_client_close(c);
}

/* What the seam below does once, at the head's first attempt, before its
 * lease round: delete its queue node, or leases/ (empty then). It counts
 * the attempts that reach a lease round. */
static atomic_int seam_attempts;
static int seam_drops_leases; /* 1: leases/; 0: the queue node */
static void drop_at_head(const char *leases) {
  if (atomic_fetch_add(&seam_attempts, 1) > 0) return;
  char locks[1200];
  snprintf(locks, sizeof locks, "%.*s/locks",
           (int)(strlen(leases) - strlen("/leases")), leases);
  if (seam_drops_leases) {
    assert_int_equal(zoo_delete(zkt_raw(), leases, -1), ZOK);
    return;
  }
  struct String_vector kids;
  assert_int_equal(zoo_get_children(zkt_raw(), locks, 0, &kids), ZOK);
  assert_int_equal(kids.count, 1); /* ours alone: the blocker is gone */
  char node[1400];
  snprintf(node, sizeof node, "%s/%s", locks, kids.data[0]);
  deallocate_String_vector(&kids);
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
}

/* A head woken behind an outsider's queue node (so that its read showed
 * room, and its lease's create is to delete its queue node in the same
 * transaction) meets `drop_leases ? leases/ gone : its queue node gone`
 * first; granted all the same, its queue node gone after. Returns the
 * lease's fencing token. */
static int64_t head_meets_a_drop(int drop_leases, const char *path) {
  char locks[1200], blocker[1400];
  snprintf(locks, sizeof locks, "%s/locks", path);
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = 2;
  lease_try_t t = {NULL, NULL, -1};
  OK(zkc_sem_create(&t.s, c, path, &o));
  zkc_lease_t *l;
  OK(zkc_sem_acquire(t.s, 1, zkt_ms(5000), &l)); /* path made */
  OK(zkc_lease_free(l));
  /* Its queue node's delete was not waited for. */
  assert_true(zkt_await_children_exactly(locks, 0, zkt_ms(5000)));
  zkt_raw_child(locks, "_c_blocker-lock-", blocker, sizeof blocker);
  atomic_store(&seam_attempts, 0);
  seam_drops_leases = drop_leases;
  zkc__sem_seam = drop_at_head;
  zkt_run_behind(c, locks, blocker, lease_try_main, &t);
  zkc__sem_seam = NULL;
  assert_int_equal(t.rc, ZKC_OK);
  int64_t token = 0;
  OK(zkc_hold_fencing_token(zkc_lease_hold(t.l), &token));
  assert_true(zkt_await_children_exactly(locks, 0, zkt_ms(5000)));
  OK(zkc_lease_free(t.l));
  OK(zkc_sem_destroy(t.s));
  zkc_client_close(c);
  return token;
}

/* head_meets_a_drop on a path of its own: granted, with `attempts` lease
 * rounds begun, and nothing of ours left in leases/ once freed. */
static void drop_case(int drop_leases, int attempts) {
  char path[1100], leases[1200];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(leases, sizeof leases, "%s/leases", path);
  assert_true(head_meets_a_drop(drop_leases, path) > 0);
  assert_int_equal(atomic_load(&seam_attempts), attempts);
  assert_int_equal(zkt_children_count(leases), 0);
}

/* Its queue node gone when the create was to delete it: the transaction
 * applies nothing (no lease of ours is left over), and the head queues
 * again: a second attempt reaches a lease round. */
static void sem_queue_node_gone_at_its_let_go(void **state) {
  (void)state;
  drop_case(0, 2);
}

/* leases/ gone when the create was to delete the queue node: nothing
 * applied, so the queue node is still ours; leases/ is made again in the
 * same attempt, the lease granted, and the queue node deleted after. */
static void sem_leases_gone_at_its_let_go(void **state) {
  (void)state;
  drop_case(1, 1);
}

/* A lock path whose ACL lets anyone create children but not delete them. */
static const char *no_delete_parent(void) {
  zkt_make_root();
  const char *path = zkt_path("lock");
  assert_int_equal(zoo_create(zkt_raw(), path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0),
                   ZOK);
  zkt_deny_delete(path, 1);
  return path;
}

/* A parent whose ACL lets anyone create children but not delete them: a
 * release (and a timed-out acquire) whose delete is refused must say so,
 * and the refused hold stays held until the session ends. A timed-out
 * acquire waits for its own node's delete only while the connection
 * answers; on a machine so loaded that the answer comes later, the
 * background delete meets the refusal and logs it at ERROR with the node,
 * and the call says ZKC_ETIMEDOUT. Either way the refusal is told. */
static void refused_delete_is_reported(void **state) {
  (void)state;
  const char *path = no_delete_parent();
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = zkt_log_keep;
  o.log_ctx = (void *)(intptr_t)ZKC_LOG_ERROR;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(&o);
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  OK(zkc_mutex_acquire(ma));
  int rc = zkc_mutex_acquire_timeout(mb, zkt_ms(300));
  if (rc == ZKC_ETIMEDOUT) {
    char held[1100], expected[1300];
    OK(zkt_hold_node(zkc_mutex_hold(ma), held, sizeof held));
    struct String_vector kids;
    zkt_sync_handle(zkt_raw(), path);
    assert_int_equal(zoo_get_children(zkt_raw(), path, 0, &kids), ZOK);
    assert_int_equal(kids.count, 2);
    int k = strcmp(held + strlen(path) + 1, kids.data[0]) == 0;
    snprintf(expected, sizeof expected, "delete of %s/%s failed: %s", path,
             kids.data[k], zkc_strerror(ZKC_ENOAUTH));
    deallocate_String_vector(&kids);
    assert_true(zkt_await(zkt_log_has, expected, zkt_ms(10000)));
  } else {
    assert_int_equal(rc, ZKC_ENOAUTH);
  }
  assert_int_equal(zkt_children_count(path), 2); /* b's stays: it said so */
  assert_int_equal(zkc_mutex_release(ma), ZKC_ENOAUTH);
  assert_true(zkc_mutex_is_owned_by_current_thread(ma)); /* still held */
  assert_true(zkc_hold_is_held(zkc_mutex_hold(ma)));
  assert_int_equal(zkc_mutex_destroy(ma), ZKC_EBUSY);
  assert_int_equal(zkt_children_count(path), 2);
  /* Ending the sessions is the cure. */
  zkc_client_close(a);
  zkc_client_close(b);
  assert_int_equal(zkc_mutex_release(ma), ZKC_ECLOSED);
  assert_true(zkt_await_closed(path, 0));
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
}

/* The same refusal met by a release that does not wait: nobody to return
 * it to, so it is logged at ERROR with the node's path; the hold is gone
 * locally, and the node stays until the session ends. */
static void refused_nowait_delete_is_logged(void **state) {
  (void)state;
  const char *path = no_delete_parent();
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = zkt_log_keep;
  o.log_ctx = (void *)(intptr_t)ZKC_LOG_ERROR;
  zkc_client_t *a = zkt_open(&o);
  zkc_mutex_t *m = new_mutex(a, path);
  OK(zkc_mutex_acquire(m));
  char node[1100], expected[1200];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  snprintf(expected, sizeof expected, "delete of %s refused", node);
  OK(zkc_mutex_release_nowait(m));
  assert_false(zkc_mutex_is_owned_by_current_thread(m));
  assert_true(zkt_await(zkt_log_has, expected, zkt_ms(10000)));
  assert_true(zkt_exists(node, NULL));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(a);
  assert_true(zkt_await_closed(node, -1));
}

/* The zombie handle's session is open: connected (a loaded machine may
 * catch it between a dropped connection and the next, same session). */
static int zombie_connected(void *ctx) {
  return zoo_state((zhandle_t *)ctx) == ZOO_CONNECTED_STATE;
}

/* lost_on_suspended: the hold is given up when the connection drops. Its
 * node must be deleted by the next session even while the old one still
 * lives on the server (a zombie keeps it alive), so that a waiter gets the
 * lock without waiting for the old session to expire. */
static void suspended_loss_node_deleted_by_new_session(void **state) {
  (void)state;
  const int session_ms = zkt_zombie_session_ms();
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t proxy = zkt_proxy_start(1);
  const char *connect = zkt_proxy_connect(&proxy);
  zkc_client_opts_t opts;
  zkc_client_opts_init(&opts);
  opts.session_timeout_ms = session_ms;
  opts.lost_on_suspended = 1;
  zkc_client_t *a = NULL, *b = zkt_open(NULL);
  OK(zkc_client_open(&a, connect, &opts));
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  observed_t o;
  observe(&o, a, ma);
  OK(zkc_mutex_acquire(ma));
  clientid_t old = zkt_session_credentials(a);
  bg_acquire_t w;
  bg_acquire(&w, mb, zkt_ms(60000));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));

  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  assert_true(zkt_await(was_lost, &o, zkt_ms(10000)));
  assert_int_equal(o.lost_reason, ZKC_LOST_SUSPENDED);
  zhandle_t *zombie = zkt_attach_session(&old);
  seen_t lost = {&o, ZKC_STATE_LOST};
  assert_true(zkt_await(saw_state, &lost, zkt_ms(3 * session_ms)));
  assert_int_equal(zkt_children_count(path), 2); /* the zombie keeps it */
  zkt_proxy_cmd(&proxy, "refuse off");
  /* The zombie is still open: only a's new session can have freed it. */
  OK(bg_result(&w));
  assert_true(zkt_await(zombie_connected, zombie, zkt_ms(10000)));
  bg_release(&w);
  zookeeper_close(zombie);
  assert_int_equal(zkc_mutex_release(ma), ZKC_ELOST);
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
  zkt_proxy_stop(&proxy);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(holder_sigkill_next_waiter_acquires),
      cmocka_unit_test(holder_session_expired_lost_and_recovers),
      cmocka_unit_test(waiter_session_expired_requeues),
      cmocka_unit_test(holder_paused_beyond_timeout_is_fenced_off),
      cmocka_unit_test(fenced_set_on_expired_session_is_lost),
      cmocka_unit_test(fenced_set_on_deleted_node_is_told),
      cmocka_unit_test(holder_paused_below_timeout_keeps_lock),
      cmocka_unit_test_teardown(holder_server_killed_keeps_lock, restore_ensemble),
      cmocka_unit_test_teardown(leader_killed_under_contention, restore_ensemble),
      cmocka_unit_test_teardown(no_quorum_grants_nothing, restore_ensemble),
      cmocka_unit_test(create_cut_recovered_by_uuid),
      cmocka_unit_test(retried_create_twin_does_not_wedge),
      cmocka_unit_test(downgrade_read_node_exists_is_adopted),
      cmocka_unit_test(release_while_disconnected),
      cmocka_unit_test(expired_answer_ends_the_session),
      cmocka_unit_test(reply_out_of_order_is_a_connection_loss),
      cmocka_unit_test(random_waiters_leave_nothing),
      cmocka_unit_test(outside_delete_of_waiter_grants_one),
      cmocka_unit_test(timed_out_waiter_keeps_holder_watch),
      cmocka_unit_test(next_in_line_granted_on_delete_alone),
      cmocka_unit_test(same_session_predecessor_reads_again),
      cmocka_unit_test(unseen_delete_of_next_in_line_reads_again),
      cmocka_unit_test(deletes_while_disconnected_read_again),
      cmocka_unit_test(grant_only_on_current_session),
      cmocka_unit_test(state_change_during_grant_is_seen),
      cmocka_unit_test(downgrade_on_stale_answer_reads_again),
      cmocka_unit_test(downgrade_read_node_deleted_before_proof),
      cmocka_unit_test(downgrade_of_write_hold_lost_meanwhile_is_refused),
      cmocka_unit_test(multilock_first_lock_deleted_before_the_set_is_held),
      cmocka_unit_test(multilock_stalled_after_its_read_reads_again),
      cmocka_unit_test(multilock_stalled_after_its_read_takes_the_set_again),
      cmocka_unit_test(multilock_lock_lost_between_rounds_leaves_no_pin),
      cmocka_unit_test(stranger_lease_after_room_seen_is_no_grant),
      cmocka_unit_test(sem_session_lost_at_grant_queues_again),
      cmocka_unit_test(sem_queue_node_gone_at_its_let_go),
      cmocka_unit_test(sem_leases_gone_at_its_let_go),
      cmocka_unit_test(refused_delete_is_reported),
      cmocka_unit_test(refused_nowait_delete_is_logged),
      cmocka_unit_test(release_of_lost_hold_races_destroy),
      cmocka_unit_test(suspended_loss_node_deleted_by_new_session),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "faults");
}
