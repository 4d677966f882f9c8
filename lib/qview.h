/* SPDX-License-Identifier: Apache-2.0 */
/* One view per client and lock path of the queue its waiters last read,
 * kept current by what the client learns anyway: a node told deleted by a
 * watch (a waiter's on its predecessor, a holder's on its own node). A
 * waiter woken by its predecessor's delete that is not granted on the
 * event alone (its predecessor was not the only node ahead, or of its own
 * session) asks the view whether every node ahead of it in a read is known
 * gone. If so, a stat of its own node through the leader is all the proof
 * it needs (no node can join ahead of it: sequence numbers only grow while
 * its node, hence the path, exists; a read-write lock's writer ahead is the
 * exception, whose downgrade adds a read node with the writer's sequence,
 * and keeps the read), instead of a read of the whole queue:
 * with n waiters queued, a grant costs a small request, not n names. The
 * runs' side is declared in session.h (zkc__qview_update, _drop,
 * _clear_ahead); this header is the session layer's own. */
#ifndef ZKC_QVIEW_H
#define ZKC_QVIEW_H

#include "session.h"

/* The node at `path` is gone (a watch said so); marked only when its name
 * is one no client makes twice (a protected or a kazoo name). */
void zkc__qview_gone(zkc_client_t *c, const char *path);
/* Frees every view (the client's end). */
void zkc__qview_free_all(zkc_client_t *c);

#endif /* ZKC_QVIEW_H */
