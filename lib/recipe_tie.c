/* SPDX-License-Identifier: Apache-2.0 */
/* A recipe object's tie to its client: a reference, then its observer
 * (listeners.c). The last reference frees the client through the hook the
 * open set (client.c), so the recipes stand on this and the listeners, not
 * on the client's whole life; the listeners never call back into it. */
#include "client_struct.h"
#include "session.h"
#include "session_shared.h"
#include "zkcoord/common.h"

int zkc__client_ref(zkc_client_t *c) {
  pthread_mutex_lock(&c->mu);
  int closed = c->closed;
  if (!closed) atomic_fetch_add(&c->refs, 1);
  pthread_mutex_unlock(&c->mu);
  return closed ? ZKC_ECLOSED : ZKC_OK;
}

void zkc__client_unref(zkc_client_t *c) {
  if (atomic_fetch_sub(&c->refs, 1) == 1) c->free_last(c);
}

int zkc__recipe_attach(zkc_client_t *c, zkc__observer_fn fn, void *ctx) {
  int rc = zkc__client_ref(c);
  if (rc != ZKC_OK) return rc;
  rc = zkc__observer_add(c, fn, ctx);
  if (rc != ZKC_OK) zkc__client_unref(c);
  return rc;
}

int zkc__recipe_detach(zkc_client_t *c, zkc__observer_fn fn, void *ctx) {
  int rc = zkc__observer_remove(c, fn, ctx);
  if (rc == ZKC_EDEADLK) return rc;
  zkc__client_unref(c);
  return ZKC_OK;
}
