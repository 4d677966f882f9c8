/* SPDX-License-Identifier: Apache-2.0 */
/* The process's stall watch (stall.c): did this process run without a
 * stall since a proof's request was sent?
 *
 * A grant decided on the watches of a round rests on an event its server
 * sent when it applied the predecessor's delete. Read promptly, that event
 * is news; read after this process was stopped (SIGSTOP, a debugger, a
 * swap-in), it may be old, and its server may have been cut off from the
 * leader since, telling nothing of what came after: an outsider's delete of
 * our node, and the grant of the next waiter on it. Neither the proof's
 * freshness (its request's age against the session timeout) nor the
 * session's renewal sees that: the session is alive, only the node is
 * gone. So a proof also requires that no stall of this process overlaps
 * it: a thread ticks every ZKC__STALL_TICK_MS, and a gap longer than
 * ZKC__STALL_MS between two ticks (or one going on: the last tick that old)
 * is a stall. A stop shorter than that is not seen (docs/architecture.md,
 * "What a grant rests on"); a busy machine that delays the ticker reads
 * again for nothing, which costs a sync and a read, never a grant.
 *
 * The rule is pure (zkc__stall_ticked, zkc__stall_spans, unit-tested on
 * given times); one watch serves the process, started by the first
 * client's open and stopped by the last one's close. */
#ifndef ZKC_STALL_H
#define ZKC_STALL_H

#include <stdint.h>

#define ZKC__STALL_TICK_MS 20
#define ZKC__STALL_MS 200

typedef struct zkc__stall {
  int64_t last_tick; /* boot ms of the last tick, 0 before the first */
  int64_t gap_end;   /* boot ms at which the newest stall was seen, or 0 */
  int64_t gap_len;   /* that stall's length */
  uint64_t gaps;     /* stalls seen */
} zkc__stall_t;

/* A tick at now: a gap since the last tick longer than ZKC__STALL_MS is a
 * stall, seen now. */
void zkc__stall_ticked(zkc__stall_t *s, int64_t now);

/* 1 when a stall overlaps [since, now]: one seen at or after since, or one
 * going on (no tick for longer than ZKC__STALL_MS). */
int zkc__stall_spans(const zkc__stall_t *s, int64_t since, int64_t now);

/* The process's watch: joined by each client's open (ZKC_OK, or
 * ZKC_ESYSTEM when its thread cannot start), left by its close. */
int zkc__stall_watch_join(void);
void zkc__stall_watch_leave(void);

/* 1 when a stall of this process overlaps [since_boot_ms, now] (boot ms,
 * zkc__boot_ms); *gap_ms, when not NULL, the newest stall's length. */
int zkc__stalled_since(int64_t since_boot_ms, int64_t *gap_ms);

/* The stalls this process's watch has seen (the tests' count). */
uint64_t zkc__stalls_seen(void);

#endif
