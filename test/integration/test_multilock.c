/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-lock on the real ensemble: one CTest entry per case. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static zkc_mutex_t *new_mutex(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  return m;
}

static zkc_multilock_t *new_multilock(zkc_mutex_t *const *locks, size_t n) {
  zkc_multilock_t *ml = NULL;
  OK(zkc_multilock_create(&ml, locks, n));
  return ml;
}

/* Three lock paths under the test's root, named so that byte order is
 * a < b < c (zkt_path's buffer is reused: copies). */
typedef struct paths {
  char a[1100], b[1100], c[1100];
} paths_t;

static void make_paths(paths_t *p) {
  snprintf(p->a, sizeof p->a, "%s", zkt_path("a"));
  snprintf(p->b, sizeof p->b, "%s", zkt_path("b"));
  snprintf(p->c, sizeof p->c, "%s", zkt_path("c"));
}

/* n (up to 3) mutexes of client c on a, b, c, in that order. */
static void new_set(zkc_client_t *c, const paths_t *p, zkc_mutex_t **m,
                    size_t n) {
  const char *path[3] = {p->a, p->b, p->c};
  for (size_t i = 0; i < n; i++) m[i] = new_mutex(c, path[i]);
}

static int owns_none(zkc_mutex_t *const *m, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (zkc_mutex_is_owned_by_current_thread(m[i])) return 0;
  return 1;
}

static void sleep_ms(int64_t ms) {
  struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  nanosleep(&t, NULL);
}

/* No lock node left on path (it may be gone altogether). */
static int no_node(void *path) { return zkt_children_count(path) <= 0; }

static void destroy_all(zkc_mutex_t **m, size_t n) {
  for (size_t i = 0; i < n; i++) OK(zkc_mutex_destroy(m[i]));
}

/* ---------------------------------------------------------------------- */

/* One component held by another client: the set times out, and what was
 * taken before it (a, in path order) is given back. */
