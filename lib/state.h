/* State queries for the session layer itself, with the client's lock held
 * (state.c). Recipes use session.h. */
#ifndef ZKC_STATE_H
#define ZKC_STATE_H

#include <stdint.h>

#include "session.h"

/* The one liveness predicate: a live session connected read-write, with no
 * expiry, auth failure or presumed loss, and no replacement under way. */
int zkc__live_locked(const zkc_client_t *c);
zkc__session_fate_t zkc__session_fate_locked(const zkc_client_t *c,
                                             int64_t session_id);
/* 1 on the maintenance thread. */
int zkc__on_maint_thread_locked(const zkc_client_t *c);

/* Waits until the session is connected or its credentials were refused, up
 * to deadline_ms: ZKC_OK, ZKC_ETIMEDOUT or ZKC_EAUTHFAILED. For the open,
 * where a refusal is final; recipes wait with zkc__wait_connected. */
int zkc__wait_connected_or_refused(zkc_client_t *c, int64_t deadline_ms);

#endif /* ZKC_STATE_H */
