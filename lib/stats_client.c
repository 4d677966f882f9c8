/* SPDX-License-Identifier: Apache-2.0 */
/* The client's stats calls: its own counts (states, background deletes,
 * requests), its records one by one, its event hook. */
#include <string.h>

#include "client_struct.h"
#include "kernel_door.h"
#include "session.h"
#include "stats.h"

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

static int client_stats_impl(zkc_client_t *c, zkc_client_stats_t *out) {
  if (c == NULL || out == NULL)
    return zkc__refuse(c, ZKC_EINVAL, "zkc_client_stats: %s is NULL",
                       c == NULL ? "client" : "out");
  const atomic_uint_fast64_t *n = c->stats.state_counts;
  memset(out, 0, sizeof *out);
  out->sessions = LOAD(n[ZKC_STATE_CONNECTED]);
  out->suspensions = LOAD(n[ZKC_STATE_SUSPENDED]) + LOAD(n[ZKC_STATE_READ_ONLY]);
  out->reconnects = LOAD(n[ZKC_STATE_RECONNECTED]);
  out->expiries = LOAD(n[ZKC_STATE_LOST]);
  int64_t pending = LOAD(c->janitor_pending);
  out->janitor_pending = pending > 0 ? (uint64_t)pending : 0;
  out->janitor_done = LOAD(c->janitor_done);
  out->requests = LOAD(c->requests);
  out->connected = zkc__session_live(c);
  return ZKC_OK;
}

int zkc_client_stats(zkc_client_t *c, zkc_client_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, client_stats_impl(c, out));
}

static int client_foreach_lock_stats_impl(zkc_client_t *c, zkc_lock_stats_fn fn,
                                          void *ctx) {
  if (c == NULL || fn == NULL)
    return zkc__refuse(c, ZKC_EINVAL,
                       "zkc_client_foreach_lock_stats: %s is NULL",
                       c == NULL ? "client" : "fn");
  for (zkc__lstats_t *s = zkc__stats_records(&c->stats); s; s = s->next) {
    zkc_lock_stats_t snap;
    zkc__stats_read(s, &snap);
    fn(ctx, &snap);
  }
  return ZKC_OK;
}

int zkc_client_foreach_lock_stats(zkc_client_t *c, zkc_lock_stats_fn fn,
                                  void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_foreach_lock_stats_impl(c, fn, ctx));
}

static int client_set_event_hook_impl(zkc_client_t *c, zkc_event_fn fn,
                                      void *ctx) {
  if (c == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_client_set_event_hook: client is NULL");
  return zkc__stats_hook_set(&c->stats, fn, ctx);
}

int zkc_client_set_event_hook(zkc_client_t *c, zkc_event_fn fn, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_set_event_hook_impl(c, fn, ctx));
}
