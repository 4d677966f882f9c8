/* SPDX-License-Identifier: Apache-2.0 */
/* Asynchronous acquire, the context's public calls: create and destroy,
 * acquire and cancel, the dispatch descriptor. The engine stepping pending
 * acquires is async_engine.c, the holds async_hold.c, the callback queue
 * async_deliver.c. No thread per waiter. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "async_int.h"

#include "hold_fate.h"
#include "mutex_sides.h"
#include "names.h"
#include "sem.h"
#include "session.h"
#include "unsized.h"
#include "util.h"

/* ---- the public calls ---- */

void zkc__async_opts_defaults(zkc_async_opts_t *opts) {
  if (opts == NULL) return;
  memset(opts, 0, sizeof *opts);
  opts->delivery = ZKC_DELIVER_THREAD;
}

static int async_create_impl(zkc_async_t **out, zkc_client_t *client,
                             const zkc_async_opts_t *opts) {
  if (out) *out = NULL;
  zkc_async_opts_t o;
  zkc__async_opts_defaults(&o);
  if (opts) o = *opts;
  int rc_ = zkc__refuse_null(client, "zkc_async_create", "out", out == NULL,
                             "client", client == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  if (o.delivery != ZKC_DELIVER_THREAD && o.delivery != ZKC_DELIVER_DISPATCH)
    return zkc__refuse(client, ZKC_EINVAL,
                       "zkc_async_create: delivery %d is "
                       "neither ZKC_DELIVER_THREAD nor ZKC_DELIVER_DISPATCH",
                       (int)o.delivery);
  zkc_async_t *a = calloc(1, sizeof *a);
  if (a == NULL) return ZKC_ENOMEM;
  a->c = client;
  a->opts = o;
  a->events_tail = &a->events;
  a->acqs_tail = &a->acqs;
  a->ready_tail = &a->ready;
  a->fd = -1;
  int rc = ZKC_OK;
  if (o.delivery == ZKC_DELIVER_DISPATCH &&
      (a->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
    rc = ZKC_ESYSTEM;
  if (rc == ZKC_OK && pthread_mutex_init(&a->mu, NULL) != 0) rc = ZKC_ESYSTEM;
  if (rc == ZKC_OK && zkc__cond_init(&a->cv) != ZKC_OK) {
    pthread_mutex_destroy(&a->mu);
    rc = ZKC_ESYSTEM;
  }
  if (rc != ZKC_OK) {
    if (a->fd >= 0) close(a->fd);
    free(a);
    return rc;
  }
  rc = zkc__recipe_attach(client, zkc__async_on_state, a);
  if (rc == ZKC_OK && pthread_create(&a->engine, NULL, zkc__async_engine, a) != 0) {
    zkc__recipe_detach(client, zkc__async_on_state, a);
    rc = ZKC_ESYSTEM;
  }
  if (rc != ZKC_OK) {
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    if (a->fd >= 0) close(a->fd);
    free(a);
    return rc;
  }
  *out = a;
  return ZKC_OK;
}

int zkc__async_create(zkc_async_t **out, zkc_client_t *client,
                      const zkc_async_opts_t *opts) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave("zkc_async_create", mark,
                           async_create_impl(out, client, opts));
}

static int async_destroy_impl(zkc_async_t *a) {
  if (a == NULL) return ZKC_OK;
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  pthread_mutex_lock(&a->mu);
  if (a->holds_alive > 0) {
    pthread_mutex_unlock(&a->mu);
    return ZKC_EBUSY;
  }
  a->stopping = 1;
  for (acq_t *q = a->acqs; q; q = q->next)
    if (!q->decided) {
      q->decided = 1;
      q->rc = ZKC_ECLOSED;
    }
  a->sweep = 1;
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->engine, NULL);
  /* Not on a callback thread (above): the detach cannot be refused. The
   * callbacks still queued get no object of the client. */
  zkc__recipe_detach(a->c, zkc__async_on_state, a);
  zkc__released_clear(&a->released); /* no loss told after destroy */
  /* What is still queued (dispatch mode's rest, or a loss told after the
   * engine stopped) runs here, on the destroying thread: once, never lost. */
  zkc__async_run_events(a);
  if (a->fd >= 0) close(a->fd);
  pthread_cond_destroy(&a->cv);
  pthread_mutex_destroy(&a->mu);
  free(a);
  return ZKC_OK;
}

int zkc_async_destroy(zkc_async_t *a) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, async_destroy_impl(a));
}

