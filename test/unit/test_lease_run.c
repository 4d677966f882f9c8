/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's lease run fed scripted answers, no server: a world
 * (qworld.h) that records the requests the run sends and answers them as
 * the test says. The run is the queue engine's one machine (qengine.h)
 * with the leases-fit policy: the cases name the machine's states where
 * they pass through them. Each case checks one rule a lease's admission
 * rests on:
 * the lease creates and every read behind them in one round trip, a sync
 * through the leader before the reads, a grant only on a fresh answer of
 * the current session with all our nodes in it, the head's queue node
 * checked before each wait, and nothing of ours left unknown on failure
 * (a cut-off create goes to the janitor by the run's uuid). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lease_run.h"
#include "kernel_door.h" /* an op whole */
#include "session_shared.h" /* zkc__op_finish: how an answer arrives */

/* ---- the scripted world ---- */

#define MAX_REQ 64
#define FRESH_MS 5000 /* half a 10 s session: how long an answer proves */

typedef struct {
  zkc__req_kind_t kind;
  char path[700];
  uint64_t watch;
  char data[8];
  int len;
  char release[700]; /* CREATE: the node deleted in its transaction */
  zkc__op_t *op;
  int answered;
} req_t;

static struct {
  req_t req[MAX_REQ];
  int n;
  int64_t clock;
  int64_t session;
  zkc__session_fate_t fate;
  int live, closed;
  uint64_t next_id;
  int registered, rearmed, unwatched, also;
  size_t held;
  char janitor[8][700];
  char janitor_uuid[8][40];
  int n_janitor;
} S;

static void w_send(zkc_client_t *c, zkc__op_t *op, const zkc__req_t *rq) {
  (void)c;
  assert_true(S.n < MAX_REQ);
  req_t *q = &S.req[S.n++];
  memset(q, 0, sizeof *q);
  q->kind = rq->kind;
  snprintf(q->path, sizeof q->path, "%s", rq->path);
  q->watch = rq->watch;
  if (rq->release) snprintf(q->release, sizeof q->release, "%s", rq->release);
  if (rq->kind == ZKC__REQ_COUNT) {
    assert_true(rq->len <= (int)sizeof q->data);
    memcpy(q->data, rq->data, (size_t)rq->len);
    q->len = rq->len;
  }
  q->op = op;
}
static int64_t w_session_id(zkc_client_t *c) {
  (void)c;
  return S.session;
}
static zkc__session_fate_t w_fate(zkc_client_t *c, int64_t id) {
  (void)c;
  return id == S.session ? S.fate : ZKC__SESSION_GONE;
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
static void w_unregister(zkc_client_t *c, zkc__waiter_t *w) {
  (void)c, (void)w;
  S.registered--;
}
static void w_also(zkc_client_t *c, zkc__waiter_t *w, const char *also) {
  (void)c, (void)w, (void)also;
  S.also++;
}
static void w_rearm(zkc_client_t *c, zkc__waiter_t *w) {
  (void)c, (void)w;
  S.rearmed++;
}
static void w_unwatch_children(zkc_client_t *c, zkc__waiter_t *w) {
  (void)c, (void)w;
  S.unwatched++;
}
static void w_janitor(zkc_client_t *c, const char *path, const char *uuid) {
  (void)c;
  assert_true(S.n_janitor < 8);
  snprintf(S.janitor[S.n_janitor], sizeof S.janitor[0], "%s", path);
  snprintf(S.janitor_uuid[S.n_janitor], sizeof S.janitor_uuid[0], "%s",
           uuid ? uuid : "");
  S.n_janitor++;
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

static const zkc__qworld_t world = {
    .send = w_send,
    .session_id = w_session_id,
    .session_fate = w_fate,
    .session_live = w_live,
    .closed = w_closed,
    .grant_fresh = w_fresh,
    .holder_id = w_holder,
    .boot_ms = w_clock,
    .now_ms = w_clock,
    .waiter_register = w_register,
    .waiter_unregister = w_unregister,
    .waiter_also = w_also,
    .waiter_rearm = w_rearm,
    .waiter_unwatch_children = w_unwatch_children,
    .janitor_add = w_janitor,
    .retry_delay = w_retry,
};

static zkc__op_t *d_op_new(void *ctx) {
  (void)ctx;
  return zkc__op_new();
}
static void d_dropped(void *ctx) { (void)ctx; }
static void d_wake(void *ctx) { (void)ctx; }
static const zkc__qdriver_t driver = {
    .op_new = d_op_new, .op_dropped = d_dropped, .wake = d_wake};

static size_t held_now(void *ctx) {
  (void)ctx;
  return S.held;
}

/* ---- the run and its answers ---- */

static zkc__lrun_t R;
#define PATH "/s"
#define LEASES "/s/leases"
#define COUNT "/cfg/limit"
#define QNODE "/s/locks/_c_q-lock-0000000001"
#define SESSION 0x1000
#define OTHER_SESSION 0x2000

static void start_with(unsigned qty, int32_t max, const char *count,
                       int64_t queue_session) {
  memset(&S, 0, sizeof S);
  S.clock = 1000000;
  S.session = SESSION;
  S.fate = ZKC__SESSION_LIVE;
  S.live = 1;
  zkc__lrun_how_t how = {.path = PATH, .leases = LEASES, .count = count,
                         .queue_node = QNODE, .queue_session = queue_session,
                         .qty = qty, .max = max, .held = held_now,
                         .seen = -1, /* no read of the queue showed leases */
                         .deadline = S.clock + 60000, .drv = &driver,
                         .world = &world};
  assert_int_equal(zkc__lrun_init(&R, NULL, &how), ZKC_OK);
}

static void start(unsigned qty, int32_t max) {
  start_with(qty, max, NULL, SESSION);
}

/* Ends the run and answers whatever is still in flight (an op given up is
 * freed by its answer, as a late completion frees it); frees the nodes
 * taken. */
static void stop(void) {
  zkc__held_t *nodes = zkc__lrun_take_nodes(&R);
  for (unsigned i = 0; nodes && i < R.how.qty; i++) free(nodes[i].node);
  free(nodes);
  zkc__lrun_clear(&R);
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

/* The create at i made a lease with sequence seq, owned by owner; its
 * name (no path) into name. */
static void answer_created(int i, int seq, int64_t owner, char name[200]) {
  req_t *q = req(i, ZKC__REQ_CREATE);
  char node[760];
  snprintf(node, sizeof node, "%s%010d", q->path, seq);
  snprintf(name, 200, "%s", strrchr(node, '/') + 1);
  assert_non_null(q->op->created = strdup(node));
  answer(i, ZKC_OK, owner);
}

/* A children read at i answers these names (NULL-terminated). */
static void answer_children(int i, zkc__req_kind_t kind, ...) {
  req_t *q = req(i, kind);
  va_list ap;
  int n = 0;
  va_start(ap, kind);
  while (va_arg(ap, const char *) != NULL) n++;
  va_end(ap);
  q->op->children.data = calloc((size_t)n + 1, sizeof(char *));
  assert_non_null(q->op->children.data);
  q->op->children.count = n;
  va_start(ap, kind);
  for (int k = 0; k < n; k++)
    assert_non_null(q->op->children.data[k] = strdup(va_arg(ap, const char *)));
  va_end(ap);
  answer(i, ZKC_OK, 0);
}

/* The leases read: unwatched until they did not fit once, then watched. */
#define LEASES_READ(i, ...) \
  answer_children(i, ZKC__REQ_CHILDREN, __VA_ARGS__, (char *)NULL)
#define LEASES_READ_W(i, ...) \
  answer_children(i, ZKC__REQ_CHILDREN_WATCH, __VA_ARGS__, (char *)NULL)
#define LAYOUT_READ(i, ...) \
  answer_children(i, ZKC__REQ_CHILDREN, __VA_ARGS__, (char *)NULL)

/* The count read at i answers 4 bytes (or len) of value. */
static void answer_count(int i, int watched, int32_t value, int len) {
  req_t *q = req(i, watched ? ZKC__REQ_GET_WATCH : ZKC__REQ_GET);
  uint32_t u = (uint32_t)value;
  assert_non_null(q->op->data = malloc(5));
  for (int k = 0; k < 4; k++) q->op->data[k] = (char)(u >> (8 * (3 - k)));
  q->op->data_len = len;
  answer(i, ZKC_OK, 0);
}

static zkc__qneed_t step(void) { return zkc__qrun_step(&R.q); }

static void expect_done(int rc) {
  assert_int_equal(step(), ZKC__QN_DONE);
  assert_int_equal(zkc__lrun_result(&R), rc);
}

/* The first round of one lease: the create, the leases read and the
 * layout read behind it (no sync: the create went through the leader). */
static void expect_first_round(void) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 3);
  req_t *c = req(0, ZKC__REQ_CREATE);
  assert_int_equal(strncmp(c->path, LEASES "/_c_", 13), 0);
  assert_non_null(strstr(c->path, "-lease-"));
  req_t *l = req(1, ZKC__REQ_CHILDREN);
  assert_string_equal(l->path, LEASES);
  assert_string_equal(req(2, ZKC__REQ_CHILDREN)->path, PATH);
  assert_int_equal(S.registered, 0); /* no watch: nobody to tell */
}

/* The leases did not fit on an unwatched read: read again behind a sync
 * (from request i), watched this time, before any wait: the leases (and
 * the count, when there is one), no layout (accepted already). */
static void expect_watched_reread(int i, int with_count) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, i + 2 + with_count);
  assert_int_equal(S.registered, 1);
  req(i, ZKC__REQ_SYNC);
  req_t *l = req(i + 1, ZKC__REQ_CHILDREN_WATCH);
  assert_string_equal(l->path, LEASES);
  assert_true(l->watch != 0);
  if (with_count) req(i + 2, ZKC__REQ_GET_WATCH);
}

