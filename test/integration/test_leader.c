/* SPDX-License-Identifier: Apache-2.0 */
/* The leader latch on the real ensemble: one CTest entry per case. Every
 * case records leadership intervals (is_leader .. not_leader) on the
 * monotonic clock and checks that no two overlap. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)
#define MAX_IV 1024

/* Leadership intervals of several latches, from their callbacks. */
typedef struct record {
  pthread_mutex_t mu;
  int64_t start[MAX_IV], end[MAX_IV];
  int who[MAX_IV];
  int n;
  int open[64]; /* per participant: index of its open interval + 1 */
  int is_calls, not_calls;
  int is_returns; /* is_leader calls that have returned */
  int bad_order; /* is_leader twice, or not_leader without is_leader */
} record_t;

typedef struct slot {
  record_t *r;
  int idx;
  int work_ms; /* is_leader's own work (an application starting up) */
  atomic_int called; /* is_leader has begun (work_ms > 0 only) */
  atomic_int done;   /* set by the case: is_leader's work ends now */
  /* What is_leader saw of the latch (work_ms > 0 only). */
  int cb_leader;   /* zkc_latch_has_leadership */
  int cb_token_rc; /* zkc_hold_fencing_token */
  /* What not_leader saw: zkc_latch_has_leadership, 1 if it ever said 1. */
  atomic_int nl_leader;
} slot_t;

static void rec_init(record_t *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->mu, NULL);
}

static void on_is_leader(void *ctx, zkc_latch_t *l) {
  slot_t *s = ctx;
  record_t *r = s->r;
  int64_t now = zkt_now_ns();
  pthread_mutex_lock(&r->mu);
  r->is_calls++;
  if (r->open[s->idx]) r->bad_order++;
  if (r->n < MAX_IV) {
    r->start[r->n] = now;
    r->end[r->n] = 0;
    r->who[r->n] = s->idx;
    r->open[s->idx] = ++r->n;
  }
  pthread_mutex_unlock(&r->mu);
  if (s->work_ms > 0) {
    int64_t token;
    atomic_store(&s->called, 1); /* as an application signals its worker */
    s->cb_leader = zkc_latch_has_leadership(l);
    s->cb_token_rc = zkc_hold_fencing_token(zkc_latch_hold(l), &token);
    /* At most work_ms, less when the case has seen what it waits for. */
    int64_t end = zkt_now_ns() + (int64_t)s->work_ms * 1000000;
    while (!atomic_load(&s->done) && zkt_now_ns() < end) usleep(10 * 1000);
  }
  pthread_mutex_lock(&r->mu);
  r->is_returns++;
  pthread_mutex_unlock(&r->mu);
}

static void on_not_leader(void *ctx, zkc_latch_t *l) {
  slot_t *s = ctx;
  if (zkc_latch_has_leadership(l)) atomic_store(&s->nl_leader, 1);
  record_t *r = s->r;
  int64_t now = zkt_now_ns();
  pthread_mutex_lock(&r->mu);
  r->not_calls++;
  if (!r->open[s->idx]) r->bad_order++;
  else r->end[r->open[s->idx] - 1] = now;
  r->open[s->idx] = 0;
  pthread_mutex_unlock(&r->mu);
}

/* Fails when two leadership intervals overlap (an open one lasts forever). */
static void assert_no_overlap(record_t *r) {
  pthread_mutex_lock(&r->mu);
  zkt_assert_disjoint(r->start, r->end, r->who, r->n);
  assert_int_equal(r->bad_order, 0);
  pthread_mutex_unlock(&r->mu);
}

static zkc_latch_t *new_latch(zkc_client_t *c, const char *path, const char *id,
                              slot_t *s) {
  zkc_latch_opts_t o;
  zkc_latch_opts_init(&o);
  if (s) {
    o.is_leader = on_is_leader;
    o.not_leader = on_not_leader;
    o.ctx = s;
  }
  zkc_latch_t *l = NULL;
  OK(zkc_latch_create(&l, c, path, id, &o));
  return l;
}

typedef struct latches {
  zkc_latch_t **l;
  int n;
} latches_t;

static int leaders(latches_t *ls) {
  int k = 0;
  for (int i = 0; i < ls->n; i++)
    if (ls->l[i] && zkc_latch_has_leadership(ls->l[i])) k++;
  return k;
}

static int one_leader(void *ctx) { return leaders(ctx) == 1; }

