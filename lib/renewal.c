/* SPDX-License-Identifier: Apache-2.0 */
/* The session's proven renewal at the leader (renewal.h): pure. */
#include "renewal.h"

void zkc__renewal_new_session(zkc__renewal_t *r, int64_t opened_ms,
                              int timeout_ms) {
  r->until = opened_ms + timeout_ms;
  r->have_last = 0;
}

int zkc__renewal_answered(zkc__renewal_t *r, int64_t sent_ms,
                          int64_t answer_ms, uint64_t conn, int ok,
                          int timeout_ms) {
  if (!ok) return 0; /* a lost connection changes `conn` anyway */
  int proved = 0;
  /* Sent a ping interval after the last answer, on the same connection:
   * the leader renewed the session after the last probe was sent. */
  if (r->have_last && r->last_conn == conn &&
      sent_ms >= r->last_answer + ZKC__RENEW_SPACING(timeout_ms) &&
      r->last_sent + timeout_ms > r->until) {
    r->until = r->last_sent + timeout_ms;
    proved = 1;
  }
  r->have_last = 1;
  r->last_sent = sent_ms;
  r->last_answer = answer_ms;
  r->last_conn = conn;
  return proved;
}

int64_t zkc__renewal_due(const zkc__renewal_t *r, uint64_t conn,
                         int timeout_ms) {
  if (!r->have_last || r->last_conn != conn) return 0; /* at once */
  return r->last_answer + ZKC__RENEW_SPACING(timeout_ms);
}

int zkc__renewal_holds(const zkc__renewal_t *r, int64_t now_ms,
                       int timeout_ms) {
  return now_ms < zkc__renewal_lapses_at(r, timeout_ms);
}

int64_t zkc__renewal_lapses_at(const zkc__renewal_t *r, int timeout_ms) {
  return r->until - ZKC__RENEW_MARGIN(timeout_ms);
}

void zkc__rtt_floor_add(zkc__rtt_floor_t *f, uint64_t conn, int64_t now_ms,
                        int64_t rtt_us) {
  if (rtt_us < 0) rtt_us = 0; /* a clock step */
  f->answers++;
  if (f->n == 0 || f->conn != conn) {
    f->n = f->next = 0;
    f->conn = conn;
  } else if (now_ms - f->slot_ms < ZKC__RTT_SLOT_MS) {
    int newest = (f->next + ZKC__RTT_SAMPLES - 1) % ZKC__RTT_SAMPLES;
    if (rtt_us < f->us[newest]) f->us[newest] = rtt_us;
    return;
  }
  f->us[f->next] = rtt_us;
  f->slot_ms = now_ms;
  f->next = (f->next + 1) % ZKC__RTT_SAMPLES;
  if (f->n < ZKC__RTT_SAMPLES) f->n++;
}

int64_t zkc__rtt_floor_us(const zkc__rtt_floor_t *f) {
  if (f->n == 0) return -1;
  int64_t least = f->us[0];
  for (int i = 1; i < f->n; i++)
    if (f->us[i] < least) least = f->us[i];
  return least;
}

int64_t zkc__rtt_probe_due(const zkc__rtt_floor_t *f, uint64_t conn, int sent,
                           int64_t last_answer_ms) {
  int have = f->conn == conn ? f->n : 0;
  if (sent >= ZKC__RTT_FIRST || have >= ZKC__RTT_FIRST) return INT64_MAX;
  return last_answer_ms + ZKC__RTT_FIRST_MS;
}
