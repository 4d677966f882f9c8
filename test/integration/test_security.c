/* SPDX-License-Identifier: Apache-2.0 */
/* Access control against the real ensemble: digest credentials, the ACL
 * options, holders noticing an outside delete, squatters, and chroots. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)
#define TEAM "team:s3cret"
/* base64(SHA-1("team:s3cret")): the digest ACL id of TEAM. */
#define TEAM_ID "team:R02qRenuvfNAe7g4+hJgn8gQAsU="

/* The shared test roots, open to all: a secured client would otherwise
 * create them with its own ACL (parents it creates are read-only to others),
 * locking every later test out. The real-world lesson: create shared
 * top-level paths beforehand with the ACL they need. */
static void open_roots(void) {
  int rc = zkt_make_root();
  assert_true(rc == ZOK || rc == ZNODEEXISTS);
}

static zkc_client_t *open_as(const char *digest, zkc_acl_preset_t preset) {
  open_roots();
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.auth_digest = digest;
  o.acl_preset = preset;
  o.holder_id = "worker-7";
  return zkt_open(&o);
}

static zkc_mutex_t *new_mutex(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  return m;
}

/* A plain ZooKeeper handle, with credentials or none: an outsider. */
static void plain_watcher(zhandle_t *zh, int type, int state, const char *path,
                          void *ctx) {
  (void)zh, (void)type, (void)state, (void)path, (void)ctx;
}

static int plain_connected(void *ctx) {
  return zoo_state((zhandle_t *)ctx) == ZOO_CONNECTED_STATE;
}

static zhandle_t *plain_open(const char *digest) {
  zhandle_t *zh = zookeeper_init2(zkt_connect(), plain_watcher, 10000, NULL,
                                  NULL, ZOO_NO_LOG_CLIENTENV, NULL);
  assert_non_null(zh);
  if (digest)
    assert_int_equal(zoo_add_auth(zh, "digest", digest, (int)strlen(digest),
                                  NULL, NULL),
                     ZOK);
  assert_true(zkt_await(plain_connected, zh, zkt_ms(10000)));
  return zh;
}

/* The ACL of a node, as "perms:scheme:id;..." */
static void acl_string(const char *path, char *out, size_t len) {
  struct ACL_vector acl;
  struct Stat st;
  zkt_sync_handle(zkt_raw(), path);
  assert_int_equal(zoo_get_acl(zkt_raw(), path, &acl, &st), ZOK);
  out[0] = '\0';
  for (int32_t i = 0; i < acl.count; i++) {
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%d:%s:%s", i ? ";" : "",
             acl.data[i].perms, acl.data[i].id.scheme, acl.data[i].id.id);
  }
  deallocate_ACL_vector(&acl);
}

/* ---- an outsider cannot break a secured lock ---- */

static void outsider_cannot_delete_or_overwrite(void **state) {
  (void)state;
  char path[512], node[1100], acl[512];
  snprintf(path, sizeof path, "%s", zkt_path("jobs/lock"));
  zkc_client_t *c = open_as(TEAM, ZKC_ACL_SECURE);
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m));
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));

  /* The preset: creator-only lock node, world-readable parents. */
  acl_string(node, acl, sizeof acl);
  assert_string_equal(acl, "31:digest:" TEAM_ID);
  acl_string(path, acl, sizeof acl);
  assert_string_equal(acl, "31:digest:" TEAM_ID ";1:world:anyone");

  zhandle_t *out = plain_open(NULL);
  assert_int_equal(zoo_delete(out, node, -1), ZNOAUTH);
  assert_int_equal(zoo_set(out, node, "x", 1, -1), ZNOAUTH);
  assert_int_equal(zoo_create(out, zkt_path("jobs/lock/a-lock-"), "", 0,
                              &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL,
                              NULL, 0),
                   ZNOAUTH);
  /* Reading the queue is allowed (status tools), the holder's data not. */
  struct String_vector kids;
  zkt_sync_handle(out, path);
  assert_int_equal(zoo_get_children(out, path, 0, &kids), ZOK);
  assert_int_equal(kids.count, 1);
  deallocate_String_vector(&kids);
  char buf[64];
  int blen = sizeof buf;
  assert_int_equal(zoo_get(out, node, 0, buf, &blen, NULL), ZNOAUTH);
  zookeeper_close(out);

  /* An outsider's zkcoord client gets a clear refusal, not a hang, and
   * leaves nothing. */
  zkc_client_t *o = zkt_open(NULL);
  zkc_mutex_t *om = new_mutex(o, path);
  assert_int_equal(zkc_mutex_acquire_timeout(om, zkt_ms(5000)), ZKC_ENOAUTH);
  OK(zkc_mutex_destroy(om));
  zkc_client_close(o);

  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_true(zkt_exists(node, NULL));
  assert_int_equal(zkt_children_count(path), 1);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* ---- wrong or malformed credentials ---- */