static int leader_index(latches_t *ls) {
  for (int i = 0; i < ls->n; i++)
    if (ls->l[i] && zkc_latch_has_leadership(ls->l[i])) return i;
  return -1;
}


/* Ends participant idx's open interval at `at` (0: now). Returns 1 if an
 * interval was open (is_leader had been told). */
static int end_by_hand_at(record_t *r, int idx, int64_t at) {
  pthread_mutex_lock(&r->mu);
  int open = r->open[idx] != 0;
  if (open) {
    int i = r->open[idx] - 1;
    if (at == 0) at = zkt_now_ns();
    /* An is_leader running when close was called finished first (close
     * waits for it) but recorded its start after that moment. */
    r->end[i] = at > r->start[i] ? at : r->start[i];
  }
  r->open[idx] = 0;
  pthread_mutex_unlock(&r->mu);
  return open;
}

static int end_by_hand(record_t *r, int idx) { return end_by_hand_at(r, idx, 0); }

/* Closes participant idx's latch silently: nobody is told, and the
 * application stops acting as leader when it calls close. An is_leader
 * running then is waited out by close, so its interval is ended only once
 * close returned, at the moment close was called. Returns 1 if an interval
 * was open (is_leader had been told). */
static int close_silently(record_t *r, int idx, zkc_latch_t *l) {
  int64_t called = zkt_now_ns();
  OK(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  return end_by_hand_at(r, idx, called);
}

/* Destroys every latch, the leader last (so nobody leads after it). */
static void destroy_all(latches_t *ls, record_t *r) {
  int li = leader_index(ls);
  for (int i = 0; i < ls->n; i++)
    if (i != li) OK(zkc_latch_destroy(ls->l[i]));
  if (li >= 0) {
    assert_true(close_silently(r, li, ls->l[li]));
    OK(zkc_latch_destroy(ls->l[li]));
  }
}

static int is_calls(record_t *r) {
  pthread_mutex_lock(&r->mu);
  int n = r->is_calls;
  pthread_mutex_unlock(&r->mu);
  return n;
}

static int not_calls(record_t *r) {
  pthread_mutex_lock(&r->mu);
  int n = r->not_calls;
  pthread_mutex_unlock(&r->mu);
  return n;
}

static int is_returns(record_t *r) {
  pthread_mutex_lock(&r->mu);
  int n = r->is_returns;
  pthread_mutex_unlock(&r->mu);
  return n;
}

struct calls_ctx {
  record_t *r;
  int want;
};

static int is_calls_reach(void *ctx) {
  struct calls_ctx *cc = ctx;
  return is_calls(cc->r) == cc->want;
}

/* ---------------------------------------------------------------------- */

struct all_seen {
  zkc_latch_t *l;
  size_t want;
};
static int participants_seen(void *ctx) {
  struct all_seen *a = ctx;
  zkt_participant_t *p = NULL;
  size_t n = 0;
  if (zkt_latch_participants(a->l, &p, &n) != ZKC_OK) return 0;
  zkt_participants_free(p, n);
  return n == a->want;
}

static void one_leader_among_five(void **state) {
  (void)state;
  enum { N = 5 };
  const char *path = zkt_path("election");
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  zkc_client_t *c[N];
  zkc_latch_t *l[N];
  slot_t s[N];
  char id[N][16];
  for (int i = 0; i < N; i++) {
    c[i] = zkt_open(NULL);
    s[i] = (slot_t){.r = r, .idx = i};
    snprintf(id[i], sizeof id[i], "p%d", i);
    l[i] = new_latch(c[i], path, id[i], &s[i]);
    OK(zkc_latch_start(l[i]));
  }
  latches_t ls = {l, N};
  assert_true(zkt_await_children_exactly(path, N, zkt_ms(10000)));
  assert_true(zkt_await(one_leader, &ls, zkt_ms(10000)));
  int li = leader_index(&ls);

  /* Another session's server may not have applied every create yet (a
   * server restarted by an earlier test catches up): await them. */
  struct all_seen seen = {l[(li + 1) % N], N};
  assert_true(zkt_await(participants_seen, &seen, zkt_ms(10000)));
  zkt_participant_t *p;
  size_t n;
  OK(zkt_latch_participants(l[(li + 1) % N], &p, &n));
  assert_int_equal(n, N);
  int marked = 0;
  for (size_t i = 0; i < n; i++) marked += p[i].is_leader;
  assert_int_equal(marked, 1);
  assert_true(p[0].is_leader);
  assert_string_equal(p[0].id, id[li]);
  zkt_participants_free(p, n);
  char *leader = NULL;
  OK(zkc_latch_leader_id(l[(li + 2) % N], &leader));
  assert_string_equal(leader, id[li]);
  free(leader);

  /* The node is Curator's: _c_<uuid>-latch-<seq>, data = the id. */
  char node[1100], data[64];
  OK(zkt_hold_node(zkc_latch_hold(l[li]), node, sizeof node));
  assert_non_null(strstr(node, "-latch-"));
  assert_int_equal(strncmp(node + strlen(path), "/_c_", 4), 0);
  assert_true(zkt_get_data(node, data, sizeof data) > 0);
  assert_string_equal(data, id[li]);
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_latch_hold(l[li]), &token));
  struct Stat st;
  assert_true(zkt_exists(node, &st));
  assert_int_equal(token, st.czxid);
  assert_int_equal(zkc_hold_fencing_token(zkc_latch_hold(l[(li + 1) % N]), &token),
                   ZKC_ENOTOWNER);

  /* The leader leaves: exactly one other takes over. */
  OK(zkc_latch_close(l[li], ZKC_CLOSE_NOTIFY_LEADER));
  assert_false(zkc_latch_has_leadership(l[li]));
  OK(zkc_latch_destroy(l[li]));
  l[li] = NULL;
  assert_true(zkt_await(one_leader, &ls, zkt_ms(10000)));
  assert_true(leader_index(&ls) != li);

  destroy_all(&ls, r);
  for (int i = 0; i < N; i++) zkc_client_close(c[i]);
  assert_true(zkt_await_closed(path, 0));
  assert_no_overlap(r);
  assert_int_equal(r->n, 2);
  free(r);
}

