/* SPDX-License-Identifier: Apache-2.0 */
/* The queue engine fed scripted answers, no server: a world (qworld.h)
 * that records the requests the engine sends and answers them as the test
 * says, with a clock, a session and a waiter of the test's. Each case
 * checks one rule of "What a grant rests on" (docs/architecture.md): the
 * requests that go out (a sync through the leader before every read a
 * grant may rest on, the sole-blocker round's watches in order) and that
 * no grant is made on an answer that is stale, of another session, or
 * not proved by the server's order of events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "qengine.h"
#include "confirm_run.h"
#include "kernel_door.h" /* an op whole */
#include "session_shared.h" /* zkc__op_finish: how an answer arrives */

/* ---- the scripted world ---- */

#define MAX_REQ 64
#define BASE "/q" /* the queue's path */
#define FRESH_MS 5000 /* half a 10 s session: how long an answer proves */

typedef struct {
  zkc__req_kind_t kind;
  char path[700];
  int plain;
  uint64_t watch;
  int64_t session; /* a read bound to a session */
  zkc__op_t *op;
  int answered;
} req_t;

static struct {
  req_t req[MAX_REQ];
  int n;
  int64_t clock; /* boot and monotonic time alike, ms */
  int64_t session;
  zkc__session_fate_t fate;
  int64_t second; /* another client's session (a multi-lock's part), or 0 */
  zkc__session_fate_t second_fate;
  int live, closed;
  int clean; /* what the waiter says of the round's events */
  int view_clear; /* what the client's view says of the nodes ahead */
  int views_held, view_updates;
  uint64_t next_id;
  int registered, unwatched, own_watched, dropped, forgotten;
  int parent_watched, children_forgotten;
  int parent_wakes; /* the last guarded round's children event wakes it */
  int short_trips; /* the world's round trips too short to learn ahead */
  char also[700]; /* the waiter's second node (learn-ahead's) */
  char janitor[8][700];
  int n_janitor;
} S;

static void w_send(zkc_client_t *c, zkc__op_t *op, const zkc__req_t *rq) {
  (void)c;
  assert_true(S.n < MAX_REQ);
  req_t *q = &S.req[S.n++];
  memset(q, 0, sizeof *q);
  q->kind = rq->kind;
  snprintf(q->path, sizeof q->path, "%s", rq->path);
  q->plain = rq->plain;
  q->watch = rq->watch;
  q->session = rq->session;
  q->op = op;
}
static int64_t w_session_id(zkc_client_t *c) {
  (void)c;
  return S.session;
}
static zkc__session_fate_t w_fate(zkc_client_t *c, int64_t id) {
  (void)c;
  if (id == S.session) return S.fate;
  return id != 0 && id == S.second ? S.second_fate : ZKC__SESSION_GONE;
}
static int w_live(zkc_client_t *c) {
  (void)c;
  return S.live;
}
static int w_closed(zkc_client_t *c) {
  (void)c;
  return S.closed;
}
static int w_fresh(zkc_client_t *c, int64_t sent) {
  (void)c;
  return S.clock - sent < FRESH_MS;
}
static int w_learn_ahead(zkc_client_t *c) {
  (void)c;
  return !S.short_trips;
}
static const char *w_holder(zkc_client_t *c) {
  (void)c;
  return "holder";
}
static int64_t w_clock(void) { return S.clock; }
static int w_register(zkc_client_t *c, zkc__waiter_t *w, const char *path,
                      void (*notify)(void *), void *ctx) {
  (void)c, (void)path, (void)notify, (void)ctx;
  w->id = ++S.next_id;
  S.registered++;
  return ZKC_OK;
}
static void w_watch_own(zkc_client_t *c, zkc__waiter_t *w, const char *own) {
  (void)c, (void)w, (void)own;
  S.own_watched++;
}
static int w_clean(zkc_client_t *c, zkc__waiter_t *w, int absent) {
  (void)c, (void)w, (void)absent;
  return S.clean;
}
static void w_unwatch(zkc_client_t *c, zkc__waiter_t *w) {
  (void)c, (void)w;
  S.unwatched++;
}
static void w_unregister(zkc_client_t *c, zkc__waiter_t *w) {
  (void)c, (void)w;
  S.registered--;
}
static void w_forget(zkc_client_t *c, const char *path, uint64_t id) {
  (void)c, (void)path, (void)id;
  S.forgotten++;
}
static void w_watch_parent(zkc_client_t *c, zkc__waiter_t *w,
                           const char *parent, int wakes) {
  (void)c, (void)w;
  assert_string_equal(parent, BASE);
  S.parent_watched++;
  S.parent_wakes = wakes;
}
static void w_forget_children(zkc_client_t *c, const char *path, uint64_t id) {
  (void)c, (void)id;
  assert_string_equal(path, BASE);
  S.children_forgotten++;
}
static void w_also(zkc_client_t *c, zkc__waiter_t *w, const char *also) {
  (void)c, (void)w;
  snprintf(S.also, sizeof S.also, "%s", also);
}
static void w_janitor(zkc_client_t *c, const char *path, const char *uuid) {
  (void)c, (void)uuid;
  assert_true(S.n_janitor < 8);
  snprintf(S.janitor[S.n_janitor++], sizeof S.janitor[0], "%s", path);
}
static int w_delete_answered(zkc_client_t *c, const char *node, int rc) {
  (void)c, (void)node;
  return rc == ZKC_ENONODE ? ZKC_ELOST : rc;
}
static int w_retry(zkc_client_t *c, int *attempt, int rc, int64_t deadline,
                   int64_t *wake_at) {
  (void)c;
  if (!zkc__retryable(rc)) return rc;
  if (S.clock >= deadline) return ZKC_ETIMEDOUT;
  (*attempt)++;
  *wake_at = S.clock + 10;
  return ZKC_OK;
}

static void w_view_update(zkc_client_t *c, const char *base,
                          char *const *names, size_t n,
                          const zkc__stat_t *parent, int *held) {
  (void)c, (void)base, (void)names, (void)n, (void)parent;
  S.view_updates++;
  if (!*held) S.views_held++;
  *held = 1;
}
static void w_view_drop(zkc_client_t *c, const char *base, int *held) {
  (void)c, (void)base;
  if (*held) S.views_held--;
  *held = 0;
}
static int w_view_clear(zkc_client_t *c, const char *base, const char *own) {
  (void)c, (void)base, (void)own;
  return S.view_clear;
}

static const zkc__qworld_t world = {
    .send = w_send,
    .session_id = w_session_id,
    .session_fate = w_fate,
    .session_live = w_live,
    .closed = w_closed,
    .grant_fresh = w_fresh,
    .learn_ahead = w_learn_ahead,
    .holder_id = w_holder,
    .boot_ms = w_clock,
    .now_ms = w_clock,
    .waiter_register = w_register,
    .waiter_watch_own = w_watch_own,
    .waiter_clean = w_clean,
    .waiter_unwatch = w_unwatch,
    .waiter_unregister = w_unregister,
    .forget_watch = w_forget,
    .waiter_watch_parent = w_watch_parent,
    .forget_child_watch = w_forget_children,
    .waiter_also = w_also,
    .janitor_add = w_janitor,
    .delete_answered = w_delete_answered,
    .retry_delay = w_retry,
    .view_update = w_view_update,
    .view_drop = w_view_drop,
    .view_clear_ahead = w_view_clear,
};

static zkc__op_t *d_op_new(void *ctx) {
  (void)ctx;
  return zkc__op_new();
}
static void d_dropped(void *ctx) {
  (void)ctx;
  S.dropped++;
}
static void d_wake(void *ctx) { (void)ctx; }
static const zkc__qdriver_t driver = {
    .op_new = d_op_new, .op_dropped = d_dropped, .wake = d_wake};

/* ---- the run and its answers ---- */

static zkc__qrun_t R;
#define SESSION 0x1000
#define OTHER_SESSION 0x2000

/* The queue's policies: each recipe's run as it starts it (queue.c for
 * the blocking ones, by way of candidate.c for the latch and the selector;
 * async_engine.c with its driver), and a node that stands in its way (a
 * reader waits on writers only, a writer also on readers). The cases of
 * the rules every queue keeps run once per policy (each_policy). */
typedef struct {
  const char *what;
  const char *name;   /* our node's marker (zkc__side_name, LATCH_NAME) */
  const char *blocks; /* the marker of a node ahead that blocks us */
  zkc__recipe_layout_t layout;
  int reader, driven; /* driven: the async engine's driver steps it */
} qpolicy_t;
static const qpolicy_t policies[] = {
    {"async acquire", "lock-", "lock-", ZKC__AS_LOCK, 0, 1},
    {"mutex", "lock-", "lock-", ZKC__AS_LOCK, 0, 0},
    {"read side", "__READ__", "__WRIT__", ZKC__AS_RWLOCK, 1, 0},
    {"write side", "__WRIT__", "__READ__", ZKC__AS_RWLOCK, 0, 0},
    {"latch", "latch-", "latch-", ZKC__AS_ELECTION, 0, 0},
    {"selector", "lock-", "lock-", ZKC__AS_LOCK, 0, 0},
};
#define N_POLICIES (sizeof policies / sizeof policies[0])
static const qpolicy_t *P = &policies[0]; /* each_policy's current one */

static void start_as(const qpolicy_t *p, int requeue) {
  memset(&S, 0, sizeof S);
  S.clock = 1000000;
  S.session = SESSION;
  S.fate = ZKC__SESSION_LIVE;
  S.live = 1;
  zkc__qrun_how_t how = {.base = BASE, .name = p->name, .data = "me",
                         .deadline = S.clock + 60000, .layout = p->layout,
                         .reader = p->reader != 0, .requeue = requeue != 0,
                         .drv = p->driven ? &driver : NULL, .world = &world};
  zkc__qrun_init(&R, NULL, &how);
}

