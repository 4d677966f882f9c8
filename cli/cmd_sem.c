/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord sem: one lease of the semaphore on PATH (Curator's
 * InterProcessSemaphoreV2 layout) while COMMAND runs; cmd_lock.c runs
 * COMMAND exactly as for `zkcoord lock`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void (*g_lost)(void);

static void on_lost(void *ctx, zkc_sem_t *s, zkc_lost_reason_t why,
                    int64_t token) {
  (void)ctx, (void)s, (void)why, (void)token;
  g_lost();
}

int zkcli_sem_create(const zkcli_opts_t *o, zkc_client_t *c, zkcli_hold_t *h,
                     void (*lost)(void)) {
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  if (o->max_leases > 0) so.max_leases = o->max_leases;
  so.count_path = o->count_path;
  g_lost = lost;
  int rc = zkc_sem_create(&h->sem, c, o->path, &so);
  if (rc == ZKC_OK) rc = zkc_sem_set_lost_callback(h->sem, on_lost, NULL);
  return rc;
}

int zkcli_sem_acquire(const zkcli_opts_t *o, zkcli_hold_t *h) {
  return zkc_sem_acquire(h->sem, 1, zkcli_wait_left(o), &h->lease);
}

int zkcli_sem_release(zkcli_hold_t *h) {
  int rc = zkc_lease_free(h->lease);
  h->lease = NULL;
  return rc;
}

void zkcli_sem_destroy(zkcli_hold_t *h) {
  zkc_lease_free(h->lease);
  h->lease = NULL;
  zkc_sem_destroy(h->sem);
  h->sem = NULL;
}
