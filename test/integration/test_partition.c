/* SPDX-License-Identifier: Apache-2.0 */
/* A waiter whose server is cut off from the leader must not be granted on
 * that server's frozen view (issue 37, part 1), for every recipe that
 * waits.
 *
 * A follower F whose quorum link is cut goes on answering its clients'
 * reads and pings from the state it had, until its own link to the leader
 * times out (syncLimit x tickTime), while the leader expires the sessions
 * that only F heard from. So: A holds (on server G), the waiter W queues
 * on F alone with a short session, C queues behind W (on G). W is stopped
 * (SIGSTOP); A lets go, and F applies that (the event for W waits in its
 * socket); F is cut off from the others (zk-ensemble.sh isolate: the
 * relays its quorum traffic goes through stall); the leader expires W's
 * session, deletes W's node and grants C. Then W is continued while F
 * still follows the leader in its own eyes: W's proof is old, it reads
 * again, and F answers from its frozen view that W is first. A grant there
 * is two holders. The read a grant rests on must pass through the leader
 * (a sync before it), which F cannot answer.
 *
 * W must not report a hold while C holds; once F is back and C lets go, W
 * may hold again on a new session, with a larger token. The ensemble's
 * follower detects the cut after at most 2.5 s and W's session (1 s)
 * expires in about 1.5 s: if W's session was already gone on the leader
 * at the cut, or F had already given up when W is continued, the attempt
 * proves nothing and is made again (at most three times; none conclusive
 * fails the case). Every step is awaited, none slept. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "stall.h"

#define W_SESSION_MS 1000 /* the ensemble's least: 2 ticks of 500 ms */
#define SESSION_MS 4000
#define LONG_SESSION_MS 10000 /* the ensemble's most: 20 ticks */
#define ATTEMPTS 3

typedef struct part {
  zkt_proc_t p;
  int live;
  const char *name;
  const char *hold; /* "HELD " or "LEADER " */
  int64_t sid;
  long long token;
  long long held_ns; /* a HELD line's monotonic clock, else 0 */
  int held;   /* hold lines seen */
  int parked; /* waits for SIGUSR1 at its round (ZKT_HOLDER_PARK_AT_ROUND) */
} part_t;

static part_t A, W, C;

static const char *server_at(int s) {
  static char buf[4][32];
  snprintf(buf[s], sizeof buf[s], "127.0.0.1:%d", zkt_client_port(s));
  return buf[s];
}

/* A participant in `mode` (a zkt_holder mode, or "latch"/"selector") on
 * server `server` alone. */
static void spawn(part_t *p, const char *name, const char *mode, int server,
                  const char *path, int session_ms) {
  memset(p, 0, sizeof *p);
  p->name = name;
  char session[16];
  snprintf(session, sizeof session, "%d", session_ms);
  int leader = strcmp(mode, "latch") == 0 || strcmp(mode, "selector") == 0;
  const char *bin = getenv(leader ? "ZKT_LATCH_HOLDER" : "ZKT_HOLDER");
  if (bin == NULL) fail_msg("ZKT_HOLDER / ZKT_LATCH_HOLDER is not set");
  if (leader) {
    char *argv[] = {(char *)bin, (char *)server_at(server), (char *)path,
                    (char *)name, session, NULL};
    if (strcmp(mode, "selector") == 0) setenv("ZKT_LATCH_SELECTOR", "1", 1);
    p->p = zkt_spawn(argv);
    unsetenv("ZKT_LATCH_SELECTOR");
    p->hold = "LEADER ";
  } else {
    char *argv[] = {(char *)bin, (char *)server_at(server), (char *)path,
                    session, NULL};
    setenv("ZKT_HOLDER_MODE", mode, 1);
    /* A lease waiter watches the leases' children, which "wchc" does not
     * show, and the count node, which it does. */
    if (strcmp(mode, "sem") == 0) {
      char count[600];
      snprintf(count, sizeof count, "%s-count", path);
      setenv("ZKT_HOLDER_COUNT", count, 1);
    }
    p->p = zkt_spawn(argv);
    unsetenv("ZKT_HOLDER_MODE");
    unsetenv("ZKT_HOLDER_COUNT");
    p->hold = "HELD ";
  }
  p->live = 1;
  char line[256];
  if (!zkt_expect(&p->p, "SESSION ", line, sizeof line, zkt_ms(15000)))
    fail_msg("%s did not start", name);
  p->sid = (int64_t)strtoull(line + 8, NULL, 0);
}

