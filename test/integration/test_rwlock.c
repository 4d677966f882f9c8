/* SPDX-License-Identifier: Apache-2.0 */
/* The read-write lock and revocation on the real ensemble: readers share,
 * writers exclude, FIFO between the kinds, downgrade and upgrade, the side
 * as a mutex (lost, token, fenced write), revocation requests. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "zkcoord/rwlock.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

typedef struct side_ctx {
  zkc_client_t *c;
  const char *path;
  int write;
  int64_t timeout_ms;
  int rc;
  atomic_int granted;
  int64_t granted_ns;
  int64_t token; /* the hold's fencing token */
  atomic_int release; /* set by the test: let go */
  int64_t released_ns;
} side_ctx_t;

/* A thread with its own client and lock: acquire, then hold until told. */
static void *holder(void *arg) {
  side_ctx_t *x = arg;
  zkc_rwlock_t *rw;
  OK(zkc_rwlock_create(&rw, x->c, x->path));
  zkc_mutex_t *m = x->write ? zkc_rwlock_write_side(rw) : zkc_rwlock_read_side(rw);
  x->rc = zkc_mutex_acquire_timeout(m, x->timeout_ms);
  if (x->rc == ZKC_OK) {
    x->granted_ns = zkt_now_ns();
    OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &x->token));
    atomic_store(&x->granted, 1);
    while (!atomic_load(&x->release)) nap_ms(2);
    x->released_ns = zkt_now_ns();
    OK(zkc_mutex_release(m));
  }
  atomic_store(&x->granted, x->rc == ZKC_OK ? 2 : -1);
  OK(zkc_rwlock_destroy(rw));
  return NULL;
}

static int is_granted(void *arg) {
  return atomic_load(&((side_ctx_t *)arg)->granted) != 0;
}

static void start(pthread_t *t, side_ctx_t *x, const char *path, int write) {
  x->c = zkt_open(NULL);
  x->path = path;
  x->write = write;
  if (x->timeout_ms == 0) x->timeout_ms = zkt_ms(30000);
  atomic_init(&x->granted, 0);
  atomic_init(&x->release, 0);
  assert_int_equal(pthread_create(t, NULL, holder, x), 0);
}

/* A read-write lock on this test's path, on a client of its own. */
typedef struct rw_fx {
  char path[700];
  zkc_client_t *c;
  zkc_rwlock_t *rw;
  zkc_mutex_t *w, *r;
} rw_fx_t;

static void rw_open(rw_fx_t *f) {
  snprintf(f->path, sizeof f->path, "%s", zkt_path("rw"));
  f->c = zkt_open(NULL);
  OK(zkc_rwlock_create(&f->rw, f->c, f->path));
  f->w = zkc_rwlock_write_side(f->rw);
  f->r = zkc_rwlock_read_side(f->rw);
}

static void rw_close(rw_fx_t *f) {
  OK(zkc_rwlock_destroy(f->rw));
  zkc_client_close(f->c);
}

static void finish(pthread_t t, side_ctx_t *x) {
  atomic_store(&x->release, 1);
  pthread_join(t, NULL);
  zkc_client_close(x->c);
}

/* Readers share; a writer waits for them and excludes both kinds. */
static void readers_share_writer_excludes(void **state) {
  (void)state;
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  pthread_t t1, t2;
  side_ctx_t r1 = {0}, r2 = {0};
  start(&t1, &r1, path, 0);
  start(&t2, &r2, path, 0);
  assert_true(zkt_await(is_granted, &r1, zkt_ms(10000)));
  assert_true(zkt_await(is_granted, &r2, zkt_ms(10000)));
  OK(r1.rc);
  OK(r2.rc); /* both at once */

  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  OK(zkc_rwlock_create(&rw, c, path));
  zkc_mutex_t *w = zkc_rwlock_write_side(rw);
  assert_int_equal(zkc_mutex_acquire_timeout(w, zkt_ms(300)), ZKC_ETIMEDOUT);
  /* the timed-out node went (in the background if answered past the
   * call's grace) */
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  finish(t1, &r1);
  finish(t2, &r2);
  OK(zkc_mutex_acquire_timeout(w, zkt_ms(10000)));
  pthread_t t3;
  side_ctx_t r3 = {.timeout_ms = zkt_ms(300)};
  start(&t3, &r3, path, 0);
  pthread_join(t3, NULL);
  zkc_client_close(r3.c);
  assert_int_equal(r3.rc, ZKC_ETIMEDOUT);
  OK(zkc_mutex_release(w));
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(c);
  assert_true(zkt_await_closed(path, 0));
}

