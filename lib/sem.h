/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's inner parts shared by its files: the object and its
 * acquiring (semaphore.c), the lease handles (sem_lease.c) and the shared
 * count (sem_count.c). */
#ifndef ZKC_SEM_H
#define ZKC_SEM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hold_fate.h"
#include "hold_view.h"
#include "names.h"
#include "queue_nodes.h" /* zkc__held_t */
#include "session.h"
#include "stats.h"
#include "zkcoord/semaphore.h"

#define COUNT_BYTES ZKC__COUNT_BYTES /* names.h: the count's codec */

struct zkc_lease {
  zkc_sem_t *sem;
  atomic_int released; /* set once, by the release that wins */
  zkc__hold_rec_t rec; /* its standing; its token: the newest node's czxid,
                          its session: the oldest node's */
  size_t n;
  zkc__held_t *nodes; /* n nodes, oldest first; kept until free */
  uint64_t *guards;   /* the watch on each node (0: none) */
  int64_t granted_us; /* when it was granted (stats) */
  zkc_lease_t *prev, *next; /* in sem->held while held */
  /* An async hold's (async_engine.c): counted here, its standing, watches
   * and losses its context's (rec and guards unused by the semaphore). */
  unsigned char owned;
  zkc__hold_head_t view; /* zkc_lease_hold's (hold_lease.c) */
};

struct zkc_sem {
  zkc_client_t *client; /* set at create, never changes */
  char *path, *locks, *leases, *count_path;
  int max; /* the fixed limit, or the count node's seed */
  zkc__lstats_t *st; /* its stats record (NULL: out of memory) */
  /* The path's layout was accepted by a grant: later acquires read it
   * only behind their lease creates (lease_run.c), not before queueing. */
  atomic_int layout_known;
  pthread_mutex_t mu; /* guards everything below */
  zkc_lease_t *held;
  size_t held_nodes; /* lease nodes of all held handles */
  int users;         /* threads inside a call: destroy refuses while > 0 */
  zkc_sem_lost_fn lost_fn;
  void *lost_ctx;
  zkc__released_list_t released; /* released in doubt: a loss still told */
};

/* ---- semaphore.c ---- */

/* The guard of a lease node: deleted by another client (the lease is lost). */
void zkc__sem_on_node_gone(void *ctx, uint64_t guard);

/* What the acquires share, blocking or async, around their one run
 * (sem_run.h). */
/* ZKC_EINVAL (told as fn's) when qty is 0 or above a fixed limit. */
int zkc__sem_qty_check(const zkc_sem_t *s, const char *fn, unsigned qty);
/* A lease set's own fenced call found it lost first (a node gone, its
 * session over): named, logged, counted and told once, for `why`. */
void zkc__sem_lease_found_lost(zkc_lease_t *l, zkc_lost_reason_t why);

/* An acquire of qty begins: ZKC_EDEADLK when this object's own leases
 * stand in the way; ZKC_OK counts it until zkc__sem_leave (destroy
 * refuses meanwhile: ZKC_EBUSY). */
int zkc__sem_enter(zkc_sem_t *s, unsigned qty);
void zkc__sem_leave(zkc_sem_t *s);
/* The grant: l (its nodes made, fitting) becomes one of s's held leases,
 * its nodes guarded. ZKC_ELOST when its session is gone already (queue
 * again; the nodes are still the caller's). */
int zkc__sem_grant(zkc_sem_t *s, zkc_lease_t *l);
/* An async hold's grant: l (owned) becomes one of s's held leases, only
 * counted (held_nodes, destroy refused), until zkc__sem_ungrant. */
void zkc__sem_grant_owned(zkc_sem_t *s, zkc_lease_t *l);
/* l is no longer held: off s's list and count (s->mu held). */
void zkc__sem_unlist_locked(zkc_sem_t *s, zkc_lease_t *l);
/* An owned lease released: uncounted (takes s->mu). */
void zkc__sem_ungrant(zkc_sem_t *s, zkc_lease_t *l);

/* ---- sem_run.c: the lease handle the acquire run fills ---- */

/* An empty lease handle with room for qty nodes (NULL: no memory). */
zkc_lease_t *zkc__sem_lease_new(unsigned qty);
/* Frees a lease handle and its node names. */
void zkc__sem_lease_delete(zkc_lease_t *l);
/* The lease's node names joined with '\n' in its order, malloc'd (NULL:
 * no memory): a lease set's nodes as one hold's. */
char *zkc__sem_lease_joined(const zkc_lease_t *l);

/* 1 while the lease is held, not lost and not in doubt (its view's
 * zkc_hold_is_held). */
int zkc__lease_is_held(const zkc_lease_t *l);

/* ---- sem_count.c ---- */

/* Creates the count node with `value` (and its parents), each request
 * given up at limit_ms (monotonic; ZKC__FOREVER) with ZKC_ETIMEDOUT. When
 * someone else created it first: ZKC_OK if `theirs_ok`, else
 * ZKC_ENODEEXISTS. */
int zkc__sem_count_create(zkc_client_t *c, const char *path, int32_t value,
                          int theirs_ok, int64_t limit_ms);

#endif /* ZKC_SEM_H */
