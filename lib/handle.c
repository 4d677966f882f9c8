/* SPDX-License-Identifier: Apache-2.0 */
/* The ZooKeeper handle of a client: opening one (with its credentials and
 * log sink), dropping it, and its session watcher, which only records raw
 * state events for the maintenance thread (maint.c). */

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "client_struct.h"
#include "session_shared.h"
#include "test_hooks.h"
#include "zkcoord/common.h"

/* Minimum interval between routine re-resolutions of the server names. */
#define RESOLVE_DELAY_MS 1000

/* ZooKeeper's state codes, translated once, here at the door. */
static zkc__link_t link_of(int state) {
  if (state == ZOO_CONNECTED_STATE) return ZKC__LINK_CONNECTED;
  if (state == ZOO_READONLY_STATE) return ZKC__LINK_READ_ONLY;
  if (state == ZOO_EXPIRED_SESSION_STATE) return ZKC__LINK_EXPIRED;
  if (state == ZOO_AUTH_FAILED_STATE) return ZKC__LINK_AUTH_FAILED;
  return ZKC__LINK_CONNECTING;
}

static void session_watcher(zhandle_t *zh, int type, int state,
                            const char *path, void *ctx) {
  (void)path;
  zkc__mark_callback_thread();
  if (type != ZOO_SESSION_EVENT) return;
  zkc__handle_ctx_t *h = ctx;
  zkc_client_t *c = h->c;
  zkc__event_t *ev = calloc(1, sizeof *ev);
  pthread_mutex_lock(&c->mu);
  if (h->gen != c->handle_gen) { /* a replaced handle's last words */
    pthread_mutex_unlock(&c->mu);
    free(ev);
    return;
  }
  zkc__link_t link = link_of(state);
  c->link = link;
  c->watch_epoch++;
  if (link == ZKC__LINK_CONNECTED) {
    const clientid_t *id = zoo_client_id(zh);
    int64_t before = c->session_id;
    c->session_id = id ? id->client_id : 0;
    c->session_timeout_ms = zoo_recv_timeout(zh);
    c->conn_seq++; /* a probe answered before is of another connection */
    /* This handle's first session: created after the handle was opened. */
    if (before == 0) zkc__probe_new_session_locked(c);
  } else if (link == ZKC__LINK_EXPIRED || link == ZKC__LINK_AUTH_FAILED) {
    if (link == ZKC__LINK_AUTH_FAILED) c->auth_failed = 1;
    c->session_dead = 1;
    zkc__waiters_wake_all_locked(c);
  }
  if (ev) { /* without memory the maintenance thread still sees c->link */
    ev->gen = h->gen;
    ev->link = link;
    ev->session_id = c->session_id;
    *c->events_tail = ev;
    c->events_tail = &ev->next;
  }
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

/* Logs each host of the connect string that does not resolve. */
static void log_unresolved(zkc_client_t *c) {
  char hosts[1024];
  snprintf(hosts, sizeof hosts, "%.*s", (int)strcspn(c->connect, "/"),
           c->connect);
  char *save = NULL;
  for (char *h = strtok_r(hosts, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(h, ':');
    if (colon) *colon = '\0';
    if (h[0] == '[' && h[strlen(h) - 1] == ']') { /* [IPv6]:port */
      h[strlen(h) - 1] = '\0';
      h++;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(h, NULL, &hints, &res);
    if (rc == 0)
      freeaddrinfo(res);
    else {
      zkc__log(c, ZKC_LOG_ERROR, "cannot resolve host '%s': %s", h,
               gai_strerror(rc));
      zkc__error_detail(ZKC_ECONNECT, "zkc_client_open: cannot resolve host "
                        "'%.300s': %s", h, gai_strerror(rc));
    }
  }
}

int zkc__handle_open(zkc_client_t *c) {
  zkc__handle_ctx_t *h = calloc(1, sizeof *h);
  if (h == NULL) return ZKC_ENOMEM;
  h->c = c;
  pthread_mutex_lock(&c->mu);
  h->gen = ++c->handle_gen;
  c->watch_epoch++; /* a new handle: no event order carries over */
  c->link = ZKC__LINK_CONNECTING;
  c->session_id = 0;
  c->session_dead = 0;
  zkc__probe_handle_opened_locked(c);
  /* A waiter that slept through the loss (session_dead set, then cleared
   * here) must still learn that its watch went with the old handle. */
  zkc__waiters_wake_all_locked(c);
  pthread_mutex_unlock(&c->mu);

  int flags = ZOO_NO_LOG_CLIENTENV | (c->opts.allow_read_only ? ZOO_READONLY : 0);
  if (c->log_cb == NULL) c->log_cb = zkc__log_bind(c);
  errno = 0;
  zhandle_t *zh = zookeeper_init2(c->connect, session_watcher,
                                  c->opts.session_timeout_ms, NULL, h, flags,
                                  c->log_cb);
  if (zh == NULL) {
    int err = errno;
    free(h);
    if (err == ENOMEM) return ZKC_ENOMEM;
    if (err == EINVAL)
      return zkc__refuse(c, ZKC_EINVAL,
                         "zkc_client_open: the ZooKeeper client "
                         "refused the connect string '%.300s'",
                         c->connect);
    /* The host list is well-formed (checked at open): none of its names
     * resolved. A connection error the user can act on, naming them. */
    log_unresolved(c);
    return ZKC_ECONNECT;
  }
  /* By default the client resolves the server names again on every pass of
   * its I/O loop (getaddrinfo, netlink queries even for numeric addresses):
   * most of its CPU time per request. Once a second is enough to notice a
   * DNS change; a reconnect always resolves. */
  zoo_set_servers_resolution_delay(zh, RESOLVE_DELAY_MS);
  /* Queued before any request can use the handle; the C client sends it
   * first on every connection of this session. */
  if (c->acls.auth_digest != NULL) {
    int rc = zoo_add_auth(zh, "digest", c->acls.auth_digest,
                          (int)strlen(c->acls.auth_digest), NULL, NULL);
    if (rc != ZOK) {
      zookeeper_close(zh);
      free(h);
      zkc__note_zk_code(rc);
      return zkc__zk_error(rc);
    }
  }
  pthread_rwlock_wrlock(&c->zh_lock);
  c->zh = zh;
  c->hctx = h;
  pthread_rwlock_unlock(&c->zh_lock);
  return ZKC_OK;
}

void zkc__handle_drop(zkc_client_t *c, int closing) {
  pthread_rwlock_wrlock(&c->zh_lock);
  zhandle_t *zh = c->zh;
  zkc__handle_ctx_t *h = c->hctx;
  c->zh = NULL;
  c->hctx = NULL;
  if (closing) c->zh_closed = 1;
  pthread_rwlock_unlock(&c->zh_lock);
  if (zh) zookeeper_close(zh); /* no callback of it runs after this */
  zkc__ops_abandon(c, closing ? ZKC_ECLOSED : ZKC_ECONNLOSS);
  free(h);
}

int zkc__session_credentials(zkc_client_t *c, int64_t *id, char passwd[16]) {
  pthread_rwlock_rdlock(&c->zh_lock);
  int ok = c->zh != NULL && zoo_state(c->zh) == ZOO_CONNECTED_STATE;
  if (ok) {
    const clientid_t *cid = zoo_client_id(c->zh);
    *id = cid->client_id;
    memcpy(passwd, cid->passwd, sizeof cid->passwd);
  }
  pthread_rwlock_unlock(&c->zh_lock);
  return ok ? ZKC_OK : ZKC_ECONNLOSS;
}
