/* SPDX-License-Identifier: Apache-2.0 */
/* A mutex's side: a plain mutex, or one side of a read-write lock (two
 * mutexes with their own node names on one path, linked as twins). For
 * the recipes made of mutexes (rwlock.c, semaphore.c's queue). */
#ifndef ZKC_MUTEX_SIDES_H
#define ZKC_MUTEX_SIDES_H

#include "queue_nodes.h" /* ZKC__LOCK_NAME */
#include "zkcoord/mutex.h"

typedef enum {
  ZKC__SIDE_MUTEX, /* a plain mutex: "lock-" nodes */
  ZKC__SIDE_WRITE, /* "__WRIT__": waits for everyone before it */
  ZKC__SIDE_READ   /* "__READ__": waits only for writers before it */
} zkc__side_t;

/* The read-write lock's node names: Curator's. */
#define ZKC__WRITE_NAME "__WRIT__"
#define ZKC__READ_NAME "__READ__"

/* The node name of a side's nodes: blocking and async acquires alike. */
static inline const char *zkc__side_name(zkc__side_t side) {
  return side == ZKC__SIDE_WRITE  ? ZKC__WRITE_NAME
         : side == ZKC__SIDE_READ ? ZKC__READ_NAME
                                  : ZKC__LOCK_NAME;
}

/* A mutex of the given side on a validated path: zkc_mutex_create's codes. */
int zkc__mutex_new(zkc_mutex_t **out, zkc_client_t *client, const char *path,
                   zkc__side_t side);
/* Links the sides of one read-write lock (before either is used). */
void zkc__mutex_twin(zkc_mutex_t *write, zkc_mutex_t *read);
/* Its side (set at create, never changes). */
zkc__side_t zkc__mutex_side(const zkc_mutex_t *m);
/* 1 while a thread holds it or is inside a call on it. */
int zkc__mutex_busy(zkc_mutex_t *m);
/* Frees a mutex that is not busy: ZKC_OK, or ZKC_EDEADLK from its own
 * callback (nothing changed). */
int zkc__mutex_free(zkc_mutex_t *m);

#endif /* ZKC_MUTEX_SIDES_H */