/* The participant's lines that are there within wait_ms; 1 when one of
 * them is a hold (its token kept). */
static int drain(part_t *p, int wait_ms) {
  int got = 0;
  char line[512];
  struct pollfd fd = {.fd = p->p.out_fd, .events = POLLIN};
  while (p->live && poll(&fd, 1, wait_ms) > 0) {
    if (!zkt_read_line(&p->p, line, sizeof line, zkt_ms(5000))) break;
    printf("%s: %s\n", p->name, line);
    if (strncmp(line, p->hold, strlen(p->hold)) == 0) {
      p->token = strtoll(line + strlen(p->hold), NULL, 10);
      long long t = 0, ns = 0;
      if (sscanf(line, "HELD %lld %*s %*d %lld", &t, &ns) == 2) p->held_ns = ns;
      p->held++;
      got = 1;
    }
    wait_ms = 0;
  }
  return got;
}

static int await_hold(part_t *p, int64_t timeout_ms) {
  int64_t end = zkt_now_ms() + timeout_ms;
  while (zkt_now_ms() < end)
    if (drain(p, 50)) return 1;
  return 0;
}

/* Ends its input (a holder lets go) and reaps it. */
static void finish(part_t *p) {
  if (!p->live) return;
  kill(p->p.pid, SIGCONT);
  if (p->parked) kill(p->p.pid, SIGUSR1);
  if (p->p.in_fd >= 0) close(p->p.in_fd);
  p->p.in_fd = -1;
  zkt_wait(&p->p, zkt_ms(10000));
  p->live = 0;
}

/* Ends its input: a holder lets go ("RELEASED"), a candidate leaves
 * ("CLOSED"); awaited, the process reaped later. */
static void let_go(part_t *p) {
  close(p->p.in_fd);
  p->p.in_fd = -1;
  char line[512];
  const char *done = strcmp(p->hold, "LEADER ") == 0 ? "CLOSED" : "RELEASED";
  if (!zkt_expect(&p->p, done, line, sizeof line, zkt_ms(10000)))
    fail_msg("%s did not let go", p->name);
}

static int watching(void *ctx) {
  return zkt_session_watches(((part_t *)ctx)->sid, NULL, 0) > 0;
}

struct watches_at_least {
  int64_t sid;
  int n;
};
static int watches_at_least(void *ctx) {
  struct watches_at_least *w = ctx;
  return zkt_session_watches(w->sid, NULL, 0) >= w->n;
}

static long long server_zxid(int s) {
  char *out = zkt_4lw(s, "srvr");
  const char *z = out ? strstr(out, "Zxid: ") : NULL;
  long long zxid = z ? strtoll(z + 6, NULL, 16) : -1;
  free(out);
  return zxid;
}

static int follows(int s) {
  char *out = zkt_4lw(s, "srvr");
  int f = out != NULL && strstr(out, "Mode: follower") != NULL;
  free(out);
  return f;
}

typedef struct caught_up {
  int server;
  long long zxid;
} caught_up_t;
static int has_applied(void *ctx) {
  caught_up_t *c = ctx;
  return server_zxid(c->server) >= c->zxid;
}

/* 1 while the leader l lists session sid among those with ephemerals. */
static int leader_lists(int l, int64_t sid) {
  char hex[32];
  snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)sid);
  char *out = zkt_4lw(l, "dump");
  int has = out != NULL && strstr(out, hex) != NULL;
  free(out);
  return has;
}

static int leader_now(void) {
  char out[64] = "";
  if (zkt_ensemble(out, sizeof out, "leader") != 0) fail_msg("no leader");
  return atoi(out);
}

/* W, in `mode` on server F alone, queued behind A: with at_round held
 * where its round starts, before the round's watches are sent (none of
 * its yet), else waiting on its watches. */
