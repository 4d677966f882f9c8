/* SPDX-License-Identifier: Apache-2.0 */
/* What the read-write lock (rwlock.c) needs of the mutex (mutex.c): its two
 * sides are mutexes with their own node names, linked as twins. */
#ifndef ZKC_RWSIDE_H
#define ZKC_RWSIDE_H

#include "zkcoord/mutex.h"

typedef enum {
  ZKC__SIDE_MUTEX, /* a plain mutex: "lock-" nodes */
  ZKC__SIDE_WRITE, /* "__WRIT__": waits for everyone before it */
  ZKC__SIDE_READ   /* "__READ__": waits only for writers before it */
} zkc__side_t;

/* A mutex of the given side on a validated path: zkc_mutex_create's codes. */
int zkc__mutex_new(zkc_mutex_t **out, zkc_client_t *client, const char *path,
                   zkc__side_t side);
/* Links the sides of one read-write lock (before either is used). */
void zkc__mutex_twin(zkc_mutex_t *write, zkc_mutex_t *read);
/* 1 while a thread holds it or is inside a call on it. */
int zkc__mutex_busy(zkc_mutex_t *m);
/* Frees a mutex that is not busy: ZKC_OK, or ZKC_EDEADLK from its own
 * callback (nothing changed). */
int zkc__mutex_free(zkc_mutex_t *m);

#endif /* ZKC_RWSIDE_H */
