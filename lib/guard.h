/* Holders watching their own nodes (guard.c). */
#ifndef ZKC_GUARD_H
#define ZKC_GUARD_H

#include <stdint.h>

#include "zkcoord/client.h"

/* Told, on the maintenance thread, that the guarded node was deleted while
 * its session lived. */
typedef void (*zkc__guard_fn)(void *ctx, uint64_t guard_id);

/* Watches `path` (a node of session_id) until zkc__guard_remove, from a
 * short while after this call on; sets *id (never 0). No ZooKeeper traffic
 * here. ZKC_OK or ZKC_ENOMEM. */
int zkc__guard_add(zkc_client_t *c, const char *path, int64_t session_id,
                   zkc__guard_fn fn, void *ctx, uint64_t *id);
/* As zkc__guard_add, for a revocable hold: watched at once with a get-watch,
 * and revoked_fn(ctx, id) is told on the maintenance thread of each data
 * version after told_version (-1: any) that carries the revocation marker
 * (zkc__is_revoke_marker). */
int zkc__guard_add_revocable(zkc_client_t *c, const char *path,
                             int64_t session_id, zkc__guard_fn fn,
                             zkc__guard_fn revoked_fn, void *ctx,
                             int32_t told_version, uint64_t *id);
/* The data version whose marker guard `id` told last (-1: none): a guard
 * that replaces it on the same node starts from there. */
int32_t zkc__guard_told_version(zkc_client_t *c, uint64_t id);
/* Stops guarding; once it returns, fn is not running for it (unless called
 * from fn itself). id 0 is ignored. */
void zkc__guard_remove(zkc_client_t *c, uint64_t id);

/* ---- for the session layer ---- */

/* The watch handler of kind ZKC__WATCH_GUARD (ops.h). */
void zkc__guard_event(zkc_client_t *c, uint64_t id, const char *path,
                      int deleted);
/* The guards on path set their watch again soon (it was removed from the
 * server); caller holds the client's lock. */
void zkc__guards_renew_locked(zkc_client_t *c, const char *path);
/* Maintenance thread, client's lock held: tells one owner or sets one
 * watch; 1 if it did. */
int zkc__guard_step_locked(zkc_client_t *c);
/* When a watch is to be set or a failed confirmation is due again
 * (ZKC__FOREVER if none); client's lock held. */
int64_t zkc__guard_next_locked(zkc_client_t *c);
/* Close: waits (bounded) for watch requests in flight. */
void zkc__guards_drain(zkc_client_t *c, int64_t deadline_ms);
void zkc__guards_free(zkc_client_t *c);

#endif /* ZKC_GUARD_H */
