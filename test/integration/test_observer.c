/* SPDX-License-Identifier: Apache-2.0 */
/* The observer (zkcoord/observer.h) against the real ensemble: a
 * non-participant told each leader of an election and each holder of a
 * lock, and told when nobody leads: after a release, after a stopped
 * leader's session expired, after an outsider deleted the holder's node;
 * through its own connection's loss and its own session's expiry, each
 * change told once. */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)
#define MAXEV 64

static int64_t long_op(void) { return zkt_ms(20000); }

/* ---- what the callback was told ---- */

typedef struct seen_ev {
  int has_leader;
  char id[64];
  int64_t token;
  uint64_t change;
} seen_ev_t;

typedef struct told {
  pthread_mutex_t mu;
  int n;
  seen_ev_t ev[MAXEV];
  int ended; /* rc of the last call, 0 while observing */
  int next_rc; /* zkc_observer_next called from the callback */
} told_t;

static void on_change(void *ctx, zkc_observer_t *obs, int rc,
                      const zkc_observation_t *ev) {
  told_t *t = ctx;
  zkc_observation_t *dummy = NULL;
  int next_rc = zkc_observer_next(obs, 0, &dummy); /* must not block */
  pthread_mutex_lock(&t->mu);
  t->next_rc = next_rc;
  if (rc != ZKC_OK) {
    t->ended = rc;
  } else if (t->n < MAXEV) {
    seen_ev_t *s = &t->ev[t->n++];
    s->has_leader = ev->has_leader;
    snprintf(s->id, sizeof s->id, "%s", ev->id);
    s->token = ev->token;
    s->change = ev->change;
  }
  pthread_mutex_unlock(&t->mu);
}

static int told_count(told_t *t) {
  pthread_mutex_lock(&t->mu);
  int n = t->n;
  pthread_mutex_unlock(&t->mu);
  return n;
}

typedef struct { told_t *t; int n; } want_t;
static int has_n(void *ctx) {
  want_t *w = ctx;
  return told_count(w->t) >= w->n;
}

/* Waits until the callback was told n states; returns the n-th. */
static seen_ev_t await_told(told_t *t, int n) {
  want_t w = {t, n};
  if (!zkt_await(has_n, &w, long_op()))
    fail_msg("the observer told %d states, not %d", told_count(t), n);
  pthread_mutex_lock(&t->mu);
  seen_ev_t s = t->ev[n - 1];
  pthread_mutex_unlock(&t->mu);
  return s;
}

static void assert_leader(seen_ev_t s, const char *id, int64_t token) {
  assert_true(s.has_leader);
  assert_string_equal(s.id, id);
  if (token) assert_int_equal(s.token, token);
}

static void assert_nobody(seen_ev_t s) {
  assert_false(s.has_leader);
  assert_string_equal(s.id, "");
  assert_int_equal(s.token, 0);
}

/* No state told beyond n within ms (nothing changed: nothing told). */
static void assert_quiet(told_t *t, int n, int64_t ms) {
  usleep((useconds_t)zkt_ms(ms) * 1000);
  assert_int_equal(told_count(t), n);
}

static zkc_observer_t *observe(zkc_client_t *c, const char *path,
                               zkc_observe_kind_t kind, told_t *t) {
  memset(t, 0, sizeof *t);
  pthread_mutex_init(&t->mu, NULL);
  zkc_observer_t *o;
  OK(zkc_observer_create(&o, c, path, kind));
  OK(zkc_observer_set_callback(o, on_change, t));
  OK(zkc_observer_start(o));
  return o;
}

static zkc_latch_t *leader(zkc_client_t *c, const char *path, const char *id) {
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, path, id, NULL));
  OK(zkc_latch_start(l));
  return l;
}

/* ---- the cases ---- */

/* Leader A, then B once A released, then nobody once B, stopped, outlived
 * its session; each told once, with its id and its fencing token; the
 * observer made no node. */