static void spawn_w(const char *mode, int F, const char *path, int session_ms,
                    int at_round) {
  if (at_round) setenv("ZKT_HOLDER_PARK_AT_ROUND", "1", 1);
  spawn(&W, "W", mode, F, path, session_ms);
  unsetenv("ZKT_HOLDER_PARK_AT_ROUND");
  char line[256];
  if (at_round) {
    W.parked = 1;
    if (!zkt_expect(&W.p, "ROUND", line, sizeof line, zkt_ms(10000)))
      fail_msg("W never reached its round");
    assert_int_equal(zkt_session_watches(W.sid, NULL, 0), 0);
  } else if (!zkt_await(watching, &W, zkt_ms(10000))) {
    fail_msg("W never waited");
  }
}

/* W let go with sig (continued, or out of its park) while F, cut off,
 * answers from its frozen view, and a moment after: it must not report a
 * hold beside C (`on`: on what it would have been granted). Then F
 * rejoins, C lets go, and W (on a new session, or queued again) may hold
 * only after C. */
static void let_w_go(int sig, int F, const char *on) {
  assert_int_equal(kill(W.p.pid, sig), 0);
  W.parked = 0;
  int64_t end = zkt_now_ms() + zkt_ms(6000);
  while (zkt_now_ms() < end && follows(F)) drain(&W, 100);
  drain(&W, (int)zkt_ms(500));
  if (W.held)
    fail_msg("W was granted beside C (token %lld) through zk%d, cut off from "
             "the leader%s: two holders", C.token, F, on);

  if (zkt_ensemble(NULL, 0, "rejoin %d", F) != 0) fail_msg("rejoin failed");
  long long c_token = C.token;
  finish(&C);
  if (await_hold(&W, zkt_ms(30000)) && W.token <= c_token)
    fail_msg("W's later hold has token %lld, not after C's %lld", W.token,
             c_token);
  finish(&W);
}

/* One attempt; 1 when it was conclusive (W continued while F still
 * followed in its own eyes). With `at_round`, W's acquiring thread is held
 * where its round on A starts, before the round's watches are sent
 * (zkt_holder's ZKT_HOLDER_PARK_AT_ROUND), while its client's threads keep
 * the connection to F up: let go, it sends them to F, which answers from
 * its frozen view that A is gone and W's node is there. */
static int attempt(const char *mode, int n, int at_round) {
  char leaf[32];
  snprintf(leaf, sizeof leaf, "lock%d", n);
  const char *path = zkt_path(leaf);
  int L = leader_now(), F = L % 3 + 1, G = F % 3 + 1;
  printf("attempt %d: leader zk%d, W on follower zk%d, A and C on zk%d\n", n,
         L, F, G);

  spawn(&A, "A", mode, G, path, SESSION_MS);
  if (!await_hold(&A, zkt_ms(15000))) fail_msg("A was not granted");
  int st = 0;
  spawn_w(mode, F, path, W_SESSION_MS, at_round);
  spawn(&C, "C", mode, G, path, SESSION_MS);
  if (!zkt_await(watching, &C, zkt_ms(10000))) fail_msg("C never waited");
  assert_int_equal(W.held + C.held, 0);

  if (!at_round) {
    assert_int_equal(kill(W.p.pid, SIGSTOP), 0);
    assert_int_equal(waitpid(W.p.pid, &st, WUNTRACED), W.p.pid);
  }
  let_go(&A); /* W's event goes to its socket */
  caught_up_t cu = {F, server_zxid(L)};
  if (!zkt_await(has_applied, &cu, zkt_ms(10000)))
    fail_msg("zk%d never applied A's release", F);
  if (zkt_ensemble(NULL, 0, "isolate %d", F) != 0) fail_msg("isolate failed");
  int64_t cut = zkt_now_ms();
  /* W's session still alive on the leader after the cut: its expiry is
   * after it, and F cannot have applied that. */
  int alive_at_cut = leader_lists(L, W.sid);

  /* The leader expires W's session: W's node goes, and C is granted. */
  if (!await_hold(&C, zkt_ms(15000))) fail_msg("C was not granted");
  int conclusive = alive_at_cut && follows(F);
  printf("C granted %lld ms after the cut; W's session %s at the cut; zk%d "
         "%s\n", (long long)(zkt_now_ms() - cut),
         alive_at_cut ? "alive" : "already gone", F,
         follows(F) ? "still follows: W continued now" : "gave up already");
  let_w_go(at_round ? SIGUSR1 : SIGCONT, F, "");
  return conclusive;
}

