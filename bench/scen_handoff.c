/* SPDX-License-Identifier: Apache-2.0 */
/* Scenario g: hand-off latency between two sessions of one process. The
 * holder releases; the waiter, queued right behind it with its watch set,
 * returns from acquire. Next to it, the raw physical limit measured in the
 * same rounds: one session deletes a node another session watches (the
 * delete's commit plus one notification), timed both when the watcher
 * callback runs and when a thread blocked on it wakes up (what a blocking
 * acquire needs at the least), and the raw write latencies. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define US(ns) ((double)(ns) / 1e3)

/* Percentiles of one round, per measure. */
enum {
  Z_CALL, Z_RET, Z_REL, /* zkcoord: from release call, return; release */
  R_CALL, R_RET, R_DEL, R_CREATE, R_CB, /* raw */
  M_COUNT
};

void scen_handoff(void) {
  const int per_round = cfg.quick ? 30 : cfg.rtt_us >= 2000 ? 100 : 200;
  /* The waiter's acquire goes on for a few round trips after its node is
   * seen (its create's answer, the read, the sync, the watch): the release
   * waits for that, on a delayed network too. */
  const int settle_ms = 5 + 6 * cfg.rtt_us / 1000;
  char path[200], node[220];
  snprintf(path, sizeof path, "%s/g/lock", cfg.root);
  snprintf(node, sizeof node, "%s/g/raw", cfg.root);
  zhandle_t *inspect = raw_open(), *x = raw_open(), *y = raw_open();
  raw_ensure(inspect, path);
  actor_t a[2];
  for (int i = 0; i < 2; i++) {
    a[i] = (actor_t){.c = zkc_open()};
    zkc_check(zkc_mutex_create(&a[i].m, a[i].c, path), "mutex_create");
    actor_start(&a[i]);
  }
  raw_event_t ev = RAW_EVENT_INIT;
  double p50[M_COUNT][64], p99[M_COUNT][64];
  actor_send(&a[0], CMD_ACQUIRE);
  actor_wait(&a[0]);
  int holder = 0;
  for (int r = 0; r < cfg.rounds; r++) {
    samples_t s[M_COUNT] = {{0}};
    for (int k = 0; k < per_round; k++) {
      /* zkcoord: queue the waiter, let its watch be set, release. */
      actor_t *h = &a[holder], *w = &a[1 - holder];
      actor_send(w, CMD_ACQUIRE);
      while (raw_children_count(inspect, path) != 2) sleep_ms(1);
      sleep_ms(settle_ms);
      actor_send(h, CMD_RELEASE);
      actor_wait(h);
      actor_wait(w);
      samples_add(&s[Z_CALL], US(w->t_ret - h->t_call));
      samples_add(&s[Z_RET], US(w->t_ret - h->t_ret));
      samples_add(&s[Z_REL], US(h->t_ret - h->t_call));
      holder = 1 - holder;

      /* raw: x creates, y watches, x deletes. */
      int64_t t0 = now_ns();
      int rc;
      while (raw_transient(rc = zoo_create(x, node, "x", 1,
                                           &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL,
                                           NULL, 0)))
        sleep_ms(50);
      if (rc == ZNODEEXISTS) rc = ZOK; /* the cut one was applied */
      int64_t t1 = now_ns();
      struct Stat st;
      raw_event_arm(&ev);
      /* y's server may not have applied x's create yet: the watch then
       * waits for the creation, and is set again once the node is seen. */
      while (rc == ZOK &&
             (rc = zoo_wexists(y, node, raw_on_deleted, &ev, &st)) == ZNONODE) {
        sleep_ms(1);
        rc = ZOK;
      }
      /* The same pause as zkcoord's before its release: a delete sent
       * right after other requests finds the ensemble's threads awake and
       * commits markedly faster than one sent after a pause, which would
       * make the baseline a different experiment. */
      sleep_ms(settle_ms);
      int64_t t2 = now_ns();
      if (rc == ZOK) rc = zoo_delete(x, node, -1);
      int64_t t3 = now_ns();
      if (rc != ZOK) die("raw hand-off: %s", zerror(rc));
      raw_event_wait(&ev);
      int64_t woken = now_ns();
      samples_add(&s[R_CALL], US(woken - t2));
      samples_add(&s[R_RET], US(woken - t3));
      samples_add(&s[R_CB], US(ev.at - t2));
      samples_add(&s[R_DEL], US(t3 - t2));
      samples_add(&s[R_CREATE], US(t1 - t0));
    }
    for (int m = 0; m < M_COUNT; m++) {
      p50[m][r] = samples_quantile(&s[m], 0.5);
      p99[m][r] = samples_quantile(&s[m], 0.99);
      samples_free(&s[m]);
    }
  }
  actor_send(&a[holder], CMD_RELEASE);
  actor_wait(&a[holder]);
  for (int i = 0; i < 2; i++) {
    actor_stop(&a[i]);
    zkc_check(zkc_mutex_destroy(a[i].m), "mutex_destroy");
    zkc_client_close(a[i].c);
  }
  raw_close(x), raw_close(y), raw_close(inspect);

  int k = cfg.rounds;
  double ratio[64];
  static const struct {
    const char *measure;
    int z, raw;
  } rows[] = {{"hand-off from release call", Z_CALL, R_CALL},
              {"hand-off from release return", Z_RET, R_RET},
              {"release (raw: delete)", Z_REL, R_DEL}};
  for (int q = 0; q < 2; q++) {
    double(*pq)[64] = q ? p99 : p50;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
      char measure[80];
      snprintf(measure, sizeof measure, "%s %s", rows[i].measure,
               q ? "p99" : "p50");
      emit("g", 2, measure, "raw", "us", pq[rows[i].raw], k);
      emit("g", 2, measure, "zkcoord", "us", pq[rows[i].z], k);
      if (rows[i].z == Z_RET) continue; /* near zero: no useful ratio */
      for (int r = 0; r < k; r++) ratio[r] = pq[rows[i].z][r] / pq[rows[i].raw][r];
      emit("g", 2, measure, "zkcoord/raw", "x", ratio, k);
    }
    char measure[80];
    snprintf(measure, sizeof measure, "raw create %s", q ? "p99" : "p50");
    emit("g", 2, measure, "raw", "us", pq[R_CREATE], k);
    snprintf(measure, sizeof measure, "raw delete call to watcher callback %s",
             q ? "p99" : "p50");
    emit("g", 2, measure, "raw", "us", pq[R_CB], k);
  }
  for (int r = 0; r < k; r++) ratio[r] = p50[Z_CALL][r] / p50[R_CALL][r];
  emit_target("g", "hand-off p50 / raw (delete + notification + wake-up) p50",
              median_of(ratio, k), "<=", 1.25);
}
