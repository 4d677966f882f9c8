/* SPDX-License-Identifier: Apache-2.0 */
/* The read-write lock's downgrade: the thread holding the write side takes
 * the read side without queueing, by a read node that carries the write
 * node's sequence (Curator 5.5's layout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutex_struct.h"
#include "names.h"
#include "queue.h"
#include "queue_nodes.h"
#include "test_hooks.h"

/* Defined here, not in mutex.c, which calls into this file: a reference
 * from here to mutex.c would close a call loop (unit.layers). */
void (*zkc__mutex_seam)(zkc_mutex_t *m, zkc__seam_t where);

/* 1 when the calling thread holds m. */
static int owns(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  int mine = zkc__mutex_my_hold(m) != NULL;
  pthread_mutex_unlock(&m->mu);
  return mine;
}

/* The full path of the calling thread's hold on m (malloc), or NULL when it
 * has none or the hold is lost (*lost set). */
static char *my_node(zkc_mutex_t *m, int *lost) {
  pthread_mutex_lock(&m->mu);
  hold_t *h = zkc__mutex_my_hold(m);
  *lost = h != NULL && atomic_load(&h->rec.lost);
  char *node = h != NULL && !*lost ? strdup(h->held.node) : NULL;
  pthread_mutex_unlock(&m->mu);
  return node;
}

/* The write holder takes the read side: a read node that carries the write
 * node's sequence (Curator 5.5), so that a writer queued behind the write
 * node stays behind the reader once the write side is released. Granted
 * without queueing once the write node is seen, after the read node was
 * made, to be still this session's: no other writer can have been granted
 * meanwhile, and none can be while the read node is before it. The queue
 * engine runs it (a vouched run: the write node vouches), with the grant
 * rule of every queue: read through the leader, read again when its answer
 * went stale (this process stopped meanwhile).
 * The hold's token is the write node's czxid, not the read node's: the
 * read node is made after writers already queued behind the write node,
 * and its own czxid would be larger than theirs, who hold after it. */
/* The voucher's hold (ctx: the write side) known lost by the calling
 * thread, the downgrade's. */
static int write_hold_lost(void *ctx) {
  int lost = 0;
  free(my_node(ctx, &lost));
  return lost;
}

int zkc__mutex_downgrade(zkc_mutex_t *m, const char *wnode, const char *data,
                         int64_t deadline, zkc__held_t *out) {
  int64_t seq = 0;
  if (!zkc__node_sequence(zkc__basename(wnode), &seq)) return ZKC_ELOST;
  char name[32];
  snprintf(name, sizeof name, "%s%010d", ZKC__READ_NAME, (int)seq);
  /* Asked before each grant: a write hold told lost meanwhile (a
   * suspension under lost_on_suspended) refuses the downgrade at once,
   * even when its read has gone stale and the ensemble cannot be asked
   * again within the deadline. */
  zkc__voucher_t vouch = {.node = wnode, .lost = write_hold_lost,
                          .ctx = m->twin};
  int rc = zkc__node_create_vouched(m->client, m->path, name, data, &vouch,
                                    deadline, out);
  if (rc != ZKC_OK) return rc;
  /* The write hold may have been reported lost while the read node was
   * vouched for (a suspension, lost by the client's policy, then the same
   * session again): its node is the janitor's now, and its token was told
   * lost. A read hold resting on it would reuse that token: refused, and
   * the read node given up here, as a failed create leaves none. */
  int lost = 0;
  char *still = my_node(m->twin, &lost);
  int same = still != NULL && strcmp(still, wnode) == 0;
  free(still);
  if (same) return ZKC_OK;
  /* Within the call's deadline (then in the background): the call returns
   * by it whatever the ensemble does. */
  zkc__lock_release_by(m->client, out, zkc__limit_after(deadline));
  return ZKC_ELOST;
}

/* Before m's own lock: the calling thread's holds change only by its own
 * calls, and the twins' locks are never held together. For the read side
 * of a thread holding the write side, *wnode is the write node to carry
 * the sequence of. */
int zkc__mutex_twin_check(zkc_mutex_t *m, char **wnode) {
  *wnode = NULL;
  if (m->twin == NULL || owns(m) || !owns(m->twin)) return ZKC_OK;
  /* A reader asking for the write side would queue behind its own read
   * node for ever: refuse at once. */
  if (m->side == ZKC__SIDE_WRITE) return ZKC_EDEADLK;
  int lost = 0;
  *wnode = my_node(m->twin, &lost);
  if (*wnode == NULL) return lost ? ZKC_ELOST : ZKC_ENOMEM;
  return ZKC_OK;
}
