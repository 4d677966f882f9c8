/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command line: opening the client and mapping error codes. */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    case ZKC_ELAYOUT:     /* another recipe's path, seen by the library */
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

static atomic_int warnings_passed;

void zkcli_pass_warnings(int on) { atomic_store(&warnings_passed, on); }

/* The library's lines. Without -v: only its warnings while a lock or lease
 * is waited for (a semaphore limit that other clients do not share); its
 * errors are the command's own one line, and what happens to a hold (a
 * lost session, lock or leadership) the command reports itself. -v adds
 * everything down to the session's states and the recipes' steps, -vv the
 * detail and the ZooKeeper client's own lines. */
static void log_line(void *ctx, zkc_log_level_t level, const char *msg) {
  const zkcli_opts_t *o = ctx;
  if (o->verbose == 0 &&
      (level != ZKC_LOG_WARN || !atomic_load(&warnings_passed)))
    return;
  fprintf(stderr, "zkcoord: %s\n", msg);
}

/* "user:password" as the library takes it: a non-empty user (up to the
 * first ':') and a non-empty password. */
static int digest_valid(const char *d) {
  const char *colon = strchr(d, ':');
  return colon != NULL && colon != d && colon[1] != '\0';
}

/* A --session-timeout the ensemble did not grant is said without -v: it
 * is how long a killed zkcoord keeps its lock, and how soon a stalled one
 * loses it. The default's fate shows with -v. */
static void say_granted_timeout(const zkcli_opts_t *o, int granted) {
  if (!o->session_timeout_given || granted <= 0 ||
      granted == o->session_timeout_ms)
    return;
  zkcli_err("session timeout: %g s requested, %g s granted (the ensemble's "
            "%s)", o->session_timeout_ms / 1000.0, granted / 1000.0,
            granted < o->session_timeout_ms ? "maxSessionTimeout"
                                            : "minSessionTimeout");
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
  co.parent_mode =
      o->container_parents ? ZKC_PARENTS_CONTAINER : ZKC_PARENTS_PERSISTENT;
  co.log_fn = log_line;
  co.log_ctx = (void *)o;
  co.log_level = o->verbose >= 2   ? ZKC_LOG_DEBUG
                 : o->verbose == 1 ? ZKC_LOG_INFO
                                   : ZKC_LOG_WARN;
  *out = NULL;
  if (o->digest && !digest_valid(o->digest)) {
    /* The value is a secret: not repeated. */
    zkcli_err("%s: expected USER:PASSWORD (a user without ':' and a "
              "password, neither empty)",
              o->digest_from_env ? "$ZKCOORD_DIGEST" : "--digest");
    return ZKCLI_EXIT_USAGE;
  }
  if (o->secure_acl && o->digest == NULL) {
    zkcli_err("--acl secure needs --digest (or $ZKCOORD_DIGEST): the nodes "
              "belong to those credentials");
    return ZKCLI_EXIT_USAGE;
  }
  int rc = zkc_client_open(out, o->connect, &co);
  if (rc == ZKC_OK) {
    int64_t sid = 0;
    int timeout = 0;
    zkc_client_session_id(*out, &sid);
    zkc_client_session_timeout(*out, &timeout);
    zkcli_info(o, 1, "connected to %s, session 0x%llx, timeout %d ms",
               o->connect, (unsigned long long)sid, timeout);
    say_granted_timeout(o, timeout);
    return 0;
  }
  switch (rc) {
    case ZKC_EINVAL: { /* the credentials and the ACL were checked above */
      /* The library's reason: "zkc_client_open: invalid connect string
       * '...': <why>". */
      const char *why = strstr(zkc_last_error_message(), "': ");
      zkcli_err(
          "invalid %s '%s': expected host[:port][,host[:port]...]"
          "[/chroot]%s (%s)",
          o->connect_from_env ? "$ZKCOORD_CONNECT" : "--connect", o->connect,
          o->connect[strcspn(o->connect, "/")] == '/'
              ? " with a valid chroot path"
              : "",
          why ? why + 3 : zkc_last_error_message());
      return ZKCLI_EXIT_USAGE;
    }
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

void zkcli_write_metrics(const zkcli_opts_t *o, zkc_client_t *c) {
  if (o->metrics_file == NULL || c == NULL) return;
  char *text = NULL;
  size_t len = 0;
  int rc = zkc_client_prometheus(c, &text, &len);
  if (rc != ZKC_OK) {
    zkcli_err("--metrics %s: %s", o->metrics_file, zkc_strerror(rc));
    return;
  }
  char tmp[4200];
  int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", o->metrics_file,
                   (long)getpid());
  FILE *f = n > 0 && (size_t)n < sizeof tmp ? fopen(tmp, "w") : NULL;
  int ok = f != NULL && fwrite(text, 1, len, f) == len;
  if (f != NULL && fclose(f) != 0) ok = 0;
  if (ok && rename(tmp, o->metrics_file) != 0) ok = 0;
  if (!ok) {
    zkcli_err("--metrics %s: cannot write it: %s", o->metrics_file,
              strerror(errno));
    if (f != NULL) unlink(tmp);
  }
  free(text);
}

/* zkcli_close_within: the close, on a thread of its own, so that a silent
 * ensemble cannot hold the tool past the wait it was given. */
typedef struct {
  zkc_client_t *c;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
} closer_t;

static void *closer_main(void *arg) {
  closer_t *k = arg;
  zkc_client_close(k->c);
  pthread_mutex_lock(&k->mu);
  k->done = 1;
  pthread_cond_signal(&k->cv);
  pthread_mutex_unlock(&k->mu);
  return NULL;
}

int zkcli_close_within(zkc_client_t *c, int64_t ms) {
  static closer_t k = {.mu = PTHREAD_MUTEX_INITIALIZER,
                       .cv = PTHREAD_COND_INITIALIZER};
  pthread_t t;
  k.c = c;
  if (pthread_create(&t, NULL, closer_main, &k) != 0) {
    zkc_client_close(c);
    return 1;
  }
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += ms / 1000;
  until.tv_nsec += (ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&k.mu);
  int rc = 0;
  while (!k.done && rc == 0) rc = pthread_cond_timedwait(&k.cv, &k.mu, &until);
  int done = k.done;
  pthread_mutex_unlock(&k.mu);
  if (done) pthread_join(t, NULL);
  else pthread_detach(t); /* the process ends; the server ends the session */
  return done;
}
