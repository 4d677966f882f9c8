/* Guaranteed deletes: a lock node whose delete was cut off by connection
 * loss would otherwise stay as long as the session lives and wedge the lock
 * for everyone. The janitor thread retries such deletes until they succeed
 * or the session that owns the node is gone (its ephemerals with it). */
#include <stdlib.h>
#include <string.h>

#include "client_impl.h"
#include "names.h"
#include "zkcoord/common.h"

void zkc__janitor_add(zkc_client_t *c, const char *path, const char *uuid,
                      int64_t session_id) {
  zkc__pending_t *p = calloc(1, sizeof *p);
  char *copy = p ? strdup(path) : NULL;
  if (copy == NULL) {
    /* Nothing can be queued; the node goes when the session ends. */
    free(p);
    zkc__log(c, ZKC_LOG_ERROR, "out of memory: cannot queue delete of %s",
             path);
    return;
  }
  p->path = copy;
  if (uuid) memcpy(p->uuid, uuid, sizeof p->uuid);
  p->session_id = session_id;
  pthread_mutex_lock(&c->mu);
  p->next = c->pending;
  c->pending = p;
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

/* Deletes the protected node with p->uuid under p->path, if it exists. */
static int delete_by_uuid(zkc_client_t *c, const zkc__pending_t *p) {
  zkc__op_t op;
  int rc = zkc__op_init(&op);
  if (rc != ZKC_OK) return rc;
  zkc__submit_children(c, &op, p->path);
  rc = zkc__op_wait(&op);
  for (int i = 0; rc == ZOK && i < op.children.count; i++) {
    if (!zkc__name_has_uuid(op.children.data[i], p->uuid)) continue;
    char *node = zkc__path_join(p->path, op.children.data[i]);
    rc = node ? zkc__op_run_delete(c, node) : ZKC_ENOMEM;
    free(node);
  }
  zkc__op_clear(&op);
  return rc;
}

static int work_on(zkc_client_t *c, const zkc__pending_t *p) {
  int rc = p->uuid[0] ? delete_by_uuid(c, p) : zkc__op_run_delete(c, p->path);
  return rc == ZNONODE ? ZOK : rc;
}

/* Takes the next item that can be worked on now, dropping those whose
 * session is gone. Caller holds c->mu. */
static zkc__pending_t *take_ready_locked(zkc_client_t *c) {
  if (c->zk_state != ZOO_CONNECTED_STATE) return NULL;
  zkc__pending_t **pp = &c->pending;
  while (*pp) {
    zkc__pending_t *p = *pp;
    *pp = p->next;
    if (p->session_id == c->session_id && !c->session_dead) return p;
    free(p->path);
    free(p);
  }
  return NULL;
}

static void *janitor_main(void *arg) {
  zkc_client_t *c = arg;
  int attempt = 0;
  pthread_mutex_lock(&c->mu);
  while (!c->closed) {
    zkc__pending_t *p = take_ready_locked(c);
    if (p == NULL) {
      pthread_cond_wait(&c->state_cv, &c->mu);
      continue;
    }
    pthread_mutex_unlock(&c->mu);
    int rc = work_on(c, p);
    pthread_mutex_lock(&c->mu);
    if (rc == ZOK || !zkc__retryable(rc)) {
      if (rc != ZOK)
        zkc__log(c, ZKC_LOG_ERROR, "delete of %s failed: %s", p->path,
                 zkc_strerror(rc));
      free(p->path);
      free(p);
      attempt = 0;
      continue;
    }
    p->next = c->pending; /* try again after a backoff */
    c->pending = p;
    int64_t until = zkc__now_ms() + (attempt < 6 ? 50 << attempt : 2000);
    attempt++;
    while (!c->closed && zkc__now_ms() < until)
      zkc__cond_wait_until(&c->state_cv, &c->mu, until);
  }
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

int zkc__janitor_start(zkc_client_t *c) {
  if (pthread_create(&c->janitor, NULL, janitor_main, c) != 0)
    return ZKC_ESYSTEM;
  c->janitor_started = 1;
  return ZKC_OK;
}

void zkc__janitor_stop(zkc_client_t *c) {
  if (!c->janitor_started) return;
  /* c->closed is set, state_cv broadcast and the handle dropped by the
   * caller: a request the janitor waits on has completed with ZCLOSING. */
  pthread_join(c->janitor, NULL);
  c->janitor_started = 0;
}

void zkc__janitor_free(zkc_client_t *c) {
  while (c->pending) {
    zkc__pending_t *p = c->pending;
    c->pending = p->next;
    free(p->path);
    free(p);
  }
}