/* An attempt (mode, its number, at_round) made until one is conclusive. */
typedef int (*attempt_fn)(const char *mode, int n, int at_round);
static void until_conclusive(attempt_fn fn, const char *mode, int at_round) {
  int conclusive = 0;
  for (int n = 1; n <= ATTEMPTS && !conclusive; n++) {
    conclusive = fn(mode, n, at_round);
    if (!conclusive && zkt_restore_ensemble() != 0)
      fail_msg("the ensemble did not come back");
  }
  if (!conclusive)
    fail_msg("in %d attempts the follower always gave up before W was "
             "continued: nothing was shown", ATTEMPTS);
}

static void cut_follower_at(const char *mode, int at_round) {
  until_conclusive(attempt, mode, at_round);
}

static void cut_follower(const char *mode) { cut_follower_at(mode, 0); }

/* Deletes, through zh, the child of path owned by session sid. */
static void delete_node_of(zhandle_t *zh, const char *path, int64_t sid) {
  struct String_vector kids = {0, NULL};
  assert_int_equal(zoo_get_children(zh, path, 0, &kids), ZOK);
  int deleted = 0;
  for (int i = 0; i < kids.count && !deleted; i++) {
    char node[1100];
    struct Stat st;
    snprintf(node, sizeof node, "%s/%s", path, kids.data[i]);
    if (zoo_exists(zh, node, 0, &st) == ZOK && st.ephemeralOwner == sid) {
      assert_int_equal(zoo_delete(zh, node, -1), ZOK);
      printf("outsider deleted %s\n", node);
      deleted = 1;
    }
  }
  deallocate_String_vector(&kids);
  if (!deleted) fail_msg("no node of session 0x%llx under %s",
                         (unsigned long long)sid, path);
}

/* The deleted-node case's outsider session, open until the attempt (or,
 * after a failure, the teardown) closes it. */
static zhandle_t *outsider;

/* A stop long enough to be seen (stall.h): begun at stopped_since. */
static int64_t stopped_since;
static int stopped_long_enough(void *ctx) {
  (void)ctx;
  return zkt_now_ms() - stopped_since > 2 * ZKC__STALL_MS;
}

/* W on F alone, its session alive throughout (10 s, the servers'
 * longest), queued behind A (on G) with C behind it; A lets go, F applies
 * that and is cut off; an outsider deletes W's node and C is granted. W
 * is held where it would be granted on F's frozen view, A gone and W's
 * node there, a node already gone, beside C:
 *  - at_round: its acquiring thread parked where its round on A starts,
 *    before the round's watches are sent, its client's threads keeping
 *    the connection up. Let go, it sends them to F. Behind the round's sync
 *    F answers nothing. (A round resting on W's create, fresh and a pass
 *    through the leader, was reviewed to make exactly this grant: the
 *    create proves the session alive, not that F has applied what came
 *    after it.)
 *  - else: its round set (its node's watch and A's), the whole process
 *    stopped, longer than a stall; A's delete event waits in its socket.
 *    Continued, W reads it: A went while W's node was there, true of the
 *    ensemble's history, and F, frozen, tells nothing after it. Granted on
 *    it before the stall watch (two holders in three attempts of three);
 *    now the stop voids the round's proof, and W reads again behind a
 *    sync, which F cannot answer. */
