/* SPDX-License-Identifier: Apache-2.0 */
/* Guaranteed deletes: a lock node whose delete was cut off by connection
 * loss would otherwise stay as long as the session lives and wedge the lock
 * for everyone. The maintenance thread retries such deletes, on whatever
 * session is current, until the node is gone (deleted, or gone with its
 * session) or the server refuses. What it is given, and what a held
 * node's delete answered means, are janitor_queue.c's: the recipes and
 * the queue engine's world hand deletes over there, below these steps. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "client_struct.h"
#include "kernel_door.h"
#include "names.h"
#include "session_shared.h"
#include "zkcoord/common.h"

/* path's delete, waited for. */
static int delete_node(zkc_client_t *c, const char *path) {
  zkc__call_t del = {.rq = {.kind = ZKC__REQ_DELETE, .path = path}};
  return zkc__call(c, &del, 1, NULL);
}

/* Looks under base for the protected node carrying uuid (a create cut off
 * by connection loss may have been applied), behind a sync through the
 * leader so that such a create shows (on the leader, the read waits behind
 * the session's own writes in flight): *node is its path (malloc), or NULL
 * when there is none. ZKC_OK or the sync's or the read's error. */
static int find_protected(zkc_client_t *c, const char *base, const char *uuid,
                          char **node) {
  *node = NULL;
  zkc__call_t rd[2] = {{.rq = {.kind = ZKC__REQ_SYNC, .path = base}},
                       {.rq = {.kind = ZKC__REQ_CHILDREN, .path = base}}};
  (void)zkc__call(c, rd, 2, NULL);
  int rc = rd[0].rc != ZKC_OK ? rd[0].rc : rd[1].rc;
  if (rc == ZKC_ENONODE) rc = ZKC_OK; /* no parent: no node either */
  for (int i = 0; rc == ZKC_OK && i < rd[1].children.count; i++) {
    if (zkc__name_has_uuid(rd[1].children.data[i], uuid)) {
      *node = zkc__path_join(base, rd[1].children.data[i]);
      if (*node == NULL) rc = ZKC_ENOMEM;
      break;
    }
  }
  zkc__call_clear(rd, 2);
  return rc;
}

/* Deletes the protected nodes with p->uuid under p->path: normally one, but
 * a create retried after connection loss, when a lagging server's list did
 * not show the first, may have made two. */
static int delete_by_uuid(zkc_client_t *c, const zkc__pending_t *p) {
  int rc;
  for (;;) {
    char *node = NULL;
    rc = find_protected(c, p->path, p->uuid, &node);
    if (rc != ZKC_OK || node == NULL) return rc;
    rc = delete_node(c, node);
    free(node);
    if (rc != ZKC_OK && rc != ZKC_ENONODE) return rc;
  }
}

static int work_on(zkc_client_t *c, const zkc__pending_t *p) {
  int rc = p->uuid[0] ? delete_by_uuid(c, p) : delete_node(c, p->path);
  return rc == ZKC_ENONODE ? ZKC_OK : rc;
}

/* Takes the next item, when a live session can work on it. Caller holds
 * c->mu. */
static zkc__pending_t *take_ready_locked(zkc_client_t *c) {
  if (!zkc__live_locked(c)) return NULL; /* a state change wakes us */
  zkc__pending_t *p = c->pending;
  if (p != NULL) c->pending = p->next;
  return p;
}

int64_t zkc__janitor_next_locked(zkc_client_t *c) {
  return c->pending && zkc__live_locked(c) ? c->janitor_retry_at : ZKC__FOREVER;
}

int zkc__janitor_step_locked(zkc_client_t *c) {
  if (c->pending == NULL || zkc__now_ms() < c->janitor_retry_at) return 0;
  zkc__pending_t *p = take_ready_locked(c);
  if (p == NULL) return 0;
  pthread_mutex_unlock(&c->mu);
  int rc = work_on(c, p);
  if (rc != ZKC_OK && !zkc__retryable(rc))
    zkc__log(c, ZKC_LOG_ERROR, "delete of %s failed: %s", p->path,
             zkc_strerror(rc));
  pthread_mutex_lock(&c->mu);
  if (rc == ZKC_OK || !zkc__retryable(rc)) {
    free(p->path);
    free(p);
    atomic_fetch_sub(&c->janitor_pending, 1);
    atomic_fetch_add(&c->janitor_done, 1);
    c->janitor_attempt = 0;
    c->janitor_retry_at = 0;
    return 1;
  }
  /* Connection trouble: put it back and try again after a backoff (or as
   * soon as the connection is back: take_ready waits for that anyway). */
  p->next = c->pending;
  c->pending = p;
  c->janitor_retry_at =
      zkc__now_ms() + zkc__background_backoff_ms(&c->janitor_attempt);
  return 1;
}

void zkc__janitor_free(zkc_client_t *c) {
  while (c->pending) {
    zkc__pending_t *p = c->pending;
    c->pending = p->next;
    free(p->path);
    free(p);
  }
}
