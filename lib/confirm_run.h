/* SPDX-License-Identifier: Apache-2.0 */
/* The confirm policy: the freshness proof of holds already granted, as a
 * policy on the queue engine's one machine (qengine.h) stepped by the one
 * driver (drive.h). A round reads each part's node behind a sync through
 * the leader, only on the session that owns the part's hold (a read
 * through a later session would prove nothing of that one), every part's
 * requests sent at once, through each part's own client; the round
 * proves the holds only while every answer is fresh and every session
 * live by the kernel's grant rule (zkc__rk_proven: proven renewed at the
 * leader) and every hold still stands, judged after the answers. A round
 * too old is sent again; one cut off, after the retry policy's wait for
 * the client that failed. The multi-lock's confirmation of its set and
 * the fenced read of any hold (zkc_hold_fenced_get) are its runs. */
#ifndef ZKC_CONFIRM_RUN_H
#define ZKC_CONFIRM_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "qengine.h"
#include "session.h"

/* What a confirmation is to prove. Parts are numbered 0..n-1; ctx is
 * passed to every call. */
typedef struct zkc__confirm_how {
  size_t n;
  /* Reads part 0's node's data (a fenced read: n is 1), whose missing node
   * is the read's answer (ZKC_ENONODE), not a loss; else each node's stat,
   * whose node missing or another session's is the part's hold lost. */
  unsigned get : 1;
  /* Tells the grant as the engine's are (the multi-lock's set is one). */
  unsigned tell : 1;
  /* Rounds found too old, or not proven live, before ZKC_ELOST (0: none
   * counted; the deadline bounds them). */
  int stale_max;
  int64_t deadline; /* monotonic, ZKC__FOREVER; answers until its limit */
  zkc_client_t *(*client)(void *ctx, size_t i);
  /* Pins part i's hold for a round: ZKC_OK with *node (malloc'd, the
   * run's) and *session; or the refusal (ZKC_ELOST: lost), nothing to
   * unpin. */
  int (*pin)(void *ctx, size_t i, char **node, int64_t *session);
  void (*unpin)(void *ctx, size_t i); /* NULL: nothing */
  /* After a round's answers: ZKC_OK while part i's hold stands. */
  int (*stands)(void *ctx, size_t i);
  /* The round found part i's node gone (NULL: nobody to tell). */
  void (*lost)(void *ctx, size_t i);
  void *ctx;
  const zkc__qdriver_t *drv;  /* NULL: the caller waits itself */
  const zkc__qworld_t *world; /* NULL: the client's */
} zkc__confirm_how_t;

/* One part's state in a round (the run's). */
typedef struct zkc__confirm_part {
  zkc_client_t *c;
  char *node;
  int64_t session; /* 0: not pinned */
  zkc__op_t *sync, *read;
} zkc__confirm_part_t;

typedef struct zkc__crun {
  zkc__qrun_t q; /* the machine, with this policy */
  zkc__confirm_how_t how;
  zkc__qworld_t world; /* the how's, without the grant's telling */
  zkc__confirm_part_t *parts;
  int judged; /* rounds whose answers all proved the holds */
  char *data; /* how.get: the read's, once granted */
  size_t len;
  int32_t version;
} zkc__crun_t;

/* Prepares a run: ZKC_OK or ZKC_ENOMEM (nothing to clear). */
int zkc__crun_init(zkc__crun_t *r, const zkc__confirm_how_t *how);
/* The machine's calls on the run (qengine.h's, as the driver steps
 * them); the ops as many as 2 * n. */
zkc__qneed_t zkc__crun_step(zkc__crun_t *r);
int zkc__crun_ops(zkc__crun_t *r, zkc__op_t **ops);
void zkc__crun_give_up(zkc__crun_t *r);
/* ZKC__QN_DONE: ZKC_OK (proven; with how.get, *data (malloc'd, NUL
 * ended, the caller's), *len, *version), ZKC_ELOST (a hold lost, or too
 * many rounds too old), ZKC_ETIMEDOUT, ZKC_ECLOSED, ZKC_ENOMEM, a
 * refusal of the server's; with how.get also ZKC_ENONODE. */
int zkc__crun_result(zkc__crun_t *r, char **data, size_t *len,
                     int32_t *version);
void zkc__crun_clear(zkc__crun_t *r);

/* The whole run on the caller's thread (drive.h): zkc__crun_result's. */
int zkc__confirm(const zkc__confirm_how_t *how, char **data, size_t *len,
                 int32_t *version);

#endif /* ZKC_CONFIRM_RUN_H */