static void all_or_nothing(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *m[3], *other = new_mutex(b, p.b);
  new_set(a, &p, m, 3);
  zkc_multilock_t *ml = new_multilock(m, 3);

  OK(zkc_mutex_acquire(other));
  assert_int_equal(zkc_multilock_acquire_timeout(ml, zkt_ms(300)), ZKC_ETIMEDOUT);
  assert_true(owns_none(m, 3));
  assert_false(zkc_hold_is_held(zkc_multilock_hold(ml)));
  assert_true(zkt_await(no_node, p.a, zkt_ms(10000)));
  assert_true(zkt_await(no_node, p.c, zkt_ms(10000)));
  assert_int_equal(zkt_children_count(p.b), 1); /* the other client's only */
  assert_true(zkc_hold_is_held(zkc_mutex_hold(other)));
  OK(zkc_multilock_destroy(ml)); /* nothing held through it */

  /* Timeout 0 tries each lock once, with the same outcome; once the lock
   * in the way is free, the set is taken. */
  ml = new_multilock(m, 3);
  assert_int_equal(zkc_multilock_acquire_timeout(ml, 0), ZKC_ETIMEDOUT);
  assert_true(owns_none(m, 3));
  OK(zkc_mutex_release(other));
  OK(zkc_multilock_acquire_timeout(ml, zkt_ms(5000)));
  assert_true(zkc_hold_is_held(zkc_multilock_hold(ml)));
  OK(zkc_multilock_release(ml));
  assert_true(owns_none(m, 3));
  OK(zkc_multilock_destroy(ml));
  destroy_all(m, 3);
  OK(zkc_mutex_destroy(other));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* Another client's thread holds all three paths and lets a go at 0.6 T
 * and b at 1.2 T (T the set's timeout; the sleeps are the scenario, not
 * synchronisation). With one deadline the set gives up at T; with the
 * full timeout per lock (Curator) it would wait until 2.2 T. */
typedef struct blocker {
  zkc_mutex_t *m[3];
  int64_t t_ms;
  atomic_int ready, stop;
  int rc; /* the first failure (cmocka's asserts are for the main thread) */
} blocker_t;

static void note(blocker_t *k, int rc) {
  if (k->rc == ZKC_OK) k->rc = rc;
}

static void *block_then_yield(void *arg) {
  blocker_t *k = arg;
  for (int i = 0; i < 3; i++) note(k, zkc_mutex_acquire(k->m[i]));
  atomic_store(&k->ready, 1);
  sleep_ms(k->t_ms * 6 / 10);
  note(k, zkc_mutex_release(k->m[0]));
  sleep_ms(k->t_ms * 6 / 10);
  note(k, zkc_mutex_release(k->m[1]));
  while (!atomic_load(&k->stop)) sleep_ms(5);
  note(k, zkc_mutex_release(k->m[2]));
  return NULL;
}

static int flag_set(void *f) { return atomic_load((atomic_int *)f); }

static void one_deadline_for_the_set(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *m[3];
  blocker_t k = {.t_ms = zkt_ms(1500)};
  new_set(a, &p, m, 3);
  new_set(b, &p, k.m, 3);
  zkc_multilock_t *ml = new_multilock(m, 3);
  pthread_t t;
  pthread_create(&t, NULL, block_then_yield, &k);
  assert_true(zkt_await(flag_set, &k.ready, zkt_ms(10000)));

  int64_t start = zkt_now_ms();
  assert_int_equal(zkc_multilock_acquire_timeout(ml, k.t_ms), ZKC_ETIMEDOUT);
  int64_t took = zkt_now_ms() - start;
  assert_true(owns_none(m, 3));
  atomic_store(&k.stop, 1);
  pthread_join(t, NULL);
  OK(k.rc);
  /* a was taken on the way (and given back): the set waited past 0.6 T. */
  assert_true(took >= k.t_ms - 20);
  if (took >= 2 * k.t_ms)
    fail_msg("the set waited %lld ms for a timeout of %lld ms",
             (long long)took, (long long)k.t_ms);
  OK(zkc_multilock_destroy(ml));
  destroy_all(m, 3);
  destroy_all(k.m, 3);
  zkc_client_close(a);
  zkc_client_close(b);
}

/* Given as c, a, b: taken in path order (each node's czxid, its fencing
 * token, grows with it) and released in reverse (the parent's pzxid,
 * moved by the delete of its child, grows from c to a). */
static void path_order_in_reverse_out(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL);
  zkc_mutex_t *m[3];
  new_set(a, &p, m, 3);
  zkc_mutex_t *ma = m[0], *mb = m[1], *mc = m[2], *given[3] = {mc, ma, mb};
  zkc_multilock_t *ml = new_multilock(given, 3);

  OK(zkc_multilock_acquire(ml));
  assert_true(zkc_hold_is_held(zkc_multilock_hold(ml)));
  int64_t ta, tb, tc;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(ma), &ta));
  OK(zkc_hold_fencing_token(zkc_mutex_hold(mb), &tb));
  OK(zkc_hold_fencing_token(zkc_mutex_hold(mc), &tc));
  assert_true(ta < tb && tb < tc);

  OK(zkc_multilock_release(ml));
  assert_true(owns_none(given, 3));
  struct Stat sa, sb, sc;
  assert_true(zkt_exists(p.a, &sa) && zkt_exists(p.b, &sb) && zkt_exists(p.c, &sc));
  assert_true(sc.pzxid < sb.pzxid && sb.pzxid < sa.pzxid);
  OK(zkc_multilock_destroy(ml));
  destroy_all(given, 3);
  zkc_client_close(a);
}

/* Two clients, each on its own thread, loop over overlapping sets given
 * in opposite orders: {a, b, c} and {c, b, a} minus a plus a fourth path.
 * Unsorted, each would take its first lock and wait for the other's. Every
 * round first tries at once (the failure path: nothing may stay held),
 * then waits; both must finish their rounds, never inside together. */
#define ROUNDS 15

