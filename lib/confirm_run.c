/* SPDX-License-Identifier: Apache-2.0 */
/* The confirm policy on the queue engine's machine (confirm_run.h). */
#include "confirm_run.h"

#include <stdlib.h>

#include "drive.h"
#include "kernel_door.h" /* its ops whole */
#include "queue.h" /* the queue engine's calls */

static void unpin_all(zkc__crun_t *r) {
  for (size_t i = 0; i < r->how.n; i++) {
    zkc__confirm_part_t *p = &r->parts[i];
    if (p->session != 0 && r->how.unpin) r->how.unpin(r->how.ctx, i);
    p->session = 0;
    free(p->node);
    p->node = NULL;
  }
}

static void drop_ops(zkc__crun_t *r) {
  for (size_t i = 0; i < r->how.n; i++) {
    zkc__rk_op_drop(&r->q.k, &r->parts[i].sync);
    zkc__rk_op_drop(&r->q.k, &r->parts[i].read);
  }
}

/* The run's grant rule is part 0's; a retry waits on the client that
 * failed, and then its session is the one that must not be gone. */
static void rest_on(zkc__crun_t *r, size_t i) {
  r->q.k.c = r->parts[i].c;
  r->q.owner = r->parts[i].session;
}

/* Every part pinned, then every part's sync and read sent at once (one
 * round trip however many parts): 0, or the failure with nothing sent. */
static int round_send(void *ctx, zkc__qrun_t *q) {
  zkc__crun_t *r = ctx;
  if (r->how.stale_max > 0 && r->judged >= r->how.stale_max)
    return ZKC_ELOST; /* each round took long: the holds are in doubt */
  int rc = ZKC_OK;
  for (size_t i = 0; i < r->how.n && rc == ZKC_OK; i++) {
    zkc__confirm_part_t *p = &r->parts[i];
    if ((rc = r->how.pin(r->how.ctx, i, &p->node, &p->session)) != ZKC_OK)
      p->session = 0;
    else if ((p->sync = zkc__rk_op_new(&q->k)) == NULL ||
             (p->read = zkc__rk_op_new(&q->k)) == NULL)
      rc = ZKC_ENOMEM;
  }
  if (rc != ZKC_OK) {
    drop_ops(r);
    unpin_all(r);
    return rc;
  }
  rest_on(r, 0);
  q->proof = q->k.world->boot_ms();
  for (size_t i = 0; i < r->how.n; i++) {
    zkc__confirm_part_t *p = &r->parts[i];
    zkc__req_t sync = {.kind = ZKC__REQ_SYNC, .path = p->node};
    zkc__req_t rd = {.kind = r->how.get ? ZKC__REQ_GET_IN_SESSION
                                        : ZKC__REQ_EXISTS_IN_SESSION,
                     .path = p->node, .session = p->session};
    q->k.world->send(p->c, p->sync, &sync);
    q->k.world->send(p->c, p->read, &rd);
  }
  return 0;
}

/* The last sent first: a session's answers come in order. */
static int round_ops(void *ctx, zkc__op_t **ops) {
  zkc__crun_t *r = ctx;
  int n = 0;
  for (size_t i = r->how.n; i > 0; i--) {
    zkc__confirm_part_t *p = &r->parts[i - 1];
    if (p->read) ops[n++] = p->read;
    if (p->sync) ops[n++] = p->sync;
  }
  return n;
}

static int round_pending(void *ctx) {
  zkc__crun_t *r = ctx;
  for (size_t i = 0; i < r->how.n; i++)
    if ((r->parts[i].sync && !zkc__op_done(r->parts[i].sync)) ||
        (r->parts[i].read && !zkc__op_done(r->parts[i].read)))
      return 1;
  return 0;
}

/* Part i's answers: ZKC_OK when its read shows its hold's node (a stat:
 * there, on its session); ZKC_ELOST when the hold is lost; else the
 * failure (a retryable one sets *failed). */
static int part_answer(zkc__crun_t *r, size_t i, int *retry) {
  const zkc__confirm_part_t *p = &r->parts[i];
  int read = p->read->rc, synced = p->sync->rc;
  if (read == ZKC_ESESSIONEXPIRED || (!r->how.get && read == ZKC_ENONODE))
    read = ZKC_ELOST;
  if (read == ZKC_OK && !r->how.get &&
      p->read->stat.ephemeral_owner != p->session)
    read = ZKC_ELOST; /* not the hold's node: cannot be, proves nothing */
  /* The sync's "no node" is the read's to tell. */
  if (synced == ZKC_ENONODE) synced = ZKC_OK;
  if (synced == ZKC_ESESSIONEXPIRED) synced = ZKC_ELOST;
  /* Found lost: told at once (a hold of this thread would otherwise stand
   * until its guard tells). */
  if (read == ZKC_ELOST && r->how.lost) r->how.lost(r->how.ctx, i);
  if (zkc__retryable(synced) || zkc__retryable(read)) *retry = 1;
  return synced == ZKC_OK || read == ZKC_ELOST ? read : synced;
}

/* The round judged while every hold is still pinned: the answers, then
 * every hold standing, then every other part's proof by the grant rule
 * (part 0's is the machine's grant). A lost hold outranks the rest. */
