/* SPDX-License-Identifier: Apache-2.0 */
/* The mutex on the real ensemble: one CTest entry per case. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_hooks.h" /* request counter for the no-traffic check */
#include "harness.h"
#include "renewal.h"
#include "stall.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static zkc_mutex_t *new_mutex(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  return m;
}

static int participants(zkc_mutex_t *m) {
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(m, &nodes, &n));
  zkt_strings_free(nodes, n);
  return (int)n;
}

/* ---------------------------------------------------------------------- */

static void single_holder(void **state) {
  (void)state;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);

  OK(zkc_mutex_acquire(ma));
  assert_true(zkc_mutex_is_owned_by_current_thread(ma));
  assert_true(zkc_mutex_is_acquired_in_this_process(ma));
  assert_false(zkc_mutex_is_acquired_in_this_process(mb));
  assert_int_equal(zkc_mutex_acquire_timeout(mb, 0), ZKC_ETIMEDOUT);
  /* mb's node is gone; ma's server may apply that delete a little later. */
  assert_true(zkt_await_participants(ma, 1, zkt_ms(10000)));
  assert_int_equal(participants(ma), 1);

  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(ma), node, sizeof node));
  assert_non_null(strstr(node, "-lock-"));
  assert_int_equal(strncmp(node + strlen(path), "/_c_", 4), 0);

  OK(zkc_mutex_release(ma));
  assert_false(zkc_mutex_is_acquired_in_this_process(ma));
  assert_false(zkt_exists(node, NULL));
  OK(zkc_mutex_acquire_timeout(mb, zkt_ms(5000)));
  OK(zkc_mutex_release(mb));
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

static void reentrant_three_deep(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, zkt_path("lock"));
  int64_t t1, t2;
  OK(zkc_mutex_acquire(m));
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &t1));
  uint64_t before = zkc__requests(c);
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_acquire_timeout(m, 0));
  assert_int_equal(zkc__requests(c), before); /* no ZooKeeper call */
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &t2));
  assert_int_equal(t1, t2);
  assert_int_equal(zkt_children_count(zkt_path("lock")), 1);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_release(m));
  assert_int_equal(zkt_children_count(zkt_path("lock")), 1);
  assert_true(zkc_mutex_is_owned_by_current_thread(m));
  OK(zkc_mutex_release(m));
  assert_int_equal(zkt_children_count(zkt_path("lock")), 0);
  assert_int_equal(zkc_mutex_release(m), ZKC_ENOTOWNER);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* A release that does not wait for the delete's answer: the session's
 * next requests come after the delete, so the same thread's next try
 * finds no old node of its own in the way; another session gets the lock
 * once the delete is applied. */
static void release_nowait_orders_the_next_acquire(void **state) {
  (void)state;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  for (int i = 0; i < 20; i++) {
    /* No wait: the create and the read behind it, nothing more (a wait
     * behind the old node would add its watch and a read after it). */
    uint64_t before = zkc__requests(a), stalls = zkc__stalls_seen();
    OK(zkc_mutex_acquire_timeout(ma, zkt_ms(5000)));
    /* A stall of this process meanwhile (a busy machine) voids the proof:
     * read again, a sync and a read each time (stall.h). */
    uint64_t made = zkc__requests(a) - before;
    if (i > 0 && zkc__stalls_seen() == stalls) assert_int_equal(made, 2);
    else if (i > 0) assert_true(made >= 2 && made % 2 == 0);
    OK(zkc_mutex_release_nowait(ma));
    assert_false(zkc_mutex_is_owned_by_current_thread(ma));
  }
  /* A reentrant level is a count: the node stays. */
  OK(zkc_mutex_acquire(ma));
  OK(zkc_mutex_acquire(ma));
  OK(zkc_mutex_release_nowait(ma));
  assert_true(zkc_mutex_is_owned_by_current_thread(ma));
  assert_int_equal(zkt_children_count(path), 1);
  assert_int_equal(zkc_mutex_acquire_timeout(mb, 0), ZKC_ETIMEDOUT);
  OK(zkc_mutex_release_nowait(ma));
  OK(zkc_mutex_acquire_timeout(mb, zkt_ms(10000)));
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  OK(zkc_mutex_release_nowait(mb));
  assert_int_equal(zkc_mutex_release_nowait(mb), ZKC_ENOTOWNER);
  assert_int_equal(zkc_mutex_release_nowait(NULL), ZKC_EINVAL);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* ---- the quick acquire (queue.h, zkc__quiet_t) ---- */

/* The last hold's sequence: its node's trailing digits. */
static long long hold_seq(zkc_mutex_t *m) {
  zkc_list_t *l = NULL;
  OK(zkc_hold_node_list(zkc_mutex_hold(m), &l));
  const char *node = zkc_list_string(l, 0);
  assert_non_null(node);
  long long seq = atoll(node + strlen(node) - 10);
  zkc_list_free(l);
  return seq;
}

/* An uncontended cycle after the first is two requests: the create, whose
 * sequence and the base's watch prove the node first, and the delete (the
 * base's watch set once, behind the first cycle's delete). A stall of
 * this process voids the proof: read again, a sync and a read. */
static void quick_cycle_is_two_requests(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_release(m)); /* the delete and the base's watch */
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  assert_true(zkt_await_watch(sid, path, 1, zkt_ms(5000)));
  for (int i = 0; i < 10; i++) {
    uint64_t before = zkc__requests(c), stalls = zkc__stalls_seen();
    OK(zkc_mutex_acquire(m));
    long long seq = hold_seq(m);
    OK(zkc_mutex_release(m));
    uint64_t made = zkc__requests(c) - before;
    assert_int_equal(seq, i + 1);
    if (zkc__stalls_seen() == stalls) assert_int_equal(made, 2);
    else assert_true(made >= 2);
  }
  assert_int_equal(zkt_children_count(path), 0);
  /* The watch goes with the mutex. */
  OK(zkc_mutex_destroy(m));
  assert_true(zkt_await_watch(sid, path, 0, zkt_ms(5000)));
  zkc_client_close(c);
}

