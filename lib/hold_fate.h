/* SPDX-License-Identifier: Apache-2.0 */
/* The fate of a hold, one rule for every recipe (hold_fate.c): when a
 * state change or a grant finds a hold lost, in doubt or standing, and how
 * its loss is told. The mutex (both read-write sides), the semaphore, the
 * asynchronous acquire, the latch and the selector all ask here. */
#ifndef ZKC_HOLD_FATE_H
#define ZKC_HOLD_FATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"
#include "zkcoord/mutex.h" /* zkc_lost_reason_t */

typedef enum {
  ZKC__HOLD_STANDS,   /* connected read-write: the node is there */
  ZKC__HOLD_IN_DOUBT, /* connection down or read-only: it may be gone */
  ZKC__HOLD_LOST      /* gone (or to be given up), and to be told so */
} zkc__hold_fate_t;

/* What state `st` (with the lost session, for ZKC_STATE_LOST) does to a hold
 * of session hold_session: SUSPENDED and READ_ONLY put it in doubt, or lose
 * it when the client counts doubt as loss (lost_on_suspended, *why
 * ZKC_LOST_SUSPENDED); the loss of its own session loses it (*why
 * ZKC_LOST_SESSION), another session's loss leaves it in doubt; a connected
 * state lets it stand. *why is set only for ZKC__HOLD_LOST. */
zkc__hold_fate_t zkc__hold_fate_on_state(zkc_state_t st, int64_t lost_session,
                                         int64_t hold_session,
                                         int lost_on_suspended,
                                         zkc_lost_reason_t *why);

/* The same rule at a grant, from the fate of the hold's session then: a
 * session gone, or in doubt when doubt counts as loss, means the grant came
 * too late (ZKC__HOLD_LOST: queue again or fail, never report a hold). */
zkc__hold_fate_t zkc__hold_fate_at_grant(zkc__session_fate_t fate,
                                         int lost_on_suspended);

/* The tokens of the holds one state change or one delete took away, kept
 * until the recipe tells its user outside its lock. Grows as needed: every
 * lost hold is named, however many one object has. */
typedef struct zkc__lost_list {
  int64_t *tokens;
  size_t n, cap;
  int dropped; /* out of memory: some holds were not named */
} zkc__lost_list_t;

void zkc__lost_push(zkc__lost_list_t *l, int64_t token);
/* Frees the tokens; the list is empty again. */
void zkc__lost_clear(zkc__lost_list_t *l);

/* ---- a hold released while in doubt ----
 * A hold whose session is not proven live when it is released (the
 * connection down, or the session's renewal at the leader not proven: a
 * stop of this process past its session) may have been lost before. The
 * release cannot report a clean end: it says ZKC_ECONNLOSS (in doubt) or
 * ZKC_ELOST (the session known gone), and the recipe keeps the hold's
 * token here until the session's fate is known, so that a loss learnt
 * after the release is still told, once. */

/* The release's code for a hold whose session's fate is `fate`. */
int zkc__release_code(zkc__session_fate_t fate);

typedef struct zkc__released {
  int64_t token, session;
} zkc__released_t;

typedef struct zkc__released_list {
  zkc__released_t *v;
  size_t n, cap;
  int dropped; /* out of memory: a released hold was not kept */
} zkc__released_list_t;

void zkc__released_push(zkc__released_list_t *l, int64_t token,
                        int64_t session);
/* What state st (zkc__hold_fate_on_state's arguments) does to the holds
 * released in doubt: the lost ones move to `lost` (*why set), the ones a
 * live state shows standing are forgotten, the rest stay. */
void zkc__released_on_state(zkc__released_list_t *l, zkc_state_t st,
                            int64_t lost_session, int lost_on_suspended,
                            zkc__lost_list_t *lost, zkc_lost_reason_t *why);
void zkc__released_clear(zkc__released_list_t *l);