/* The queue's read saw `seen` leases (layout_known: no layout read). */
static void start_seen(unsigned qty, int32_t max, int seen,
                       const char *count) {
  start_with(qty, max, count, SESSION);
  R.how.seen = seen;
  R.how.layout_known = 1;
  R.layout_ok = 1;
}

/* One lease of a limit of 1, the other's lease in the way: the first
 * round, then the watched read, both full; the head's place stated next
 * (request 5). Our lease's name into own. */
static void head_of_a_full_semaphore(char own[200]) {
  start(1, 1);
  expect_first_round();
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", own);
  LAYOUT_READ(2, "locks", "leases");
  expect_watched_reread(3, 0);
  answer(3, ZKC_OK, 0);
  LEASES_READ_W(4, "_c_x-lease-0000000001", own);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(R.q.st, Q_CONFIRMING); /* the machine's place stat */
  assert_string_equal(req(5, ZKC__REQ_EXISTS)->path, QNODE);
}

/* One lease of a limit of 2 under the shared count: the first round, our
 * lease made and alone in the leases read; the count's read (request 2)
 * and the layout's (3) left to answer. */
static void made_under_a_count(char own[200]) {
  start_with(1, 2, COUNT, SESSION);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, own);
}

/* The round again from request i, our lease made: a sync and the leases
 * read behind it (unwatched), showing our lease alone: granted. */
