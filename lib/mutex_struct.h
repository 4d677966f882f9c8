/* SPDX-License-Identifier: Apache-2.0 */
/* The mutex object, seen by the mutex's own files only: mutex.c (the
 * object, acquiring and releasing, what a thread holds), mutex_loss.c (how
 * a hold is watched and learns it is lost) and mutex_downgrade.c (the
 * read-write lock's writer taking the read side). */
#ifndef ZKC_MUTEX_STRUCT_H
#define ZKC_MUTEX_STRUCT_H

#include <pthread.h>
#include <stdint.h>

#include "hash.h"
#include "hold_fate.h"
#include "hold_view.h"
#include "mutex_sides.h"
#include "queue_nodes.h"
#include "session.h"
#include "stats.h"
#include "util.h"
#include "zkcoord/mutex.h"

/* One thread's hold on the mutex. */
typedef struct hold {
  uint64_t thread; /* zkc__thread_id() of the holder */
  unsigned count;
  zkc__held_t held;
  zkc__hold_rec_t rec; /* its standing: in doubt, lost, told */
  zkc_revoke_fn revoke_fn; /* non-NULL: revocable (its node's data empty) */
  void *revoke_ctx;
  uint64_t guard; /* the watch on our own node */
  int64_t granted_us; /* for the stats' hold time */
  UT_hash_handle hh;
} hold_t;

struct zkc_mutex {
  zkc_client_t *client; /* set at create, never changes */
  char *path;
  pthread_mutex_t mu; /* guards everything below */
  hold_t *holds;
  int users; /* threads inside a call: destroy refuses while > 0 */
  zkc_lost_fn lost_fn;
  void *lost_ctx;
  zkc_revoke_fn revoke_fn; /* non-NULL: new holds are revocable */
  void *revoke_ctx;
  zkc__side_t side;    /* set at create, never changes */
  zkc__lstats_t *st;   /* its stats record (NULL: out of memory) */
  zkc_mutex_t *twin;   /* the other side of a read-write lock, or NULL */
  zkc__released_list_t released; /* released in doubt: a loss still told */
  zkc__hold_head_t view; /* zkc_mutex_hold's: the calling thread's hold */
  zkc__quiet_t quiet;    /* a plain mutex's quick acquire (not a side's) */
};

/* The calling thread's hold, or NULL. Caller holds m->mu. */
static inline hold_t *zkc__mutex_my_hold(const zkc_mutex_t *m) {
  uint64_t me = zkc__thread_id();
  hold_t *h = NULL;
  HASH_FIND(hh, m->holds, &me, sizeof me, h);
  return h;
}

/* ---- mutex_loss.c ---- */

/* The mutex's observer of its client's states (zkc__recipe_attach): every
 * hold in doubt while disconnected, lost with its session. */
void zkc__mutex_on_state(void *ctx, zkc_state_t st, int64_t lost_session);
/* Watches h's own node (told version `told`, -1: none yet), for its delete
 * and, on a revocable hold, the revocation marker. Caller holds m->mu. */
void zkc__mutex_guard_hold(zkc_mutex_t *m, hold_t *h, int32_t told);
/* Records a granted hold in m's table and watches it: ZKC_OK, ZKC_ENOMEM,
 * or ZKC__REQUEUE when its session is gone already. Caller holds m->mu. */
int zkc__mutex_record(zkc_mutex_t *m, hold_t *h);
/* zkc__mutex_record(): the grant came too late, queue again (never
 * returned to callers). */
#define ZKC__REQUEUE 1

/* ---- mutex_downgrade.c ---- */

/* Before m's own lock is taken: ZKC_EDEADLK for a thread holding the read
 * side that asks for the write side; for the read side of a thread holding
 * the write side, *wnode (malloc) is the write node to carry the sequence
 * of (zkc__mutex_downgrade); else *wnode is NULL. */
int zkc__mutex_twin_check(zkc_mutex_t *m, char **wnode);
/* The write holder takes the read side beside its write node wnode, with
 * data (NULL: the holder id) until deadline: ZKC_OK with *out filled, or the
 * queue's codes (ZKC_ELOST when the write node is no longer this
 * session's). On failure no node is left: a read node made and then
 * refused is deleted, waited for no longer than the deadline allows. */
int zkc__mutex_downgrade(zkc_mutex_t *m, const char *wnode, const char *data,
                         int64_t deadline, zkc__held_t *out);

#endif /* ZKC_MUTEX_STRUCT_H */
