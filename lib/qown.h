/* SPDX-License-Identifier: Apache-2.0 */
/* A queue engine run's own nodes, known by the uuid they carry: the
 * protected prefix of a new attempt, the run's uuid, and which names of a
 * read carry it. Every node that does is the run's own (a create cut off
 * by connection loss may have been applied, and retried where that was
 * not visible yet): one is kept, the others deleted, so that no second
 * node of ours blocks the queue behind our back. Used by qengine.c, which
 * passes in what these need of a run and deletes the strays they name:
 * they know no run, no client and no world, so the engine depends on them
 * and not back. */
#ifndef ZKC_QOWN_H
#define ZKC_QOWN_H

#include <stddef.h>

#include "names.h"

/* A fresh uuid for a node "name" under base: *prefix (freed first) =
 * base + "/_c_<uuid>-<name>" (malloc). ZKC_OK, ZKC_ENOMEM (*prefix NULL)
 * or the random source's failure (*prefix unchanged). */
int zkc__qown_new_prefix(const char *base, const char *name, char **prefix);

/* A run's uuid: its prefix's while the node is not made (prefix not NULL),
 * else its node's. */
void zkc__qown_uuid(const char *base, const char *prefix, const char *node,
                    char out[ZKC__UUID_LEN + 1]);

/* A node carrying the run's uuid that is not the one kept (its name under
 * the base): the caller has it deleted. */
typedef void zkc__qown_stray_fn(void *ctx, const char *name);

/* A read of base's `count` children after a create cut off: ZKC_OK with
 * *found the oldest node carrying uuid (malloc, the full path; NULL:
 * none; any other one told to stray), or ZKC_ENOMEM. */
int zkc__qown_search(const char *base, char *const *names, int count,
                     const char *uuid, char **found,
                     zkc__qown_stray_fn *stray, void *ctx);

/* A read of the queue with our node (named own, carrying uuid) in it: the
 * other names that carry uuid (its twins, made by a create retried after
 * connection loss) are told to stray, and moved past the returned count,
 * so that the decision sees our node alone. */
size_t zkc__qown_drop_twins(const char *own, const char *uuid, char **names,
                            size_t n, zkc__qown_stray_fn *stray, void *ctx);

#endif /* ZKC_QOWN_H */
