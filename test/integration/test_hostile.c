/* SPDX-License-Identifier: Apache-2.0 */
/* Children lists no well-behaved client makes, made with a raw ZooKeeper
 * handle under the lock path: zkcoord must neither crash nor mis-order the
 * queue. Children without a sequence suffix are not contenders; a foreign
 * child with a sequence is a contender like any other (it blocks those
 * behind it until it goes); equal sequences tie by name. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "names.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

static void raw_mkdirs(const char *path) {
  char buf[1200];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *s = strchr(buf + 1, '/');; s = strchr(s + 1, '/')) {
    if (s) *s = '\0';
    int rc = zoo_create(zkt_raw(), buf, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
    if (rc != ZOK && rc != ZNODEEXISTS) fail_msg("create %s: %s", buf, zerror(rc));
    if (s == NULL) break;
    *s = '/';
  }
}

static void raw_create(const char *parent, const char *name) {
  char path[2200];
  snprintf(path, sizeof path, "%s/%s", parent, name);
  int rc = zoo_create(zkt_raw(), path, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  if (rc != ZOK) fail_msg("create %s: %s", path, zerror(rc));
}

static void raw_delete(const char *parent, const char *name) {
  char path[2200];
  snprintf(path, sizeof path, "%s/%s", parent, name);
  int rc = zoo_delete(zkt_raw(), path, -1);
  if (rc != ZOK) fail_msg("delete %s: %s", path, zerror(rc));
}

/* Creates (or deletes) children name(i) for i in [0, n) in multi batches
 * of at most ~512 KB. */
typedef void (*namer_fn)(int i, char *out, size_t len);
static void raw_batch(const char *parent, int n, namer_fn namer, int create) {
  enum { MAXOPS = 400 };
  zoo_op_t *ops = calloc(MAXOPS, sizeof *ops);
  zoo_op_result_t *res = calloc(MAXOPS, sizeof *res);
  char(*paths)[1200] = calloc(MAXOPS, sizeof *paths);
  for (int i = 0; i < n;) {
    int k = 0;
    for (; k < MAXOPS && i < n; k++, i++) {
      char name[1100];
      namer(i, name, sizeof name);
      snprintf(paths[k], sizeof paths[k], "%s/%s", parent, name);
      if (create)
        zoo_create_op_init(&ops[k], paths[k], NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
      else
        zoo_delete_op_init(&ops[k], paths[k], -1);
    }
    int rc = zoo_multi(zkt_raw(), k, ops, res);
    if (rc != ZOK) fail_msg("multi %s: %s", create ? "create" : "delete", zerror(rc));
  }
  free(ops);
  free(res);
  free(paths);
}

static zkc_mutex_t *new_mutex(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m = NULL;
  OK(zkc_mutex_create(&m, c, path));
  return m;
}

struct acquirer {
  zkc_mutex_t *m;
  int64_t timeout_ms;
  atomic_int rc; /* 1 while running */
};
static void *acquire_thread(void *arg) {
  struct acquirer *a = arg;
  int rc = zkc_mutex_acquire_timeout(a->m, a->timeout_ms);
  if (rc == ZKC_OK) rc = zkc_mutex_release(a->m);
  atomic_store(&a->rc, rc);
  return NULL;
}
static int acquirer_done(void *arg) {
  return atomic_load(&((struct acquirer *)arg)->rc) != 1;
}
/* Starts a thread that acquires m and releases it again, and waits until
 * its node is there (path has `children` children). */
static pthread_t start_waiter(struct acquirer *w, zkc_mutex_t *m,
                              const char *path, int children) {
  *w = (struct acquirer){.m = m, .timeout_ms = zkt_ms(20000)};
  atomic_store(&w->rc, 1);
  pthread_t t;
  pthread_create(&t, NULL, acquire_thread, w);
  assert_true(zkt_await_children(path, children, zkt_ms(10000)));
  return t;
}

/* The session watches exactly one node, whose name ends in `path`. */
struct watch_ctx {
  int64_t session;
  const char *path;
};
/* The session watches w->path (a full path) among its two. */
static int watches(void *arg) {
  struct watch_ctx *w = arg;
  return zkt_session_watches(w->session, NULL, 0) == 2 &&
         zkt_session_watches_path(w->session, w->path);
}

/* Names with no (valid) sequence, a foreign squatter with the lowest one. */
static const char *const junk[] = {
    "readme", "lock-", "lock-abcdefghij", "lock-000000001x", "lock-0000000001 ",
    "lock-99999999999", "lock--9999999999", "_c_not-a-uuid-lock-"};

static void junk_ignored_squatter_blocks(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  raw_mkdirs(path);
  for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) raw_create(path, junk[i]);
  raw_create(path, "foreign-0000000000");
  int base = zkt_children_count(path);

  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  assert_true(zkt_await_participants(m, 1, zkt_ms(10000)));
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(m, &nodes, &n));
  assert_int_equal(n, 1); /* the squatter only: junk is no contender */
  assert_non_null(strstr(nodes[0], "/foreign-0000000000"));
  zkt_strings_free(nodes, n);

  /* The squatter blocks like a holder: a timed acquire gives up and
   * leaves nothing behind. */
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(300)), ZKC_ETIMEDOUT);
  assert_true(zkt_await_children_exactly(path, base, zkt_ms(10000)));

  /* A waiter gets the lock once the squatter goes. */
  struct acquirer a;
  pthread_t t = start_waiter(&a, m, path, base + 1);
  assert_false(acquirer_done(&a));
  raw_delete(path, "foreign-0000000000");
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&a.rc), ZKC_OK);
  assert_int_equal(zkt_children_count(path), base - 1); /* junk stays */
  OK(zkc_mutex_destroy(m));

  /* The latch too: the squatter leads, junk is ignored. */
  raw_create(path, "foreign-0000000000");
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, path, "me", NULL));
  OK(zkc_latch_start(l));
  assert_true(zkt_await_children(path, base + 1, zkt_ms(10000))); /* its node */
  assert_int_equal(zkc_latch_await(l, zkt_ms(300)), ZKC_ETIMEDOUT);
  zkt_participant_t *p;
  OK(zkt_latch_participants(l, &p, &n));
  assert_int_equal(n, 2);
  assert_true(p[0].is_leader);
  assert_string_equal(p[0].id, ""); /* the squatter has no data */
  assert_string_equal(p[1].id, "me");
  zkt_participants_free(p, n);
  raw_delete(path, "foreign-0000000000");
  OK(zkc_latch_await(l, zkt_ms(10000)));
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
  for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) raw_delete(path, junk[i]);
}

