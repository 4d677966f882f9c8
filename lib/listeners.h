/* State listeners and recipe observers (listeners.c); the public calls are
 * in zkcoord/client.h, the recipes' in session.h. */
#ifndef ZKC_LISTENERS_H
#define ZKC_LISTENERS_H

#include <stdint.h>

#include "zkcoord/client.h"

/* Tells observers, then listeners, of a new state. Called and returns with
 * the client's lock held; works unlocked on a copy of the list. */
void zkc__listeners_dispatch_locked(zkc_client_t *c, zkc_state_t st,
                                    int64_t lost_session);
/* Frees every registration (after the maintenance thread stopped). */
void zkc__listeners_free(zkc_client_t *c);

#endif /* ZKC_LISTENERS_H */