/* One uncontended cycle of m: the requests it made, or -1 when a stall of
 * this process voided a proof meanwhile (it then reads again). */
static long cycle_requests(zkc_client_t *c, zkc_mutex_t *m) {
  uint64_t before = zkc__requests(c), stalls = zkc__stalls_seen();
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  OK(zkc_mutex_release(m));
  long made = (long)(zkc__requests(c) - before);
  return zkc__stalls_seen() == stalls ? made : -1;
}

/* Two mutexes of one client, each on its own quiet path: once anything
 * breaks the order of the client's watches (here a third lock's waiter
 * giving up, whose watch is removed), each sets its path's watch again
 * once, without touching the other's, and both go back to two requests a
 * cycle (a watch set again by removing it would break the other's, for
 * ever, one lock after the other). */
static void quick_watches_of_two_locks_settle(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL), *other = zkt_open(NULL);
  zkc_mutex_t *a = new_mutex(c, zkt_path("a"));
  zkc_mutex_t *b = new_mutex(c, zkt_path("b"));
  zkc_mutex_t *x = new_mutex(c, zkt_path("x"));
  zkc_mutex_t *held = new_mutex(other, zkt_path("x"));
  for (int i = 0; i < 2; i++) { /* made, then their watches set */
    (void)cycle_requests(c, a);
    (void)cycle_requests(c, b);
  }
  long r = cycle_requests(c, a); /* quick */
  if (r != -1) assert_int_equal(r, 2);
  OK(zkc_mutex_acquire(held));
  assert_int_equal(zkc_mutex_acquire_timeout(x, zkt_ms(200)), ZKC_ETIMEDOUT);
  OK(zkc_mutex_release(held));
  for (int i = 0; i < 2; i++) { /* each sets its watch again, once */
    (void)cycle_requests(c, a);
    (void)cycle_requests(c, b);
  }
  for (int i = 0; i < 4; i++) {
    long ra = cycle_requests(c, a), rb = cycle_requests(c, b);
    if (ra != -1) assert_int_equal(ra, 2);
    if (rb != -1) assert_int_equal(rb, 2);
  }
  OK(zkc_mutex_destroy(held));
  OK(zkc_mutex_destroy(x));
  OK(zkc_mutex_destroy(b));
  OK(zkc_mutex_destroy(a));
  zkc_client_close(other);
  zkc_client_close(c);
}

/* A mutex destroyed after its client was closed: the path's watch goes
 * while the client is still the mutex's (the sanitizer and valgrind runs
 * catch a touch of the freed client). */
static void quick_mutex_destroyed_after_its_client_closed(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, zkt_path("lock"));
  for (int i = 0; i < 2; i++) {
    OK(zkc_mutex_acquire(m));
    OK(zkc_mutex_release(m));
  }
  zkc_client_close(c);
  OK(zkc_mutex_destroy(m));
}

/* Raw children of path: `made` EPHEMERAL_SEQUENTIAL ones, all deleted but
 * the first, which stays (its path into first). */
static void outsider_makes(const char *path, int made, char *first, int len) {
  char node[1100];
  for (int i = 0; i < made; i++) {
    zkt_raw_child(path, "lock-", i == 0 ? first : node,
                  i == 0 ? len : (int)sizeof node);
    if (i > 0) assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  }
}

/* The base deleted and made again between two cycles counts its sequences
 * from 0 anew: a holder there with the sequence before the one the quick
 * acquire expects must not be passed. The base's watch tells the delete. */
/* A mutex of c on path after three uncontended cycles (sequences 0 to 2):
 * its next acquire may be a quick run expecting sequence 3. */
static zkc_mutex_t *quick_ready(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m = new_mutex(c, path);
  for (int i = 0; i < 3; i++) {
    OK(zkc_mutex_acquire(m));
    OK(zkc_mutex_release(m));
  }
  return m;
}

/* m's acquire waits while the outsider's `holder` stands, and is granted
 * once it is deleted; then m and c go. */