/* A reader arriving behind a queued writer waits for it (no writer
 * starvation); the writer is granted when the reader ahead leaves, the
 * later reader when the writer leaves. */
static void fifo_between_kinds(void **state) {
  (void)state;
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  pthread_t tr, tw, tr2;
  side_ctx_t r = {0}, w = {0}, r2 = {0};
  start(&tr, &r, path, 0);
  assert_true(zkt_await(is_granted, &r, zkt_ms(10000)));
  start(&tw, &w, path, 1);
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  start(&tr2, &r2, path, 0);
  assert_true(zkt_await_children_exactly(path, 3, zkt_ms(10000)));
  finish(tr, &r);
  assert_true(zkt_await(is_granted, &w, zkt_ms(10000)));
  OK(w.rc);
  assert_int_equal(atomic_load(&r2.granted), 0); /* behind the writer */
  finish(tw, &w);
  assert_true(zkt_await(is_granted, &r2, zkt_ms(10000)));
  OK(r2.rc);
  assert_true(r2.granted_ns > w.released_ns);
  finish(tr2, &r2);
}

/* Many readers and writers in their own sessions: no writer's hold meets
 * any other hold. */
typedef struct cycler {
  const char *path;
  int write, rounds, errors;
  int64_t start[8], end[8];
} cycler_t;

static void *cycle(void *arg) {
  cycler_t *y = arg;
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  OK(zkc_rwlock_create(&rw, c, y->path));
  zkc_mutex_t *m = y->write ? zkc_rwlock_write_side(rw) : zkc_rwlock_read_side(rw);
  for (int i = 0; i < y->rounds; i++) {
    if (zkc_mutex_acquire_timeout(m, zkt_ms(30000)) != ZKC_OK) {
      y->errors++;
      continue;
    }
    y->start[i] = zkt_now_ns();
    nap_ms(10); /* the work under the lock: long enough to meet others */
    y->end[i] = zkt_now_ns();
    if (zkc_mutex_release(m) != ZKC_OK) y->errors++;
  }
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(c);
  return NULL;
}

static int overlaps(int64_t s1, int64_t e1, int64_t s2, int64_t e2) {
  return s1 < e2 && s2 < e1;
}

static void writers_never_overlap_anyone(void **state) {
  (void)state;
  enum { N = 6, ROUNDS = 8 };
  cycler_t y[N];
  pthread_t t[N];
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  for (int i = 0; i < N; i++) {
    y[i] = (cycler_t){.path = path, .write = i < 2, .rounds = ROUNDS};
    assert_int_equal(pthread_create(&t[i], NULL, cycle, &y[i]), 0);
  }
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < N; i++) assert_int_equal(y[i].errors, 0);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      if (i == j || (!y[i].write && !y[j].write)) continue;
      for (int a = 0; a < ROUNDS; a++)
        for (int b = 0; b < ROUNDS; b++)
          if (overlaps(y[i].start[a], y[i].end[a], y[j].start[b], y[j].end[b]))
            fail_msg("holder %d (%s) overlaps holder %d (%s)", i,
                     y[i].write ? "writer" : "reader", j,
                     y[j].write ? "writer" : "reader");
    }
}

/* The write holder takes the read side at once, on a node with its write
 * node's sequence; a writer queued meanwhile stays behind the reader after
 * the write side is released (CURATOR-621). */
