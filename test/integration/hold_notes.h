/* SPDX-License-Identifier: Apache-2.0 */
/* What a hold's loss notice (zkc_hold_set_lost_callback) was told, and the
 * steps its tests share: an outsider's delete of a hold's node, the
 * hold's token, told exactly once. Public API and the harness only. */
#ifndef ZKT_HOLD_NOTES_H
#define ZKT_HOLD_NOTES_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

/* What one notice was told. */
typedef struct notes {
  pthread_mutex_t mu;
  int n;
  zkc_lost_reason_t why;
  int64_t token;
} notes_t;

static inline notes_t *notes_new(void) {
  notes_t *t = calloc(1, sizeof *t);
  assert_non_null(t);
  pthread_mutex_init(&t->mu, NULL);
  return t;
}

static inline void notes_free(notes_t *t) {
  pthread_mutex_destroy(&t->mu);
  free(t);
}

static inline void note(void *ctx, zkc_lost_reason_t why, int64_t token) {
  notes_t *t = ctx;
  pthread_mutex_lock(&t->mu);
  t->n++;
  t->why = why;
  t->token = token;
  pthread_mutex_unlock(&t->mu);
}

static inline int notes_n(notes_t *t) {
  pthread_mutex_lock(&t->mu);
  int n = t->n;
  pthread_mutex_unlock(&t->mu);
  return n;
}

static inline int told(void *ctx) { return notes_n(ctx) > 0; }

/* The first node the hold names (a set's oldest). */
static inline void first_node(zkc_hold_t *h, char *out, size_t len) {
  zkc_list_t *nodes = NULL;
  OK(zkc_hold_node_list(h, &nodes));
  assert_true(zkc_list_count(nodes) > 0);
  snprintf(out, len, "%.1100s", zkc_list_string(nodes, 0));
  zkc_list_free(nodes);
}

static inline void outsider_delete(zkc_hold_t *h) {
  char node[1200];
  first_node(h, node, sizeof node);
  assert_int_equal(zoo_delete(zkt_raw(), node, -1), ZOK);
}

/* Told once, with token and why; a fenced write afterwards (which finds
 * the loss by its own call) tells nothing more. */
static inline void assert_told_once(notes_t *t, zkc_hold_t *h, int64_t token,
                             zkc_lost_reason_t why) {
  assert_true(zkt_await(told, t, zkt_ms(15000)));
  (void)zkc_hold_fenced_set(h, zkt_path("data"), "x", 1);
  pthread_mutex_lock(&t->mu);
  notes_t seen = *t; /* asserted outside the lock: a failure ends the case */
  pthread_mutex_unlock(&t->mu);
  printf("told %d time(s): token %lld (hold's %lld), reason %d\n", seen.n,
         (long long)seen.token, (long long)token, (int)seen.why);
  assert_int_equal(seen.n, 1);
  assert_true(seen.token == token);
  assert_int_equal(seen.why, why);
}

static inline int64_t token_of(zkc_hold_t *h) {
  int64_t token = 0;
  OK(zkc_hold_fencing_token(h, &token));
  assert_true(token > 0);
  return token;
}

#endif /* ZKT_HOLD_NOTES_H */