/* The async acquire's run: the cases of one policy's machinery. */
static void start(int requeue) { start_as(&policies[0], requeue); }

/* Runs a case once for every queue policy, naming each, so that a
 * failure says whose rule broke. */
static void each_policy(void (*body)(void)) {
  for (size_t i = 0; i < N_POLICIES; i++) {
    P = &policies[i];
    print_message("[ policy   ] %s\n", P->what);
    body();
  }
}

/* The case `name`: its body name_as for every queue policy. */
#define CASE_OF_EACH_POLICY(name)   \
  static void name(void **state) { \
    (void)state;                   \
    each_policy(name##_as);        \
  }

/* A node ahead of ours (sequence seq, below our 5) that blocks the current
 * policy; and a name's path. Each call its own buffer, a few live at once. */
static const char *ahead(int seq) {
  static char names[4][64];
  static int next;
  char *s = names[next++ % 4];
  snprintf(s, sizeof names[0], "%c-%s%010d", 'a' + seq - 1, P->blocks, seq);
  return s;
}
static const char *at(const char *name) {
  static char paths[4][96];
  static int next;
  char *s = paths[next++ % 4];
  snprintf(s, sizeof paths[0], BASE "/%s", name);
  return s;
}

/* A vouched run (the read-write downgrade): a plain read node, vouched
 * for by the write node WNODE. */
#define WNODE BASE "/_c_w-__WRIT__0000000004"
static int write_hold_lost; /* what the voucher's hold says */
static int voucher_lost(void *ctx) { return *(int *)ctx; }
static const zkc__voucher_t voucher = {.node = WNODE, .lost = voucher_lost,
                                       .ctx = &write_hold_lost};
static void start_vouched(void) {
  start(0);
  write_hold_lost = 0;
  zkc__qrun_how_t how = {.base = BASE, .name = "__READ__0000000004",
                         .data = "me", .deadline = S.clock + 60000,
                         .plain = 1, .no_list = 1, .vouch = &voucher,
                         .drv = &driver, .world = &world};
  zkc__qrun_init(&R, NULL, &how);
}

/* Ends the run and answers whatever is still in flight (an op given up is
 * freed by its answer, as a late completion frees it). */
static void stop(void) {
  zkc__qrun_clear(&R);
  for (int i = 0; i < S.n; i++)
    if (!S.req[i].answered) {
      S.req[i].answered = 1;
      zkc__op_finish(S.req[i].op, ZKC_ECONNLOSS, NULL);
    }
}

static req_t *req(int i, zkc__req_kind_t kind) {
  assert_true(i < S.n);
  assert_int_equal(S.req[i].kind, kind);
  return &S.req[i];
}

static void answer(int i, int rc, int64_t owner) {
  assert_true(i < S.n);
  assert_false(S.req[i].answered);
  S.req[i].answered = 1;
  zkc__stat_t st = {.czxid = 700 + i, .ephemeral_owner = owner, .version = 0};
  zkc__op_finish(S.req[i].op, rc, rc == ZKC_OK ? &st : NULL);
}

/* The create at i made our node with sequence seq (owned by owner). */
static void answer_created(int i, int seq, int64_t owner) {
  req_t *q = req(i, ZKC__REQ_CREATE);
  char node[760];
  snprintf(node, sizeof node, "%s%010d", q->path, seq);
  assert_non_null(q->op->created = strdup(node));
  answer(i, ZKC_OK, owner);
}

/* Our node's name: the last create's path with sequence seq. */
static const char *own_name(int seq) {
  static char name[760];
  for (int i = S.n - 1; i >= 0; i--)
    if (S.req[i].kind == ZKC__REQ_CREATE) {
      snprintf(name, sizeof name, "%s%010d", strrchr(S.req[i].path, '/') + 1,
               seq);
      return name;
    }
  fail_msg("no create sent");
  return NULL;
}

/* The children read at i answers these names (NULL-terminated). */
static void answer_children(int i, ...) {
  assert_true(i < S.n);
  req_t *q = &S.req[i];
  if (q->kind != ZKC__REQ_CHILDREN_WATCH) req(i, ZKC__REQ_CHILDREN);
  va_list ap;
  int n = 0;
  va_start(ap, i);
  while (va_arg(ap, const char *) != NULL) n++;
  va_end(ap);
  q->op->children.data = calloc((size_t)n + 1, sizeof(char *));
  assert_non_null(q->op->children.data);
  q->op->children.count = n;
  va_start(ap, i);
  for (int k = 0; k < n; k++)
    assert_non_null(q->op->children.data[k] = strdup(va_arg(ap, const char *)));
  va_end(ap);
  answer(i, ZKC_OK, 0);
}

static zkc__qneed_t step(void) { return zkc__qrun_step(&R); }

static void expect_granted(const char *own) {
  assert_int_equal(step(), ZKC__QN_DONE);
  zkc__held_t held = {0};
  assert_int_equal(zkc__qrun_result(&R, &held), ZKC_OK);
  char want[800];
  snprintf(want, sizeof want, BASE "/%s", own);
  assert_string_equal(held.node, want);
  assert_int_equal(held.session_id, SESSION);
  free(held.node);
}

/* Queues with sequence 5 behind the names given (NULL-terminated: at most
 * two), the create and its pipelined read answered at once: the requests
 * up to the round's are sent. */
static void queue_behind(const char *a, const char *b) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(0, ZKC__REQ_CREATE);
  req(1, ZKC__REQ_CHILDREN);
  char own[760];
  snprintf(own, sizeof own, "%s", own_name(5));
  answer_created(0, 5, SESSION);
  if (b) answer_children(1, a, b, own, (char *)NULL);
  else answer_children(1, a, own, (char *)NULL);
}

/* The sole-blocker round's answers (requests 2-4: the sync, our own
 * node's watch, the blocker's, owned by blocker_owner): the run waits. */
static void answer_sole_round(int64_t blocker_owner) {
  answer(2, ZKC_OK, 0);
  answer(3, ZKC_OK, SESSION);
  answer(4, ZKC_OK, blocker_owner);
  assert_int_equal(step(), ZKC__QN_EVENT);
}

/* A round behind two (requests 2-4: the sync, the blocker's watch, then
 * the watch on the node before it, learn-ahead's): the run waits. */
static void answer_round_behind_two(void) {
  assert_int_equal(S.n, 5);
  answer(2, ZKC_OK, 0);
  answer(3, ZKC_OK, OTHER_SESSION);
  answer(4, ZKC_OK, OTHER_SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
}

/* The next step reads the queue again behind a sync (requests i, i+1). */
static void expect_read_behind_sync(int i) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(i, ZKC__REQ_SYNC);
  req(i + 1, ZKC__REQ_CHILDREN);
}

/* The next step reads the queue again on the round's sync, answered and
 * fresh: the read alone (request i), no sync of its own. */
static void expect_read_on_round_sync(int i) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, i + 1);
  req(i, ZKC__REQ_CHILDREN);
}

/* The vouched run's create, answered: the read node made (request 0);
 * then behind a sync (request i) the write node's stat (i+1) and the read
 * node's own (i+2). */
static void expect_vouch_read(int i) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, i + 3);
  assert_string_equal(req(i, ZKC__REQ_SYNC)->path, BASE);
  assert_string_equal(req(i + 1, ZKC__REQ_EXISTS)->path, WNODE);
  assert_non_null(strstr(req(i + 2, ZKC__REQ_EXISTS)->path, "__READ__"));
}

static void make_read_node(void) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 1); /* no queue read behind it */
  assert_true(req(0, ZKC__REQ_CREATE)->plain);
  req_t *q = req(0, ZKC__REQ_CREATE);
  assert_non_null(q->op->created = strdup(q->path));
  answer(0, ZKC_OK, SESSION);
}

/* The semaphore's queue: unproven, with LEASES read behind every read of
 * the queue after the first. */
#define LEASES "/leases"
static void start_unproven(void) {
  start(1);
  zkc__qrun_how_t how = {.base = BASE, .name = "lock-", .data = "me",
                         .deadline = S.clock + 60000, .requeue = 1,
                         .also = LEASES, .unproven = 1, .drv = &driver,
                         .world = &world};
  zkc__qrun_init(&R, NULL, &how);
}

/* ---- the cases ---- */

/* The downgrade: the read node, then the write node seen through the
 * leader, fresh and our session's: granted, the token the write node's
 * czxid (the answer at request 2 carries czxid 702). */
static void vouched_granted_on_the_write_nodes_read(void **state) {
  (void)state;
  start_vouched();
  make_read_node();
  expect_vouch_read(1);
  answer(1, ZKC_OK, 0);
  answer(2, ZKC_OK, SESSION);
  answer(3, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_DONE);
  zkc__held_t held = {0};
  assert_int_equal(zkc__qrun_result(&R, &held), ZKC_OK);
  assert_int_equal(held.token, 702);
  assert_int_equal(held.session_id, SESSION);
  assert_non_null(strstr(held.node, "__READ__0000000004"));
  free(held.node);
  stop();
}

/* The write node gone, or another session's (the write hold was lost):
 * no grant; the read node is deleted; ZKC_ELOST. */
static void vouched_without_the_write_node_is_lost(void **state) {
  (void)state;
  for (int other = 0; other < 2; other++) {
    start_vouched();
    make_read_node();
    expect_vouch_read(1);
    answer(1, ZKC_OK, 0);
    if (other) answer(2, ZKC_OK, OTHER_SESSION);
    else answer(2, ZKC_ENONODE, 0);
    answer(3, ZKC_OK, SESSION);
    assert_int_equal(step(), ZKC__QN_REPLY);
    req(4, ZKC__REQ_DELETE);
    answer(4, ZKC_OK, 0);
    assert_int_equal(step(), ZKC__QN_DONE);
    assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ELOST);
    stop();
  }
}

/* Our read node gone (deleted by an outsider) or another session's, the
 * write node ours: no grant; ZKC_ELOST, and the read node deleted. */