static void wrong_password_fails_clearly(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("jobs/lock"));
  /* Malformed credentials never reach the network. */
  const char *bad[] = {"nocolon", ":pw", "user:", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    zkc_client_opts_t o;
    zkc_client_opts_init(&o);
    o.auth_digest = bad[i];
    zkc_client_t *c = (zkc_client_t *)&o; /* must be overwritten with NULL */
    assert_int_equal(zkc_client_open(&c, zkt_connect(), &o), ZKC_EINVAL);
    assert_null(c);
  }
  /* The secure preset needs credentials to name the creator. */
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.acl_preset = ZKC_ACL_SECURE;
  zkc_client_t *c;
  assert_int_equal(zkc_client_open(&c, zkt_connect(), &o), ZKC_EINVAL);

  zkc_client_t *owner = open_as(TEAM, ZKC_ACL_SECURE);
  zkc_mutex_t *om = new_mutex(owner, path);
  OK(zkc_mutex_acquire(om));
  OK(zkc_mutex_release(om)); /* the parents now exist, secured */

  /* Digest authentication itself accepts any password: the ACL refuses. */
  zkc_client_t *wrong = open_as("team:wrong", ZKC_ACL_SECURE);
  zkc_mutex_t *wm = new_mutex(wrong, path);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_mutex_acquire_timeout(wm, zkt_ms(10000)), ZKC_ENOAUTH);
  printf("figure: refused after %lld ms\n", (long long)(zkt_now_ms() - t0));
  assert_int_equal(zkt_children_count(path), 0);
  assert_string_equal(zkc_err_name(ZKC_ENOAUTH), "ZKC_ENOAUTH");
  OK(zkc_mutex_destroy(wm));
  zkc_client_close(wrong);

  /* The right password, in a second client, shares the lock. */
  zkc_client_t *same = open_as(TEAM, ZKC_ACL_SECURE);
  zkc_mutex_t *sm = new_mutex(same, path);
  OK(zkc_mutex_acquire_timeout(sm, zkt_ms(10000)));
  OK(zkc_mutex_release(sm));
  OK(zkc_mutex_destroy(sm));
  zkc_client_close(same);
  OK(zkc_mutex_destroy(om));
  zkc_client_close(owner);
}

/* ---- credentials survive a session re-creation ---- */

typedef struct {
  pthread_mutex_t mu;
  int connected;   /* CONNECTED reports */
  int lost_reason; /* last lost callback's reason */
  int64_t lost_ms;
  int64_t lost_token; /* the hold the last lost callback named */
} seen_t;

static void on_state(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)c;
  seen_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  if (st == ZKC_STATE_CONNECTED) s->connected++;
  pthread_mutex_unlock(&s->mu);
}

static void on_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                    int64_t token) {
  (void)m;
  seen_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  s->lost_reason = (int)why;
  s->lost_token = token;
  s->lost_ms = zkt_now_ms();
  pthread_mutex_unlock(&s->mu);
}

static int connected_twice(void *ctx) {
  seen_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  int v = s->connected >= 2;
  pthread_mutex_unlock(&s->mu);
  return v;
}

static int lost_seen(void *ctx) {
  seen_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  int v = s->lost_reason != 0;
  pthread_mutex_unlock(&s->mu);
  return v;
}