/* After its learn-ahead node's delete, the waiter is granted (holding, or
 * its thread done: it releases at once), or behind its sole blocker in a
 * round that watches its own node. */
struct after_release {
  struct acquirer *w;
  int64_t session;
  const char *own;
};
static int answered_release(void *arg) {
  struct after_release *ar = arg;
  return zkc_mutex_is_acquired_in_this_process(ar->w->m) ||
         acquirer_done(ar->w) ||
         zkt_session_watches_path(ar->session, ar->own);
}

/* A foreign child with the same sequence as a waiter's node, sorting
 * before it by name, is served first. */
static void duplicate_sequence_ties_by_name(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  OK(zkc_mutex_acquire(ma));
  /* The next sequence is the parent's cversion after our create. */
  struct Stat st;
  assert_true(zkt_exists(path, &st));
  char dup[64];
  snprintf(dup, sizeof dup, "0dup-lock-%010d", st.cversion + 1);
  raw_create(path, dup);
  struct acquirer w;
  pthread_t t = start_waiter(&w, mb, path, 3);
  assert_true(zkt_await_participants(ma, 3, zkt_ms(10000)));
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(ma, &nodes, &n));
  assert_int_equal(n, 3);
  assert_non_null(strstr(nodes[1], dup)); /* the tie goes to the name */
  char seq[16];
  snprintf(seq, sizeof seq, "-%010d", st.cversion + 1);
  assert_non_null(strstr(nodes[2], seq)); /* b's node has the same sequence */
  struct after_release ar = {.w = &w, .own = nodes[2]};
  /* b's blocker is the duplicate (a's node, before it, is the one b
   * learns ahead by): a's release does not grant it. */
  char dup_path[600];
  snprintf(dup_path, sizeof dup_path, "%s/%s", path, dup);
  struct watch_ctx wc = {.path = dup_path};
  OK(zkc_client_session_id(b, &wc.session));
  ar.session = wc.session;
  assert_true(zkt_await(watches, &wc, zkt_ms(10000)));
  OK(zkc_mutex_release(ma));
  /* b answers a's delete either way (a wrong grant or its next round),
   * then is seen not granted: a check made at once would pass while a
   * wrong grant was still on its way. */
  assert_true(zkt_await(answered_release, &ar, zkt_ms(10000)));
  assert_false(zkc_mutex_is_acquired_in_this_process(mb));
  assert_false(acquirer_done(&w));
  zkt_strings_free(nodes, n);
  raw_delete(path, dup);
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&w.rc), ZKC_OK);
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* 10,000 children, ~50 bytes each: half junk, half foreign contenders with
 * sequences far above any the parent will hand out. zkcoord's contenders
 * still queue first, in order. */
