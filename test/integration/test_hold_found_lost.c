/* SPDX-License-Identifier: Apache-2.0 */
/* A hold's own fenced write that finds its loss first (ZKC_ELOST) names it
 * there, as a leader's term does: logged, counted in its recipe's stats,
 * its loss notice told once, on the writer's thread, before the call
 * returns; the node's watch told later adds nothing. The client's
 * callback thread is kept busy meanwhile (a lock's lost callback waits),
 * so that the watch cannot name the loss first. */
#include <stdint.h>

#include "hold_notes.h"

/* A lost callback that keeps the client's callback thread until let go. */
typedef struct gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int in, open;
} gate_t;

static gate_t gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

static void gate_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                      int64_t token) {
  (void)ctx, (void)m, (void)why, (void)token;
  pthread_mutex_lock(&gate.mu);
  gate.in = 1;
  pthread_cond_broadcast(&gate.cv);
  while (!gate.open) pthread_cond_wait(&gate.cv, &gate.mu);
  gate.in = 0;
  pthread_cond_broadcast(&gate.cv);
  pthread_mutex_unlock(&gate.mu);
}

static int gate_held(void *ctx) {
  (void)ctx;
  pthread_mutex_lock(&gate.mu);
  int in = gate.in;
  pthread_mutex_unlock(&gate.mu);
  return in;
}

static void gate_let_go(void) {
  pthread_mutex_lock(&gate.mu);
  gate.open = 1;
  pthread_cond_broadcast(&gate.cv);
  pthread_mutex_unlock(&gate.mu);
}

/* A client logging its warnings to the harness's sink, with a lock held
 * (`blocker`, the caller's to destroy) whose loss will hold its callback
 * thread (block). */
static zkc_client_t *held_client(zkc_mutex_t **blocker) {
  zkt_make_root();
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = zkt_log_keep;
  o.log_level = ZKC_LOG_WARN;
  o.log_ctx = (void *)(intptr_t)ZKC_LOG_WARN;
  zkc_client_t *c = zkt_open(&o);
  gate.open = 0;
  OK(zkc_mutex_create(blocker, c, zkt_path("blocker")));
  OK(zkc_mutex_set_lost_callback(*blocker, gate_lost, NULL));
  OK(zkc_mutex_acquire(*blocker));
  return c;
}

/* The client's callback thread held: the blocker's loss told to it. Only
 * once the subject is granted (a grant waits on that thread's probes). */
static void block(zkc_mutex_t *blocker) {
  outsider_delete(zkc_mutex_hold(blocker));
  assert_true(zkt_await(gate_held, NULL, zkt_ms(15000)));
}

/* h's fenced write after an outsider's delete of its node: ZKC_ELOST, and
 * its notice t told once by then, with the token. */
static void write_finds_loss(zkc_mutex_t *blocker, zkc_hold_t *h,
                             notes_t *t) {
  int64_t token = token_of(h);
  block(blocker);
  outsider_delete(h);
  assert_int_equal(zkc_hold_fenced_set(h, zkt_path("data"), "x", 1), ZKC_ELOST);
  int n = notes_n(t);
  int64_t told_token = t->token;
  zkc_lost_reason_t why = t->why;
  assert_int_equal(n, 1);
  assert_true(told_token == token);
  assert_int_equal(why, ZKC_LOST_DELETED);
  /* Refused at once now; the watch, let through, tells nothing more. */
  assert_int_equal(zkc_hold_fenced_set(h, zkt_path("data"), "x", 1), ZKC_ELOST);
}

static void after(zkc_client_t *c, zkc_mutex_t *blocker, notes_t *t) {
  gate_let_go();
  assert_int_equal(zkc_mutex_release(blocker), ZKC_ELOST);
  /* A later loss told through the callback thread orders the watch
   * before it. */
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, zkt_path("after")));
  notes_t *late = notes_new();
  OK(zkc_hold_set_lost_callback(zkc_mutex_hold(m), note, late));
  OK(zkc_mutex_acquire(m));
  outsider_delete(zkc_mutex_hold(m));
  assert_true(zkt_await(told, late, zkt_ms(15000)));
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  OK(zkc_mutex_destroy(blocker));
  notes_free(late);
  assert_int_equal(notes_n(t), 1);
}

