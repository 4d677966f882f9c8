/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord lock and zkcoord sem: run COMMAND while holding the distributed
 * lock on PATH (a mutex, or a side of the read-write lock on PATH), or one
 * lease of the semaphore on PATH (cmd_sem.c). Without COMMAND, hold it
 * until a stop signal, the node and token printed on stdout. */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A stop signal while acquire blocks closes the client, which wakes the
 * acquire with ZKC_ECLOSED and drops the session (and any node) at once. */
/* How long a timed-out lock or sem waits for its session's close. */
#define CLOSE_AFTER_TIMEOUT_MS 250

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static zkc_client_t *g_client;
static int g_acquiring, g_interrupted, g_closed;
static int g_outage;  /* the connection was down during the acquire */
static int g_stopped; /* zkcoord was told to stop while COMMAND ran */
static int g_unread;  /* the queue read that chooses the side failed */
static atomic_int g_revoked; /* lock --revocable: asked to let go */

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

/* lock --revocable: `zkcoord revoke` (or Curator's Revoker) asks. */
static void on_revoke(void *ctx, zkc_mutex_t *m, int64_t token) {
  (void)ctx, (void)m, (void)token;
  atomic_store(&g_revoked, 1);
  zkcli_event_post(ZKCLI_EV_REVOKED);
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
  zkcli_pass_warnings(1); /* a semaphore limit others do not share */
  int64_t left = zkcli_wait_left(o); /* the connection took its part */
  int rc = h->sem     ? zkcli_sem_acquire(o, h)
           : left < 0 ? zkc_mutex_acquire(h->mutex)
                      : zkc_mutex_acquire_timeout(h->mutex, left);
  zkcli_pass_warnings(0);
  int down = !connected(g_client);
  pthread_mutex_lock(&g_mu);
  g_acquiring = 0;
  g_outage |= down;
  *sig = g_interrupted;
  pthread_mutex_unlock(&g_mu);
  return rc;
}

/* Runs COMMAND until it exits, zkcoord is signalled, the lock is lost or
 * (--revocable) revoked; without COMMAND (ch NULL) holds until one of the
 * last three. */
static int supervise(const zkcli_opts_t *o, zkcli_child_t *ch) {
  for (;;) {
    int ev = zkcli_event_wait(-1);
    if (ev == SIGCHLD) {
      if (ch && zkcli_child_reap(ch)) return zkcli_child_exit_code(ch);
    } else if (ev == SIGCONT) {
      if (ch) zkcli_child_resume(ch);
    } else if (zkcli_is_stop_signal(ev) && ch == NULL) {
      zkcli_info(o, 1, "signal %d: releasing", ev);
      return 0; /* the end of a hold without COMMAND */
    } else if (ev == ZKCLI_EV_REVOKED) {
      /* Cooperative: the holder lets go as it would on a stop signal. */
      zkcli_err("lock on %s revoked (asked to let go)%s", o->path,
                ch ? ": stopping COMMAND" : ": releasing");
      if (ch == NULL) return 0;
      int sig = zkcli_child_stop(ch, SIGTERM, o->grace_ms);
      if (sig) {
        g_stopped = 1;
        return ZKCLI_EXIT_SIGNAL_BASE + sig;
      }
      return zkcli_child_exit_code(ch);
    } else if (zkcli_is_stop_signal(ev)) {
      zkcli_info(o, 1, "signal %d: stopping COMMAND, then releasing", ev);
      zkcli_child_stop(ch, ev, o->grace_ms);
      g_stopped = 1;
      return ZKCLI_EXIT_SIGNAL_BASE + ev;
    } else if (ev == ZKCLI_EV_LOST) {
      zkcli_err("%s on %s lost (session expired, connection gone or node "
                "deleted)%s",
                o->cmd == ZKCLI_SEM ? "lease" : "lock", o->path,
                ch ? ": stopping COMMAND" : "");
      if (ch) zkcli_child_stop(ch, SIGTERM, o->grace_ms);
      return ZKCLI_EXIT_LOST;
    }
  }
}

/* Creates what the command holds, after one read of PATH: a path another
 * recipe uses is refused (ZKCLI_EXIT_BADPATH returned, the line printed),
 * and plain `lock` takes the write side where readers or writers queue. A
 * plain mutex node made on a path that has none yet is invisible to
 * Curator's readers and writers: --write closes that race. Returns a
 * library code (ZKC_EINVAL for an invalid path) or ZKCLI_EXIT_BADPATH. */
