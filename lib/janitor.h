/* Guaranteed deletes (janitor.c). */
#ifndef ZKC_JANITOR_H
#define ZKC_JANITOR_H

#include <stdint.h>

#include "zkcoord/client.h"

/* Queues a delete of `path` (or, with uuid, of the protected node with that
 * uuid under `path`), retried by whatever session is current until the node
 * is gone or the server refuses. */
void zkc__janitor_add(zkc_client_t *c, const char *path, const char *uuid);

/* ---- for the maintenance thread ---- */

/* One step of janitor work, called with the client's lock held (released
 * while working). Returns 1 if it did something. */
int zkc__janitor_step_locked(zkc_client_t *c);
/* When the janitor next has work to retry (ZKC__FOREVER if none). */
int64_t zkc__janitor_next_locked(zkc_client_t *c);
/* Frees queued items (after the maintenance thread stopped). */
void zkc__janitor_free(zkc_client_t *c);

#endif /* ZKC_JANITOR_H */
