/* SPDX-License-Identifier: Apache-2.0 */
/* Everything the queue engine (qengine.c) learns from or asks of the world
 * outside it: the requests it wants sent, described as data; what it
 * needs to know of the session (its id, its fate, whether an answer is
 * fresh enough to grant on); the clock; the waiter its rounds set watches
 * for; the janitor; the retry policy. The engine reaches none of these but
 * through a world: the client's (zkc__qworld_session, session_world.c, over
 * session.h), or a test's, which answers from a script, without a server
 * (test/unit/test_qengine.c). Every function takes the run's client, which
 * the engine only passes on. */
#ifndef ZKC_QWORLD_H
#define ZKC_QWORLD_H

#include <stdint.h>

#include "session_types.h"

typedef struct zkc__qworld {
  /* ---- requests ---- */
  /* zkc__send (kernel_door.h): the request described as data. */
  void (*send)(zkc_client_t *c, zkc__op_t *op, const zkc__req_t *rq);

  /* ---- the session ---- */
  int64_t (*session_id)(zkc_client_t *c);
  zkc__session_fate_t (*session_fate)(zkc_client_t *c, int64_t session_id);
  int (*session_live)(zkc_client_t *c);
  int (*closed)(zkc_client_t *c);
  /* 1 while a request sent at sent_boot_ms may still prove a grant. */
  int (*grant_fresh)(zkc_client_t *c, int64_t sent_boot_ms);
  const char *(*holder_id)(zkc_client_t *c);
  /* 1 where round trips are long enough to learn ahead (renewal.h's
   * floor); NULL: always. */
  int (*learn_ahead)(zkc_client_t *c);
  /* Told at a grant, as it is made (NULL: nobody listens). */
  void (*granted)(zkc_client_t *c);

  /* ---- the clock (util.h's) ---- */
  int64_t (*boot_ms)(void);
  int64_t (*now_ms)(void);

  /* ---- a round's waiter (session.h's zkc__waiter_*) ---- */
  int (*waiter_register)(zkc_client_t *c, zkc__waiter_t *w, const char *path,
                         void (*notify)(void *), void *ctx);
  void (*waiter_watch_own)(zkc_client_t *c, zkc__waiter_t *w, const char *own);
  void (*waiter_watch_parent)(zkc_client_t *c, zkc__waiter_t *w,
                              const char *parent, int wakes);
  int (*waiter_clean)(zkc_client_t *c, zkc__waiter_t *w, int path_absent);
  void (*waiter_unwatch)(zkc_client_t *c, zkc__waiter_t *w);
  void (*waiter_unregister)(zkc_client_t *c, zkc__waiter_t *w);
  void (*forget_watch)(zkc_client_t *c, const char *path, uint64_t id);
  void (*forget_child_watch)(zkc_client_t *c, const char *path, uint64_t id);
  /* A waiter over several reads (the lease run's): a data watch on `also`
   * beside its children watch, cleared before each read, both removed
   * when it leaves unfired. */
  void (*waiter_also)(zkc_client_t *c, zkc__waiter_t *w, const char *also);
  void (*waiter_rearm)(zkc_client_t *c, zkc__waiter_t *w);
  void (*waiter_unwatch_children)(zkc_client_t *c, zkc__waiter_t *w);
  /* The client's view of a queue (session.h's zkc__qview_*): a waiting
   * run keeps its read there, and asks whether every node ahead of its
   * own is known gone. */
  void (*view_update)(zkc_client_t *c, const char *base, char *const *names,
                      size_t n, const zkc__stat_t *parent, int *held);
  void (*view_drop)(zkc_client_t *c, const char *base, int *held);
  int (*view_clear_ahead)(zkc_client_t *c, const char *base, const char *own);

  /* ---- what outlives the run, and the policy ---- */
  void (*janitor_add)(zkc_client_t *c, const char *path, const char *uuid);
  /* A delete of our node answered rc: ZKC_OK (gone, or will be), ZKC_ELOST
   * (gone already) or the refusal (zkc__delete_answered). */
  int (*delete_answered)(zkc_client_t *c, const char *node, int rc);
  /* zkc__retry_delay: ZKC_OK with *wake_at the backoff's end, or the
   * failure to end the run with. */
  int (*retry_delay)(zkc_client_t *c, int *attempt, int rc, int64_t deadline,
                     int64_t *wake_at);
} zkc__qworld_t;

/* The client's world: requests to its ZooKeeper handle, facts from its
 * session. */
extern const zkc__qworld_t zkc__qworld_session;

#endif /* ZKC_QWORLD_H */
