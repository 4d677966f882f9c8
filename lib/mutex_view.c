/* SPDX-License-Identifier: Apache-2.0 */
/* The calling thread's hold of a mutex as its views and the multi-lock see
 * it (mutex_hold.h): pinned while a call on it runs, checked, marked lost,
 * asked whether it stands. Beside mutex.c's acquire and release, below
 * the hold kinds and the multi-lock's set, which need only these. */
#include <stdlib.h>
#include <string.h>

#include "mutex_hold.h"
#include "mutex_struct.h"

#define my_hold zkc__mutex_my_hold

zkc_client_t *zkc__mutex_client(const zkc_mutex_t *m) { return m->client; }

zkc__side_t zkc__mutex_side(const zkc_mutex_t *m) { return m->side; }

int zkc__mutex_hold_pin(zkc_mutex_t *m, int standing, int64_t *session_id,
                        int64_t *token, char **node) {
  if (node) *node = NULL;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  int rc = h == NULL                                 ? ZKC_ENOTOWNER
           : standing && atomic_load(&h->rec.lost) ? ZKC_ELOST
                                                   : ZKC_OK;
  if (rc == ZKC_OK && node && (*node = strdup(h->held.node)) == NULL)
    rc = ZKC_ENOMEM;
  if (rc == ZKC_OK) {
    *session_id = h->held.session_id;
    if (token) *token = h->held.token;
    m->users++;
  }
  pthread_mutex_unlock(&m->mu);
  return rc;
}

int zkc__mutex_hold_enter(zkc_mutex_t *m, int64_t *session_id, char **node) {
  return zkc__mutex_hold_pin(m, 1, session_id, NULL, node);
}

int zkc__mutex_hold_check(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  int rc = h == NULL                     ? ZKC_ENOTOWNER
           : atomic_load(&h->rec.lost) ? ZKC_ELOST
                                       : ZKC_OK;
  pthread_mutex_unlock(&m->mu);
  return rc;
}

void zkc__mutex_hold_lost(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h != NULL) zkc__hold_rec_lose(&h->rec, NULL); /* told on a state */
  pthread_mutex_unlock(&m->mu);
}

void zkc__mutex_hold_leave(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  m->users--;
  pthread_mutex_unlock(&m->mu); /* the last touch of m in a call */
}

int zkc__mutex_is_held(const zkc_mutex_t *cm) {
  if (cm == NULL) return 0;
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  /* The session asked too: after a stop of this process its renewal may
   * have lapsed before the maintenance thread has told the holds. */
  int held = h != NULL && zkc__hold_rec_stands(&h->rec, m->client);
  pthread_mutex_unlock(&m->mu);
  return held;
}
