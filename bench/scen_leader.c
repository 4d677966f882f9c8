/* SPDX-License-Identifier: Apache-2.0 */
/* Scenario l: leader election hand-off (issue 28, part 4), beside Curator's
 * LeaderLatch and LeaderSelector and the raw chain in the same rounds.
 *
 * Graceful (two sessions of this process, the same 5 ms pause as scenario
 * g before every release):
 *   latch:    the leader's zkc_latch_close call -> the candidate latch's
 *             is_leader callback;
 *   selector: the leader's take_leadership returning (stamped just before
 *             its return) -> the next selector's take_leadership call;
 *   raw:      a plain delete call -> the watcher's callback on another
 *             session, and -> a thread woken by it (scenario g's chain).
 * Crash, for each recipe: the leader (a latch that won, or a selector in
 * take_leadership, which blocks there) runs in a child process (session
 * timeout CRASH_SESSION_MS, the candidate's the same) and is killed with
 * SIGKILL; this process stamps the kill and its candidate's is_leader or
 * take_leadership call, so no clock crosses a process.
 *
 * Curator (bench/peers/CuratorLeaderPeer.java, run through the command in
 * $ZKC_CURATOR_LEADER, which bench/run.sh sets) runs the same hand-offs
 * right after each zkcoord round; ratios are taken per round. The peer
 * prints its System.nanoTime() first: this process checks that it lies
 * between its CLOCK_MONOTONIC readings around the peer's start (on Linux
 * both read CLOCK_MONOTONIC). Without the variable (and in --quick runs)
 * Curator is skipped and so is the crash part. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define CRASH_SESSION_MS 4000
#define US(ns) ((double)(ns) / 1e3)

/* One condition for the whole scenario: callbacks stamp and signal. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

typedef struct stamp {
  int64_t at; /* when the callback ran; 0 = not yet */
} stamp_t;

static void stamp_now(stamp_t *s) {
  int64_t t = now_ns();
  pthread_mutex_lock(&mu);
  s->at = t;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
}

/* The latch's is_leader and a crash candidate selector's take_leadership
 * (which then returns): both stamp. */
static void on_leader(void *ctx, zkc_latch_t *latch) {
  (void)latch;
  stamp_now(ctx);
}

static void on_taken(void *ctx, zkc_selector_t *sel) {
  (void)sel;
  stamp_now(ctx);
}

static void wait_stamp(stamp_t *s) {
  pthread_mutex_lock(&mu);
  while (s->at == 0) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

static zkc_client_t *open_with_timeout(int session_ms) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = session_ms;
  zkc_client_t *c;
  zkc_check(zkc_client_open(&c, cfg.connect, &o), "zkc_client_open");
  return c;
}

static zkc_latch_t *latch_on(zkc_client_t *c, const char *path, stamp_t *s) {
  zkc_latch_opts_t o;
  zkc_latch_opts_init(&o);
  o.is_leader = on_leader;
  o.ctx = s;
  zkc_latch_t *l;
  zkc_check(zkc_latch_create(&l, c, path, NULL, &o), "latch_create");
  zkc_check(zkc_latch_start(l), "latch_start");
  return l;
}

/* A started selector (auto_requeue as asked). */
static zkc_selector_t *selector_on(zkc_client_t *c, const char *path,
                                   zkc_selector_fn fn, void *ctx, int requeue) {
  zkc_selector_opts_t o;
  zkc_selector_opts_init(&o);
  o.auto_requeue = requeue;
  zkc_selector_t *s;
  zkc_check(zkc_selector_create(&s, c, path, fn, ctx, &o), "selector_create");
  zkc_check(zkc_selector_start(s), "selector_start");
  return s;
}

static void wait_children(zhandle_t *zh, const char *path, int n) {
  while (raw_children_count(zh, path) != n) sleep_ms(1);
}

/* ---- the selector: take_leadership waits to be told to return ---- */
typedef struct turn {
  int leader;      /* index of the selector in take_leadership, or -1 */
  int go;          /* the leader is to return */
  int quit;        /* return at once (the end) */
  long turns;      /* take_leadership calls so far */
  int64_t t_in;    /* the last call */
  int64_t t_ret;   /* the last return */
} turn_t;
static turn_t turn = {.leader = -1};
static int sel_index[2] = {0, 1};

