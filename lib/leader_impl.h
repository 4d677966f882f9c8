/* Shared by the leader recipes (latch.c, selector.c). */
#ifndef ZKC_LEADER_IMPL_H
#define ZKC_LEADER_IMPL_H

#include <stddef.h>

#include "zkcoord/leader.h"

/* Every contender on `path` in queue order with its id (the node data); the
 * first is marked leader. A head that vanished between the list and the
 * read makes it read again a few times. See zkc_latch_participants for
 * the result and the codes (brackets itself with zkc__call_enter). */
int zkc__participants_read(zkc_client_t *c, const char *path,
                           zkc_participant_t **out, size_t *count);

#endif /* ZKC_LEADER_IMPL_H */