typedef struct racer {
  zkc_client_t *c;
  zkc_mutex_t *m[3];
  zkc_multilock_t *ml;
  atomic_int *inside;
  int overlaps, tries_failed, rounds;
  char failure[200];
} racer_t;

static void *race(void *arg) {
  racer_t *r = arg;
  for (int i = 0; i < ROUNDS && !r->failure[0]; i++) {
    int rc = zkc_multilock_acquire_timeout(r->ml, 0);
    if (rc != ZKC_OK) {
      r->tries_failed++;
      if (rc != ZKC_ETIMEDOUT || !owns_none(r->m, 3)) {
        snprintf(r->failure, sizeof r->failure,
                 "failed try (%s) left the set half held", zkc_err_name(rc));
        break;
      }
      rc = zkc_multilock_acquire_timeout(r->ml, zkt_ms(30000));
    }
    if (rc != ZKC_OK) {
      snprintf(r->failure, sizeof r->failure, "acquire: %s", zkc_err_name(rc));
      break;
    }
    if (atomic_fetch_add(r->inside, 1) != 0) r->overlaps++;
    if (!zkc_hold_is_held(zkc_multilock_hold(r->ml))) snprintf(r->failure, sizeof r->failure, "not held");
    sleep_ms(2); /* a short critical section, so the other side queues */
    atomic_fetch_sub(r->inside, 1);
    if ((rc = zkc_multilock_release(r->ml)) != ZKC_OK)
      snprintf(r->failure, sizeof r->failure, "release: %s", zkc_err_name(rc));
    r->rounds++;
  }
  return NULL;
}

static void overlapping_sets_never_deadlock(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  char d[1100];
  snprintf(d, sizeof d, "%s", zkt_path("d"));
  atomic_int inside = 0;
  racer_t r[2] = {{.inside = &inside}, {.inside = &inside}};
  r[0].c = zkt_open(NULL);
  r[1].c = zkt_open(NULL);
  new_set(r[0].c, &p, r[0].m, 3);
  r[1].m[0] = new_mutex(r[1].c, d);
  r[1].m[1] = new_mutex(r[1].c, p.c);
  r[1].m[2] = new_mutex(r[1].c, p.b);
  for (int i = 0; i < 2; i++) r[i].ml = new_multilock(r[i].m, 3);

  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, race, &r[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 2; i++) {
    if (r[i].failure[0]) fail_msg("side %d: %s", i, r[i].failure);
    assert_int_equal(r[i].rounds, ROUNDS);
    assert_int_equal(r[i].overlaps, 0);
    assert_true(owns_none(r[i].m, 3));
    OK(zkc_multilock_destroy(r[i].ml));
    destroy_all(r[i].m, 3);
  }
  printf("tries that found the other side inside: %d, %d\n", r[0].tries_failed,
         r[1].tries_failed);
  zkc_client_close(r[0].c);
  zkc_client_close(r[1].c);
}

/* The same from two processes: a set and an overlapping one in the
 * opposite order, each taken in turns by its own process. */