static void leader_then_successor_then_nobody_after_expiry(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_t *a = zkt_open(NULL);
  zkc_latch_t *la = leader(a, path, "A");
  OK(zkc_latch_await(la, long_op()));
  /* opened after the change it must see first: a new session is a write,
   * so its server has applied everything answered before (a sync on the
   * leader would not, bench/results/leader-sync) */
  zkc_client_t *oc = zkt_open(NULL);
  int64_t ta;
  OK(zkc_hold_fencing_token(zkc_latch_hold(la), &ta));
  told_t t;
  zkc_observer_t *o = observe(oc, path, ZKC_OBSERVE_ELECTION, &t);
  assert_leader(await_told(&t, 1), "A", ta);
  assert_int_equal(t.ev[0].change, 1);

  /* B: a participant in a process of its own, to be stopped. */
  const char *bin = getenv("ZKT_LATCH_HOLDER");
  if (bin == NULL) fail_msg("ZKT_LATCH_HOLDER is not set");
  char session[16];
  snprintf(session, sizeof session, "%d", 4000);
  char *argv[] = {(char *)bin, (char *)zkt_connect(), (char *)path, "B",
                  session, NULL};
  zkt_proc_t p = zkt_spawn(argv);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  assert_quiet(&t, 1, 300); /* a waiter joining is no change */
  OK(zkc_latch_close(la, ZKC_CLOSE_SILENT));
  char line[256];
  if (!zkt_expect(&p, "LEADER ", line, sizeof line, long_op()))
    fail_msg("B did not lead");
  int64_t tb = strtoll(line + 7, NULL, 10);
  assert_true(tb > ta);
  assert_leader(await_told(&t, 2), "B", tb);
  assert_int_equal(zkt_children_count(path), 1);

  /* B stops (SIGSTOP) past its session: the server deletes its node. */
  kill(p.pid, SIGSTOP);
  assert_nobody(await_told(&t, 3));
  assert_int_equal(zkt_children_count(path), 0);
  assert_quiet(&t, 3, 500);
  kill(p.pid, SIGKILL);
  zkt_wait(&p, long_op());

  /* next: the newest state, the changes before it counted as missed */
  zkc_observation_t *ev;
  OK(zkc_observer_next(o, 0, &ev));
  assert_false(ev->has_leader);
  assert_int_equal(ev->change, 3);
  assert_int_equal(ev->missed, 2);
  zkc_observation_free(ev);
  assert_int_equal(zkc_observer_next(o, 50, &ev), ZKC_ETIMEDOUT);
  assert_null(ev);
  /* from the callback, next refused at once */
  pthread_mutex_lock(&t.mu);
  assert_int_equal(t.next_rc, ZKC_EDEADLK);
  pthread_mutex_unlock(&t.mu);

  OK(zkc_observer_destroy(o));
  OK(zkc_latch_destroy(la));
  zkc_client_close(oc);
  zkc_client_close(a);
}

/* A lock's holder handed on: A, then B (queued behind A by an async
 * acquire) once A releases, then nobody once B releases; each told once
 * with the holder's id (its client's holder_id) and its hold's fencing
 * token, and no "nobody" between A and B. */
static zkc_client_t *open_as(const char *holder_id) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.holder_id = holder_id;
  return zkt_open(&o);
}

typedef struct granted {
  pthread_mutex_t mu;
  int done, rc;
  zkc_hold_t *hold;
} granted_t;

static void on_granted(void *ctx, int rc, zkc_hold_t *hold) {
  granted_t *g = ctx;
  pthread_mutex_lock(&g->mu);
  g->rc = rc;
  g->hold = hold;
  g->done = 1;
  pthread_mutex_unlock(&g->mu);
}

static int is_granted(void *ctx) {
  granted_t *g = ctx;
  pthread_mutex_lock(&g->mu);
  int d = g->done;
  pthread_mutex_unlock(&g->mu);
  return d;
}

