/* SPDX-License-Identifier: Apache-2.0 */
/* The views of a mutex's hold (zkc_mutex_hold: the calling thread's, on
 * either side of a read-write lock, a downgrade's read hold among them)
 * for the calls on a hold; a multi-lock's set is multilock.c's. */
#include <stdlib.h>
#include <string.h>

#include "hold_view.h"
#include "mutex_hold.h"
#include "mutex_sides.h"
#include "session.h"

static zkc_client_t *mutex_client(const void *obj) {
  return zkc__mutex_client(obj);
}

static const char *mutex_no_write(const void *obj) {
  return zkc__mutex_side(obj) == ZKC__SIDE_READ
             ? "a fenced write needs the write side of a read-write lock, "
               "not its read side"
             : NULL;
}

static int mutex_enter(void *obj, int standing, zkc__fence_t *f) {
  return zkc__mutex_hold_pin(obj, standing, &f->session, &f->token,
                             &f->nodes);
}

/* The calling thread is inside a call on its own hold: it cannot have
 * released it and taken another meanwhile. */
static int mutex_still(void *obj, const zkc__fence_t *f) {
  (void)f;
  return zkc__mutex_hold_check(obj);
}

/* Found lost by the thread's own call: named and told at once, as a
 * leader's term is (hold_candidate.c); the watch or state that follows
 * tells nothing. */
static zkc_lost_reason_t found_why(int node) {
  return node < 0 ? ZKC_LOST_SESSION : ZKC_LOST_DELETED;
}

static void mutex_lost(void *obj, const zkc__fence_t *f, int node) {
  (void)f;
  zkc__mutex_found_lost(obj, found_why(node));
}

static void mutex_leave(void *obj) { zkc__mutex_hold_leave(obj); }

static int mutex_is_held(const void *obj) {
  return zkc__mutex_is_held(obj);
}

const zkc__hold_kind_t zkc__mutex_hold_kind = {
    .borrowed = 1,
    .no_write = mutex_no_write,
    .client = mutex_client,
    .enter = mutex_enter,
    .still = mutex_still,
    .lost = mutex_lost,
    .leave = mutex_leave,
    .is_held = mutex_is_held,
    /* every grant of the mutex */
    .scope = zkc__hold_scope_every_grant,
};