static void overlapping_sets_from_two_processes(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  char d[1100], marker[300];
  snprintf(d, sizeof d, "%s", zkt_path("d"));
  snprintf(marker, sizeof marker, "%s/zkcoord-multilock-%d",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  unlink(marker);
  const char *bin = getenv("ZKT_MULTILOCK_RACER");
  if (bin == NULL) fail_msg("ZKT_MULTILOCK_RACER is not set");
  char rounds[8];
  snprintf(rounds, sizeof rounds, "%d", ROUNDS);
  char *one[] = {(char *)bin, (char *)zkt_connect(), rounds, marker,
                 p.a, p.b, p.c, NULL};
  char *other[] = {(char *)bin, (char *)zkt_connect(), rounds, marker,
                   d, p.c, p.b, NULL};
  zkt_proc_t x = zkt_spawn(one), y = zkt_spawn(other);
  char line[64];
  assert_true(zkt_expect(&x, "DONE", line, sizeof line, zkt_ms(60000)));
  printf("first: %s\n", line);
  assert_true(zkt_expect(&y, "DONE", line, sizeof line, zkt_ms(60000)));
  printf("second: %s\n", line);
  assert_int_equal(zkt_wait(&x, zkt_ms(10000)), 0);
  assert_int_equal(zkt_wait(&y, zkt_ms(10000)), 0);
}

/* Holds follow the components: per thread, counted, one node per path. */
static void reentrant(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL);
  zkc_mutex_t *m[2];
  new_set(a, &p, m, 2);
  zkc_multilock_t *ml = new_multilock(m, 2);

  OK(zkc_multilock_acquire(ml));
  OK(zkc_multilock_acquire_timeout(ml, 0));
  assert_int_equal(zkt_children_count(p.a), 1);
  assert_int_equal(zkt_children_count(p.b), 1);
  OK(zkc_multilock_release(ml));
  assert_true(zkc_hold_is_held(zkc_multilock_hold(ml)));
  assert_int_equal(zkc_multilock_destroy(ml), ZKC_EBUSY);
  OK(zkc_multilock_release(ml));
  assert_false(zkc_hold_is_held(zkc_multilock_hold(ml)));
  assert_true(owns_none(m, 2));
  assert_int_equal(zkc_multilock_release(ml), ZKC_ENOTOWNER);

  /* A component the thread held already is counted once more, and given
   * back to its old count when the set fails. */
  zkc_client_t *b = zkt_open(NULL);
  zkc_mutex_t *other = new_mutex(b, p.b);
  OK(zkc_mutex_acquire(other));
  OK(zkc_mutex_acquire(m[0]));
  assert_int_equal(zkc_multilock_acquire_timeout(ml, 0), ZKC_ETIMEDOUT);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m[0])));
  OK(zkc_mutex_release(m[0]));
  assert_false(zkc_mutex_is_owned_by_current_thread(m[0]));
  OK(zkc_mutex_release(other));
  OK(zkc_mutex_destroy(other));
  zkc_client_close(b);

  OK(zkc_multilock_destroy(ml));
  destroy_all(m, 2);
  zkc_client_close(a);
}

typedef struct other_call {
  zkc_multilock_t *ml;
  int rc, held, destroy_rc;
} other_call_t;

static void *release_from_other(void *arg) {
  other_call_t *o = arg;
  o->rc = zkc_multilock_release(o->ml);
  o->held = zkc_hold_is_held(zkc_multilock_hold(o->ml));
  o->destroy_rc = zkc_multilock_destroy(o->ml);
  return NULL;
}

/* Only the thread holding every lock releases; anyone else, or a thread
 * holding some of them, gets ZKC_ENOTOWNER and nothing changes. */
static void release_by_non_owner_refused(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL);
  zkc_mutex_t *m[2];
  new_set(a, &p, m, 2);
  zkc_multilock_t *ml = new_multilock(m, 2);

  OK(zkc_multilock_acquire(ml));
  other_call_t o = {.ml = ml};
  pthread_t t;
  pthread_create(&t, NULL, release_from_other, &o);
  pthread_join(t, NULL);
  assert_int_equal(o.rc, ZKC_ENOTOWNER);
  assert_false(o.held);
  assert_int_equal(o.destroy_rc, ZKC_EBUSY);
  assert_true(zkc_hold_is_held(zkc_multilock_hold(ml)));
  assert_int_equal(zkt_children_count(p.a), 1);
  assert_int_equal(zkt_children_count(p.b), 1);
  OK(zkc_multilock_release(ml));

  /* Half of the set held, lock by lock: refused, the half stays held. */
  OK(zkc_mutex_acquire(m[1]));
  assert_int_equal(zkc_multilock_release(ml), ZKC_ENOTOWNER);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m[1])));
  assert_false(zkc_hold_is_held(zkc_multilock_hold(ml)));
  assert_int_equal(zkt_children_count(p.b), 1);
  OK(zkc_mutex_release(m[1]));
  assert_false(zkc_mutex_is_owned_by_current_thread(m[1]));

  OK(zkc_multilock_destroy(ml));
  destroy_all(m, 2);
  zkc_client_close(a);
}

