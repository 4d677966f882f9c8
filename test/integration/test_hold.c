/* SPDX-License-Identifier: Apache-2.0 */
/* One hold type for every grant (zkcoord/hold.h) on the real ensemble:
 * for each recipe's hold (a mutex's, a write side's, a multi-lock's set, a
 * lease set, a latch's and a selector's term, an async acquire's), the
 * fenced calls work while it is held, and write nothing once an outsider
 * deleted a node of it, once its process was stopped past its session and
 * a successor took over, or once its leader lost leadership. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "hold_subject.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static const char *data_path(void) {
  static char buf[600];
  snprintf(buf, sizeof buf, "%s", zkt_path("data"));
  return buf;
}

static void make_data(const char *value) {
  zkt_make_root();
  int rc = zoo_create(zkt_raw(), data_path(), value, (int)strlen(value),
                      &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  if (rc != ZOK) fail_msg("create %s: %s", data_path(), zerror(rc));
}

/* The data as the ensemble has it (the raw handle syncs before it reads). */
static void assert_raw(const char *value) {
  char buf[128];
  assert_int_equal(zkt_get_data(data_path(), buf, sizeof buf), (int)strlen(value));
  assert_string_equal(buf, value);
}

static int32_t raw_version(void) {
  struct Stat st;
  assert_true(zkt_exists(data_path(), &st));
  return st.version;
}

/* The hold's data through its fenced read; its version into *version. */
static void assert_get(zkc_hold_t *h, const char *value, int32_t *version) {
  char *data = NULL;
  size_t len = 0;
  OK(zkc_hold_fenced_get(h, data_path(), &data, &len, version));
  assert_non_null(data);
  assert_int_equal(len, strlen(value));
  assert_string_equal(data, value);
  free(data);
}

/* Refused as a lost hold: a leader's term may be over already (then
 * nothing is granted: ZKC_ENOTOWNER), the rest say ZKC_ELOST. */
static void assert_refused(const subject_t *s, int rc) {
  int leader = s->latch != NULL || s->sel != NULL;
  if (rc == ZKC_ELOST || (leader && rc == ZKC_ENOTOWNER)) return;
  fail_msg("%s: a lost hold's call said %s", s->recipe, zkc_err_name(rc));
}

/* A set's newest node, as its recipe names it (so that a check of its
 * first node alone would not see it gone), or the hold's one node; the
 * hold names every node of it, one an entry. */
/* Review: the set's oldest node instead (a check of the newest node alone
 * would not see it gone). */
static int delete_oldest;

static void last_node(subject_t *s, char *out, size_t len) {
  char nodes[4096];
  OK(zkt_hold_node(subject_hold(s), nodes, sizeof nodes));
  if (s->lease) {
    char **v;
    size_t n;
    OK(zkt_lease_nodes(s->lease, &v, &n));
    assert_int_equal(n, 2);
    snprintf(out, len, "%s", v[delete_oldest ? 0 : n - 1]);
    zkt_strings_free(v, n);
  } else if (s->ml) {
    OK(zkt_hold_node(zkc_mutex_hold(s->m[delete_oldest ? 0 : 1]), out, len));
  } else {
    snprintf(out, len, "%.1100s", nodes);
  }
}

/* The hold's node list names every node of it, one an entry: the
 * recipe's own names. */
static void assert_named(subject_t *s, const char *node) {
  zkc_list_t *nodes = NULL;
  OK(zkc_hold_node_list(subject_hold(s), &nodes));
  size_t n = zkc_list_count(nodes), found = 0;
  for (size_t i = 0; i < n; i++)
    found += strstr(zkc_list_string(nodes, i), node) != NULL;
  zkc_list_free(nodes);
  assert_int_equal(n, s->lease || s->ml ? 2 : 1);
  assert_int_equal(found, 1);
}

/* ---- while held, then an outsider's delete ---- */

/* Holds the client's maintenance thread in a lost callback, so that the
 * recipes of that client learn of no loss until it lets go: a write then
 * rests on its transaction's check alone. */
typedef struct blocker {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int in, go;
  zkc_mutex_t *m;
} blocker_t;