static void lock_holder_handed_on(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *a = open_as("holder-a"), *b = open_as("holder-b");
  zkc_mutex_t *ma;
  OK(zkc_mutex_create(&ma, a, path));
  OK(zkc_mutex_acquire(ma));
  zkc_client_t *oc = zkt_open(NULL);
  int64_t ta, tb;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(ma), &ta));
  told_t t;
  zkc_observer_t *o = observe(oc, path, ZKC_OBSERVE_LOCK, &t);
  assert_leader(await_told(&t, 1), "holder-a", ta);

  zkc_async_t *ab;
  OK(zkc_async_create(&ab, b, NULL));
  granted_t g = {.mu = PTHREAD_MUTEX_INITIALIZER};
  OK(zkc_async_acquire(ab, path, long_op(), on_granted, &g, NULL));
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  assert_quiet(&t, 1, 300); /* a waiter joining is no change */
  OK(zkc_mutex_release(ma));
  assert_true(zkt_await(is_granted, &g, long_op()));
  OK(g.rc);
  OK(zkc_hold_fencing_token(g.hold, &tb));
  assert_true(tb > ta);
  assert_leader(await_told(&t, 2), "holder-b", tb);
  OK(zkc_hold_release(ab, g.hold, NULL, NULL));
  assert_nobody(await_told(&t, 3));
  assert_quiet(&t, 3, 300);
  OK(zkc_hold_free(g.hold));

  OK(zkc_observer_destroy(o));
  OK(zkc_async_destroy(ab));
  OK(zkc_mutex_destroy(ma));
  zkc_client_close(oc);
  zkc_client_close(a);
  zkc_client_close(b);
}

/* A lock's holder: an outsider deletes its node: nobody holds, told. */
static void outsider_deletes_holder_node(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire(m));
  zkc_client_t *oc = zkt_open(NULL);
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &token));
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  told_t t;
  zkc_observer_t *o = observe(oc, path, ZKC_OBSERVE_LOCK, &t);
  seen_ev_t s = await_told(&t, 1);
  assert_true(s.has_leader);
  assert_int_equal(s.token, token);
  zkc_observation_t *ev;
  OK(zkc_observer_next(o, long_op(), &ev));
  assert_string_equal(ev->node, node);
  assert_true(ev->session != 0);
  assert_int_equal(ev->missed, 0);
  zkc_observation_free(ev);

  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_nobody(await_told(&t, 2));
  zkc_mutex_release(m); /* the hold was lost: its code says so */
  assert_quiet(&t, 2, 300);
  OK(zkc_mutex_destroy(m));
  OK(zkc_observer_destroy(o));
  zkc_client_close(oc);
  zkc_client_close(c);
}

/* A path that does not exist: nobody, at once; then the first leader as
 * the path is made (the watch on a missing path fires). */
static void missing_path_then_first_leader(void **state) {
  (void)state;
  const char *path = zkt_path("later/election");
  zkc_client_t *c = zkt_open(NULL), *oc = zkt_open(NULL);
  told_t t;
  zkc_observer_t *o = observe(oc, path, ZKC_OBSERVE_ELECTION, &t);
  assert_nobody(await_told(&t, 1));
  zkc_latch_t *l = leader(c, path, "first");
  OK(zkc_latch_await(l, long_op()));
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_latch_hold(l), &token));
  assert_leader(await_told(&t, 2), "first", token);
  OK(zkc_latch_destroy(l));
  assert_nobody(await_told(&t, 3));
  OK(zkc_observer_destroy(o));
  zkc_client_close(oc);
  zkc_client_close(c);
}

/* Each state the observer's client was told, counted. */
typedef struct {
  pthread_mutex_t mu;
  int count[8];
  zkc_state_t want;
  int at_least;
} states_t;
static void on_state(void *ctx, zkc_client_t *c, zkc_state_t st) {
  states_t *s = ctx;
  (void)c;
  pthread_mutex_lock(&s->mu);
  if ((int)st >= 0 && (int)st < 8) s->count[st]++;
  pthread_mutex_unlock(&s->mu);
}
static int state_seen(void *ctx) {
  states_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  int ok = s->count[s->want] >= s->at_least;
  pthread_mutex_unlock(&s->mu);
  return ok;
}
/* Waits until st was told n times in all. */
static void await_state(states_t *s, zkc_state_t st, int n) {
  s->want = st;
  s->at_least = n;
  if (!zkt_await(state_seen, s, long_op()))
    fail_msg("the observer's client was %s fewer than %d times",
             zkc_state_name(st), n);
}