static void leader_killed_successor_within_session_timeout(void **state) {
  (void)state;
  const int session_ms = 4000;
  const char *path = zkt_path("election");
  const char *bin = getenv("ZKT_LATCH_HOLDER");
  if (bin == NULL) fail_msg("ZKT_LATCH_HOLDER is not set");
  char session[16];
  snprintf(session, sizeof session, "%d", session_ms);
  char *argv[] = {(char *)bin, (char *)zkt_connect(), (char *)path, "killed",
                  session, NULL};
  zkt_proc_t p = zkt_spawn(argv);
  char line[256];
  if (!zkt_expect(&p, "LEADER ", line, sizeof line, zkt_ms(15000)))
    fail_msg("helper did not become leader");

  record_t *r = malloc(sizeof *r);
  rec_init(r);
  slot_t s = {.r = r, .idx = 0};
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *l = new_latch(c, path, "successor", &s);
  OK(zkc_latch_start(l));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  assert_int_equal(zkc_latch_await(l, 0), ZKC_ETIMEDOUT);
  char *leader = NULL;
  OK(zkc_latch_leader_id(l, &leader));
  assert_string_equal(leader, "killed");
  free(leader);

  kill(p.pid, SIGKILL);
  int64_t t0 = zkt_now_ms();
  /* The servers expire a session on the tick (500 ms) after its timeout;
   * then the delete, its event and the successor's read. */
  OK(zkc_latch_await(l, session_ms + zkt_ms(2500)));
  int64_t took = zkt_now_ms() - t0;
  printf("figure: new leader %lld ms after SIGKILL of the leader "
         "(session timeout %d ms)\n", (long long)took, session_ms);
  assert_true(took <= session_ms + zkt_ms(2500));
  zkt_wait(&p, zkt_ms(5000));
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
  assert_no_overlap(r);
  free(r);
}

/* The leader's session expires because the leader is cut off (a partition
 * or a long pause): its client notices the silence after 2/3 of the session
 * timeout, the server expires the session only after the whole timeout, so
 * with lost_on_suspended the leader steps down before anyone else can lead.
 * (An expiry forced from outside, with the leader still connected, deletes
 * the node and drops the connection in one step: then the successor's watch
 * and the old leader's disconnect race, and no client can order them.) */