static void take_leadership(void *ctx, zkc_selector_t *sel) {
  int64_t t = now_ns();
  int me = *(int *)ctx;
  pthread_mutex_lock(&mu);
  turn.t_in = t;
  turn.leader = me;
  turn.turns++;
  pthread_cond_broadcast(&cv);
  while (!turn.go && !turn.quit && !zkc_selector_should_stop(sel)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 20 * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&cv, &mu, &until);
  }
  turn.go = 0;
  turn.leader = -1;
  turn.t_ret = now_ns();
  pthread_mutex_unlock(&mu);
}

/* ---- the raw chain (as scenario g) ---- */
/* One raw hand-off: *cb = delete call -> watcher callback, *woken = ->
 * the waiting thread wakes (µs). */
static void raw_chain(zhandle_t *x, zhandle_t *y, const char *node, double *cb,
                      double *woken) {
  static raw_event_t ev = RAW_EVENT_INIT;
  int rc;
  while (raw_transient(rc = zoo_create(x, node, "x", 1, &ZOO_OPEN_ACL_UNSAFE,
                                       ZOO_EPHEMERAL, NULL, 0)))
    sleep_ms(50);
  if (rc == ZNODEEXISTS) rc = ZOK;
  struct Stat st;
  raw_event_arm(&ev);
  while (rc == ZOK &&
         (rc = zoo_wexists(y, node, raw_on_deleted, &ev, &st)) == ZNONODE) {
    sleep_ms(1);
    rc = ZOK;
  }
  sleep_ms(5);
  int64_t t0 = now_ns();
  if (rc == ZOK) rc = zoo_delete(x, node, -1);
  if (rc != ZOK) die("raw chain: %s", zerror(rc));
  raw_event_wait(&ev);
  int64_t t1 = now_ns();
  *cb = US(ev.at - t0);
  *woken = US(t1 - t0);
}

/* ---- Curator: runs the peer, collects its samples ---- */
/* The peer's sample kinds (its S lines); C_CRASH + recipe is a crash. */
enum { C_LATCH, C_SEL, C_CRASH, C_CRASH_SEL, C_COUNT };
static const char *const c_kind[C_COUNT] = {"latch", "selector", "crash",
                                            "crash-selector"};
static int curator_clock_ok = 1, curator_clock_checked;

/* Runs `$ZKC_CURATOR_LEADER CONNECT ROOT MODE N SESSION_MS`; adds the
 * samples (µs) of its S lines. Returns 0 when the peer failed. */
static int curator_run(const char *mode, int n, const char *root,
                       samples_t out[C_COUNT]) {
  const char *cmd0 = getenv("ZKC_CURATOR_LEADER");
  if (cmd0 == NULL || *cmd0 == '\0') return 0;
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s '%s' '%s' %s %d %d", cmd0, cfg.connect, root,
           mode, n, CRASH_SESSION_MS);
  int64_t before = now_ns();
  FILE *p = popen(cmd, "r");
  if (p == NULL) return 0;
  char line[256];
  int got = 0;
  while (fgets(line, sizeof line, p)) {
    char what[32];
    double v;
    long long ns;
    if (sscanf(line, "N,%lld", &ns) == 1) {
      int64_t after = now_ns();
      int ok = ns >= before && ns <= after;
      if (!ok)
        fprintf(stderr, "zkc_bench l: Java nanoTime %lld outside [%lld, %lld]\n",
                ns, (long long)before, (long long)after);
      curator_clock_ok &= ok;
      curator_clock_checked = 1;
    } else if (sscanf(line, "S,%31[^,],%lf", what, &v) == 2) {
      for (int k = 0; k < C_COUNT; k++)
        if (strcmp(what, c_kind[k]) == 0) {
          samples_add(&out[k], v);
          got++;
        }
    }
  }
  int st = pclose(p);
  if (st != 0 || got == 0) {
    fprintf(stderr, "zkc_bench l: Curator peer failed (%s %d)\n", mode, st);
    return 0;
  }
  return 1;
}

