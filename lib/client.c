/* SPDX-License-Identifier: Apache-2.0 */
/* The client's life: zkc_client_open assembles the session layer (handle,
 * maintenance thread, watch owners), zkc_client_close takes it apart, and
 * the last reference frees it. The top of the session layer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl.h"
#include "client_struct.h"
#include "kernel_door.h"
#include "stats.h"
#include "names.h"
#include "qview.h"
#include "session_shared.h"
#include "unsized.h"
#include "zkcoord/common.h"

void zkc__client_opts_defaults(zkc_client_opts_t *opts) {
  if (opts == NULL) return;
  memset(opts, 0, sizeof *opts);
  opts->session_timeout_ms = 10000;
  opts->connect_timeout_ms = 15000;
  opts->retry.base_sleep_ms = 100;
  opts->retry.max_sleep_ms = 2000;
  opts->retry.max_retries = 10;
  opts->parent_mode = ZKC_PARENTS_PERSISTENT;
  opts->log_level = ZKC_LOG_ERROR;
}

/* Why the options are refused ("session_timeout_ms must be above 0"), or
 * NULL. */
static const char *opts_problem(const zkc_client_opts_t *o) {
  if (o->session_timeout_ms <= 0) return "session_timeout_ms must be above 0";
  if (o->connect_timeout_ms < 0)
    return "connect_timeout_ms must not be negative";
  if (o->retry.base_sleep_ms < 0 || o->retry.max_sleep_ms < 0 ||
      o->retry.max_retries < 0)
    return "the retry policy's base_sleep_ms, max_sleep_ms and max_retries "
           "must not be negative";
  if (o->parent_mode != ZKC_PARENTS_PERSISTENT &&
      o->parent_mode != ZKC_PARENTS_CONTAINER)
    return "parent_mode is neither ZKC_PARENTS_PERSISTENT nor "
           "ZKC_PARENTS_CONTAINER";
  if (o->log_level < ZKC_LOG_NONE || o->log_level > ZKC_LOG_DEBUG)
    return "log_level is not a zkc_log_level_t (ZKC_LOG_NONE..ZKC_LOG_DEBUG)";
  if (zkc__id_validate(o->holder_id) != ZKC_OK)
    return "holder_id is longer than a node's data may be (1020 KiB)";
  return zkc__acl_opts_problem(o);
}

/* Why the connect string "host:port,host:port[/chroot]" is refused, or
 * NULL: the chroot, if any, must be a valid path (ZooKeeper would
 * otherwise refuse the string with a vague EINVAL). */
static const char *connect_problem(const char *s, char *buf, size_t len) {
  const char *why = zkc__hosts_problem(s, buf, len);
  if (why != NULL) return why;
  const char *chroot = strchr(s, '/');
  if (chroot == NULL || strcmp(chroot, "/") == 0) return NULL;
  char inner[ZKC__PROBLEM_MAX];
  why = zkc__path_problem(chroot, inner, sizeof inner);
  if (why == NULL) return NULL;
  snprintf(buf, len, "its chroot '%.100s' is invalid: %s", chroot, why);
  return buf;
}

/* One round trip settles what CONNECTED alone does not tell:
 * - ZooKeeper accepts a session under a chroot that does not exist, and
 *   every request under it then fails with ZKC_ENONODE: say so at open (on
 *   a chrooted handle "/" is the chroot itself);
 * - credentials are checked after the session is connected (the client
 *   sends them first on the connection): a refusal closes the connection
 *   and fails what follows, so a request behind them learns the verdict. */