static void reread_fits(int i, const char *own) {
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, i + 2);
  req(i, ZKC__REQ_SYNC);
  answer(i, ZKC_OK, 0);
  LEASES_READ(i + 1, own);
  expect_done(ZKC_OK);
}

/* ---- the cases ---- */

/* The lease fits: granted on the one round trip, three requests in all
 * (the reads behind the create need no sync), and no watch set, so none
 * to remove. */
static void fits_in_one_round_trip(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", own);
  LAYOUT_READ(2, "locks", "leases");
  expect_done(ZKC_OK);
  assert_int_equal(S.n, 3);
  assert_int_equal(S.registered, 0);
  assert_int_equal(S.unwatched, 0);
  zkc__held_t *nodes = zkc__lrun_take_nodes(&R);
  assert_string_equal(strrchr(nodes[0].node, '/') + 1, own);
  assert_int_equal(nodes[0].session_id, SESSION);
  assert_int_equal(nodes[0].token, 700);
  free(nodes[0].node);
  free(nodes);
  stop();
}

/* Full: read again, watched; still full, the head checks that its queue
 * node is still there, waits, and on the watch reads again (no create, no
 * layout read: both done); a release makes it fit, and the watch that was
 * set goes with the grant. */
static void waits_as_head_then_fits(void **state) {
  (void)state;
  char own[200];
  head_of_a_full_semaphore(own);
  assert_int_equal(S.n, 6);
  answer(5, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  assert_int_equal(R.q.st, Q_WAITING);
  zkc__qrun_woken(&R.q, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 8);
  assert_int_equal(S.rearmed, 1);
  req(6, ZKC__REQ_SYNC);
  req(7, ZKC__REQ_CHILDREN_WATCH);
  answer(6, ZKC_OK, 0);
  LEASES_READ_W(7, own);
  expect_done(ZKC_OK);
  assert_int_equal(S.unwatched, 1);
  stop();
}

/* Full on the unwatched read, free on the watched one (a release between
 * the two): granted on the second read, without a wait. */
static void full_then_free_on_the_watched_read(void **state) {
  (void)state;
  start(1, 1);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", own);
  LAYOUT_READ(2, "locks", "leases");
  expect_watched_reread(3, 0);
  answer(3, ZKC_OK, 0);
  LEASES_READ_W(4, own);
  expect_done(ZKC_OK);
  assert_int_equal(S.n, 5);
  stop();
}

/* A wait past the deadline ends the run: no grant, the node made is the
 * caller's to delete. */
static void wait_timeout_ends_the_run(void **state) {
  (void)state;
  start(1, 1);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", own);
  LAYOUT_READ(2, "locks");
  expect_watched_reread(3, 0);
  answer(3, ZKC_OK, 0);
  LEASES_READ_W(4, "_c_x-lease-0000000001", own);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(5, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_woken(&R.q, ZKC__WAKE_TIMEOUT);
  expect_done(ZKC_ETIMEDOUT);
  assert_int_equal(S.registered, 0);
  zkc__held_t *nodes = zkc__lrun_take_nodes(&R);
  assert_non_null(nodes[0].node);
  free(nodes[0].node);
  free(nodes);
  stop();
}

/* The answers come after half a session timeout (a stall): no grant on
 * them; a new read behind a sync is the proof. */
/* The first round (one lease of 2) answered after half a session timeout
 * (a stall), showing room: our lease's name into own. */
static void stale_first_round(char *own) {
  start(1, 2);
  expect_first_round();
  S.clock += FRESH_MS;
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, own);
  LAYOUT_READ(2, "locks", "leases");
}

static void stale_answer_read_again(void **state) {
  (void)state;
  char own[200];
  stale_first_round(own);
  reread_fits(3, own);
  stop();
}

/* The read again behind a sync whose answer is a failure (a follower cut
 * off from the leader cannot answer it), the leases read showing room from
 * the follower's frozen state: no grant on it; the retry policy's backoff,
 * then the reads again behind a new sync, and the grant on those. */
static void reread_without_its_sync_grants_nothing(void **state) {
  (void)state;
  char own[200];
  stale_first_round(own);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(3, ZKC__REQ_SYNC);
  answer(3, ZKC_ECONNLOSS, 0);
  LEASES_READ(4, own);
  assert_int_equal(step(), ZKC__QN_TIME);
  S.clock += 10;
  reread_fits(5, own);
  stop();
}

/* Our lease missing from the read (an outsider deleted it, or the session
 * went): lost, queue again. */
static void own_lease_missing_is_lost(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001");
  LAYOUT_READ(2, "locks", "leases");
  expect_done(ZKC_ELOST);
  stop();
}

/* A lease made through a session replaced meanwhile is not ours, even
 * beside one of the current session (the grant checks the first only). */
static void lease_of_another_session_is_lost(void **state) {
  (void)state;
  start(2, 2);
  assert_int_equal(step(), ZKC__QN_REPLY);
  char a[200], b[200];
  answer_created(0, 3, SESSION, a);
  answer_created(1, 4, OTHER_SESSION, b);
  LEASES_READ(2, a, b);
  LAYOUT_READ(3, "locks", "leases");
  expect_done(ZKC_ELOST);
  stop();
}

/* The leases fit but the session is gone by the grant: lost; not
 * connected: wait for the session, then read again. */
static void no_grant_without_a_live_session(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, own);
  LAYOUT_READ(2, "locks", "leases");
  S.fate = ZKC__SESSION_DOUBT;
  S.live = 0;
  assert_int_equal(step(), ZKC__QN_SESSION);
  S.fate = ZKC__SESSION_LIVE;
  S.live = 1;
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(3, ZKC__REQ_SYNC);
  answer(3, ZKC_OK, 0);
  LEASES_READ(4, own);
  S.fate = ZKC__SESSION_GONE;
  expect_done(ZKC_ELOST);
  stop();
}