static void downgrade_keeps_queued_writer_behind(void **state) {
  (void)state;
  rw_fx_t f;
  rw_open(&f);
  const char *path = f.path;
  zkc_mutex_t *w = f.w, *r = f.r;
  OK(zkc_mutex_acquire(w));
  pthread_t tw;
  side_ctx_t other = {0};
  start(&tw, &other, path, 1);
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));

  /* Granted as the writer, not queued: queued, it would wait behind the
   * writer that waits on our own write node, until this timeout. (Not a
   * timeout of 0: the downgrade is two round trips, and a timeout of 0
   * gives a call one grace of 200 ms, which a sanitizer tree on a loaded
   * machine can outlast: ZKC_ETIMEDOUT, as documented.) */
  OK(zkc_mutex_acquire_timeout(r, zkt_ms(5000)));
  char wn[1100], rn[1100];
  OK(zkt_hold_node(zkc_mutex_hold(w), wn, sizeof wn));
  OK(zkt_hold_node(zkc_mutex_hold(r), rn, sizeof rn));
  assert_non_null(strstr(rn, "__READ__"));
  assert_string_equal(strrchr(wn, '_') + 1, strrchr(rn, '_') + 1);
  int64_t tw_token, tr_token;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(w), &tw_token));
  OK(zkc_hold_fencing_token(zkc_mutex_hold(r), &tr_token));
  assert_int_equal(tr_token, tw_token); /* the write hold's token */

  OK(zkc_mutex_release(w)); /* keeps the read side */
  assert_true(zkc_hold_is_held(zkc_mutex_hold(r)));
  /* The queued writer sees the read node before it. */
  zkc_rwlock_t *probe;
  zkc_client_t *pc = zkt_open(NULL);
  OK(zkc_rwlock_create(&probe, pc, path));
  assert_int_equal(zkc_mutex_acquire_timeout(zkc_rwlock_write_side(probe),
                                             zkt_ms(300)),
                   ZKC_ETIMEDOUT);
  int64_t read_released = zkt_now_ns();
  OK(zkc_mutex_release(r));
  assert_true(zkt_await(is_granted, &other, zkt_ms(10000)));
  OK(other.rc);
  assert_true(other.granted_ns > read_released);
  finish(tw, &other);
  OK(zkc_rwlock_destroy(probe));
  zkc_client_close(pc);
  rw_close(&f);
}

/* The writer waits on the read node or holds (a wrong grant). */
typedef struct read_node_seen {
  side_ctx_t *x;
  int64_t session;
  const char *read_node;
} read_node_seen_t;
static int granted_or_behind_read_node(void *arg) {
  read_node_seen_t *s = arg;
  return is_granted(s->x) ||
         zkt_session_watches_path(s->session, s->read_node);
}

/* A writer behind a write node alone is granted on that node's delete
 * alone only if no child joined the path meanwhile (the guarded round:
 * its children watch). A downgrade by another client (Curator's: a read
 * node carrying the write node's sequence, here made by an outsider) in
 * the same transaction as the write node's delete tells both events at
 * once, the read node's first: the writer must wait on the read node.
 * Three rounds: the children read behind the write node's watch may come
 * after the transaction (then it shows the read node, a safe read again),
 * and the wrong grant races the events' handling; with the children's
 * event ignored, the writer was granted in 4 runs of 4. */
static void downgrade_round(const char *path, int round) {
  char wnode[800];
  zkt_raw_child(path, "_c_11111111-1111-4111-8111-111111111111-__WRIT__",
                wnode, sizeof wnode);
  pthread_t tw;
  side_ctx_t other = {0};
  start(&tw, &other, path, 1);
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  int64_t sid;
  OK(zkc_client_session_id(other.c, &sid));
  /* its guarded round is set: the watch on the write node, the read of
   * the path's children with their watch sent behind it (the server's
   * list of watches shows data watches only) */
  assert_true(zkt_await_watch(sid, wnode, 1, zkt_ms(10000)));
  char rnode[800];
  snprintf(rnode, sizeof rnode,
           "%s/_c_22222222-2222-4222-8222-22222222222%d-__READ__%s", path,
           round, strrchr(wnode, '_') + 1);
  zoo_op_t ops[2];
  zoo_op_result_t res[2];
  zoo_create_op_init(&ops[0], rnode, "", 0, &ZOO_OPEN_ACL_UNSAFE,
                     ZOO_EPHEMERAL, NULL, 0);
  zoo_delete_op_init(&ops[1], wnode, -1);
  assert_int_equal(zoo_multi(zkt_raw(), 2, ops, res), ZOK);
  /* awaited, then checked: a check made at once would pass while a wrong
   * grant was on its way */
  read_node_seen_t seen = {.x = &other, .session = sid, .read_node = rnode};
  assert_true(zkt_await(granted_or_behind_read_node, &seen, zkt_ms(10000)));
  if (is_granted(&other))
    fail_msg("round %d: the writer was granted beside the read node %s",
             round, rnode);
  assert_int_equal(zoo_delete(zkt_raw(), rnode, -1), ZOK);
  assert_true(zkt_await(is_granted, &other, zkt_ms(10000)));
  OK(other.rc);
  finish(tw, &other);
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000)));
}

