/* zkcoord lock and zkcoord sem: run COMMAND while holding the distributed
 * lock on PATH (a mutex, or a side of the read-write lock on PATH), or one
 * lease of the semaphore on PATH (cmd_sem.c). */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A stop signal while acquire blocks closes the client, which wakes the
 * acquire with ZKC_ECLOSED and drops the session (and any node) at once. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static zkc_client_t *g_client;
static int g_acquiring, g_interrupted, g_closed;
static int g_outage;  /* the connection was down during the acquire */
static int g_stopped; /* zkcoord was told to stop while COMMAND ran */
static int g_unread;  /* the queue read that chooses the side failed */

static void on_interrupt(int sig) {
  pthread_mutex_lock(&g_mu);
  if (!g_interrupted) g_interrupted = sig;
  if (g_acquiring && !g_closed) {
    zkc_client_close(g_client);
    g_closed = 1;
  }
  pthread_mutex_unlock(&g_mu);
}

static void post_lost(void) { zkcli_event_post(ZKCLI_EV_LOST); }

static void on_lost(void *ctx, zkc_mutex_t *m, zkc_lost_reason_t why,
                    int64_t token) {
  (void)ctx, (void)m, (void)why, (void)token;
  post_lost();
}

/* A wait that ran out while the ensemble could not be reached is an outage
 * (69), not a lock held by someone else (1 or -E). */
static void on_state(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)ctx, (void)c;
  pthread_mutex_lock(&g_mu);
  if (g_acquiring && st != ZKC_STATE_CONNECTED && st != ZKC_STATE_RECONNECTED)
    g_outage = 1;
  pthread_mutex_unlock(&g_mu);
}

static int connected(zkc_client_t *c) {
  zkc_state_t st = ZKC_STATE_CLOSED;
  zkc_client_state(c, &st);
  return st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED;
}

static int acquire(const zkcli_opts_t *o, zkcli_hold_t *h, int *sig) {
  pthread_mutex_lock(&g_mu);
  *sig = g_interrupted;
  g_acquiring = !*sig;
  pthread_mutex_unlock(&g_mu);
  if (*sig) return ZKC_ECLOSED;
  int rc = h->sem          ? zkcli_sem_acquire(o, h)
           : o->wait_ms < 0 ? zkc_mutex_acquire(h->mutex)
                            : zkc_mutex_acquire_timeout(h->mutex, o->wait_ms);
  int down = !connected(g_client);
  pthread_mutex_lock(&g_mu);
  g_acquiring = 0;
  g_outage |= down;
  *sig = g_interrupted;
  pthread_mutex_unlock(&g_mu);
  return rc;
}

/* Runs COMMAND until it exits, zkcoord is signalled or the lock is lost. */
static int supervise(const zkcli_opts_t *o, zkcli_child_t *ch) {
  for (;;) {
    int ev = zkcli_event_wait(-1);
    if (ev == SIGCHLD) {
      if (zkcli_child_reap(ch)) return zkcli_child_exit_code(ch);
    } else if (zkcli_is_stop_signal(ev)) {
      zkcli_info(o, 1, "signal %d: stopping COMMAND, then releasing", ev);
      zkcli_child_stop(ch, ev, o->grace_ms);
      g_stopped = 1;
      return ZKCLI_EXIT_SIGNAL_BASE + ev;
    } else if (ev == ZKCLI_EV_LOST) {
      zkcli_err("%s on %s lost (session expired, connection gone or node "
                "deleted): stopping COMMAND",
                o->cmd == ZKCLI_SEM ? "lease" : "lock", o->path);
      zkcli_child_stop(ch, SIGTERM, o->grace_ms);
      return ZKCLI_EXIT_LOST;
    }
  }
}

/* 1 when a contender of PATH belongs to a read-write lock (a reader or a
 * writer node: Curator's __READ__/__WRIT__, kazoo's __rlock__), 0 when not,
 * or a library error code (< 0). A plain mutex node made on a path that
 * has none yet is invisible to Curator's readers and writers: --write
 * closes that race. Nothing is held meanwhile, so a stop signal ends
 * zkcoord at once. */
static int read_write_path(const zkcli_opts_t *o, zkc_client_t *c) {
  zkc_contender_t *v = NULL;
  size_t n = 0;
  zkcli_events_exit_on_stop(1);
  int rc = zkcli_read_contenders(o, c, o->path, &v, &n);
  zkcli_events_exit_on_stop(0);
  if (rc != ZKC_OK) return rc;
  int rw = 0;
  for (size_t i = 0; i < n && !rw; i++)
    rw = v[i].kind && (strcmp(v[i].kind, "read") == 0 ||
                       strcmp(v[i].kind, "write") == 0);
  zkc_contenders_free(v, n);
  return rw;
}