static int confirm_session(zkc_client_t *c, const char *connect) {
  const char *chroot = strchr(connect, '/');
  int chrooted = chroot != NULL && strcmp(chroot, "/") != 0;
  if (!chrooted && c->acls.auth_digest == NULL) return ZKC_OK;
  /* One call, retried under the client's policy within connect_timeout_ms;
   * its last answer when the retries stop. */
  int64_t deadline = zkc__deadline_after(c->opts.connect_timeout_ms);
  const zkc__call_opts_t o = {.limit_ms = deadline,
                              .retry = ZKC__CALL_RETRY_ANSWER,
                              .deadline_ms = deadline, .refusal_ends = 1};
  zkc__call_t exists = {.rq = {.kind = ZKC__REQ_EXISTS, .path = "/"}};
  int rc = zkc__call(c, &exists, 1, &o);
  if (rc == ZKC_ETIMEDOUT) rc = ZKC_ECONNECT; /* no answer within the bound */
  pthread_mutex_lock(&c->mu);
  int refused = c->auth_failed;
  pthread_mutex_unlock(&c->mu);
  if (refused) return ZKC_EAUTHFAILED;
  return rc == ZKC_ENONODE && chrooted ? ZKC_ENOROOT : rc;
}

static char *default_holder_id(void) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  char buf[300];
  snprintf(buf, sizeof buf, "%s:%ld", host, (long)getpid());
  return strdup(buf);
}

static void client_free(zkc_client_t *c) {
  zkc__janitor_free(c);
  zkc__guards_free(c);
  zkc__qview_free_all(c);
  pthread_mutex_destroy(&c->views_mu);
  zkc__listeners_free(c);
  zkc__maint_free(c);
  pthread_rwlock_destroy(&c->zh_lock);
  pthread_cond_destroy(&c->state_cv);
  pthread_mutex_destroy(&c->mu);
  pthread_mutex_destroy(&c->ops_mu);
  pthread_cond_destroy(&c->ops_cv);
  zkc__acl_free(&c->acls);
  zkc__stats_hub_free(&c->stats);
  free(c->connect);
  free(c->holder_id);
  free(c);
}

static zkc_client_t *client_alloc(const char *connect,
                                  const zkc_client_opts_t *opts) {
  zkc_client_t *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  c->opts = *opts;
  c->log_slot = -1;
  atomic_init(&c->refs, 1);
  c->free_last = client_free; /* the last reference's (recipe_tie.c) */
  zkc__qworld_bind(c);
  c->connect = strdup(connect);
  c->holder_id = opts->holder_id ? strdup(opts->holder_id) : default_holder_id();
  int ok = c->connect && c->holder_id;
  ok = ok && pthread_mutex_init(&c->mu, NULL) == 0;
  ok = ok && pthread_mutex_init(&c->ops_mu, NULL) == 0;
  ok = ok && pthread_mutex_init(&c->views_mu, NULL) == 0;
  ok = ok && zkc__stats_hub_init(&c->stats) == ZKC_OK;
  ok = ok && zkc__cond_init(&c->ops_cv) == ZKC_OK;
  ok = ok && zkc__cond_init(&c->state_cv) == ZKC_OK;
  ok = ok && pthread_rwlock_init(&c->zh_lock, NULL) == 0;
  ok = ok && zkc__acl_setup(&c->acls, &c->opts) == ZKC_OK;
  if (!ok) {
    /* Only reached on allocation failure, before any thread exists. */
    zkc__acl_free(&c->acls);
    free(c->connect);
    free(c->holder_id);
    free(c);
    return NULL;
  }
  c->opts.holder_id = c->holder_id;
  c->events_tail = &c->events;
  c->watch_fns[ZKC__WATCH_WAITER] = zkc__waiter_event;
  c->watch_fns[ZKC__WATCH_GUARD] = zkc__guard_event;
  c->guards_renew_locked = zkc__guards_renew_locked;
  return c;
}

static int open_normalized(const char *connect_string,
                           const zkc_client_opts_t *opts, zkc_client_t **out);

