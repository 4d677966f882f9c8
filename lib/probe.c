/* SPDX-License-Identifier: Apache-2.0 */
/* The session's renewal probes: syncs sent one after another by the
 * maintenance thread while connected, their answers fed to the renewal
 * proof (renewal.h), and the one question every grant and hold asks of
 * it: is the session proven renewed now. A probe is not counted among the
 * client's requests (tests count those per acquire). */
#include "client_struct.h"
#include "session_shared.h"
#include "stats.h"
#include "test_hooks.h"

void zkc__probe_new_session_locked(zkc_client_t *c) {
  zkc__renewal_new_session(&c->renewal, c->opened_boot_ms,
                           c->session_timeout_ms);
}

void zkc__probe_handle_opened_locked(zkc_client_t *c) {
  c->opened_boot_ms = zkc__boot_ms();
  c->probe_in_flight = 0; /* the old handle's probe went with it */
  c->probe_retry_at = 0;
}

void zkc__probe_answered(zkc_client_t *c, int ok) {
  pthread_mutex_lock(&c->mu);
  if (c->probe_in_flight && c->probe_gen == c->handle_gen) {
    c->probe_in_flight = 0;
    int64_t now = zkc__boot_ms();
    if (ok) zkc__rtt_floor_add(&c->rtt, c->conn_seq, now,
                               zkc__now_us() - c->probe_sent_us);
    c->probe_answer_ms = now;
    if (!c->probe_measures) { /* the renewal pairs only its own probes */
      int was = zkc__renewed_locked(c);
      if (zkc__renewal_answered(&c->renewal, c->probe_sent, now, c->conn_seq,
                                ok, c->session_timeout_ms) &&
          !was && c->link == ZKC__LINK_CONNECTED)
        c->renewal_lapsed = 1; /* the state must show the lapse it ends */
    }
    pthread_cond_broadcast(&c->state_cv); /* waiters, and the next probe */
  }
  pthread_mutex_unlock(&c->mu);
}

/* Sends the probe due by now, outside the client's lock: 1 when it did
 * (the caller looks at everything again), else 0 with *wake lowered to
 * when one falls due (monotonic ms). Called and returns with c->mu held. */
int zkc__probe_step_locked(zkc_client_t *c, int64_t *wake) {
  if (c->link != ZKC__LINK_CONNECTED || c->session_dead || c->recreate ||
      c->closed || c->probe_in_flight || c->session_timeout_ms <= 0)
    return 0;
  int64_t boot = zkc__boot_ms();
  int64_t due = zkc__renewal_due(&c->renewal, c->conn_seq,
                                 c->session_timeout_ms);
  if (due < c->probe_retry_at) due = c->probe_retry_at;
  if (c->measures_conn != c->conn_seq) {
    c->measures_conn = c->conn_seq;
    c->measures_sent = 0;
  }
  int64_t measure = zkc__rtt_probe_due(&c->rtt, c->conn_seq, c->measures_sent,
                                       c->probe_answer_ms);
  /* Before the renewal's own is due, one that only measures may be. */
  int measures = boot < due && measure <= boot;
  if (boot < due && !measures) {
    int64_t next = measure < due ? measure : due;
    int64_t at = zkc__now_ms() + (next - boot);
    if (at < *wake) *wake = at;
    return 0;
  }
  c->probe_in_flight = 1;
  c->probe_measures = measures;
  c->measures_sent += measures;
  c->probe_sent = boot;
  c->probe_sent_us = zkc__now_us();
  c->probe_gen = c->handle_gen;
  pthread_mutex_unlock(&c->mu);
  int rc = zkc__submit_probe(c, zkc__probe_answered);
  pthread_mutex_lock(&c->mu);
  if (rc != ZKC_OK && c->probe_in_flight && c->probe_gen == c->handle_gen) {
    /* Refused at once (the handle is between connections): not again
     * before the state can have changed. */
    c->probe_in_flight = 0;
    c->probe_retry_at = boot + ZKC__RENEW_MARGIN(c->session_timeout_ms);
  }
  return 1;
}

uint64_t zkc__probes(zkc_client_t *c) { return atomic_load(&c->probes); }

uint64_t zkc__rtt_answers(zkc_client_t *c, int64_t *floor_us) {
  pthread_mutex_lock(&c->mu);
  uint64_t n = c->rtt.answers;
  *floor_us = zkc__rtt_floor_us(&c->rtt);
  pthread_mutex_unlock(&c->mu);
  return n;
}

int zkc__probe_pending(zkc_client_t *c) {
  pthread_mutex_lock(&c->mu);
  int pending = c->probe_in_flight;
  pthread_mutex_unlock(&c->mu);
  return pending;
}

/* Test hook (test_hooks.h): the least round trip through the leader at
 * which waiters learn ahead. A sync's round trip is one to the server and
 * one from it to the leader: about 1 ms where each is 0.5 ms, the nearest
 * a network puts an ensemble; a machine's loopback answers in a fraction of
 * that (and its floor stays there under load, being the least of many
 * answers over seconds: renewal.h). */
int64_t zkc__learn_ahead_floor_us = 1000;

int zkc__learn_ahead(zkc_client_t *c) {
  pthread_mutex_lock(&c->mu);
  int64_t floor = zkc__rtt_floor_us(&c->rtt);
  pthread_mutex_unlock(&c->mu);
  /* None measured yet: learn ahead, but where the hook says never. */
  if (floor < 0) return zkc__learn_ahead_floor_us != INT64_MAX;
  return floor >= zkc__learn_ahead_floor_us;
}