static void credentials_survive_new_session(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("jobs/lock"));
  zkc_client_t *c = open_as(TEAM, ZKC_ACL_SECURE);
  seen_t s = {.mu = PTHREAD_MUTEX_INITIALIZER, .connected = 1};
  OK(zkc_client_add_listener(c, on_state, &s));
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_release(m));
  zkt_expire_session(c);
  assert_true(zkt_await(connected_twice, &s, zkt_ms(15000)));
  /* The new session carries the credentials: the secured parent lets it in. */
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  OK(zkc_client_remove_listener(c, on_state, &s));
  zkc_client_close(c);
}

/* ---- a participant that deletes the holder's node ---- */

static void deleted_node_is_lost_lock(void **state) {
  (void)state;
  char path[512], node[1100];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zkc_client_t *c = open_as(TEAM, ZKC_ACL_SECURE);
  zkc_mutex_t *m = new_mutex(c, path);
  seen_t s = {.mu = PTHREAD_MUTEX_INITIALIZER};
  OK(zkc_mutex_set_lost_callback(m, on_lost, &s));
  OK(zkc_mutex_acquire(m));
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  int64_t token = 0;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &token));
  /* The holder's watch on its own node is set in the background: await it. */
  assert_int_equal(zkt_await_session_watches(c, 1, NULL, 0, zkt_ms(5000)), 1);

  /* Someone with the team's credentials deletes it. */
  zhandle_t *rogue = plain_open(TEAM);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zoo_delete(rogue, node, -1), ZOK);
  assert_true(zkt_await(lost_seen, &s, zkt_ms(5000)));
  printf("figure: holder told %lld ms after the delete\n",
         (long long)(s.lost_ms - t0));
  assert_int_equal(s.lost_reason, ZKC_LOST_DELETED);
  assert_int_equal(s.lost_token, token); /* the callback names the hold */
  assert_false(zkc_hold_is_held(zkc_mutex_hold(m)));
  assert_int_equal(zkc_hold_fenced_set(zkc_mutex_hold(m), zkt_path("lock"), "x", 1), ZKC_ELOST);
  assert_int_equal(zkc_mutex_acquire(m), ZKC_ELOST); /* a reentry refused */
  assert_int_equal(zkc_mutex_release(m), ZKC_ELOST);
  assert_int_equal(zkc_mutex_release(m), ZKC_ENOTOWNER); /* state cleared */
  /* The session still lives: the same mutex takes the lock again. */
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));
  OK(zkc_mutex_release(m));
  zookeeper_close(rogue);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* Release deletes the node itself: that is not reported as a loss. */
static void own_release_is_not_a_loss(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, zkt_path("lock"));
  seen_t s = {.mu = PTHREAD_MUTEX_INITIALIZER};
  OK(zkc_mutex_set_lost_callback(m, on_lost, &s));
  for (int i = 0; i < 50; i++) {
    OK(zkc_mutex_acquire(m));
    OK(zkc_mutex_release(m));
  }
  /* A loss would be reported by the maintenance thread: give a stray
   * report time to show by closing (which joins that thread). */
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  assert_int_equal(s.lost_reason, 0);
}

/* ---- the latch and the selector notice it too ---- */

typedef struct {
  atomic_int leader;
  atomic_int not_leader_calls;
} latch_seen_t;

static void is_leader(void *ctx, zkc_latch_t *l) {
  (void)l;
  atomic_store(&((latch_seen_t *)ctx)->leader, 1);
}

static void not_leader(void *ctx, zkc_latch_t *l) {
  (void)l;
  latch_seen_t *s = ctx;
  atomic_store(&s->leader, 0);
  atomic_fetch_add(&s->not_leader_calls, 1);
}

static int told_not_leader(void *ctx) {
  return atomic_load(&((latch_seen_t *)ctx)->not_leader_calls) > 0;
}

static int leads_with_new_node(void *ctx) {
  void **a = ctx;
  zkc_latch_t *l = a[0];
  const char *old = a[1];
  char now[1100];
  return zkc_latch_has_leadership(l) &&
         zkt_hold_node(zkc_latch_hold(l), now, sizeof now) == ZKC_OK && strcmp(now, old) != 0;
}

