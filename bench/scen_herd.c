/* SPDX-License-Identifier: Apache-2.0 */
/* Scenario i: the reader herd of a read-write lock. A queue of G groups,
 * each a writer followed by M readers, every contender its own session;
 * the lock is then handed down the queue to the end. Before each writer
 * lets go, the servers' watch table (wchc) tells which reader sessions
 * watch its node: exactly the readers its delete notifies. zkcoord's
 * readers watch the nearest writer before them and, learning ahead, the
 * writer before that, so each is notified at most twice over the whole
 * drain (a group behind the first writer once); a reader that watched the
 * first writer in the queue (Curator's) would be notified by every writer
 * ahead of it: for the same queue that is computed beside the measured
 * figure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* One contender: an actor on a side of its own read-write lock. */
typedef struct member {
  actor_t a;
  zkc_rwlock_t *rw;
  int64_t session;
} member_t;

static void member_start(member_t *m, const char *path, int writer) {
  m->a.c = zkc_open();
  zkc_check(zkc_rwlock_create(&m->rw, m->a.c, path), "rwlock_create");
  m->a.m = writer ? zkc_rwlock_write_side(m->rw) : zkc_rwlock_read_side(m->rw);
  zkc_check(zkc_client_session_id(m->a.c, &m->session), "session id");
  actor_start(&m->a);
}

static void member_stop(member_t *m) {
  actor_stop(&m->a);
  zkc_check(zkc_rwlock_destroy(m->rw), "rwlock_destroy");
  zkc_client_close(m->a.c);
}

/* How many of the readers' sessions watch `node`, over the three servers
 * (each session is served by one of them). */
static int readers_watching(const char *node, const member_t *readers, int n) {
  int count = 0;
  for (int s = 1; s <= 3; s++) {
    char *out = fourlw(s, "wchc");
    if (out == NULL) die("no wchc answer from server %d", s);
    int64_t session = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
      if (strncmp(line, "0x", 2) == 0) {
        session = (int64_t)strtoull(line + 2, NULL, 16);
      } else if (line[0] == '\t' && strcmp(line + 1, node) == 0) {
        for (int i = 0; i < n; i++) count += readers[i].session == session;
      }
    }
    free(out);
  }
  return count;
}

/* Waits until `want` watches are registered on the ensemble. */
static void await_watches(long want) {
  for (int i = 0; i < 2000 && watches_total() < want; i++) sleep_ms(5);
}

/* Waits until path has n children: the queue grows in the order made. */
static void await_children(zhandle_t *zh, const char *path, int n) {
  for (int i = 0; i < 2000 && raw_children_count(zh, path) < n; i++) sleep_ms(2);
}

/* One drain of a queue of g groups of m readers: reader notifications
 * measured; *model gets what first-writer readers would receive. */
static double one_drain(int g, int m, int round, double *model) {
  char path[160];
  snprintf(path, sizeof path, "%s/herd-%d", cfg.root, round);
  member_t *w = calloc((size_t)g, sizeof *w);
  member_t *r = calloc((size_t)(g * m), sizeof *r);
  if (w == NULL || r == NULL) die("out of memory");
  zhandle_t *zh = raw_open();
  int queued = 0;
  for (int j = 0; j < g; j++) {
    member_start(&w[j], path, 1);
    actor_send(&w[j].a, CMD_ACQUIRE);
    await_children(zh, path, ++queued);
    for (int k = 0; k < m; k++) {
      member_start(&r[j * m + k], path, 0);
      actor_send(&r[j * m + k].a, CMD_ACQUIRE);
      await_children(zh, path, ++queued);
    }
  }
  /* Every waiter's watch, and the holder's on its own node (set after a
   * short hold). */
  await_watches(queued);
  int notified = 0;
  actor_wait(&w[0].a);
  for (int j = 0; j < g; j++) {
    notified += readers_watching(w[j].a.node, r, g * m);
    actor_send(&w[j].a, CMD_RELEASE);
    actor_wait(&w[j].a);
    for (int k = 0; k < m; k++) actor_wait(&r[j * m + k].a); /* granted */
    for (int k = 0; k < m; k++) actor_send(&r[j * m + k].a, CMD_RELEASE);
    for (int k = 0; k < m; k++) actor_wait(&r[j * m + k].a);
    if (j + 1 < g) actor_wait(&w[j + 1].a); /* granted: it learns its node */
  }
  for (int j = 0; j < g; j++) member_stop(&w[j]);
  for (int i = 0; i < g * m; i++) member_stop(&r[i]);
  raw_delete_tree(zh, path);
  raw_close(zh);
  free(w);
  free(r);
  /* Group j's readers (0-based) sit behind writers 0..j. */
  double first_writer = 0;
  for (int j = 0; j < g; j++) first_writer += (double)m * (j + 1);
  *model = first_writer / (g * m);
  return (double)notified / (g * m);
}

void scen_herd(void) {
  int g = cfg.quick ? 2 : 4, m = cfg.quick ? 2 : 4;
  double mine[64], model[64];
  int k = cfg.rounds;
  for (int i = 0; i < k; i++) mine[i] = one_drain(g, m, i, &model[i]);
  emit("i", g * m, "notifications per reader", "zkcoord", "count", mine, k);
  emit("i", g * m, "notifications per reader", "first-writer", "count", model, k);
  emit_target("i", "at most two notifications per reader per drain (its writer "
              "+ the one before)", median_of(mine, k), "<=", 2.0);
}