/* Creates what the command holds; ZKC_EINVAL for an invalid path. */
static int hold_create(const zkcli_opts_t *o, zkc_client_t *c, zkcli_hold_t *h) {
  if (o->cmd == ZKCLI_SEM) return zkcli_sem_create(o, c, h, post_lost);
  int rw = o->shared || o->write_side ? 1 : read_write_path(o, c);
  if (rw < 0) {
    g_unread = 1;
    return rw;
  }
  int rc;
  if (rw) {
    rc = zkc_rwlock_create(&h->rw, c, o->path);
    if (rc == ZKC_OK) {
      h->mutex = o->shared ? zkc_rwlock_read_side(h->rw)
                           : zkc_rwlock_write_side(h->rw);
      zkcli_info(o, 1, "%s: taking the %s side of the read-write lock",
                 o->path, o->shared ? "read" : "write");
    }
  } else {
    rc = zkc_mutex_create(&h->mutex, c, o->path);
  }
  if (rc == ZKC_OK) rc = zkc_mutex_set_lost_callback(h->mutex, on_lost, NULL);
  return rc;
}

static int hold_release(zkcli_hold_t *h) {
  return h->sem ? zkcli_sem_release(h) : zkc_mutex_release(h->mutex);
}

static void hold_destroy(zkcli_hold_t *h) {
  if (h->sem) zkcli_sem_destroy(h);
  if (h->rw) zkc_rwlock_destroy(h->rw); /* its sides with it */
  else zkc_mutex_destroy(h->mutex);
  h->rw = NULL;
  h->mutex = NULL;
}

int zkcli_cmd_sem(const zkcli_opts_t *o) { return zkcli_cmd_lock(o); }

int zkcli_cmd_lock(const zkcli_opts_t *o) {
  zkc_client_t *c;
  int code = zkcli_start(o, on_interrupt, &c);
  if (code != 0) return code;
  pthread_mutex_lock(&g_mu);
  g_client = c;
  pthread_mutex_unlock(&g_mu);

  const char *what = o->cmd == ZKCLI_SEM ? "semaphore" : "lock";
  zkcli_hold_t h = {0};
  int rc = hold_create(o, c, &h);
  if (rc == ZKC_EINVAL) {
    zkcli_err("invalid %s path '%s'%s", what, o->path,
              o->count_path ? " or count path" : "");
    hold_destroy(&h);
    zkc_client_close(c);
    return ZKCLI_EXIT_BADPATH;
  }
  if (rc == ZKC_OK) rc = zkc_client_add_listener(c, on_state, NULL);

  int sig = 0;
  int64_t t0 = zkcli_now_ms();
  if (rc == ZKC_OK) rc = acquire(o, &h, &sig);
  if (sig) {
    code = ZKCLI_EXIT_SIGNAL_BASE + sig;
  } else if (rc == ZKC_ETIMEDOUT && g_outage) {
    zkcli_err("cannot take %s %s: the ensemble at %s was unreachable while "
              "waiting", what, o->path, o->connect);
    code = ZKCLI_EXIT_UNAVAILABLE;
  } else if (rc == ZKC_ETIMEDOUT) {
    zkcli_info(o, 1, "%s %s not obtained %s", what, o->path,
               o->wait_ms == 0 ? "(held by others)" : "in time");
    code = o->conflict_code;
  } else if (rc != ZKC_OK) {
    if (g_unread)
      zkcli_err("cannot read the queue of %s (which tells the mutex from the "
                "write side; --write and --shared need no read): %s",
                o->path, zkc_strerror(rc));
    else
      zkcli_err("cannot take %s %s: %s", what, o->path, zkc_strerror(rc));
    code = zkcli_exit_code(rc);
  } else {
    zkcli_env_t env[2] = {{.name = "ZKCOORD_FENCING_TOKEN"},
                          {.name = "ZKCOORD_NODE"}};
    int64_t token = 0;
    if (h.sem) {
      zkcli_sem_describe(&h, &token, env[1].value, sizeof env[1].value);
    } else {
      zkc_mutex_fencing_token(h.mutex, &token);
      zkc_mutex_lock_node(h.mutex, env[1].value, sizeof env[1].value);
    }
    snprintf(env[0].value, sizeof env[0].value, "%" PRId64, token);
    zkcli_info(o, 1, "acquired %s after %lld ms: node %s, token %s", o->path,
               (long long)(zkcli_now_ms() - t0), env[1].value, env[0].value);
    zkcli_child_t ch = {0};
    code = zkcli_child_start(&ch, o, env, 2);
    if (code == 0) code = supervise(o, &ch);
  }
  if (rc == ZKC_OK) {
    int r = hold_release(&h);
    if (r == ZKC_ELOST && code != ZKCLI_EXIT_LOST) {
      /* Lost unnoticed while COMMAND ran: it may have worked unprotected. */
      zkcli_err("%s on %s was found lost at release: COMMAND may have run "
                "without it", what, o->path);
      if (!g_stopped) code = ZKCLI_EXIT_LOST;
    } else if (r != ZKC_OK && r != ZKC_ELOST) {
      zkcli_err("release of %s failed: %s", o->path, zkc_strerror(r));
    } else {
      zkcli_info(o, 1, "released %s: %s", o->path, zkc_strerror(r));
    }
  }
  hold_destroy(&h);
  pthread_mutex_lock(&g_mu);
  if (!g_closed) zkc_client_close(c);
  g_closed = 1;
  pthread_mutex_unlock(&g_mu);
  return code;
}