static int deleted_attempt(const char *mode, int n, int at_round) {
  char leaf[32];
  snprintf(leaf, sizeof leaf, "%slock%d", at_round ? "d" : "s", n);
  const char *path = zkt_path(leaf);
  int L = leader_now(), F = L % 3 + 1, G = F % 3 + 1;
  printf("attempt %d: leader zk%d, W on follower zk%d, A, C and the "
         "outsider on zk%d\n", n, L, F, G);
  spawn(&A, "A", mode, G, path, SESSION_MS);
  if (!await_hold(&A, zkt_ms(15000))) fail_msg("A was not granted");
  spawn_w(mode, F, path, LONG_SESSION_MS, at_round);
  spawn(&C, "C", mode, G, path, SESSION_MS);
  if (!zkt_await(watching, &C, zkt_ms(10000))) fail_msg("C never waited");
  if (!at_round) {
    struct watches_at_least round = {W.sid, 2};
    if (!zkt_await(watches_at_least, &round, zkt_ms(10000)))
      fail_msg("W never set its round");
    int st = 0;
    assert_int_equal(kill(W.p.pid, SIGSTOP), 0);
    assert_int_equal(waitpid(W.p.pid, &st, WUNTRACED), W.p.pid);
    stopped_since = zkt_now_ms();
  }
  outsider = zkt_raw_on(G);

  let_go(&A);
  caught_up_t cu = {F, server_zxid(L)};
  if (!zkt_await(has_applied, &cu, zkt_ms(10000)))
    fail_msg("zk%d never applied A's release", F);
  if (zkt_ensemble(NULL, 0, "isolate %d", F) != 0) fail_msg("isolate failed");
  int64_t cut = zkt_now_ms();
  delete_node_of(outsider, path, W.sid);
  if (!await_hold(&C, zkt_ms(15000))) fail_msg("C was not granted");
  zookeeper_close(outsider);
  outsider = NULL;
  if (!at_round && !zkt_await(stopped_long_enough, NULL, zkt_ms(10000)))
    fail_msg("the clock did not move");
  int conclusive = follows(F);
  printf("C granted %lld ms after the cut; zk%d %s\n",
         (long long)(zkt_now_ms() - cut), F,
         conclusive ? "still follows: W let go now" : "gave up already");
  let_w_go(at_round ? SIGUSR1 : SIGCONT, F,
           at_round ? ", on its node an outsider had deleted"
                    : ", on the event of A's delete, its node deleted after it");
  finish(&A);
  return conclusive;
}

static void mutex_waiter_node_deleted_before_its_watches(void **state) {
  (void)state;
  until_conclusive(deleted_attempt, "mutex", 1);
}

static void mutex_waiter_stopped_after_its_event(void **state) {
  (void)state;
  until_conclusive(deleted_attempt, "mutex", 0);
}

/* The holder's side: H holds on F alone and reads the data its lock
 * protects with zkc_hold_fenced_get. F is cut off; the leader expires H's
 * session (H hears nothing wrong: F answers its pings), C takes the lock
 * and writes. H's read must not return F's frozen data, written before C:
 * it goes behind a sync, which F cannot answer. */
