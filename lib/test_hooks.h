/* SPDX-License-Identifier: Apache-2.0 */
/* The tests' hooks into the library: counters and seams no program but
 * the test suite uses. Included by the files that define them and by
 * tests; check-layers.sh keeps every other library file away. */
#ifndef ZKC_TEST_HOOKS_H
#define ZKC_TEST_HOOKS_H

#include <stdint.h>

#include "zkcoord/client.h"

/* Requests submitted to ZooKeeper so far (the tests' no-traffic checks). */
uint64_t zkc__requests(const zkc_client_t *c);
/* Renewal probes sent so far, and whether one is unanswered (probe.c):
 * the no-traffic checks count them apart. */
uint64_t zkc__probes(zkc_client_t *c);
int zkc__probe_pending(zkc_client_t *c);
/* Answers the round-trip floor was fed (renewal.h), probes' and syncs',
 * and the floor now (-1: none yet). */
uint64_t zkc__rtt_answers(zkc_client_t *c, int64_t *floor_us);
/* The connected session's id and password (handle.c), so that a test can
 * open a second handle on the same session; ZKC_ECONNLOSS when not
 * connected. */
int zkc__session_credentials(zkc_client_t *c, int64_t *id, char passwd[16]);

/* Grants decided on a quick run's create alone, so far, in this process
 * (qengine.c): the randomized test reports how often its runs took it. */
uint64_t zkc__quick_grants(void);

/* Test seam: when set, the mutex calls it on the calling thread at the
 * points below, where the tests put a state change or a racing call. NULL
 * in every program but the tests. */
typedef enum {
  ZKC__SEAM_GRANTED,   /* acquire: between the grant and the record */
  ZKC__SEAM_RELEASING /* release: the hold is leaving, the client in use */
} zkc__seam_t;
struct zkc_mutex;
extern void (*zkc__mutex_seam)(struct zkc_mutex *m, zkc__seam_t where);

/* Test seam: when set, the queue engine passes every new attempt's uuid
 * (36 characters and a NUL) through it before using it (qown.c): a test
 * gives a run the uuid of a node it made itself, as a create cut off and
 * applied would have. */
extern void (*zkc__uuid_seam)(char uuid[37]);

/* Test seam: when set, the queue engine calls it at the start of a round
 * that watches our own node too (the sole blocker's), before any of the
 * round's requests is sent (qround.c): a test holds the thread there. */
extern void (*zkc__round_seam)(void);

/* The least round trip through the leader (microseconds, the round-trip
 * floor: renewal.h) at which waiters learn ahead (probe.c; 1000 by
 * default; before a probe is answered, a client learns ahead): 0 always
 * learns ahead, INT64_MAX never does, not even before its first probe. */
extern int64_t zkc__learn_ahead_floor_us;

/* Test seam: when set, the queue engine calls it in a vouched run (the
 * downgrade) once the voucher's read is answered, before it is judged. */
extern void (*zkc__vouch_seam)(void);

/* Test seam: when set, the semaphore calls it on the acquiring thread once
 * its queue node is first, before its lease round is sent (sem_run.c),
 * with the path of its leases: a test puts a stranger's lease there. */
extern void (*zkc__sem_seam)(const char *leases);

/* Test seam: when set, the semaphore's run calls it on its driving thread
 * just before it sends the read of its path's layout (sem_run.c): a test
 * ends the session there, so that the read meets the session's end. */
extern void (*zkc__sem_layout_seam)(void);

/* Test seam: when set, the multi-lock calls it on the acquiring thread
 * once the read of the set's nodes is answered, before it is judged
 * (multilock.c): a test stalls the thread there. */
extern void (*zkc__multilock_seam)(void);

/* Test seam: when set, every grant calls it on the deciding thread the
 * moment its proof is found fresh (the queue engine and the lease run tell
 * their world, the multi-lock the client once the set's read holds;
 * zkc__granted, state.c, calls the seam). Only refusals follow it before
 * the acquire returns or its callback runs: the randomized fault test stamps
 * when the library decided, which a stop of the process after that cannot
 * move. */
extern void (*zkc__grant_seam)(void);

/* Test seam: when set, the async engine calls it on its thread at a
 * grant, once the hold's guard was added and before the hold is listed
 * where a delete of its node is looked for (async_engine.c), with the
 * node's path and the guard's id: a test deletes the node there. */
extern void (*zkc__async_grant_seam)(const char *node, uint64_t guard);
/* Test seam: when set, the maintenance thread calls it with a guard's id
 * before it sends the read confirming that the guard's node was deleted
 * (guard.c): a test holds the check there, as a silent ensemble would. */
extern void (*zkc__guard_check_seam)(uint64_t guard);
/* Deletes told by guards to their owners so far, in the process (guard.c). */
uint64_t zkc__guard_told(void);
/* 1 while guard `id` waits for zkc__guard_start (guard.c). */
int zkc__guard_waiting(zkc_client_t *c, uint64_t id);

#endif /* ZKC_TEST_HOOKS_H */