static void block_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                       int64_t token) {
  (void)m, (void)why, (void)token;
  blocker_t *b = ctx;
  pthread_mutex_lock(&b->mu);
  b->in = 1;
  pthread_cond_broadcast(&b->cv);
  /* Not forever: a case that failed while it blocks must end. */
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += (time_t)(zkt_ms(20000) / 1000);
  int rc = 0;
  while (!b->go && rc == 0) rc = pthread_cond_timedwait(&b->cv, &b->mu, &t);
  pthread_mutex_unlock(&b->mu);
}

static int blocker_in(void *ctx) {
  blocker_t *b = ctx;
  pthread_mutex_lock(&b->mu);
  int in = b->in;
  pthread_mutex_unlock(&b->mu);
  return in;
}

/* A mutex of client c lost to an outsider's delete: its callback holds
 * the maintenance thread until blocker_end. */
static void blocker_start(blocker_t *b, zkc_client_t *c) {
  memset(b, 0, sizeof *b);
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv, NULL);
  OK(zkc_mutex_create(&b->m, c, zkt_path("blocker")));
  OK(zkc_mutex_set_lost_callback(b->m, block_lost, b));
  OK(zkc_mutex_acquire(b->m));
  char node[1200];
  OK(zkt_hold_node(zkc_mutex_hold(b->m), node, sizeof node));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_true(zkt_await(blocker_in, b, zkt_ms(10000)));
}

static void blocker_end(blocker_t *b) {
  pthread_mutex_lock(&b->mu);
  b->go = 1;
  pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
  assert_int_equal(zkc_mutex_release(b->m), ZKC_ELOST);
  OK(zkc_mutex_destroy(b->m));
  pthread_cond_destroy(&b->cv);
  pthread_mutex_destroy(&b->mu);
}

static int hold_not_held(void *ctx) { return !zkc_hold_is_held(ctx); }

static void held_then_outsider_delete(const char *recipe) {
  make_data("0");
  zkc_client_t *c = zkt_open(NULL);
  subject_t s;
  OK(subject_take(&s, recipe, c, zkt_path("lock"), zkt_ms(15000)));
  zkc_hold_t *h = subject_hold(&s);
  assert_non_null(h);
  assert_true(zkc_hold_is_held(h));
  int64_t token = 0;
  OK(zkc_hold_fencing_token(h, &token));
  assert_true(token > 0);

  int32_t v = -1, v1 = -1, untouched = 77;
  assert_get(h, "0", &v);
  OK(zkc_hold_fenced_cas(h, data_path(), "1", 1, v, &v1));
  assert_int_equal(v1, v + 1);
  assert_raw("1");
  /* The version read before is stale now: nothing set. */
  assert_int_equal(zkc_hold_fenced_cas(h, data_path(), "x", 1, v, &untouched),
                   ZKC_EBADVERSION);
  assert_int_equal(untouched, 77);
  OK(zkc_hold_fenced_set(h, data_path(), "2", 1));
  char made[700];
  snprintf(made, sizeof made, "%s/made", data_path());
  OK(zkc_hold_fenced_create(h, made, "m", 1));
  assert_true(zkt_exists(made, NULL));
  int32_t v2 = -1;
  assert_get(h, "2", &v2);

  /* A leader alone would lead again at once, in a new term that may
   * write: a second candidate queued behind it leads instead. */
  zkc_client_t *c2 = NULL;
  subject_t next = {0};
  if (s.latch || s.sel) {
    c2 = zkt_open(NULL);
    assert_int_equal(subject_take(&next, recipe, c2, zkt_path("lock"), 0),
                     ZKC_ETIMEDOUT);
    assert_true(zkt_await_children(zkt_path("lock"), 2, zkt_ms(10000)));
  }
  /* The newest node of the hold deleted while its client cannot learn of
   * it: each write is refused by its own check, in the transaction. */
  blocker_t b;
  blocker_start(&b, c);
  char node[1200];
  last_node(&s, node, sizeof node);
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_int_equal(zkc_hold_fenced_cas(h, data_path(), "3", 1, v2, NULL),
                   ZKC_ELOST);
  assert_false(zkc_hold_is_held(h)); /* marked lost by the refusal */
  blocker_end(&b);
  if (next.latch) OK(zkc_latch_await(next.latch, zkt_ms(15000)));
  if (next.sel) assert_true(subject_wait(&next, &next.leading, zkt_ms(15000)));
  assert_true(zkt_await(hold_not_held, h, zkt_ms(10000)));
  assert_refused(&s, zkc_hold_fenced_set(h, data_path(), "3", 1));
  char late[700];
  snprintf(late, sizeof late, "%s/late", data_path());
  assert_refused(&s, zkc_hold_fenced_create(h, late, "l", 1));
  char *data = (char *)1;
  size_t len = 0;
  assert_refused(&s, zkc_hold_fenced_get(h, data_path(), &data, &len, &v2));
  assert_null(data);
  assert_raw("2");
  assert_int_equal(raw_version(), v2);
  assert_false(zkt_exists(late, NULL));
  if (!s.latch && !s.sel) assert_named(&s, node); /* a leader's term is over */
  subject_drop(&s);
  if (c2) {
    subject_drop(&next);
    zkc_client_close(c2);
  }
  zkc_client_close(c);
  zkt_delete_tree(data_path());
}