static void vouched_without_its_own_node_is_lost(void **state) {
  (void)state;
  for (int other = 0; other < 2; other++) {
    start_vouched();
    make_read_node();
    expect_vouch_read(1);
    answer(1, ZKC_OK, 0);
    answer(2, ZKC_OK, SESSION);
    if (other) answer(3, ZKC_OK, OTHER_SESSION);
    else answer(3, ZKC_ENONODE, 0);
    assert_int_equal(step(), ZKC__QN_REPLY);
    req(4, ZKC__REQ_DELETE);
    answer(4, other ? ZKC_OK : ZKC_ENONODE, 0);
    assert_int_equal(step(), ZKC__QN_DONE);
    assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ELOST);
    stop();
  }
}

/* The write node's answer came after half a session (a stall): no grant
 * on it; read again behind a new sync, and granted on that answer. */
static void vouched_stale_answer_reads_again(void **state) {
  (void)state;
  start_vouched();
  make_read_node();
  expect_vouch_read(1);
  S.clock += FRESH_MS;
  answer(1, ZKC_OK, 0);
  answer(2, ZKC_OK, SESSION);
  answer(3, ZKC_OK, SESSION);
  expect_vouch_read(4);
  answer(4, ZKC_OK, 0);
  answer(5, ZKC_OK, SESSION);
  answer(6, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_DONE);
  zkc__held_t held = {0};
  assert_int_equal(zkc__qrun_result(&R, &held), ZKC_OK);
  assert_int_equal(held.token, 705);
  free(held.node);
  stop();
}

/* The sync before the stats failed (a follower cut off from the leader),
 * the stats answered from the follower's frozen state, both nodes ours:
 * no grant on them; the retry policy's backoff, then the stats again
 * behind a new sync, and the grant on those. */
static void vouched_without_its_sync_grants_nothing(void **state) {
  (void)state;
  start_vouched();
  make_read_node();
  expect_vouch_read(1);
  answer(1, ZKC_ECONNLOSS, 0);
  answer(2, ZKC_OK, SESSION);
  answer(3, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_TIME);
  S.clock += 10;
  expect_vouch_read(4);
  answer(4, ZKC_OK, 0);
  answer(5, ZKC_OK, SESSION);
  answer(6, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_OK);
  stop();
}

/* The write hold told lost while the write node's read was out (a
 * suspension under lost_on_suspended), its answer then stale: refused at
 * once with ZKC_ELOST, not read again (the ensemble may be silent until
 * the deadline, and no answer could make the lost hold vouch). Fresh
 * answers are refused alike. The read node is deleted. */
static void vouched_refused_once_the_write_hold_is_lost(void **state) {
  (void)state;
  for (int stale = 0; stale < 2; stale++) {
    start_vouched();
    make_read_node();
    expect_vouch_read(1);
    write_hold_lost = 1;
    if (stale) S.clock += FRESH_MS;
    answer(1, ZKC_OK, 0);
    answer(2, ZKC_OK, SESSION);
    answer(3, ZKC_OK, SESSION);
    assert_int_equal(step(), ZKC__QN_REPLY);
    req(4, ZKC__REQ_DELETE);
    answer(4, ZKC_OK, 0);
    assert_int_equal(step(), ZKC__QN_DONE);
    assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ELOST);
    stop();
  }
}

/* The session in doubt at the grant: wait for the connection, then read
 * the write node again; gone with the session: ZKC_ELOST. */
static void vouched_session_doubt_then_gone(void **state) {
  (void)state;
  start_vouched();
  make_read_node();
  expect_vouch_read(1);
  S.fate = ZKC__SESSION_DOUBT;
  S.live = 0;
  answer(1, ZKC_OK, 0);
  answer(2, ZKC_OK, SESSION);
  answer(3, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_SESSION);
  S.live = 1;
  S.fate = ZKC__SESSION_LIVE;
  expect_vouch_read(4);
  S.fate = ZKC__SESSION_GONE;
  answer(4, ZKC_OK, 0);
  answer(5, ZKC_OK, SESSION);
  answer(6, ZKC_OK, SESSION);
  /* Gone with the session: no grant; the read node is given up (its
   * delete sent, or left to the janitor), within a few steps. */
  int steps = 0;
  zkc__qneed_t need;
  while ((need = step()) != ZKC__QN_DONE && ++steps < 10)
    for (int i = 7; i < S.n; i++)
      if (!S.req[i].answered) answer(i, ZKC_OK, 0);
  assert_int_equal(need, ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ELOST);
  stop();
}

/* The read node's create cut off, found by its uuid and adopted:
 * the adopted node is granted only on the write node's read too; the
 * write node gone meanwhile: ZKC_ELOST, the adopted read node deleted. */
static void vouched_adopted_still_reads_the_write_node(void **state) {
  (void)state;
  start_vouched();
  assert_int_equal(step(), ZKC__QN_REPLY);
  req_t *c = req(0, ZKC__REQ_CREATE);
  char made_name[700];
  snprintf(made_name, sizeof made_name, "%s", strrchr(c->path, '/') + 1);
  answer(0, ZKC_ECONNLOSS, 0);
  assert_int_equal(step(), ZKC__QN_TIME);
  S.clock += 10;
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(1, ZKC__REQ_SYNC);
  answer(1, ZKC_OK, 0);
  answer_children(2, made_name, (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(3, ZKC__REQ_EXISTS);
  answer(3, ZKC_OK, SESSION); /* ours: adopted */
  expect_vouch_read(4);
  answer(4, ZKC_OK, 0);
  answer(5, ZKC_ENONODE, 0); /* the write node gone */
  answer(6, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_non_null(strstr(req(7, ZKC__REQ_DELETE)->path, made_name));
  answer(7, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ELOST);
  stop();
}

/* The write node's read unanswered at the limit: ZKC_ETIMEDOUT,
 * and the read node made is deleted (not left to block the queue). */
static void vouched_timeout_deletes_the_read_node(void **state) {
  (void)state;
  start_vouched();
  make_read_node();
  expect_vouch_read(1);
  zkc__qrun_give_up(&R);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_non_null(strstr(req(4, ZKC__REQ_DELETE)->path, "__READ__0000000004"));
  answer(4, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ETIMEDOUT);
  stop();
}

/* The create and the read pipelined behind it, answered while fresh, with
 * our node first: granted on them, no sync (the create went through the
 * leader after the proof's time), two requests in all. */
static void first_granted_on_the_pipelined_read_as(void) {
  start_as(P, 1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 2);
  req_t *c = req(0, ZKC__REQ_CREATE);
  assert_int_equal(strncmp(c->path, BASE "/_c_", 6), 0);
  assert_false(c->plain);
  assert_string_equal(req(1, ZKC__REQ_CHILDREN)->path, BASE);
  char own[760];
  snprintf(own, sizeof own, "%s", own_name(5));
  answer_created(0, 5, SESSION);
  answer_children(1, own, ahead(9), (char *)NULL);
  expect_granted(own);
  assert_int_equal(S.n, 2);
  stop();
}
CASE_OF_EACH_POLICY(first_granted_on_the_pipelined_read)

/* ---- a quick run (qengine.h, zkc__quick_t) ---- */

static int quick_intact, quick_asked;
static int quick_check(void *ctx) {
  (void)ctx;
  quick_asked++;
  return quick_intact;
}
static zkc__quick_t quick = {.seq = 5, .base_czxid = 42, .intact = quick_check};

/* A mutex's run told that sequence 5 may grant on its create alone. */
static void start_quick(int intact) {
  start_as(&policies[1], 1);
  quick_intact = intact;
  quick_asked = 0;
  zkc__qrun_how_t how = {.base = BASE, .name = "lock-", .data = "me",
                         .deadline = S.clock + 60000, .layout = ZKC__AS_LOCK,
                         .requeue = 1, .quick = &quick, .world = &world};
  zkc__qrun_init(&R, NULL, &how);
}

/* The held node's alone and base_czxid after a grant of `own`. */
static void expect_granted_alone(const char *own, int alone, int64_t czxid) {
  assert_int_equal(step(), ZKC__QN_DONE);
  zkc__held_t held = {0};
  assert_int_equal(zkc__qrun_result(&R, &held), ZKC_OK);
  assert_non_null(strstr(held.node, own));
  assert_int_equal(held.alone, alone);
  assert_int_equal(held.base_czxid, czxid);
  free(held.node);
}

/* The create goes alone; answered with the sequence expected and the base
 * intact (asked only once the create is answered), it grants: no read. */
static void quick_grants_on_the_create_alone(void **state) {
  (void)state;
  start_quick(1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 1);
  req(0, ZKC__REQ_CREATE);
  assert_int_equal(quick_asked, 0);
  answer_created(0, 5, SESSION);
  char own[760];
  snprintf(own, sizeof own, "%s", own_name(5));
  expect_granted_alone(own, 1, 42); /* the base the hint named */
  assert_int_equal(quick_asked, 1);
  assert_int_equal(S.n, 1);
  stop();
}

/* Another sequence (a create came between), or a base not intact (made
 * again, or the client's event order broken): the queue is read, behind a
 * sync, and that read decides. */
static void quick_reads_when_the_proof_fails(void **state) {
  (void)state;
  for (int c = 0; c < 2; c++) {
    start_quick(c == 0);
    assert_int_equal(step(), ZKC__QN_REPLY);
    answer_created(0, c == 0 ? 6 : 5, SESSION);
    char own[760];
    snprintf(own, sizeof own, "%s", own_name(c == 0 ? 6 : 5));
    expect_read_behind_sync(1);
    answer(1, ZKC_OK, 0);
    answer_children(2, ahead(1), own, (char *)NULL);
    assert_int_equal(step(), ZKC__QN_REPLY); /* a round behind the blocker */
    assert_true(S.n > 3);
    stop();
  }
}

/* The create's answer stale (this process stalled): no grant on it; the
 * queue is read behind a sync, and that read, showing our node alone,
 * grants and starts the next quick run (alone, the base's czxid). */
static void quick_stale_create_reads_again(void **state) {
  (void)state;
  start_quick(1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  S.clock += FRESH_MS;
  answer_created(0, 5, SESSION);
  char own[760];
  snprintf(own, sizeof own, "%s", own_name(5));
  expect_read_behind_sync(1);
  answer(1, ZKC_OK, 0);
  answer_children(2, own, (char *)NULL);
  expect_granted_alone(own, 1, 702);
  stop();
}

/* A read granting with another child beside ours is no start for a quick
 * run (a node behind, or a squatter's of any name). */
static void read_beside_another_is_not_alone(void **state) {
  (void)state;
  start_as(&policies[1], 1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_created(0, 5, SESSION);
  char own[760];
  snprintf(own, sizeof own, "%s", own_name(5));
  answer_children(1, own, "zz-not-a-lock", (char *)NULL);
  expect_granted_alone(own, 0, 701);
  stop();
}

/* The same answers, read after half a session timeout (this process
 * stalled meanwhile): no grant on them; the queue is read again, behind a
 * sync, and that read's answer is the proof. */
static void stale_answer_read_again_through_the_leader_as(void) {
  start_as(P, 1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  char own[760];
  snprintf(own, sizeof own, "%s", own_name(5));
  S.clock += FRESH_MS;
  answer_created(0, 5, SESSION);
  answer_children(1, own, (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 4);
  assert_string_equal(req(2, ZKC__REQ_SYNC)->path, BASE);
  req(3, ZKC__REQ_CHILDREN);
  answer(2, ZKC_OK, 0);
  answer_children(3, own, (char *)NULL);
  expect_granted(own);
  stop();
}
CASE_OF_EACH_POLICY(stale_answer_read_again_through_the_leader)

/* Two ahead: a sync, then a watch on the one right before, then one on
 * the one before that (learn-ahead: its delete may leave the blocker
 * sole), one waiter's both; no own-node watch (a delete cannot grant
 * alone). Woken while the round's sync is fresh, the queue is read again
 * on it: the read alone. */
static void waiter_reads_again_on_the_rounds_sync_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 5);
  assert_string_equal(req(2, ZKC__REQ_SYNC)->path, BASE);
  assert_string_equal(req(3, ZKC__REQ_WATCH)->path, at(ahead(2)));
  assert_string_equal(req(4, ZKC__REQ_WATCH)->path, at(ahead(1)));
  assert_int_equal(req(3, ZKC__REQ_WATCH)->watch, req(4, ZKC__REQ_WATCH)->watch);
  assert_string_equal(S.also, at(ahead(1)));
  assert_int_equal(S.own_watched, 0);
  answer_round_behind_two();
  S.clean = 1; /* not a sole round: proves nothing */
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_on_round_sync(5);
  const char *own = own_name(5);
  answer_children(5, own, (char *)NULL);
  expect_granted(own);
  assert_int_equal(S.registered, 0);
  stop();
}
CASE_OF_EACH_POLICY(waiter_reads_again_on_the_rounds_sync)

/* The same round woken after half a session timeout: its sync proves
 * nothing any more; the read goes behind a sync of its own. */
static void stale_round_sync_reads_behind_a_new_one_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_round_behind_two();
  S.clock += FRESH_MS;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_behind_sync(5);
  stop();
}
CASE_OF_EACH_POLICY(stale_round_sync_reads_behind_a_new_one)

/* A round whose sync failed: the read goes behind a new sync. */
static void failed_round_sync_reads_behind_a_new_one_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(2, ZKC_ECONNLOSS, 0);
  answer(3, ZKC_ENONODE, 0); /* the blocker gone already: read at once */
  answer(4, ZKC_OK, OTHER_SESSION);
  expect_read_behind_sync(5);
  stop();
}
CASE_OF_EACH_POLICY(failed_round_sync_reads_behind_a_new_one)

/* Two ahead, both known gone when the watch fires (the client's view):
 * the proof is our own node's stat behind a sync, not a read of the
 * queue; the run held the view while it waited and leaves it. */
static void view_clear_confirms_with_a_stat_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.views_held, 1);
  answer_round_behind_two();
  S.view_clear = 1;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 7);
  assert_string_equal(req(5, ZKC__REQ_SYNC)->path, BASE);
  char own[800];
  snprintf(own, sizeof own, BASE "/%s", own_name(5));
  assert_string_equal(req(6, ZKC__REQ_EXISTS)->path, own);
  answer(5, ZKC_OK, 0);
  answer(6, ZKC_OK, SESSION);
  expect_granted(own_name(5));
  assert_int_equal(S.views_held, 0);
  stop();
}
CASE_OF_EACH_POLICY(view_clear_confirms_with_a_stat)