/* The queue node gone while we wait as head (deleted by an outsider):
 * someone else may be head too; queue again. */
static void queue_node_gone_is_lost(void **state) {
  (void)state;
  char own[200];
  head_of_a_full_semaphore(own);
  answer(5, ZKC_ENONODE, 0);
  expect_done(ZKC_ELOST);
  stop();
}

/* A queue node of another session than the leases' cannot keep us head:
 * lost, without a request. */
static void queue_node_of_another_session_is_lost(void **state) {
  (void)state;
  start_with(1, 1, NULL, OTHER_SESSION);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", own);
  LAYOUT_READ(2, "locks", "leases");
  expect_watched_reread(3, 0);
  answer(3, ZKC_OK, 0);
  LEASES_READ_W(4, "_c_x-lease-0000000001", own);
  expect_done(ZKC_ELOST);
  assert_int_equal(S.n, 5);
  stop();
}

/* A create cut off by connection loss may have been applied: the janitor
 * gets leases/ with the run's uuid, and the run queues again. */
static void cut_off_create_goes_to_the_janitor(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  char uuid[40];
  const char *p = strstr(S.req[0].path, "/_c_") + 4;
  snprintf(uuid, sizeof uuid, "%.36s", p);
  answer(0, ZKC_ECONNLOSS, 0);
  answer(1, ZKC_ECONNLOSS, 0);
  answer(2, ZKC_ECONNLOSS, 0);
  expect_done(ZKC_ELOST);
  assert_int_equal(S.n_janitor, 1);
  assert_string_equal(S.janitor[0], LEASES);
  assert_string_equal(S.janitor_uuid[0], uuid);
  stop();
}

/* A create still in flight at the limit: given up, its uuid to the
 * janitor, ZKC_ETIMEDOUT. */
