/* SPDX-License-Identifier: Apache-2.0 */
/* zkc_bench: shared pieces of the benchmark scenarios (timing, statistics,
 * result records, raw ZooKeeper sessions, 4-letter words, memory). */
#ifndef ZKC_BENCH_H
#define ZKC_BENCH_H

#define THREADED
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <zookeeper/zookeeper.h>

#include "zkcoord/zkcoord.h"

/* Settings shared by every scenario (from the command line). */
typedef struct bench_cfg {
  const char *connect; /* connect string of the ensemble */
  int port_base;       /* server i listens on port_base + i */
  int quick;           /* smoke run: fewer rounds, smaller sizes */
  int rounds;          /* rounds per figure */
  int round_ms;        /* length of one timed round */
  const char *root;    /* this run's root path, "/zkc-bench/<pid>" */
  const char *self;    /* path of this binary (worker processes) */
  int rtt_us;          /* the network's round trip, if delayed (--rtt-us) */
} bench_cfg_t;

extern bench_cfg_t cfg;

/* ---- time and statistics ---- */
int64_t now_ns(void);
/* Threads of this process now (entries of /proc/self/task). */
int threads_now(void);
void sleep_ms(int ms);

/* A growable array of samples. */
typedef struct samples {
  double *v;
  size_t n, cap;
} samples_t;
void samples_add(samples_t *s, double x);
void samples_append(samples_t *s, const samples_t *from);
void samples_free(samples_t *s);
/* The q-quantile (0..1) of the samples (sorts them); 0 when empty. */
double samples_quantile(samples_t *s, double q);

/* ---- result records on stdout (collected by bench/run.sh) ----
 * R,scenario,contenders,measure,variant,unit,median,min,max,runs
 * T,scenario,target,met|MISSED,value,threshold
 * The value of each run is given; the record carries median, min and max.
 * variant: raw (baseline 1), naive (baseline 2), zkcoord, or ratio
 * (zkcoord/raw, computed per run). */
void emit(const char *scen, int n, const char *measure, const char *variant,
          const char *unit, const double *runs, int k);
/* Median of k runs. */
double median_of(const double *runs, int k);
/* A target: met when value `op` threshold holds (op is "<", "<=", ">=",
 * ">" or "=="); returns whether it is met. */
int emit_target(const char *scen, const char *what, double value,
                const char *op, double threshold);

/* ---- raw ZooKeeper sessions (the baselines and inspection) ---- */
zhandle_t *raw_open(void);
/* The same on a connect string of its own (one server, say). */
zhandle_t *raw_open_at(const char *hosts);
void raw_close(zhandle_t *zh);
/* A raw request cut by the connection (a busy machine's C client may time
 * one out): the baselines try it again, as zkcoord retries its own; any
 * other failure ends the benchmark. */
int raw_transient(int zk_rc);
/* Creates path and its missing ancestors (persistent). */
void raw_ensure(zhandle_t *zh, const char *path);
/* Deletes path and everything below it. */
void raw_delete_tree(zhandle_t *zh, const char *path);
int raw_children_count(zhandle_t *zh, const char *path);
/* Creates (persistent) or deletes paths[0..n) with pipelined async calls. */
void raw_bulk(zhandle_t *zh, char **paths, int n, int create);
/* A raw watch's deletion event, for a thread to wait on: `at` is when it
 * arrived (now_ns), 0 until then. raw_on_deleted is the watcher to set
 * with it as context; raw_event_arm clears it before the watch is set. */
typedef struct raw_event {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int64_t at;
} raw_event_t;
#define RAW_EVENT_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0}
void raw_on_deleted(zhandle_t *zh, int type, int state, const char *path,
                    void *ctx);
void raw_event_arm(raw_event_t *e);
void raw_event_wait(raw_event_t *e);

/* ---- zkcoord ---- */
zkc_client_t *zkc_open(void);
/* Aborts with a message when rc is not ZKC_OK. */
void zkc_check(int rc, const char *what);

/* ---- actors: a thread that acquires or releases a mutex on command ---- */
enum { CMD_NONE, CMD_ACQUIRE, CMD_RELEASE, CMD_QUIT };
typedef struct actor {
  zkc_client_t *c; /* set by the caller, with m, before actor_start */
  zkc_mutex_t *m;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int cmd;
  int64_t t_call, t_ret; /* around the last command's call */
  char node[1100];       /* the lock node, after an acquire */
  pthread_t th;
} actor_t;
void actor_start(actor_t *a);
/* Gives a command; actor_wait waits until it is done. */
void actor_send(actor_t *a, int cmd);
void actor_wait(actor_t *a);
/* Ends the thread (the caller frees m and c). */
void actor_stop(actor_t *a);

/* ---- the ensemble ---- */
/* Answer of server i (1..3) to a 4-letter word (malloc), or NULL. */
char *fourlw(int server, const char *word);
/* Sum over the three servers of a numeric `mntr` key. */
double mntr_sum(const char *key);
/* Sum over the three servers of "Total watches" from `wchs`. */
long watches_total(void);

/* ---- memory of this process ---- */
long rss_bytes(void);
long heap_bytes(void); /* malloc'ed and in use */

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- scenarios (one file each) ---- */
void scen_cycle(void);   /* a: uncontended cycle, 1 session */
void scen_paths(void);   /* b: distinct paths, 8 sessions */
void scen_contend(void); /* c: one path, 2..128 contenders */
void scen_queue(void);   /* d: 1,000 waiters from 10 processes */
int queue_worker(int argc, char **argv); /* d: one of the processes */
void scen_many(void);    /* e: 10,000 locks held by one process */
void scen_reentry(void); /* f: reentrant re-acquire */
void scen_handoff(void); /* g: hand-off latency */
void scen_async(void);   /* h: pending async acquires: memory, threads */
void scen_herd(void);    /* i: reader notifications of a read-write lock */
void scen_leader(void);  /* l: leader hand-off, graceful and crash */
int leader_child(int argc, char **argv); /* l: the leader that is killed */
void scen_async_scale(void); /* k: 10,000 pending async acquires */
void scen_stats_cost(void);  /* m: the stats' cost (under callgrind) */
void scen_net(void);         /* n: the network's round trips, through relays and not */

#endif /* ZKC_BENCH_H */