/* The stat shows our node gone (an outsider deleted it): no grant; the
 * run queues again with a new node. */
static void view_clear_own_node_gone_queues_again_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_round_behind_two();
  S.view_clear = 1;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(5, ZKC_OK, 0);
  answer(6, ZKC_ENONODE, 0);
  assert_int_equal(step(), ZKC__QN_REPLY); /* the delete of a node gone */
  req(7, ZKC__REQ_DELETE);
  answer(7, ZKC_ENONODE, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(8, ZKC__REQ_CREATE); /* at the back, a new uuid */
  assert_int_equal(S.views_held, 0);
  stop();
}
CASE_OF_EACH_POLICY(view_clear_own_node_gone_queues_again)

/* The stat answered after half a session timeout (a stall): no grant on
 * it; the queue is read again behind a sync. */
static void view_clear_stale_stat_reads_again_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_round_behind_two();
  S.view_clear = 1;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  S.clock += FRESH_MS;
  answer(5, ZKC_OK, 0);
  answer(6, ZKC_OK, SESSION);
  expect_read_behind_sync(7);
  stop();
}
CASE_OF_EACH_POLICY(view_clear_stale_stat_reads_again)

/* A sole blocker: a sync, our own node's watch, then the blocker's, in
 * that order; its delete with our node untouched in the server's order
 * (clean) grants without a read while the round's answers are fresh. */
static void sole_blocker_handoff_without_a_read_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 5);
  assert_string_equal(req(2, ZKC__REQ_SYNC)->path, BASE);
  char own[800];
  snprintf(own, sizeof own, BASE "/%s", own_name(5));
  assert_string_equal(req(3, ZKC__REQ_WATCH)->path, own);
  assert_string_equal(req(4, ZKC__REQ_WATCH)->path, at(ahead(1)));
  assert_int_equal(req(3, ZKC__REQ_WATCH)->watch, req(4, ZKC__REQ_WATCH)->watch);
  assert_int_equal(S.own_watched, 1);
  answer_sole_round(OTHER_SESSION);
  S.clean = 1;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_granted(own_name(5));
  assert_int_equal(S.n, 5);
  stop();
}
CASE_OF_EACH_POLICY(sole_blocker_handoff_without_a_read)

/* The same round woken after half a session timeout: its answers prove
 * nothing any more; read again behind a sync. */
static void sole_blocker_handoff_gone_stale_reads_again_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_sole_round(OTHER_SESSION);
  S.clock += FRESH_MS;
  S.clean = 1;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_behind_sync(5);
  answer(5, ZKC_OK, 0);
  const char *own = own_name(5);
  answer_children(6, own, (char *)NULL);
  expect_granted(own);
  stop();
}
CASE_OF_EACH_POLICY(sole_blocker_handoff_gone_stale_reads_again)

/* The events do not prove our node was there when the blocker went (an
 * event on it, a session event, a watch removal): read again. */
static void unclean_delete_reads_again_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_sole_round(OTHER_SESSION);
  S.clean = 0;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_on_round_sync(5);
  stop();
}
CASE_OF_EACH_POLICY(unclean_delete_reads_again)

/* The round's sync failed (a follower cut off from the leader cannot
 * answer it) while the watches say the blocker is gone and our node there
 * (the frozen follower's state): no grant on them; the queue is read
 * behind a sync, and a read whose sync failed grants nothing either, even
 * showing our node first. */
static void sole_round_without_its_sync_grants_nothing_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  S.clean = 1;
  answer(2, ZKC_ECONNLOSS, 0);
  answer(3, ZKC_OK, SESSION);
  answer(4, ZKC_ENONODE, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 7);
  req(5, ZKC__REQ_SYNC);
  req(6, ZKC__REQ_CHILDREN);
  answer(5, ZKC_ECONNLOSS, 0);
  answer_children(6, own_name(5), (char *)NULL);
  assert_int_equal(step(), ZKC__QN_TIME); /* a retry's backoff, no grant */
  stop();
}
CASE_OF_EACH_POLICY(sole_round_without_its_sync_grants_nothing)

/* Learn-ahead: two ahead, the one further ahead goes (its watch wakes the
 * round). The read on the round's sync shows the blocker sole: a sole
 * round is set while the blocker still holds, and the blocker's delete
 * then grants with no request after it. */
static void learn_ahead_handoff_without_a_read_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_round_behind_two();
  S.clean = 1; /* what the waiter says: not a sole round, no grant on it */
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_on_round_sync(5);
  const char *own = own_name(5);
  answer_children(5, ahead(2), own, (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 9);
  assert_string_equal(req(6, ZKC__REQ_SYNC)->path, BASE);
  char own_path[800];
  snprintf(own_path, sizeof own_path, BASE "/%s", own_name(5));
  assert_string_equal(req(7, ZKC__REQ_WATCH)->path, own_path);
  assert_string_equal(req(8, ZKC__REQ_WATCH)->path, at(ahead(2)));
  answer(6, ZKC_OK, 0);
  answer(7, ZKC_OK, SESSION);
  answer(8, ZKC_OK, OTHER_SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED); /* the blocker's delete */
  expect_granted(own_name(5));
  assert_int_equal(S.n, 9);
  stop();
}
CASE_OF_EACH_POLICY(learn_ahead_handoff_without_a_read)