static void give_up_leaves_nothing_unknown(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  zkc__lrun_give_up(&R);
  expect_done(ZKC_ETIMEDOUT);
  assert_int_equal(S.n_janitor, 1);
  assert_string_equal(S.janitor[0], LEASES);
  assert_int_equal(S.registered, 0);
  stop();
}

/* leases/ missing (first use): made by a parent walk of states, then the
 * round again. */
static void missing_leases_made_as_states(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  answer(0, ZKC_ENONODE, 0);
  answer(1, ZKC_ENONODE, 0);
  LAYOUT_READ(2, "locks");
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(3, ZKC__REQ_PARENT)->path, LEASES);
  answer(3, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 7); /* the round again, its create first */
  req(4, ZKC__REQ_CREATE);
  req(5, ZKC__REQ_CHILDREN);
  req(6, ZKC__REQ_CHILDREN);
  char own[200];
  answer_created(4, 1, SESSION, own);
  LEASES_READ(5, own);
  LAYOUT_READ(6, "locks", "leases");
  expect_done(ZKC_OK);
  stop();
}

/* The shared count missing: created with the seed (4 bytes, big-endian),
 * read again; its value is the limit. */
static void count_made_with_the_seed_then_read(void **state) {
  (void)state;
  start_with(1, 258, COUNT, SESSION);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 4);
  assert_int_equal(S.also, 0); /* no watch on the first read */
  assert_string_equal(req(2, ZKC__REQ_GET)->path, COUNT);
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_a-lease-0000000001", own);
  answer(2, ZKC_ENONODE, 0);
  LAYOUT_READ(3, "locks", "leases");
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(R.q.st, Q_PREREQING); /* the machine's prerequisite */
  req_t *cr = req(4, ZKC__REQ_COUNT);
  assert_string_equal(cr->path, COUNT);
  assert_int_equal(cr->len, 4);
  assert_memory_equal(cr->data, "\0\0\1\2", 4);
  answer(4, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_REPLY); /* sync, leases, count */
  assert_int_equal(S.n, 8);
  answer(5, ZKC_OK, 0);
  LEASES_READ(6, "_c_a-lease-0000000001", own);
  answer_count(7, 0, 1, 4); /* the limit is 1 now: full */
  expect_watched_reread(8, 1); /* both watched now */
  assert_int_equal(S.also, 1);
  answer(8, ZKC_OK, 0);
  LEASES_READ_W(9, "_c_a-lease-0000000001", own);
  answer_count(10, 1, 1, 4);
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(11, ZKC__REQ_EXISTS);
  stop();
}

/* A count node that is not 4 bytes is no count: ZKC_EPROTO. */
static void count_of_the_wrong_size_refused(void **state) {
  (void)state;
  char own[200];
  made_under_a_count(own);
  answer_count(2, 0, 2, 3);
  LAYOUT_READ(3, "locks", "leases");
  expect_done(ZKC_EPROTO);
  stop();
}

/* Another recipe's nodes on the path (a lock's), seen by the read behind
 * our creates: ZKC_ELAYOUT. */
static void another_recipes_path_refused(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, own);
  LAYOUT_READ(2, "locks", "leases", "_c_b-lock-0000000004");
  expect_done(ZKC_ELAYOUT);
  stop();
}

/* This client's own held leases fill the limit: waiting would never end. */
static void own_leases_in_the_way_deadlock(void **state) {
  (void)state;
  start(1, 2);
  S.held = 2;
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_a-lease-0000000001", "_c_a-lease-0000000002", own);
  LAYOUT_READ(2, "locks", "leases");
  expect_done(ZKC_EDEADLK);
  stop();
}

/* Two leases in one acquire: both creates in the first round; both must
 * be in the read and fit. */
static void two_leases_both_counted(void **state) {
  (void)state;
  start(2, 2);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 4);
  char a[200], b[200];
  answer_created(0, 3, SESSION, a);
  answer_created(1, 4, SESSION, b);
  LEASES_READ(2, a, b, "_c_x-lease-0000000001");
  LAYOUT_READ(3, "locks", "leases");
  expect_watched_reread(4, 0); /* 3 > 2 */
  answer(4, ZKC_OK, 0);
  LEASES_READ_W(5, a, b, "_c_x-lease-0000000001");
  assert_int_equal(step(), ZKC__QN_REPLY); /* still full: head check, wait */
  req(6, ZKC__REQ_EXISTS);
  answer(6, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_woken(&R.q, ZKC__WAKE_FIRED);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(7, ZKC_OK, 0);
  LEASES_READ_W(8, a, b);
  expect_done(ZKC_OK);
  zkc__held_t *nodes = zkc__lrun_take_nodes(&R);
  assert_non_null(nodes[0].node);
  assert_non_null(nodes[1].node);
  free(nodes[0].node);
  free(nodes[1].node);
  free(nodes);
  stop();
}

