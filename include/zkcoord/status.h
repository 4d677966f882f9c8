/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord status: who holds a lock path and who waits, read from the
 * ensemble without taking part.
 *
 * Works on any lock or election path, whoever made its nodes: zkcoord and
 * Curator (protected `_c_<uuid>-lock-<seq>` / `-latch-<seq>`), kazoo
 * (`<hex>__lock__<seq>`, `__rlock__`), go-zookeeper and others. Contenders
 * are ordered by the 10-digit sequence ZooKeeper appended, as every recipe
 * does; children without a sequence take no part in the queue and are
 * listed after the contenders.
 */
#ifndef ZKCOORD_STATUS_H
#define ZKCOORD_STATUS_H

#include "client.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many bytes of a node's data are copied into
 * zkc_contender_t.data (data_total tells the full size). */
#define ZKC_CONTENDER_DATA_MAX 4096

/* One child of a lock path. */
typedef struct zkc_contender {
  char *name;          /* node name (last path segment), NUL-terminated */
  const char *style;   /* "protected" (_c_<uuid>- prefix: zkcoord, Curator),
                          "kazoo" (__lock__, __rlock__, ...), "other";
                          static string */
  const char *kind;    /* what the node stands for in the queue, from the
                          marker right before its sequence: "read" (a
                          reader: Curator's __READ__, kazoo's __rlock__),
                          "write" (a writer of a read-write lock: Curator's
                          __WRIT__), "exclusive" (any other sequenced node:
                          a mutex's "lock-", kazoo's __lock__, which its
                          Lock and WriteLock share, anything unknown); NULL
                          without a sequence. Static string */
  int has_sequence;    /* 0: no sequence suffix, not in the queue */
  int64_t sequence;    /* the sequence as ZooKeeper wrote it (negative once
                          the parent's counter wrapped); 0 without one */
  int position;        /* 0 = holder, 1 = next, ...; -1 without sequence */
  char *data;          /* first data_len bytes of the node's data plus a
                          NUL (may contain other NULs: use data_len) */
  size_t data_len;     /* bytes copied, <= ZKC_CONTENDER_DATA_MAX */
  size_t data_total;   /* the node's full data length */
  int64_t ephemeral_owner; /* session id of an ephemeral node, else 0 */
  int64_t ctime_ms;    /* creation time, ms since the epoch, server clock */
  int64_t czxid;       /* zxid that created it: the fencing token */
  int data_denied;     /* 1: the node's ACL refuses this client reading its
                          data (a node made with ZKC_ACL_SECURE under other
                          credentials): data is empty (data_len and
                          data_total 0), the rest is filled; else 0 */
} zkc_contender_t;

/* Which recipe a child of a path belongs to: the layouts zkcoord, Curator,
 * kazoo and go-zookeeper keep. A recipe refuses a path that holds another
 * recipe's layout with ZKC_ELAYOUT (see zkc_mutex_acquire_timeout). */
typedef enum zkc_layout {
  ZKC_LAYOUT_NONE = 0, /* no recipe's node (a data node, ...) */
  /* A lock queue's node, sequenced: a mutex's, a read-write lock's, a
   * leader selector's, an async acquire's (Curator's InterProcessMutex,
   * InterProcessReadWriteLock and LeaderSelector, kazoo's Lock, WriteLock
   * and ReadLock, go-zookeeper's Lock); any sequenced node that is not a
   * latch's counts as one. */
  ZKC_LAYOUT_LOCK = 1 << 0,
  /* Set with ZKC_LAYOUT_LOCK: the node is a read-write lock's (kind
   * "read" or "write": Curator's "__READ__" and "__WRIT__", kazoo's
   * ReadLock "__rlock__"). A plain lock refuses the path. */
  ZKC_LAYOUT_RWLOCK = 1 << 1,
  /* A semaphore's "locks" or "leases" child (Curator's
   * InterProcessSemaphoreV2 layout, which zkcoord's semaphore keeps). */
  ZKC_LAYOUT_SEMAPHORE = 1 << 2,
  /* kazoo's Semaphore lease: an ephemeral node named by 32 hex digits. */
  ZKC_LAYOUT_KAZOO_SEMAPHORE = 1 << 3,
  /* A leader latch's node ("latch-" before the sequence: zkcoord's and
   * Curator's LeaderLatch). */
  ZKC_LAYOUT_ELECTION = 1 << 4,
  /* Set with ZKC_LAYOUT_LOCK: the node is a plain lock's ("lock-" before
   * the sequence: zkcoord's mutex, selector and async acquire, Curator's
   * InterProcessMutex and LeaderSelector, go-zookeeper's Lock). A
   * read-write lock refuses the path. kazoo's "__lock__", which its Lock
   * and its WriteLock both make, is neither this nor ZKC_LAYOUT_RWLOCK. */
  ZKC_LAYOUT_MUTEX = 1 << 5
} zkc_layout_t;

