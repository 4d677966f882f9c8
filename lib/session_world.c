/* SPDX-License-Identifier: Apache-2.0 */
/* The queue engine's world over a client (qworld.h): its requests go to
 * the client's ZooKeeper handle, its facts come from the client's
 * session. Part of the session layer: the watches and the views it hands
 * the engine are behind the recipes' door (session.h). Named apart from
 * its interface (qworld.h) so that the kernel, which includes that, does
 * not stand on this file's floor. */

#include "session.h"
#include "qworld.h"

#include "client_struct.h"
#include "kernel_door.h"
#include "session_shared.h"
#include "util.h"

static int64_t session_id(zkc_client_t *c) {
  return zkc__client_facts(c).session_id;
}
static int closed(zkc_client_t *c) { return zkc__client_facts(c).closed; }
static const char *holder_id(zkc_client_t *c) {
  return zkc__client_facts(c).holder_id;
}

void zkc__qworld_bind(zkc_client_t *c) { c->world = &zkc__qworld_session; }

const zkc__qworld_t zkc__qworld_session = {
    .send = zkc__send,
    .session_id = session_id,
    .session_fate = zkc__session_fate,
    .session_live = zkc__session_live,
    .closed = closed,
    .grant_fresh = zkc__grant_fresh,
    .holder_id = holder_id,
    .learn_ahead = zkc__learn_ahead,
    .granted = zkc__granted,
    .boot_ms = zkc__boot_ms,
    .now_ms = zkc__now_ms,
    .waiter_register = zkc__waiter_register_polled,
    .waiter_watch_own = zkc__waiter_watch_own,
    .waiter_watch_parent = zkc__waiter_watch_parent,
    .waiter_clean = zkc__waiter_clean,
    .waiter_unwatch = zkc__waiter_unwatch,
    .waiter_unregister = zkc__waiter_unregister,
    .forget_watch = zkc__forget_watch,
    .forget_child_watch = zkc__forget_child_watch,
    .waiter_also = zkc__waiter_also,
    .waiter_rearm = zkc__waiter_rearm,
    .waiter_unwatch_children = zkc__waiter_unwatch_children,
    .view_update = zkc__qview_update,
    .view_drop = zkc__qview_drop,
    .view_clear_ahead = zkc__qview_clear_ahead,
    .janitor_add = zkc__janitor_add,
    .delete_answered = zkc__delete_answered,
    .retry_delay = zkc__retry_delay,
};