static int hold_create(const zkcli_opts_t *o, zkc_client_t *c, zkcli_hold_t *h) {
  int rw = 0;
  int rc = zkcli_check_layout(o, c, &rw);
  if (rc < 0 && rc != ZKC_EINVAL) g_unread = 1;
  if (rc != ZKC_OK) return rc;
  if (o->cmd == ZKCLI_SEM) return zkcli_sem_create(o, c, h, post_lost);
  if (o->shared || o->write_side) rw = 1;
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
  if (rc == ZKC_OK && o->revocable)
    rc = zkc_mutex_set_revocable(h->mutex, on_revoke, NULL);
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
  if (o->observe) return zkcli_observe(o); /* lock --observe: no part */
  zkc_client_t *c;
  int code = zkcli_start(o, on_interrupt, &c);
  if (code != 0) return code;
  pthread_mutex_lock(&g_mu);
  g_client = c;
  pthread_mutex_unlock(&g_mu);

  const char *what = o->cmd == ZKCLI_SEM ? "semaphore" : "lock";
  zkcli_hold_t h = {0};
  int rc = hold_create(o, c, &h);
  if (rc == ZKC_EINVAL) { /* another recipe's path was told already */
    char buf[200];
    if (o->count_path && !zkcli_path_problem(o->path, buf, sizeof buf))
      zkcli_bad_path("count path", o->count_path);
    else
      zkcli_bad_path(o->cmd == ZKCLI_SEM ? "semaphore path" : "lock path",
                     o->path);
  }
  if (rc == ZKC_EINVAL || rc == ZKCLI_EXIT_BADPATH) {
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
      zkcli_err("cannot read the queue of %s (which tells a lock from "
                "another recipe's path, and the mutex from the write "
                "side): %s", o->path, zkc_strerror(rc));
    else
      zkcli_err("cannot take %s %s: %s", what, o->path, zkc_strerror(rc));
    code = zkcli_exit_code(rc);
  } else {
    zkcli_env_t env[2] = {{.name = "ZKCOORD_FENCING_TOKEN"},
                          {.name = "ZKCOORD_NODE"}};
    int64_t token = 0;
    zkcli_hold_describe(h.sem ? zkc_lease_hold(h.lease) : zkc_mutex_hold(h.mutex),
                        &token, env[1].value, sizeof env[1].value);
    snprintf(env[0].value, sizeof env[0].value, "%" PRId64, token);
    zkcli_info(o, 1, "acquired %s after %lld ms: node %s, token %s", o->path,
               (long long)(zkcli_now_ms() - t0), env[1].value, env[0].value);
    if (atomic_load(&g_revoked)) {
      /* Asked to let go before COMMAND could start: it does not. */
      zkcli_err("lock on %s revoked (asked to let go) as it was granted%s",
                o->path, o->argv ? ": COMMAND not started" : "");
      code = o->argv ? o->conflict_code : 0;
    } else if (o->argv == NULL) {
      /* Held until a stop signal: what COMMAND would see, on stdout. */
      printf("ZKCOORD_FENCING_TOKEN=%s\nZKCOORD_NODE=%s\n", env[0].value,
             env[1].value);
      code = zkcli_flush_stdout(); /* undelivered: not held for nobody */
      if (code == 0) code = supervise(o, NULL);
    } else {
      zkcli_child_t ch = {0};
      code = zkcli_child_start(&ch, o, env, 2);
      if (code == 0) code = supervise(o, &ch);
    }
  }
  if (rc == ZKC_OK) {
    int r = hold_release(&h);
    if (r == ZKC_ELOST && code != ZKCLI_EXIT_LOST) {
      /* Lost unnoticed while COMMAND ran: it may have worked unprotected. */
      zkcli_err("%s on %s was found lost at release: COMMAND may have run "
                "without it", what, o->path);
      if (!g_stopped) code = ZKCLI_EXIT_LOST;
    } else if (r == ZKC_ECONNLOSS) {
      /* In doubt as it was let go (a dropped connection, or this process
       * stopped past its session's renewal): not known lost, not clean. */
      zkcli_err("%s on %s was in doubt when released: COMMAND may have run "
                "without it at the end", what, o->path);
    } else if (r != ZKC_OK && r != ZKC_ELOST) {
      zkcli_err("release of %s failed: %s", o->path, zkc_strerror(r));
    } else {
      zkcli_info(o, 1, "released %s: %s", o->path, zkc_strerror(r));
    }
  }
  /* Before the objects go: the client may be closed already (a stop
   * signal while acquiring), and its records live as long as they do. */
  zkcli_write_metrics(o, c);
  hold_destroy(&h);
  pthread_mutex_lock(&g_mu);
  /* -w keeps its time: after a timeout the close may not wait on an
   * ensemble that does not answer (the acquire left no node behind, or
   * handed its delete to the session's end). */
  if (!g_closed && rc == ZKC_ETIMEDOUT && !sig)
    zkcli_close_within(c, CLOSE_AFTER_TIMEOUT_MS);
  else if (!g_closed)
    zkc_client_close(c);
  g_closed = 1;
  pthread_mutex_unlock(&g_mu);
  return code;
}