/* The observer's own connection cut: after RECONNECTED it reads again and
 * tells nothing when nothing changed, and the new leader once when the
 * leader changed while it was cut off; its session expired: the same with
 * a new session. */
static void reconnect_and_expiry_tell_each_change_once(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_t *a = zkt_open(NULL);
  zkc_latch_t *la = leader(a, path, "A");
  OK(zkc_latch_await(la, long_op()));
  zkc_latch_t *lb = leader(a, path, "B");
  assert_true(zkt_await_children_exactly(path, 2, long_op()));

  zkt_proc_t proxy = zkt_proxy_start(1);
  zkc_client_opts_t opts;
  zkc_client_opts_init(&opts);
  opts.session_timeout_ms = 10000;
  zkc_client_t *oc;
  OK(zkc_client_open(&oc, zkt_proxy_connect(&proxy), &opts));
  states_t st = {.want = ZKC_STATE_CONNECTED};
  pthread_mutex_init(&st.mu, NULL);
  OK(zkc_client_add_listener(oc, on_state, &st));
  told_t t;
  zkc_observer_t *o = observe(oc, path, ZKC_OBSERVE_ELECTION, &t);
  assert_leader(await_told(&t, 1), "A", 0);

  /* cut, nothing changes, back: nothing told */
  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  await_state(&st, ZKC_STATE_SUSPENDED, 1);
  zkt_proxy_cmd(&proxy, "refuse off");
  await_state(&st, ZKC_STATE_RECONNECTED, 1);
  assert_quiet(&t, 1, 1000);

  /* cut, A leaves (B leads), back: B told once */
  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  await_state(&st, ZKC_STATE_SUSPENDED, 2);
  OK(zkc_latch_close(la, ZKC_CLOSE_SILENT));
  OK(zkc_latch_await(lb, long_op()));
  int64_t tb;
  OK(zkc_hold_fencing_token(zkc_latch_hold(lb), &tb));
  assert_int_equal(told_count(&t), 1); /* cut off: nothing told */
  zkt_proxy_cmd(&proxy, "refuse off");
  await_state(&st, ZKC_STATE_RECONNECTED, 2);
  assert_leader(await_told(&t, 2), "B", tb);
  assert_quiet(&t, 2, 1000);

  /* the observer's session expires: a new one reads again, B not told
   * twice; B leaving is told once more as nobody */
  zkt_expire_session(oc);
  await_state(&st, ZKC_STATE_CONNECTED, 1);
  assert_quiet(&t, 2, 1000);
  OK(zkc_latch_close(lb, ZKC_CLOSE_SILENT));
  assert_nobody(await_told(&t, 3));
  assert_quiet(&t, 3, 500);

  OK(zkc_observer_destroy(o));
  OK(zkc_client_remove_listener(oc, on_state, &st));
  zkc_client_close(oc);
  zkt_proxy_stop(&proxy);
  OK(zkc_latch_destroy(lb));
  OK(zkc_latch_destroy(la));
  zkc_client_close(a);
}

static int ended(void *ctx) {
  told_t *t = ctx;
  pthread_mutex_lock(&t->mu);
  int e = t->ended;
  pthread_mutex_unlock(&t->mu);
  return e != 0;
}

/* A read-write lock's path is refused (its first node need not be the
 * only holder): the callback and next get ZKC_ELAYOUT. */
static void rwlock_path_refused(void **state) {
  (void)state;
  const char *path = zkt_path("rw");
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  OK(zkc_rwlock_create(&rw, c, path));
  zkc_mutex_t *r = zkc_rwlock_read_side(rw);
  OK(zkc_mutex_acquire(r));
  zkc_client_t *oc = zkt_open(NULL);
  told_t t;
  zkc_observer_t *o = observe(oc, path, ZKC_OBSERVE_LOCK, &t);
  zkc_observation_t *ev;
  assert_int_equal(zkc_observer_next(o, long_op(), &ev), ZKC_ELAYOUT);
  assert_null(ev);
  /* the callback is told after next can return: wait for it */
  assert_true(zkt_await(ended, &t, long_op()));
  pthread_mutex_lock(&t.mu);
  assert_int_equal(t.ended, ZKC_ELAYOUT);
  assert_int_equal(t.n, 0);
  pthread_mutex_unlock(&t.mu);
  OK(zkc_observer_destroy(o));
  OK(zkc_mutex_release(r));
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(oc);
  zkc_client_close(c);
}