static void leader_expired_told_before_successor_leads(void **state) {
  (void)state;
  const int session_ms = 4000;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("election"));
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  slot_t sa = {.r = r, .idx = 0}, sb = {.r = r, .idx = 1};
  zkt_proc_t proxy = zkt_proxy_start(1);
  const char *connect = zkt_proxy_connect(&proxy);
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = session_ms;
  o.lost_on_suspended = 1;
  zkc_client_t *a = NULL, *b = zkt_open(NULL);
  OK(zkc_client_open(&a, connect, &o));
  zkc_latch_t *la = new_latch(a, path, "a", &sa);
  OK(zkc_latch_start(la));
  OK(zkc_latch_await(la, zkt_ms(10000)));
  zkc_latch_t *lb = new_latch(b, path, "b", &sb);
  OK(zkc_latch_start(lb));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));

  int64_t t0 = zkt_now_ns();
  zkt_proxy_cmd(&proxy, "stall"); /* the leader is cut off */
  OK(zkc_latch_await(lb, session_ms + zkt_ms(5000)));
  assert_false(zkc_latch_has_leadership(la));
  struct calls_ctx k = {r, 2};
  assert_true(zkt_await(is_calls_reach, &k, zkt_ms(5000)));
  pthread_mutex_lock(&r->mu);
  assert_true(r->n >= 2);
  int64_t a_end = r->end[0], b_start = r->start[1];
  assert_int_equal(r->who[0], 0);
  assert_int_equal(r->who[1], 1);
  pthread_mutex_unlock(&r->mu);
  assert_true(a_end != 0);
  printf("figure: cut-off leader told not_leader %.1f ms after the cut, new "
         "leader is_leader %.1f ms after it (session %d ms)\n",
         (a_end - t0) / 1e6, (b_start - t0) / 1e6, session_ms);
  assert_true(a_end < b_start);
  /* Back on the network, a learns its session expired and rejoins behind
   * b with a new one. */
  zkt_proxy_cmd(&proxy, "unstall");
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  assert_no_overlap(r);
  end_by_hand(r, 1);
  OK(zkc_latch_destroy(lb));
  OK(zkc_latch_destroy(la));
  zkc_client_close(a);
  zkc_client_close(b);
  zkt_proxy_stop(&proxy);
  free(r);
}

static void hundred_flaps_never_two_leaders(void **state) {
  (void)state;
  enum { N = 5, FLAPS = 100 };
  const char *path = zkt_path("election");
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  zkc_client_t *c[N];
  zkc_latch_t *l[N];
  slot_t s[N];
  for (int i = 0; i < N; i++) {
    c[i] = zkt_open(NULL);
    s[i] = (slot_t){.r = r, .idx = i};
    l[i] = new_latch(c[i], path, NULL, &s[i]);
    OK(zkc_latch_start(l[i]));
  }
  latches_t ls = {l, N};
  int64_t t0 = zkt_now_ms();
  for (int f = 0; f < FLAPS; f++) {
    if (!zkt_await(one_leader, &ls, zkt_ms(10000)))
      fail_msg("flap %d: no single leader (%d)", f, leaders(&ls));
    int li = leader_index(&ls);
    /* Alternate close modes; the leader always rejoins at the back. A
     * latch reported leader is told is_leader, even if it is closed
     * silently at once. */
    if (f % 2 == 0)
      OK(zkc_latch_close(l[li], ZKC_CLOSE_NOTIFY_LEADER));
    else if (!close_silently(r, li, l[li]))
      fail_msg("flap %d: %d reported leader, never told is_leader", f, li);
    OK(zkc_latch_destroy(l[li]));
    l[li] = new_latch(c[li], path, NULL, &s[li]);
    OK(zkc_latch_start(l[li]));
  }
  int64_t took = zkt_now_ms() - t0;
  assert_true(zkt_await(one_leader, &ls, zkt_ms(10000)));
  destroy_all(&ls, r);
  assert_int_equal(zkt_children_count(path), 0);
  for (int i = 0; i < N; i++) zkc_client_close(c[i]);
  assert_no_overlap(r);
  printf("figure: %d leadership changes among %d participants in %lld ms "
         "(%.1f ms each), %d is_leader, %d not_leader, no overlap\n", FLAPS, N,
         (long long)took, (double)took / FLAPS, r->is_calls, r->not_calls);
  assert_true(r->is_calls >= FLAPS);
  free(r);
}

static int latch_leads(void *ctx) { return zkc_latch_has_leadership(ctx); }

struct leader_is {
  zkc_latch_t *l;
  const char *id;
};

/* The latch's own server names `id` as the leader: that server may apply a
 * delete later than the server another process read it from. */
static int leader_reads(void *ctx) {
  struct leader_is *w = ctx;
  char *leader = NULL;
  if (zkc_latch_leader_id(w->l, &leader) != ZKC_OK) return 0;
  int same = leader && strcmp(leader, w->id) == 0;
  free(leader);
  return same;
}