static void mutex_held_then_outsider_delete(void **state) {
  (void)state;
  held_then_outsider_delete("mutex");
}
static void write_side_held_then_outsider_delete(void **state) {
  (void)state;
  held_then_outsider_delete("write");
}
static void multilock_held_then_outsider_delete(void **state) {
  (void)state;
  held_then_outsider_delete("multi");
}
static void lease_set_held_then_outsider_delete(void **state) {
  (void)state;
  held_then_outsider_delete("lease");
}
static void multilock_oldest_node_deleted(void **state) {
  (void)state;
  delete_oldest = 1;
  held_then_outsider_delete("multi");
  delete_oldest = 0;
}
static void lease_set_oldest_node_deleted(void **state) {
  (void)state;
  delete_oldest = 1;
  held_then_outsider_delete("lease");
  delete_oldest = 0;
}
static void latch_held_then_outsider_delete(void **state) {
  (void)state;
  held_then_outsider_delete("latch");
}
static void selector_held_then_outsider_delete(void **state) {
  (void)state;
  held_then_outsider_delete("selector");
}
static void async_held_then_outsider_delete(void **state) {
  (void)state;
  held_then_outsider_delete("async");
}

/* ---- a leader that lost leadership to another ---- */

/* L1 leads and reads; its node is deleted; L2, queued behind, leads and
 * writes. L1's write with the version it read is refused, and L2's data
 * stands. */
static void leader_that_lost_writes_nothing(const char *recipe) {
  make_data("0");
  zkc_client_t *c1 = zkt_open(NULL), *c2 = zkt_open(NULL);
  subject_t l1, l2;
  OK(subject_take(&l1, recipe, c1, zkt_path("lead"), zkt_ms(15000)));
  zkc_hold_t *h1 = subject_hold(&l1);
  int32_t v = -1;
  assert_get(h1, "0", &v);
  int64_t t1 = 0;
  OK(zkc_hold_fencing_token(h1, &t1));
  char node[1200];
  last_node(&l1, node, sizeof node);
  /* L2 queues behind L1 (two nodes), then L1's node goes. */
  assert_int_equal(subject_take(&l2, recipe, c2, zkt_path("lead"), 0),
                   ZKC_ETIMEDOUT);
  assert_true(zkt_await_children(zkt_path("lead"), 2, zkt_ms(10000)));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  if (l2.latch) OK(zkc_latch_await(l2.latch, zkt_ms(15000)));
  if (l2.sel) assert_true(subject_wait(&l2, &l2.leading, zkt_ms(15000)));
  zkc_hold_t *h2 = subject_hold(&l2);
  int64_t t2 = 0;
  OK(zkc_hold_fencing_token(h2, &t2));
  assert_true(t2 > t1);
  int32_t v2 = -1;
  assert_get(h2, "0", &v2);
  assert_int_equal(v2, v);
  OK(zkc_hold_fenced_cas(h2, data_path(), "L2", 2, v2, NULL));
  /* The old leader's write, with the version it read: refused. */
  assert_refused(&l1, zkc_hold_fenced_cas(h1, data_path(), "L1", 2, v, NULL));
  assert_refused(&l1, zkc_hold_fenced_set(h1, data_path(), "L1", 2));
  assert_raw("L2");
  subject_drop(&l1);
  subject_drop(&l2);
  zkc_client_close(c1);
  zkc_client_close(c2);
  zkt_delete_tree(data_path());
}

