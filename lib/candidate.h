/* SPDX-License-Identifier: Apache-2.0 */
/* The candidate that the leader recipes (latch.c, selector.c) are made of:
 * an object with a thread of its own that queues a node on the election path
 * with the lock queue and leads while that node is first. What leading
 * means (a flag and callbacks, or the user's take_leadership) stays with each
 * recipe; queueing, the checks a node passes before it may lead, giving the
 * node up and reading the participants are written here, once. */
#ifndef ZKC_CANDIDATE_H
#define ZKC_CANDIDATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hold_fate.h"
#include "hold_view.h"
#include "queue.h"
#include "session.h"
#include "stats.h"
#include "zkcoord/leader.h"

/* One participant of an election, as a participant list is made from. */
typedef struct zkc__participant {
  char *id;      /* its participant id (the node data), NUL-terminated */
  int is_leader; /* 1 for the participant whose node is first */
} zkc__participant_t;

/* The life of a recipe object. */
enum { ZKC__LATENT = 0, ZKC__STARTED = 1, ZKC__CLOSED = 2 };

/* Embedded in the recipe object (zeroed with it); mu guards the fields
 * below it and the recipe's own. */
typedef struct zkc__candidate {
  zkc_client_t *client;      /* set at init, never changes */
  const char *kind;          /* "latch" or "selector", for the log */
  char *path;                /* the election path */
  char *id;                  /* the participant id: the node's data */
  zkc__observer_fn observer; /* registered at init with ctx `self` */
  void *self;                /* the recipe object */
  int (*turn)(void *self);   /* one turn of the thread; 0 = stop */

  pthread_mutex_t mu;
  pthread_cond_t cv; /* state, queue, connection and leadership changes */
  int state;         /* ZKC__LATENT, ZKC__STARTED, ZKC__CLOSED */
  int queued;        /* a turn is wanted (set by start) or under way */
  int has_node;      /* held and rec are valid (while leading) */
  zkc__held_t held;
  /* Leadership's standing, as every recipe's hold keeps it: its token and
   * session, in doubt, lost (leadership taken away), its loss named once. */
  zkc__hold_rec_t rec;
  uint64_t guard;       /* the watch on held.node */
  int live;             /* the client's connection is up */
  int64_t lost_session; /* the last session reported LOST */
  uint64_t suspend_gen; /* SUSPENDED/READ_ONLY reports seen */
  pthread_t thread;
  int thread_started;
  atomic_uint_fast64_t thread_id; /* zkc__thread_id() of the thread */
  atomic_int cancel;              /* close: the thread must stop */
  int errors;                     /* election errors since the last lead */
  int failed; /* the permanent error that ended the election, or ZKC_OK */
  zkc__lstats_t *st;  /* the stats record (NULL: out of memory) */
  int64_t began_us;   /* the thread's: when this turn's queueing began */
  int64_t granted_us; /* while has_node: when it took the lead */

  pthread_mutex_t cb_mu; /* held while a user callback runs */
  /* The view of the current term of leadership as a hold (zkc_latch_hold,
   * zkc_selector_hold: hold_candidate.c), set at init. */
  zkc__hold_head_t view;
} zkc__candidate_t;

/* Copies path and id, sets up the locks, takes a client reference and
 * registers `observer` (ctx `self`). Fields the observer reads in the recipe
 * must be set before. On failure nothing is left to free in cand.
 * ZKC_OK, ZKC_ENOMEM or ZKC_ECLOSED (client closed). */
int zkc__candidate_init(zkc__candidate_t *cand, const char *kind,
                        zkc_recipe_t recipe, zkc_client_t *client,
                        const char *path, const char *id,
                        zkc__observer_fn observer, void *self);

/* After the thread is gone: unregisters the observer, drops the client
 * reference and frees what init made (not cand itself). ZKC_OK, or
 * ZKC_EDEADLK (from the observer's dispatch: nothing done). */
int zkc__candidate_destroy(zkc__candidate_t *cand);

/* 1 when called on the candidate's own thread. */
int zkc__candidate_on_thread(const zkc__candidate_t *cand);

/* Records a state the observer was told; caller holds cand->mu. */
void zkc__candidate_note_state_locked(zkc__candidate_t *cand, zkc_state_t st,
                                      int64_t lost_session);

/* Starts the thread, queued, calling turn(self) until it returns 0.
 * ZKC_OK, ZKC_ECLOSED (client closed), ZKC_EBUSY (not latent), ZKC_ESYSTEM. */
