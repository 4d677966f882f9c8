/* SPDX-License-Identifier: Apache-2.0 */
/* The reentrant mutex: a per-thread hold table over the lock queue. Here:
 * the object, acquiring and releasing, and what the calling thread holds;
 * how a hold learns it is lost is in mutex_loss.c, the read-write lock's
 * downgrade in mutex_downgrade.c, the reads and writes under a hold in
 * fenced.c. The two sides of a read-write lock are mutexes too (rwlock.c),
 * told apart by their side and linked as twins. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "hold_notice.h"
#include "hold_view.h"
#include "mutex_hold.h"
#include "mutex_struct.h"
#include "names.h"
#include "queue.h"
#include "test_hooks.h"

#define my_hold zkc__mutex_my_hold

static int mutex_create_impl(zkc_mutex_t **out, zkc_client_t *client,
                             const char *path) {
  if (out != NULL) *out = NULL;
  int rc = zkc__refuse_null(client, "zkc_mutex_create", "out", out == NULL,
                            "client", client == NULL, (char *)NULL);
  if (rc == ZKC_OK)
    rc = zkc__check_path(client, "zkc_mutex_create", "lock path", path);
  if (rc != ZKC_OK) return rc;
  return zkc__mutex_new(out, client, path, ZKC__SIDE_MUTEX);
}

int zkc_mutex_create(zkc_mutex_t **out, zkc_client_t *client,
                     const char *path) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           mutex_create_impl(out, client, path));
}

int zkc__mutex_new(zkc_mutex_t **out, zkc_client_t *client, const char *path,
                   zkc__side_t side) {
  zkc_mutex_t *m = calloc(1, sizeof *m);
  if (m == NULL) return ZKC_ENOMEM;
  if ((m->path = strdup(path)) == NULL ||
      pthread_mutex_init(&m->mu, NULL) != 0) {
    free(m->path);
    free(m);
    return ZKC_ENOMEM;
  }
  if (zkc__quiet_init(&m->quiet) != ZKC_OK) {
    pthread_mutex_destroy(&m->mu);
    free(m->path);
    free(m);
    return ZKC_ENOMEM;
  }
  /* Everything on_state reads is set before it can run: the maintenance
   * thread calls it from the attach on, with no lock of ours between (TSan
   * saw the first state change race with these writes). */
  m->client = client;
  m->side = side;
  zkc__hold_view_init(&m->view, ZKC__HOLD_MUTEX, m);
  static const zkc_recipe_t recipes[] = {[ZKC__SIDE_MUTEX] = ZKC_RECIPE_MUTEX,
                                         [ZKC__SIDE_WRITE] = ZKC_RECIPE_WRITE,
                                         [ZKC__SIDE_READ] = ZKC_RECIPE_READ};
  m->st = zkc__stats_for(zkc__client_facts(client).stats, recipes[side], path);
  int rc = zkc__recipe_attach(client, zkc__mutex_on_state, m);
  if (rc != ZKC_OK) {
    zkc__quiet_destroy(&m->quiet);
    pthread_mutex_destroy(&m->mu);
    free(m->path);
    free(m);
    return rc;
  }
  *out = m;
  return ZKC_OK;
}

void zkc__mutex_twin(zkc_mutex_t *w, zkc_mutex_t *r) {
  w->twin = r;
  r->twin = w;
}

int zkc__mutex_busy(zkc_mutex_t *m) {
  pthread_mutex_lock(&m->mu);
  int busy = m->holds != NULL || m->users > 0;
  pthread_mutex_unlock(&m->mu);
  return busy;
}

static int mutex_destroy_impl(zkc_mutex_t *m) {
  if (m == NULL) return ZKC_OK;
  if (m->side != ZKC__SIDE_MUTEX) /* its rwlock's */
    return zkc__refuse(m->client, ZKC_EINVAL,
                       "zkc_mutex_destroy: a side of a "
                       "read-write lock goes with zkc_rwlock_destroy");
  if (zkc__mutex_busy(m)) return ZKC_EBUSY;
  return zkc__mutex_free(m);
}

