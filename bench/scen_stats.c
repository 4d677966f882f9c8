/* SPDX-License-Identifier: Apache-2.0 */
/* m: what the always-on stats cost. Uncontended zkcoord cycles (acquire,
 * release) on one session and nothing else, so that bench/run.sh can run
 * this process under callgrind twice, with two numbers of cycles, and take
 * the difference: the instructions of one more cycle in every thread of the
 * process, and how many of them the stats calls spent. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

void scen_stats_cost(void) {
  zkc_client_t *c = zkc_open();
  zkc_mutex_t *m;
  char path[200];
  snprintf(path, sizeof path, "%s/m", cfg.root);
  zkc_check(zkc_mutex_create(&m, c, path), "mutex_create");
  const int cycles = cfg.rounds * 250;
  for (int i = 0; i < cycles; i++) {
    zkc_check(zkc_mutex_acquire(m), "acquire");
    zkc_check(zkc_mutex_release(m), "release");
  }
  zkc_lock_stats_t s;
  zkc_check(zkc_mutex_stats(m, &s), "mutex_stats");
  if (s.acquires != (uint64_t)cycles || s.releases != (uint64_t)cycles)
    die("m: %llu acquires and %llu releases counted for %d cycles",
        (unsigned long long)s.acquires, (unsigned long long)s.releases, cycles);
  double n = cycles;
  emit("m", 1, "cycles", "zkcoord", "count", &n, 1);
  zkc_check(zkc_mutex_destroy(m), "mutex_destroy");
  zkc_client_close(c);
}