int zkc__candidate_start(zkc__candidate_t *cand, int (*turn)(void *self));

/* The thread: waits until queued with a live connection, then queues a node
 * named lock_name and waits until it is first; *gen0 (may be NULL) is
 * suspend_gen as queueing began. ZKC_OK (*held filled), ZKC_ECLOSED (the
 * thread must stop), or the election error. */
int zkc__candidate_queue(zkc__candidate_t *cand, const char *lock_name,
                         zkc__held_t *held, uint64_t *gen0);

/* The thread, after an election error: pauses (or, pause 0, waits to be
 * queued again). Returns turn's answer: 0 when the thread must stop. */
int zkc__candidate_retry_later(zkc__candidate_t *cand, int rc, int pause);

/* The thread, after an election error that would recur (as
 * zkc__background_retry tells): records it as `failed`, unqueues, wakes
 * waiters and logs it. 1 if rc was permanent (the recipe then tells its
 * user and stops or waits), else 0. */
int zkc__candidate_fail(zkc__candidate_t *cand, int rc);

/* The thread, with a first node: records it (and watches it, telling
 * on_gone) if it may lead, i.e. unless cancelled, `doubt` (the recipe's
 * policy) or not of the current session. 1 if recorded; at 0 the caller
 * gives the node up (zkc__candidate_decline). Caller holds cand->mu. */
int zkc__candidate_hold_locked(zkc__candidate_t *cand, zkc__held_t *held,
                               int doubt, zkc__guard_fn on_gone);

/* The thread, after hold_locked (outside every lock: the stats' hook may
 * be told): counts this turn's acquire as led, or refused. */
void zkc__candidate_count_turn(zkc__candidate_t *cand, const zkc__held_t *held,
                               int lead);

/* Deletes a node whose leadership failed (lost, or never to lead) within
 * about a round trip: unanswered by then (a silent ensemble), the delete is
 * the janitor's and the thread goes on. held->node is freed. */
void zkc__candidate_let_go(zkc__candidate_t *cand, zkc__held_t *held);

/* Deletes a node that may not lead (let_go). Returns turn's answer. */
int zkc__candidate_decline(zkc__candidate_t *cand, zkc__held_t *held);

/* Takes the node and its watch from cand; caller holds cand->mu, then removes
 * the guard and releases the node. */
zkc__held_t zkc__candidate_take_node_locked(zkc__candidate_t *cand,
                                            uint64_t *guard);

/* Leadership's standing (cand->rec) after state `st` (the arguments of
 * zkc__hold_rec_on_state): in doubt, standing, or lost; 1 when this change
 * named its loss (*why set), which the recipe then tells once. And
 * leadership taken away (its node deleted; a recipe's stricter rule): 1
 * when named now. Both 0 while no node is held. Caller holds cand->mu. */
int zkc__candidate_state_locked(zkc__candidate_t *cand, zkc_state_t st,
                                int64_t lost_session, int lost_on_suspended,
                                zkc_lost_reason_t *why);
int zkc__candidate_lose_locked(zkc__candidate_t *cand);

/* ---- the accessors both recipes answer alike over their candidate ----
 * cand is NULL when the recipe's object is; fn names the public call,
 * `kind` the object ("latch", "selector") in a refusal. */

/* The permanent error that ended the election, or ZKC_OK. */
int zkc__candidate_error(zkc__candidate_t *cand, const char *fn,
                         const char *kind);
int zkc__candidate_stats(const zkc__candidate_t *cand, const char *fn,
                         const char *kind, zkc_lock_stats_t *out);
void zkc__participants_free(zkc__participant_t *participants, size_t count);
int zkc__candidate_participants(zkc__candidate_t *cand, const char *fn,
                                const char *kind, zkc__participant_t **out,
                                size_t *count);
int zkc__candidate_leader_id(zkc__candidate_t *cand, const char *fn,
                             const char *kind, char **id);

/* Every contender on `path` in queue order with its id (the node data); the
 * first is marked leader. A head that vanished between the list and the
 * read makes it read again a few times. See zkc__latch_participants for
 * the result and the codes (brackets itself with zkc__call_enter). */
int zkc__participants_read(zkc_client_t *c, const char *path,
                           zkc__participant_t **out, size_t *count);

/* The leader's id as zkc_latch_leader_id returns it. */
int zkc__leader_id_read(zkc_client_t *c, const char *path, char **id);

#endif /* ZKC_CANDIDATE_H */