static void downgrade_in_the_write_nodes_delete_keeps_writer_behind(
    void **state) {
  (void)state;
  rw_fx_t f;
  rw_open(&f);
  OK(zkc_mutex_acquire(f.w)); /* makes the path */
  OK(zkc_mutex_release(f.w));
  for (int round = 1; round <= 3; round++) downgrade_round(f.path, round);
  rw_close(&f);
}

/* Fencing tokens grow from holder to holder across a downgrade: the read
 * hold reports its write hold's token (the read node, made after the
 * writer queued behind the write node, has a larger czxid than that
 * writer's node), and the writer granted after the read hold gets a larger
 * one, as does the reader queued behind that writer. */
static void downgrade_tokens_grow_for_later_holders(void **state) {
  (void)state;
  rw_fx_t f;
  rw_open(&f);
  OK(zkc_mutex_acquire(f.w));
  pthread_t tw, tr;
  side_ctx_t writer = {0}, reader = {0};
  start(&tw, &writer, f.path, 1);
  assert_true(zkt_await_children_exactly(f.path, 2, zkt_ms(10000)));
  start(&tr, &reader, f.path, 0);
  assert_true(zkt_await_children_exactly(f.path, 3, zkt_ms(10000)));
  OK(zkc_mutex_acquire_timeout(f.r, zkt_ms(5000))); /* the downgrade (above) */
  int64_t w_token, r_token;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(f.w), &w_token));
  OK(zkc_hold_fencing_token(zkc_mutex_hold(f.r), &r_token));
  char rn[1100];
  OK(zkt_hold_node(zkc_mutex_hold(f.r), rn, sizeof rn));
  struct Stat st;
  assert_true(zkt_exists(rn, &st));
  printf("figure: write hold %lld, its read node's czxid %lld, the read hold "
         "%lld\n", (long long)w_token, (long long)st.czxid, (long long)r_token);
  OK(zkc_mutex_release(f.w));
  OK(zkc_mutex_release(f.r));
  assert_true(zkt_await(is_granted, &writer, zkt_ms(10000)));
  OK(writer.rc);
  printf("figure: the writer granted after the read hold: %lld\n",
         (long long)writer.token);
  assert_true(writer.token > r_token);
  assert_int_equal(r_token, w_token); /* one holder, one token */
  assert_int_equal(atomic_load(&reader.granted), 0); /* behind the writer */
  finish(tw, &writer);
  assert_true(zkt_await(is_granted, &reader, zkt_ms(10000)));
  OK(reader.rc);
  assert_true(reader.token > writer.token);
  finish(tr, &reader);
  rw_close(&f);
}

/* A read holder asking for the write side is refused at once, without a
 * node; reentrancy counts on each side. */
static void upgrade_refused_reentry_counts(void **state) {
  (void)state;
  rw_fx_t f;
  rw_open(&f);
  const char *path = f.path;
  zkc_mutex_t *w = f.w, *r = f.r;
  OK(zkc_mutex_acquire(r));
  OK(zkc_mutex_acquire(r));
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_mutex_acquire(w), ZKC_EDEADLK);
  assert_true(zkt_now_ms() - t0 < zkt_ms(1000));
  assert_int_equal(zkt_children_count(path), 1);
  assert_int_equal(zkc_rwlock_destroy(f.rw), ZKC_EBUSY);
  OK(zkc_mutex_release(r));
  assert_true(zkc_mutex_is_owned_by_current_thread(r));
  OK(zkc_mutex_release(r));
  assert_int_equal(zkc_mutex_release(r), ZKC_ENOTOWNER);
  OK(zkc_mutex_acquire(w));
  OK(zkc_mutex_acquire(w));
  OK(zkc_mutex_release(w));
  OK(zkc_mutex_release(w));
  assert_int_equal(zkt_children_count(path), 0);
  rw_close(&f);
}

/* The sides as mutexes: owned by the rwlock, fenced writes for writers
 * only, participants by kind, a reader's lost notification. */
static atomic_int lost_calls;
static atomic_llong lost_token;
static void on_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                    int64_t token) {
  (void)ctx, (void)m;
  if (why == ZKC_LOST_DELETED) atomic_store(&lost_token, token);
  atomic_fetch_add(&lost_calls, 1);
}
static int lost_told(void *arg) {
  (void)arg;
  return atomic_load(&lost_calls) > 0;
}