/* Lists an accepted acquire q (its stats begun on st) for the engine and
 * names it in *id; while the context is being destroyed it is ended and
 * freed instead (ZKC_ECLOSED). */
static int enqueue(zkc_async_t *a, acq_t *q, zkc__lstats_t *st, uint64_t *id) {
  pthread_mutex_lock(&a->mu);
  if (a->stopping) {
    pthread_mutex_unlock(&a->mu);
    zkc__stats_end(st, q->began_us, ZKC_ECLOSED, 0);
    zkc__async_acq_free(q); /* a semaphore's leaves it */
    return ZKC_ECLOSED;
  }
  q->id = ++a->next_id;
  zkc__async_append_locked(a, q);
  zkc__async_ready_locked(a, q);
  if (id) *id = q->id;
  a->kicked = 1;
  pthread_cond_signal(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return ZKC_OK;
}

/* An acquire of a lock (side ZKC__SIDE_MUTEX) or of a read-write lock's
 * side; fn names the public call. */
static int acquire_side(zkc_async_t *a, const char *fn, zkc__side_t side,
                        const char *path, int64_t timeout_ms,
                        zkc_acquired_fn done, void *ctx, uint64_t *id) {
  int rc0 = zkc__refuse_null(a ? a->c : NULL, fn, "async", a == NULL, "done",
                             done == NULL, (char *)NULL);
  if (rc0 == ZKC_OK) rc0 = zkc__check_path(a->c, fn, "lock path", path);
  if (rc0 != ZKC_OK) return rc0;
  if (zkc__client_facts(a->c).closed) return ZKC_ECLOSED;
  acq_t *q = calloc(1, sizeof *q);
  char *base = q ? strdup(path) : NULL;
  if (base == NULL) {
    free(q);
    return ZKC_ENOMEM;
  }
  q->fn = done;
  q->ctx = ctx;
  q->st = zkc__stats_for(zkc__client_facts(a->c).stats, ZKC_RECIPE_ASYNC, path);
  q->began_us = zkc__stats_begin(q->st);
  zkc__async_acq_init(a, q, base, side,
                      timeout_ms == 0 ? zkc__now_ms()
                                      : zkc__deadline_after(timeout_ms));
  return enqueue(a, q, q->st, id);
}

int zkc_async_acquire(zkc_async_t *a, const char *path, int64_t timeout_ms,
                      zkc_acquired_fn done, void *ctx, uint64_t *id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           acquire_side(a, __func__, ZKC__SIDE_MUTEX, path,
                                        timeout_ms, done, ctx, id));
}

int zkc_async_acquire_read(zkc_async_t *a, const char *path,
                           int64_t timeout_ms, zkc_acquired_fn done, void *ctx,
                           uint64_t *id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           acquire_side(a, __func__, ZKC__SIDE_READ, path,
                                        timeout_ms, done, ctx, id));
}

int zkc_async_acquire_write(zkc_async_t *a, const char *path,
                            int64_t timeout_ms, zkc_acquired_fn done,
                            void *ctx, uint64_t *id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           acquire_side(a, __func__, ZKC__SIDE_WRITE, path,
                                        timeout_ms, done, ctx, id));
}

static int acquire_leases_impl(zkc_async_t *a, zkc_sem_t *s, unsigned qty,
                               int64_t timeout_ms, zkc_acquired_fn done,
                               void *ctx, uint64_t *id) {
  static const char fn[] = "zkc_async_acquire_leases";
  int rc = zkc__refuse_null(a ? a->c : NULL, fn, "async", a == NULL, "sem",
                            s == NULL, "done", done == NULL, (char *)NULL);
  if (rc == ZKC_OK && s->client != a->c)
    rc = zkc__refuse(a->c, ZKC_EINVAL,
                     "%s: the semaphore '%.300s' is of another client than "
                     "the context's",
                     fn, s->path);
  if (rc == ZKC_OK) rc = zkc__sem_qty_check(s, fn, qty);
  if (rc != ZKC_OK) return rc;
  if (zkc__client_facts(a->c).closed) return ZKC_ECLOSED;
  if ((rc = zkc__sem_enter(s, qty)) != ZKC_OK) return rc;
  acq_t *q = calloc(1, sizeof *q);
  if (q == NULL ||
      zkc__async_sem_init(a, q, s, qty,
                          timeout_ms == 0 ? zkc__now_ms()
                                          : zkc__deadline_after(timeout_ms)) !=
          ZKC_OK) {
    free(q);
    zkc__sem_leave(s);
    return ZKC_ENOMEM;
  }
  q->fn = done;
  q->ctx = ctx;
  q->st = s->st; /* the semaphore's record: a lease set's grant and end */
  q->began_us = zkc__stats_begin(q->st);
  return enqueue(a, q, q->st, id);
}