static void latch_that_lost_writes_nothing(void **state) {
  (void)state;
  leader_that_lost_writes_nothing("latch");
}
static void selector_that_lost_writes_nothing(void **state) {
  (void)state;
  leader_that_lost_writes_nothing("selector");
}

/* ---- read holds: they read, their writes are refused with a reason ---- */

static void assert_read_hold(zkc_hold_t *h, const char *why) {
  int32_t v = -1;
  assert_get(h, "0", &v);
  assert_int_equal(zkc_hold_fenced_set(h, data_path(), "r", 1), ZKC_EINVAL);
  assert_non_null(strstr(zkc_last_error_message(), why));
  assert_int_equal(zkc_hold_fenced_cas(h, data_path(), "r", 1, v, NULL),
                   ZKC_EINVAL);
  assert_int_equal(zkc_hold_fenced_create(h, zkt_path("r"), "r", 1),
                   ZKC_EINVAL);
  assert_false(zkt_exists(zkt_path("r"), NULL));
  assert_raw("0");
}

static void read_holds_read_and_refuse_writes(void **state) {
  (void)state;
  make_data("0");
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw = NULL;
  OK(zkc_rwlock_create(&rw, c, zkt_path("rw")));
  zkc_mutex_t *rd = zkc_rwlock_read_side(rw), *wr = zkc_rwlock_write_side(rw);
  /* A read side's hold. */
  OK(zkc_mutex_acquire(rd));
  assert_read_hold(zkc_mutex_hold(rd), "read side");
  OK(zkc_mutex_release(rd));
  /* A downgrade's: the write holder takes the read side; the write hold
   * still writes. */
  OK(zkc_mutex_acquire(wr));
  OK(zkc_mutex_acquire(rd));
  assert_read_hold(zkc_mutex_hold(rd), "read side");
  OK(zkc_hold_fenced_set(zkc_mutex_hold(wr), data_path(), "0", 1));
  OK(zkc_mutex_release(wr));
  assert_read_hold(zkc_mutex_hold(rd), "read side");
  OK(zkc_mutex_release(rd));
  /* A multi-lock with a read side among its locks. */
  zkc_mutex_t *other = NULL;
  OK(zkc_mutex_create(&other, c, zkt_path("other")));
  zkc_mutex_t *set[2] = {rd, other};
  zkc_multilock_t *ml = NULL;
  OK(zkc_multilock_create(&ml, set, 2));
  OK(zkc_multilock_acquire(ml));
  assert_read_hold(zkc_multilock_hold(ml), "read side");
  OK(zkc_multilock_release(ml));
  OK(zkc_multilock_destroy(ml));
  OK(zkc_mutex_destroy(other));
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(c);
  zkt_delete_tree(data_path());
}

/* ---- a holder stopped past its session; a successor took over ---- */

static zkt_proc_t spawn_writer(const char *recipe, const char *path,
                               int session_ms) {
  char session[16];
  snprintf(session, sizeof session, "%d", session_ms);
  const char *bin = getenv("ZKT_HOLD_WRITER");
  if (bin == NULL) fail_msg("ZKT_HOLD_WRITER is not set");
  char *argv[] = {(char *)bin,  (char *)recipe,      (char *)zkt_connect(),
                  (char *)path, session, (char *)data_path(), NULL};
  zkt_proc_t p = zkt_spawn(argv);
  char line[256];
  if (!zkt_expect(&p, "HELD ", line, sizeof line, zkt_ms(20000)))
    fail_msg("%s: the writer was not granted", recipe);
  if (!zkt_expect(&p, "FENCED ", line, sizeof line, zkt_ms(10000)) ||
      strcmp(line, "FENCED 0") != 0)
    fail_msg("%s: the writer's first fenced write: %s", recipe, line);
  return p;
}

