/* SPDX-License-Identifier: Apache-2.0 */
/* What the reads and writes under a mutex hold (fenced.c) need of the
 * mutex (mutex.c): the calling thread's hold, pinned for the call, and the
 * one fenced write (a check of the hold's node and a set, in one
 * transaction) that zkc_mutex_fenced_set and zkc_mutex_fenced_cas share. */
#ifndef ZKC_FENCED_H
#define ZKC_FENCED_H

#include <stddef.h>
#include <stdint.h>

#include "zkcoord/mutex.h"

/* The client the mutex was made on (set at create, never changes). */
zkc_client_t *zkc__mutex_client(const zkc_mutex_t *m);

/* The calling thread's hold on m, for a call that uses it: *session_id is
 * the session that owns the hold's node, and m counts as in use (destroy
 * refuses) until zkc__mutex_hold_leave. ZKC_OK, ZKC_ENOTOWNER (no hold) or
 * ZKC_ELOST (the hold is lost); nothing to leave unless ZKC_OK. */
int zkc__mutex_hold_enter(zkc_mutex_t *m, int64_t *session_id);
/* How the calling thread's hold stands now: ZKC_OK, ZKC_ELOST (lost) or
 * ZKC_ENOTOWNER. */
int zkc__mutex_hold_check(zkc_mutex_t *m);
/* Ends zkc__mutex_hold_enter's use of m. */
void zkc__mutex_hold_leave(zkc_mutex_t *m);

/* zkc_mutex_fenced_set with an expected data version for path (-1: any);
 * on success *new_version (when not NULL) is path's new data version.
 * Validates its arguments and returns zkc_mutex_fenced_set's codes, plus
 * ZKC_EBADVERSION when path's version is not `version` (nothing set). */
int zkc__mutex_fenced_write(zkc_mutex_t *m, const char *path,
                            const void *data, size_t len, int32_t version,
                            int32_t *new_version);
/* zkc__mutex_fenced_write's `version` for a create (zkc_mutex_fenced_create):
 * ZKC_ENODEEXISTS when path exists, nothing written. */
#define ZKC__FENCED_CREATE INT32_MIN



#endif /* ZKC_FENCED_H */