/* The node further ahead was gone before its watch was set: what its
 * event would have told; the queue is read at once (on the round's
 * sync), no wait. */
static void learn_ahead_node_gone_already_reads_at_once_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(2, ZKC_OK, 0);
  answer(3, ZKC_OK, OTHER_SESSION);
  answer(4, ZKC_ENONODE, 0);
  expect_read_on_round_sync(5);
  assert_int_equal(S.forgotten, 1); /* the blocker's; none was set ahead */
  stop();
}
CASE_OF_EACH_POLICY(learn_ahead_node_gone_already_reads_at_once)

/* The node further ahead went, but the read still shows another ahead of
 * the blocker (it was a waiter that left, not the holder): no sole round;
 * a round behind two again, on the new node before the blocker. A wake
 * grants nothing but through a read. */
static void learn_ahead_wake_is_no_grant_as(void) {
  start_as(P, 1);
  char first[64], mid[64], next[64];
  snprintf(first, sizeof first, "%s", ahead(1));
  snprintf(mid, sizeof mid, "%s", ahead(2));
  snprintf(next, sizeof next, "%s", ahead(3));
  assert_int_equal(step(), ZKC__QN_REPLY);
  char own[760];
  snprintf(own, sizeof own, "%s", own_name(5));
  answer_created(0, 5, SESSION);
  answer_children(1, first, mid, next, own, (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(3, ZKC__REQ_WATCH)->path, at(next));
  assert_string_equal(req(4, ZKC__REQ_WATCH)->path, at(mid));
  answer_round_behind_two();
  S.clean = 1;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_on_round_sync(5);
  answer_children(5, first, next, own, (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 9);
  req(6, ZKC__REQ_SYNC);
  assert_string_equal(req(7, ZKC__REQ_WATCH)->path, at(next));
  assert_string_equal(req(8, ZKC__REQ_WATCH)->path, at(first));
  assert_int_equal(S.own_watched, 0);
  stop();
}
CASE_OF_EACH_POLICY(learn_ahead_wake_is_no_grant)

/* Where round trips are short (the world's learn_ahead 0), a round behind
 * two watches its blocker alone, behind its sync: no node ahead, no
 * second wake; the blocker's delete reads the queue as before. */
static void short_round_trips_learn_nothing_ahead_as(void) {
  start_as(P, 1);
  S.short_trips = 1;
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 4);
  req(2, ZKC__REQ_SYNC);
  assert_string_equal(req(3, ZKC__REQ_WATCH)->path, at(ahead(2)));
  assert_string_equal(S.also, "");
  answer(2, ZKC_OK, 0);
  answer(3, ZKC_OK, OTHER_SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_on_round_sync(4);
  stop();
}
CASE_OF_EACH_POLICY(short_round_trips_learn_nothing_ahead)

/* The requests a waiting round awaits, the last sent first (a driver
 * waiting in that order is woken once, by the last answer): behind two,
 * the node ahead's watch, the blocker's, the sync; sole, the blocker's,
 * our own node's, the sync. */
static void round_ops_last_sent_first_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 5);
  zkc__op_t *ops[ZKC__QRUN_OPS_MAX];
  assert_int_equal(zkc__qrun_ops(&R, ops), 3);
  assert_ptr_equal(ops[0], S.req[4].op);
  assert_ptr_equal(ops[1], S.req[3].op);
  assert_ptr_equal(ops[2], S.req[2].op);
  stop();
  start_as(P, 1);
  queue_behind(ahead(1), NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 5);
  assert_int_equal(zkc__qrun_ops(&R, ops), 3);
  assert_ptr_equal(ops[0], S.req[4].op);
  assert_ptr_equal(ops[1], S.req[3].op);
  assert_ptr_equal(ops[2], S.req[2].op);
  stop();
}
CASE_OF_EACH_POLICY(round_ops_last_sent_first)

/* ---- a writer behind a write node alone: the guarded round ---- */

#define W1 "a-__WRIT__0000000001"
#define W2 "b-__WRIT__0000000002"
/* a downgrade's read node: its writer's sequence, made after our read */
#define W1_READ "z-__READ__0000000001"

/* The write side queued behind W1 alone: the round is sent (requests
 * 2-5: the sync, our own node's watch, W1's, then base's children with
 * their watch, last). */
static void guarded_round_sent(void) {
  start_as(&policies[3], 1);
  queue_behind(W1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 6);
  req(2, ZKC__REQ_SYNC);
  char own[800];
  snprintf(own, sizeof own, BASE "/%s", own_name(5));
  assert_string_equal(req(3, ZKC__REQ_WATCH)->path, own);
  assert_string_equal(req(4, ZKC__REQ_WATCH)->path, BASE "/" W1);
  req_t *kids = req(5, ZKC__REQ_CHILDREN_WATCH);
  assert_string_equal(kids->path, BASE);
  assert_int_equal(kids->watch, req(4, ZKC__REQ_WATCH)->watch);
  assert_int_equal(S.parent_watched, 1);
  zkc__op_t *ops[ZKC__QRUN_OPS_MAX];
  assert_int_equal(zkc__qrun_ops(&R, ops), 4); /* the last sent first */
  for (int i = 0; i < 4; i++) assert_ptr_equal(ops[i], S.req[5 - i].op);
  answer(2, ZKC_OK, 0);
  answer(3, ZKC_OK, SESSION);
  answer(4, ZKC_OK, OTHER_SESSION);
}

/* The guarded round waits; its wake comes (W1's delete, or a child's
 * event), the waiter clean or not. */
static void guarded_round_woken(int clean) {
  assert_int_equal(step(), ZKC__QN_EVENT);
  S.clean = clean;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
}

/* Its read shows W1 alone ahead and no child's event came before W1's
 * delete (the waiter clean): the delete alone grants, no request after. */
static void guarded_round_grants_on_the_delete_alone(void **state) {
  (void)state;
  guarded_round_sent();
  answer_children(5, W1, own_name(5), (char *)NULL);
  guarded_round_woken(1);
  expect_granted(own_name(5));
  assert_int_equal(S.n, 6);
  stop();
  assert_int_equal(S.children_forgotten, 1);
}

/* Its read shows a node ahead that the read before it did not: W1's
 * downgrade, its read node. No grant can rest on the round: the queue is
 * read again at once, on the round's sync. */
static void guarded_round_read_showing_a_downgrade_reads_again(void **state) {
  (void)state;
  guarded_round_sent();
  answer_children(5, W1, W1_READ, own_name(5), (char *)NULL);
  expect_read_on_round_sync(6);
  stop();
  guarded_round_sent(); /* our node gone: the read says so */
  answer_children(5, W1, (char *)NULL);
  expect_read_on_round_sync(6);
  stop();
}

/* A child's event came before W1's delete (the waiter unclean): the read
 * decides, as after any wake-up. */
static void guarded_round_unclean_reads_again(void **state) {
  (void)state;
  guarded_round_sent();
  answer_children(5, W1, own_name(5), (char *)NULL);
  guarded_round_woken(0);
  expect_read_on_round_sync(6);
  stop();
}

/* The children read failed alone: the round waits as one not sole; its
 * delete grants nothing without a read. */
static void guarded_round_without_its_read_grants_nothing(void **state) {
  (void)state;
  guarded_round_sent();
  answer(5, ZKC_ECONNLOSS, 0);
  guarded_round_woken(1);
  expect_read_on_round_sync(6);
  stop();
}

/* W1 gone when its watch was set (the watch answers no node): the read
 * behind it must show us first to grant (W1 made again by an outsider,
 * shown by the read, was not the node this round watched). */
static void guarded_round_blocker_gone(void) {
  start_as(&policies[3], 1);
  queue_behind(W1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(2, ZKC_OK, 0);
  answer(3, ZKC_OK, SESSION);
  answer(4, ZKC_ENONODE, 0);
  S.clean = 1; /* the waiter: our node untouched, no child since */
}

static void guarded_round_blocker_gone_needs_us_first(void **state) {
  (void)state;
  guarded_round_blocker_gone();
  answer_children(5, own_name(5), (char *)NULL);
  expect_granted(own_name(5));
  assert_int_equal(S.n, 6);
  stop();
  guarded_round_blocker_gone();
  answer_children(5, W1, own_name(5), (char *)NULL);
  expect_read_on_round_sync(6);
  stop();
}

/* Our own twin (a create cut off and retried, queued ahead of our node)
 * in the children read is no node ahead: the queue's read drops it too. */
static void guarded_round_read_passes_our_twin(void **state) {
  (void)state;
  guarded_round_sent();
  char twin[760];
  snprintf(twin, sizeof twin, "%s", own_name(3));
  answer_children(5, W1, twin, own_name(5), (char *)NULL);
  guarded_round_woken(1);
  expect_granted(own_name(5));
  stop();
}

/* The read at i (on the round's sync) shows W1 alone ahead again: a new
 * guarded round (requests i+1 to i+4), answered; the run waits. */
static void guarded_round_again(int i) {
  expect_read_on_round_sync(i);
  answer_children(i, W1, own_name(5), (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, i + 5);
  req(i + 1, ZKC__REQ_SYNC);
  req(i + 4, ZKC__REQ_CHILDREN_WATCH);
  answer(i + 1, ZKC_OK, 0);
  answer(i + 2, ZKC_OK, SESSION);
  answer(i + 3, ZKC_OK, OTHER_SESSION);
  answer_children(i + 4, W1, own_name(5), (char *)NULL);
  assert_int_equal(step(), ZKC__QN_EVENT);
}

/* A child's event wakes a guarded round (which reads and sets it again)
 * two rounds in a row at most: a long hold with waiters joining would
 * cost a read of the queue each. The third round's children event only
 * spoils it (its delete reads); the row then starts again. */
static void guarded_rounds_wake_twice_in_a_row_at_most(void **state) {
  (void)state;
  guarded_round_sent();
  answer_children(5, W1, own_name(5), (char *)NULL);
  assert_int_equal(step(), ZKC__QN_EVENT);
  assert_int_equal(S.parent_wakes, 1);
  S.clean = 0; /* woken by a child joining */
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  guarded_round_again(6);
  assert_int_equal(S.parent_wakes, 1);
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  guarded_round_again(11);
  assert_int_equal(S.parent_wakes, 0); /* quiet */
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED); /* W1's delete, spoilt */
  guarded_round_again(16);
  assert_int_equal(S.parent_wakes, 1);
  assert_int_equal(S.parent_watched, 4);
  stop();
}

/* Behind two write nodes the round learns ahead (W1's delete leaves W2
 * alone); where round trips are short no round is guarded: the sync and
 * W1's watch alone, as before. */
static void guarded_rounds_only_where_trips_are_long(void **state) {
  (void)state;
  start_as(&policies[3], 1);
  queue_behind(W1, W2);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 5);
  assert_string_equal(req(3, ZKC__REQ_WATCH)->path, BASE "/" W2);
  assert_string_equal(req(4, ZKC__REQ_WATCH)->path, BASE "/" W1);
  stop();
  start_as(&policies[3], 1);
  S.short_trips = 1;
  queue_behind(W1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 4);
  req(2, ZKC__REQ_SYNC);
  assert_string_equal(req(3, ZKC__REQ_WATCH)->path, BASE "/" W1);
  assert_int_equal(S.parent_watched, 0);
  stop();
}