/* The ZKC_LAYOUT_* bits of one entry of zkc_lock_contender_list: the rule
 * every recipe applies to a path's children before it takes part (or'ed
 * over a path's children, it tells which recipes use the path). 0 for
 * NULL. No traffic; thread-safe. */
ZKC_EXTERN unsigned zkc_contender_layout(const zkc_contender_t *contender);

/* Whether `recipe` takes part on a path whose children are `contenders`
 * (count of them, as zkc_lock_contender_list lists them): 0 when it does, else
 * the ZKC_LAYOUT_* bit of the first other recipe's layout it refuses the
 * path for (its ZKC_ELAYOUT), and then, when what is not NULL, *what names
 * that layout in a phrase for a message (static string). The rule the
 * recipes apply themselves before they take part: a plain lock and a
 * read-write lock refuse a semaphore's, kazoo's semaphore's and an
 * election's nodes, and each other's (ZKC_LAYOUT_RWLOCK, ZKC_LAYOUT_MUTEX:
 * a node that cannot be told, kazoo's "__lock__" or a squatter's, queues
 * with both); a latch and a semaphore refuse each other's and a lock's own
 * nodes (ZKC_LAYOUT_LOCK; a sequenced node of no known recipe, a
 * squatter's, takes part in their queue instead). A mutex, a selector and
 * an async acquire are plain locks; either side of a read-write lock
 * (ZKC_RECIPE_READ, ZKC_RECIPE_WRITE) is a read-write lock; a latch is an
 * election. 0 for a multi-lock (each of its locks is judged as its own
 * recipe), an unknown recipe or no contenders. No traffic; thread-safe. */
ZKC_EXTERN unsigned zkc_layout_refusal(zkc_recipe_t recipe,
                                       const zkc_contender_t *contenders,
                                       size_t count, const char **what);

/* Reads every child of the lock path `path` with its data and stat, in
 * queue order: the holder (lowest sequence) first, then the waiters, then
 * children without a sequence (by name). A child deleted between the
 * listing and the read has left the queue and is not reported. Makes no
 * change on the ensemble and leaves no watch. One round trip for the
 * listing and one for all the reads (pipelined); a child whose ACL refuses
 * reading its data is listed all the same, with data_denied set and its
 * stat from one more round trip. No retry: a connection loss is returned.
 * On success *out is a new list whose entries are the records
 * (zkc_list_contender) and, as strings, the node names (zkc_list_string);
 * the caller frees it with zkc_list_free. On failure *out is NULL (when
 * out is not NULL).
 * Returns:
 *   ZKC_OK        also when the path does not exist (count 0)
 *   ZKC_EINVAL    a NULL argument or an invalid path
 *   ZKC_EDEADLK   called from a ZooKeeper callback thread
 *   ZKC_ECLOSED   the client was closed
 *   ZKC_ENOMEM
 *   ZKC_ECONNLOSS, ZKC_EOPTIMEOUT, ZKC_ESESSIONEXPIRED
 *                 the ensemble did not answer
 *   ZKC_ENOAUTH   the path's ACL refuses listing its children
 * Thread-safe. */
ZKC_EXTERN int zkc_lock_contender_list(zkc_client_t *client, const char *path,
                                       zkc_list_t **out);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_STATUS_H */