static zkc__qp_verdict_t round_listed(void *ctx, zkc__qrun_t *q, int *rc_out) {
  zkc__crun_t *r = ctx;
  int rc = ZKC_OK;
  size_t failed = r->how.n;
  for (size_t i = 0; i < r->how.n; i++) {
    int retry = 0, one = part_answer(r, i, &retry);
    if (retry) failed = i;
    if (one != ZKC_OK && (rc == ZKC_OK || one == ZKC_ELOST)) rc = one;
  }
  if (rc == ZKC_OK && r->how.get) {
    zkc__op_t *rd = r->parts[0].read;
    free(r->data);
    r->data = rd->data; /* malloc'd and NUL-terminated */
    rd->data = NULL;
    r->len = (size_t)rd->data_len;
    r->version = rd->stat.version;
  }
  zkc__qp_verdict_t v = ZKC__QP_GRANT;
  if (rc == ZKC_OK) {
    r->judged++;
    for (size_t i = 0; i < r->how.n && rc == ZKC_OK; i++)
      rc = r->how.stands(r->how.ctx, i);
    for (size_t i = 1; i < r->how.n && rc == ZKC_OK; i++) {
      zkc__rk_grant_t g = zkc__rk_proven(&q->k, r->parts[i].c,
                                         r->parts[i].session, q->proof);
      if (g == ZKC__RK_GONE) rc = ZKC_ELOST;
      else if (g != ZKC__RK_GRANTED) v = ZKC__QP_RELIST; /* too old */
    }
  }
  drop_ops(r);
  if (rc == ZKC_OK) {
    unpin_all(r);
    return v;
  }
  if (zkc__retryable(rc) && failed < r->how.n) {
    rest_on(r, failed);
    v = ZKC__QP_RETRY;
  } else {
    v = ZKC__QP_END;
  }
  unpin_all(r);
  *rc_out = rc;
  return v;
}

static void round_drop(void *ctx, zkc__qrun_t *q) {
  (void)q;
  drop_ops(ctx);
  unpin_all(ctx);
}

static const zkc__qpolicy_t confirm_policy = {
    .what = "confirmation",
    .round = round_send,
    .ops = round_ops,
    .pending = round_pending,
    .listed = round_listed,
    .drop = round_drop,
};

int zkc__crun_init(zkc__crun_t *r, const zkc__confirm_how_t *how) {
  *r = (zkc__crun_t){.how = *how};
  r->parts = calloc(how->n, sizeof *r->parts);
  if (r->parts == NULL) return ZKC_ENOMEM;
  for (size_t i = 0; i < how->n; i++)
    r->parts[i].c = how->client(how->ctx, i);
  r->world = how->world ? *how->world
                        : *zkc__client_world(how->client(how->ctx, 0));
  if (!how->tell) r->world.granted = NULL;
  zkc__qrun_how_t q = {.base = "(holds)", .name = "", .data = "",
                       .deadline = how->deadline, .pol = &confirm_policy,
                       .pol_ctx = r, .drv = how->drv, .world = &r->world};
  zkc__qrun_init(&r->q, r->parts[0].c, &q);
  return ZKC_OK;
}

zkc__qneed_t zkc__crun_step(zkc__crun_t *r) { return zkc__qrun_step(&r->q); }

int zkc__crun_ops(zkc__crun_t *r, zkc__op_t **ops) {
  return zkc__qrun_ops(&r->q, ops);
}

void zkc__crun_give_up(zkc__crun_t *r) { zkc__qrun_give_up(&r->q); }

int zkc__crun_result(zkc__crun_t *r, char **data, size_t *len,
                     int32_t *version) {
  int rc = zkc__qrun_result(&r->q, NULL);
  if (rc == ZKC_OK && r->how.get && data) {
    *data = r->data;
    r->data = NULL;
    *len = r->len;
    *version = r->version;
  }
  return rc;
}

void zkc__crun_clear(zkc__crun_t *r) {
  zkc__qrun_clear(&r->q);
  free(r->data);
  free(r->parts);
  r->data = NULL;
  r->parts = NULL;
}

/* ---- the blocking driver (drive.h) ---- */

/* The machine is the queue engine's (its calls, queue.c's); the bind
 * says which client and session the run rests on now. */
static zkc_client_t *c_client(void *q) { return ((zkc__qrun_t *)q)->k.c; }
static int64_t c_bound(void *q) { return ((zkc__qrun_t *)q)->owner; }
static const zkc__run_bind_t confirm_bind = {c_client, c_bound};

int zkc__confirm(const zkc__confirm_how_t *how, char **data, size_t *len,
                 int32_t *version) {
  zkc__crun_t r;
  zkc__op_t **ops = malloc(2 * how->n * sizeof *ops);
  if (ops == NULL || zkc__crun_init(&r, how) != ZKC_OK) {
    free(ops);
    return ZKC_ENOMEM;
  }
  int64_t woken_us = 0;
  zkc__drive_bound(&zkc__qrun_calls, &confirm_bind, &r.q, r.parts[0].c,
                   how->deadline, ops, &woken_us);
  int rc = zkc__crun_result(&r, data, len, version);
  zkc__crun_clear(&r);
  free(ops);
  return rc;
}