static int fenced_attempt(int n) {
  char leaf[32];
  snprintf(leaf, sizeof leaf, "lock%d", n);
  char path[600], data[620];
  snprintf(path, sizeof path, "%s", zkt_path(leaf));
  snprintf(data, sizeof data, "%s-data", path);
  int L = leader_now(), F = L % 3 + 1, G = F % 3 + 1;
  printf("attempt %d: leader zk%d, H on follower zk%d, C on zk%d\n", n, L, F,
         G);
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = W_SESSION_MS;
  zkc_client_t *h = NULL, *c = NULL;
  assert_int_equal(zkc_client_open(&h, server_at(F), &o), ZKC_OK);
  o.session_timeout_ms = SESSION_MS;
  assert_int_equal(zkc_client_open(&c, server_at(G), &o), ZKC_OK);
  zkc_mutex_t *hm = NULL, *cm = NULL;
  assert_int_equal(zkc_mutex_create(&hm, h, path), ZKC_OK);
  assert_int_equal(zkc_mutex_create(&cm, c, path), ZKC_OK);
  assert_int_equal(zkc_mutex_acquire_timeout(hm, zkt_ms(10000)), ZKC_OK);
  assert_int_equal(zkc_hold_fenced_create(zkc_mutex_hold(hm), data, "H", 1), ZKC_OK);
  int64_t hsid = 0;
  assert_int_equal(zkc_client_session_id(h, &hsid), ZKC_OK);

  if (zkt_ensemble(NULL, 0, "isolate %d", F) != 0) fail_msg("isolate failed");
  int alive_at_cut = leader_lists(L, hsid);
  /* C is granted once the leader has expired H, and writes. */
  assert_int_equal(zkc_mutex_acquire_timeout(cm, zkt_ms(15000)), ZKC_OK);
  assert_int_equal(zkc_hold_fenced_set(zkc_mutex_hold(cm), data, "C", 1), ZKC_OK);
  int conclusive = alive_at_cut && follows(F);
  printf("C holds and wrote; H's session %s at the cut; zk%d %s\n",
         alive_at_cut ? "alive" : "already gone", F,
         follows(F) ? "still follows: H reads now" : "gave up already");
  char *got = NULL;
  size_t len = 0;
  int32_t version = 0;
  int rc = zkc_hold_fenced_get(zkc_mutex_hold(hm), data, &got, &len, &version);
  printf("H's fenced read: %s%s%.*s\n", zkc_strerror(rc), got ? ", data " : "",
         got ? (int)len : 0, got ? got : "");
  int stale = rc == ZKC_OK && got != NULL && len == 1 && got[0] == 'H';
  free(got);
  if (zkt_ensemble(NULL, 0, "rejoin %d", F) != 0) fail_msg("rejoin failed");
  assert_int_equal(zkc_mutex_release(cm), ZKC_OK);
  (void)zkc_mutex_release(hm); /* lost with its session */
  zkc_mutex_destroy(hm);
  zkc_mutex_destroy(cm);
  zkc_client_close(h);
  zkc_client_close(c);
  zkt_delete_tree(data);
  if (stale)
    fail_msg("H read its own data through zk%d, cut off from the leader, "
             "after C had written: a stale read under a lost hold", F);
  return conclusive;
}

static void fenced_read_on_cut_follower(void **state) {
  (void)state;
  int conclusive = 0;
  for (int n = 1; n <= ATTEMPTS && !conclusive; n++) {
    conclusive = fenced_attempt(n);
    if (!conclusive && zkt_restore_ensemble() != 0)
      fail_msg("the ensemble did not come back");
  }
  if (!conclusive)
    fail_msg("in %d attempts the follower always gave up before H read: "
             "nothing was shown", ATTEMPTS);
}

/* ---- a hold on a follower cut off right after its grant (issue 54) ----
 *
 * The leader expires a session one timeout after it last renewed it, and
 * it renews the session of a follower's client only when that follower
 * reports it, in its replies to the leader's pings. A sync through the
 * leader proves the session alive, not renewed. So a holder on F, cut off
 * from the leader right after its grant, may be expired by the leader well
 * before F gives up (syncLimit x tickTime, 2.5 s here) and tells it: the
 * next in line is granted while the holder, untold, still holds. Two
 * schedules: W stopped past half its session while its predecessor lets
 * go, continued, proving its place through the leader and granted (its
 * last renewal at the leader is from before the stop); and W granted
 * without a stop, its session short beside F's 2.5 s (the leader's last
 * renewal may be a third of a session and a ping interval before the
 * cut). W must be told (its state leaves CONNECTED, or the hold is lost)
 * before X, next behind it, is granted, in every attempt. An attempt shows
 * the rule when W held, was cut off, and either F still followed when X
 * was granted or W was told before F can have given up (F's own giving up
 * tells W too, proving nothing); else it is made again. */

/* The monotonic time in ns a line of W's tells the hold in doubt or lost,
 * else 0; the HELD line's time into *held_ns. */
static long long told_ns(const char *line, long long *held_ns) {
  long long a = 0, b = 0, ns = 0;
  char name[32];
  if (sscanf(line, "HELD %lld %*s %lld %lld", &a, &b, &ns) == 3)
    *held_ns = ns;
  else if (sscanf(line, "STATE %lld %31s %lld", &a, name, &ns) == 3 &&
           strcmp(name, "CONNECTED") != 0 && strcmp(name, "RECONNECTED") != 0)
    return ns;
  else if (sscanf(line, "LOST %lld %lld %lld", &a, &b, &ns) == 3)
    return ns;
  return 0;
}