static void sides_are_mutexes(void **state) {
  (void)state;
  rw_fx_t f;
  rw_open(&f);
  const char *path = f.path;
  zkc_mutex_t *w = f.w, *r = f.r;
  assert_int_equal(zkc_mutex_destroy(w), ZKC_EINVAL);
  assert_int_equal(zkc_mutex_destroy(r), ZKC_EINVAL);
  assert_string_equal(zkc_mutex_path(r), path);

  char data_path[700];
  snprintf(data_path, sizeof data_path, "%s", zkt_path("data"));
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), data_path, "", 0, &ZOO_OPEN_ACL_UNSAFE,
                              0, NULL, 0),
                   ZOK);
  OK(zkc_mutex_acquire(w));
  OK(zkc_hold_fenced_set(zkc_mutex_hold(w), data_path, "x", 1));
  OK(zkc_mutex_release(w));

  pthread_t t;
  side_ctx_t other = {0};
  start(&t, &other, path, 0);
  assert_true(zkt_await(is_granted, &other, zkt_ms(10000)));
  OK(zkc_mutex_set_lost_callback(r, on_lost, NULL));
  atomic_store(&lost_calls, 0);
  OK(zkc_mutex_acquire(r));
  assert_int_equal(zkc_hold_fenced_set(zkc_mutex_hold(r), data_path, "y", 1), ZKC_EINVAL);
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(r, &nodes, &n));
  assert_int_equal(n, 2);
  zkt_strings_free(nodes, n);
  OK(zkt_mutex_nodes(w, &nodes, &n));
  assert_int_equal(n, 0);
  assert_null(nodes);

  char node[1100];
  int64_t token;
  OK(zkt_hold_node(zkc_mutex_hold(r), node, sizeof node));
  OK(zkc_hold_fencing_token(zkc_mutex_hold(r), &token));
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK); /* an outsider */
  assert_true(zkt_await(lost_told, NULL, zkt_ms(10000)));
  assert_int_equal(atomic_load(&lost_token), token);
  assert_false(zkc_hold_is_held(zkc_mutex_hold(r)));
  assert_int_equal(zkc_mutex_release(r), ZKC_ELOST);
  finish(t, &other);
  zkt_delete_tree(data_path);
  rw_close(&f);
}

struct lock_seen {
  zkc_client_t *c;
  const char *path;
  size_t n;
};

/* The client's own server lists n contenders on the path. */
static int lock_seen(void *ctx) {
  struct lock_seen *w = ctx;
  zkc_contender_t *v = NULL;
  size_t n = 0;
  if (zkt_lock_contenders(w->c, w->path, &v, &n) != ZKC_OK) return 0;
  zkt_contenders_free(v, n);
  return n == w->n;
}

/* A reader waits on the nearest writer before it, not the first: it is
 * granted when the second writer leaves. It watches the first too, the
 * node that learning ahead watches (its delete tells the reader that the
 * second writer is now its only one), and is not granted on it. */
static void reader_watches_nearest_writer(void **state) {
  (void)state;
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  pthread_t t1, t2, tr;
  side_ctx_t w1 = {0}, w2 = {0}, r = {0};
  start(&t1, &w1, path, 1);
  assert_true(zkt_await(is_granted, &w1, zkt_ms(10000)));
  start(&t2, &w2, path, 1);
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  start(&tr, &r, path, 0);
  assert_true(zkt_await_children_exactly(path, 3, zkt_ms(10000)));
  assert_int_equal(zkt_await_session_watches(r.c, 2, NULL, 0, zkt_ms(10000)), 2);
  /* The reader's watches are on the writers' nodes. */
  zkc_contender_t *q;
  size_t n;
  struct lock_seen three = {w1.c, path, 3}; /* w1's server may lag */
  assert_true(zkt_await(lock_seen, &three, zkt_ms(10000)));
  OK(zkt_lock_contenders(w1.c, path, &q, &n));
  assert_int_equal(n, 3);
  int64_t sid;
  OK(zkc_client_session_id(r.c, &sid));
  char node[1100];
  for (int i = 0; i < 2; i++) {
    snprintf(node, sizeof node, "%s/%s", path, q[i].name);
    assert_true(zkt_session_watches_path(sid, node));
  }
  zkt_contenders_free(q, n);
  finish(t1, &w1);
  assert_true(zkt_await(is_granted, &w2, zkt_ms(10000)));
  assert_false(is_granted(&r)); /* the second writer holds */
  finish(t2, &w2);
  assert_true(zkt_await(is_granted, &r, zkt_ms(10000)));
  OK(r.rc);
  finish(tr, &r);
}