static void deleted_latch_node_drops_leadership(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  latch_seen_t s = {0};
  zkc_latch_opts_t lo;
  zkc_latch_opts_init(&lo);
  lo.is_leader = is_leader;
  lo.not_leader = not_leader;
  lo.ctx = &s;
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, zkt_path("election"), "only", &lo));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, zkt_ms(10000)));
  char node[1100];
  OK(zkt_hold_node(zkc_latch_hold(l), node, sizeof node));
  /* The holder's watch on its own node is set in the background: await it. */
  assert_int_equal(zkt_await_session_watches(c, 1, NULL, 0, zkt_ms(5000)), 1);
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_true(zkt_await(told_not_leader, &s, zkt_ms(5000)));
  /* Alone in the election, it rejoins and leads again with a new node. */
  void *args[] = {l, node};
  assert_true(zkt_await(leads_with_new_node, args, zkt_ms(10000)));
  OK(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
}

typedef struct {
  atomic_int stopped; /* take_leadership saw should_stop */
  atomic_int ready;
} take_ctx_t;

static void take(void *ctx, zkc_selector_t *s) {
  take_ctx_t *t = ctx;
  atomic_store(&t->ready, 1);
  int64_t deadline = zkt_now_ms() + zkt_ms(15000);
  while (!zkc_selector_should_stop(s) && zkt_now_ms() < deadline) usleep(2000);
  atomic_store(&t->stopped, zkc_selector_should_stop(s) ? 1 : -1);
}

static int take_ready(void *ctx) { return atomic_load(&((take_ctx_t *)ctx)->ready); }
static int take_stopped(void *ctx) {
  return atomic_load(&((take_ctx_t *)ctx)->stopped) != 0;
}

/* The only child of path, as a full path. */
static void only_child(const char *path, char *out, size_t len) {
  struct String_vector kids;
  zkt_sync_handle(zkt_raw(), path);
  assert_int_equal(zoo_get_children(zkt_raw(), path, 0, &kids), ZOK);
  assert_int_equal(kids.count, 1);
  snprintf(out, len, "%s/%s", path, kids.data[0]);
  deallocate_String_vector(&kids);
}

static void deleted_selector_node_stops_leader(void **state) {
  (void)state;
  char path[512], node[1100];
  snprintf(path, sizeof path, "%s", zkt_path("sched"));
  zkc_client_t *c = zkt_open(NULL);
  take_ctx_t t = {.stopped = 0};
  zkc_selector_t *s;
  OK(zkc_selector_create(&s, c, path, take, &t, NULL));
  OK(zkc_selector_start(s));
  assert_true(zkt_await(take_ready, &t, zkt_ms(10000)));
  /* The holder's watch on its own node is set in the background: await it. */
  assert_int_equal(zkt_await_session_watches(c, 1, NULL, 0, zkt_ms(5000)), 1);
  only_child(path, node, sizeof node);
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_true(zkt_await(take_stopped, &t, zkt_ms(10000)));
  assert_int_equal(atomic_load(&t.stopped), 1);
  OK(zkc_selector_close(s));
  OK(zkc_selector_destroy(s));
  zkc_client_close(c);
}

/* ---- squatting ---- */

static void squatter_blocks_like_a_contender(void **state) {
  (void)state;
  char path[512], squat[600];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  zhandle_t *raw = zkt_raw();
  open_roots();
  assert_int_equal(zoo_create(raw, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0),
                   ZOK);
  /* A persistent node with a lock-like name and the lowest sequence. */
  snprintf(squat, sizeof squat, "%s/squatter-lock-0000000000", path);
  assert_int_equal(zoo_create(raw, squat, "mine", 4, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0),
                   ZOK);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = new_mutex(c, path);
  assert_int_equal(zkc_mutex_acquire_timeout(m, zkt_ms(300)), ZKC_ETIMEDOUT);
  /* the waiter left no node (its delete may finish in the background) */
  assert_true(zkt_await_children_exactly(path, 1, zkt_ms(10000)));
  /* It is listed first, as the holder. */
  char **nodes;
  size_t n;
  OK(zkt_mutex_nodes(m, &nodes, &n));
  assert_int_equal(n, 1);
  assert_string_equal(nodes[0], squat);
  zkt_strings_free(nodes, n);
  /* The status read (what `zkcoord status` shows) names it as the holder. */
  zkc_contender_t *conts;
  size_t nc;
  OK(zkt_lock_contenders(c, path, &conts, &nc));
  assert_int_equal(nc, 1);
  assert_string_equal(conts[0].name, "squatter-lock-0000000000");
  assert_string_equal(conts[0].style, "other");
  assert_int_equal(conts[0].position, 0);
  assert_int_equal(conts[0].ephemeral_owner, 0); /* persistent: never expires */
  zkt_contenders_free(conts, nc);
  /* Removing it frees the lock, as a holder's release would. */
  assert_int_equal(zoo_delete(raw, squat, -1), ZOK);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(10000)));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* ---- what the nodes reveal, and custom ACLs ---- */