static int flag_set(void *ctx) { return atomic_load((atomic_int *)ctx); }

/* A log sink as slow as a congested syslog: the latch logs its leadership
 * before it tells is_leader. */
static void slow_leader_line(void *ctx, zkc_log_level_t level,
                             const char *message) {
  (void)ctx, (void)level;
  if (strstr(message, ": leader (")) usleep(300 * 1000);
}

/* Whoever sees a leader (has_leadership, await) knows is_leader is told:
 * a silent close at once still has is_leader called (and waited for), not
 * skipped; a thread that is_leader signals sees the leadership at once,
 * and is_leader itself sees it with its token. */
static void leader_seen_means_is_leader_told(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  slot_t s0 = {.r = r, .idx = 0};
  slot_t s1 = {.r = r, .idx = 1, .work_ms = 300, .cb_token_rc = 1};
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = slow_leader_line;
  o.log_level = ZKC_LOG_INFO;
  zkc_client_t *c = zkt_open(&o);
  zkc_latch_t *l = new_latch(c, path, "slow-log", &s0);
  OK(zkc_latch_start(l));
  assert_true(zkt_await(latch_leads, l, zkt_ms(10000)));
  assert_true(close_silently(r, 0, l));
  assert_int_equal(is_returns(r), 1);
  OK(zkc_latch_destroy(l));

  l = new_latch(c, path, "slow-start", &s1);
  OK(zkc_latch_start(l));
  assert_true(zkt_await(flag_set, &s1.called, zkt_ms(10000)));
  assert_true(zkc_latch_has_leadership(l)); /* is_leader still working */
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_latch_hold(l), &token));
  OK(zkc_latch_await(l, 0));
  OK(zkc_latch_close(l, ZKC_CLOSE_NOTIFY_LEADER));
  assert_int_equal(s1.cb_leader, 1);
  assert_int_equal(s1.cb_token_rc, ZKC_OK);
  assert_int_equal(is_returns(r), 2);
  assert_int_equal(not_calls(r), 1);
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
  assert_true(zkt_await_closed(path, 0));
  assert_no_overlap(r);
  assert_int_equal(r->n, 2);
  free(r);
}

static void close_notify_calls_not_leader(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  slot_t s0 = {.r = r, .idx = 0}, s1 = {.r = r, .idx = 1};
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *l = new_latch(c, path, "n", &s0);
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, zkt_ms(10000)));
  struct calls_ctx k = {r, 1};
  assert_true(zkt_await(is_calls_reach, &k, zkt_ms(5000)));
  OK(zkc_latch_close(l, ZKC_CLOSE_NOTIFY_LEADER));
  assert_int_equal(not_calls(r), 1); /* before close returned */
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_latch_close(l, ZKC_CLOSE_NOTIFY_LEADER)); /* twice: nothing */
  assert_int_equal(not_calls(r), 1);
  assert_int_equal(zkc_latch_start(l), ZKC_EBUSY);
  OK(zkc_latch_destroy(l));

  /* Silent: no callback. */
  l = new_latch(c, path, "s", &s1);
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, zkt_ms(10000)));
  k.want = 2;
  assert_true(zkt_await(is_calls_reach, &k, zkt_ms(5000)));
  OK(zkc_latch_close(l, ZKC_CLOSE_SILENT));
  assert_int_equal(not_calls(r), 1);
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_latch_destroy(l));
  assert_int_equal(zkc_latch_close(NULL, ZKC_CLOSE_SILENT), ZKC_OK);
  assert_int_equal(zkc_latch_destroy(NULL), ZKC_OK);
  zkc_client_close(c);
  free(r);
}

struct bg_await {
  zkc_latch_t *l;
  int rc;
};

static void *await_forever(void *arg) {
  struct bg_await *b = arg;
  b->rc = zkc_latch_await(b->l, -1);
  return NULL;
}