/* W's lines within wait_ms: its hold's time (*held_ns), and the first
 * time it was told of doubt or loss after that (*told, once set). */
static void read_w(int wait_ms, long long *held_ns, long long *told) {
  char line[512];
  struct pollfd fd = {.fd = W.p.out_fd, .events = POLLIN};
  while (W.live && poll(&fd, 1, wait_ms) > 0) {
    if (!zkt_read_line(&W.p, line, sizeof line, zkt_ms(5000))) break;
    printf("W: %s\n", line);
    long long t = told_ns(line, held_ns);
    if (*held_ns && t > 0 && *told == 0) *told = t;
    wait_ms = 0;
  }
}

/* One attempt with W's session w_ms, stopped stop_ms (0: not) while A lets
 * go; 1 when conclusive. */
static int cut_after_grant_attempt(const char *mode, int n, int w_ms,
                                   int stop_ms) {
  char leaf[32];
  snprintf(leaf, sizeof leaf, "glock%d", n);
  const char *path = zkt_path(leaf);
  int L = leader_now(), F = L % 3 + 1, G = F % 3 + 1;
  printf("attempt %d: %s; leader zk%d, W (session %d ms%s) on follower zk%d, "
         "A and X on zk%d\n", n, mode, L, w_ms, stop_ms ? ", stopped" : "", F,
         G);
  spawn(&A, "A", mode, G, path, SESSION_MS);
  if (!await_hold(&A, zkt_ms(15000))) fail_msg("A was not granted");
  spawn_w(mode, F, path, w_ms, 0);
  spawn(&C, "X", mode, G, path, SESSION_MS);
  if (!zkt_await(watching, &C, zkt_ms(10000))) fail_msg("X never waited");

  long long stopped = 0;
  if (stop_ms) {
    int st = 0;
    assert_int_equal(kill(W.p.pid, SIGSTOP), 0);
    assert_int_equal(waitpid(W.p.pid, &st, WUNTRACED), W.p.pid);
    stopped = zkt_now_ns();
  }
  let_go(&A);
  if (stop_ms) {
    caught_up_t cu = {F, server_zxid(L)};
    if (!zkt_await(has_applied, &cu, zkt_ms(10000)))
      fail_msg("zk%d never applied A's release", F);
    /* The stop's length is the fault itself, not a wait for a condition. */
    long long left_ms = stop_ms - (zkt_now_ns() - stopped) / 1000000;
    if (left_ms > 0) poll(NULL, 0, (int)left_ms);
    assert_int_equal(kill(W.p.pid, SIGCONT), 0);
  }
  long long held = 0, told = 0;
  int64_t end = zkt_now_ms() + zkt_ms(3 * w_ms + 5000);
  while (!held && W.live && zkt_now_ms() < end) read_w(50, &held, &told);
  if (!held) {
    printf("W was not granted (its session ended first): nothing shown\n");
    finish(&C);
    finish(&W);
    return 0;
  }
  if (zkt_ensemble(NULL, 0, "isolate %d", F) != 0) fail_msg("isolate failed");
  long long cut = zkt_now_ns();
  printf("W granted %lld ms after its stop ended; zk%d cut %.1f ms after "
         "the grant\n", stop_ms ? (held - stopped) / 1000000 - stop_ms : 0LL,
         F, (cut - held) / 1e6);

  /* X is granted once the leader has expired W. */
  if (!await_hold(&C, zkt_ms(15000))) fail_msg("X was not granted");
  long long x_held = C.held_ns ? C.held_ns : zkt_now_ns(); /* X's own clock */
  int following = follows(F);
  read_w(0, &held, &told);
  /* Told by its own client, not by F giving up (syncLimit x tickTime,
   * 2.5 s, after the cut at the earliest). */
  int told_early = told != 0 && told - cut < 2000000000LL;
  int conclusive = following || told_early;
  printf("X granted %.0f ms after the cut; W told %s%.0f ms after the cut; "
         "zk%d %s at X's grant\n", (x_held - cut) / 1e6,
         told ? "" : "nothing by then: ", told ? (told - cut) / 1e6 : 0.0, F,
         following ? "still followed" : "had given up");
  /* Whatever told W, and whenever F gave up: W untold at X's grant is two
   * holders. */
  if (told == 0 || told > x_held)
    fail_msg("X was granted while W, on zk%d cut off from the leader, held "
             "untold: two holders", F);
  if (zkt_ensemble(NULL, 0, "rejoin %d", F) != 0) fail_msg("rejoin failed");
  finish(&C);
  finish(&W);
  finish(&A);
  return conclusive;
}