/* ---- revocation ---- */

typedef struct revoked {
  atomic_int calls;
  atomic_llong token;
} revoked_t;

static void on_revoke(void *ctx, zkc_mutex_t *m, int64_t token) {
  (void)m;
  revoked_t *v = ctx;
  atomic_store(&v->token, token);
  atomic_fetch_add(&v->calls, 1);
}
static int revoke_told(void *arg) {
  return atomic_load(&((revoked_t *)arg)->calls) > 0;
}
static int revoke_told_twice(void *arg) {
  return atomic_load(&((revoked_t *)arg)->calls) > 1;
}

/* A revocable holder's node carries no data; zkc_revoke_holders writes the
 * marker into the holder's node and its callback runs with its token. */
/* A revocable mutex held by this thread on its own client, and a second
 * client to ask it. */
typedef struct {
  char path[700];
  zkc_client_t *c, *asker;
  zkc_mutex_t *m;
  revoked_t v;
} revocable_fx_t;

static void revocable_held(revocable_fx_t *f) {
  memset(f, 0, sizeof *f);
  snprintf(f->path, sizeof f->path, "%s", zkt_path("m"));
  f->c = zkt_open(NULL);
  f->asker = zkt_open(NULL);
  OK(zkc_mutex_create(&f->m, f->c, f->path));
  OK(zkc_mutex_set_revocable(f->m, on_revoke, &f->v));
  OK(zkc_mutex_acquire(f->m));
  /* The asker's session may be on a server not yet caught up with the
   * holder's create (reads through another session can lag): the cases
   * ask only once it sees the holder. */
  struct lock_seen holder = {f->asker, f->path, 1};
  assert_true(zkt_await(lock_seen, &holder, zkt_ms(10000)));
}

static void revocable_end(revocable_fx_t *f) {
  OK(zkc_mutex_destroy(f->m));
  zkc_client_close(f->asker);
  zkc_client_close(f->c);
}

static void revocation_reaches_the_holder(void **state) {
  (void)state;
  revocable_fx_t f;
  revocable_held(&f);
  const char *path = f.path;
  zkc_client_t *asker = f.asker;
  zkc_mutex_t *m = f.m;
  revoked_t *v = &f.v;
  char node[1100], data[64];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_int_equal(zkt_get_data(node, data, sizeof data), 0);
  size_t asked = 99;
  OK(zkc_revoke_holders(asker, path, &asked));
  assert_int_equal(asked, 1);
  assert_true(zkt_await(revoke_told, v, zkt_ms(10000)));
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &token));
  assert_int_equal(atomic_load(&v->token), token);
  assert_int_equal(zkt_get_data(node, data, sizeof data), 10);
  assert_string_equal(data, "__REVOKE__");
  OK(zkc_mutex_release(m));
  /* Nobody holds it now. */
  OK(zkc_revoke_holders(asker, path, &asked));
  assert_int_equal(asked, 0);
  assert_int_equal(zkc_revoke(asker, node), ZKC_ENONODE);
  revocable_end(&f);
}

/* A request written while the thread still waited is told at the grant. */
typedef struct bg_acquire {
  zkc_mutex_t *m;
  int rc, release_rc;
  atomic_int done, release;
} bg_acquire_t;

/* Acquires, then holds until told to release. */
static void *acquire_bg(void *arg) {
  bg_acquire_t *b = arg;
  b->rc = zkc_mutex_acquire_timeout(b->m, zkt_ms(30000));
  atomic_store(&b->done, 1);
  while (b->rc == ZKC_OK && !atomic_load(&b->release)) nap_ms(2);
  if (b->rc == ZKC_OK) b->release_rc = zkc_mutex_release(b->m);
  return NULL;
}
static int bg_done(void *arg) { return atomic_load(&((bg_acquire_t *)arg)->done); }