static void await_times_out(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_latch_t *la = new_latch(a, path, "a", NULL);
  zkc_latch_t *lb = new_latch(b, path, "b", NULL);
  assert_int_equal(zkc_latch_await(lb, 0), ZKC_EINVAL); /* not started */
  OK(zkc_latch_start(la));
  OK(zkc_latch_await(la, zkt_ms(10000)));
  OK(zkc_latch_start(lb));
  assert_int_equal(zkc_latch_await(lb, 0), ZKC_ETIMEDOUT);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(zkc_latch_await(lb, 300), ZKC_ETIMEDOUT);
  int64_t took = zkt_now_ms() - t0;
  printf("figure: await(300 ms) returned ZKC_ETIMEDOUT after %lld ms\n",
         (long long)took);
  assert_true(took >= 300 && took < zkt_ms(2000));

  /* An await forever returns ZKC_ECLOSED when the latch closes. */
  struct bg_await bg = {lb, 1};
  pthread_t t;
  pthread_create(&t, NULL, await_forever, &bg);
  usleep(50000); /* let it block (the result is the same if it did not) */
  OK(zkc_latch_close(lb, ZKC_CLOSE_SILENT));
  pthread_join(t, NULL);
  assert_int_equal(bg.rc, ZKC_ECLOSED);
  assert_int_equal(zkc_latch_await(lb, 0), ZKC_ECLOSED);
  assert_int_equal(zkt_children_count(path), 1); /* only a's */
  OK(zkc_latch_destroy(lb));
  OK(zkc_latch_destroy(la));
  zkc_client_close(a);
  zkc_client_close(b);
}

/* Curator's LeaderLatch (Java) and two zkcoord latches on one path. Queue:
 * c1 (leader), java, c2. c1 closes: java leads, sees c2 waiting; java
 * closes: c2 leads. Exactly one leader at a time throughout. */
static void curator_latch_interop(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("election"));
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  slot_t s1 = {.r = r, .idx = 1}, s2 = {.r = r, .idx = 2};
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_latch_t *l1 = new_latch(a, path, "c1", &s1);
  OK(zkc_latch_start(l1));
  OK(zkc_latch_await(l1, zkt_ms(10000)));

  char script[1024], hold[32];
  snprintf(script, sizeof script, "%s/run-curator.sh", getenv("ZKT_INTEROP"));
  /* Curator's leadership must outlast our reads of it below, however slow
   * the machine (a loaded run saw it end before the leader-id read). */
  snprintf(hold, sizeof hold, "%lld", (long long)zkt_ms(3000));
  char *argv[] = {script, getenv("ZKT_BUILD"), "latch", (char *)zkt_connect(),
                  path, "java", hold, NULL};
  zkt_proc_t java = zkt_spawn(argv);
  if (!zkt_await_children_exactly(path, 2, zkt_ms(60000)))
    fail_msg("Curator's latch did not join");
  zkc_latch_t *l2 = new_latch(b, path, "c2", &s2);
  OK(zkc_latch_start(l2));
  assert_true(zkt_await_children_exactly(path, 3, zkt_ms(10000)));

  zkt_participant_t *p;
  size_t n;
  OK(zkt_latch_participants(l2, &p, &n));
  assert_int_equal(n, 3);
  assert_string_equal(p[0].id, "c1");
  assert_true(p[0].is_leader);
  assert_string_equal(p[1].id, "java");
  assert_false(p[1].is_leader);
  assert_string_equal(p[2].id, "c2");
  zkt_participants_free(p, n);

  OK(zkc_latch_close(l1, ZKC_CLOSE_NOTIFY_LEADER));
  char line[2048];
  if (!zkt_expect(&java, "LEADER java ", line, sizeof line, zkt_ms(30000)))
    fail_msg("Curator's latch did not become leader");
  long long java_start = atoll(line + strlen("LEADER java "));
  assert_false(zkc_latch_has_leadership(l2));
  /* l2's server may not have applied c1's delete yet (a CI run read "c1"
   * here): await its view rather than read it once. */
  struct leader_is java_leads = {l2, "java"};
  assert_true(zkt_await(leader_reads, &java_leads, zkt_ms(10000)));
  if (!zkt_expect(&java, "PARTICIPANTS ", line, sizeof line, zkt_ms(30000)))
    fail_msg("no PARTICIPANTS line from Curator");
  printf("interop: Curator sees %s\n", line);
  assert_string_equal(line, "PARTICIPANTS java:true,c2:false");
  assert_true(zkt_expect(&java, "DONE", line, sizeof line, zkt_ms(30000)));
  OK(zkc_latch_await(l2, zkt_ms(10000)));
  assert_int_equal(zkt_wait(&java, zkt_ms(30000)), 0);
  struct calls_ctx k = {r, 2};
  assert_true(zkt_await(is_calls_reach, &k, zkt_ms(5000)));

  pthread_mutex_lock(&r->mu);
  assert_int_equal(r->n, 2);
  int64_t c1_end = r->end[0], c2_start = r->start[1];
  pthread_mutex_unlock(&r->mu);
  printf("interop: c1 left %.1f ms before Curator led; c2 led %.1f ms after\n",
         (java_start - c1_end) / 1e6, (c2_start - java_start) / 1e6);
  assert_true(c1_end < java_start && java_start < c2_start);
  assert_no_overlap(r);
  OK(zkc_latch_destroy(l2));
  OK(zkc_latch_destroy(l1));
  zkc_client_close(a);
  zkc_client_close(b);
  free(r);
}

