/* SPDX-License-Identifier: Apache-2.0 */
/* A semaphore's lease set as a hold (zkc_lease_hold): every node of the
 * set is checked by a fenced write, in the same transaction, and its token
 * is the newest node's. */
#include <stdlib.h>
#include <string.h>

#include "hold_view.h"
#include "sem.h"

zkc_hold_t *zkc_lease_hold(zkc_lease_t *l) {
  return l ? ZKC__HOLD_OF(&l->view) : NULL;
}

static zkc_client_t *lease_client(const void *obj) {
  return ((const zkc_lease_t *)obj)->sem->client;
}

/* The nodes are kept until the lease is freed: no lock to read them. */
static int lease_enter(void *obj, int standing, zkc__fence_t *f) {
  zkc_lease_t *l = obj;
  if (atomic_load(&l->released)) return ZKC_ENOTOWNER;
  if (standing && atomic_load(&l->rec.lost)) return ZKC_ELOST;
  if ((f->nodes = zkc__sem_lease_joined(l)) == NULL) return ZKC_ENOMEM;
  f->session = l->rec.session;
  f->token = l->rec.token;
  return ZKC_OK;
}

static int lease_still(void *obj, const zkc__fence_t *f) {
  (void)f; /* a lease is one grant, never another */
  zkc_lease_t *l = obj;
  return atomic_load(&l->released)   ? ZKC_ENOTOWNER
         : atomic_load(&l->rec.lost) ? ZKC_ELOST
                                     : ZKC_OK;
}

/* Found lost by its own call: named and told at once, as a leader's term
 * is (hold_candidate.c); the watch or state that follows tells nothing. */
static void lease_lost(void *obj, const zkc__fence_t *f, int node) {
  (void)f;
  zkc__sem_lease_found_lost(obj, node < 0 ? ZKC_LOST_SESSION
                                          : ZKC_LOST_DELETED);
}

static void lease_leave(void *obj) { (void)obj; }

static int lease_is_held(const void *obj) { return zkc__lease_is_held(obj); }

/* A lease set is one grant, whose loss its semaphore tells. */
static const void *lease_scope(const void *obj, int64_t *grant) {
  const zkc_lease_t *l = obj;
  *grant = l->rec.token;
  return l->sem;
}

const zkc__hold_kind_t zkc__lease_hold_kind = {
    .borrowed = 1,
    .no_write = NULL,
    .client = lease_client,
    .enter = lease_enter,
    .still = lease_still,
    .lost = lease_lost,
    .leave = lease_leave,
    .is_held = lease_is_held,
    .scope = lease_scope,
};