static const zkc_acl_t part_acl[] = {{ZKC_PERM_ALL, "digest", TEAM_ID},
                                     {ZKC_PERM_READ, "ip", "127.0.0.1"}};
static const zkc_acl_t parent_acl[] = {{ZKC_PERM_ALL, "world", "anyone"}};

static const zkc_acl_t *pick_acl(void *ctx, const char *path,
                                 zkc_node_kind_t kind, size_t *count) {
  atomic_int *calls = ctx;
  atomic_fetch_add(calls, 1);
  assert_non_null(path);
  if (kind == ZKC_NODE_PARTICIPANT) {
    *count = 2;
    return part_acl;
  }
  *count = 1;
  return parent_acl;
}

/* An acl_fn whose answer for a participant's node is no ACL (no entry). */
static const zkc_acl_t *empty_acl(void *ctx, const char *path,
                                  zkc_node_kind_t kind, size_t *count) {
  (void)ctx;
  (void)path;
  if (kind != ZKC_NODE_PARTICIPANT) return NULL; /* the client's own */
  *count = 0;
  return part_acl;
}

/* A bad answer of acl_fn fails the create that asked for it, with the
 * reason as the thread's message, and nothing is created. */
static void acl_callback_bad_answer_refused(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("badacl"));
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.acl_fn = empty_acl;
  open_roots();
  zkc_client_t *c = zkt_open(&o);
  zkc_mutex_t *m = new_mutex(c, path);
  assert_int_equal(zkc_mutex_acquire(m), ZKC_EINVAL);
  assert_non_null(strstr(zkc_last_error_message(),
                         "invalid ACL for"));
  /* Refused before it was sent: not even the parent was made. */
  assert_int_equal(zkt_children_count(path), -1);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void acl_callback_and_node_data(void **state) {
  (void)state;
  char path[512], node[1100], acl[512], data[256];
  snprintf(path, sizeof path, "%s", zkt_path("a/b"));
  atomic_int calls = 0;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.auth_digest = TEAM;
  o.holder_id = "billing-7";
  o.acl_fn = pick_acl;
  o.acl_ctx = &calls;
  open_roots();
  zkc_client_t *c = zkt_open(&o);
  zkc_mutex_t *m = new_mutex(c, path);
  OK(zkc_mutex_acquire(m));
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  acl_string(node, acl, sizeof acl);
  assert_string_equal(acl, "31:digest:" TEAM_ID ";1:ip:127.0.0.1");
  acl_string(path, acl, sizeof acl);
  assert_string_equal(acl, "31:world:anyone");
  assert_true(atomic_load(&calls) >= 2);
  /* The node's data is the configured holder id and nothing else. */
  assert_int_equal(zkt_get_data(node, data, sizeof data), 9);
  assert_string_equal(data, "billing-7");
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);

  /* One ACL for every node; bad lists are refused at open. */
  zkc_client_opts_init(&o);
  o.acl = part_acl;
  o.acl_count = 0;
  assert_int_equal(zkc_client_open(&c, zkt_connect(), &o), ZKC_EINVAL);
  const zkc_acl_t no_perm[] = {{0, "world", "anyone"}};
  o.acl = no_perm;
  o.acl_count = 1;
  assert_int_equal(zkc_client_open(&c, zkt_connect(), &o), ZKC_EINVAL);
  const zkc_acl_t no_scheme[] = {{ZKC_PERM_ALL, NULL, "anyone"}};
  o.acl = no_scheme;
  assert_int_equal(zkc_client_open(&c, zkt_connect(), &o), ZKC_EINVAL);
  const zkc_acl_t world_read_all[] = {{ZKC_PERM_ALL, "world", "anyone"}};
  o.acl = world_read_all;
  o.holder_id = "";
  c = zkt_open(&o);
  m = new_mutex(c, zkt_path("c"));
  OK(zkc_mutex_acquire(m));
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  assert_int_equal(zkt_get_data(node, data, sizeof data), 0);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* ---- chroot ---- */