int zkc_mutex_destroy(zkc_mutex_t *m) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, mutex_destroy_impl(m));
}

int zkc__mutex_free(zkc_mutex_t *m) {
  /* While the client is still ours (the detach may drop its last
   * reference); refused below, the mutex only sets its watch again. */
  zkc__quiet_unwatch(&m->quiet, m->client);
  int rc = zkc__recipe_detach(m->client, zkc__mutex_on_state, m);
  if (rc != ZKC_OK) return rc;
  zkc__released_clear(&m->released); /* no callback after destroy */
  zkc__quiet_destroy(&m->quiet);
  zkc__hold_notice_forget(m);
  pthread_mutex_destroy(&m->mu);
  free(m->path);
  free(m);
  return ZKC_OK;
}

zkc_hold_t *zkc_mutex_hold(zkc_mutex_t *m) {
  return m ? ZKC__HOLD_OF(&m->view) : NULL;
}

static int mutex_acquire_timeout_impl(zkc_mutex_t *m, int64_t timeout_ms) {
  if (m == NULL) /* timeout_ms < 0: no limit */
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_mutex_acquire_timeout: mutex is NULL");
  zkc_client_t *c = m->client;
  char *wnode = NULL;
  int rc = zkc__mutex_twin_check(m, &wnode);
  if (rc != ZKC_OK) return rc;
  zkc_revoke_fn revoke_fn = NULL;
  void *revoke_ctx = NULL;
  zkc__quick_ticket_t quick;
  int quick_ok = 0;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h != NULL) { /* reentry: a count, no ZooKeeper call */
    if (atomic_load(&h->rec.lost))
      rc = ZKC_ELOST;
    else if (zkc__client_facts(c).closed)
      rc = ZKC_ECLOSED;
    else if (h->count == UINT_MAX)
      rc = ZKC_EBUSY;
    else
      h->count++;
  } else {
    m->users++;
    revoke_fn = m->revoke_fn;
    revoke_ctx = m->revoke_ctx;
    /* A plain mutex's: a side's acquire goes as it always did. */
    quick_ok = wnode == NULL && m->twin == NULL &&
               zkc__quiet_take(&m->quiet, c, &quick);
  }
  pthread_mutex_unlock(&m->mu);
  if (h != NULL) {
    free(wnode);
    return rc;
  }

  int64_t began = zkc__stats_begin(m->st);
  if ((rc = zkc__call_enter(c)) != ZKC_OK) {
    zkc__stats_end(m->st, began, rc, 0);
    free(wnode);
    zkc__mutex_hold_leave(m);
    return rc;
  }
  h = calloc(1, sizeof *h);
  if (h == NULL) rc = ZKC_ENOMEM;
  /* A revocable node carries no data: the marker is the only data it gets. */
  const char *data = revoke_fn ? "" : NULL;
  int64_t deadline = zkc__deadline_after(timeout_ms);
  while (rc == ZKC_OK) {
    h->thread = zkc__thread_id();
    h->count = 1;
    h->revoke_fn = revoke_fn;
    h->revoke_ctx = revoke_ctx;
    if (wnode != NULL)
      rc = zkc__mutex_downgrade(m, wnode, data, deadline, &h->held);
    else
      rc = zkc__lock_acquire_quick(c, m->path, zkc__side_name(m->side), data,
                                   m->side == ZKC__SIDE_READ,
                                   quick_ok ? &quick.q : NULL, deadline,
                                   &h->held);
    if (rc != ZKC_OK) break;
    quick_ok = 0; /* queued again: as any run */
    if (zkc__mutex_seam) zkc__mutex_seam(m, ZKC__SEAM_GRANTED);
    pthread_mutex_lock(&m->mu);
    rc = zkc__mutex_record(m, h);
    m->users -= rc == ZKC_OK;
    pthread_mutex_unlock(&m->mu);
    if (rc != ZKC__REQUEUE) break;
    /* The session went (or, by policy, the connection) between the grant
     * and the record: the node is not a hold. Queue again, at the back. */
    zkc__log(c, ZKC_LOG_INFO, "lock %s: lost while being granted, queueing "
                              "again", m->path);
    zkc__janitor_add(c, h->held.node, NULL);
    free(h->held.node);
    h->held.node = NULL;
    rc = zkc__wait_connected(c, deadline);
  }
  free(wnode);
  /* Only this thread reads granted_us: no lock needed once recorded. */
  int64_t ended = zkc__stats_end(m->st, began, rc, h ? h->held.woken_us : 0);
  if (rc == ZKC_OK) h->granted_us = ended;
  if (rc != ZKC_OK) {
    if (h != NULL && h->held.node) /* within the call's limit */
      zkc__lock_release_by(c, &h->held, zkc__limit_after(deadline));
    free(h);
    zkc__mutex_hold_leave(m);
  }
  zkc__call_leave(c);
  return rc;
}