typedef struct waiter {
  zkc_multilock_t *ml;
  int rc;
} waiter_t;

static void *acquire_and_release(void *arg) {
  waiter_t *w = arg;
  w->rc = zkc_multilock_acquire_timeout(w->ml, zkt_ms(30000));
  if (w->rc == ZKC_OK) w->rc = zkc_multilock_release(w->ml);
  return NULL;
}

/* Destroy refuses while the set is held through the object or a thread
 * is inside a call on it. */
static void destroy_while_held_or_waiting_busy(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *m[2];
  new_set(a, &p, m, 2);
  zkc_multilock_t *ml = new_multilock(m, 2);

  OK(zkc_multilock_acquire(ml));
  assert_int_equal(zkc_multilock_destroy(ml), ZKC_EBUSY);
  assert_true(zkc_hold_is_held(zkc_multilock_hold(ml)));
  OK(zkc_multilock_release(ml));

  zkc_mutex_t *other = new_mutex(b, p.b);
  OK(zkc_mutex_acquire(other));
  waiter_t w = {.ml = ml};
  pthread_t t;
  pthread_create(&t, NULL, acquire_and_release, &w);
  /* The waiter holds a and queues on b. */
  assert_true(zkt_await_participants(other, 2, zkt_ms(10000)));
  assert_int_equal(zkc_multilock_destroy(ml), ZKC_EBUSY);
  OK(zkc_mutex_release(other));
  pthread_join(t, NULL);
  OK(w.rc);
  OK(zkc_multilock_destroy(ml));
  OK(zkc_mutex_destroy(other));
  destroy_all(m, 2);
  zkc_client_close(a);
  zkc_client_close(b);
}

/* One path twice (the same object, or two objects on it) would make the
 * thread queue behind itself: refused at create. */
static void one_path_twice_refused(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL);
  zkc_mutex_t *ma = new_mutex(a, p.a), *mb = new_mutex(a, p.b),
              *ma2 = new_mutex(a, p.a);
  zkc_multilock_t *ml = (zkc_multilock_t *)1;
  zkc_mutex_t *same[3] = {ma, mb, ma};
  assert_int_equal(zkc_multilock_create(&ml, same, 3), ZKC_EINVAL);
  assert_null(ml);
  zkc_mutex_t *two[3] = {ma2, mb, ma};
  assert_int_equal(zkc_multilock_create(&ml, two, 3), ZKC_EINVAL);
  assert_null(ml);
  /* The caller's array is copied (sorted copy): changing it does nothing. */
  zkc_mutex_t *one[2] = {mb, ma};
  OK(zkc_multilock_create(&ml, one, 2));
  one[0] = one[1] = NULL;
  OK(zkc_multilock_acquire(ml));
  assert_true(zkc_hold_is_held(zkc_mutex_hold(ma)) && zkc_hold_is_held(zkc_mutex_hold(mb)));
  OK(zkc_multilock_release(ml));
  OK(zkc_multilock_destroy(ml));
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  OK(zkc_mutex_destroy(ma2));
  zkc_client_close(a);
}

/* Mutexes and read-write sides mix: a write side in a set excludes other
 * readers, read sides of two sets share the path, and both sides of one
 * read-write lock (one path) are refused. */