static void stopped_past_session(const char *recipe) {
  const int session_ms = 2000;
  make_data("0");
  char path[600]; /* zkt_path's buffer is shared */
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkt_proc_t p = spawn_writer(recipe, path, session_ms);
  assert_int_equal(kill(p.pid, SIGSTOP), 0);
  int64_t stopped = zkt_now_ms();
  zkc_client_t *c = zkt_open(NULL);
  subject_t s;
  OK(subject_take(&s, recipe, c, path, session_ms + zkt_ms(15000)));
  /* Granted only once the stopped holder's session ended. */
  assert_true(zkt_now_ms() - stopped >= session_ms / 2);
  zkc_hold_t *h = subject_hold(&s);
  OK(zkc_hold_fenced_set(h, data_path(), "successor", 9));
  /* The stop itself is the fault: 1.5 session timeouts in all. */
  int64_t left = stopped + session_ms * 3 / 2 - zkt_now_ms();
  if (left > 0) usleep((useconds_t)left * 1000);
  assert_int_equal(kill(p.pid, SIGCONT), 0);
  char line[256];
  /* Its next write is refused (its nodes went with its session), and none
   * lands after. */
  if (!zkt_expect(&p, "FENCED ", line, sizeof line, zkt_ms(15000)))
    fail_msg("%s: the stopped writer told nothing", recipe);
  printf("%s: the stopped writer's write after it went on: %s\n", recipe, line);
  assert_string_not_equal(line, "FENCED 0");
  int64_t until = zkt_now_ms() + zkt_ms(1000);
  while (zkt_now_ms() < until && zkt_read_line(&p, line, sizeof line, 100))
    if (strcmp(line, "FENCED 0") == 0)
      fail_msg("%s: a stale fenced write landed", recipe);
  assert_raw("successor");
  close(p.in_fd);
  p.in_fd = -1;
  assert_true(zkt_expect(&p, "DONE", line, sizeof line, zkt_ms(15000)));
  assert_int_equal(zkt_wait(&p, zkt_ms(10000)), 0);
  OK(zkc_hold_fenced_set(h, data_path(), "end", 3));
  assert_raw("end");
  subject_drop(&s);
  zkc_client_close(c);
  zkt_delete_tree(data_path());
}

static void mutex_stopped_past_session(void **state) {
  (void)state;
  stopped_past_session("mutex");
}
static void write_side_stopped_past_session(void **state) {
  (void)state;
  stopped_past_session("write");
}
static void multilock_stopped_past_session(void **state) {
  (void)state;
  stopped_past_session("multi");
}
static void lease_set_stopped_past_session(void **state) {
  (void)state;
  stopped_past_session("lease");
}
static void latch_stopped_past_session(void **state) {
  (void)state;
  stopped_past_session("latch");
}
static void selector_stopped_past_session(void **state) {
  (void)state;
  stopped_past_session("selector");
}
static void async_stopped_past_session(void **state) {
  (void)state;
  stopped_past_session("async");
}

/* ---- a view kept past its term (review) ---- */

/* The view is the latch's current term, whatever term it was taken in: a
 * worker handed zkc_latch_hold(l) in term 1 writes in term 3, after
 * another leader's term 2 wrote. The fencing promise (a write after the
 * successor's grant refused) then holds only for calls, not for the holder
 * the view was given to. */
typedef struct term_wait {
  zkc_hold_t *h;
  int64_t old;
} term_wait_t;

static int new_term(void *ctx) {
  term_wait_t *w = ctx;
  int64_t t = 0;
  return zkc_hold_fencing_token(w->h, &t) == ZKC_OK && t != w->old &&
         zkc_hold_is_held(w->h);
}

static int turn_over(void *ctx) {
  subject_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  int over = !s->leading;
  pthread_mutex_unlock(&s->mu);
  return over;
}

