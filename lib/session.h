/* The session layer's front door: what a recipe may ask of a client. The
 * client object stays opaque here; these calls are the only way to its
 * state (state.c), its life (client.c) and its state changes
 * (listeners.c). */
#ifndef ZKC_SESSION_H
#define ZKC_SESSION_H

#include <stdint.h>

#include "zkcoord/client.h"

/* ---- life: references and blocking calls (client.c, state.c) ---- */

/* Takes a reference for a recipe object; ZKC_ECLOSED if already closed. */
int zkc__client_ref(zkc_client_t *c);
/* Drops it; the last reference frees the client. */
void zkc__client_unref(zkc_client_t *c);

/* Brackets a blocking call: fails with ZKC_EDEADLK on a callback thread and
 * ZKC_ECLOSED after close; close waits until every entered call left. */
int zkc__call_enter(zkc_client_t *c);
void zkc__call_leave(zkc_client_t *c);

/* ---- the session's state (state.c) ---- */

/* How a node owned by session_id stands now. */
typedef enum {
  ZKC__SESSION_LIVE,  /* the current session, connected read-write */
  ZKC__SESSION_DOUBT, /* the current session, connection down or read-only */
  ZKC__SESSION_GONE   /* expired, presumed lost, replaced, or never ours */
} zkc__session_fate_t;
zkc__session_fate_t zkc__session_fate(zkc_client_t *c, int64_t session_id);
/* Current session id (0 if none). */
int64_t zkc__session_id(zkc_client_t *c);

/* Whether a grant may rest on a server answer to a request sent at
 * sent_boot_ms (zkc__boot_ms, taken before the request was submitted): 1
 * while less than half the negotiated session timeout has passed since.
 * The server renews a session whenever it hears from it, so the session
 * that got that answer lives at least a session timeout after the send,
 * whatever stalled this process meanwhile (a stop, a swap-in, a blocked
 * I/O thread). An answer or event that sat in the socket through a longer
 * stall proves nothing: the caller reads again. */
int zkc__grant_fresh(zkc_client_t *c, int64_t sent_boot_ms);

/* 1 while a live session is connected read-write. */
int zkc__session_live(zkc_client_t *c);

/* Waits until a live session is connected read-write (through a session
 * re-creation if one is under way), up to deadline_ms. ZKC_OK,
 * ZKC_ETIMEDOUT or ZKC_ECLOSED (closed, or the thread's wait cancelled). */
int zkc__wait_connected(zkc_client_t *c, int64_t deadline_ms);

/* 1 once zkc_client_close has begun. */
int zkc__client_closed(zkc_client_t *c);

/* ---- the client's settings (state.c) ---- */

/* The holder id stored in lock nodes (the option, or "host:pid"); lives as
 * long as the client. */
const char *zkc__holder_id(const zkc_client_t *c);
zkc_parent_mode_t zkc__parent_mode(const zkc_client_t *c);
/* The lost_on_suspended option. */
int zkc__lost_on_suspended(const zkc_client_t *c);
/* Requests submitted to ZooKeeper so far (the tests' no-traffic checks). */
uint64_t zkc__requests(const zkc_client_t *c);
/* The connected session's id and password (handle.c), so that a test can
 * open a second handle on the same session; ZKC_ECONNLOSS when not
 * connected. */
int zkc__session_credentials(zkc_client_t *c, int64_t *id, char passwd[16]);

/* ---- state changes for recipes (listeners.c) ---- */

/* Recipes learn of state changes before the user's listeners do. */
typedef void (*zkc__observer_fn)(void *ctx, zkc_state_t state,
                                 int64_t lost_session);
/* Called on the maintenance thread for every state change, before the
 * user's listeners. Remove returns ZKC_EDEADLK when called from the
 * maintenance thread during a dispatch. */
int zkc__observer_add(zkc_client_t *c, zkc__observer_fn fn, void *ctx);
int zkc__observer_remove(zkc_client_t *c, zkc__observer_fn fn, void *ctx);

/* A recipe object's tie to its client: a reference plus its observer.
 * Attach gives ZKC_ECLOSED after close and leaves nothing on failure;
 * detach gives ZKC_EDEADLK (and keeps both) when called from the
 * maintenance thread during a dispatch. */
int zkc__recipe_attach(zkc_client_t *c, zkc__observer_fn fn, void *ctx);
int zkc__recipe_detach(zkc_client_t *c, zkc__observer_fn fn, void *ctx);

#endif /* ZKC_SESSION_H */