/* ---- one hold's standing: the record every recipe's hold carries ----
 * A mutex hold, a lease set, an async hold and a leader's leadership
 * (candidate.h) each keep one, and every question about their standing is
 * asked of it: granted in time, in doubt, lost, its loss named once, held
 * now, what its release says and whether the release keeps it for a loss
 * learnt later. The flags are atomics:
 * is-held and a hold's own calls read them from any thread; the recipe's
 * lock orders the changes. */
typedef struct zkc__hold_rec {
  int64_t token;       /* its fencing token */
  int64_t session;     /* the session that owns its node(s) */
  atomic_int in_doubt; /* its session not known live: it may be gone */
  atomic_int lost;     /* gone, or to be given up */
  atomic_int told;     /* its loss is named for the lost callback */
} zkc__hold_rec_t;

/* r of a hold with `token` on `session`, granted standing (the async
 * engine proves that itself: no state change since the session was seen
 * live). */
void zkc__hold_rec_set(zkc__hold_rec_t *r, int64_t token, int64_t session);
/* A grant of the hold with `token` on `session`, as the client's session
 * stands now: ZKC__HOLD_LOST when it came too late (queue again or fail,
 * never report a hold); otherwise r is set, in doubt or standing. */
zkc__hold_fate_t zkc__hold_rec_grant(zkc__hold_rec_t *r, zkc_client_t *c,
                                     int64_t token, int64_t session);
/* A state change (zkc__hold_fate_on_state's arguments) reaches r: in doubt
 * or standing, or lost, its loss named in `lost` (*why set) unless it was
 * named before. 1 when this change named it: its nodes that may still
 * exist then go to the janitor. */
int zkc__hold_rec_on_state(zkc__hold_rec_t *r, zkc_state_t st,
                           int64_t lost_session, int lost_on_suspended,
                           zkc__lost_list_t *lost, zkc_lost_reason_t *why);
/* r is gone (a node of it deleted by another client, or found gone by the
 * holder's own call): marked lost, and named in `lost` unless it was named
 * before (1 then). With lost NULL it is only marked: the state change that
 * follows names it. */
int zkc__hold_rec_lose(zkc__hold_rec_t *r, zkc__lost_list_t *lost);
/* Held now: not lost, not in doubt, and its session proven live (after a
 * stop of this process the renewal may have lapsed before the maintenance
 * thread has told the holds). */
int zkc__hold_rec_stands(const zkc__hold_rec_t *r, zkc_client_t *c);
/* What releasing r says by its session's fate, asked once the recipe has
 * found it neither lost (ZKC_ELOST) nor its client closed (ZKC_ECLOSED):
 * ZKC_OK (delete its nodes), or ZKC_ECONNLOSS or ZKC_ELOST with *unproven
 * set (its nodes, which may still exist, are then the janitor's). */
int zkc__hold_rec_release_code(zkc__hold_rec_t *r, zkc_client_t *c,
                               int *unproven);
/* After a release whose code was `rc` (zkc__hold_rec_release_code): one
 * that said ZKC_ELOST or ZKC_ECONNLOSS, not a clean end, keeps r among the
 * released in doubt unless its loss was named already, so that a loss
 * learnt after the release is told, once. */
void zkc__hold_rec_keep(zkc__hold_rec_t *r, int rc,
                        zkc__released_list_t *kept);

struct zkc__lstats; /* stats.h */

/* The user's callback for one lost hold, adapted by the recipe. */
typedef void (*zkc__lost_tell_fn)(void *ctx, zkc_lost_reason_t why,
                                  int64_t token);
/* Tells each hold in `l`: a warning through the client's log naming the
 * recipe's kind ("lock", "lease", ...), path, reason and token, then
 * tell(ctx, why, token) when tell is not NULL, each loss counted before in
 * the recipe's stats record st (stats.h; NULL: none); then clears l. Called
 * outside every library lock (the sink and the callback are the user's). */
void zkc__lost_tell(zkc_client_t *c, struct zkc__lstats *st,
                    const char *kind, const char *path,
                    zkc_lost_reason_t why, zkc__lost_list_t *l,
                    zkc__lost_tell_fn tell, void *ctx);

#endif /* ZKC_HOLD_FATE_H */