/* ---- the crash child: leads, says so, waits to be killed ---- */
enum { LATCH, SELECTOR, RECIPES };
static const char *const recipe_name[RECIPES] = {"latch", "selector"};

static __attribute__((noreturn)) void lead_until_killed(void) {
  printf("leader\n");
  fflush(stdout);
  for (;;) pause();
}

static void take_and_hold(void *ctx, zkc_selector_t *sel) {
  (void)ctx, (void)sel;
  lead_until_killed();
}

/* --leader-child PATH latch|selector */
int leader_child(int argc, char **argv) {
  if (argc < 2) die("--leader-child PATH latch|selector");
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  zkc_client_t *c = open_with_timeout(CRASH_SESSION_MS);
  if (strcmp(argv[1], recipe_name[SELECTOR]) == 0) {
    selector_on(c, argv[0], take_and_hold, NULL, 0);
    for (;;) pause();
  }
  stamp_t s = {0};
  zkc_latch_t *l = latch_on(c, argv[0], &s);
  zkc_check(zkc_latch_await(l, -1), "latch_await");
  lead_until_killed();
}

/* A zkcoord crash round of a recipe: µs from the kill to the candidate's
 * is_leader (latch) or take_leadership call (selector). */
static double zkc_crash(zkc_client_t *obs, zhandle_t *zh, const char *path,
                        int recipe, unsigned *seed) {
  int fds[2];
  if (pipe(fds) != 0) die("pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]), close(fds[1]);
    execl(cfg.self, cfg.self, "--leader-child", path, recipe_name[recipe],
          (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  FILE *f = fdopen(fds[0], "r");
  char line[64];
  if (fgets(line, sizeof line, f) == NULL || strncmp(line, "leader", 6) != 0)
    die("crash child did not lead");
  stamp_t s = {0};
  zkc_latch_t *cand = recipe == LATCH ? latch_on(obs, path, &s) : NULL;
  zkc_selector_t *csel =
      recipe == SELECTOR ? selector_on(obs, path, on_taken, &s, 0) : NULL;
  wait_children(zh, path, 2);
  /* The kill falls at a uniform phase of the child's ping cycle (a third
   * of its session), a whole cycle after it led: how long before the kill
   * the server last heard from it then does not depend on how long this
   * side took to set up its candidate (which differs between libraries). */
  const int ping_ms = CRASH_SESSION_MS / 3;
  sleep_ms(ping_ms + (int)(rand_r(seed) % (unsigned)ping_ms));
  int64_t t0 = now_ns();
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  fclose(f);
  wait_stamp(&s);
  double us = US(s.at - t0);
  zkc_check(zkc_latch_destroy(cand), "latch_destroy");
  zkc_check(zkc_selector_destroy(csel), "selector_destroy");
  return us;
}

/* One recipe's crash rounds: kill -> next leader (µs), per library. */
typedef struct crash {
  samples_t z, c;
  double ratio[64]; /* zkcoord/Curator, per round pair */
  int nratio;
} crash_t;

/* The crash records of a recipe; the latch's labels carry no recipe name
 * (as before the selector's were added, so that runs compare). */
static void emit_crash(int recipe, crash_t *cr, double limit) {
  const char *pre = recipe == LATCH ? "" : "selector ";
  char measure[160];
  double v[64];
  if (cr->z.n == 0) return;
  snprintf(measure, sizeof measure, "%scrash: SIGKILL to next leader (session %d ms)",
           pre, CRASH_SESSION_MS);
  for (size_t i = 0; i < cr->z.n; i++) v[i] = cr->z.v[i] / 1e3;
  emit("l", 2, measure, "zkcoord", "ms", v, (int)cr->z.n);
  if (cr->c.n) {
    for (size_t i = 0; i < cr->c.n; i++) v[i] = cr->c.v[i] / 1e3;
    emit("l", 2, measure, "curator", "ms", v, (int)cr->c.n);
    emit("l", 2, measure, "zkcoord/curator", "x", cr->ratio, cr->nratio);
  }
  double z50 = samples_quantile(&cr->z, 0.5) / 1e3;
  double z99 = samples_quantile(&cr->z, 0.99) / 1e3;
  snprintf(measure, sizeof measure, "%scrash p99 over %zu rounds", pre, cr->z.n);
  emit("l", 2, measure, "zkcoord", "ms", &z99, 1);
  if (cr->c.n) {
    double c99 = samples_quantile(&cr->c, 0.99) / 1e3;
    snprintf(measure, sizeof measure, "%scrash p99 over %zu rounds", pre, cr->c.n);
    emit("l", 2, measure, "curator", "ms", &c99, 1);
  }
  snprintf(measure, sizeof measure,
           "%scrash p50 (ms) <= session timeout + raw hand-off p50", pre);
  emit_target("l", measure, z50, "<=", limit);
  snprintf(measure, sizeof measure,
           "%scrash p99 (ms) <= session timeout + raw hand-off p50", pre);
  emit_target("l", measure, z99, "<=", limit);
}

enum { Z_LATCH, Z_SEL, R_CB, R_WOKEN, M_COUNT };

void scen_leader(void) {
  const int per_round = cfg.quick ? 10 : 20;
  const int crash_rounds = cfg.quick ? 0 : 10;
  char lpath[200], spath[200], node[220], cpath[RECIPES][200], croot[200];
  snprintf(lpath, sizeof lpath, "%s/l/latch", cfg.root);
  snprintf(spath, sizeof spath, "%s/l/selector", cfg.root);
  snprintf(node, sizeof node, "%s/l/raw", cfg.root);
  snprintf(cpath[LATCH], sizeof cpath[LATCH], "%s/l/crash", cfg.root);
  snprintf(cpath[SELECTOR], sizeof cpath[SELECTOR], "%s/l/crash-selector", cfg.root);
  snprintf(croot, sizeof croot, "%s/l/curator", cfg.root);
  zhandle_t *inspect = raw_open(), *x = raw_open(), *y = raw_open();
  raw_ensure(inspect, lpath);
  raw_ensure(inspect, spath);
  for (int i = 0; i < RECIPES; i++) raw_ensure(inspect, cpath[i]);
  zkc_client_t *c[2] = {open_with_timeout(CRASH_SESSION_MS),
                        open_with_timeout(CRASH_SESSION_MS)};
  int have_curator = !cfg.quick && getenv("ZKC_CURATOR_LEADER") != NULL &&
                     *getenv("ZKC_CURATOR_LEADER") != '\0';

  /* The selectors: both requeue after each turn; one leads at a time. */
  zkc_selector_t *sel[2];
  for (int i = 0; i < 2; i++)
    sel[i] = selector_on(c[i], spath, take_leadership, &sel_index[i], 1);

  double p50[M_COUNT][64], p99[M_COUNT][64], cur50[2][64], cur99[2][64];
  int curator_rounds = 0;
  samples_t all[M_COUNT] = {{0}}, call[C_COUNT] = {{0}};
  stamp_t st[2] = {{0}};
  int holder = 0;
  zkc_latch_t *lead = latch_on(c[0], lpath, &st[0]);
  zkc_check(zkc_latch_await(lead, -1), "latch_await");
  for (int r = 0; r < cfg.rounds; r++) {
    samples_t s[M_COUNT] = {{0}};
    for (int k = 0; k < per_round; k++) {
      /* latch: the candidate queues, its watch set; the leader closes */
      int cand = 1 - holder;
      st[cand].at = 0;
      zkc_latch_t *next = latch_on(c[cand], lpath, &st[cand]);
      wait_children(inspect, lpath, 2);
      sleep_ms(5);
      int64_t t0 = now_ns();
      zkc_check(zkc_latch_close(lead, ZKC_CLOSE_SILENT), "latch_close");
      wait_stamp(&st[cand]);
      samples_add(&s[Z_LATCH], US(st[cand].at - t0));
      zkc_check(zkc_latch_destroy(lead), "latch_destroy");
      lead = next;
      holder = cand;

      /* selector: wait for a leader with the other one queued, then let
       * the leader return */
      pthread_mutex_lock(&mu);
      while (turn.leader < 0) pthread_cond_wait(&cv, &mu);
      long turns = turn.turns;
      pthread_mutex_unlock(&mu);
      wait_children(inspect, spath, 2);
      sleep_ms(5);
      pthread_mutex_lock(&mu);
      turn.go = 1;
      pthread_cond_broadcast(&cv);
      while (turn.turns == turns) pthread_cond_wait(&cv, &mu);
      samples_add(&s[Z_SEL], US(turn.t_in - turn.t_ret));
      pthread_mutex_unlock(&mu);

      /* raw: delete -> watcher (-> woken thread) */
      double cb, woken;
      raw_chain(x, y, node, &cb, &woken);
      samples_add(&s[R_CB], cb);
      samples_add(&s[R_WOKEN], woken);
    }
    for (int m = 0; m < M_COUNT; m++) {
      samples_append(&all[m], &s[m]);
      p50[m][r] = samples_quantile(&s[m], 0.5);
      p99[m][r] = samples_quantile(&s[m], 0.99);
      samples_free(&s[m]);
    }
    if (have_curator) { /* Curator's round right after zkcoord's */
      samples_t cs[C_COUNT] = {{0}};
      char root[260];
      snprintf(root, sizeof root, "%s/%d", croot, r);
      if (curator_run("graceful", per_round, root, cs)) {
        cur50[0][curator_rounds] = samples_quantile(&cs[C_LATCH], 0.5);
        cur99[0][curator_rounds] = samples_quantile(&cs[C_LATCH], 0.99);
        cur50[1][curator_rounds] = samples_quantile(&cs[C_SEL], 0.5);
        cur99[1][curator_rounds] = samples_quantile(&cs[C_SEL], 0.99);
        curator_rounds++;
        samples_append(&call[C_LATCH], &cs[C_LATCH]);
        samples_append(&call[C_SEL], &cs[C_SEL]);
      } else {
        have_curator = 0;
      }
      for (int m = 0; m < C_COUNT; m++) samples_free(&cs[m]);
    }
  }
  zkc_check(zkc_latch_destroy(lead), "latch_destroy");
  pthread_mutex_lock(&mu);
  turn.quit = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < 2; i++) zkc_check(zkc_selector_destroy(sel[i]), "selector_destroy");

  /* crash rounds, zkcoord and Curator alternating, the latch's round then
   * the selector's */
  crash_t cr[RECIPES];
  memset(cr, 0, sizeof cr);
  unsigned seed = (unsigned)getpid();
  for (int r = 0; r < crash_rounds && r < 64; r++)
    for (int i = 0; i < RECIPES; i++) {
      double z = zkc_crash(c[0], inspect, cpath[i], i, &seed);
      samples_add(&cr[i].z, z);
      if (!have_curator) continue;
      samples_t cs[C_COUNT] = {{0}};
      char root[260];
      snprintf(root, sizeof root, "%s/%s-%d", croot, c_kind[C_CRASH + i], r);
      if (curator_run(c_kind[C_CRASH + i], 1, root, cs) && cs[C_CRASH + i].n == 1) {
        samples_add(&cr[i].c, cs[C_CRASH + i].v[0]);
        cr[i].ratio[cr[i].nratio++] = z / cs[C_CRASH + i].v[0];
      } else {
        have_curator = 0;
      }
      for (int m = 0; m < C_COUNT; m++) samples_free(&cs[m]);
    }
  for (int i = 0; i < 2; i++) zkc_client_close(c[i]);
  raw_close(x), raw_close(y), raw_close(inspect);

  /* ---- records ---- */
  const int k = cfg.rounds;
  double ratio[64];
  static const struct {
    const char *name;
    int z, c;
  } rec[] = {{"latch", Z_LATCH, 0}, {"selector", Z_SEL, 1}};
  for (int q = 0; q < 2; q++) {
    double(*pq)[64] = q ? p99 : p50;
    double(*cq)[64] = q ? cur99 : cur50;
    const char *qn = q ? "p99" : "p50";
    char measure[120];
    snprintf(measure, sizeof measure, "raw: delete call to watcher callback %s", qn);
    emit("l", 2, measure, "raw", "us", pq[R_CB], k);
    snprintf(measure, sizeof measure, "raw: delete call to woken thread %s", qn);
    emit("l", 2, measure, "raw", "us", pq[R_WOKEN], k);
    for (int i = 0; i < 2; i++) {
      snprintf(measure, sizeof measure, "graceful %s hand-off %s", rec[i].name, qn);
      emit("l", 2, measure, "raw", "us", pq[R_WOKEN], k);
      emit("l", 2, measure, "zkcoord", "us", pq[rec[i].z], k);
      for (int r = 0; r < k; r++) ratio[r] = pq[rec[i].z][r] / pq[R_WOKEN][r];
      emit("l", 2, measure, "zkcoord/raw", "x", ratio, k);
      if (curator_rounds > 0) {
        int kc = curator_rounds;
        emit("l", 2, measure, "curator", "us", cq[rec[i].c], kc);
        for (int r = 0; r < kc; r++) ratio[r] = pq[rec[i].z][r] / cq[rec[i].c][r];
        emit("l", 2, measure, "zkcoord/curator", "x", ratio, kc);
        for (int r = 0; r < kc; r++) ratio[r] = cq[rec[i].c][r] / pq[R_WOKEN][r];
        emit("l", 2, measure, "curator/raw", "x", ratio, kc);
      }
    }
  }
  /* pooled over every hand-off of the run */
  for (int i = 0; i < 2; i++) {
    char measure[120];
    double v;
    snprintf(measure, sizeof measure, "graceful %s hand-off p50 over all %zu", rec[i].name,
             all[rec[i].z].n);
    v = samples_quantile(&all[rec[i].z], 0.5);
    emit("l", 2, measure, "zkcoord", "us", &v, 1);
    v = samples_quantile(&all[R_WOKEN], 0.5);
    emit("l", 2, measure, "raw", "us", &v, 1);
    if (call[rec[i].c].n) {
      v = samples_quantile(&call[rec[i].c], 0.5);
      emit("l", 2, measure, "curator", "us", &v, 1);
    }
    snprintf(measure, sizeof measure, "graceful %s hand-off p99 over all %zu", rec[i].name,
             all[rec[i].z].n);
    v = samples_quantile(&all[rec[i].z], 0.99);
    emit("l", 2, measure, "zkcoord", "us", &v, 1);
    v = samples_quantile(&all[R_WOKEN], 0.99);
    emit("l", 2, measure, "raw", "us", &v, 1);
    if (call[rec[i].c].n) {
      v = samples_quantile(&call[rec[i].c], 0.99);
      emit("l", 2, measure, "curator", "us", &v, 1);
    }
  }
  for (int r = 0; r < k; r++) ratio[r] = p50[Z_LATCH][r] / p50[R_WOKEN][r];
  emit_target("l", "graceful latch hand-off p50 / raw (delete + notification + wake-up) p50",
              median_of(ratio, k), "<=", 1.25);
  for (int r = 0; r < k; r++) ratio[r] = p50[Z_SEL][r] / p50[R_WOKEN][r];
  emit_target("l", "graceful selector hand-off p50 / raw (delete + notification + wake-up) p50",
              median_of(ratio, k), "<=", 1.25);

  /* bound: the session timeout + one hand-off (the raw chain's p50, ms) */
  double limit = CRASH_SESSION_MS + samples_quantile(&all[R_WOKEN], 0.5) / 1e3;
  for (int i = 0; i < RECIPES; i++) emit_crash(i, &cr[i], limit);
  if (curator_clock_checked)
    emit_target("l", "Java System.nanoTime() within C CLOCK_MONOTONIC around it (1 = yes)",
                curator_clock_ok, "==", 1);
  for (int m = 0; m < M_COUNT; m++) samples_free(&all[m]);
  for (int m = 0; m < C_COUNT; m++) samples_free(&call[m]);
  for (int i = 0; i < RECIPES; i++) samples_free(&cr[i].z), samples_free(&cr[i].c);
}
