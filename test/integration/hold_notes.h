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

/* t was told exactly once, with token and why. */
static inline void assert_once(notes_t *t, int64_t token,
                               zkc_lost_reason_t why) {
  pthread_mutex_lock(&t->mu);
  notes_t seen = *t; /* asserted outside the lock: a failure ends the case */
  pthread_mutex_unlock(&t->mu);
  printf("told %d time(s): token %lld (hold's %lld), reason %d\n", seen.n,
         (long long)seen.token, (long long)token, (int)seen.why);
  assert_int_equal(seen.n, 1);
  assert_true(seen.token == token);
  assert_int_equal(seen.why, why);
}

/* Told once, with token and why; a fenced write afterwards (which finds
 * the loss by its own call) tells nothing more. */
static inline void assert_told_once(notes_t *t, zkc_hold_t *h, int64_t token,
                             zkc_lost_reason_t why) {
  assert_true(zkt_await(told, t, zkt_ms(15000)));
  (void)zkc_hold_fenced_set(h, zkt_path("data"), "x", 1);
  assert_once(t, token, why);
}

static inline int64_t token_of(zkc_hold_t *h) {
  int64_t token = 0;
  OK(zkc_hold_fencing_token(h, &token));
  assert_true(token > 0);
  return token;
}

/* How a lost hold answers its own calls. */
enum {
  LOST_EXCLUSIVE = 0, /* its fenced writes refused as lost */
  LOST_READ = 1,      /* a read hold: its writes refused with a reason */
};

/* A lost grant h, whatever the fault: its notice t told (within the
 * harness's wait) exactly once, with its token and `why`; its token kept
 * (a bound hold's too, once its grant is over); is-held 0; a fenced read refused with
 * ZKC_ELOST, nothing returned; its fenced set, compare-and-set and create
 * ZKC_ELOST, or for LOST_READ ZKC_EINVAL with a reason; nothing written. */
static inline void assert_lost_hold(zkc_hold_t *h, notes_t *t, int64_t token,
                                    zkc_lost_reason_t why, int how) {
  assert_true(zkt_await(told, t, zkt_ms(20000)));
  int64_t after = 0;
  int token_rc = zkc_hold_fencing_token(h, &after);
  OK(token_rc);
  assert_true(after == token);
  assert_int_equal(zkc_hold_is_held(h), 0);
  char *data = NULL;
  size_t len = 0;
  int32_t version = 0;
  char at[700];
  snprintf(at, sizeof at, "%s", zkt_path("lost_write"));
  assert_int_equal(zkc_hold_fenced_get(h, at, &data, &len, &version),
                   ZKC_ELOST);
  assert_null(data);
  int want = how & LOST_READ ? ZKC_EINVAL : ZKC_ELOST;
  assert_int_equal(zkc_hold_fenced_set(h, at, "x", 1), want);
  if (how & LOST_READ) assert_true(strlen(zkc_last_error_message()) > 0);
  assert_int_equal(zkc_hold_fenced_cas(h, at, "x", 1, 0, NULL), want);
  assert_int_equal(zkc_hold_fenced_create(h, at, "x", 1), want);
  assert_false(zkt_exists(at, NULL));
  assert_once(t, token, why);
}

#endif /* ZKT_HOLD_NOTES_H */
