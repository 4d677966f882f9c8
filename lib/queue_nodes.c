/* SPDX-License-Identifier: Apache-2.0 */
/* What every queue's nodes share (queue_nodes.h): a timed call's limit. */
#include "queue_nodes.h"

#include "kernel_door.h" /* ZKC__GRACE_MS */
#include "util.h"

int64_t zkc__limit_after(int64_t deadline_ms) {
  return deadline_ms == ZKC__FOREVER ? ZKC__FOREVER : deadline_ms + ZKC__GRACE_MS;
}
