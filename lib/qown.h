/* SPDX-License-Identifier: Apache-2.0 */
/* A queue engine run's own nodes, known by the uuid they carry: the
 * protected prefix of a new attempt, the run's uuid, and which names of a
 * read carry it. Every node that does is the run's own (a create cut off
 * by connection loss may have been applied, and retried where that was
 * not visible yet): one is kept, the others deleted, so that no second
 * node of ours blocks the queue behind our back. Used by qengine.c, which
 * passes in what these need of a run (they know no run, so the engine
 * depends on them and not back); the strays go to the janitor through the
 * run's world (qworld.h). */
#ifndef ZKC_QOWN_H
#define ZKC_QOWN_H

#include <stddef.h>

#include "names.h"
#include "qworld.h"
#include "session.h"

/* A fresh uuid for a node "name" under base: *prefix (freed first) =
 * base + "/_c_<uuid>-<name>" (malloc). ZKC_OK, ZKC_ENOMEM (*prefix NULL)
 * or the random source's failure (*prefix unchanged). */
int zkc__qown_new_prefix(const char *base, const char *name, char **prefix);

/* A run's uuid: its prefix's while the node is not made (prefix not NULL),
 * else its node's. */
void zkc__qown_uuid(const char *base, const char *prefix, const char *node,
                    char out[ZKC__UUID_LEN + 1]);

/* A read of base's children after a create cut off: ZKC_OK with *found
 * the oldest node carrying uuid (malloc, the full path; NULL: none; any
 * other one goes to c's janitor through world), or ZKC_ENOMEM. */
int zkc__qown_search(zkc_client_t *c, const zkc__qworld_t *world,
                     const char *base, const zkc__names_t *names,
                     const char *uuid, char **found);

/* A read of the queue with our node (named own, carrying uuid) in it: the
 * other names that carry uuid (its twins, made by a create retried after
 * connection loss) go to c's janitor through world, and are moved past
 * the returned count, so that the decision sees our node alone. */
size_t zkc__qown_drop_twins(zkc_client_t *c, const zkc__qworld_t *world,
                            const char *base, const char *own,
                            const char *uuid, char **names, size_t n);

#endif /* ZKC_QOWN_H */
