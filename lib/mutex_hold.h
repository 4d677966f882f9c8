/* SPDX-License-Identifier: Apache-2.0 */
/* The calling thread's hold on a mutex, for the calls that act under it
 * (fenced.c's reads and writes, the multi-lock's checks): pinned for the
 * call, checked, marked lost. */
#ifndef ZKC_MUTEX_HOLD_H
#define ZKC_MUTEX_HOLD_H

#include <stddef.h>
#include <stdint.h>

#include "zkcoord/mutex.h"

/* Locks held as one set (a multi-lock's), as its hold kind sees them. */
typedef struct zkc__lock_set {
  size_t n;
  zkc_mutex_t **locks;
} zkc__lock_set_t;

/* The client the mutex was made on (set at create, never changes). */
zkc_client_t *zkc__mutex_client(const zkc_mutex_t *m);

/* The calling thread's hold on m, for a call that uses it: *session_id is
 * the session that owns the hold's node, *node (when node is not NULL) a
 * copy of its path (malloc), and m counts as in use (destroy refuses) until
 * zkc__mutex_hold_leave. ZKC_OK, ZKC_ENOTOWNER (no hold), ZKC_ELOST (the
 * hold is lost) or ZKC_ENOMEM; nothing to leave or free unless ZKC_OK. */
int zkc__mutex_hold_enter(zkc_mutex_t *m, int64_t *session_id, char **node);
/* As zkc__mutex_hold_enter, with the hold's fencing token (when token is
 * not NULL), and a lost hold pinned too unless `standing` is asked. */
int zkc__mutex_hold_pin(zkc_mutex_t *m, int standing, int64_t *session_id,
                        int64_t *token, char **node);
/* How the calling thread's hold stands now: ZKC_OK, ZKC_ELOST (lost) or
 * ZKC_ENOTOWNER. */
int zkc__mutex_hold_check(zkc_mutex_t *m);
/* The calling thread found its hold lost itself (its node gone, its
 * session over): marked lost here; told to the lost callback by the
 * maintenance thread when the client learns of the loss, as any other. */
void zkc__mutex_hold_lost(zkc_mutex_t *m);
/* The calling thread's own call found its hold lost first (mutex_loss.c):
 * marked, logged, counted and told at once, for `why`. */
void zkc__mutex_found_lost(zkc_mutex_t *m, zkc_lost_reason_t why);
/* Ends zkc__mutex_hold_enter's use of m. */
void zkc__mutex_hold_leave(zkc_mutex_t *m);

/* 1 if the calling thread holds `m`, not lost and not in doubt (its
 * view's zkc_hold_is_held). */
int zkc__mutex_is_held(const zkc_mutex_t *m);

#endif /* ZKC_MUTEX_HOLD_H */