/* The queue's read showed room (1 lease of 3, ours makes 2): the create
 * lets the queue node go in its own transaction, the leases read behind it
 * (the layout accepted before, not read); granted on our own leases read
 * as ever, the queue node known gone. */
static void room_seen_lets_the_queue_node_go(void **state) {
  (void)state;
  start_seen(1, 3, 1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 2);
  assert_string_equal(req(0, ZKC__REQ_CREATE)->release, QNODE);
  assert_string_equal(req(1, ZKC__REQ_CHILDREN)->path, LEASES);
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", own);
  expect_done(ZKC_OK);
  assert_true(zkc__lrun_let_go(&R));
  stop();
}

/* Two leases wanted: only the last create carries the queue node's delete
 * (the first is made before it, on the same session). */
static void room_seen_lets_go_with_the_last_create(void **state) {
  (void)state;
  start_seen(2, 3, 1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_int_equal(S.n, 3);
  assert_string_equal(req(0, ZKC__REQ_CREATE)->release, "");
  assert_string_equal(req(1, ZKC__REQ_CREATE)->release, QNODE);
  char a[200], b[200];
  answer_created(0, 3, SESSION, a);
  answer_created(1, 4, SESSION, b);
  LEASES_READ(2, "_c_x-lease-0000000001", a, b);
  expect_done(ZKC_OK);
  assert_true(zkc__lrun_let_go(&R));
  stop();
}

/* The queue node was gone when the create meant to let it go (an
 * outsider's delete, our session's end): nothing applied, no lease made,
 * the node not ours to count on: queue again. */
static void queue_node_gone_at_the_let_go_queues_again(void **state) {
  (void)state;
  start_seen(1, 3, 1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(0, ZKC_ELOST, 0);
  LEASES_READ(1, "_c_x-lease-0000000001");
  expect_done(ZKC_ELOST);
  assert_false(zkc__lrun_let_go(&R));
  zkc__held_t *nodes = zkc__lrun_take_nodes(&R);
  assert_null(nodes[0].node);
  free(nodes);
  stop();
}

/* leases/ missing under the create that was to let the queue node go:
 * nothing applied, so the queue node is still ours; the parent is made
 * and the round sent again, its create plain this time (the read that
 * showed room is old now), and the grant leaves the queue node to the
 * caller. */
static void missing_leases_keeps_the_queue_node(void **state) {
  (void)state;
  start_seen(1, 3, 1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(0, ZKC__REQ_CREATE)->release, QNODE);
  answer(0, ZKC_ENONODE, 0);
  answer(1, ZKC_ENONODE, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(2, ZKC__REQ_PARENT)->path, LEASES);
  answer(2, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(3, ZKC__REQ_CREATE)->release, "");
  char own[200];
  answer_created(3, 1, SESSION, own);
  LEASES_READ(4, own);
  LAYOUT_READ(5, "locks", "leases");
  expect_done(ZKC_OK);
  assert_false(zkc__lrun_let_go(&R));
  stop();
}

/* Let go on a read that showed room, but our own read shows the leases
 * full (a stranger's lease): no grant, no wait (there is no place to wait
 * in), no check of the queue node: queue again (ZKC_ELOST). */
static void let_go_then_full_queues_again(void **state) {
  (void)state;
  start_seen(1, 2, 1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(0, ZKC__REQ_CREATE)->release, QNODE);
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", "_c_y-lease-0000000002", own);
  expect_done(ZKC_ELOST);
  assert_int_equal(S.n, 2); /* no re-read, no stat of the queue node */
  assert_int_equal(S.registered, 0);
  stop();
}

/* Let go on a read that showed room (seen: one taken), then our own read
 * (limit max, qty leases made with sequences seqs) answers names: the
 * run's result. */
static int let_go_then_read(unsigned qty, int32_t max, const int *seqs,
                            const char *const *names, int n) {
  start_seen(qty, max, 1, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(qty - 1, ZKC__REQ_CREATE)->release, QNODE);
  char own[2][200];
  assert_true(qty <= 2); /* own's room */
  for (unsigned i = 0; i < qty; i++)
    answer_created((int)i, seqs[i], SESSION, own[i]);
  req_t *q = req((int)qty, ZKC__REQ_CHILDREN);
  q->op->children.data = calloc((size_t)n, sizeof(char *));
  assert_non_null(q->op->children.data);
  int k = 0;
  for (int i = 0; i < n; i++) /* "%0" and "%1": our own leases' names */
    q->op->children.data[k++] =
        strdup(names[i][0] == '%' ? own[names[i][1] - '0'] : names[i]);
  q->op->children.count = k;
  answer((int)qty, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_DONE);
  int rc = zkc__lrun_result(&R);
  stop();
  return rc;
}

/* Let go on a read that showed room, and the next head made its lease
 * before our read came back: a lease made after our last one does not
 * count against ours, so we are granted rather than queue again behind
 * the head that came after us. Without that rule, each granted case here
 * would queue again (ZKC_ELOST). */
static void let_go_then_a_later_lease_is_not_counted(void **state) {
  (void)state;
  const int one[] = {3}, two[] = {3, 5};
  const char *later[] = {"_c_x-lease-0000000001", "%0",
                         "_c_z-lease-0000000004"};
  assert_int_equal(let_go_then_read(1, 2, one, later, 3), ZKC_OK);
  /* Two wanted: the last of ours is the line (4 before it, 6 after). */
  const char *between[] = {"%0", "_c_z-lease-0000000004", "%1",
                           "_c_z-lease-0000000006", "_c_z-lease-0000000007"};
  assert_int_equal(let_go_then_read(2, 3, two, between, 5), ZKC_OK);
  const char *before[] = {"_c_x-lease-0000000001", "%0",
                          "_c_z-lease-0000000004", "%1",
                          "_c_z-lease-0000000006"};
  assert_int_equal(let_go_then_read(2, 3, two, before, 5), ZKC_ELOST);
}

/* Leases whose order against ours the sequences cannot tell count: a name
 * without a sequence, a negative sequence (the counter past 2^31), one far
 * above ours (older than a whole wrap of the counter), and all of them
 * when ours is negative. */
static void let_go_counts_what_it_cannot_order(void **state) {
  (void)state;
  const int three[] = {3}, neg[] = {-4}, top[] = {2147483647};
  const char *stranger[] = {"_c_x-lease-0000000001", "%0", "stranger"};
  assert_int_equal(let_go_then_read(1, 2, three, stranger, 3), ZKC_ELOST);
  const char *negative[] = {"_c_x-lease-0000000001", "%0",
                            "_c_y-lease--000000009"};
  assert_int_equal(let_go_then_read(1, 2, three, negative, 3), ZKC_ELOST);
  const char *wrapped[] = {"_c_x-lease-2000000000", "%0",
                           "_c_y-lease-0000000002"};
  assert_int_equal(let_go_then_read(1, 2, three, wrapped, 3), ZKC_ELOST);
  const char *ours_neg[] = {"%0", "_c_x-lease--000000002",
                            "_c_y-lease-0000000007"};
  assert_int_equal(let_go_then_read(1, 2, neg, ours_neg, 3), ZKC_ELOST);
  const char *after_top[] = {"_c_x-lease-0000000001", "%0",
                             "_c_y-lease-2147483648"};
  assert_int_equal(let_go_then_read(1, 2, top, after_top, 3), ZKC_ELOST);
}

/* A head that kept its queue node counts every lease, a later one too
 * (only a stranger makes one while we are head): no grant, it reads again
 * watched. */
static void head_counts_every_lease(void **state) {
  (void)state;
  start_seen(1, 2, 2, NULL);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(0, ZKC__REQ_CREATE)->release, "");
  char own[200];
  answer_created(0, 3, SESSION, own);
  LEASES_READ(1, "_c_x-lease-0000000001", own, "_c_z-lease-0000000004");
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_true(R.q.st != Q_DONE);
  req(3, ZKC__REQ_CHILDREN_WATCH); /* the watched read again, no grant */
  stop();
}

/* No room seen (2 of 2 held), nothing seen, or a shared count (the limit
 * may change under us): the queue node stays ours until the grant. */
static void no_room_seen_keeps_the_queue_node(void **state) {
  (void)state;
  const int seen[] = {2, -1, 0};
  for (int k = 0; k < 3; k++) {
    start_seen(1, 2, seen[k], k == 2 ? COUNT : NULL);
    assert_int_equal(step(), ZKC__QN_REPLY);
    assert_string_equal(req(0, ZKC__REQ_CREATE)->release, "");
    stop();
  }
}

/* This object's own leases in the way of ours (2 held, limit 2) make no
 * room, whatever a read that missed them showed. */
static void held_leases_in_the_way_are_no_room(void **state) {
  (void)state;
  start_seen(1, 2, 0, NULL);
  S.held = 2;
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(0, ZKC__REQ_CREATE)->release, "");
  stop();
}