/* A leadership taken away by an outsider's delete of its node is no
 * leadership from the moment the loss is known, even while the latch's
 * thread is still busy in is_leader and has not given the node up: others
 * see none at once, and not_leader, told after is_leader returns, sees
 * none either. */
static int not_calls_reach(void *ctx) { return not_calls(ctx) >= 1; }
static int called(void *ctx) { return atomic_load(&((slot_t *)ctx)->called); }
static int leadership_gone(void *ctx) { return !zkc_latch_has_leadership(ctx); }

static void deleted_leadership_not_shown(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("election"));
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  slot_t sa = {.r = r, .idx = 0, .work_ms = (int)zkt_ms(6000)};
  zkc_client_t *a = zkt_open(NULL);
  zkc_latch_t *la = new_latch(a, path, "a", &sa);
  OK(zkc_latch_start(la));
  assert_true(zkt_await(called, &sa, zkt_ms(10000)));
  char node[1100];
  OK(zkt_hold_node(zkc_latch_hold(la), node, sizeof node));
  /* The guard's watch on the node is set once it has been held a while. */
  assert_true(zkt_await_session_watches(a, 1, NULL, 0, zkt_ms(3000)) >= 1);
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
  assert_true(zkt_await(leadership_gone, la, zkt_ms(3000)));
  pthread_mutex_lock(&r->mu);
  int returned = r->is_returns;
  pthread_mutex_unlock(&r->mu);
  assert_int_equal(returned, 0); /* is_leader still at work */
  atomic_store(&sa.done, 1);     /* it may end: not_leader is told next */
  assert_true(zkt_await(not_calls_reach, r, zkt_ms(10000)));
  assert_int_equal(atomic_load(&sa.nl_leader), 0);
  /* It rejoins with a new node, and leads again. */
  OK(zkc_latch_await(la, zkt_ms(20000)));
  char again[1100];
  OK(zkt_hold_node(zkc_latch_hold(la), again, sizeof again));
  assert_string_not_equal(again, node);
  assert_no_overlap(r);
  end_by_hand(r, 0);
  OK(zkc_latch_destroy(la));
  zkc_client_close(a);
  free(r);
}

static void bad_arguments(void **state) {
  (void)state;
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *l = (zkc_latch_t *)1;
  assert_int_equal(zkc_latch_create(&l, c, "no-slash", NULL, NULL), ZKC_EINVAL);
  assert_null(l);
  assert_int_equal(zkc_latch_create(NULL, c, "/x", NULL, NULL), ZKC_EINVAL);
  assert_int_equal(zkc_latch_create(&l, NULL, "/x", NULL, NULL), ZKC_EINVAL);
  assert_int_equal(zkc_latch_start(NULL), ZKC_EINVAL);
  assert_int_equal(zkc_latch_await(NULL, 0), ZKC_EINVAL);
  assert_false(zkc_latch_has_leadership(NULL));
  OK(zkc_latch_create(&l, c, zkt_path("election"), NULL, NULL));
  assert_string_equal(zkc_latch_path(l), zkt_path("election"));
  assert_true(strlen(zkc_latch_id(l)) > 0); /* the client's holder id */
  assert_int_equal(zkc_latch_close(l, (zkc_close_mode_t)7), ZKC_EINVAL);
  OK(zkc_latch_set_listener(l, NULL, NULL, NULL));
  OK(zkc_latch_close(l, ZKC_CLOSE_SILENT)); /* never started */
  assert_int_equal(zkc_latch_set_listener(l, NULL, NULL, NULL), ZKC_EBUSY);
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
}

struct node_watch {
  zkc_client_t *c;
  const char *node;
};

/* nw->c's session watches nw->node (the next in line also its own). */
static int watches_node(void *ctx) {
  struct node_watch *nw = ctx;
  int64_t sid;
  return zkc_client_session_id(nw->c, &sid) == ZKC_OK &&
         zkt_session_watches_path(sid, nw->node);
}