int zkc_mutex_acquire_timeout(zkc_mutex_t *m, int64_t timeout_ms) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           mutex_acquire_timeout_impl(m, timeout_ms));
}

static int timed_acquire(void *m, int64_t timeout_ms) {
  return zkc_mutex_acquire_timeout(m, timeout_ms);
}

int zkc_mutex_acquire(zkc_mutex_t *m) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           zkc__untimed(__func__, "mutex", m, timed_acquire));
}

/* zkc_mutex_release, or with `nowait` zkc_mutex_release_nowait. */
static int release(zkc_mutex_t *m, int nowait) {
  if (m == NULL)
    return zkc__refuse(
        NULL, ZKC_EINVAL, "%s: mutex is NULL",
        nowait ? "zkc_mutex_release_nowait" : "zkc_mutex_release");
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  zkc_client_t *c = m->client;
  pthread_mutex_lock(&m->mu);
  hold_t *h = my_hold(m);
  if (h == NULL) {
    pthread_mutex_unlock(&m->mu);
    return ZKC_ENOTOWNER;
  }
  /* A lost hold, or one of a closed client, has no node left to delete
   * here: the whole hold goes at once. */
  int rc = atomic_load(&h->rec.lost) ? ZKC_ELOST
           : zkc__client_facts(c).closed   ? ZKC_ECLOSED
                                     : ZKC_OK;
  if (rc == ZKC_OK && h->count > 1) {
    h->count--;
    pthread_mutex_unlock(&m->mu);
    return ZKC_OK;
  }
  /* Counted as a user until the last touch of the client: destroy (and
   * with it the client's last reference) waits for this call. */
  m->users++;
  pthread_mutex_unlock(&m->mu);
  if (zkc__mutex_seam) zkc__mutex_seam(m, ZKC__SEAM_RELEASING);
  /* Before the delete it would report. A refused delete watches again from
   * the version told, so what was told is not told again. */
  int32_t told = zkc__guard_remove(c, h->guard);
  h->guard = 0;
  /* One whose session is not proven live now may have been lost before (a
   * stop of this process past its session, a connection down): not a
   * clean end, its node left to the janitor. */
  int unproven = 0;
  if (rc == ZKC_OK) rc = zkc__hold_rec_release_code(&h->rec, c, &unproven);
  if (unproven) zkc__janitor_add(c, h->held.node, NULL);
  int ended = rc; /* what the hold was before the delete */
  if (rc == ZKC_OK) {
    if (nowait)
      rc = zkc__lock_delete_nowait(c, h->held.node);
    else if (m->twin == NULL) /* and what a quick acquire next goes on */
      rc = zkc__quiet_delete(&m->quiet, c, m->path, &h->held);
    else
      rc = zkc__lock_delete(c, h->held.node);
    if (rc != ZKC_OK && rc != ZKC_ECLOSED && rc != ZKC_ELOST) {
      /* Refused: the node is still there, so the lock is still held. */
      pthread_mutex_lock(&m->mu);
      zkc__mutex_guard_hold(m, h, told);
      m->users--;
      pthread_mutex_unlock(&m->mu);
      return rc;
    }
  }
  zkc__stats_released(m->st, h->granted_us, rc);
  pthread_mutex_lock(&m->mu);
  zkc__hold_rec_keep(&h->rec, ended, &m->released); /* a loss still told */
  HASH_DELETE(hh, m->holds, h);
  m->users--;
  pthread_mutex_unlock(&m->mu); /* the last touch of m */
  free(h->held.node);
  free(h);
  return rc;
}