static void revocation_while_waiting_told_at_grant(void **state) {
  (void)state;
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("m"));
  zkc_client_t *c = zkt_open(NULL), *c2 = zkt_open(NULL);
  zkc_mutex_t *first, *m;
  OK(zkc_mutex_create(&first, c2, path));
  OK(zkc_mutex_acquire(first));
  OK(zkc_mutex_create(&m, c, path));
  revoked_t v = {0};
  OK(zkc_mutex_set_revocable(m, on_revoke, &v));
  bg_acquire_t bg = {.m = m, .rc = -1};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, acquire_bg, &bg), 0);
  assert_true(zkt_await_participants(first, 2, zkt_ms(10000)));
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(first, &nodes, &n));
  assert_int_equal(n, 2);
  OK(zkc_revoke(c2, nodes[1])); /* the waiter's node */
  zkt_strings_free(nodes, n);
  OK(zkc_mutex_release(first));
  assert_true(zkt_await(bg_done, &bg, zkt_ms(10000)));
  OK(bg.rc);
  assert_true(zkt_await(revoke_told, &v, zkt_ms(10000)));
  assert_int_equal(zkc_mutex_release(m), ZKC_ENOTOWNER); /* not this thread's */
  atomic_store(&bg.release, 1);
  pthread_join(t, NULL);
  OK(bg.release_rc);
  assert_int_equal(atomic_load(&v.calls), 1);
  OK(zkc_mutex_destroy(first));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c2);
  zkc_client_close(c);
}

/* Every reader that holds is asked; the writer queued behind them is not. */
static void revoke_holders_asks_every_reader(void **state) {
  (void)state;
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *a, *b;
  OK(zkc_rwlock_create(&a, c, path));
  OK(zkc_rwlock_create(&b, c, path));
  revoked_t va = {0}, vb = {0};
  OK(zkc_mutex_set_revocable(zkc_rwlock_read_side(a), on_revoke, &va));
  OK(zkc_mutex_set_revocable(zkc_rwlock_read_side(b), on_revoke, &vb));
  OK(zkc_mutex_acquire(zkc_rwlock_read_side(a)));
  OK(zkc_mutex_acquire(zkc_rwlock_read_side(b)));
  pthread_t tw;
  side_ctx_t w = {0};
  start(&tw, &w, path, 1);
  assert_true(zkt_await_children_exactly(path, 3, zkt_ms(10000)));
  size_t asked = 0;
  OK(zkc_revoke_holders(c, path, &asked));
  assert_int_equal(asked, 2);
  assert_true(zkt_await(revoke_told, &va, zkt_ms(10000)));
  assert_true(zkt_await(revoke_told, &vb, zkt_ms(10000)));
  OK(zkc_mutex_release(zkc_rwlock_read_side(a)));
  OK(zkc_mutex_release(zkc_rwlock_read_side(b)));
  assert_true(zkt_await(is_granted, &w, zkt_ms(10000)));
  finish(tw, &w);
  OK(zkc_rwlock_destroy(a));
  OK(zkc_rwlock_destroy(b));
  zkc_client_close(c);
}

/* After a downgrade the write node and its read twin share a sequence:
 * both are the holder's, both are asked. */
static void revoke_holders_asks_both_nodes_of_a_downgrade(void **state) {
  (void)state;
  rw_fx_t f;
  rw_open(&f);
  const char *path = f.path;
  zkc_mutex_t *w = f.w, *r = f.r;
  revoked_t vw = {0}, vr = {0};
  OK(zkc_mutex_set_revocable(w, on_revoke, &vw));
  OK(zkc_mutex_set_revocable(r, on_revoke, &vr));
  OK(zkc_mutex_acquire(w));
  OK(zkc_mutex_acquire(r));
  size_t asked = 0;
  OK(zkc_revoke_holders(f.c, path, &asked));
  assert_int_equal(asked, 2);
  assert_true(zkt_await(revoke_told, &vw, zkt_ms(10000)));
  assert_true(zkt_await(revoke_told, &vr, zkt_ms(10000)));
  OK(zkc_mutex_release(w));
  OK(zkc_mutex_release(r));
  rw_close(&f);
}

/* Only lock nodes are asked: a persistent sequenced child (a queue's
 * element under a mistyped path) keeps its data. */