int zkc_async_acquire_leases(zkc_async_t *a, zkc_sem_t *s, unsigned qty,
                             int64_t timeout_ms, zkc_acquired_fn done,
                             void *ctx, uint64_t *id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           acquire_leases_impl(a, s, qty, timeout_ms, done,
                                               ctx, id));
}

static int async_stats_impl(const zkc_async_t *a, const char *path,
                            zkc_lock_stats_t *out) {
  int rc0 = zkc__refuse_null(a ? a->c : NULL, "zkc_async_stats", "async",
                             a == NULL, "out", out == NULL, (char *)NULL);
  if (rc0 == ZKC_OK)
    rc0 = zkc__check_path(a->c, "zkc_async_stats", "lock path", path);
  if (rc0 != ZKC_OK) {
    if (out) memset(out, 0, sizeof *out);
    return rc0;
  }
  zkc__lstats_t *st =
      zkc__stats_find(zkc__client_facts(a->c).stats, ZKC_RECIPE_ASYNC, path);
  if (st == NULL) {
    memset(out, 0, sizeof *out);
    return ZKC_OK;
  }
  return zkc__stats_copy(st, out);
}

int zkc_async_stats(const zkc_async_t *a, const char *path,
                    zkc_lock_stats_t *out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, async_stats_impl(a, path, out));
}

static int async_cancel_impl(zkc_async_t *a, uint64_t id) {
  if (a == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_async_cancel: async is NULL");
  pthread_mutex_lock(&a->mu);
  int rc = id == 0 || id > a->next_id ? ZKC_EINVAL : ZKC_EALREADY;
  uint64_t last = a->next_id;
  for (acq_t *q = a->acqs; q && rc == ZKC_EALREADY; q = q->next) {
    if (q->id != id || !zkc__async_is_acquire(q)) continue;
    if (!q->decided) {
      q->decided = 1;
      q->rc = ZKC_ECANCELED;
      zkc__async_ready_locked(a, q);
      a->kicked = 1;
      pthread_cond_signal(&a->cv);
      rc = ZKC_OK;
    }
    break;
  }
  pthread_mutex_unlock(&a->mu);
  if (rc == ZKC_EINVAL)
    zkc__refuse(a->c, rc,
                "zkc_async_cancel: id %llu was never given by this "
                "context (1..%llu)",
                (unsigned long long)id, (unsigned long long)last);
  return rc;
}

int zkc_async_cancel(zkc_async_t *a, uint64_t id) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, async_cancel_impl(a, id));
}

static int async_fd_impl(const zkc_async_t *a, int *fd) {
  int rc_ = zkc__refuse_null(a ? a->c : NULL, "zkc_async_fd", "async", a == NULL,
                             "fd", fd == NULL, (char *)NULL);
  if (rc_ != ZKC_OK) return rc_;
  if (a->fd < 0)
    return zkc__refuse(a->c, ZKC_EINVAL,
                       "zkc_async_fd: the context delivers "
                       "on its own thread (no descriptor without "
                       "ZKC_DELIVER_DISPATCH)");
  *fd = a->fd;
  return ZKC_OK;
}

int zkc_async_fd(const zkc_async_t *a, int *fd) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, async_fd_impl(a, fd));
}

static int async_dispatch_impl(zkc_async_t *a, int *ran) {
  if (ran) *ran = 0;
  if (a == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "zkc_async_dispatch: async is NULL");
  if (a->fd < 0)
    return zkc__refuse(a->c, ZKC_EINVAL,
                       "zkc_async_dispatch: the context "
                       "delivers on its own thread (dispatch needs "
                       "ZKC_DELIVER_DISPATCH)");
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;
  int n = zkc__async_run_events(a);
  if (ran) *ran = n;
  return ZKC_OK;
}

int zkc_async_dispatch(zkc_async_t *a, int *ran) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, async_dispatch_impl(a, ran));
}