int zkc_mutex_release(zkc_mutex_t *m) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, release(m, 0));
}

int zkc_mutex_release_nowait(zkc_mutex_t *m) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, release(m, 1));
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

static int mutex_set_lost_callback_impl(zkc_mutex_t *m, zkc_lost_fn fn,
                                        void *ctx) {
  if (m == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_mutex_set_lost_callback: mutex is NULL");
  pthread_mutex_lock(&m->mu);
  m->lost_fn = fn;
  m->lost_ctx = ctx;
  pthread_mutex_unlock(&m->mu);
  return ZKC_OK;
}

int zkc_mutex_set_lost_callback(zkc_mutex_t *m, zkc_lost_fn fn, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           mutex_set_lost_callback_impl(m, fn, ctx));
}

static int mutex_set_revocable_impl(zkc_mutex_t *m, zkc_revoke_fn fn,
                                    void *ctx) {
  if (m == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL,
                       "zkc_mutex_set_revocable: mutex is NULL");
  pthread_mutex_lock(&m->mu);
  m->revoke_fn = fn;
  m->revoke_ctx = ctx;
  pthread_mutex_unlock(&m->mu);
  return ZKC_OK;
}

int zkc_mutex_set_revocable(zkc_mutex_t *m, zkc_revoke_fn fn, void *ctx) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           mutex_set_revocable_impl(m, fn, ctx));
}

const char *zkc_mutex_path(const zkc_mutex_t *m) { return m ? m->path : NULL; }

static int mutex_stats_impl(const zkc_mutex_t *m, zkc_lock_stats_t *out) {
  if (m == NULL || out == NULL)
    return zkc__refuse(m ? m->client : NULL, ZKC_EINVAL,
                       "zkc_mutex_stats: %s is NULL", m ? "out" : "mutex");
  return zkc__stats_copy(m->st, out);
}

int zkc_mutex_stats(const zkc_mutex_t *m, zkc_lock_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, mutex_stats_impl(m, out));
}

/* A side lists its own kind only (as Curator's sides do), kazoo's included. */
static void keep_side(zkc__side_t side, char ***nodes, size_t *count) {
  zkc__rw_kind_t want = side == ZKC__SIDE_READ ? ZKC__RW_READ : ZKC__RW_WRITE;
  char **v = *nodes;
  size_t kept = 0;
  for (size_t i = 0; i < *count; i++) {
    if (zkc__rw_kind(zkc__basename(v[i])) == want)
      v[kept++] = v[i];
    else
      free(v[i]);
  }
  *count = kept;
  if (kept == 0) {
    free(v);
    *nodes = NULL;
  }
}

static int mutex_participant_nodes_impl(zkc_mutex_t *m, char ***nodes,
                                        size_t *count) {
  int rc_ = zkc__refuse_null(
      m ? m->client : NULL, "zkc_mutex_node_list", "mutex", m == NULL,
      "nodes", nodes == NULL, "count", count == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  int rc = zkc__call_enter(m->client);
  if (rc != ZKC_OK) return rc;
  rc = zkc__lock_participants(m->client, m->path, nodes, count);
  zkc__call_leave(m->client);
  if (rc == ZKC_OK && m->side != ZKC__SIDE_MUTEX) keep_side(m->side, nodes, count);
  return rc;
}

int zkc__mutex_nodes(zkc_mutex_t *m, char ***nodes, size_t *count) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           mutex_participant_nodes_impl(m, nodes, count));
}