/* The node ahead's watch fails (the connection lost under it alone, as a
 * script can answer): a hint missed, the round waits as one without it,
 * on the blocker, and its wake reads the queue; nothing grants on it. */
static void learn_ahead_watch_failing_waits_on_the_blocker_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), ahead(2));
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(2, ZKC_OK, 0);
  answer(3, ZKC_OK, OTHER_SESSION);
  answer(4, ZKC_ECONNLOSS, 0);
  assert_int_equal(step(), ZKC__QN_EVENT);
  assert_int_equal(S.n, 5);
  S.clean = 1; /* not a sole round: no grant on its events */
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_on_round_sync(5);
  assert_int_equal(S.forgotten, 1); /* the blocker's; the failed one unset */
  stop();
}
CASE_OF_EACH_POLICY(learn_ahead_watch_failing_waits_on_the_blocker)

/* A blocker of our own session (deleted in one transaction with our node
 * when the session closes, its events then in any order): its delete
 * alone grants nothing. */
static void same_session_blocker_grants_nothing_alone_as(void) {
  start_as(P, 1);
  queue_behind(ahead(1), NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_sole_round(SESSION);
  S.clean = 1;
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  expect_read_on_round_sync(5);
  stop();
}
CASE_OF_EACH_POLICY(same_session_blocker_grants_nothing_alone)

/* First, but our session is over: lost, our node deleted, and the run
 * queues again at the back with a new uuid. */
static void session_gone_at_grant_queues_again_as(void) {
  start_as(P, 1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  char first_prefix[700];
  snprintf(first_prefix, sizeof first_prefix, "%s", S.req[0].path);
  const char *own = own_name(5);
  answer_created(0, 5, SESSION);
  answer_children(1, own, (char *)NULL);
  S.fate = ZKC__SESSION_GONE;
  assert_int_equal(step(), ZKC__QN_REPLY);
  char node[800];
  snprintf(node, sizeof node, "%s%010d", first_prefix, 5);
  assert_string_equal(req(2, ZKC__REQ_DELETE)->path, node);
  answer(2, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req_t *again = req(3, ZKC__REQ_CREATE);
  assert_int_not_equal(strcmp(again->path, first_prefix), 0); /* new uuid */
  stop();
}
CASE_OF_EACH_POLICY(session_gone_at_grant_queues_again)

/* First, the session in doubt (disconnected): no grant; once connected
 * and live, the queue is read again behind a sync. */
static void session_in_doubt_waits_then_reads_again_as(void) {
  start_as(P, 1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  const char *own = own_name(5);
  answer_created(0, 5, SESSION);
  answer_children(1, own, (char *)NULL);
  S.fate = ZKC__SESSION_DOUBT;
  S.live = 0;
  assert_int_equal(step(), ZKC__QN_SESSION);
  assert_int_equal(step(), ZKC__QN_SESSION);
  S.fate = ZKC__SESSION_LIVE;
  S.live = 1;
  expect_read_behind_sync(2);
  answer(2, ZKC_OK, 0);
  answer_children(3, own_name(5), (char *)NULL);
  expect_granted(own_name(5));
  stop();
}
CASE_OF_EACH_POLICY(session_in_doubt_waits_then_reads_again)

/* A node made by a session that is no longer the current one is not ours
 * to hold: lost, and deleted. */
static void node_of_a_replaced_session_is_not_held_as(void) {
  start_as(P, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_created(0, 5, OTHER_SESSION);
  answer_children(1, own_name(5), (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(2, ZKC__REQ_DELETE);
  answer(2, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ELOST);
  stop();
}
CASE_OF_EACH_POLICY(node_of_a_replaced_session_is_not_held)

/* A read without our node (an outsider deleted it, or the session ended):
 * lost, never granted. */
static void own_node_missing_from_the_read_is_lost_as(void) {
  start_as(P, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_created(0, 5, SESSION);
  answer_children(1, ahead(9), (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(2, ZKC__REQ_DELETE);
  answer(2, ZKC_ENONODE, 0);
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ELOST);
  stop();
}
CASE_OF_EACH_POLICY(own_node_missing_from_the_read_is_lost)

/* A create cut off may have been applied: after the backoff, the run
 * searches for its uuid behind a sync and adopts the node only when the
 * current session owns it; then reads the queue behind a sync. */
static void cut_off_create_found_by_its_uuid_as(void) {
  start_as(P, 1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  char made[760];
  snprintf(made, sizeof made, "%s", own_name(7));
  answer(0, ZKC_ECONNLOSS, 0);
  answer(1, ZKC_ECONNLOSS, 0);
  assert_int_equal(step(), ZKC__QN_TIME);
  S.clock += 10;
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(2, ZKC__REQ_SYNC)->path, BASE);
  req(3, ZKC__REQ_CHILDREN);
  answer(2, ZKC_OK, 0);
  answer_children(3, ahead(1), made, (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  char path[800];
  snprintf(path, sizeof path, BASE "/%s", made);
  assert_string_equal(req(4, ZKC__REQ_EXISTS)->path, path);
  answer(4, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(5, ZKC__REQ_SYNC);
  req(6, ZKC__REQ_CHILDREN);
  answer(5, ZKC_OK, 0);
  answer_children(6, made, (char *)NULL);
  expect_granted(made);
  assert_int_equal(S.n, 7); /* no second create */
  stop();
}
CASE_OF_EACH_POLICY(cut_off_create_found_by_its_uuid)

/* The node with our uuid belongs to an older session: not adopted (it
 * goes to the janitor), a new node is created with a new uuid. */
static void node_of_an_older_session_is_not_adopted(void **state) {
  (void)state;
  start(1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  char made[760];
  snprintf(made, sizeof made, "%s", own_name(7));
  char prefix[700];
  snprintf(prefix, sizeof prefix, "%s", S.req[0].path);
  answer(0, ZKC_ECONNLOSS, 0);
  answer(1, ZKC_ECONNLOSS, 0);
  assert_int_equal(step(), ZKC__QN_TIME);
  S.clock += 10;
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(2, ZKC_OK, 0);
  answer_children(3, made, (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(4, ZKC_OK, OTHER_SESSION);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req_t *again = req(5, ZKC__REQ_CREATE);
  assert_int_not_equal(strcmp(again->path, prefix), 0);
  assert_int_equal(S.n_janitor, 1);
  char path[800];
  snprintf(path, sizeof path, BASE "/%s", made);
  assert_string_equal(S.janitor[0], path);
  stop();
}

/* The deadline passes while waiting: the watch is removed, our node
 * deleted, ZKC_ETIMEDOUT. */
static void timeout_while_waiting_deletes_the_node(void **state) {
  (void)state;
  start(1);
  queue_behind("a-lock-0000000001", "b-lock-0000000002");
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_round_behind_two();
  zkc__qrun_woken(&R, ZKC__WAKE_TIMEOUT);
  assert_int_equal(S.unwatched, 1); /* the waiter's: both its watches */
  assert_int_equal(S.forgotten, 2);
  assert_int_equal(S.registered, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(5, ZKC__REQ_DELETE);
  answer(5, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ETIMEDOUT);
  stop();
}

/* The create unanswered at the limit: given up, the run ends with
 * ZKC_ETIMEDOUT, and whatever node carries its uuid is the janitor's. */
static void create_unanswered_at_the_limit_goes_to_the_janitor(void **state) {
  (void)state;
  start(1);
  assert_int_equal(step(), ZKC__QN_REPLY);
  zkc__qrun_give_up(&R);
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__qrun_result(&R, NULL), ZKC_ETIMEDOUT);
  assert_int_equal(S.n_janitor, 1);
  assert_string_equal(S.janitor[0], BASE); /* searched there by uuid */
  assert_int_equal(S.dropped, 2);          /* the create and its read */
  stop();
}

/* A run cleared while its parents' walk is in flight (an async acquire
 * freed with its context): the walk's create is given up, its late answer
 * freeing it, as every other request of the run is. */
static void cleared_during_the_parents_walk_gives_it_up(void **state) {
  (void)state;
  start(0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(0, ZKC__REQ_CREATE);
  answer(0, ZKC_ENONODE, 0); /* the base missing */
  answer(1, ZKC_ENONODE, 0); /* and its read */
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(2, ZKC__REQ_PARENT)->path, BASE);
  assert_int_equal(S.dropped, 0);
  stop();
  assert_int_equal(S.dropped, 1); /* the walk's create, in flight */
}

/* An unproven queue: the create's read has no `also` behind it; first on
 * it, granted, with nothing seen (-1). */
static void unproven_first_on_the_creates_read_sees_nothing(void **state) {
  (void)state;
  start_unproven();
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 2);
  req(0, ZKC__REQ_CREATE);
  req(1, ZKC__REQ_CHILDREN);
  answer_created(0, 5, SESSION);
  answer_children(1, own_name(5), (char *)NULL);
  expect_granted(own_name(5));
  assert_int_equal(zkc__qrun_also_seen(&R), -1);
  stop();
}

/* An unproven queue's round is the blocker's watch alone (no sync, no
 * watch on our own node, even as the sole blocker's successor: no grant
 * on the watches); the read after the wake-up has no sync either, and
 * reads `also` behind it; its count comes out with the grant. */
static void unproven_round_and_read_without_syncs_with_also(void **state) {
  (void)state;
  start_unproven();
  S.clean = 1; /* what a sole round's events would say: no use here */
  queue_behind("lock-0000000001", NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 3);
  assert_string_equal(req(2, ZKC__REQ_WATCH)->path, BASE "/lock-0000000001");
  assert_int_equal(S.own_watched, 0);
  answer(2, ZKC_OK, OTHER_SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 5);
  assert_string_equal(req(3, ZKC__REQ_CHILDREN)->path, BASE);
  assert_string_equal(req(4, ZKC__REQ_CHILDREN)->path, LEASES);
  answer_children(3, own_name(5), (char *)NULL);
  answer_children(4, "a", "b", (char *)NULL);
  expect_granted(own_name(5));
  assert_int_equal(zkc__qrun_also_seen(&R), 2);
  stop();
}

/* A read that does not grant drops its `also` (freed: the sanitizers and
 * valgrind see a leak otherwise); the next one's count is the one kept. */
static void also_of_a_read_that_waits_is_not_kept(void **state) {
  (void)state;
  start_unproven();
  queue_behind("lock-0000000001", "lock-0000000002");
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(2, ZKC_OK, OTHER_SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_children(3, "lock-0000000001", own_name(5), (char *)NULL);
  answer_children(4, "a", "b", "c", (char *)NULL);
  assert_int_equal(step(), ZKC__QN_REPLY); /* a round on 0000000001 */
  req(5, ZKC__REQ_WATCH);
  answer(5, ZKC_OK, OTHER_SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_woken(&R, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_children(6, own_name(5), (char *)NULL);
  answer_children(7, (char *)NULL);
  expect_granted(own_name(5));
  assert_int_equal(zkc__qrun_also_seen(&R), 0);
  stop();
}

/* ---- the confirm policy (confirm_run.h): holds granted already, proven
 * again by a sync and a read on each hold's session ---- */

#define HOLD_A BASE "/_c_a-lock-0000000001"
#define HOLD_B "/r/_c_b-lock-0000000002"
static zkc__crun_t CR;
static struct {
  int pinned, stands_rc, lost[2];
  int64_t session[2]; /* each part's hold's session (0: SESSION) */
} H;
#define SECOND_SESSION 0x3000 /* a part's hold on another client */

static int64_t part_session(size_t i) {
  return H.session[i] ? H.session[i] : SESSION;
}
static zkc_client_t *h_client(void *ctx, size_t i) {
  (void)ctx, (void)i;
  return NULL;
}
static int h_pin(void *ctx, size_t i, char **node, int64_t *session) {
  (void)ctx;
  *session = part_session(i);
  H.pinned++;
  return (*node = strdup(i == 0 ? HOLD_A : HOLD_B)) ? ZKC_OK : ZKC_ENOMEM;
}
static void h_unpin(void *ctx, size_t i) {
  (void)ctx, (void)i;
  H.pinned--;
}
static int h_stands(void *ctx, size_t i) {
  (void)ctx, (void)i;
  return H.stands_rc;
}
static void h_lost(void *ctx, size_t i) {
  (void)ctx;
  H.lost[i]++;
}

/* A confirmation of two holds (the multi-lock's: multilock.c), or one
 * fenced read (fenced.c: no rounds counted, nobody told), as their
 * callers ask for them. */
static void start_confirm(int get) {
  start(0);
  memset(&H, 0, sizeof H);
  zkc__confirm_how_t how = {.n = get ? 1 : 2, .get = get != 0, .tell = !get,
                            .stale_max = get ? 0 : 3,
                            .deadline = S.clock + 60000,
                            .client = h_client, .pin = h_pin,
                            .unpin = h_unpin, .stands = h_stands,
                            .lost = get ? NULL : h_lost, .drv = &driver,
                            .world = &world};
  assert_int_equal(zkc__crun_init(&CR, &how), ZKC_OK);
}

static void stop_confirm(void) {
  zkc__crun_clear(&CR);
  assert_int_equal(H.pinned, 0); /* every pin left */
  for (int i = 0; i < S.n; i++)
    if (!S.req[i].answered) {
      S.req[i].answered = 1;
      zkc__op_finish(S.req[i].op, ZKC_ECONNLOSS, NULL);
    }
}

/* Round k (its first request at i): each hold's sync, then its read bound
 * to the hold's session, all sent at once. */
static void expect_confirm_round(int i, int parts, zkc__req_kind_t read) {
  assert_int_equal(zkc__crun_step(&CR), ZKC__QN_REPLY);
  assert_int_equal(S.n, i + 2 * parts);
  for (int p = 0; p < parts; p++) {
    const char *node = p == 0 ? HOLD_A : HOLD_B;
    assert_string_equal(req(i + 2 * p, ZKC__REQ_SYNC)->path, node);
    assert_string_equal(req(i + 2 * p + 1, read)->path, node);
    assert_int_equal(S.req[i + 2 * p + 1].session, part_session((size_t)p));
  }
  assert_int_equal(H.pinned, parts); /* pinned while the round is out */
}

static void answer_confirm_round(int i, int parts, int64_t owner) {
  for (int k = 0; k < 2 * parts; k++) answer(i + k, ZKC_OK, owner);
}

/* A confirmation of stats done with rc. */
static void expect_confirmed(int rc) {
  assert_int_equal(zkc__crun_step(&CR), ZKC__QN_DONE);
  assert_int_equal(zkc__crun_result(&CR, NULL, NULL, NULL), rc);
}

/* Either confirmation done with ZKC_OK (a read's data freed). */
static void expect_proven(void) {
  assert_int_equal(zkc__crun_step(&CR), ZKC__QN_DONE);
  char *data = NULL;
  size_t len = 0;
  int32_t version;
  assert_int_equal(zkc__crun_result(&CR, &data, &len, &version), ZKC_OK);
  free(data);
}

static void confirm_proves_every_hold_behind_its_sync(void **state) {
  (void)state;
  start_confirm(0);
  expect_confirm_round(0, 2, ZKC__REQ_EXISTS_IN_SESSION);
  answer_confirm_round(0, 2, SESSION);
  expect_confirmed(ZKC_OK);
  assert_int_equal(S.n, 4);
  stop_confirm();
}

/* The reads answered, a sync not (cut off): nothing proven; the retry
 * policy's backoff, then the whole round again. The set (its last hold's
 * sync failed) and the fenced read alike. */
static void confirm_without_a_sync_grants_nothing(void **state) {
  (void)state;
  for (int get = 0; get < 2; get++) {
    int parts = get ? 1 : 2, last = 2 * (parts - 1);
    zkc__req_kind_t read = get ? ZKC__REQ_GET_IN_SESSION
                               : ZKC__REQ_EXISTS_IN_SESSION;
    start_confirm(get);
    expect_confirm_round(0, parts, read);
    answer_confirm_round(0, parts - 1, SESSION);
    answer(last, ZKC_ECONNLOSS, 0);
    answer(last + 1, ZKC_OK, SESSION);
    assert_int_equal(zkc__crun_step(&CR), ZKC__QN_TIME);
    assert_int_equal(H.pinned, 0);
    S.clock += 10;
    expect_confirm_round(2 * parts, parts, read);
    answer_confirm_round(2 * parts, parts, SESSION);
    expect_proven();
    stop_confirm();
  }
}

/* A round answered after half a session timeout proves nothing: sent
 * again, and after three such rounds the holds are in doubt. */
static void confirm_stale_rounds_read_again_then_lose(void **state) {
  (void)state;
  start_confirm(0);
  for (int k = 0; k < 3; k++) {
    expect_confirm_round(4 * k, 2, ZKC__REQ_EXISTS_IN_SESSION);
    S.clock += FRESH_MS;
    answer_confirm_round(4 * k, 2, SESSION);
  }
  expect_confirmed(ZKC_ELOST);
  assert_int_equal(S.n, 12);
  stop_confirm();
}

/* The second hold's node gone, or another session's: that hold is told
 * lost at once, and the set is. */
static void confirm_node_gone_is_lost(void **state) {
  (void)state;
  for (int other = 0; other < 2; other++) {
    start_confirm(0);
    expect_confirm_round(0, 2, ZKC__REQ_EXISTS_IN_SESSION);
    answer(0, ZKC_OK, 0);
    answer(1, ZKC_OK, SESSION);
    answer(2, ZKC_OK, 0);
    if (other) answer(3, ZKC_OK, OTHER_SESSION);
    else answer(3, ZKC_ENONODE, 0);
    expect_confirmed(ZKC_ELOST);
    assert_int_equal(H.lost[0], 0);
    assert_int_equal(H.lost[1], 1);
    stop_confirm();
  }
}

/* A fenced read done with rc: its data (malloc'd, or NULL), and *len. */
static char *expect_read_done(int rc, size_t *len) {
  assert_int_equal(zkc__crun_step(&CR), ZKC__QN_DONE);
  char *data = NULL;
  int32_t version = -1;
  *len = 0;
  assert_int_equal(zkc__crun_result(&CR, &data, len, &version), rc);
  if (rc == ZKC_OK) assert_int_equal(version, 0);
  else assert_null(data);
  return data;
}

/* A fenced read: its data once proven; its path missing is its answer. */
static void confirm_read_gives_the_data_once_proven(void **state) {
  (void)state;
  start_confirm(1);
  expect_confirm_round(0, 1, ZKC__REQ_GET_IN_SESSION);
  answer(0, ZKC_OK, 0);
  assert_non_null(S.req[1].op->data = strdup("v"));
  S.req[1].op->data_len = 1;
  answer(1, ZKC_OK, 0);
  size_t len;
  char *data = expect_read_done(ZKC_OK, &len);
  assert_string_equal(data, "v");
  assert_int_equal(len, 1);
  free(data);
  stop_confirm();
  start_confirm(1);
  expect_confirm_round(0, 1, ZKC__REQ_GET_IN_SESSION);
  answer(0, ZKC_OK, 0);
  answer(1, ZKC_ENONODE, 0);
  (void)expect_read_done(ZKC_ENONODE, &len);
  assert_int_equal(H.lost[0], 0);
  stop_confirm();
}

/* The hold lost while its read was out: what it read is no hold's. */
static void confirm_read_of_a_hold_lost_meanwhile_is_refused(void **state) {
  (void)state;
  start_confirm(1);
  expect_confirm_round(0, 1, ZKC__REQ_GET_IN_SESSION);
  H.stands_rc = ZKC_ELOST;
  answer(0, ZKC_OK, 0);
  answer(1, ZKC_OK, 0);
  size_t len;
  (void)expect_read_done(ZKC_ELOST, &len);
  stop_confirm();
}

/* The session not proven renewed at the leader: no grant. The fenced
 * read waits for the session (the machine's grant rule, part 0's) and is
 * sent again once it is live; the set's round, whose second hold's proof
 * is the policy's own, is sent again at once (counted among the rounds
 * that prove nothing). */
static void confirm_session_in_doubt_reads_again_once_live(void **state) {
  (void)state;
  for (int get = 0; get < 2; get++) {
    int parts = get ? 1 : 2;
    zkc__req_kind_t read = get ? ZKC__REQ_GET_IN_SESSION
                               : ZKC__REQ_EXISTS_IN_SESSION;
    start_confirm(get);
    expect_confirm_round(0, parts, read);
    S.fate = ZKC__SESSION_DOUBT;
    S.live = 0;
    answer_confirm_round(0, parts, SESSION);
    if (get) {
      assert_int_equal(zkc__crun_step(&CR), ZKC__QN_SESSION);
      assert_int_equal(S.n, 2 * parts);
    } else {
      expect_confirm_round(2 * parts, parts, read);
    }
    S.fate = ZKC__SESSION_LIVE;
    S.live = 1;
    if (get) expect_confirm_round(2 * parts, parts, read);
    answer_confirm_round(2 * parts, parts, SESSION);
    expect_proven();
    stop_confirm();
  }
}

/* A set whose second hold is on another client: that hold's session must
 * be proven live too, not only the first's (the machine's grant). In
 * doubt: the round is sent again, and the set held once it is proven;
 * gone: the set is lost. */
static void confirm_set_proves_every_parts_session(void **state) {
  (void)state;
  for (int gone = 0; gone < 2; gone++) {
    start_confirm(0);
    H.session[1] = S.second = SECOND_SESSION;
    S.second_fate = gone ? ZKC__SESSION_GONE : ZKC__SESSION_DOUBT;
    expect_confirm_round(0, 2, ZKC__REQ_EXISTS_IN_SESSION);
    answer(0, ZKC_OK, 0);
    answer(1, ZKC_OK, SESSION);
    answer(2, ZKC_OK, 0);
    answer(3, ZKC_OK, SECOND_SESSION);
    if (gone) {
      expect_confirmed(ZKC_ELOST);
      stop_confirm();
      continue;
    }
    expect_confirm_round(4, 2, ZKC__REQ_EXISTS_IN_SESSION);
    S.second_fate = ZKC__SESSION_LIVE;
    answer(4, ZKC_OK, 0);
    answer(5, ZKC_OK, SESSION);
    answer(6, ZKC_OK, 0);
    answer(7, ZKC_OK, SECOND_SESSION);
    expect_confirmed(ZKC_OK);
    stop_confirm();
  }
}

/* A fenced read answered after half a session timeout proves nothing: it
 * is sent again (no count of such rounds: the caller's deadline bounds
 * them), and its data given on a fresh answer; its session gone by then:
 * ZKC_ELOST, no data. */
static void confirm_read_stale_reads_again(void **state) {
  (void)state;
  for (int gone = 0; gone < 2; gone++) {
    start_confirm(1);
    for (int k = 0; k < 4; k++) {
      expect_confirm_round(2 * k, 1, ZKC__REQ_GET_IN_SESSION);
      S.clock += FRESH_MS;
      answer_confirm_round(2 * k, 1, SESSION);
    }
    expect_confirm_round(8, 1, ZKC__REQ_GET_IN_SESSION);
    if (gone) S.fate = ZKC__SESSION_GONE;
    answer(8, ZKC_OK, 0);
    assert_non_null(S.req[9].op->data = strdup("v"));
    S.req[9].op->data_len = 1;
    answer(9, ZKC_OK, 0);
    size_t len;
    char *data = expect_read_done(gone ? ZKC_ELOST : ZKC_OK, &len);
    if (!gone) assert_string_equal(data, "v");
    free(data);
    stop_confirm();
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_granted_on_the_pipelined_read),
      cmocka_unit_test(quick_grants_on_the_create_alone),
      cmocka_unit_test(quick_reads_when_the_proof_fails),
      cmocka_unit_test(quick_stale_create_reads_again),
      cmocka_unit_test(read_beside_another_is_not_alone),
      cmocka_unit_test(unproven_first_on_the_creates_read_sees_nothing),
      cmocka_unit_test(unproven_round_and_read_without_syncs_with_also),
      cmocka_unit_test(also_of_a_read_that_waits_is_not_kept),
      cmocka_unit_test(vouched_granted_on_the_write_nodes_read),
      cmocka_unit_test(vouched_without_the_write_node_is_lost),
      cmocka_unit_test(vouched_without_its_own_node_is_lost),
      cmocka_unit_test(vouched_stale_answer_reads_again),
      cmocka_unit_test(vouched_without_its_sync_grants_nothing),
      cmocka_unit_test(vouched_refused_once_the_write_hold_is_lost),
      cmocka_unit_test(vouched_session_doubt_then_gone),
      cmocka_unit_test(vouched_adopted_still_reads_the_write_node),
      cmocka_unit_test(vouched_timeout_deletes_the_read_node),
      cmocka_unit_test(stale_answer_read_again_through_the_leader),
      cmocka_unit_test(waiter_reads_again_on_the_rounds_sync),
      cmocka_unit_test(stale_round_sync_reads_behind_a_new_one),
      cmocka_unit_test(failed_round_sync_reads_behind_a_new_one),
      cmocka_unit_test(view_clear_confirms_with_a_stat),
      cmocka_unit_test(view_clear_own_node_gone_queues_again),
      cmocka_unit_test(view_clear_stale_stat_reads_again),
      cmocka_unit_test(sole_blocker_handoff_without_a_read),
      cmocka_unit_test(sole_blocker_handoff_gone_stale_reads_again),
      cmocka_unit_test(unclean_delete_reads_again),
      cmocka_unit_test(sole_round_without_its_sync_grants_nothing),
      cmocka_unit_test(learn_ahead_handoff_without_a_read),
      cmocka_unit_test(guarded_round_grants_on_the_delete_alone),
      cmocka_unit_test(guarded_round_read_showing_a_downgrade_reads_again),
      cmocka_unit_test(guarded_round_unclean_reads_again),
      cmocka_unit_test(guarded_round_without_its_read_grants_nothing),
      cmocka_unit_test(guarded_rounds_only_where_trips_are_long),
      cmocka_unit_test(guarded_round_read_passes_our_twin),
      cmocka_unit_test(guarded_round_blocker_gone_needs_us_first),
      cmocka_unit_test(guarded_rounds_wake_twice_in_a_row_at_most),
      cmocka_unit_test(learn_ahead_node_gone_already_reads_at_once),
      cmocka_unit_test(learn_ahead_wake_is_no_grant),
      cmocka_unit_test(round_ops_last_sent_first),
      cmocka_unit_test(short_round_trips_learn_nothing_ahead),
      cmocka_unit_test(learn_ahead_watch_failing_waits_on_the_blocker),
      cmocka_unit_test(same_session_blocker_grants_nothing_alone),
      cmocka_unit_test(session_gone_at_grant_queues_again),
      cmocka_unit_test(session_in_doubt_waits_then_reads_again),
      cmocka_unit_test(node_of_a_replaced_session_is_not_held),
      cmocka_unit_test(own_node_missing_from_the_read_is_lost),
      cmocka_unit_test(cut_off_create_found_by_its_uuid),
      cmocka_unit_test(node_of_an_older_session_is_not_adopted),
      cmocka_unit_test(timeout_while_waiting_deletes_the_node),
      cmocka_unit_test(create_unanswered_at_the_limit_goes_to_the_janitor),
      cmocka_unit_test(cleared_during_the_parents_walk_gives_it_up),
      cmocka_unit_test(confirm_proves_every_hold_behind_its_sync),
      cmocka_unit_test(confirm_without_a_sync_grants_nothing),
      cmocka_unit_test(confirm_stale_rounds_read_again_then_lose),
      cmocka_unit_test(confirm_node_gone_is_lost),
      cmocka_unit_test(confirm_read_gives_the_data_once_proven),
      cmocka_unit_test(confirm_read_of_a_hold_lost_meanwhile_is_refused),
      cmocka_unit_test(confirm_session_in_doubt_reads_again_once_live),
      cmocka_unit_test(confirm_set_proves_every_parts_session),
      cmocka_unit_test(confirm_read_stale_reads_again),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