static void chroot_every_recipe(void **state) {
  (void)state;
  char connect[1024];
  snprintf(connect, sizeof connect, "%s%s", zkt_connect(), zkt_root());
  zkc_client_t *c;
  /* Missing chroot: a clear error at open. */
  assert_int_equal(zkc_client_open(&c, connect, NULL), ZKC_ENOROOT);
  assert_string_equal(zkc_err_name(ZKC_ENOROOT), "ZKC_ENOROOT");
  open_roots();
  OK(zkc_client_open(&c, connect, NULL));

  zkc_mutex_t *m = new_mutex(c, "/m");
  OK(zkc_mutex_acquire(m));
  assert_int_equal(zkt_children_count(zkt_path("m")), 1);

  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, "/l", "p1", NULL));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, zkt_ms(10000)));
  assert_int_equal(zkt_children_count(zkt_path("l")), 1);
  char *id = NULL;
  OK(zkc_latch_leader_id(l, &id));
  assert_string_equal(id, "p1");
  free(id);

  take_ctx_t t = {.stopped = 0};
  zkc_selector_t *s;
  OK(zkc_selector_create(&s, c, "/s", take, &t, NULL));
  OK(zkc_selector_start(s));
  assert_true(zkt_await(take_ready, &t, zkt_ms(10000)));
  assert_int_equal(zkt_children_count(zkt_path("s")), 1);

  OK(zkc_selector_close(s));
  OK(zkc_selector_destroy(s));
  OK(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  OK(zkc_latch_destroy(l));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  assert_true(zkt_await_closed(zkt_path("m"), 0));
  assert_true(zkt_await_closed(zkt_path("l"), 0));
  assert_true(zkt_await_closed(zkt_path("s"), 0));
}

/* Digest credentials are never refused by the stock server; the test
 * ensemble's provider (test/ensemble/RefusingDigestProvider.java) refuses
 * the user "refused", so the session meets AUTH_FAILED. */
static void refused_credentials_fail_open(void **state) {
  (void)state;
  open_roots();
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.auth_digest = "refused:whatever";
  o.connect_timeout_ms = (int)zkt_ms(20000);
  zkc_client_t *c = NULL;
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_client_open(&c, zkt_connect(), &o), ZKC_EAUTHFAILED);
  assert_null(c);
  /* Told by the server's verdict, not by running out of time. */
  assert_true(zkt_now_ms() - t0 < zkt_ms(10000));
  assert_int_not_equal(zkc_last_zk_code(), 0); /* the raw code, for logs */
}

/* ---- a refusal that waiting cannot cure ends an election ---- */

typedef struct {
  atomic_int errors;    /* on_error calls */
  atomic_int last_rc;   /* their rc */
  atomic_int took_lead; /* take_leadership / is_leader calls */
} refusal_t;

static void latch_refused(void *ctx, zkc_latch_t *l, int rc) {
  (void)l;
  refusal_t *r = ctx;
  atomic_store(&r->last_rc, rc);
  atomic_fetch_add(&r->errors, 1);
}

static void latch_led(void *ctx, zkc_latch_t *l) {
  (void)l;
  atomic_fetch_add(&((refusal_t *)ctx)->took_lead, 1);
}

static void selector_refused(void *ctx, zkc_selector_t *s, int rc) {
  (void)s;
  refusal_t *r = ctx;
  atomic_store(&r->last_rc, rc);
  atomic_fetch_add(&r->errors, 1);
}

static void selector_led(void *ctx, zkc_selector_t *s) {
  (void)s;
  atomic_fetch_add(&((refusal_t *)ctx)->took_lead, 1);
}

static int refused_once(void *ctx) {
  return atomic_load(&((refusal_t *)ctx)->errors) >= 1;
}
static int refused_twice(void *ctx) {
  return atomic_load(&((refusal_t *)ctx)->errors) >= 2;
}

