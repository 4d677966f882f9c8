/* The reentrant mutex: a per-thread hold table over the lock internals. */
#include <stdlib.h>
#include <string.h>

#include "client_impl.h"
#include "internals.h"
#include "names.h"
#include "zkcoord/mutex.h"

#define LOCK_NAME "lock-"

/* One thread's hold on the mutex. */
typedef struct hold {
  uint64_t thread; /* zkc__thread_id() of the holder */
  unsigned count;
  zkc__held_t held;
  UT_hash_handle hh;
} hold_t;

struct zkc_mutex {
  zkc_client_t *client;
  char *path;
  pthread_mutex_t mu; /* guards holds and acquiring */
  hold_t *holds;
  int acquiring; /* threads inside acquire without a hold yet */
};

int zkc_mutex_create(zkc_mutex_t **out, zkc_client_t *client,
                     const char *path) {
  if (out != NULL) *out = NULL;
  if (out == NULL || client == NULL || zkc__path_validate(path) != ZKC_OK)
    return ZKC_EINVAL;
  zkc_mutex_t *m = calloc(1, sizeof *m);
  if (m == NULL) return ZKC_ENOMEM;
  if ((m->path = strdup(path)) == NULL ||
      pthread_mutex_init(&m->mu, NULL) != 0) {
    free(m->path);
    free(m);
    return ZKC_ENOMEM;
  }
  int rc = zkc__client_ref(client);
  if (rc != ZKC_OK) {
    pthread_mutex_destroy(&m->mu);
    free(m->path);
    free(m);
    return rc;
  }
  m->client = client;
  *out = m;
  return ZKC_OK;
}

int zkc_mutex_destroy(zkc_mutex_t *m) {
  if (m == NULL) return ZKC_OK;
  pthread_mutex_lock(&m->mu);
  int busy = m->holds != NULL || m->acquiring > 0;
  pthread_mutex_unlock(&m->mu);
  if (busy) return ZKC_EBUSY;
  zkc__client_unref(m->client);
  pthread_mutex_destroy(&m->mu);
  free(m->path);
  free(m);
  return ZKC_OK;
}

/* The calling thread's hold, or NULL. Caller holds m->mu. */
static hold_t *my_hold(const zkc_mutex_t *m) {
  uint64_t me = zkc__thread_id();
  hold_t *h = NULL;
  HASH_FIND(hh, m->holds, &me, sizeof me, h);
  return h;
}

int zkc_mutex_acquire_timeout(zkc_mutex_t *m, int64_t timeout_ms) {
  if (m == NULL || timeout_ms < 0) return ZKC_EINVAL;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  int rc = ZKC_OK;
  if (h != NULL) { /* reentry: a count, no ZooKeeper call */
    if (h->count < UINT32_MAX)
      h->count++;
    else
      rc = ZKC_EBUSY;
  }
  pthread_mutex_unlock(&m->mu);
  if (h != NULL) return rc;

  rc = zkc__call_enter(m->client);
  if (rc != ZKC_OK) return rc;
  h = calloc(1, sizeof *h);
  if (h == NULL) {
    zkc__call_leave(m->client);
    return ZKC_ENOMEM;
  }
  h->thread = zkc__thread_id();
  h->count = 1;
  pthread_mutex_lock(&m->mu);
  m->acquiring++;
  pthread_mutex_unlock(&m->mu);

  rc = zkc__lock_acquire(m->client, m->path, LOCK_NAME,
                         zkc__deadline_after(timeout_ms), &h->held);

  pthread_mutex_lock(&m->mu);
  m->acquiring--;
  if (rc == ZKC_OK && !ZKC__HASH_ADD_U64(m->holds, thread, h)) rc = ZKC_ENOMEM;
  pthread_mutex_unlock(&m->mu);
  if (rc != ZKC_OK) {
    if (h->held.node) zkc__lock_release(m->client, &h->held);
    free(h);
  }
  zkc__call_leave(m->client);
  return rc;
}

int zkc_mutex_acquire(zkc_mutex_t *m) {
  if (m == NULL) return ZKC_EINVAL;
  return zkc_mutex_acquire_timeout(m, INT64_MAX);
}

int zkc_mutex_release(zkc_mutex_t *m) {
  if (m == NULL) return ZKC_EINVAL;
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  int last = h != NULL && h->count == 1;
  if (h != NULL && !last) h->count--;
  if (last) HASH_DELETE(hh, m->holds, h);
  pthread_mutex_unlock(&m->mu);
  if (h == NULL) return ZKC_ENOTOWNER;
  if (!last) return ZKC_OK;
  int rc = zkc__lock_release(m->client, &h->held);
  free(h);
  return rc;
}

int zkc_mutex_is_acquired_in_this_process(const zkc_mutex_t *cm) {
  if (cm == NULL) return 0;
  zkc_mutex_t *m = (zkc_mutex_t *)cm; /* locking is not a logical change */
  pthread_mutex_lock(&m->mu);
  int any = m->holds != NULL;
  pthread_mutex_unlock(&m->mu);
  return any;
}

int zkc_mutex_is_owned_by_current_thread(const zkc_mutex_t *cm) {
  if (cm == NULL) return 0;
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  pthread_mutex_lock(&m->mu);
  int mine = my_hold(m) != NULL;
  pthread_mutex_unlock(&m->mu);
  return mine;
}

int zkc_mutex_fencing_token(const zkc_mutex_t *cm, int64_t *token) {
  if (cm == NULL || token == NULL) return ZKC_EINVAL;
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h) *token = h->held.token;
  pthread_mutex_unlock(&m->mu);
  return h ? ZKC_OK : ZKC_ENOTOWNER;
}

int zkc_mutex_lock_node(const zkc_mutex_t *cm, char *buf, size_t buf_len) {
  if (cm == NULL || buf == NULL || buf_len == 0) return ZKC_EINVAL;
  zkc_mutex_t *m = (zkc_mutex_t *)cm;
  int rc = ZKC_ENOTOWNER;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h) {
    size_t len = strlen(h->held.node);
    rc = len < buf_len ? ZKC_OK : ZKC_EINVAL;
    if (rc == ZKC_OK) memcpy(buf, h->held.node, len + 1);
  }
  pthread_mutex_unlock(&m->mu);
  return rc;
}

const char *zkc_mutex_path(const zkc_mutex_t *m) { return m ? m->path : NULL; }

int zkc_mutex_participant_nodes(zkc_mutex_t *m, char ***nodes, size_t *count) {
  if (m == NULL || nodes == NULL || count == NULL) return ZKC_EINVAL;
  int rc = zkc__call_enter(m->client);
  if (rc != ZKC_OK) return rc;
  rc = zkc__lock_participants(m->client, m->path, nodes, count);
  zkc__call_leave(m->client);
  return rc;
}