static void bound_to_old_term_refused(const char *recipe) {
  make_data("0");
  zkc_client_t *c1 = zkt_open(NULL), *c2 = zkt_open(NULL);
  subject_t l1, l2;
  OK(subject_take(&l1, recipe, c1, zkt_path("lead"), zkt_ms(15000)));
  /* Term 1: the hold handed to a worker, which reads. */
  zkc_hold_t *worker = subject_hold(&l1), *bound = NULL;
  int64_t t1 = 0, bt = 0;
  OK(zkc_hold_fencing_token(worker, &t1));
  OK(zkc_hold_bind(worker, &bound)); /* the worker's: term 1 only */
  OK(zkc_hold_fencing_token(bound, &bt));
  assert_int_equal(bt, t1);
  assert_true(zkc_hold_is_held(bound));
  int32_t v = -1;
  assert_get(worker, "0", &v);
  char node[1200];
  last_node(&l1, node, sizeof node);
  assert_int_equal(subject_take(&l2, recipe, c2, zkt_path("lead"), 0),
                   ZKC_ETIMEDOUT);
  assert_true(zkt_await_children(zkt_path("lead"), 2, zkt_ms(10000)));
  /* Term 1 ends (its node deleted); L2 leads (term 2) and writes. */
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  if (l2.latch) OK(zkc_latch_await(l2.latch, zkt_ms(15000)));
  if (l2.sel) assert_true(subject_wait(&l2, &l2.leading, zkt_ms(15000)));
  OK(zkc_hold_fenced_set(subject_hold(&l2), data_path(), "L2", 2));
  /* A selector queues again once its turn ended (auto_requeue does it
   * by itself). */
  if (l1.sel) {
    assert_true(zkt_await(turn_over, &l1, zkt_ms(15000)));
    OK(zkc_selector_requeue(l1.sel));
  }
  /* L2 lets go: L1, queued again, leads (term 3). */
  if (l2.latch) OK(zkc_latch_close(l2.latch, ZKC_CLOSE_SILENT));
  if (l2.sel) {
    pthread_mutex_lock(&l2.mu);
    l2.quit = 1;
    pthread_cond_broadcast(&l2.cv);
    pthread_mutex_unlock(&l2.mu);
  }
  term_wait_t w = {worker, t1};
  assert_true(zkt_await(new_term, &w, zkt_ms(20000)));
  /* The term-1 worker's bound hold in term 3: every call refused but its
   * token, which stays term 1's. */
  assert_int_equal(zkc_hold_fenced_set(bound, data_path(), "stale-term-1", 12),
                   ZKC_ELOST);
  assert_int_equal(zkc_hold_fenced_create(bound, data_path(), "x", 1), ZKC_ELOST);
  bt = 0;
  OK(zkc_hold_fencing_token(bound, &bt));
  assert_int_equal(bt, t1);
  assert_false(zkc_hold_is_held(bound));
  char *got = NULL;
  size_t got_len = 0;
  int32_t got_v = 0;
  assert_int_equal(zkc_hold_fenced_get(bound, data_path(), &got, &got_len, &got_v),
                   ZKC_ELOST);
  assert_null(got);
  OK(zkc_hold_free(bound)); /* the binding only: term 3 goes on */
  assert_raw("L2");
  /* The term-1 worker's compare-and-set with the version it read in term
   * 1, after term 2's write: refused, term 2's data intact. */
  int32_t nv = -1;
  int rc = zkc_hold_fenced_cas(worker, data_path(), "stale-term-1", 12, v, &nv);
  printf("%s: a term-1 worker's compare-and-set in term 3 said %s\n", recipe,
         zkc_err_name(rc));
  assert_int_equal(rc, ZKC_EBADVERSION);
  assert_raw("L2");
  /* The view follows the current term (hold.h): a write without a
   * version, made in term 3, is term 3's. */
  OK(zkc_hold_fenced_set(worker, data_path(), "term-3", 6));
  assert_raw("term-3");
  subject_drop(&l1);
  subject_drop(&l2);
  zkc_client_close(c1);
  zkc_client_close(c2);
  zkt_delete_tree(data_path());
}

/* A hold bound to a mutex's first grant answers for that grant only: after
 * a release and a new acquisition by the same thread, the bound hold
 * refuses (ZKC_ELOST, nothing written) while the view writes under the new
 * grant. */
static void mutex_bound_to_first_grant(void **state) {
  (void)state;
  make_data("0");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, zkt_path("lock")));
  zkc_hold_t *none = NULL;
  assert_int_equal(zkc_hold_bind(zkc_mutex_hold(m), &none), ZKC_ENOTOWNER);
  assert_null(none);
  OK(zkc_mutex_acquire(m));
  zkc_hold_t *bound = NULL;
  OK(zkc_hold_bind(zkc_mutex_hold(m), &bound));
  OK(zkc_hold_fenced_set(bound, data_path(), "grant-1", 7));
  assert_raw("grant-1");
  OK(zkc_mutex_release(m));
  assert_int_equal(zkc_hold_fenced_set(bound, data_path(), "late", 4), ZKC_ELOST);
  OK(zkc_mutex_acquire(m));
  assert_int_equal(zkc_hold_fenced_set(bound, data_path(), "late", 4), ZKC_ELOST);
  assert_false(zkc_hold_is_held(bound));
  assert_raw("grant-1");
  OK(zkc_hold_fenced_set(zkc_mutex_hold(m), data_path(), "grant-2", 7));
  assert_raw("grant-2");
  OK(zkc_hold_free(bound));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  zkt_delete_tree(data_path());
}