static void revoke_holders_leaves_non_lock_nodes_alone(void **state) {
  (void)state;
  char path[700], item[800], made[900], data[64];
  snprintf(path, sizeof path, "%s", zkt_path("queue"));
  assert_int_equal(zkt_make_root(), 0);
  assert_int_equal(zoo_create(zkt_raw(), path, "", 0, &ZOO_OPEN_ACL_UNSAFE,
                              ZOO_PERSISTENT, NULL, 0),
                   ZOK);
  snprintf(item, sizeof item, "%s/item-", path);
  assert_int_equal(zoo_create(zkt_raw(), item, "payload", 7,
                              &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL,
                              made, sizeof made),
                   ZOK);
  zkc_client_t *c = zkt_open(NULL);
  size_t asked = 99;
  OK(zkc_revoke_holders(c, path, &asked));
  assert_int_equal(asked, 0);
  assert_int_equal(zkt_get_data(made, data, sizeof data), 7);
  assert_string_equal(data, "payload");
  zkc_client_close(c);
  assert_int_equal(zoo_delete(zkt_raw(), made, -1), ZOK);
}

/* A release whose delete is refused keeps the hold and watches its node
 * again: the revocation already told is not told a second time, a new one
 * is. */
static void refused_release_does_not_retell_a_revocation(void **state) {
  (void)state;
  revocable_fx_t f;
  revocable_held(&f);
  const char *path = f.path;
  zkc_client_t *c = f.c, *asker = f.asker;
  zkc_mutex_t *m = f.m;
  revoked_t *v = &f.v;
  size_t asked = 0;
  OK(zkc_revoke_holders(asker, path, &asked));
  assert_int_equal(asked, 1);
  assert_true(zkt_await(revoke_told, v, zkt_ms(10000)));

  zkt_deny_delete(path, 1);
  assert_int_equal(zkc_mutex_release(m), ZKC_ENOAUTH); /* still held */
  /* The new guard has read the node (its watch is set) before a second
   * request is written: that one alone is told. (The release also set the
   * path's watch for the mutex's next acquire: the hold had it alone.) */
  zkc_list_t *held = NULL;
  OK(zkc_hold_node_list(zkc_mutex_hold(m), &held));
  int64_t sid;
  OK(zkc_client_session_id(c, &sid));
  assert_true(zkt_await_watch(sid, zkc_list_string(held, 0), 1, zkt_ms(10000)));
  zkc_list_free(held);
  OK(zkc_revoke_holders(asker, path, &asked));
  assert_true(zkt_await(revoke_told_twice, v, zkt_ms(10000)));
  nap_ms(200); /* a third call would come from the first request again */
  assert_int_equal(atomic_load(&v->calls), 2);
  zkt_deny_delete(path, 0);
  OK(zkc_mutex_release(m));
  revocable_end(&f);
}

/* Closing the client ends a waiting reader's acquire with ZKC_ECLOSED and
 * leaves no node of it. */
static void close_ends_waiting_reader(void **state) {
  (void)state;
  char path[700];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  pthread_t tw, tr;
  side_ctx_t w = {0}, r = {0};
  start(&tw, &w, path, 1);
  assert_true(zkt_await(is_granted, &w, zkt_ms(10000)));
  start(&tr, &r, path, 0);
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  zkc_client_close(r.c);
  pthread_join(tr, NULL);
  assert_int_equal(r.rc, ZKC_ECLOSED);
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  finish(tw, &w);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(readers_share_writer_excludes),
      cmocka_unit_test(fifo_between_kinds),
      cmocka_unit_test(close_ends_waiting_reader),
      cmocka_unit_test(writers_never_overlap_anyone),
      cmocka_unit_test(downgrade_keeps_queued_writer_behind),
      cmocka_unit_test(downgrade_in_the_write_nodes_delete_keeps_writer_behind),
      cmocka_unit_test(downgrade_tokens_grow_for_later_holders),
      cmocka_unit_test(upgrade_refused_reentry_counts),
      cmocka_unit_test(sides_are_mutexes),
      cmocka_unit_test(reader_watches_nearest_writer),
      cmocka_unit_test(revocation_reaches_the_holder),
      cmocka_unit_test(revocation_while_waiting_told_at_grant),
      cmocka_unit_test(revoke_holders_asks_every_reader),
      cmocka_unit_test(revoke_holders_asks_both_nodes_of_a_downgrade),
      cmocka_unit_test(revoke_holders_leaves_non_lock_nodes_alone),
      cmocka_unit_test(refused_release_does_not_retell_a_revocation),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "rwlock");
}