/* Bad arguments, and the life of an observer: next before start, close
 * twice, next after close, destroy of NULL; no watch left by a closed
 * observer. */
static void arguments_and_life(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_t *c = zkt_open(NULL);
  zkc_observer_t *o = (zkc_observer_t *)&o;
  assert_int_equal(zkc_observer_create(&o, c, "relative", ZKC_OBSERVE_LOCK),
                   ZKC_EINVAL);
  assert_null(o);
  assert_int_equal(zkc_observer_create(NULL, c, path, ZKC_OBSERVE_LOCK),
                   ZKC_EINVAL);
  assert_int_equal(zkc_observer_create(&o, NULL, path, ZKC_OBSERVE_LOCK),
                   ZKC_EINVAL);
  assert_int_equal(zkc_observer_create(&o, c, path, (zkc_observe_kind_t)7),
                   ZKC_EINVAL);
  assert_int_equal(zkc_observer_start(NULL), ZKC_EINVAL);
  assert_int_equal(zkc_observer_set_callback(NULL, NULL, NULL), ZKC_EINVAL);
  OK(zkc_observer_destroy(NULL));
  OK(zkc_observer_close(NULL));
  assert_null(zkc_observer_path(NULL));

  OK(zkc_observer_create(&o, c, path, ZKC_OBSERVE_ELECTION));
  assert_string_equal(zkc_observer_path(o), path);
  zkc_observation_t *ev = (zkc_observation_t *)&ev;
  assert_int_equal(zkc_observer_next(o, 0, &ev), ZKC_EINVAL);
  assert_null(ev);
  assert_int_equal(zkc_observer_next(o, 0, NULL), ZKC_EINVAL);
  OK(zkc_observer_start(o));
  assert_int_equal(zkc_observer_start(o), ZKC_EBUSY);
  assert_int_equal(zkc_observer_set_callback(o, NULL, NULL), ZKC_EBUSY);
  OK(zkc_observer_next(o, long_op(), &ev)); /* nobody, on a missing path */
  assert_false(ev->has_leader);
  assert_string_equal(ev->node, "");
  zkc_observation_free(ev);
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  assert_true(zkt_await_session_watches(c, 1, NULL, 0, long_op()) >= 1);
  OK(zkc_observer_close(o));
  OK(zkc_observer_close(o));
  assert_int_equal(zkc_observer_next(o, 0, &ev), ZKC_ECLOSED);
  assert_int_equal(zkc_observer_start(o), ZKC_EBUSY);
  /* its watch is removed */
  for (int i = 0; i < 100 && zkt_session_watches(sid, NULL, 0) > 0; i++)
    usleep(50000);
  assert_int_equal(zkt_session_watches(sid, NULL, 0), 0);
  OK(zkc_observer_destroy(o));
  zkc_client_close(c);
}

/* The client closed under a started observer: next says ZKC_ECLOSED. */
static void client_closed_under_observer(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_observer_t *o;
  OK(zkc_observer_create(&o, c, zkt_path("election"), ZKC_OBSERVE_ELECTION));
  OK(zkc_observer_start(o));
  zkc_observation_t *ev;
  OK(zkc_observer_next(o, long_op(), &ev));
  zkc_observation_free(ev);
  zkc_client_close(c);
  assert_int_equal(zkc_observer_next(o, long_op(), &ev), ZKC_ECLOSED);
  OK(zkc_observer_destroy(o));
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(leader_then_successor_then_nobody_after_expiry),
      cmocka_unit_test(outsider_deletes_holder_node),
      cmocka_unit_test(lock_holder_handed_on),
      cmocka_unit_test(missing_path_then_first_leader),
      cmocka_unit_test(reconnect_and_expiry_tell_each_change_once),
      cmocka_unit_test(rwlock_path_refused),
      cmocka_unit_test(arguments_and_life),
      cmocka_unit_test(client_closed_under_observer),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "observer");
}