static void latch_bound_to_old_term_refused(void **state) {
  (void)state;
  bound_to_old_term_refused("latch");
}
static void selector_bound_to_old_term_refused(void **state) {
  (void)state;
  bound_to_old_term_refused("selector");
}

/* ---- a set's write refused for one node: the others are let go ---- */

/* The multi-lock's write finds lock b's node gone; set_lost marks every
 * lock's hold lost, lock a's too, whose node is still there. Released,
 * a lost mutex hold deletes nothing ("no node left to delete"): lock a's
 * node stays while the session lives, and nobody else gets lock a. */
static void multilock_refused_write_lets_go_of_the_rest(void **state) {
  (void)state;
  make_data("0");
  zkc_client_t *c = zkt_open(NULL), *c2 = zkt_open(NULL);
  subject_t s;
  char path[600], pa[700];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(pa, sizeof pa, "%s/a", path);
  OK(subject_take(&s, "multi", c, path, zkt_ms(15000)));
  zkc_hold_t *h = subject_hold(&s);
  blocker_t b;
  blocker_start(&b, c);
  char node[1200];
  OK(zkt_hold_node(zkc_mutex_hold(s.m[1]), node, sizeof node)); /* lock b's */
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_int_equal(zkc_hold_fenced_set(h, data_path(), "x", 1), ZKC_ELOST);
  blocker_end(&b);
  assert_true(zkt_await(hold_not_held, h, zkt_ms(10000)));
  int rc = zkc_multilock_release(s.ml);
  printf("multi: release after the refused write said %s; lock a's "
         "nodes: %d\n", zkc_err_name(rc), zkt_children_count(pa));
  /* Lock a is free again for another client. */
  zkc_mutex_t *other = NULL;
  OK(zkc_mutex_create(&other, c2, pa));
  rc = zkc_mutex_acquire_timeout(other, zkt_ms(5000));
  printf("multi: another client's acquire of lock a said %s\n",
         zkc_err_name(rc));
  assert_int_equal(rc, ZKC_OK);
  OK(zkc_mutex_release(other));
  OK(zkc_mutex_destroy(other));
  subject_drop(&s);
  zkc_client_close(c2);
  zkc_client_close(c);
  zkt_delete_tree(data_path());
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mutex_held_then_outsider_delete),
      cmocka_unit_test(write_side_held_then_outsider_delete),
      cmocka_unit_test(multilock_held_then_outsider_delete),
      cmocka_unit_test(lease_set_held_then_outsider_delete),
      cmocka_unit_test(latch_held_then_outsider_delete),
      cmocka_unit_test(selector_held_then_outsider_delete),
      cmocka_unit_test(async_held_then_outsider_delete),
      cmocka_unit_test(latch_that_lost_writes_nothing),
      cmocka_unit_test(selector_that_lost_writes_nothing),
      cmocka_unit_test(read_holds_read_and_refuse_writes),
      cmocka_unit_test(mutex_stopped_past_session),
      cmocka_unit_test(write_side_stopped_past_session),
      cmocka_unit_test(multilock_stopped_past_session),
      cmocka_unit_test(lease_set_stopped_past_session),
      cmocka_unit_test(latch_stopped_past_session),
      cmocka_unit_test(selector_stopped_past_session),
      cmocka_unit_test(async_stopped_past_session),
      cmocka_unit_test(multilock_oldest_node_deleted),
      cmocka_unit_test(lease_set_oldest_node_deleted),
      cmocka_unit_test(multilock_refused_write_lets_go_of_the_rest),
      cmocka_unit_test(mutex_bound_to_first_grant),
      cmocka_unit_test(latch_bound_to_old_term_refused),
      cmocka_unit_test(selector_bound_to_old_term_refused),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof tests[0], "hold");
}