/* An election path whose parent only TEAM may write below (the secure
 * preset: creator all, world read), made by a mutex of TEAM. */
static const char *secured_election(zkc_client_t **owner) {
  *owner = open_as("team:s3cret", ZKC_ACL_SECURE);
  const char *path = zkt_path("secured/election");
  zkc_mutex_t *m = new_mutex(*owner, path);
  OK(zkc_mutex_acquire(m));
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  return path;
}

static void refused_latch_ends_election(void **state) {
  (void)state;
  zkc_client_t *owner;
  const char *path = secured_election(&owner);
  zkc_client_t *c = zkt_open(NULL); /* no credentials */
  refusal_t r = {0};
  zkc_latch_opts_t lo;
  zkc_latch_opts_init(&lo);
  lo.is_leader = latch_led;
  lo.on_error = latch_refused;
  lo.ctx = &r;
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, path, "outsider", &lo));
  assert_int_equal(zkc_latch_error(l), ZKC_OK);
  OK(zkc_latch_start(l));
  /* await answers with the refusal, long before its own limit. */
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_latch_await(l, zkt_ms(60000)), ZKC_ENOAUTH);
  assert_true(zkt_now_ms() - t0 < zkt_ms(30000));
  assert_true(zkt_await(refused_once, &r, zkt_ms(5000)));
  assert_int_equal(atomic_load(&r.last_rc), ZKC_ENOAUTH);
  assert_int_equal(zkc_latch_error(l), ZKC_ENOAUTH);
  assert_false(zkc_latch_has_leadership(l));
  /* It stays out: no second try, no node, no leadership. */
  assert_int_equal(zkc_latch_await(l, zkt_ms(300)), ZKC_ENOAUTH);
  assert_int_equal(atomic_load(&r.errors), 1);
  assert_int_equal(atomic_load(&r.took_lead), 0);
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
  zkc_client_close(owner);
}

static void refused_selector_ends_election(void **state) {
  (void)state;
  zkc_client_t *owner;
  const char *path = secured_election(&owner);
  zkc_client_t *c = zkt_open(NULL);
  refusal_t r = {0};
  zkc_selector_opts_t so;
  zkc_selector_opts_init(&so);
  so.auto_requeue = 1; /* even so: a refusal is not retried */
  so.on_error = selector_refused;
  zkc_selector_t *s;
  OK(zkc_selector_create(&s, c, path, selector_led, &r, &so));
  OK(zkc_selector_start(s));
  assert_true(zkt_await(refused_once, &r, zkt_ms(10000)));
  assert_int_equal(atomic_load(&r.last_rc), ZKC_ENOAUTH);
  assert_int_equal(zkc_selector_error(s), ZKC_ENOAUTH);
  /* requeue tries again (the ACL might have been fixed): refused again. */
  OK(zkc_selector_requeue(s));
  assert_true(zkt_await(refused_twice, &r, zkt_ms(10000)));
  assert_int_equal(zkc_selector_error(s), ZKC_ENOAUTH);
  assert_int_equal(atomic_load(&r.took_lead), 0);
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_selector_close(s));
  OK(zkc_selector_destroy(s));
  zkc_client_close(c);
  zkc_client_close(owner);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(outsider_cannot_delete_or_overwrite),
      cmocka_unit_test(wrong_password_fails_clearly),
      cmocka_unit_test(credentials_survive_new_session),
      cmocka_unit_test(deleted_node_is_lost_lock),
      cmocka_unit_test(own_release_is_not_a_loss),
      cmocka_unit_test(deleted_latch_node_drops_leadership),
      cmocka_unit_test(deleted_selector_node_stops_leader),
      cmocka_unit_test(squatter_blocks_like_a_contender),
      cmocka_unit_test(acl_callback_and_node_data),
      cmocka_unit_test(acl_callback_bad_answer_refused),
      cmocka_unit_test(chroot_every_recipe),
      cmocka_unit_test(refused_credentials_fail_open),
      cmocka_unit_test(refused_latch_ends_election),
      cmocka_unit_test(refused_selector_ends_election),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "security");
}