static void mutex_and_read_write_sides(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL), *w = zkt_open(NULL);
  zkc_mutex_t *ma = new_mutex(a, p.a), *mc = new_mutex(b, p.c);
  zkc_rwlock_t *rwa, *rwb, *rww;
  OK(zkc_rwlock_create(&rwa, a, p.b));
  OK(zkc_rwlock_create(&rwb, b, p.b));
  OK(zkc_rwlock_create(&rww, w, p.b));
  zkc_multilock_t *ml = NULL;
  zkc_mutex_t *sides[2] = {zkc_rwlock_read_side(rwa), zkc_rwlock_write_side(rwa)};
  assert_int_equal(zkc_multilock_create(&ml, sides, 2), ZKC_EINVAL);

  /* The write side with a mutex: readers wait. */
  zkc_mutex_t *wset[2] = {zkc_rwlock_write_side(rwa), ma};
  zkc_multilock_t *mlw = new_multilock(wset, 2);
  OK(zkc_multilock_acquire_timeout(mlw, zkt_ms(10000)));
  assert_true(zkc_hold_is_held(zkc_multilock_hold(mlw)));
  assert_int_equal(zkc_mutex_acquire_timeout(zkc_rwlock_read_side(rwb), 0),
                   ZKC_ETIMEDOUT);
  OK(zkc_multilock_release(mlw));

  /* Read sides in two sets, with different mutexes: held together. */
  zkc_mutex_t *ra[2] = {ma, zkc_rwlock_read_side(rwa)};
  zkc_mutex_t *rb[2] = {zkc_rwlock_read_side(rwb), mc};
  zkc_multilock_t *mla = new_multilock(ra, 2), *mlb = new_multilock(rb, 2);
  OK(zkc_multilock_acquire_timeout(mla, zkt_ms(10000)));
  OK(zkc_multilock_acquire_timeout(mlb, zkt_ms(10000)));
  assert_int_equal(zkc_mutex_acquire_timeout(zkc_rwlock_write_side(rww), 0),
                   ZKC_ETIMEDOUT);
  /* The write side's set asked by this thread, a reader of the same lock:
   * refused at once, and the mutex taken on the way (a second level of
   * ma) is given back, as owns_none shows after mla's release. */
  assert_int_equal(zkc_multilock_acquire_timeout(mlw, 0), ZKC_EDEADLK);
  OK(zkc_multilock_release(mlb));
  assert_true(zkc_hold_is_held(zkc_multilock_hold(mla)));
  OK(zkc_multilock_release(mla));
  assert_true(owns_none(wset, 2) && owns_none(rb, 2));

  OK(zkc_multilock_destroy(mlw));
  OK(zkc_multilock_destroy(mla));
  OK(zkc_multilock_destroy(mlb));
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mc));
  OK(zkc_rwlock_destroy(rwa));
  OK(zkc_rwlock_destroy(rwb));
  OK(zkc_rwlock_destroy(rww));
  zkc_client_close(a);
  zkc_client_close(b);
  zkc_client_close(w);
}

/* A component whose delete the server refuses (the parent's ACL lacks
 * DELETE) stays held by the thread as a lock of its own; the set is done
 * with, and the lock is released on its own once the cause is gone. */
static void refused_release_leaves_that_lock_held(void **state) {
  (void)state;
  paths_t p;
  make_paths(&p);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m[2];
  new_set(c, &p, m, 2);
  zkc_multilock_t *ml = new_multilock(m, 2);
  OK(zkc_multilock_acquire(ml));
  zkt_deny_delete(p.a, 1);
  assert_int_equal(zkc_multilock_release(ml), ZKC_ENOAUTH);
  assert_true(zkc_mutex_is_owned_by_current_thread(m[0]));  /* refused */
  assert_false(zkc_mutex_is_owned_by_current_thread(m[1])); /* released */
  assert_int_equal(zkc_multilock_release(ml), ZKC_ENOTOWNER);
  OK(zkc_multilock_destroy(ml));
  zkt_deny_delete(p.a, 0);
  OK(zkc_mutex_release(m[0]));
  destroy_all(m, 2);
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(all_or_nothing),
      cmocka_unit_test(one_deadline_for_the_set),
      cmocka_unit_test(path_order_in_reverse_out),
      cmocka_unit_test(overlapping_sets_never_deadlock),
      cmocka_unit_test(overlapping_sets_from_two_processes),
      cmocka_unit_test(reentrant),
      cmocka_unit_test(release_by_non_owner_refused),
      cmocka_unit_test(destroy_while_held_or_waiting_busy),
      cmocka_unit_test(one_path_twice_refused),
      cmocka_unit_test(mutex_and_read_write_sides),
      cmocka_unit_test(refused_release_leaves_that_lock_held),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "multilock");
}