static void waits_on(zkc_client_t *c, zkc_mutex_t *m, const char *holder) {
  assert_int_equal(zkc_mutex_acquire_timeout(m, 0), ZKC_ETIMEDOUT);
  assert_int_equal(zoo_delete(zkt_raw(), holder, -1), ZOK);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void quick_not_fooled_by_the_base_made_again(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *m = quick_ready(c, path);
  assert_int_equal(zoo_delete(zkt_raw(), path, -1), ZOK);
  assert_int_equal(zoo_create(zkt_raw(), path, NULL, -1, &ZOO_OPEN_ACL_UNSAFE,
                              0, NULL, 0),
                   ZOK);
  char holder[1100];
  outsider_makes(path, 3, holder, sizeof holder); /* the next one gets 3 */
  waits_on(c, m, holder);
}

/* The same, made again once the quick acquire has taken its hint and
 * before its create is sent (the uuid seam runs there, on its thread): the
 * path's watch, fine when the hint was taken, tells the delete before the
 * create's answer, which the check after that answer must see. */
static char remade_path[600], remade_holder[1100];
static void remake_path(char uuid[37]) {
  (void)uuid;
  zkc__uuid_seam = NULL; /* once */
  assert_int_equal(zoo_delete(zkt_raw(), remade_path, -1), ZOK);
  assert_int_equal(zoo_create(zkt_raw(), remade_path, NULL, -1,
                              &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0),
                   ZOK);
  outsider_makes(remade_path, 3, remade_holder, sizeof remade_holder);
}

static void quick_not_fooled_by_the_base_made_again_mid_acquire(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  snprintf(remade_path, sizeof remade_path, "%s", zkt_path("lock"));
  zkc_mutex_t *m = quick_ready(c, remade_path);
  zkc__uuid_seam = remake_path;
  assert_int_equal(zkc_mutex_acquire_timeout(m, 0), ZKC_ETIMEDOUT);
  assert_true(zkc__uuid_seam == NULL); /* the seam ran */
  assert_int_equal(zoo_delete(zkt_raw(), remade_holder, -1), ZOK);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* A node created between two cycles takes the sequence the quick acquire
 * expects: it reads the queue, and waits. */
static void quick_not_fooled_by_a_node_between(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *m = quick_ready(c, path);
  char holder[1100];
  outsider_makes(path, 1, holder, sizeof holder); /* 3 */
  waits_on(c, m, holder);
}

/* A hold granted beside another child is no start for a quick acquire:
 * that child may stand before the node the next create makes. Here a
 * squatter's persistent node carries the sequence the mutex's second node
 * gets, and a name that goes first among equal sequences. */
static void quick_not_taken_beside_another_child(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m)); /* makes the path: sequence 0 */
  OK(zkc_mutex_release(m));
  /* Its create counts too: the mutex's next node gets 2, the one after 3. */
  char squat[600];
  snprintf(squat, sizeof squat, "%s/+lock-0000000003", path);
  assert_int_equal(zoo_create(zkt_raw(), squat, NULL, -1, &ZOO_OPEN_ACL_UNSAFE,
                              0, NULL, 0),
                   ZOK);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000))); /* 2: first */
  assert_int_equal(hold_seq(m), 2);
  OK(zkc_mutex_release(m));
  waits_on(c, m, squat); /* 3, after the squatter's name */
}

struct other_release {
  zkc_mutex_t *m;
  int rc, owned;
};

static void *release_from_other(void *arg) {
  struct other_release *o = arg;
  o->owned = zkc_mutex_is_owned_by_current_thread(o->m);
  o->rc = zkc_mutex_release(o->m);
  return NULL;
}

static void release_by_other_thread_refused(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, zkt_path("lock"));
  OK(zkc_mutex_acquire(m));
  struct other_release o = {.m = m};
  pthread_t t;
  pthread_create(&t, NULL, release_from_other, &o);
  pthread_join(t, NULL);
  assert_int_equal(o.rc, ZKC_ENOTOWNER);
  assert_false(o.owned);
  assert_true(zkc_mutex_is_owned_by_current_thread(m));
  assert_int_equal(zkt_children_count(zkt_path("lock")), 1);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void timeout_leaves_no_node(void **state) {
  (void)state;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  OK(zkc_mutex_acquire(ma));
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_mutex_acquire_timeout(mb, 300), ZKC_ETIMEDOUT);
  assert_true(zkt_now_ms() - t0 >= 300);
  assert_false(zkc_mutex_is_acquired_in_this_process(mb));
  /* the holder's only (a delete answered past the call's grace goes on
   * in the background) */
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  int64_t sid_b;
  OK(zkc_client_session_id(b, &sid_b));
  assert_int_equal(zkt_session_watches(sid_b, NULL, 0), 0); /* watch removed */
  OK(zkc_mutex_release(ma));
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* ---------------------------------------------------------------------- */

#define TRY_THREADS 20
struct try_shared {
  char path[512];
  pthread_barrier_t start, tried;
  zkc_client_t *clients[4];
  atomic_int winners;
  int rcs[TRY_THREADS];
};
struct try_arg {
  struct try_shared *s;
  int i;
};

static void *try_once(void *arg) {
  struct try_arg *a = arg;
  zkc_mutex_t *m = NULL;
  zkc_mutex_create(&m, a->s->clients[a->i % 4], a->s->path);
  pthread_barrier_wait(&a->s->start);
  int rc = zkc_mutex_acquire_timeout(m, 0);
  a->s->rcs[a->i] = rc;
  if (rc == ZKC_OK) atomic_fetch_add(&a->s->winners, 1);
  pthread_barrier_wait(&a->s->tried); /* the winner holds until all tried */
  if (rc == ZKC_OK) zkc_mutex_release(m);
  zkc_mutex_destroy(m);
  return NULL;
}

static void try_lock_twenty_threads_one_winner(void **state) {
  (void)state;
  struct try_shared s = {0};
  snprintf(s.path, sizeof s.path, "%s", zkt_path("lock"));
  for (int i = 0; i < 4; i++) s.clients[i] = zkt_open(NULL);
  pthread_barrier_init(&s.start, NULL, TRY_THREADS);
  pthread_barrier_init(&s.tried, NULL, TRY_THREADS);
  pthread_t t[TRY_THREADS];
  struct try_arg args[TRY_THREADS];
  for (int i = 0; i < TRY_THREADS; i++) {
    args[i] = (struct try_arg){&s, i};
    pthread_create(&t[i], NULL, try_once, &args[i]);
  }
  for (int i = 0; i < TRY_THREADS; i++) pthread_join(t[i], NULL);
  assert_int_equal(atomic_load(&s.winners), 1);
  for (int i = 0; i < TRY_THREADS; i++)
    if (s.rcs[i] != ZKC_OK && s.rcs[i] != ZKC_ETIMEDOUT)
      fail_msg("thread %d: %s", i, zkc_strerror(s.rcs[i]));
  assert_int_equal(zkt_children_count(zkt_path("lock")), 0);
  for (int i = 0; i < 4; i++) zkc_client_close(s.clients[i]);
  pthread_barrier_destroy(&s.start);
  pthread_barrier_destroy(&s.tried);
}

/* ---------------------------------------------------------------------- */

#define STRESS_CLIENTS 4
#define STRESS_THREADS 8
#define STRESS_CYCLES 15
#define STRESS_TOTAL (STRESS_CLIENTS * STRESS_THREADS * STRESS_CYCLES)