static int client_open_impl(zkc_client_t **out, const char *connect_string,
                            const zkc_client_opts_t *opts) {
  zkc_client_opts_t defaults;
  if (opts == NULL) {
    zkc__client_opts_defaults(&defaults);
    opts = &defaults;
  }
  if (out != NULL) *out = NULL;
  if (out == NULL)
    return zkc__refuse_opts(opts, ZKC_EINVAL, "zkc_client_open: out is NULL");
  if (connect_string == NULL)
    return zkc__refuse_opts(opts, ZKC_EINVAL,
                            "zkc_client_open: connect_string is NULL");
  const char *why = opts_problem(opts);
  if (why != NULL)
    return zkc__refuse_opts(opts, ZKC_EINVAL,
                            "zkc_client_open: invalid "
                            "options: %s",
                            why);
  /* A server named without a port gets ZooKeeper's 2181, as the Java
   * client (so Curator) and kazoo give it. */
  char *connect = zkc__connect_with_ports(connect_string);
  if (connect == NULL) return ZKC_ENOMEM;
  char buf[ZKC__PROBLEM_MAX];
  if ((why = connect_problem(connect, buf, sizeof buf)) != NULL) {
    zkc__refuse_opts(opts, ZKC_EINVAL,
                     "zkc_client_open: invalid connect "
                     "string '%.300s': %s",
                     connect_string, why);
    free(connect);
    return ZKC_EINVAL;
  }
  int rc = open_normalized(connect, opts, out);
  free(connect);
  return rc;
}

int zkc__client_open(zkc_client_t **out, const char *connect_string,
                     const zkc_client_opts_t *opts) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave("zkc_client_open", mark,
                           client_open_impl(out, connect_string, opts));
}

static int open_normalized(const char *connect_string,
                           const zkc_client_opts_t *opts, zkc_client_t **out) {
  if (zkc__on_callback_thread()) return ZKC_EDEADLK;

  unsigned mark = zkc__public_enter();
  zkc_client_t *c = client_alloc(connect_string, opts);
  if (c == NULL) return ZKC_ENOMEM;
  int rc = zkc__handle_open(c);
  if (rc == ZKC_OK) rc = zkc__maint_start(c);
  if (rc == ZKC_OK) {
    rc = zkc__wait_connected_or_refused(c, zkc__deadline_after(opts->connect_timeout_ms));
    if (rc == ZKC_ETIMEDOUT) rc = ZKC_ECONNECT;
  }
  if (rc == ZKC_OK) rc = confirm_session(c, connect_string);
  /* The session's watcher may have learnt the refusal before any request
   * did: the caller's thread gets the raw code all the same. */
  if (rc == ZKC_EAUTHFAILED) zkc__note_auth_refused();
  if (rc != ZKC_OK) {
    zkc__log(c, ZKC_LOG_ERROR, "cannot open a session on %s: %s",
             connect_string, zkc_strerror(rc));
    /* The caller's zkc_last_error_message names the ensemble and the wait,
     * unless a step said more already (a refused connect string, a host
     * name that does not resolve). */
    if (!zkc__error_detailed_since(mark, rc) && rc == ZKC_ECONNECT)
      zkc__error_detail(rc, "zkc_client_open: no session on %s within %d ms: %s",
                        connect_string, opts->connect_timeout_ms,
                        zkc_strerror(rc));
    else if (!zkc__error_detailed_since(mark, rc))
      zkc__error_detail(rc, "zkc_client_open: cannot open a session on %s: %s",
                        connect_string, zkc_strerror(rc));
    zkc_client_close(c);
    return rc;
  }
  *out = c;
  return ZKC_OK;
}

void zkc_client_close(zkc_client_t *c) {
  if (c == NULL) return;
  if (zkc__on_callback_thread()) {
    /* Closing joins the thread we are on: refuse rather than deadlock. */
    zkc__log(c, ZKC_LOG_ERROR, "zkc_client_close called from a callback: "
                               "ignored (close it from another thread)");
    return;
  }
  pthread_mutex_lock(&c->mu);
  c->closed = 1;
  zkc__waiters_wake_all_locked(c);
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);

  zkc__maint_stop(c);
  /* Let requests already sent complete: the ZooKeeper client (3.8.0)
   * completes those still pending at close with ZCLOSING but leaks their
   * bookkeeping (LeakSanitizer shows it). Bounded, since a disconnected
   * handle may hold them until the connection is declared lost. Then the
   * handle: the session's close removes its nodes. */
  int64_t drain_deadline = zkc__deadline_after(2000);
  zkc__ops_drain(c, drain_deadline);
  zkc__handle_drop(c, 1);

  pthread_mutex_lock(&c->mu);
  while (c->active_calls > 0) pthread_cond_wait(&c->state_cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  zkc__log_unbind(c);
  zkc__client_unref(c);
}