/* The queue node stated before the wait is there, but on another session
 * than our leases' (an outsider's node of that name, our session's node
 * gone): it keeps no place for us; queue again. */
static void place_of_another_session_is_lost(void **state) {
  (void)state;
  char own[200];
  head_of_a_full_semaphore(own);
  answer(5, ZKC_OK, OTHER_SESSION);
  expect_done(ZKC_ELOST);
  assert_int_equal(S.registered, 0);
  stop();
}

/* The count node's parent missing too: the kernel's walk makes it, then
 * the count's create again, then the round's reads. */
static void count_parent_made_by_the_walk(void **state) {
  (void)state;
  char own[200];
  made_under_a_count(own);
  answer(2, ZKC_ENONODE, 0);
  LAYOUT_READ(3, "locks", "leases");
  assert_int_equal(step(), ZKC__QN_REPLY);
  req(4, ZKC__REQ_COUNT);
  answer(4, ZKC_ENONODE, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(5, ZKC__REQ_PARENT)->path, "/cfg");
  answer(5, ZKC_OK, 0);
  assert_int_equal(step(), ZKC__QN_REPLY);
  assert_string_equal(req(6, ZKC__REQ_COUNT)->path, COUNT);
  answer(6, ZKC_ENODEEXISTS, 0); /* theirs: read it */
  assert_int_equal(step(), ZKC__QN_REPLY);
  answer(7, ZKC_OK, 0);
  LEASES_READ(8, own);
  answer_count(9, 0, 2, 4);
  expect_done(ZKC_OK);
  stop();
}