struct stress {
  zkc_mutex_t *mutexes[STRESS_CLIENTS];
  atomic_int inside, max_inside, next;
  long counter; /* unsynchronised on purpose: only the lock protects it */
  int64_t start_ns[STRESS_TOTAL], end_ns[STRESS_TOTAL];
  atomic_int errors;
};
struct stress_arg {
  struct stress *s;
  int client;
};

static void *stress_worker(void *arg) {
  struct stress_arg *a = arg;
  struct stress *s = a->s;
  zkc_mutex_t *m = s->mutexes[a->client];
  for (int i = 0; i < STRESS_CYCLES; i++) {
    if (zkc_mutex_acquire(m) != ZKC_OK) {
      atomic_fetch_add(&s->errors, 1);
      continue;
    }
    int k = atomic_fetch_add(&s->next, 1);
    s->start_ns[k] = zkt_now_ns();
    int in = atomic_fetch_add(&s->inside, 1) + 1;
    int prev = atomic_load(&s->max_inside);
    while (in > prev && !atomic_compare_exchange_weak(&s->max_inside, &prev, in)) {
    }
    long v = s->counter;
    sched_yield(); /* widen the window a second holder would hit */
    s->counter = v + 1;
    atomic_fetch_sub(&s->inside, 1);
    s->end_ns[k] = zkt_now_ns();
    if (zkc_mutex_release(m) != ZKC_OK) atomic_fetch_add(&s->errors, 1);
  }
  return NULL;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void no_overlap_eight_threads_four_clients(void **state) {
  (void)state;
  struct stress *s = calloc(1, sizeof *s);
  zkc_client_t *clients[STRESS_CLIENTS];
  for (int c = 0; c < STRESS_CLIENTS; c++) {
    clients[c] = zkt_open(NULL);
    s->mutexes[c] = new_mutex(clients[c], zkt_path("lock"));
  }
  pthread_t t[STRESS_CLIENTS * STRESS_THREADS];
  struct stress_arg args[STRESS_CLIENTS * STRESS_THREADS];
  int64_t t0 = zkt_now_ns();
  for (int i = 0; i < STRESS_CLIENTS * STRESS_THREADS; i++) {
    args[i] = (struct stress_arg){s, i % STRESS_CLIENTS};
    pthread_create(&t[i], NULL, stress_worker, &args[i]);
  }
  for (int i = 0; i < STRESS_CLIENTS * STRESS_THREADS; i++) pthread_join(t[i], NULL);
  double secs = (double)(zkt_now_ns() - t0) / 1e9;
  assert_int_equal(atomic_load(&s->errors), 0);
  assert_int_equal(atomic_load(&s->max_inside), 1);
  assert_int_equal(s->counter, STRESS_TOTAL);
  /* Intervals sorted by start never overlap. */
  int64_t(*iv)[2] = malloc(sizeof(int64_t[2]) * STRESS_TOTAL);
  for (int k = 0; k < STRESS_TOTAL; k++) iv[k][0] = s->start_ns[k], iv[k][1] = s->end_ns[k];
  qsort(iv, STRESS_TOTAL, sizeof *iv, cmp_i64);
  for (int k = 1; k < STRESS_TOTAL; k++)
    if (iv[k][0] < iv[k - 1][1]) fail_msg("holds %d and %d overlap", k - 1, k);
  printf("stress: %d cycles in %.2f s (%.0f hand-offs/s)\n", STRESS_TOTAL, secs,
         STRESS_TOTAL / secs);
  free(iv);
  for (int c = 0; c < STRESS_CLIENTS; c++) {
    OK(zkc_mutex_destroy(s->mutexes[c]));
    zkc_client_close(clients[c]);
  }
  free(s);
}

/* ---------------------------------------------------------------------- */

#define FIFO_WAITERS 6
struct fifo {
  zkc_mutex_t *m[FIFO_WAITERS];
  atomic_int order_next;
  int order[FIFO_WAITERS];
};
struct fifo_arg {
  struct fifo *f;
  int i;
};

static void *fifo_waiter(void *arg) {
  struct fifo_arg *a = arg;
  if (zkc_mutex_acquire(a->f->m[a->i]) != ZKC_OK) return NULL;
  a->f->order[atomic_fetch_add(&a->f->order_next, 1)] = a->i;
  zkc_mutex_release(a->f->m[a->i]);
  return NULL;
}


static void fifo_handoff_order(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *holder_c = zkt_open(NULL);
  zkc_mutex_t *holder = new_mutex(holder_c, path);
  OK(zkc_mutex_acquire(holder));
  struct fifo f = {0};
  zkc_client_t *clients[FIFO_WAITERS];
  pthread_t t[FIFO_WAITERS];
  struct fifo_arg args[FIFO_WAITERS];
  char path_copy[512];
  snprintf(path_copy, sizeof path_copy, "%s", path);
  for (int i = 0; i < FIFO_WAITERS; i++) {
    clients[i] = zkt_open(NULL);
    f.m[i] = new_mutex(clients[i], path_copy);
    args[i] = (struct fifo_arg){&f, i};
    pthread_create(&t[i], NULL, fifo_waiter, &args[i]);
    /* The next waiter starts only once this one's node is in the queue. */
    assert_true(zkt_await_children(path_copy, i + 2, zkt_ms(10000)));
  }
  OK(zkc_mutex_release(holder));
  for (int i = 0; i < FIFO_WAITERS; i++) pthread_join(t[i], NULL);
  assert_int_equal(atomic_load(&f.order_next), FIFO_WAITERS);
  for (int i = 0; i < FIFO_WAITERS; i++) assert_int_equal(f.order[i], i);
  for (int i = 0; i < FIFO_WAITERS; i++) {
    OK(zkc_mutex_destroy(f.m[i]));
    zkc_client_close(clients[i]);
  }
  OK(zkc_mutex_destroy(holder));
  zkc_client_close(holder_c);
}

/* ---------------------------------------------------------------------- */

#define WATCH_WAITERS 5
struct watch_waiter {
  zkc_mutex_t *m;
  int rc;
};
static void *watch_waiter_main(void *arg) {
  struct watch_waiter *w = arg;
  w->rc = zkc_mutex_acquire(w->m);
  if (w->rc == ZKC_OK) w->rc = zkc_mutex_release(w->m);
  return NULL;
}

/* learn: whether waiters learn ahead (zkt_learn_ahead). */
static void watches_per_waiter(int learn) {
  zkt_learn_ahead(learn);
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *hc = zkt_open(NULL);
  zkc_mutex_t *holder = new_mutex(hc, path);
  OK(zkc_mutex_acquire(holder));
  zkc_client_t *clients[WATCH_WAITERS];
  struct watch_waiter w[WATCH_WAITERS];
  pthread_t t[WATCH_WAITERS];
  for (int i = 0; i < WATCH_WAITERS; i++) {
    clients[i] = zkt_open(NULL);
    w[i].m = new_mutex(clients[i], path);
    pthread_create(&t[i], NULL, watch_waiter_main, &w[i]);
    assert_true(zkt_await_children(path, i + 2, zkt_ms(10000)));
  }
  assert_true(zkt_await_participants(holder, WATCH_WAITERS + 1, zkt_ms(10000)));
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(holder, &nodes, &n));
  assert_int_equal(n, WATCH_WAITERS + 1);
  /* The holder watches only its own node (to learn of an outside delete). */
  char own[600] = "";
  assert_int_equal(zkt_await_session_watches(hc, 1, own, sizeof own, zkt_ms(5000)), 1);
  assert_string_equal(own, nodes[0]);
  /* Waiter i (queued i+1-th) watches its predecessor, node i, and one node
   * more, never the path's children: the next in line (i = 0) its own
   * node, so that the head's delete alone can grant it; the others the
   * node before their predecessor (learn-ahead: its delete tells them they
   * are next but one, to prove their place while the predecessor holds).
   * So a delete wakes two waiters at most, however long the queue. The
   * watches are set just after the node shows up: await them. */
  for (int i = 0; i < WATCH_WAITERS; i++) {
    char first[600] = "";
    int want = i == 0 || learn ? 2 : 1;
    assert_int_equal(zkt_await_session_watches(clients[i], want, first,
                                               sizeof first, zkt_ms(5000)),
                     want);
    int64_t sid;
    OK(zkc_client_session_id(clients[i], &sid));
    assert_true(zkt_session_watches_path(sid, nodes[i]));
    if (want == 2)
      assert_true(zkt_session_watches_path(sid, i == 0 ? nodes[1] : nodes[i - 1]));
  }
  zkt_strings_free(nodes, n);
  OK(zkc_mutex_release(holder));
  for (int i = 0; i < WATCH_WAITERS; i++) {
    pthread_join(t[i], NULL);
    OK(w[i].rc);
    OK(zkc_mutex_destroy(w[i].m));
    zkc_client_close(clients[i]);
  }
  OK(zkc_mutex_destroy(holder));
  zkc_client_close(hc);
}

