/* SPDX-License-Identifier: Apache-2.0 */
/* A queue engine run's own nodes: its requests, the parents its node
 * needs, and the uuid it carries: the protected prefix of a new attempt,
 * and which names of a read carry the run's uuid.
 * Every node that does is the run's own (a create cut off by connection
 * loss may have been applied, and retried where that was not visible yet):
 * one is kept, the others deleted, so that no second node of ours blocks
 * the queue behind our back. Used by qengine.c only; like it, reaches the
 * session only through the run's world (qworld.h). */
#ifndef ZKC_QOWN_H
#define ZKC_QOWN_H

#include <stddef.h>

#include "names.h"
#include "qengine.h"

/* The run's requests: an op telling its driver (NULL without memory),
 * and one dropped, finished or not: one in flight is given up (its
 * completion frees it and tells nobody), and only then is the driver told
 * (an op that finished, even between a look and the give-up, told it). */
zkc__op_t *zkc__qown_op_new(zkc__qrun_t *r);
void zkc__qown_op_drop(zkc__qrun_t *r, zkc__op_t **op);
/* Sends a request of `kind` on path (no data) with op through the run's
 * world; zkc__qown_watch a ZKC__REQ_WATCH for the run's waiter. */
void zkc__qown_send(zkc__qrun_t *r, zkc__op_t *op, zkc__req_kind_t kind,
                    const char *path);
void zkc__qown_watch(zkc__qrun_t *r, zkc__op_t *op, const char *path);

/* Q_PARENT: sends the create of the node r->up levels above the base (in
 * r->op): ZKC_OK or ZKC_ENOMEM (nothing sent). Q_PARENTING: takes its
 * answer in and moves the walk on (zkc__parent_next): ZKC_OK with r->up
 * the next level (-1: the base exists), or the walk's failure. */
int zkc__qown_send_parent(zkc__qrun_t *r);
int zkc__qown_parent_made(zkc__qrun_t *r);

/* Q_SEARCH: a sync through the leader (r->list) and the base's children
 * read behind it (r->op), so that the read shows every create applied
 * before the sync whichever server answers: a follower that has not
 * applied ours yet would show none, and a second node with our uuid would
 * be made behind the first. ZKC_OK or ZKC_ENOMEM (nothing sent).
 * Q_SEARCHING: takes both answers in: ZKC_OK with r->found the oldest node
 * carrying the run's uuid (NULL: none; any other one goes to the
 * janitor), or the sync's or the read's error. */
int zkc__qown_send_search(zkc__qrun_t *r);
int zkc__qown_searched(zkc__qrun_t *r);

/* A fresh uuid for the run: r->prefix = base + "/_c_<uuid>-<name>".
 * ZKC_OK, ZKC_ENOMEM or the random source's failure. */
int zkc__qown_new_prefix(zkc__qrun_t *r);

/* The run's uuid: its prefix's while the node is not made, else its
 * node's. */
void zkc__qown_uuid(const zkc__qrun_t *r, char out[ZKC__UUID_LEN + 1]);

/* A read of the queue with our node in it: the other names that carry our
 * node's uuid (its twins, made by a create retried after connection loss)
 * go to the janitor, and are moved past the returned count, so that the
 * decision sees our node alone. */
size_t zkc__qown_drop_twins(zkc__qrun_t *r, char **names, size_t n);

#endif /* ZKC_QOWN_H */