/* A read cut off: the client's retry policy (its backoff), then the
 * reads again behind a sync; the creates are not made twice. */
static void read_cut_off_retried(void **state) {
  (void)state;
  start(1, 2);
  expect_first_round();
  char own[200];
  answer_created(0, 3, SESSION, own);
  answer(1, ZKC_ECONNLOSS, 0);
  LAYOUT_READ(2, "locks", "leases");
  assert_int_equal(step(), ZKC__QN_TIME);
  S.clock += 10;
  reread_fits(3, own); /* no create, the layout accepted */
  assert_int_equal(S.n_janitor, 0);
  stop();
}

/* Stopped while waiting (a cancel, a close): the run ends with the stop's
 * code, its watches removed, its node the caller's to delete. */
static void stop_while_waiting_removes_the_watches(void **state) {
  (void)state;
  char own[200];
  head_of_a_full_semaphore(own);
  answer(5, ZKC_OK, SESSION);
  assert_int_equal(step(), ZKC__QN_EVENT);
  zkc__qrun_stop(&R.q, ZKC_ECANCELED);
  expect_done(ZKC_ECANCELED);
  assert_int_equal(S.unwatched, 1);
  assert_int_equal(S.registered, 0);
  zkc__held_t *nodes = zkc__lrun_take_nodes(&R);
  assert_non_null(nodes[0].node);
  free(nodes[0].node);
  free(nodes);
  stop();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fits_in_one_round_trip),
      cmocka_unit_test(waits_as_head_then_fits),
      cmocka_unit_test(full_then_free_on_the_watched_read),
      cmocka_unit_test(wait_timeout_ends_the_run),
      cmocka_unit_test(stale_answer_read_again),
      cmocka_unit_test(reread_without_its_sync_grants_nothing),
      cmocka_unit_test(own_lease_missing_is_lost),
      cmocka_unit_test(lease_of_another_session_is_lost),
      cmocka_unit_test(no_grant_without_a_live_session),
      cmocka_unit_test(queue_node_gone_is_lost),
      cmocka_unit_test(queue_node_of_another_session_is_lost),
      cmocka_unit_test(cut_off_create_goes_to_the_janitor),
      cmocka_unit_test(give_up_leaves_nothing_unknown),
      cmocka_unit_test(missing_leases_made_as_states),
      cmocka_unit_test(count_made_with_the_seed_then_read),
      cmocka_unit_test(count_of_the_wrong_size_refused),
      cmocka_unit_test(another_recipes_path_refused),
      cmocka_unit_test(own_leases_in_the_way_deadlock),
      cmocka_unit_test(room_seen_lets_the_queue_node_go),
      cmocka_unit_test(room_seen_lets_go_with_the_last_create),
      cmocka_unit_test(queue_node_gone_at_the_let_go_queues_again),
      cmocka_unit_test(missing_leases_keeps_the_queue_node),
      cmocka_unit_test(let_go_then_full_queues_again),
      cmocka_unit_test(let_go_then_a_later_lease_is_not_counted),
      cmocka_unit_test(let_go_counts_what_it_cannot_order),
      cmocka_unit_test(head_counts_every_lease),
      cmocka_unit_test(no_room_seen_keeps_the_queue_node),
      cmocka_unit_test(held_leases_in_the_way_are_no_room),
      cmocka_unit_test(two_leases_both_counted),
      cmocka_unit_test(place_of_another_session_is_lost),
      cmocka_unit_test(count_parent_made_by_the_walk),
      cmocka_unit_test(read_cut_off_retried),
      cmocka_unit_test(stop_while_waiting_removes_the_watches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
