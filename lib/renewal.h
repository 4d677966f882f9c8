/* SPDX-License-Identifier: Apache-2.0 */
/* What the session's probes prove of its renewal at the leader (renewal.c):
 * pure, fed times and answers, unit-tested without a server.
 *
 * The leader expires a session one timeout T after it last renewed it, and
 * it renews a session of a follower's client only when that follower
 * reports the session in its reply to the leader's ping (every tickTime/2,
 * at most T/4: T is at least two ticks). A sync the follower forwards is
 * answered by the leader but renews nothing there. So one answered sync
 * proves the session alive, not renewed. Two do: a sync A answered, then a
 * sync B sent at least a ping interval later on the same connection. The
 * follower touched the session when A arrived, the leader's next ping
 * carried that touch in the reply, and B, sent after that reply, reaches
 * the leader behind it on the follower's one connection: B's answer shows
 * the leader renewed the session after A was sent, so it lives until
 * A.sent + T at least, however this process stalls afterwards.
 *
 * The client sends such probes one after another while connected
 * (ZKC__RENEW_SPACING apart, a little over T/4 for the ping's own
 * jitter), and counts the session as renewed while `until` is more than
 * ZKC__RENEW_MARGIN ahead: a grant needs that, and a hold is in doubt
 * without it, told before the leader can have expired the session. A new
 * session counts from the open that created it (the leader started its
 * clock after the request was sent). */
#ifndef ZKC_RENEWAL_H
#define ZKC_RENEWAL_H

#include <stdint.h>

/* A probe's spacing after the answer of the one before it, and the part of
 * the proven life kept in reserve, both from the session timeout. */
#define ZKC__RENEW_SPACING(timeout_ms) ((int64_t)(timeout_ms) * 3 / 10)
#define ZKC__RENEW_MARGIN(timeout_ms) ((int64_t)(timeout_ms) / 10)

typedef struct zkc__renewal {
  int64_t until;       /* the session lives at least until then (boot ms) */
  int have_last;       /* an answered probe the next one can pair with: */
  int64_t last_sent;   /*   its send time, */
  int64_t last_answer; /*   when its answer was read, */
  uint64_t last_conn;  /*   on which connection */
} zkc__renewal_t;

/* A new session created by a request sent after opened_ms. */
void zkc__renewal_new_session(zkc__renewal_t *r, int64_t opened_ms,
                              int timeout_ms);

/* A probe sent at sent_ms was answered (ok: by the leader; else failed) at
 * answer_ms on connection `conn` (a number that changes with every new
 * connection). Returns 1 when that proved a later renewal than known. */
int zkc__renewal_answered(zkc__renewal_t *r, int64_t sent_ms,
                          int64_t answer_ms, uint64_t conn, int ok,
                          int timeout_ms);

/* When the next probe is due on connection `conn`: paired with the last
 * answer on it, or at once on a new connection. */
int64_t zkc__renewal_due(const zkc__renewal_t *r, uint64_t conn,
                         int timeout_ms);

/* 1 while the session is proven renewed with the margin to spare at now. */
int zkc__renewal_holds(const zkc__renewal_t *r, int64_t now_ms,
                       int timeout_ms);

/* When zkc__renewal_holds turns 0 unless a probe proves more. */
int64_t zkc__renewal_lapses_at(const zkc__renewal_t *r, int timeout_ms);

/* The floor of the round trips through the leader on the current
 * connection: the probes' and every sync the library sends (a waiting
 * round's), the least over the last ZKC__RTT_SAMPLES slots: the network's
 * distance, which a busy moment does not lower. A slot opens with the
 * first answer ZKC__RTT_SLOT_MS or more after the one before opened and
 * holds the least answer until the next opens, so a burst of answers (a
 * busy client's, perhaps all slow while the machine or the servers are
 * saturated) cannot age out a quiet moment's; a client that only probes
 * (renewal probes seconds apart) has one to a slot, its floor the least
 * of its last ZKC__RTT_SAMPLES renewal probes. Learning ahead (qround.c)
 * pays a read and a round of requests per hand-off to take a round trip
 * off it: worth it where round trips are long, not on a machine's
 * loopback, where requests cost more than the trip. */
#define ZKC__RTT_SAMPLES 8
#define ZKC__RTT_SLOT_MS 1000

typedef struct zkc__rtt_floor {
  int64_t us[ZKC__RTT_SAMPLES];
  int n, next;
  int64_t slot_ms; /* when the newest slot opened (boot ms) */
  uint64_t conn;
  uint64_t answers; /* fed in all, on any connection (tests read it) */
} zkc__rtt_floor_t;

/* A round trip of rtt_us through the leader answered at now_ms (boot ms)
 * on connection `conn` (a new connection starts afresh: its server may be
 * elsewhere). */
void zkc__rtt_floor_add(zkc__rtt_floor_t *f, uint64_t conn, int64_t now_ms,
                        int64_t rtt_us);

/* The floor in microseconds, or -1 before any answer (after a reconnect,
 * the last connection's until the new one's first answer replaces it). */
int64_t zkc__rtt_floor_us(const zkc__rtt_floor_t *f);

/* A connection's first answers come while every session of the process
 * connects at once, and one alone would be its floor until the next
 * renewal probe or sync (seconds on an idle client). So ZKC__RTT_FIRST
 * probes that only measure are sent ZKC__RTT_FIRST_MS apart. */
#define ZKC__RTT_FIRST ZKC__RTT_SAMPLES
#define ZKC__RTT_FIRST_MS 25

/* When a probe that only measures is due on connection `conn` (boot ms):
 * ZKC__RTT_FIRST_MS after the last answer while fewer than ZKC__RTT_FIRST
 * of them were sent on it (`sent`) and the floor has fewer slots; else
 * INT64_MAX (the renewal's own probes are enough). */
int64_t zkc__rtt_probe_due(const zkc__rtt_floor_t *f, uint64_t conn, int sent,
                           int64_t last_answer_ms);

#endif /* ZKC_RENEWAL_H */
