/* zkcoord command line: opening the client and mapping error codes. */
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int zkcli_exit_code(int rc) {
  switch (rc) {
    case ZKC_OK:
      return 0;
    case ZKC_ECONNECT:
    case ZKC_ELOST:
    case ZKC_ECLOSED:
    case ZKC_ECONNLOSS:
    case ZKC_EOPTIMEOUT:
    case ZKC_ESESSIONEXPIRED:
    case ZKC_EREADONLY:
      return ZKCLI_EXIT_UNAVAILABLE;
    case ZKC_ENOAUTH:
    case ZKC_EAUTHFAILED:
      return ZKCLI_EXIT_NOPERM;
    case ZKC_ENOROOT:
    case ZKC_ENOCHILDREN: /* a lock path under an ephemeral node */
      return ZKCLI_EXIT_BADPATH;
    default:
      return ZKCLI_EXIT_INTERNAL;
  }
}

/* Names the hosts of the connect string that do not resolve (the usual
 * reason a session cannot be opened at once); 1 if there were any. */
static int name_unresolved(const char *connect) {
  char hosts[1024];
  snprintf(hosts, sizeof hosts, "%.*s", (int)strcspn(connect, "/"), connect);
  int found = 0;
  char *save = NULL;
  for (char *h = strtok_r(hosts, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(h, ':');
    if (colon) *colon = '\0';
    size_t n = strlen(h);
    if (n > 1 && h[0] == '[' && h[n - 1] == ']') h[n - 1] = '\0', h++;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(h, NULL, &hints, &res);
    if (rc == 0) {
      freeaddrinfo(res);
    } else {
      zkcli_err("cannot resolve host '%s' in --connect: %s", h, gai_strerror(rc));
      found = 1;
    }
  }
  return found;
}

/* The library's and the ZooKeeper client's lines, shown with -v. */
static void log_line(void *ctx, zkc_log_level_t level, const char *msg) {
  (void)ctx, (void)level;
  fprintf(stderr, "zkcoord: %s\n", msg);
}

int zkcli_open(const zkcli_opts_t *o, zkc_client_t **out) {
  zkc_client_opts_t co;
  zkc_client_opts_init(&co);
  co.session_timeout_ms = o->session_timeout_ms;
  co.connect_timeout_ms = o->connect_timeout_ms;
  co.holder_id = o->id;
  co.lost_on_suspended = o->lost_on_suspended;
  co.auth_digest = o->digest;
  co.acl_preset = o->secure_acl ? ZKC_ACL_SECURE : ZKC_ACL_OPEN;
  co.log_fn = log_line;
  /* Quiet by default: failures are reported once, by the command. */
  co.log_level = o->verbose >= 3   ? ZKC_LOG_DEBUG
                 : o->verbose == 2 ? ZKC_LOG_INFO
                 : o->verbose == 1 ? ZKC_LOG_WARN
                                   : ZKC_LOG_NONE;
  *out = NULL;
  int rc = zkc_client_open(out, o->connect, &co);
  if (rc == ZKC_OK) {
    int64_t sid = 0;
    int timeout = 0;
    zkc_client_session_id(*out, &sid);
    zkc_client_session_timeout(*out, &timeout);
    zkcli_info(o, 1, "connected to %s, session 0x%llx, timeout %d ms",
               o->connect, (unsigned long long)sid, timeout);
    return 0;
  }
  switch (rc) {
    case ZKC_EINVAL:
      if (o->secure_acl && o->digest == NULL)
        zkcli_err("--acl secure needs --digest");
      else
        zkcli_err("invalid --connect '%s' or --digest (expected user:password)",
                  o->connect);
      return ZKCLI_EXIT_USAGE;
    case ZKC_ECONNECT:
      if (!name_unresolved(o->connect))
        zkcli_err("cannot reach the ZooKeeper ensemble at %s within %d ms",
                  o->connect, o->connect_timeout_ms);
      break;
    case ZKC_ENOROOT:
      zkcli_err("the chroot of '%s' does not exist", o->connect);
      break;
    case ZKC_EAUTHFAILED:
      zkcli_err("the ensemble refused the credentials given with --digest");
      break;
    default:
      zkcli_err("cannot open a session on %s: %s", o->connect, zkc_strerror(rc));
  }
  return zkcli_exit_code(rc);
}

int zkcli_start(const zkcli_opts_t *o, void (*interrupt)(int sig),
                zkc_client_t **out) {
  *out = NULL;
  if (zkcli_events_start(interrupt) != 0) {
    zkcli_err("cannot set up signal handling");
    return ZKCLI_EXIT_INTERNAL;
  }
  int code = zkcli_open(o, out);
  if (code == 0) zkcli_events_exit_on_stop(0);
  return code;
}