static void two_watches_per_waiter(void **state) {
  (void)state;
  watches_per_waiter(1);
}

/* Where round trips are short (a loopback's), waiters do not learn ahead:
 * one watch each, on the predecessor, but the next in line's two. */
static void one_watch_per_waiter_where_round_trips_are_short(void **state) {
  (void)state;
  watches_per_waiter(0);
}

/* Whether to learn ahead rests on the round-trip floor, which a new
 * connection takes from ZKC__RTT_FIRST quick probes that only measure (its
 * first answers come while every session connects at once), not from the
 * renewal's alone, one every 0.3 session timeouts, until its syncs come. */
struct probes_wanted {
  zkc_client_t *c;
  uint64_t n;
};
static int probes_at_least(void *ctx) {
  struct probes_wanted *w = ctx;
  return zkc__probes(w->c) >= w->n;
}

static void a_new_connection_measures_its_round_trips_quickly(void **state) {
  (void)state;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 20000;
  int64_t t0 = zkt_now_ms();
  zkc_client_t *c = zkt_open(&o);
  int timeout = 0;
  OK(zkc_client_session_timeout(c, &timeout));
  /* The floor full: the renewal's first probe and the rest measuring. */
  struct probes_wanted want = {c, ZKC__RTT_FIRST};
  assert_true(zkt_await(probes_at_least, &want, zkt_ms(10000)));
  /* The renewal alone sends one at once, then one per spacing. */
  int64_t spacing = ZKC__RENEW_SPACING(timeout);
  assert_true((int64_t)zkc__probes(c) > 1 + (zkt_now_ms() - t0) / spacing);
  zkc_client_close(c);
}

/* The floor follows the client's own syncs too, not its probes alone
 * (ops.c): a busy client's many answers decide whether it learns ahead,
 * so that a saturated start does not keep it learning for seconds. An
 * acquire that waits sends its round behind a sync (one that times out
 * before its read is answered sends none: try again); an answer fed beyond
 * the probes' is a sync's. And it lowers the floor or leaves it, since no
 * slot can age out in fewer than ZKC__RTT_SAMPLES - 1 seconds. */
struct floor_fed {
  zkc_client_t *c;
  uint64_t answers0, probes0;
};
static int floor_fed_by_a_sync(void *ctx) {
  struct floor_fed *f = ctx;
  if (zkc__probe_pending(f->c)) return 0;
  int64_t floor_us;
  uint64_t answers = zkc__rtt_answers(f->c, &floor_us) - f->answers0;
  return answers > zkc__probes(f->c) - f->probes0;
}
static int probe_idle(void *ctx) { return !zkc__probe_pending(ctx); }