static void mutex_write_finds_loss(void **st) {
  (void)st;
  zkc_mutex_t *blocker;
  zkc_client_t *c = held_client(&blocker);
  zkc_mutex_t *m;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire(m));
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(zkc_mutex_hold(m), note, t));
  write_finds_loss(blocker, zkc_mutex_hold(m), t);
  zkc_lock_stats_t s;
  OK(zkc_mutex_stats(m, &s));
  assert_int_equal(s.lost[ZKC_LOST_DELETED], 1);
  char line[700];
  snprintf(line, sizeof line, "lock %s lost (", path);
  assert_true(zkt_log_has(line));
  after(c, blocker, t);
  OK(zkc_mutex_stats(m, &s));
  assert_int_equal(s.lost[ZKC_LOST_DELETED], 1);
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  OK(zkc_mutex_destroy(m));
  notes_free(t);
  zkc_client_close(c);
}

static void lease_write_finds_loss(void **st) {
  (void)st;
  zkc_mutex_t *blocker;
  zkc_client_t *c = held_client(&blocker);
  zkc_sem_t *sem;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = 2;
  OK(zkc_sem_create(&sem, c, path, &o));
  zkc_lease_t *lease;
  OK(zkc_sem_acquire(sem, 2, zkt_ms(15000), &lease));
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(zkc_lease_hold(lease), note, t));
  write_finds_loss(blocker, zkc_lease_hold(lease), t);
  zkc_lock_stats_t s;
  OK(zkc_sem_stats(sem, &s));
  assert_int_equal(s.lost[ZKC_LOST_DELETED], 1);
  char line[700];
  snprintf(line, sizeof line, "lease on %s lost (", path);
  assert_true(zkt_log_has(line));
  after(c, blocker, t);
  OK(zkc_sem_stats(sem, &s));
  assert_int_equal(s.lost[ZKC_LOST_DELETED], 1);
  (void)zkc_lease_free(lease);
  OK(zkc_sem_destroy(sem));
  notes_free(t);
  zkc_client_close(c);
}

/* A multi-lock's set: its write finds a lock gone; the set's notice is
 * told once, with the set's token, through the lock's own telling. */
static void set_write_finds_loss(void **st) {
  (void)st;
  zkc_mutex_t *blocker;
  zkc_client_t *c = held_client(&blocker);
  zkc_mutex_t *m[2];
  char pa[600], pb[600];
  snprintf(pa, sizeof pa, "%s", zkt_path("a"));
  snprintf(pb, sizeof pb, "%s", zkt_path("b"));
  OK(zkc_mutex_create(&m[0], c, pa));
  OK(zkc_mutex_create(&m[1], c, pb));
  zkc_multilock_t *ml;
  OK(zkc_multilock_create(&ml, m, 2));
  OK(zkc_multilock_acquire(ml));
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(zkc_multilock_hold(ml), note, t));
  write_finds_loss(blocker, zkc_multilock_hold(ml), t);
  zkc_lock_stats_t s;
  OK(zkc_mutex_stats(m[0], &s));
  assert_int_equal(s.lost[ZKC_LOST_DELETED], 1);
  after(c, blocker, t);
  assert_int_equal(zkc_multilock_release(ml), ZKC_ELOST);
  OK(zkc_multilock_destroy(ml));
  for (int i = 0; i < 2; i++) OK(zkc_mutex_destroy(m[i]));
  notes_free(t);
  zkc_client_close(c);
}

/* A failed case lets the callback thread go, so that its client closes. */
static int gate_teardown(void **state) {
  gate_let_go();
  return zkt_teardown(state);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(mutex_write_finds_loss, gate_teardown),
      cmocka_unit_test_teardown(lease_write_finds_loss, gate_teardown),
      cmocka_unit_test_teardown(set_write_finds_loss, gate_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "hold_found_lost");
}
