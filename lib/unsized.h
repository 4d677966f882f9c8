/* SPDX-License-Identifier: Apache-2.0 */
/* The options defaults and creates (the client's open among them) on
 * options of this library's own size: what the sized calls (opts.c) run
 * once they have read the caller's struct. The public headers' unsized
 * calls (zkc_client_open, zkc_latch_create, ...) are inline over the sized
 * ones; messages still name them. */
#ifndef ZKC_UNSIZED_H
#define ZKC_UNSIZED_H

#include "zkcoord/async.h"
#include "zkcoord/client.h"
#include "zkcoord/latch.h"
#include "zkcoord/selector.h"
#include "zkcoord/semaphore.h"

void zkc__client_opts_defaults(zkc_client_opts_t *opts);
int zkc__client_open(zkc_client_t **out, const char *connect_string,
                     const zkc_client_opts_t *opts);

void zkc__latch_opts_defaults(zkc_latch_opts_t *opts);
int zkc__latch_create(zkc_latch_t **out, zkc_client_t *client,
                      const char *path, const char *id,
                      const zkc_latch_opts_t *opts);

void zkc__selector_opts_defaults(zkc_selector_opts_t *opts);
int zkc__selector_create(zkc_selector_t **out, zkc_client_t *client,
                         const char *path, zkc_selector_fn take_leadership,
                         void *ctx, const zkc_selector_opts_t *opts);

void zkc__sem_opts_defaults(zkc_sem_opts_t *opts);
int zkc__sem_create(zkc_sem_t **out, zkc_client_t *client, const char *path,
                    const zkc_sem_opts_t *opts);

void zkc__async_opts_defaults(zkc_async_opts_t *opts);
int zkc__async_create(zkc_async_t **out, zkc_client_t *client,
                      const zkc_async_opts_t *opts);

#endif /* ZKC_UNSIZED_H */
