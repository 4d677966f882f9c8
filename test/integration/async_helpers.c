/* SPDX-License-Identifier: Apache-2.0 */
/* The asynchronous tests' shared helpers (async_helpers.h). */
#include "async_helpers.h"

#include "harness.h"

zkc_async_t *zkt_async_new(zkc_client_t *c, zkc_delivery_t mode,
                           zkc_hold_lost_fn lost, void *lost_ctx) {
  zkc_async_opts_t o;
  zkc_async_opts_init(&o);
  o.delivery = mode;
  o.on_lost = lost;
  o.lost_ctx = lost_ctx;
  zkc_async_t *a = NULL;
  assert_int_equal(zkc_async_create(&a, c, &o), ZKC_OK);
  return a;
}

zkc_client_t *zkt_open_short(void) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = 4000;
  return zkt_open(&o);
}