static void a_client_s_syncs_feed_its_round_trip_floor(void **state) {
  (void)state;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 20000; /* a renewal probe every 6 s */
  zkc_client_t *c = zkt_open(&o), *hc = zkt_open(NULL);
  struct probes_wanted want = {c, ZKC__RTT_FIRST};
  assert_true(zkt_await(probes_at_least, &want, zkt_ms(10000)));
  assert_true(zkt_await(probe_idle, c, zkt_ms(10000)));
  int64_t floor0, floor1, t0 = zkt_now_ms();
  struct floor_fed fed = {c, zkc__rtt_answers(c, &floor0), zkc__probes(c)};
  assert_true(floor0 >= 0);
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_mutex_t *holder = new_mutex(hc, path), *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(holder));
  int fed_by_sync = 0;
  for (int i = 0; i < 5 && !fed_by_sync; i++) {
    assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(1000)), ZKC_ETIMEDOUT);
    fed_by_sync = zkt_await(floor_fed_by_a_sync, &fed, zkt_ms(2000));
  }
  assert_true(fed_by_sync);
  zkc__rtt_answers(c, &floor1);
  if (zkt_now_ms() - t0 < (ZKC__RTT_SAMPLES - 1) * ZKC__RTT_SLOT_MS)
    assert_true(floor1 >= 0 && floor1 <= floor0);
  OK(zkc_mutex_release(holder));
  OK(zkc_mutex_destroy(m));
  OK(zkc_mutex_destroy(holder));
  zkc_client_close(c);
  zkc_client_close(hc);
}

/* A waiter that holds until told to let go (a hold is its thread's). */
struct held_waiter {
  zkc_mutex_t *m;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int held, let_go, rc;
};
static void *held_waiter_main(void *arg) {
  struct held_waiter *w = arg;
  int rc = zkc_mutex_acquire(w->m);
  pthread_mutex_lock(&w->mu);
  w->rc = rc;
  w->held = rc == ZKC_OK;
  pthread_cond_broadcast(&w->cv);
  while (w->held && !w->let_go) pthread_cond_wait(&w->cv, &w->mu);
  pthread_mutex_unlock(&w->mu);
  if (rc == ZKC_OK) w->rc = zkc_mutex_release(w->m);
  return NULL;
}
static int waiter_holds(void *arg) {
  struct held_waiter *w = arg;
  pthread_mutex_lock(&w->mu);
  int held = w->held;
  pthread_mutex_unlock(&w->mu);
  return held;
}
static void waiter_let_go(struct held_waiter *w) {
  pthread_mutex_lock(&w->mu);
  w->let_go = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

/* Learning ahead: the next in line but one (B, behind A behind the holder
 * H) watches A and H. H's release grants A and tells B that A is now the
 * only one ahead: B proves its place while A holds (a sole round: its own
 * node watched, behind a sync), so that A's delete alone grants it. On the
 * code before, B watched A alone until A let go, and read the queue then. */
static void next_but_one_proves_its_place_while_the_next_holds(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *hc = zkt_open(NULL), *cl[2];
  zkc_mutex_t *holder = new_mutex(hc, path);
  OK(zkc_mutex_acquire(holder));
  struct held_waiter w[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    cl[i] = zkt_open(NULL);
    memset(&w[i], 0, sizeof w[i]);
    w[i].m = new_mutex(cl[i], path);
    pthread_mutex_init(&w[i].mu, NULL);
    pthread_cond_init(&w[i].cv, NULL);
    pthread_create(&t[i], NULL, held_waiter_main, &w[i]);
    assert_true(zkt_await_children(path, i + 2, zkt_ms(10000)));
  }
  /* the holder's server may not have applied B's create yet */
  assert_true(zkt_await_participants(holder, 3, zkt_ms(10000)));
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(holder, &nodes, &n));
  assert_int_equal(n, 3);
  int64_t sid_b;
  OK(zkc_client_session_id(cl[1], &sid_b));
  /* B's round: A (its blocker) and H (the node before A) */
  assert_int_equal(zkt_await_session_watches(cl[1], 2, NULL, 0, zkt_ms(5000)), 2);
  assert_true(zkt_session_watches_path(sid_b, nodes[1]));
  assert_true(zkt_session_watches_path(sid_b, nodes[0]));
  assert_false(zkt_session_watches_path(sid_b, nodes[2]));
  OK(zkc_mutex_release(holder));
  assert_true(zkt_await(waiter_holds, &w[0], zkt_ms(10000)));
  /* A holds; B, told by H's delete, proves its place now */
  assert_true(zkt_await_watch(sid_b, nodes[2], 1, zkt_ms(10000)));
  assert_true(zkt_session_watches_path(sid_b, nodes[1]));
  assert_false(waiter_holds(&w[1]));
  waiter_let_go(&w[0]);
  assert_true(zkt_await(waiter_holds, &w[1], zkt_ms(10000)));
  waiter_let_go(&w[1]);
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    OK(w[i].rc);
    OK(zkc_mutex_destroy(w[i].m));
    pthread_cond_destroy(&w[i].cv);
    pthread_mutex_destroy(&w[i].mu);
    zkc_client_close(cl[i]);
  }
  zkt_strings_free(nodes, n);
  OK(zkc_mutex_destroy(holder));
  zkc_client_close(hc);
}

/* ---------------------------------------------------------------------- */