static void cut_after_grant(const char *mode, int w_ms, int stop_ms) {
  int conclusive = 0;
  for (int n = 1; n <= ATTEMPTS && !conclusive; n++) {
    conclusive = cut_after_grant_attempt(mode, n, w_ms, stop_ms);
    if (!conclusive && zkt_restore_ensemble() != 0)
      fail_msg("the ensemble did not come back");
  }
  if (!conclusive)
    fail_msg("in %d attempts W was never granted and cut off while its "
             "follower still followed: nothing was shown", ATTEMPTS);
}

/* Stopped past half its session (4 s) while A let go: granted on a proof
 * through the leader after the stop, then cut off. */
static void mutex_holder_cut_after_reproof(void **state) {
  (void)state;
  cut_after_grant("mutex", SESSION_MS, SESSION_MS * 11 / 20);
}

/* No stop: a 2 s session, shorter than F's 2.5 s to give up. */
static void mutex_holder_cut_after_grant(void **state) {
  (void)state;
  cut_after_grant("mutex", 2000, 0);
}

/* The same for a lease (the lease run's grant) and an asynchronous
 * acquire (the engine thread's). */
static void sem_holder_cut_after_reproof(void **state) {
  (void)state;
  cut_after_grant("sem", SESSION_MS, SESSION_MS * 11 / 20);
}
static void async_holder_cut_after_grant(void **state) {
  (void)state;
  cut_after_grant("async", 2000, 0);
}

static int partition_teardown(void **state) {
  if (outsider) zookeeper_close(outsider); /* a failure left it open */
  outsider = NULL;
  finish(&A);
  finish(&W);
  finish(&C);
  zkt_close_open_clients(); /* before the wait: see open_clients.c */
  int rc = zkt_restore_ensemble();
  return zkt_teardown(state) != 0 || rc != 0 ? -1 : 0;
}

static void mutex_waiter_on_cut_follower(void **state) {
  (void)state;
  cut_follower("mutex");
}
/* W held between the read that showed A ahead and the watches of its
 * round (the randomized fault test found the grant this makes when the
 * watches' answers are taken without a sync). */
static void mutex_waiter_held_before_its_watches(void **state) {
  (void)state;
  cut_follower_at("mutex", 1);
}

static void writer_on_cut_follower(void **state) {
  (void)state;
  cut_follower("write");
}
static void async_waiter_on_cut_follower(void **state) {
  (void)state;
  cut_follower("async");
}
static void multilock_waiter_on_cut_follower(void **state) {
  (void)state;
  cut_follower("multi");
}
static void sem_waiter_on_cut_follower(void **state) {
  (void)state;
  cut_follower("sem");
}
static void latch_candidate_on_cut_follower(void **state) {
  (void)state;
  cut_follower("latch");
}
static void selector_candidate_on_cut_follower(void **state) {
  (void)state;
  cut_follower("selector");
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(mutex_waiter_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(mutex_waiter_held_before_its_watches,
                                partition_teardown),
      cmocka_unit_test_teardown(mutex_waiter_node_deleted_before_its_watches,
                                partition_teardown),
      cmocka_unit_test_teardown(mutex_waiter_stopped_after_its_event,
                                partition_teardown),
      cmocka_unit_test_teardown(writer_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(async_waiter_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(multilock_waiter_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(sem_waiter_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(latch_candidate_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(selector_candidate_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(fenced_read_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(mutex_holder_cut_after_reproof, partition_teardown),
      cmocka_unit_test_teardown(mutex_holder_cut_after_grant, partition_teardown),
      cmocka_unit_test_teardown(sem_holder_cut_after_reproof, partition_teardown),
      cmocka_unit_test_teardown(async_holder_cut_after_grant, partition_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "partition");
}
