/* SPDX-License-Identifier: Apache-2.0 */
/* zkc_bench: zkcoord's lock costs against raw ZooKeeper loops measured in
 * the same run (the physical limit of a lock cycle, and the naive cycle).
 *
 *   zkc_bench [--quick] [--rounds R] [--round-ms MS] SCENARIO...
 *
 * Scenarios (see bench/README.md or docs/performance.md):
 *   a  uncontended cycle, 1 session         e  10,000 locks held by one process
 *   b  distinct paths, 8 sessions           f  reentrant re-acquire
 *   c  one path, 2/8/32/128 contenders      g  hand-off latency
 *   d  1,000 waiters from 10 processes       h  pending async acquires
 *                                           i  reader herd (read-write lock)
 *  k  10,000 pending async acquires          l  leader hand-off (latch,
 *                                               selector; graceful, crash)
 *  m  the stats' cost: R x 250 uncontended cycles, nothing else (bench/run.sh
 *     runs it under callgrind)
 *  n  the network: a read's and a write's round trips on each server's
 *     client link, and (relayed) on its direct port beside it
 *
 * --rtt-us N: the network's round trip when delayed (bench/run.sh --rtt):
 * longer rounds, and scenario g waits longer for the waiter's watch.
 *
 * Prints one CSV record per figure on stdout (see emit() in bench.h);
 * bench/run.sh starts the ensemble, runs the matrix and builds the table,
 * the CSV/JSON files and the plot. The ensemble: $ZKC_BENCH_CONNECT, else
 * the three loopback servers on $ZKC_ENSEMBLE_PORT_BASE + 1..3 (default
 * 2180), as started by test/ensemble/zk-ensemble.sh. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static void usage(void) {
  fprintf(stderr,
          "usage: zkc_bench [--quick] [--rounds R] [--round-ms MS] [--rtt-us N] "
          "SCENARIO...\n  scenarios: a b c d e f g h i k l m n (or all)\n");
  exit(2);
}

int main(int argc, char **argv) {
  static char connect[256], root[64];
  const char *base_env = getenv("ZKC_ENSEMBLE_PORT_BASE");
  cfg.port_base = base_env ? atoi(base_env) : 2180;
  const char *env = getenv("ZKC_BENCH_CONNECT");
  if (env == NULL) {
    snprintf(connect, sizeof connect, "127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d",
             cfg.port_base + 1, cfg.port_base + 2, cfg.port_base + 3);
    env = connect;
  }
  cfg.connect = env;
  cfg.self = argv[0];
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);

  /* A process of scenario d: takes its arguments from the coordinator. */
  if (argc > 1 && strcmp(argv[1], "--queue-worker") == 0)
    return queue_worker(argc - 2, argv + 2);
  /* The leader of scenario l's crash rounds. */
  if (argc > 1 && strcmp(argv[1], "--leader-child") == 0)
    return leader_child(argc - 2, argv + 2);

  int rounds = 0, round_ms = 0, i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      cfg.quick = 1;
    else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (strcmp(argv[i], "--round-ms") == 0 && i + 1 < argc)
      round_ms = atoi(argv[++i]);
    else if (strcmp(argv[i], "--rtt-us") == 0 && i + 1 < argc)
      cfg.rtt_us = atoi(argv[++i]);
    else
      usage();
  }
  if (i == argc) usage();
  cfg.rounds = rounds > 0 ? rounds : cfg.quick ? 2 : 5;
  cfg.round_ms = round_ms > 0 ? round_ms : cfg.quick ? 300 : 1000;
  /* A delayed cycle is slow: as many cycles per round as at 2 ms less. */
  if (round_ms <= 0 && !cfg.quick) cfg.round_ms += cfg.rtt_us / 2;
  if (cfg.rounds > 64) cfg.rounds = 64;
  snprintf(root, sizeof root, "/zkc-bench/%d", (int)getpid());
  cfg.root = root;

  static const struct {
    const char *name;
    void (*run)(void);
  } all[] = {{"a", scen_cycle},  {"b", scen_paths}, {"c", scen_contend},
             {"d", scen_queue},  {"e", scen_many},  {"f", scen_reentry},
             {"g", scen_handoff}, {"h", scen_async}, {"i", scen_herd},
             {"k", scen_async_scale}, {"l", scen_leader}, {"m", scen_stats_cost},
             {"n", scen_net}};
  const size_t nall = sizeof all / sizeof all[0];
  for (int k = i; k < argc; k++) {
    size_t j = 0;
    while (j < nall && strcmp(argv[k], all[j].name) != 0 &&
           strcmp(argv[k], "all") != 0)
      j++;
    if (j == nall) usage();
  }
  /* Memory figures read the main arena only: keep every thread in it. */
  mallopt(M_ARENA_MAX, 1);
  zhandle_t *zh = raw_open();
  for (int k = i; k < argc; k++)
    for (size_t j = 0; j < nall; j++)
      if (strcmp(argv[k], all[j].name) == 0 || strcmp(argv[k], "all") == 0) {
        fprintf(stderr, "zkc_bench: scenario %s\n", all[j].name);
        all[j].run();
      }
  raw_delete_tree(zh, cfg.root);
  zoo_delete(zh, "/zkc-bench", -1); /* fails while another run uses it */
  raw_close(zh);
  return 0;
}
