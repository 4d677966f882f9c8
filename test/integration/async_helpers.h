/* SPDX-License-Identifier: Apache-2.0 */
/* What the asynchronous tests share (test_async.c, test_async_sem.c): a
 * context made for a case, a client of short session, and the wait for a
 * client's new session. */
#ifndef ZKT_ASYNC_HELPERS_H
#define ZKT_ASYNC_HELPERS_H

#include <stdint.h>

#include "zkcoord/zkcoord.h"

/* A context on c with the given delivery and lost callback (fails the
 * case when it cannot be made). */
zkc_async_t *zkt_async_new(zkc_client_t *c, zkc_delivery_t mode,
                           zkc_hold_lost_fn lost, void *lost_ctx);

/* A client of the harness with a 4 s session (expiry cases). */
zkc_client_t *zkt_open_short(void);

#endif /* ZKT_ASYNC_HELPERS_H */
