/* SPDX-License-Identifier: Apache-2.0 */
/* The semaphore's lease handles: release (the lease nodes deleted, the
 * guards removed first), free, token, nodes and is_held, from any thread. */
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "queue.h"
#include "sem.h"
#include "util.h"

static int lease_release_impl(zkc_lease_t *l) {
  if (l == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_lease_release: lease is NULL");
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  if (atomic_exchange(&l->released, 1)) return ZKC_ENOTOWNER;
  zkc_sem_t *s = l->sem;
  zkc_client_t *c = s->client;
  uint64_t *guards = calloc(l->n ? l->n : 1, sizeof *guards);
  if (guards == NULL) {
    atomic_store(&l->released, 0);
    return ZKC_ENOMEM;
  }
  pthread_mutex_lock(&s->mu); /* on_node_gone reads the ids under it */
  s->users++;
  for (size_t i = 0; i < l->n; i++) guards[i] = l->guards[i], l->guards[i] = 0;
  pthread_mutex_unlock(&s->mu);
  for (size_t i = 0; i < l->n; i++) /* before the deletes they would see */
    zkc__guard_remove(c, guards[i]);
  free(guards);
  /* Released while its session is not proven live: it may have been lost
   * before, not a clean end; its nodes are the janitor's, and a loss learnt
   * later is told (hold_fate.h). */
  int unproven = 0;
  int rc = atomic_load(&l->rec.lost) ? ZKC_ELOST
           : zkc__client_facts(c).closed   ? ZKC_ECLOSED
                                     : zkc__hold_rec_release_code(&l->rec, c,
                                                                  &unproven);
  for (size_t i = 0; unproven && i < l->n; i++)
    zkc__janitor_add(c, l->nodes[i].node, NULL);
  int ended = rc; /* what the lease was before the deletes */
  for (size_t i = 0; rc != ZKC_ECLOSED && !unproven && i < l->n; i++) {
    int r = zkc__lock_delete(c, l->nodes[i].node);
    if (r == ZKC_ELOST || r == ZKC_ECLOSED) {
      if (rc == ZKC_OK) rc = r;
    } else if (r != ZKC_OK && i == 0) {
      /* Refused (all nodes share one parent and its ACL): still held. */
      pthread_mutex_lock(&s->mu);
      for (size_t k = 0; k < l->n; k++)
        zkc__guard_add(c, l->nodes[k].node, l->nodes[k].session_id,
                       zkc__sem_on_node_gone, s, NULL, &l->guards[k]);
      s->users--;
      pthread_mutex_unlock(&s->mu);
      atomic_store(&l->released, 0);
      return r;
    } else if (r != ZKC_OK && rc == ZKC_OK) {
      rc = r; /* the node stays until its session ends (logged) */
    }
  }
  zkc__stats_released(s->st, l->granted_us, rc);
  pthread_mutex_lock(&s->mu);
  zkc__hold_rec_keep(&l->rec, ended, &s->released); /* a loss still told */
  zkc__sem_unlist_locked(s, l);
  s->users--;
  pthread_mutex_unlock(&s->mu); /* the last touch of s */
  return rc;
}

int zkc_lease_release(zkc_lease_t *l) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, lease_release_impl(l));
}

static int lease_free_impl(zkc_lease_t *l) {
  if (l == NULL) return ZKC_OK;
  int rc = ZKC_OK;
  if (!atomic_load(&l->released)) {
    rc = zkc_lease_release(l);
    if (!atomic_load(&l->released)) return rc; /* EDEADLK, or refused */
  }
  zkc__sem_lease_delete(l);
  return rc;
}

int zkc_lease_free(zkc_lease_t *l) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, lease_free_impl(l));
}

int zkc__lease_is_held(const zkc_lease_t *cl) {
  if (cl == NULL) return 0;
  zkc_lease_t *l = (zkc_lease_t *)cl; /* atomics: reading is no change */
  /* The session asked too: after a stop of this process its renewal may
   * have lapsed before the maintenance thread has told the leases. */
  return !atomic_load(&l->released) &&
         zkc__hold_rec_stands(&l->rec, l->sem->client);
}