static void junk_name(int i, char *out, size_t len) {
  snprintf(out, len, "junk-%05d-without-any-sequence-suffix-at-all", i);
}
static void late_name(int i, char *out, size_t len) {
  snprintf(out, len, "foreign-contender-%05d-lock-%010d", i, 1000000000 + i);
}
static void ten_thousand_children(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  raw_mkdirs(path);
  raw_batch(path, 5000, junk_name, 1);
  raw_batch(path, 5000, late_name, 1);
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_mutex_t *ma = new_mutex(a, path), *mb = new_mutex(b, path);
  OK(zkc_mutex_acquire_timeout(ma, zkt_ms(10000)));
  struct acquirer w;
  pthread_t t = start_waiter(&w, mb, path, 10002);
  assert_true(zkt_await_participants(ma, 5002, zkt_ms(10000)));
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(ma, &nodes, &n));
  assert_int_equal(n, 5002);
  char mine[1200];
  OK(zkt_hold_node(zkc_mutex_hold(ma), mine, sizeof mine));
  assert_string_equal(nodes[0], mine);
  assert_non_null(strstr(nodes[1], "/_c_")); /* b, before every foreign one */
  assert_non_null(strstr(nodes[2], "/foreign-contender-00000-"));
  assert_non_null(strstr(nodes[5001], "/foreign-contender-04999-"));
  zkt_strings_free(nodes, n);
  assert_false(acquirer_done(&w));
  OK(zkc_mutex_release(ma));
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&w.rc), ZKC_OK);
  OK(zkc_mutex_destroy(ma));
  OK(zkc_mutex_destroy(mb));
  zkc_client_close(a);
  zkc_client_close(b);
  raw_batch(path, 5000, junk_name, 0);
  raw_batch(path, 5000, late_name, 0);
}

/* 10,000 contenders with names of 1,000 bytes: a children list of ~10 MB,
 * ten times ZooKeeper's default packet limit (jute.maxbuffer). The Java
 * client refuses such a response (connection loss); the C client reads it,
 * so zkcoord queues as usual. */
static void long_name(int i, char *out, size_t len) {
  char pad[1000];
  memset(pad, 'a' + i % 26, sizeof pad);
  snprintf(out, len, "%.*s-lock-%010d", 1000 - 16, pad, 1000000000 + i);
}
static void thousand_byte_names(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  raw_mkdirs(path);
  raw_batch(path, 10000, long_name, 1);
  zkc_client_t *a = zkt_open(NULL);
  zkc_mutex_t *ma = new_mutex(a, path);
  OK(zkc_mutex_acquire_timeout(ma, zkt_ms(20000)));
  char **nodes, mine[1200];
  size_t n;
  OK(zkt_mutex_nodes(ma, &nodes, &n));
  assert_int_equal(n, 10001);
  OK(zkt_hold_node(zkc_mutex_hold(ma), mine, sizeof mine));
  assert_string_equal(nodes[0], mine);
  for (size_t i = 1; i < n; i++)
    assert_int_equal(strlen(nodes[i]), strlen(path) + 1 + 1000);
  zkt_strings_free(nodes, n);
  OK(zkc_mutex_release(ma));
  OK(zkc_mutex_destroy(ma));
  zkc_client_close(a);
  raw_batch(path, 10000, long_name, 0);
}

static void count_changes(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)c, (void)st;
  atomic_fetch_add((atomic_int *)ctx, 1);
}

/* The largest data zkcoord sends (ZKC__DATA_MAX) fits in one request even
 * with paths of the maximum length: the limit of the misuse table is not
 * too tight for the server. */
static void largest_data_fits(void **state) {
  (void)state;
  char path[ZKC__PATH_MAX + 1];
  int len = snprintf(path, sizeof path, "%s", zkt_path("x"));
  memset(path + len, 'x', ZKC__PATH_MAX - (size_t)len);
  path[ZKC__PATH_MAX] = '\0';
  char *data = malloc(ZKC__DATA_MAX + 1);
  memset(data, 'd', ZKC__DATA_MAX);
  data[ZKC__DATA_MAX] = '\0';
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.holder_id = data; /* the lock node's data */
  zkc_client_t *c = zkt_open(&o);
  atomic_int changes = 0;
  OK(zkc_client_add_listener(c, count_changes, &changes));
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  OK(zkc_hold_fenced_set(zkc_mutex_hold(m), path, data, ZKC__DATA_MAX));
  struct Stat st;
  assert_true(zkt_exists(path, &st));
  assert_int_equal(st.dataLength, ZKC__DATA_MAX);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, path, data, NULL));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, zkt_ms(10000)));
  OK(zkc_latch_destroy(l));
  /* No request was too large: the server never dropped the connection. */
  assert_int_equal(atomic_load(&changes), 0);
  OK(zkc_client_remove_listener(c, count_changes, &changes));
  zkc_client_close(c);
  free(data);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(junk_ignored_squatter_blocks),
      cmocka_unit_test(duplicate_sequence_ties_by_name),
      cmocka_unit_test(ten_thousand_children),
      cmocka_unit_test(thousand_byte_names),
      cmocka_unit_test(largest_data_fits),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "hostile");
}
