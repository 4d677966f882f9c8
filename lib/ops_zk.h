/* SPDX-License-Identifier: Apache-2.0 */
/* What the files that speak to the ZooKeeper client share (ops.c, the
 * requests; watches.c, the watch requests): sending a call on the live
 * handle, translating its code, and the completions that finish an op. */
#ifndef ZKC_OPS_ZK_H
#define ZKC_OPS_ZK_H

#include "client_struct.h" /* first: it sets THREADED for zookeeper.h */
#include "session_shared.h"

/* A ZooKeeper code entering zkcoord, for client c (ZCLOSING: closed, or a
 * handle being replaced). */
int zkc__zk_translate(zkc_client_t *c, int zk_rc);
/* op's result from a ZooKeeper code; the raw code is kept for logs. */
int zkc__op_from_zk(zkc__op_t *op, int zk_rc);
/* A call's synchronous refusal on zh (ZAUTHFAILED for a handle whose
 * credentials were refused). Caller holds zh_lock (read). */
int zkc__zk_refusal(zhandle_t *zh, int zk_rc);

/* Completions whose data is the op (ops.c). */
void zkc__on_void(int zk_rc, const void *data);
void zkc__on_data(int zk_rc, const char *value, int len,
                  const struct Stat *stat, const void *data);
void zkc__on_get(int zk_rc, const char *value, int len,
                 const struct Stat *stat, const void *data);
void zkc__on_children(int zk_rc, const struct String_vector *v,
                      const void *data);

/* Runs `call` on the live handle under the read lock, so close cannot free
 * the handle mid-call. A synchronous refusal finishes op at once. */
#define ZKC__SUBMIT(c, op, call)                              \
  do {                                                        \
    zkc__op_link((c), (op));                                       \
    pthread_rwlock_rdlock(&(c)->zh_lock);                     \
    zhandle_t *zh = (c)->zh;                                  \
    /* before the call: its completion may free an unwaited op */ \
    (op)->gen = zh != NULL ? (c)->hctx->gen : 0;              \
    int src_ = zh != NULL         ? zkc__zk_refusal(zh, (call))       \
               : atomic_load(&(c)->zh_closed) ? ZCLOSING      \
                                : ZCONNECTIONLOSS; /* new session coming */ \
    if (zh != NULL) atomic_fetch_add(&(c)->requests, 1);      \
    pthread_rwlock_unlock(&(c)->zh_lock);                     \
    if (src_ != ZOK && zkc__op_claim(op))                          \
      zkc__op_finish((op), zkc__op_from_zk((op), src_), NULL);             \
  } while (0)

#endif /* ZKC_OPS_ZK_H */