static void holder_killed_frees_lock(void **state) {
  (void)state;
  const int session_ms = 6000; /* outlives the refusal below on a loaded machine */
  char path[512], session[16];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(session, sizeof session, "%d", session_ms);
  const char *holder_bin = getenv("ZKT_HOLDER");
  assert_non_null(holder_bin);
  char *argv[] = {(char *)holder_bin, (char *)zkt_connect(), path, session, NULL};
  zkt_proc_t p = zkt_spawn(argv);
  char line[1300];
  assert_true(zkt_read_line(&p, line, sizeof line, zkt_ms(15000)));
  assert_int_equal(strncmp(line, "HELD ", 5), 0);

  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  assert_int_equal(zkc_mutex_acquire_timeout(m, 0), ZKC_ETIMEDOUT);
  kill(p.pid, SIGKILL);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkt_wait(&p, zkt_ms(5000)), 128 + SIGKILL);
  /* The session expires after its timeout (plus up to a tick of the
   * server's expiry buckets); allow a margin for slow machines. */
  OK(zkc_mutex_acquire_timeout(m, session_ms + zkt_ms(3000)));
  printf("lock freed %lld ms after SIGKILL (session timeout %d ms)\n",
         (long long)(zkt_now_ms() - t0), session_ms);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static int parent_gone(void *ctx) { return !zkt_exists((const char *)ctx, NULL); }

static void container_parent_reaped(void **state) {
  (void)state;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.parent_mode = ZKC_PARENTS_CONTAINER;
  zkc_client_t *c = zkt_open(&o);
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("deep/lock"));
  zkc_mutex_t *m = new_mutex(c, path);
  int64_t last_token = 0;
  for (int round = 0; round < 2; round++) {
    OK(zkc_mutex_acquire(m));
    assert_true(zkt_exists(path, NULL));
    /* The fencing token keeps growing across the parent's re-creation
     * (the sequence restarts at 0 under a new parent; czxid does not). */
    int64_t token;
    OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &token));
    assert_true(token > last_token);
    last_token = token;
    OK(zkc_mutex_release(m));
    /* The servers' container check runs every 100 ms in the test
     * ensemble; an empty container (and then its empty parent) goes. */
    assert_true(zkt_await(parent_gone, path, zkt_ms(10000)));
  }
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void persistent_parent_stays(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("a/b/lock"));
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_release(m));
  struct Stat st;
  assert_true(zkt_exists(path, &st));
  assert_int_equal(st.ephemeralOwner, 0);
  assert_int_equal(st.numChildren, 0);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void destroy_while_held_refused(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, zkt_path("lock"));
  OK(zkc_mutex_acquire(m));
  assert_int_equal(zkc_mutex_destroy(m), ZKC_EBUSY);
  assert_true(zkc_mutex_is_owned_by_current_thread(m));
  assert_int_equal(zkt_children_count(zkt_path("lock")), 1);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  OK(zkc_mutex_destroy(NULL));
  zkc_client_close(c);
  zkc_client_close(NULL);
}

struct blocked {
  zkc_mutex_t *m;
  int rc;
};
static void *blocked_acquire(void *arg) {
  struct blocked *b = arg;
  b->rc = zkc_mutex_acquire(b->m);
  return NULL;
}

static void close_wakes_waiters(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *ma = new_mutex(a, path);
  OK(zkc_mutex_acquire(ma));
  struct blocked w[3];
  pthread_t t[3];
  for (int i = 0; i < 3; i++) {
    w[i] = (struct blocked){new_mutex(b, path), 0};
    pthread_create(&t[i], NULL, blocked_acquire, &w[i]);
  }
  assert_true(zkt_await_children(path, 4, zkt_ms(10000)));
  zkc_client_close(b);
  for (int i = 0; i < 3; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(w[i].rc, ZKC_ECLOSED);
    assert_int_equal(zkc_mutex_acquire(w[i].m), ZKC_ECLOSED);
    OK(zkc_mutex_destroy(w[i].m)); /* after close: still valid to destroy */
  }
  assert_int_equal(zkt_children_count(path), 1); /* the session took its nodes */
  assert_true(zkc_mutex_is_owned_by_current_thread(ma));
  OK(zkc_mutex_release(ma));
  OK(zkc_mutex_destroy(ma));
  zkc_client_close(a);
}

/* The log sink runs on ZooKeeper threads: a blocking call there must fail
 * fast instead of stalling every callback. */
struct cb_probe {
  zkc_mutex_t *m;
  zkc_client_t *c;
  atomic_int calls;
  atomic_int rc_acquire, rc_release, rc_nodes;
};
static struct cb_probe probe;

static void probing_log(void *ctx, zkc_log_level_t level, const char *msg) {
  (void)ctx, (void)level;
  /* zkcoord's own "session 0x... connected" line comes from the session
   * watcher; the ZooKeeper client's lines may come from any thread. */
  if (probe.m == NULL || strncmp(msg, "session 0x", 10) != 0) return;
  char **nodes;
  size_t n;
  atomic_store(&probe.rc_acquire, zkc_mutex_acquire(probe.m));
  atomic_store(&probe.rc_release, zkc_mutex_release(probe.m));
  atomic_store(&probe.rc_nodes, zkt_mutex_nodes(probe.m, &nodes, &n));
  zkc_client_close(probe.c); /* refused: would join this very thread */
  atomic_fetch_add(&probe.calls, 1);
}
static int probe_called(void *ctx) {
  (void)ctx;
  return atomic_load(&probe.calls) > 0;
}

static void blocking_call_from_callback_refused(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  probe.c = c;
  OK(zkc_mutex_create(&probe.m, c, zkt_path("lock")));
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = probing_log;
  o.log_level = ZKC_LOG_INFO;
  /* The session-connected line of a second client is logged from its
   * completion thread. */
  zkc_client_t *c2 = zkt_open(&o);
  assert_true(zkt_await(probe_called, NULL, zkt_ms(5000)));
  zkc_mutex_t *m = probe.m;
  probe.m = NULL;
  assert_int_equal(atomic_load(&probe.rc_acquire), ZKC_EDEADLK);
  assert_int_equal(atomic_load(&probe.rc_release), ZKC_EDEADLK);
  assert_int_equal(atomic_load(&probe.rc_nodes), ZKC_EDEADLK);
  assert_false(zkc_mutex_is_acquired_in_this_process(m));
  assert_int_equal(zkt_children_count(zkt_path("lock")), -1); /* nothing made */
  OK(zkc_mutex_acquire(m)); /* the close from the callback changed nothing */
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c2);
  zkc_client_close(c);
}