/* Queue a (leader), b, c. Another client deletes b's node while b waits;
 * c then waits on a. a leaves: only c may lead, b must queue again (b,
 * next in line, watches its own node: it queues again at once). */
static void waiter_node_deleted_then_head_leaves(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s", zkt_path("election"));
  record_t *r = malloc(sizeof *r);
  rec_init(r);
  slot_t sa = {.r = r, .idx = 0}, sb = {.r = r, .idx = 1}, sc = {.r = r, .idx = 2};
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL), *c = zkt_open(NULL);
  zkc_latch_t *la = new_latch(a, path, "a", &sa);
  OK(zkc_latch_start(la));
  OK(zkc_latch_await(la, zkt_ms(10000)));
  zkc_latch_t *lb = new_latch(b, path, "b", &sb);
  OK(zkc_latch_start(lb));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  zkc_latch_t *lc = new_latch(c, path, "c", &sc);
  OK(zkc_latch_start(lc));
  assert_true(zkt_await_children(path, 3, zkt_ms(10000)));
  char a_node[1100];
  OK(zkt_hold_node(zkc_latch_hold(la), a_node, sizeof a_node));
  zkt_participant_t *p;
  size_t n;
  char **nodes;
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, a, path));
  /* a's server may not have applied b's and c's creates yet. */
  assert_true(zkt_await_participants(m, 3, zkt_ms(10000)));
  OK(zkt_mutex_nodes(m, &nodes, &n));
  assert_int_equal(n, 3);
  assert_true(zkt_await_session_watches(b, 1, NULL, 0, zkt_ms(5000)) >= 1);
  char c_node[1100];
  snprintf(c_node, sizeof c_node, "%s", nodes[2]);
  /* c, next but one, watches a's node too (learning ahead) but not its
   * own: only the next in line does. */
  struct node_watch c_on_a = {c, a_node}, c_on_c = {c, c_node};
  assert_true(zkt_await(watches_node, &c_on_a, zkt_ms(5000)));
  assert_false(watches_node(&c_on_c));
  assert_int_equal(zoo_delete(zkt_raw(), nodes[1], -1), ZOK);
  zkt_strings_free(nodes, n);
  OK(zkc_mutex_destroy(m));
  /* b's node gone: c reads, finds a its sole blocker and proves its
   * place, its own node watched. */
  assert_true(zkt_await(watches_node, &c_on_c, zkt_ms(5000)));
  OK(zkc_latch_close(la, ZKC_CLOSE_NOTIFY_LEADER));
  OK(zkc_latch_await(lc, zkt_ms(10000)));
  assert_true(zkt_await_children(path, 2, zkt_ms(10000)));
  /* c's server has a's delete but perhaps not b's new node yet: b's old
   * one went before a's, so two seen is c and b's new one. */
  struct all_seen two = {lc, 2};
  assert_true(zkt_await(participants_seen, &two, zkt_ms(10000)));
  OK(zkt_latch_participants(lc, &p, &n));
  assert_int_equal(n, 2);
  assert_string_equal(p[0].id, "c");
  assert_string_equal(p[1].id, "b");
  zkt_participants_free(p, n);
  assert_no_overlap(r);
  assert_int_equal(sb.cb_leader, 0);
  pthread_mutex_lock(&r->mu);
  for (int i = 0; i < r->n; i++) assert_int_not_equal(r->who[i], 1);
  pthread_mutex_unlock(&r->mu);
  end_by_hand(r, 2);
  OK(zkc_latch_destroy(lb));
  OK(zkc_latch_destroy(lc));
  OK(zkc_latch_destroy(la));
  zkc_client_close(a);
  zkc_client_close(b);
  zkc_client_close(c);
  free(r);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_leader_among_five),
      cmocka_unit_test(leader_killed_successor_within_session_timeout),
      cmocka_unit_test(leader_expired_told_before_successor_leads),
      cmocka_unit_test(hundred_flaps_never_two_leaders),
      cmocka_unit_test(leader_seen_means_is_leader_told),
      cmocka_unit_test(close_notify_calls_not_leader),
      cmocka_unit_test(await_times_out),
      cmocka_unit_test(curator_latch_interop),
      cmocka_unit_test(bad_arguments),
      cmocka_unit_test(waiter_node_deleted_then_head_leaves),
      cmocka_unit_test(deleted_leadership_not_shown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "leader");
}