static void fencing_token_is_czxid_and_grows(void **state) {
  (void)state;
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  const char *path = zkt_path("lock");
  zkc_mutex_t *m[2] = {new_mutex(a, path), new_mutex(b, path)};
  int64_t last = 0;
  for (int i = 0; i < 6; i++) {
    zkc_mutex_t *mi = m[i % 2];
    OK(zkc_mutex_acquire(mi));
    int64_t token;
    char node[1100];
    OK(zkc_hold_fencing_token(zkc_mutex_hold(mi), &token));
    OK(zkt_hold_node(zkc_mutex_hold(mi), node, sizeof node));
    struct Stat st;
    assert_true(zkt_exists(node, &st));
    assert_int_equal(token, st.czxid);
    assert_true(token > last);
    last = token;
    OK(zkc_mutex_release(mi));
  }
  OK(zkc_mutex_destroy(m[0]));
  OK(zkc_mutex_destroy(m[1]));
  zkc_client_close(a);
  zkc_client_close(b);
}

static void node_data_identifies_holder(void **state) {
  (void)state;
  char expect[300], host[256] = "";
  gethostname(host, sizeof host - 1);
  snprintf(expect, sizeof expect, "%s:%ld", host, (long)getpid());
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.holder_id = "scheduler-7";
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(&o);
  const char *path = zkt_path("lock");
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  zkc_mutex_t *each[2] = {ma, mb};
  const char *want[2] = {expect, "scheduler-7"};
  for (int i = 0; i < 2; i++) {
    OK(zkc_mutex_acquire(each[i]));
    char node[1100], data[400];
    OK(zkt_hold_node(zkc_mutex_hold(each[i]), node, sizeof node));
    assert_true(zkt_get_data(node, data, sizeof data) >= 0);
    assert_string_equal(data, want[i]);
    OK(zkc_mutex_release(each[i]));
  }
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

static void unresolvable_host_is_a_connect_error(void **state) {
  (void)state;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = zkt_log_keep;
  o.connect_timeout_ms = (int)zkt_ms(10000);
  zkc_client_t *c = NULL;
  /* No name resolves (.invalid never does): a connection error, naming
   * the host, not a system error. */
  assert_int_equal(zkc_client_open(&c, "no-such-host.invalid:2181", &o),
                   ZKC_ECONNECT);
  assert_null(c);
  assert_true(zkt_log_has("cannot resolve host 'no-such-host.invalid'"));
  /* Beside a host that resolves, it is skipped. */
  char mixed[1100];
  snprintf(mixed, sizeof mixed, "no-such-host.invalid:2181,%s", zkt_connect());
  OK(zkc_client_open(&c, mixed, &o));
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, zkt_path("jobs/lock")));
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void chroot_connect_string(void **state) {
  (void)state;
  char connect[1024];
  snprintf(connect, sizeof connect, "%s%s", zkt_connect(), zkt_root());
  /* The chroot node must exist: create it through the raw handle. */
  assert_int_equal(zkt_make_root(), ZOK);
  zkc_client_t *c;
  OK(zkc_client_open(&c, connect, NULL));
  zkc_mutex_t *m = new_mutex(c, "/jobs/lock");
  OK(zkc_mutex_acquire(m));
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_int_equal(strncmp(node, "/jobs/lock/_c_", 14), 0); /* client-relative */
  assert_int_equal(zkt_children_count(zkt_path("jobs/lock")), 1);
  OK(zkc_mutex_release(m));
  assert_int_equal(zkt_children_count(zkt_path("jobs/lock")), 0);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(single_holder),
      cmocka_unit_test(reentrant_three_deep),
      cmocka_unit_test(release_nowait_orders_the_next_acquire),
      cmocka_unit_test(quick_cycle_is_two_requests),
      cmocka_unit_test(quick_not_fooled_by_the_base_made_again),
      cmocka_unit_test(quick_not_fooled_by_the_base_made_again_mid_acquire),
      cmocka_unit_test(quick_not_fooled_by_a_node_between),
      cmocka_unit_test(quick_not_taken_beside_another_child),
      cmocka_unit_test(quick_watches_of_two_locks_settle),
      cmocka_unit_test(quick_mutex_destroyed_after_its_client_closed),
      cmocka_unit_test(release_by_other_thread_refused),
      cmocka_unit_test(timeout_leaves_no_node),
      cmocka_unit_test(try_lock_twenty_threads_one_winner),
      cmocka_unit_test(no_overlap_eight_threads_four_clients),
      cmocka_unit_test(fifo_handoff_order),
      cmocka_unit_test(two_watches_per_waiter),
      cmocka_unit_test(one_watch_per_waiter_where_round_trips_are_short),
      cmocka_unit_test(a_new_connection_measures_its_round_trips_quickly),
      cmocka_unit_test(a_client_s_syncs_feed_its_round_trip_floor),
      cmocka_unit_test(next_but_one_proves_its_place_while_the_next_holds),
      cmocka_unit_test(holder_killed_frees_lock),
      cmocka_unit_test(container_parent_reaped),
      cmocka_unit_test(persistent_parent_stays),
      cmocka_unit_test(destroy_while_held_refused),
      cmocka_unit_test(close_wakes_waiters),
      cmocka_unit_test(blocking_call_from_callback_refused),
      cmocka_unit_test(fencing_token_is_czxid_and_grows),
      cmocka_unit_test(node_data_identifies_holder),
      cmocka_unit_test(chroot_connect_string),
      cmocka_unit_test(unresolvable_host_is_a_connect_error),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "mutex");
}
