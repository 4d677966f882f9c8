/* SPDX-License-Identifier: Apache-2.0 */
/* The misuse table: every public function x bad input, and the code it
 * returns. The rows below are the single source of docs/misuse.md: the
 * `--markdown` mode prints the table, `--check-doc FILE HEADER...` fails when
 * the table in FILE differs or a ZKC_EXTERN function of the headers has no
 * row, and one CTest entry per group walks the rows on the real ensemble.
 *
 * Each row runs in one of these situations (fixture states):
 *   FRESH     an open client c; mutex m, latch l and selector s made on it,
 *             none acquired or started; multi-locks ml (over two mutexes
 *             of its own) and ml_half (over m and a mutex never taken)
 *   HELD      this thread holds m and ml; l and s are started and lead;
 *             the async context a holds a lock (fx.hold)
 *   OTHER     as HELD, the row runs on another thread
 *   CALLBACK  as HELD, the row runs on a ZooKeeper completion thread (the
 *             log sink of a second client, called for its session event)
 *   CLOSED    c was closed while m was held and l and s were leading
 * and nothing may reach the network: after every row the client's request
 * counter is unchanged, after every state the server's last request id
 * (cxid, from "cons") of the session has moved by the client's own renewal
 * probes only (pings carry no cxid; a probe is a sync, counted apart), and
 * zkc_client_open must never connect to a listening canary socket. Every
 * row that returns ZKC_EINVAL must also say why: the thread's
 * zkc_last_error_message then begins with the row's function name (a
 * refusal of another function is left there before the row runs). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "renewal.h"
#include "test_hooks.h" /* request counter for the no-traffic check */
#include "harness.h"
#include "names.h"

typedef enum { FRESH, HELD, OTHER, CALLBACK, CLOSED, NSTATES } where_t;
static const char *const where_doc[NSTATES] = {
    "", "held", "other thread", "callback thread", "after close"};

typedef enum { K_RC, K_VAL, K_VOID, K_UB } kind_t;

typedef enum { DOC, RUN } walk_mode_t;

typedef struct walker {
  walk_mode_t mode;
  where_t where;     /* RUN: the state being walked */
  const char *group; /* RUN: only rows of this group */
  int rows;          /* rows run */
  char failure[512]; /* first failure (walks may run off the main thread) */
  FILE *doc;         /* DOC: the markdown table goes here */
  const char *last_fn;
  int sections;           /* DOC: sections begun */
} walker_t;

/* The fixture every row sees. */
typedef struct fx {
  zkc_client_t *c;
  zkc_mutex_t *m;
  zkc_latch_t *l;
  zkc_selector_t *s;
  zkc_sem_t *sem;     /* a limit of 1; its lease is taken in HELD */
  zkc_lease_t *lease;
  zkc_async_t *a;      /* library-thread delivery */
  zkc_async_t *ad;     /* dispatch delivery */
  zkc_hold_t *hold;    /* a's hold, taken in HELD */
  zkc_mutex_t *mla, *mlb, *mla2, *mlc; /* mla2 on mla's path; mlc never taken */
  zkc_multilock_t *ml;      /* over mla and mlb, taken in HELD */
  zkc_multilock_t *ml_half; /* over m and mlc: half held in HELD */
  zkc_mutex_t *pair[2]; /* mlb, mla: ml's locks */
  zkc_mutex_t *with_null[2], *same_lock[2], *same_path[2];
  zkc_rwlock_t *rw;    /* its read side is held in HELD */
  zkc_observer_t *ob;  /* an observer, never started */
  uint64_t hold_id;    /* the acquire that gave it */
  int canary_fd;
  char canary[64];     /* "127.0.0.1:<port>" of the canary listener */
  char buf[2048];      /* connect strings built from the canary */
  char long_path[ZKC__PATH_MAX + 2]; /* 1025 bytes */
  char max_path[ZKC__PATH_MAX + 1];  /* 1024 bytes: accepted */
  char *big; /* a 2 MiB string: more than a ZooKeeper request may carry */
} fx_t;

static fx_t fx;

static const char *group_of(const char *fn) {
  if (strncmp(fn, "zkc_rwlock_", 11) == 0 || strncmp(fn, "zkc_revoke", 10) == 0)
    return "rwlock";
  if (strncmp(fn, "zkc_mutex_", 10) == 0) return "mutex";
  if (strncmp(fn, "zkc_latch_", 10) == 0)
    return "latch";
  if (strncmp(fn, "zkc_selector_", 13) == 0) return "selector";
  if (strncmp(fn, "zkc_sem_", 8) == 0 || strncmp(fn, "zkc_lease_", 10) == 0 ||
      strncmp(fn, "zkc_shared_count_", 17) == 0)
    return "sem";
  if (strncmp(fn, "zkc_multilock_", 14) == 0) return "multilock";
  if (strncmp(fn, "zkc_observ", 10) == 0) return "observer";
  if (strncmp(fn, "zkc_async_", 10) == 0 || strncmp(fn, "zkc_hold_", 9) == 0)
    return "async";
  if (strncmp(fn, "zkc_client_", 11) == 0 || strcmp(fn, "zkc_state_name") == 0 ||
      strcmp(fn, "zkc_lock_contender_list") == 0)
    return "client";
  return "common";
}

/* ---- doc output ---- */

static void md_escape(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputs("\\|", out);
    else fputc(*s, out);
  }
}

/* The call as a reader would write it: "made_m(zkc_mutex_create(prep_m(&om),
 * c, p), &om)" is shown as "zkc_mutex_create(&out, c, p)". */
static const char *shown_call(const char *call, char *out, size_t len) {
  size_t n = strlen(call);
  const char *tail = strncmp(call, "made_", 5) == 0 ? strstr(call, "), &o") : NULL;
  if (tail) {
    call = strchr(call, '(') + 1; /* past "made_m(", "made_sm(", ... */
    n = (size_t)(tail - call) + 1;
  }
  size_t j = 0;
  for (size_t i = 0; i < n && j + 5 < len;) {
    if (strncmp(call + i, "prep_", 5) == 0) {
      memcpy(out + j, "&out", 4);
      j += 4;
      i = (size_t)(strchr(call + i, ')') - call) + 1;
    } else {
      out[j++] = call[i++];
    }
  }
  out[j] = '\0';
  return out;
}

/* The doc's sections, one per group, in the order the rows come. */
static const struct {
  const char *group, *title, *headers;
} topics[] = {
    {"common", "Errors, versions and strings", "zkcoord/common.h"},
    {"client", "Client, session and status", "zkcoord/client.h, zkcoord/status.h, zkcoord/stats.h"},
    {"mutex", "Mutex", "zkcoord/mutex.h"},
    {"rwlock", "Read-write lock and revocation", "zkcoord/rwlock.h, zkcoord/mutex.h, zkcoord/revoke.h"},
    {"multilock", "Multi-lock", "zkcoord/multilock.h"},
    {"latch", "Leader latch", "zkcoord/latch.h"},
    {"selector", "Leader selector", "zkcoord/selector.h"},
    {"async", "Asynchronous acquire", "zkcoord/async.h, zkcoord/hold.h"},
    {"sem", "Semaphore and shared count", "zkcoord/semaphore.h, zkcoord/lease.h, zkcoord/shared_count.h"},
    {"observer", "Observer", "zkcoord/observer.h"},
};

/* A section's heading and its table's head (the doc only): walk() names
 * the topic of the rows that follow. */
static void doc_section(walker_t *w, const char *group) {
  if (w->mode != DOC) return;
  w->last_fn = NULL;
  for (size_t i = 0; i < sizeof topics / sizeof *topics; i++) {
    if (strcmp(topics[i].group, group) != 0) continue;
    fprintf(w->doc, "%s## %s\n\n%s\n\n"
                    "| function | bad input | returns | call as tested |\n"
                    "| --- | --- | --- | --- |\n",
            w->sections++ ? "\n" : "", topics[i].title, topics[i].headers);
    return;
  }
}

static void doc_row(walker_t *w, where_t where, const char *fn,
                    const char *input, const char *result, const char *call) {
  FILE *o = w->doc;
  if (w->last_fn == NULL || strcmp(w->last_fn, fn) != 0)
    fprintf(o, "| `%s` | ", fn);
  else
    fputs("| | ", o);
  w->last_fn = fn;
  if (where != FRESH) fprintf(o, "*%s:* ", where_doc[where]);
  md_escape(o, input);
  fputs(" | ", o);
  md_escape(o, result);
  fputs(" | ", o);
  if (call) {
    char shown[512];
    fputc('`', o);
    md_escape(o, shown_call(call, shown, sizeof shown));
    fputc('`', o);
  }
  fputs(" |\n", o);
}

/* ---- run ---- */

static void failf(walker_t *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void failf(walker_t *w, const char *fmt, ...) {
  if (w->failure[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->failure, sizeof w->failure, fmt, ap);
  va_end(ap);
}

static uint64_t requests(void) { return zkc__requests(fx.c); }

/* Nonzero when the canary listener has a connection waiting. */
static int canary_touched(void) {
  struct pollfd p = {.fd = fx.canary_fd, .events = POLLIN};
  return poll(&p, 1, 0) > 0;
}

typedef struct row_ctx {
  uint64_t before;
} row_ctx_t;

/* Leaves a known refusal of another function as the thread's message, so
 * that the row's own must replace it. */
static void message_sentinel(const char *fn) {
  if (strcmp(fn, "zkc_revoke") == 0)
    (void)zkc_shared_count_set(NULL, NULL, 0);
  else
    (void)zkc_revoke(NULL, NULL);
}

static int row_begin(walker_t *w, where_t where, const char *fn,
                     const char *input, kind_t kind, int want,
                     const char *want_doc, const char *call, row_ctx_t *rc) {
  if (w->mode == DOC) {
    char res[160];
    if (kind == K_RC)
      snprintf(res, sizeof res, "`%s`%s%s", zkc_err_name(want),
               want_doc ? "; " : "", want_doc ? want_doc : "");
    else
      snprintf(res, sizeof res, "%s", want_doc);
    doc_row(w, where, fn, input, res, kind == K_UB ? NULL : call);
    return 0;
  }
  if (kind == K_UB || where != w->where || strcmp(group_of(fn), w->group) != 0)
    return 0;
  if (kind == K_RC && want == ZKC_EINVAL) message_sentinel(fn);
  rc->before = requests();
  return 1;
}

static void row_end(walker_t *w, const char *fn, const char *input,
                    kind_t kind, int want, int got, const row_ctx_t *rc) {
  w->rows++;
  if (kind != K_VOID && got != want)
    failf(w, "%s (%s, %s): got %s (%d), want %s (%d)", fn, input,
          where_doc[w->where], zkc_err_name(got), got, zkc_err_name(want), want);
  if (kind == K_RC && want == ZKC_EINVAL && got == want) {
    const char *msg = zkc_last_error_message();
    size_t n = strlen(fn);
    if (strncmp(msg, fn, n) != 0 || strncmp(msg + n, ": ", 2) != 0)
      failf(w, "%s (%s, %s): ZKC_EINVAL, but the thread's message is '%s'", fn,
            input, where_doc[w->where], msg);
  }
  if (requests() != rc->before)
    failf(w, "%s (%s, %s): sent %llu request(s) to ZooKeeper", fn, input,
          where_doc[w->where], (unsigned long long)(requests() - rc->before));
  if (canary_touched())
    failf(w, "%s (%s, %s): connected to the canary", fn, input,
          where_doc[w->where]);
}

/* A row: in situation `where`, `fn` given `input` returns `want`. */
#define ROW_(kind, where, fn, input, want, want_doc, text, expr)                \
  do {                                                                         \
    row_ctx_t rc_;                                                             \
    if (row_begin(w, where, fn, input, kind, want, want_doc, text, &rc_)) {    \
      int got_ = (expr);                                                       \
      row_end(w, fn, input, kind, want, got_, &rc_);                           \
    }                                                                          \
  } while (0)
/* Returns the code `rc` (a note may follow it in the doc). */
/* What the list calls hand back (their rows fail: nothing is). */
static zkc_list_t *lst, *lst2;

/* Options given with their size: a struct initialised by its sized init,
 * and the same in a larger buffer whose bytes beyond it are set (a field
 * this library does not know). */
#define SIZED_OPTS(kind, type)                                              \
  static struct {                                                           \
    type o;                                                                 \
    unsigned char beyond[8];                                                \
  } kind##_big;                                                             \
  static type *kind##_opts_sized(void) {                                    \
    zkc_##kind##_opts_init_size(&kind##_big.o, sizeof kind##_big.o);        \
    return &kind##_big.o;                                                   \
  }                                                                         \
  static type *kind##_opts_beyond(void) {                                   \
    zkc_##kind##_opts_init_size(&kind##_big.o, sizeof kind##_big);          \
    kind##_big.beyond[0] = 1;                                               \
    return &kind##_big.o;                                                   \
  }
SIZED_OPTS(client, zkc_client_opts_t)
SIZED_OPTS(latch, zkc_latch_opts_t)
SIZED_OPTS(sem, zkc_sem_opts_t)
SIZED_OPTS(selector, zkc_selector_opts_t)
SIZED_OPTS(async, zkc_async_opts_t)

#define RC(where, fn, input, rc, note, expr) \
  ROW_(K_RC, where, fn, input, rc, note, #expr, expr)
/* Returns the value `v`, described as `doc`. */
#define VAL(where, fn, input, v, doc, expr) \
  ROW_(K_VAL, where, fn, input, v, doc, #expr, expr)
/* A void function: must return (and change nothing). */
#define VOID(where, fn, input, doc, expr) \
  ROW_(K_VOID, where, fn, input, 0, doc, #expr, ((expr), 0))
/* Undefined behaviour: documented, never run. */
#define UB(where, fn, input, doc) ROW_(K_UB, where, fn, input, 0, doc, NULL, 0)

/* ---- helpers that keep rows one expression long ---- */

static void hold_lost_fn(void *ctx, zkc_lost_reason_t why, int64_t token) {
  (void)ctx, (void)why, (void)token;
}

/* zkc_hold_bind's refusal, its *out set to NULL (-1001 when not). */
static int bind_refused(zkc_hold_t *h) {
  zkc_hold_t *b = (zkc_hold_t *)&b;
  int rc = zkc_hold_bind(h, &b);
  if (rc == ZKC_OK) zkc_hold_free(b);
  return rc != ZKC_OK && b != NULL ? -1001 : rc;
}

/* zkc_hold_release of a hold bound from h (-1000 when h binds nothing). */
static int release_bound(zkc_async_t *a, zkc_hold_t *h) {
  zkc_hold_t *b = NULL;
  if (zkc_hold_bind(h, &b) != ZKC_OK) return -1000;
  int rc = zkc_hold_release(a, b, NULL, NULL);
  zkc_hold_free(b);
  return rc;
}

/* The result of a create: on failure *out must be NULL; on success the
 * object is destroyed again (creating one makes no traffic). */
static zkc_mutex_t **prep_m(zkc_mutex_t **p) { *p = (zkc_mutex_t *)1; return p; }
static char **prep_text(char **p) { *p = (char *)1; return p; }
/* A Prometheus text: on failure *text must be NULL; on success it is
 * freed again. */
static int prom(int rc, char **text) {
  if (rc != ZKC_OK) return *text == NULL ? rc : -1;
  free(*text);
  return rc;
}
static zkc_latch_t **prep_l(zkc_latch_t **p) { *p = (zkc_latch_t *)1; return p; }
static zkc_selector_t **prep_s(zkc_selector_t **p) { *p = (zkc_selector_t *)1; return p; }
static zkc_client_t **prep_c(zkc_client_t **p) { *p = (zkc_client_t *)1; return p; }
static zkc_sem_t **prep_sm(zkc_sem_t **p) { *p = (zkc_sem_t *)1; return p; }
static zkc_lease_t **prep_le(zkc_lease_t **p) { *p = (zkc_lease_t *)1; return p; }
static int made_sm(int rc, zkc_sem_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_sem_destroy(*p);
  return rc;
}
static int made_le(int rc, zkc_lease_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_lease_free(*p);
  return -2; /* a lease was taken: never expected here */
}
static zkc_async_t **prep_as(zkc_async_t **p) { *p = (zkc_async_t *)1; return p; }
static int made_as(int rc, zkc_async_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_async_destroy(*p);
  return rc;
}
static zkc_async_opts_t *async_opts(int delivery) {
  static zkc_async_opts_t o;
  zkc_async_opts_init(&o);
  o.delivery = (zkc_delivery_t)delivery;
  return &o;
}
static void never_called(void *ctx, int rc, zkc_hold_t *hold) {
  (void)ctx, (void)rc, (void)hold;
  abort(); /* no row's acquire may be accepted */
}
static zkc_sem_opts_t *sem_opts(int max, const char *count_path) {
  static zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = max;
  o.count_path = count_path;
  return &o;
}
static zkc_multilock_t **prep_ml(zkc_multilock_t **p) {
  *p = (zkc_multilock_t *)1;
  return p;
}
static int made_ml(int rc, zkc_multilock_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_multilock_destroy(*p);
  return rc;
}
/* A refused release of a half-held set must leave the held half as it was. */
static int release_half(zkc_multilock_t *ml) {
  int rc = zkc_multilock_release(ml);
  return zkc_mutex_is_owned_by_current_thread(fx.m) ? rc : -1;
}
static zkc_rwlock_t **prep_rw(zkc_rwlock_t **p) { *p = (zkc_rwlock_t *)1; return p; }
static int made_rw(int rc, zkc_rwlock_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_rwlock_destroy(*p);
  return rc;
}
static void revoked_fn(void *ctx, zkc_mutex_t *m, int64_t token) {
  (void)ctx, (void)m, (void)token;
}
static int made_m(int rc, zkc_mutex_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_mutex_destroy(*p);
  return rc;
}
static zkc_observer_t **prep_ob(zkc_observer_t **p) { *p = (zkc_observer_t *)1; return p; }
static int made_ob(int rc, zkc_observer_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_observer_destroy(*p);
  return rc;
}
static zkc_observation_t **prep_ev(zkc_observation_t **p) { *p = (zkc_observation_t *)1; return p; }
static int made_ev(int rc, zkc_observation_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_observation_free(*p);
  return rc;
}
static int made_l(int rc, zkc_latch_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_latch_destroy(*p);
  return rc;
}
static int made_s(int rc, zkc_selector_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_selector_destroy(*p);
  return rc;
}
static int made_c(int rc, zkc_client_t **p) {
  if (rc != ZKC_OK) return *p == NULL ? rc : -1;
  zkc_client_close(*p);
  return -2; /* a client was opened: never expected here */
}
/* A path whose name is cut by an embedded NUL: zkcoord sees "/a". */
static int mutex_path_is(int rc, zkc_mutex_t **p, const char *want) {
  if (rc != ZKC_OK) return rc;
  int same = strcmp(zkc_mutex_path(*p), want) == 0;
  zkc_mutex_destroy(*p);
  return same ? ZKC_OK : -1;
}
/* Connect strings on the canary. */
static const char *canary(const char *suffix) {
  snprintf(fx.buf, sizeof fx.buf, "%s%s", fx.canary, suffix);
  return fx.buf;
}
static const char *canary_long_chroot(void) {
  snprintf(fx.buf, sizeof fx.buf, "%s%s", fx.canary, fx.long_path);
  return fx.buf;
}
static zkc_client_opts_t *opts_with(int field, int value) {
  static zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  switch (field) {
    case 0: o.session_timeout_ms = value; break;
    case 1: o.connect_timeout_ms = value; break;
    case 2: o.retry.max_retries = value; break;
    case 3: o.retry.base_sleep_ms = value; break;
    case 4: o.retry.max_sleep_ms = value; break;
    case 5: o.parent_mode = (zkc_parent_mode_t)value; break;
    case 6: o.log_level = (zkc_log_level_t)value; break;
  }
  o.connect_timeout_ms = field == 1 ? value : 300;
  return &o;
}
static zkc_client_opts_t *opts_holder(const char *id) {
  static zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.holder_id = id;
  return &o;
}
/* Credentials and ACL options, one bad field at a time. */
enum { DIGEST_NO_COLON, DIGEST_EMPTY_USER, DIGEST_EMPTY_PASSWORD, SECURE_NO_DIGEST,
       ACL_COUNT_ZERO, ACL_NO_PERMS, ACL_NULL_SCHEME, ACL_NULL_ID, ACL_BAD_PRESET };
static zkc_client_opts_t *opts_auth(int which) {
  static const zkc_acl_t no_perms[] = {{0, "world", "anyone"}};
  static const zkc_acl_t null_scheme[] = {{ZKC_PERM_ALL, NULL, "anyone"}};
  static const zkc_acl_t null_id[] = {{ZKC_PERM_ALL, "world", NULL}};
  static zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.connect_timeout_ms = 300;
  switch (which) {
    case DIGEST_NO_COLON: o.auth_digest = "userpassword"; break;
    case DIGEST_EMPTY_USER: o.auth_digest = ":password"; break;
    case DIGEST_EMPTY_PASSWORD: o.auth_digest = "user:"; break;
    case SECURE_NO_DIGEST: o.acl_preset = ZKC_ACL_SECURE; break;
    case ACL_COUNT_ZERO: o.acl = no_perms; o.acl_count = 0; break;
    case ACL_NO_PERMS: o.acl = no_perms; o.acl_count = 1; break;
    case ACL_NULL_SCHEME: o.acl = null_scheme; o.acl_count = 1; break;
    case ACL_NULL_ID: o.acl = null_id; o.acl_count = 1; break;
    case ACL_BAD_PRESET: o.acl_preset = (zkc_acl_preset_t)9; break;
  }
  return &o;
}
static zkc_selector_opts_t *sel_opts_id(const char *id) {
  static zkc_selector_opts_t o;
  zkc_selector_opts_init(&o);
  o.id = id;
  return &o;
}
enum { SESSION_TIMEOUT, CONNECT_TIMEOUT, MAX_RETRIES, BASE_SLEEP, MAX_SLEEP,
       PARENT_MODE, LOG_LEVEL };

static void state_fn(void *ctx, zkc_client_t *c, zkc_state_t st) {
  (void)ctx, (void)c, (void)st;
}
static int add_listener_twice(zkc_client_t *c) {
  int first = zkc_client_add_listener(c, state_fn, &fx);
  int second = zkc_client_add_listener(c, state_fn, &fx);
  int removed = zkc_client_remove_listener(c, state_fn, &fx);
  return first == ZKC_OK && removed == ZKC_OK ? second : -1;
}
/* A latch / selector that was closed before it was started. */
static int latch_start_closed(zkc_client_t *c) {
  zkc_latch_t *l;
  if (zkc_latch_create(&l, c, "/misuse/closed", NULL, NULL) != ZKC_OK) return -1;
  zkc_latch_close(l, ZKC_CLOSE_SILENT);
  int rc = zkc_latch_start(l);
  zkc_latch_destroy(l);
  return rc;
}
static void lead(void *ctx, zkc_selector_t *sel);
static int selector_after_close(zkc_client_t *c, int requeue) {
  zkc_selector_t *s;
  if (zkc_selector_create(&s, c, "/misuse/closed", lead, NULL, NULL) != ZKC_OK)
    return -1;
  zkc_selector_close(s);
  int rc = requeue ? zkc_selector_requeue(s) : zkc_selector_start(s);
  zkc_selector_destroy(s);
  return rc;
}
/* zkc_client_close from a callback: the client must stay open. */
static int close_ignored(zkc_client_t *c) {
  zkc_client_close(c);
  zkc_state_t st = 0;
  zkc_client_state(c, &st);
  return st;
}
static int state_of(zkc_client_t *c) {
  zkc_state_t st = 0;
  int rc = zkc_client_state(c, &st);
  return rc == ZKC_OK ? (int)st : rc;
}
static int still_leading(zkc_latch_t *l, int rc) {
  return rc == ZKC_EDEADLK && !zkc_latch_has_leadership(l) ? -1 : rc;
}

/* ---- the table ---- */

static void walk(walker_t *w) {
  zkc_client_t *c = fx.c, *oc;
  zkc_mutex_t *m = fx.m, *om;
  zkc_latch_t *l = fx.l, *ol;
  zkc_selector_t *s = fx.s, *os;
  zkc_sem_t *sm = fx.sem, *osm;
  zkc_lease_t *ls = fx.lease, *ole;
  zkc_async_t *as = fx.a, *asd = fx.ad, *oas;
  zkc_multilock_t *ml = fx.ml, *ml_half = fx.ml_half, *oml;
  zkc_mutex_t **locks = fx.pair, **with_null = fx.with_null,
              **one_lock_twice = fx.same_lock, **one_path_twice = fx.same_path;
  zkc_hold_t *ho = fx.hold;
  zkc_rwlock_t *rw = fx.rw, *orw;
  zkc_observer_t *ob = fx.ob, *oob;
  zkc_observation_t *oev;
  uint64_t u64;
  zkc_client_stats_t cstats;
  zkc_lock_stats_t lstats;
  char *text;
  int fd;
  int32_t count32;
  int64_t i64;
  int i32;
  zkc_state_t st;
  char *id;
  size_t n;
  const char *LONG = fx.long_path, *MAX = fx.max_path;

  /* ---- common ---- */
  doc_section(w, "common");
  VAL(FRESH, "zkc_strerror", "unknown code (12345)", 1,
      "`\"unknown error code\"` (never NULL)",
      strcmp(zkc_strerror(12345), "unknown error code") == 0);
  VAL(FRESH, "zkc_strerror", "a ZooKeeper client code (-4)", 1,
      "`\"unknown error code\"`: zkcoord returns none",
      strcmp(zkc_strerror(-4), "unknown error code") == 0);
  VAL(FRESH, "zkc_err_name", "unknown code (12345)", 1, "`\"UNKNOWN\"`",
      strcmp(zkc_err_name(12345), "UNKNOWN") == 0);
  VAL(FRESH, "zkc_list_count", "NULL", 0, "0", (int)zkc_list_count(NULL));
  VAL(FRESH, "zkc_list_string", "NULL", 1, "NULL", zkc_list_string(NULL, 0) == NULL);
  VAL(FRESH, "zkc_list_contender", "NULL", 1, "NULL",
      zkc_list_contender(NULL, 0) == NULL);
  VOID(FRESH, "zkc_list_free", "NULL", "no-op", zkc_list_free(NULL));
  UB(FRESH, "zkc_list_free", "twice, or a string or record read from the list "
     "used after it", "undefined behaviour");
  VAL(FRESH, "zkc_last_zk_code", "(no input)", 1,
      "0, or the raw code of the thread's last failed request (negative)",
      zkc_last_zk_code() <= 0);
  VAL(FRESH, "zkc_last_error_message", "(no input)", 1,
      "the thread's last failed call explained, `\"\"` before any; never NULL",
      zkc_last_error_message() != NULL);
  VAL(FRESH, "zkc_version", "(no input)", 1, "`ZKC_VERSION_HEX` of the headers",
      zkc_version() == ZKC_VERSION_HEX);
  VAL(FRESH, "zkc_version_string", "(no input)", 1, "`ZKC_VERSION_STRING`",
      strcmp(zkc_version_string(), ZKC_VERSION_STRING) == 0);
  VAL(FRESH, "zkc_recipe_name", "not a zkc_recipe_t (99)", 1,
      "`\"unknown\"`",
      strcmp(zkc_recipe_name((zkc_recipe_t)99), "unknown") == 0);
  VAL(FRESH, "zkc_stats_bucket_bound_us", "i >= ZKC_STATS_BUCKETS", 1,
      "`INT64_MAX`", zkc_stats_bucket_bound_us(ZKC_STATS_BUCKETS) == INT64_MAX);

  /* ---- client ---- */
  doc_section(w, "client");
  VOID(FRESH, "zkc_client_opts_init", "NULL", "no-op", zkc_client_opts_init(NULL));
  VOID(FRESH, "zkc_log_stderr", "message NULL", "no-op (nothing printed)",
       zkc_log_stderr(NULL, ZKC_LOG_ERROR, NULL));
  RC(FRESH, "zkc_client_open", "out NULL", ZKC_EINVAL, NULL,
     zkc_client_open(NULL, canary(""), NULL));
  RC(FRESH, "zkc_client_opts_init_size", "opts NULL", ZKC_EINVAL, NULL,
     zkc_client_opts_init_size(NULL, sizeof(zkc_client_opts_t)));
  RC(FRESH, "zkc_client_opts_init_size", "size below sizeof(zkc_client_opts_t)",
     ZKC_EINVAL, "nothing written",
     zkc_client_opts_init_size(&client_big.o, sizeof client_big.o - 1));
  RC(FRESH, "zkc_client_open_size", "opts_size below the struct's", ZKC_EINVAL,
     "*out = NULL", made_c(zkc_client_open_size(prep_c(&oc), canary(""),
                                                client_opts_sized(), 4), &oc));
  RC(FRESH, "zkc_client_open_size", "a byte beyond the struct this library "
     "knows set", ZKC_EINVAL, "*out = NULL",
     made_c(zkc_client_open_size(prep_c(&oc), canary(""), client_opts_beyond(),
                                 sizeof client_big), &oc));
  RC(FRESH, "zkc_client_open", "connect string NULL", ZKC_EINVAL, "*out = NULL",
     made_c(zkc_client_open(prep_c(&oc), NULL, NULL), &oc));
  RC(FRESH, "zkc_client_open", "connect string empty", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), "", NULL), &oc));
  RC(FRESH, "zkc_client_open", "chroot only, no host", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), "/app", NULL), &oc));
  RC(FRESH, "zkc_client_open", "chroot with a trailing '/'", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary("/app/"), NULL), &oc));
  RC(FRESH, "zkc_client_open", "chroot with an empty segment", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary("/a//b"), NULL), &oc));
  RC(FRESH, "zkc_client_open", "chroot with a '..' segment", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary("/a/../b"), NULL), &oc));
  RC(FRESH, "zkc_client_open", "chroot with a control byte", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary("/a\x01"), NULL), &oc));
  RC(FRESH, "zkc_client_open", "chroot not UTF-8", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary("/\xff"), NULL), &oc));
  RC(FRESH, "zkc_client_open", "chroot over 1024 bytes", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary_long_chroot(), NULL), &oc));
  RC(FRESH, "zkc_client_open", "host with ':' but no port", ZKC_EINVAL,
     "a host without ':' gets port 2181",
     made_c(zkc_client_open(prep_c(&oc), "127.0.0.1:", NULL), &oc));
  RC(FRESH, "zkc_client_open", "port 0 or over 65535", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), "127.0.0.1:65536", NULL), &oc));
  RC(FRESH, "zkc_client_open", "empty host entry", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(",,"), NULL), &oc));
  RC(FRESH, "zkc_client_open", "host with a space", ZKC_EINVAL,
     "no name lookup is made", made_c(zkc_client_open(prep_c(&oc), "zk 1:2181", NULL), &oc));
  RC(FRESH, "zkc_client_open", "host not ASCII", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), "z\xc3\xa9:2181", NULL), &oc));
  RC(FRESH, "zkc_client_open", "host with a control byte", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), "127.0.0.1\x01:2181", NULL), &oc));
  RC(FRESH, "zkc_client_open", "port not a number", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), "127.0.0.1:http", NULL), &oc));
  RC(FRESH, "zkc_client_open", "session_timeout_ms <= 0", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_with(SESSION_TIMEOUT, 0)), &oc));
  RC(FRESH, "zkc_client_open", "connect_timeout_ms < 0", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_with(CONNECT_TIMEOUT, -1)), &oc));
  RC(FRESH, "zkc_client_open", "retry.max_retries < 0", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_with(MAX_RETRIES, -1)), &oc));
  RC(FRESH, "zkc_client_open", "retry.base_sleep_ms < 0", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_with(BASE_SLEEP, -1)), &oc));
  RC(FRESH, "zkc_client_open", "retry.max_sleep_ms < 0", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_with(MAX_SLEEP, -1)), &oc));
  RC(FRESH, "zkc_client_open", "parent_mode not a zkc_parent_mode_t", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_with(PARENT_MODE, 7)), &oc));
  RC(FRESH, "zkc_client_open", "log_level out of range", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_with(LOG_LEVEL, 9)), &oc));
  RC(FRESH, "zkc_client_open", "holder_id over 1020 KiB", ZKC_EINVAL,
     "ZooKeeper would drop the connection on every create",
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_holder(fx.big)), &oc));
  RC(FRESH, "zkc_client_open", "auth_digest without ':'", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(DIGEST_NO_COLON)), &oc));
  RC(FRESH, "zkc_client_open", "auth_digest with an empty user", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(DIGEST_EMPTY_USER)), &oc));
  RC(FRESH, "zkc_client_open", "auth_digest with an empty password", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(DIGEST_EMPTY_PASSWORD)), &oc));
  RC(FRESH, "zkc_client_open", "ZKC_ACL_SECURE without auth_digest", ZKC_EINVAL,
     "every create would be refused", made_c(zkc_client_open(prep_c(&oc), canary(""),
                                                             opts_auth(SECURE_NO_DIGEST)), &oc));
  RC(FRESH, "zkc_client_open", "acl set with acl_count 0", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(ACL_COUNT_ZERO)), &oc));
  RC(FRESH, "zkc_client_open", "acl entry without permissions", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(ACL_NO_PERMS)), &oc));
  RC(FRESH, "zkc_client_open", "acl entry with a NULL scheme", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(ACL_NULL_SCHEME)), &oc));
  RC(FRESH, "zkc_client_open", "acl entry with a NULL id", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(ACL_NULL_ID)), &oc));
  RC(FRESH, "zkc_client_open", "acl_preset not a zkc_acl_preset_t", ZKC_EINVAL, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), opts_auth(ACL_BAD_PRESET)), &oc));
  RC(CALLBACK, "zkc_client_open", "valid arguments", ZKC_EDEADLK, NULL,
     made_c(zkc_client_open(prep_c(&oc), canary(""), NULL), &oc));
  VOID(FRESH, "zkc_client_close", "NULL", "no-op", zkc_client_close(NULL));
  VAL(CALLBACK, "zkc_client_close", "the client", ZKC_STATE_CONNECTED,
      "no-op, logged as an error: the client stays open", close_ignored(c));
  UB(CLOSED, "zkc_client_close", "the same client twice, or any call with the "
     "client after close other than those listed here", "undefined behaviour "
     "(the client is freed once no recipe object refers to it)");
  RC(FRESH, "zkc_client_session_id", "client NULL", ZKC_EINVAL, NULL,
     zkc_client_session_id(NULL, &i64));
  RC(FRESH, "zkc_client_session_id", "session_id NULL", ZKC_EINVAL, NULL,
     zkc_client_session_id(c, NULL));
  RC(CLOSED, "zkc_client_session_id", "closed client", ZKC_ECLOSED, NULL,
     zkc_client_session_id(c, &i64));
  RC(FRESH, "zkc_client_state", "client NULL", ZKC_EINVAL, NULL,
     zkc_client_state(NULL, &st));
  RC(FRESH, "zkc_client_state", "state NULL", ZKC_EINVAL, NULL,
     zkc_client_state(c, NULL));
  VAL(CLOSED, "zkc_client_state", "closed client", ZKC_STATE_CLOSED,
      "`ZKC_OK`, state `ZKC_STATE_CLOSED`", state_of(c));
  VAL(FRESH, "zkc_state_name", "not a zkc_state_t (99)", 1, "`\"UNKNOWN\"`",
      strcmp(zkc_state_name((zkc_state_t)99), "UNKNOWN") == 0);
  RC(FRESH, "zkc_client_add_listener", "client NULL", ZKC_EINVAL, NULL,
     zkc_client_add_listener(NULL, state_fn, NULL));
  RC(FRESH, "zkc_client_add_listener", "fn NULL", ZKC_EINVAL, NULL,
     zkc_client_add_listener(c, NULL, NULL));
  RC(FRESH, "zkc_client_add_listener", "the same (fn, ctx) again", ZKC_EINVAL,
     "the first stays registered", add_listener_twice(c));
  RC(CLOSED, "zkc_client_add_listener", "closed client", ZKC_ECLOSED, NULL,
     zkc_client_add_listener(c, state_fn, NULL));
  RC(FRESH, "zkc_client_remove_listener", "client NULL", ZKC_EINVAL, NULL,
     zkc_client_remove_listener(NULL, state_fn, NULL));
  RC(FRESH, "zkc_client_remove_listener", "fn NULL", ZKC_EINVAL, NULL,
     zkc_client_remove_listener(c, NULL, NULL));
  RC(FRESH, "zkc_client_remove_listener", "a pair never registered", ZKC_EINVAL,
     NULL, zkc_client_remove_listener(c, state_fn, &i64));
  RC(FRESH, "zkc_client_session_timeout", "client NULL", ZKC_EINVAL, NULL,
     zkc_client_session_timeout(NULL, &i32));
  RC(FRESH, "zkc_client_session_timeout", "timeout_ms NULL", ZKC_EINVAL, NULL,
     zkc_client_session_timeout(c, NULL));
  RC(CLOSED, "zkc_client_session_timeout", "closed client", ZKC_ECLOSED, NULL,
     zkc_client_session_timeout(c, &i32));
  RC(FRESH, "zkc_lock_contender_list", "path NULL", ZKC_EINVAL, NULL,
     zkc_lock_contender_list(c, NULL, &lst));
  RC(FRESH, "zkc_lock_contender_list", "path of 1025 bytes", ZKC_EINVAL, NULL,
     zkc_lock_contender_list(c, LONG, &lst));
  RC(FRESH, "zkc_lock_contender_list", "path not UTF-8", ZKC_EINVAL, NULL,
     zkc_lock_contender_list(c, "/\xff", &lst));
  RC(FRESH, "zkc_lock_contender_list", "client NULL", ZKC_EINVAL, "*out NULL",
     zkc_lock_contender_list(NULL, "/x", &lst));
  RC(FRESH, "zkc_lock_contender_list", "out NULL", ZKC_EINVAL, NULL,
     zkc_lock_contender_list(c, "/x", NULL));
  RC(FRESH, "zkc_lock_contender_list", "path invalid (as zkc_mutex_create)",
     ZKC_EINVAL, NULL, zkc_lock_contender_list(c, "/a//b", &lst));
  RC(CALLBACK, "zkc_lock_contender_list", "valid", ZKC_EDEADLK, NULL,
     zkc_lock_contender_list(c, "/x", &lst));
  RC(CLOSED, "zkc_lock_contender_list", "closed client", ZKC_ECLOSED, NULL,
     zkc_lock_contender_list(c, "/x", &lst));
  RC(FRESH, "zkc_client_stats", "client or out NULL", ZKC_EINVAL, NULL,
     zkc_client_stats(NULL, &cstats));
  RC(CALLBACK, "zkc_client_stats", "valid", ZKC_OK, "callbacks may read them",
     zkc_client_stats(c, &cstats));
  RC(CLOSED, "zkc_client_stats", "closed client", ZKC_OK,
     "the counts as they stood", zkc_client_stats(c, &cstats));
  RC(FRESH, "zkc_client_foreach_lock_stats", "client or fn NULL", ZKC_EINVAL,
     NULL, zkc_client_foreach_lock_stats(c, NULL, NULL));
  RC(FRESH, "zkc_client_prometheus", "client NULL", ZKC_EINVAL, "*text = NULL",
     prom(zkc_client_prometheus(NULL, prep_text(&text), NULL), &text));
  RC(FRESH, "zkc_client_prometheus", "text NULL", ZKC_EINVAL, NULL,
     zkc_client_prometheus(c, NULL, NULL));
  RC(CALLBACK, "zkc_client_prometheus", "valid", ZKC_OK, NULL,
     prom(zkc_client_prometheus(c, prep_text(&text), NULL), &text));
  RC(CLOSED, "zkc_client_prometheus", "closed client", ZKC_OK,
     "the counts as they stood",
     prom(zkc_client_prometheus(c, prep_text(&text), NULL), &text));
  RC(FRESH, "zkc_client_set_event_hook", "client NULL", ZKC_EINVAL, NULL,
     zkc_client_set_event_hook(NULL, NULL, NULL));
  VAL(FRESH, "zkc_contender_layout", "NULL", 0, "0",
      (int)zkc_contender_layout(NULL));
  VAL(FRESH, "zkc_layout_refusal", "contenders NULL", 0, "0",
      (int)zkc_layout_refusal(ZKC_RECIPE_MUTEX, NULL, 3, NULL));
  VAL(FRESH, "zkc_layout_refusal", "a multi-lock (its locks judged each)", 0,
      "0", (int)zkc_layout_refusal(ZKC_RECIPE_MULTILOCK,
                                   &(zkc_contender_t){.name = "leases"}, 1,
                                   NULL));
  VAL(FRESH, "zkc_layout_refusal", "not a zkc_recipe_t (99)", 0, "0",
      (int)zkc_layout_refusal((zkc_recipe_t)99,
                              &(zkc_contender_t){.name = "leases"}, 1, NULL));

  /* ---- mutex ---- */
  doc_section(w, "mutex");
  RC(FRESH, "zkc_mutex_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_mutex_create(NULL, c, "/x"));
  RC(FRESH, "zkc_mutex_create", "client NULL", ZKC_EINVAL, "*out = NULL",
     made_m(zkc_mutex_create(prep_m(&om), NULL, "/x"), &om));
  RC(FRESH, "zkc_mutex_create", "path NULL", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, NULL), &om));
  RC(FRESH, "zkc_mutex_create", "path empty", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, ""), &om));
  RC(FRESH, "zkc_mutex_create", "path relative", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "locks/a"), &om));
  RC(FRESH, "zkc_mutex_create", "path \"/\"", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/"), &om));
  RC(FRESH, "zkc_mutex_create", "trailing '/'", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/a/"), &om));
  RC(FRESH, "zkc_mutex_create", "empty segment", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/a//b"), &om));
  RC(FRESH, "zkc_mutex_create", "'.' or '..' segment", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/a/../b"), &om));
  RC(FRESH, "zkc_mutex_create", "under /zookeeper", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/zookeeper/x"), &om));
  RC(FRESH, "zkc_mutex_create", "path of 1025 bytes", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, LONG), &om));
  RC(FRESH, "zkc_mutex_create", "path of 1024 bytes (the limit)", ZKC_OK, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, MAX), &om));
  RC(FRESH, "zkc_mutex_create", "control byte (U+0001)", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/a\x01"), &om));
  RC(FRESH, "zkc_mutex_create", "DEL or C1 control (U+007F, U+0080)", ZKC_EINVAL,
     NULL, made_m(zkc_mutex_create(prep_m(&om), c, "/a\xc2\x80"), &om));
  RC(FRESH, "zkc_mutex_create", "invalid UTF-8 byte", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/\xff"), &om));
  RC(FRESH, "zkc_mutex_create", "overlong UTF-8 ('/' as 2 bytes)", ZKC_EINVAL,
     NULL, made_m(zkc_mutex_create(prep_m(&om), c, "/a\xc0\xaf" "b"), &om));
  RC(FRESH, "zkc_mutex_create", "truncated UTF-8", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/a\xe2\x82"), &om));
  RC(FRESH, "zkc_mutex_create", "UTF-16 surrogate (U+D800)", ZKC_EINVAL, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/\xed\xa0\x80"), &om));
  RC(FRESH, "zkc_mutex_create", "outside the BMP (U+1F600)", ZKC_EINVAL,
     "ZooKeeper's server refuses it", made_m(zkc_mutex_create(prep_m(&om), c, "/\xf0\x9f\x98\x80"), &om));
  RC(FRESH, "zkc_mutex_create", "embedded NUL (\"/a\\0b\")", ZKC_OK,
     "a C string ends at its NUL: the lock path is \"/a\"",
     mutex_path_is(zkc_mutex_create(prep_m(&om), c, "/a\0b"), &om, "/a"));
  RC(CLOSED, "zkc_mutex_create", "closed client", ZKC_ECLOSED, NULL,
     made_m(zkc_mutex_create(prep_m(&om), c, "/x"), &om));
  VAL(FRESH, "zkc_mutex_destroy", "NULL", ZKC_OK, "`ZKC_OK`", zkc_mutex_destroy(NULL));
  RC(HELD, "zkc_mutex_destroy", "while held", ZKC_EBUSY, "nothing changes",
     zkc_mutex_destroy(m));
  RC(OTHER, "zkc_mutex_destroy", "while another thread holds it", ZKC_EBUSY,
     NULL, zkc_mutex_destroy(m));
  UB(FRESH, "zkc_mutex_destroy", "twice, or any use after destroy",
     "undefined behaviour");
  RC(FRESH, "zkc_mutex_acquire", "NULL", ZKC_EINVAL, NULL, zkc_mutex_acquire(NULL));
  RC(CALLBACK, "zkc_mutex_acquire", "mutex held by another thread", ZKC_EDEADLK,
     "nothing changes", zkc_mutex_acquire(m));
  RC(CLOSED, "zkc_mutex_acquire", "closed client", ZKC_ECLOSED, NULL,
     zkc_mutex_acquire(m));
  RC(FRESH, "zkc_mutex_acquire_timeout", "NULL", ZKC_EINVAL, NULL,
     zkc_mutex_acquire_timeout(NULL, 10));
  RC(CALLBACK, "zkc_mutex_acquire_timeout", "timeout 0", ZKC_EDEADLK, NULL,
     zkc_mutex_acquire_timeout(m, 0));
  RC(FRESH, "zkc_mutex_release", "NULL", ZKC_EINVAL, NULL, zkc_mutex_release(NULL));
  RC(FRESH, "zkc_mutex_release", "not held", ZKC_ENOTOWNER, NULL,
     zkc_mutex_release(m));
  RC(OTHER, "zkc_mutex_release", "held by another thread", ZKC_ENOTOWNER,
     "the holder keeps it", zkc_mutex_release(m));
  RC(CALLBACK, "zkc_mutex_release", "held by another thread", ZKC_EDEADLK,
     "nothing changes", zkc_mutex_release(m));
  RC(CLOSED, "zkc_mutex_release", "held when the client closed", ZKC_ECLOSED,
     "local state cleared; the node went with the session", zkc_mutex_release(m));
  RC(CLOSED, "zkc_mutex_release", "again", ZKC_ENOTOWNER, NULL, zkc_mutex_release(m));
  RC(FRESH, "zkc_mutex_release_nowait", "NULL", ZKC_EINVAL, NULL,
     zkc_mutex_release_nowait(NULL));
  RC(FRESH, "zkc_mutex_release_nowait", "not held", ZKC_ENOTOWNER, NULL,
     zkc_mutex_release_nowait(m));
  RC(OTHER, "zkc_mutex_release_nowait", "held by another thread", ZKC_ENOTOWNER,
     "the holder keeps it", zkc_mutex_release_nowait(m));
  RC(CALLBACK, "zkc_mutex_release_nowait", "held by another thread", ZKC_EDEADLK,
     "nothing changes", zkc_mutex_release_nowait(m));
  RC(CLOSED, "zkc_mutex_release_nowait", "after a release", ZKC_ENOTOWNER, NULL,
     zkc_mutex_release_nowait(m));
  VAL(FRESH, "zkc_mutex_is_acquired_in_this_process", "NULL", 0, "0",
      zkc_mutex_is_acquired_in_this_process(NULL));
  VAL(FRESH, "zkc_mutex_is_owned_by_current_thread", "NULL", 0, "0",
      zkc_mutex_is_owned_by_current_thread(NULL));
  VAL(OTHER, "zkc_mutex_is_owned_by_current_thread", "held by another thread", 0,
      "0", zkc_mutex_is_owned_by_current_thread(m));
  RC(FRESH, "zkc_mutex_set_lost_callback", "mutex NULL", ZKC_EINVAL, NULL,
     zkc_mutex_set_lost_callback(NULL, NULL, NULL));
  VAL(FRESH, "zkc_mutex_path", "NULL", 1, "NULL", zkc_mutex_path(NULL) == NULL);
  RC(FRESH, "zkc_mutex_stats", "mutex or out NULL", ZKC_EINVAL, NULL,
     zkc_mutex_stats(NULL, &lstats));
  RC(HELD, "zkc_mutex_stats", "valid", ZKC_OK, NULL, zkc_mutex_stats(m, &lstats));
  RC(CALLBACK, "zkc_mutex_stats", "valid", ZKC_OK, NULL,
     zkc_mutex_stats(m, &lstats));
  RC(FRESH, "zkc_mutex_node_list", "mutex NULL", ZKC_EINVAL, "*out NULL",
     zkc_mutex_node_list(NULL, &lst));
  RC(FRESH, "zkc_mutex_node_list", "out NULL", ZKC_EINVAL, NULL,
     zkc_mutex_node_list(m, NULL));
  RC(CALLBACK, "zkc_mutex_node_list", "valid", ZKC_EDEADLK, NULL,
     zkc_mutex_node_list(m, &lst));
  RC(CLOSED, "zkc_mutex_node_list", "closed client", ZKC_ECLOSED, NULL,
     zkc_mutex_node_list(m, &lst));

  RC(FRESH, "zkc_mutex_set_revocable", "mutex NULL", ZKC_EINVAL, NULL,
     zkc_mutex_set_revocable(NULL, revoked_fn, NULL));
  VAL(FRESH, "zkc_mutex_hold", "NULL", 1, "NULL", zkc_mutex_hold(NULL) == NULL);
  RC(FRESH, "zkc_mutex_hold", "not held (its calls)", ZKC_ENOTOWNER,
     "nothing changes", zkc_hold_fenced_set(zkc_mutex_hold(m), "/x", "d", 1));
  RC(FRESH, "zkc_hold_bind", "nothing granted (a mutex not held)",
     ZKC_ENOTOWNER, "*out NULL", bind_refused(zkc_mutex_hold(m)));
  RC(OTHER, "zkc_mutex_hold", "held by another thread (its calls)",
     ZKC_ENOTOWNER, "nothing changes",
     zkc_hold_fencing_token(zkc_mutex_hold(m), &i64));

  /* ---- read-write lock and revocation ---- */
  doc_section(w, "rwlock");
  RC(FRESH, "zkc_rwlock_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_rwlock_create(NULL, c, "/x"));
  RC(FRESH, "zkc_rwlock_create", "client NULL", ZKC_EINVAL, "*out = NULL",
     made_rw(zkc_rwlock_create(prep_rw(&orw), NULL, "/x"), &orw));
  RC(FRESH, "zkc_rwlock_create", "path NULL", ZKC_EINVAL, NULL,
     made_rw(zkc_rwlock_create(prep_rw(&orw), c, NULL), &orw));
  RC(FRESH, "zkc_rwlock_create", "path invalid (as zkc_mutex_create)", ZKC_EINVAL,
     NULL, made_rw(zkc_rwlock_create(prep_rw(&orw), c, "/a//b"), &orw));
  RC(FRESH, "zkc_rwlock_create", "path of 1025 bytes", ZKC_EINVAL, NULL,
     made_rw(zkc_rwlock_create(prep_rw(&orw), c, LONG), &orw));
  RC(CLOSED, "zkc_rwlock_create", "closed client", ZKC_ECLOSED, NULL,
     made_rw(zkc_rwlock_create(prep_rw(&orw), c, "/x"), &orw));
  VAL(FRESH, "zkc_rwlock_destroy", "NULL", ZKC_OK, "`ZKC_OK`", zkc_rwlock_destroy(NULL));
  RC(HELD, "zkc_rwlock_destroy", "while a side is held", ZKC_EBUSY,
     "nothing changes", zkc_rwlock_destroy(rw));
  RC(CALLBACK, "zkc_rwlock_destroy", "valid", ZKC_EDEADLK, "nothing changes",
     zkc_rwlock_destroy(rw));
  UB(FRESH, "zkc_rwlock_destroy", "twice, or any use of it or its sides after",
     "undefined behaviour");
  VAL(FRESH, "zkc_rwlock_read_side", "NULL", 1, "NULL",
      zkc_rwlock_read_side(NULL) == NULL);
  VAL(FRESH, "zkc_rwlock_write_side", "NULL", 1, "NULL",
      zkc_rwlock_write_side(NULL) == NULL);
  RC(FRESH, "zkc_mutex_destroy", "a side of a read-write lock", ZKC_EINVAL,
     "a side belongs to its read-write lock", zkc_mutex_destroy(zkc_rwlock_read_side(rw)));
  RC(HELD, "zkc_mutex_acquire", "the write side, by a thread holding the read side",
     ZKC_EDEADLK, "at once, no node: the upgrade would wait on itself",
     zkc_mutex_acquire(zkc_rwlock_write_side(rw)));
  RC(OTHER, "zkc_mutex_release", "a read side held by another thread", ZKC_ENOTOWNER,
     "the holder keeps it", zkc_mutex_release(zkc_rwlock_read_side(rw)));
  RC(FRESH, "zkc_revoke", "client NULL", ZKC_EINVAL, NULL, zkc_revoke(NULL, "/x"));
  RC(FRESH, "zkc_revoke", "path NULL", ZKC_EINVAL, NULL, zkc_revoke(c, NULL));
  RC(FRESH, "zkc_revoke", "path invalid (as zkc_mutex_create)", ZKC_EINVAL, NULL,
     zkc_revoke(c, "/a/"));
  RC(CALLBACK, "zkc_revoke", "valid", ZKC_EDEADLK, NULL, zkc_revoke(c, "/x"));
  RC(CLOSED, "zkc_revoke", "closed client", ZKC_ECLOSED, NULL, zkc_revoke(c, "/x"));
  RC(FRESH, "zkc_revoke_holders", "client NULL", ZKC_EINVAL, NULL,
     zkc_revoke_holders(NULL, "/x", &n));
  RC(FRESH, "zkc_revoke_holders", "path invalid (as zkc_mutex_create)", ZKC_EINVAL,
     NULL, zkc_revoke_holders(c, "x", &n));
  RC(CALLBACK, "zkc_revoke_holders", "valid", ZKC_EDEADLK, NULL,
     zkc_revoke_holders(c, "/x", NULL));
  RC(CLOSED, "zkc_revoke_holders", "closed client", ZKC_ECLOSED, NULL,
     zkc_revoke_holders(c, "/x", &n));

  /* ---- multilock ---- */
  doc_section(w, "multilock");
  RC(FRESH, "zkc_multilock_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_multilock_create(NULL, locks, 2));
  RC(FRESH, "zkc_multilock_create", "locks NULL", ZKC_EINVAL, "*out = NULL",
     made_ml(zkc_multilock_create(prep_ml(&oml), NULL, 2), &oml));
  RC(FRESH, "zkc_multilock_create", "n 0", ZKC_EINVAL, NULL,
     made_ml(zkc_multilock_create(prep_ml(&oml), locks, 0), &oml));
  RC(FRESH, "zkc_multilock_create", "a NULL entry", ZKC_EINVAL, NULL,
     made_ml(zkc_multilock_create(prep_ml(&oml), with_null, 2), &oml));
  RC(FRESH, "zkc_multilock_create", "the same lock twice", ZKC_EINVAL,
     "the thread would queue behind itself",
     made_ml(zkc_multilock_create(prep_ml(&oml), one_lock_twice, 2), &oml));
  RC(FRESH, "zkc_multilock_create", "two locks on one path", ZKC_EINVAL,
     "likewise (two mutex objects, or two sides of a read-write lock)",
     made_ml(zkc_multilock_create(prep_ml(&oml), one_path_twice, 2), &oml));
  RC(CLOSED, "zkc_multilock_create", "locks of a closed client", ZKC_OK,
     "no traffic, the client is not asked; acquiring gives `ZKC_ECLOSED`",
     made_ml(zkc_multilock_create(prep_ml(&oml), locks, 2), &oml));
  VAL(FRESH, "zkc_multilock_destroy", "NULL", ZKC_OK, "`ZKC_OK`",
      zkc_multilock_destroy(NULL));
  RC(HELD, "zkc_multilock_destroy", "while held", ZKC_EBUSY, "nothing changes",
     zkc_multilock_destroy(ml));
  RC(OTHER, "zkc_multilock_destroy", "while another thread holds it", ZKC_EBUSY,
     NULL, zkc_multilock_destroy(ml));
  UB(FRESH, "zkc_multilock_destroy", "twice, any use after destroy, or a "
     "component lock destroyed before the multi-lock", "undefined behaviour");
  RC(FRESH, "zkc_multilock_acquire", "NULL", ZKC_EINVAL, NULL,
     zkc_multilock_acquire(NULL));
  RC(CALLBACK, "zkc_multilock_acquire", "held by another thread", ZKC_EDEADLK,
     "nothing is taken", zkc_multilock_acquire(ml));
  RC(CLOSED, "zkc_multilock_acquire", "closed client", ZKC_ECLOSED, NULL,
     zkc_multilock_acquire(ml));
  RC(FRESH, "zkc_multilock_acquire_timeout", "NULL", ZKC_EINVAL, NULL,
     zkc_multilock_acquire_timeout(NULL, 10));
  RC(CALLBACK, "zkc_multilock_acquire_timeout", "timeout 0", ZKC_EDEADLK, NULL,
     zkc_multilock_acquire_timeout(ml, 0));
  RC(CLOSED, "zkc_multilock_acquire_timeout", "closed client", ZKC_ECLOSED, NULL,
     zkc_multilock_acquire_timeout(ml, 0));
  RC(FRESH, "zkc_multilock_release", "NULL", ZKC_EINVAL, NULL,
     zkc_multilock_release(NULL));
  RC(FRESH, "zkc_multilock_release", "not held", ZKC_ENOTOWNER, NULL,
     zkc_multilock_release(ml));
  RC(HELD, "zkc_multilock_release", "this thread holds some of the locks",
     ZKC_ENOTOWNER, "nothing is released", release_half(ml_half));
  RC(OTHER, "zkc_multilock_release", "held by another thread", ZKC_ENOTOWNER,
     "the holder keeps it", zkc_multilock_release(ml));
  RC(CALLBACK, "zkc_multilock_release", "held by another thread", ZKC_EDEADLK,
     "nothing changes", zkc_multilock_release(ml));
  RC(CLOSED, "zkc_multilock_release", "held when the client closed", ZKC_ECLOSED,
     "every lock's local state cleared; the nodes went with the session",
     zkc_multilock_release(ml));
  RC(CLOSED, "zkc_multilock_release", "again", ZKC_ENOTOWNER, NULL,
     zkc_multilock_release(ml));
  RC(FRESH, "zkc_multilock_stats", "multilock or out NULL", ZKC_EINVAL, NULL,
     zkc_multilock_stats(NULL, &lstats));
  RC(CLOSED, "zkc_multilock_stats", "held when the client closed", ZKC_OK,
     "the counts as they stood", zkc_multilock_stats(ml, &lstats));
  VAL(FRESH, "zkc_multilock_hold", "NULL", 1, "NULL",
      zkc_multilock_hold(NULL) == NULL);
  RC(FRESH, "zkc_multilock_hold", "not held (its calls)", ZKC_ENOTOWNER,
     "nothing changes", zkc_hold_node_list(zkc_multilock_hold(ml), &lst));

  /* ---- latch ---- */
  doc_section(w, "latch");
  VOID(FRESH, "zkc_latch_opts_init", "NULL", "no-op", zkc_latch_opts_init(NULL));
  RC(FRESH, "zkc_latch_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_latch_create(NULL, c, "/x", NULL, NULL));
  RC(FRESH, "zkc_latch_opts_init_size", "opts NULL", ZKC_EINVAL, NULL,
     zkc_latch_opts_init_size(NULL, sizeof(zkc_latch_opts_t)));
  RC(FRESH, "zkc_latch_opts_init_size", "size below sizeof(zkc_latch_opts_t)",
     ZKC_EINVAL, "nothing written",
     zkc_latch_opts_init_size(&latch_big.o, sizeof latch_big.o - 1));
  RC(FRESH, "zkc_latch_create_size", "opts_size below the struct's", ZKC_EINVAL,
     "*out = NULL", made_l(zkc_latch_create_size(prep_l(&ol), c, "/x", NULL,
                                                 latch_opts_sized(), 4), &ol));
  RC(FRESH, "zkc_latch_create_size", "a byte beyond the struct this library "
     "knows set", ZKC_EINVAL, "*out = NULL",
     made_l(zkc_latch_create_size(prep_l(&ol), c, "/x", NULL,
                                  latch_opts_beyond(), sizeof latch_big), &ol));
  RC(FRESH, "zkc_latch_create", "client NULL", ZKC_EINVAL, "*out = NULL",
     made_l(zkc_latch_create(prep_l(&ol), NULL, "/x", NULL, NULL), &ol));
  RC(FRESH, "zkc_latch_create", "path NULL", ZKC_EINVAL, NULL,
     made_l(zkc_latch_create(prep_l(&ol), c, NULL, NULL, NULL), &ol));
  RC(FRESH, "zkc_latch_create", "path invalid (as zkc_mutex_create)", ZKC_EINVAL,
     NULL, made_l(zkc_latch_create(prep_l(&ol), c, "/a//b", NULL, NULL), &ol));
  RC(FRESH, "zkc_latch_create", "path of 1025 bytes", ZKC_EINVAL, NULL,
     made_l(zkc_latch_create(prep_l(&ol), c, LONG, NULL, NULL), &ol));
  RC(FRESH, "zkc_latch_create", "path with a control byte", ZKC_EINVAL, NULL,
     made_l(zkc_latch_create(prep_l(&ol), c, "/a\x1f", NULL, NULL), &ol));
  RC(FRESH, "zkc_latch_create", "path not UTF-8", ZKC_EINVAL, NULL,
     made_l(zkc_latch_create(prep_l(&ol), c, "/\xc3", NULL, NULL), &ol));
  RC(FRESH, "zkc_latch_create", "id with control bytes or not UTF-8", ZKC_OK,
     "ids are node data: any bytes up to the NUL",
     made_l(zkc_latch_create(prep_l(&ol), c, "/x", "\x01\xff", NULL), &ol));
  RC(FRESH, "zkc_latch_create", "id over 1020 KiB", ZKC_EINVAL, NULL,
     made_l(zkc_latch_create(prep_l(&ol), c, "/x", fx.big, NULL), &ol));
  RC(CLOSED, "zkc_latch_create", "closed client", ZKC_ECLOSED, NULL,
     made_l(zkc_latch_create(prep_l(&ol), c, "/x", NULL, NULL), &ol));
  RC(FRESH, "zkc_latch_set_listener", "latch NULL", ZKC_EINVAL, NULL,
     zkc_latch_set_listener(NULL, NULL, NULL, NULL));
  RC(HELD, "zkc_latch_set_listener", "after start", ZKC_EBUSY, NULL,
     zkc_latch_set_listener(l, NULL, NULL, NULL));
  RC(FRESH, "zkc_latch_start", "NULL", ZKC_EINVAL, NULL, zkc_latch_start(NULL));
  RC(HELD, "zkc_latch_start", "started twice", ZKC_EBUSY, NULL, zkc_latch_start(l));
  RC(FRESH, "zkc_latch_start", "after zkc_latch_close", ZKC_EBUSY, NULL,
     latch_start_closed(c));
  RC(CALLBACK, "zkc_latch_start", "started", ZKC_EDEADLK, NULL, zkc_latch_start(l));
  VAL(FRESH, "zkc_latch_close", "NULL", ZKC_OK, "`ZKC_OK`",
      zkc_latch_close(NULL, ZKC_CLOSE_SILENT));
  RC(FRESH, "zkc_latch_close", "mode not a zkc_close_mode_t", ZKC_EINVAL, NULL,
     zkc_latch_close(l, (zkc_close_mode_t)7));
  RC(CALLBACK, "zkc_latch_close", "leading", ZKC_EDEADLK,
     "still leader", still_leading(l, zkc_latch_close(l, ZKC_CLOSE_SILENT)));
  RC(CLOSED, "zkc_latch_close", "started, client closed under it", ZKC_OK,
     "the latch's thread ends", zkc_latch_close(l, ZKC_CLOSE_SILENT));
  VAL(FRESH, "zkc_latch_destroy", "NULL", ZKC_OK, "`ZKC_OK`", zkc_latch_destroy(NULL));
  RC(CALLBACK, "zkc_latch_destroy", "leading", ZKC_EDEADLK, "nothing freed",
     still_leading(l, zkc_latch_destroy(l)));
  UB(FRESH, "zkc_latch_destroy", "while another thread uses the latch, twice, or "
     "any use after destroy", "undefined behaviour");
  VAL(FRESH, "zkc_latch_has_leadership", "NULL", 0, "0",
      zkc_latch_has_leadership(NULL));
  VAL(CLOSED, "zkc_latch_has_leadership", "closed", 0, "0",
      zkc_latch_has_leadership(l));
  RC(FRESH, "zkc_latch_error", "NULL", ZKC_EINVAL, NULL, zkc_latch_error(NULL));
  RC(FRESH, "zkc_latch_error", "never started", ZKC_OK, "no error", zkc_latch_error(l));
  RC(CLOSED, "zkc_latch_error", "closed", ZKC_OK, "no error", zkc_latch_error(l));
  RC(FRESH, "zkc_latch_await", "NULL", ZKC_EINVAL, NULL, zkc_latch_await(NULL, 0));
  RC(FRESH, "zkc_latch_await", "never started", ZKC_EINVAL, NULL,
     zkc_latch_await(l, 0));
  RC(CALLBACK, "zkc_latch_await", "leading", ZKC_EDEADLK, NULL,
     zkc_latch_await(l, 0));
  RC(CLOSED, "zkc_latch_await", "closed", ZKC_ECLOSED, NULL, zkc_latch_await(l, 0));
  VAL(FRESH, "zkc_latch_id", "NULL", 1, "NULL", zkc_latch_id(NULL) == NULL);
  VAL(FRESH, "zkc_latch_path", "NULL", 1, "NULL", zkc_latch_path(NULL) == NULL);
  RC(FRESH, "zkc_latch_stats", "latch or out NULL", ZKC_EINVAL, NULL,
     zkc_latch_stats(l, NULL));
  RC(CALLBACK, "zkc_latch_stats", "valid", ZKC_OK, NULL,
     zkc_latch_stats(l, &lstats));
  RC(FRESH, "zkc_latch_leader_id", "latch or id NULL", ZKC_EINVAL, NULL,
     zkc_latch_leader_id(NULL, &id));
  RC(CALLBACK, "zkc_latch_leader_id", "valid", ZKC_EDEADLK, NULL,
     zkc_latch_leader_id(l, &id));
  RC(CLOSED, "zkc_latch_leader_id", "closed client", ZKC_ECLOSED, NULL,
     zkc_latch_leader_id(l, &id));
  RC(FRESH, "zkc_latch_participant_list", "latch or out NULL", ZKC_EINVAL,
     "*out NULL", zkc_latch_participant_list(NULL, &lst));
  RC(CALLBACK, "zkc_latch_participant_list", "valid", ZKC_EDEADLK, NULL,
     zkc_latch_participant_list(l, &lst));
  RC(CLOSED, "zkc_latch_participant_list", "closed client", ZKC_ECLOSED, NULL,
     zkc_latch_participant_list(l, &lst));
  VAL(FRESH, "zkc_latch_hold", "NULL", 1, "NULL", zkc_latch_hold(NULL) == NULL);
  RC(FRESH, "zkc_latch_hold", "not leader (its calls)", ZKC_ENOTOWNER,
     "nothing changes", zkc_hold_fenced_set(zkc_latch_hold(l), "/x", "d", 1));

  /* ---- observer ---- */
  doc_section(w, "observer");
  RC(FRESH, "zkc_observer_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_observer_create(NULL, c, "/x", ZKC_OBSERVE_ELECTION));
  RC(FRESH, "zkc_observer_create", "client NULL", ZKC_EINVAL, "*out = NULL",
     made_ob(zkc_observer_create(prep_ob(&oob), NULL, "/x", ZKC_OBSERVE_ELECTION), &oob));
  RC(FRESH, "zkc_observer_create", "path NULL", ZKC_EINVAL, NULL,
     made_ob(zkc_observer_create(prep_ob(&oob), c, NULL, ZKC_OBSERVE_ELECTION), &oob));
  RC(FRESH, "zkc_observer_create", "path invalid (as zkc_mutex_create)", ZKC_EINVAL,
     NULL, made_ob(zkc_observer_create(prep_ob(&oob), c, "/a//b", ZKC_OBSERVE_LOCK), &oob));
  RC(FRESH, "zkc_observer_create", "path of 1025 bytes", ZKC_EINVAL, NULL,
     made_ob(zkc_observer_create(prep_ob(&oob), c, LONG, ZKC_OBSERVE_LOCK), &oob));
  RC(FRESH, "zkc_observer_create", "kind not a zkc_observe_kind_t", ZKC_EINVAL,
     NULL, made_ob(zkc_observer_create(prep_ob(&oob), c, "/x", (zkc_observe_kind_t)7),
                   &oob));
  RC(CLOSED, "zkc_observer_create", "closed client", ZKC_ECLOSED, NULL,
     made_ob(zkc_observer_create(prep_ob(&oob), c, "/x", ZKC_OBSERVE_ELECTION), &oob));
  RC(FRESH, "zkc_observer_set_callback", "observer NULL", ZKC_EINVAL, NULL,
     zkc_observer_set_callback(NULL, NULL, NULL));
  RC(FRESH, "zkc_observer_start", "NULL", ZKC_EINVAL, NULL, zkc_observer_start(NULL));
  RC(CLOSED, "zkc_observer_start", "closed client", ZKC_ECLOSED, NULL,
     zkc_observer_start(ob));
  RC(FRESH, "zkc_observer_next", "observer or out NULL", ZKC_EINVAL, NULL,
     zkc_observer_next(NULL, 0, &oev));
  RC(FRESH, "zkc_observer_next", "never started", ZKC_EINVAL, "*out = NULL",
     made_ev(zkc_observer_next(ob, 0, prep_ev(&oev)), &oev));
  RC(CALLBACK, "zkc_observer_next", "valid", ZKC_EDEADLK, NULL,
     made_ev(zkc_observer_next(ob, 0, prep_ev(&oev)), &oev));
  VOID(FRESH, "zkc_observation_free", "NULL", "no-op", zkc_observation_free(NULL));
  VAL(FRESH, "zkc_observer_path", "NULL", 1, "NULL", zkc_observer_path(NULL) == NULL);
  VAL(FRESH, "zkc_observer_close", "NULL", ZKC_OK, "`ZKC_OK`", zkc_observer_close(NULL));
  RC(CALLBACK, "zkc_observer_close", "valid", ZKC_EDEADLK, "nothing changes",
     zkc_observer_close(ob));
  VAL(FRESH, "zkc_observer_destroy", "NULL", ZKC_OK, "`ZKC_OK`",
      zkc_observer_destroy(NULL));
  RC(CALLBACK, "zkc_observer_destroy", "valid", ZKC_EDEADLK, "nothing freed",
     zkc_observer_destroy(ob));
  UB(FRESH, "zkc_observer_destroy", "while another thread uses the observer, "
     "twice, or any use after destroy", "undefined behaviour");

  /* ---- selector ---- */
  doc_section(w, "selector");
  VOID(FRESH, "zkc_selector_opts_init", "NULL", "no-op", zkc_selector_opts_init(NULL));
  RC(FRESH, "zkc_selector_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_selector_create(NULL, c, "/x", lead, NULL, NULL));
  RC(FRESH, "zkc_selector_opts_init_size", "opts NULL", ZKC_EINVAL, NULL,
     zkc_selector_opts_init_size(NULL, sizeof(zkc_selector_opts_t)));
  RC(FRESH, "zkc_selector_opts_init_size",
     "size below sizeof(zkc_selector_opts_t)", ZKC_EINVAL, "nothing written",
     zkc_selector_opts_init_size(&selector_big.o, sizeof selector_big.o - 1));
  RC(FRESH, "zkc_selector_create_size", "opts_size below the struct's",
     ZKC_EINVAL, "*out = NULL",
     made_s(zkc_selector_create_size(prep_s(&os), c, "/x", lead, NULL,
                                     selector_opts_sized(), 4), &os));
  RC(FRESH, "zkc_selector_create_size", "a byte beyond the struct this library "
     "knows set", ZKC_EINVAL, "*out = NULL",
     made_s(zkc_selector_create_size(prep_s(&os), c, "/x", lead, NULL,
                                     selector_opts_beyond(), sizeof selector_big),
            &os));
  RC(FRESH, "zkc_selector_create", "client NULL", ZKC_EINVAL, "*out = NULL",
     made_s(zkc_selector_create(prep_s(&os), NULL, "/x", lead, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_create", "take_leadership NULL", ZKC_EINVAL, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, "/x", NULL, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_create", "path NULL", ZKC_EINVAL, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, NULL, lead, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_create", "path invalid (as zkc_mutex_create)",
     ZKC_EINVAL, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, "/a/./b", lead, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_create", "path of 1025 bytes", ZKC_EINVAL, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, LONG, lead, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_create", "path with a control byte", ZKC_EINVAL, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, "/a\n", lead, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_create", "path not UTF-8", ZKC_EINVAL, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, "/\xe2\x28\xa1", lead, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_create", "opts->id over 1020 KiB", ZKC_EINVAL, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, "/x", lead, NULL, sel_opts_id(fx.big)), &os));
  RC(CLOSED, "zkc_selector_create", "closed client", ZKC_ECLOSED, NULL,
     made_s(zkc_selector_create(prep_s(&os), c, "/x", lead, NULL, NULL), &os));
  RC(FRESH, "zkc_selector_start", "NULL", ZKC_EINVAL, NULL, zkc_selector_start(NULL));
  RC(HELD, "zkc_selector_start", "started twice", ZKC_EBUSY, NULL,
     zkc_selector_start(s));
  RC(FRESH, "zkc_selector_start", "after zkc_selector_close", ZKC_EBUSY, NULL,
     selector_after_close(c, 0));
  RC(CALLBACK, "zkc_selector_start", "started", ZKC_EDEADLK, NULL,
     zkc_selector_start(s));
  RC(FRESH, "zkc_selector_requeue", "NULL", ZKC_EINVAL, NULL,
     zkc_selector_requeue(NULL));
  RC(FRESH, "zkc_selector_requeue", "never started", ZKC_EINVAL, NULL,
     zkc_selector_requeue(s));
  RC(HELD, "zkc_selector_requeue", "leading", ZKC_EBUSY, NULL,
     zkc_selector_requeue(s));
  RC(FRESH, "zkc_selector_requeue", "after zkc_selector_close", ZKC_ECLOSED, NULL,
     selector_after_close(c, 1));
  VAL(FRESH, "zkc_selector_close", "NULL", ZKC_OK, "`ZKC_OK`", zkc_selector_close(NULL));
  RC(CALLBACK, "zkc_selector_close", "leading", ZKC_EDEADLK, "nothing changes",
     zkc_selector_close(s));
  RC(CLOSED, "zkc_selector_close", "leading, client closed under it", ZKC_OK,
     "take_leadership is told to stop; the thread ends", zkc_selector_close(s));
  VAL(FRESH, "zkc_selector_destroy", "NULL", ZKC_OK, "`ZKC_OK`",
      zkc_selector_destroy(NULL));
  RC(CALLBACK, "zkc_selector_destroy", "leading", ZKC_EDEADLK, "nothing freed",
     zkc_selector_destroy(s));
  UB(FRESH, "zkc_selector_destroy", "while another thread uses the selector, "
     "twice, or any use after destroy", "undefined behaviour");
  VAL(FRESH, "zkc_selector_has_leadership", "NULL", 0, "0",
      zkc_selector_has_leadership(NULL));
  VAL(CLOSED, "zkc_selector_has_leadership", "closed", 0, "0",
      zkc_selector_has_leadership(s));
  RC(FRESH, "zkc_selector_error", "NULL", ZKC_EINVAL, NULL,
     zkc_selector_error(NULL));
  RC(FRESH, "zkc_selector_error", "never started", ZKC_OK, "no error",
     zkc_selector_error(s));
  RC(CLOSED, "zkc_selector_error", "closed", ZKC_OK, "no error",
     zkc_selector_error(s));
  VAL(FRESH, "zkc_selector_should_stop", "NULL", 1, "1",
      zkc_selector_should_stop(NULL));
  VAL(CLOSED, "zkc_selector_should_stop", "closed", 1, "1",
      zkc_selector_should_stop(s));
  VAL(FRESH, "zkc_selector_id", "NULL", 1, "NULL", zkc_selector_id(NULL) == NULL);
  VAL(FRESH, "zkc_selector_path", "NULL", 1, "NULL", zkc_selector_path(NULL) == NULL);
  RC(FRESH, "zkc_selector_stats", "selector or out NULL", ZKC_EINVAL, NULL,
     zkc_selector_stats(NULL, &lstats));
  RC(CALLBACK, "zkc_selector_stats", "valid", ZKC_OK, NULL,
     zkc_selector_stats(s, &lstats));
  RC(FRESH, "zkc_selector_participant_list", "selector or out NULL", ZKC_EINVAL,
     "*out NULL", zkc_selector_participant_list(NULL, &lst));
  RC(CALLBACK, "zkc_selector_participant_list", "valid", ZKC_EDEADLK, NULL,
     zkc_selector_participant_list(s, &lst));
  RC(CLOSED, "zkc_selector_participant_list", "closed client", ZKC_ECLOSED, NULL,
     zkc_selector_participant_list(s, &lst));
  RC(FRESH, "zkc_selector_leader_id", "selector or id NULL", ZKC_EINVAL, NULL,
     zkc_selector_leader_id(s, NULL));
  RC(CALLBACK, "zkc_selector_leader_id", "valid", ZKC_EDEADLK, NULL,
     zkc_selector_leader_id(s, &id));
  VAL(FRESH, "zkc_selector_hold", "NULL", 1, "NULL",
      zkc_selector_hold(NULL) == NULL);
  RC(FRESH, "zkc_selector_hold", "not leader (its calls)", ZKC_ENOTOWNER,
     "nothing changes", zkc_hold_fencing_token(zkc_selector_hold(s), &i64));
  /* ---- async ---- */
  doc_section(w, "async");
  VOID(FRESH, "zkc_async_opts_init", "NULL", "no-op", zkc_async_opts_init(NULL));
  RC(FRESH, "zkc_async_opts_init_size", "opts NULL", ZKC_EINVAL, NULL,
     zkc_async_opts_init_size(NULL, sizeof(zkc_async_opts_t)));
  RC(FRESH, "zkc_async_opts_init_size", "size below sizeof(zkc_async_opts_t)",
     ZKC_EINVAL, "nothing written",
     zkc_async_opts_init_size(&async_big.o, sizeof async_big.o - 1));
  RC(FRESH, "zkc_async_create_size", "opts_size below the struct's", ZKC_EINVAL,
     "*out = NULL", made_as(zkc_async_create_size(prep_as(&oas), c,
                                                  async_opts_sized(), 4), &oas));
  RC(FRESH, "zkc_async_create_size", "a byte beyond the struct this library "
     "knows set", ZKC_EINVAL, "*out = NULL",
     made_as(zkc_async_create_size(prep_as(&oas), c, async_opts_beyond(),
                                   sizeof async_big), &oas));
  RC(FRESH, "zkc_async_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_async_create(NULL, c, NULL));
  RC(FRESH, "zkc_async_create", "client NULL", ZKC_EINVAL, "*out = NULL",
     made_as(zkc_async_create(prep_as(&oas), NULL, NULL), &oas));
  RC(FRESH, "zkc_async_create", "unknown delivery (7)", ZKC_EINVAL, NULL,
     made_as(zkc_async_create(prep_as(&oas), c, async_opts(7)), &oas));
  RC(FRESH, "zkc_async_create", "opts NULL", ZKC_OK,
     "library-thread delivery; no traffic until an acquire",
     made_as(zkc_async_create(prep_as(&oas), c, NULL), &oas));
  RC(CLOSED, "zkc_async_create", "closed client", ZKC_ECLOSED, NULL,
     made_as(zkc_async_create(prep_as(&oas), c, NULL), &oas));
  VAL(FRESH, "zkc_async_destroy", "NULL", ZKC_OK, "`ZKC_OK`",
      zkc_async_destroy(NULL));
  RC(HELD, "zkc_async_destroy", "a hold of it not freed", ZKC_EBUSY,
     "nothing changes", zkc_async_destroy(as));
  RC(CALLBACK, "zkc_async_destroy", "from a callback", ZKC_EDEADLK,
     "nothing changes", zkc_async_destroy(asd));
  UB(FRESH, "zkc_async_destroy", "twice, or any use after destroy",
     "undefined behaviour");
  RC(FRESH, "zkc_async_acquire", "async NULL", ZKC_EINVAL, "done never runs",
     zkc_async_acquire(NULL, "/x", -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire", "done NULL", ZKC_EINVAL, NULL,
     zkc_async_acquire(as, "/x", -1, NULL, NULL, &u64));
  RC(FRESH, "zkc_async_acquire", "path NULL", ZKC_EINVAL, "done never runs",
     zkc_async_acquire(as, NULL, -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire", "path invalid (as zkc_mutex_create)",
     ZKC_EINVAL, "done never runs",
     zkc_async_acquire(as, "/a/", -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire", "path of 1025 bytes", ZKC_EINVAL,
     "done never runs", zkc_async_acquire(as, LONG, -1, never_called, NULL, &u64));
  RC(CLOSED, "zkc_async_acquire", "closed client", ZKC_ECLOSED,
     "done never runs", zkc_async_acquire(as, "/x", -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_read", "async NULL", ZKC_EINVAL, "done never runs",
     zkc_async_acquire_read(NULL, "/x", -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_read", "done NULL", ZKC_EINVAL, NULL,
     zkc_async_acquire_read(as, "/x", -1, NULL, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_read", "path invalid (as zkc_rwlock_create)",
     ZKC_EINVAL, "done never runs",
     zkc_async_acquire_read(as, "/a/", -1, never_called, NULL, &u64));
  RC(CLOSED, "zkc_async_acquire_read", "closed client", ZKC_ECLOSED,
     "done never runs", zkc_async_acquire_read(as, "/x", -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_write", "async NULL", ZKC_EINVAL, "done never runs",
     zkc_async_acquire_write(NULL, "/x", -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_write", "done NULL", ZKC_EINVAL, NULL,
     zkc_async_acquire_write(as, "/x", -1, NULL, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_write", "path invalid (as zkc_rwlock_create)",
     ZKC_EINVAL, "done never runs",
     zkc_async_acquire_write(as, "/a/", -1, never_called, NULL, &u64));
  RC(CLOSED, "zkc_async_acquire_write", "closed client", ZKC_ECLOSED,
     "done never runs", zkc_async_acquire_write(as, "/x", -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_leases", "async NULL", ZKC_EINVAL,
     "done never runs",
     zkc_async_acquire_leases(NULL, sm, 1, -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_leases", "sem NULL", ZKC_EINVAL,
     "done never runs",
     zkc_async_acquire_leases(as, NULL, 1, -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_leases", "done NULL", ZKC_EINVAL, NULL,
     zkc_async_acquire_leases(as, sm, 1, -1, NULL, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_leases", "qty 0", ZKC_EINVAL, "done never runs",
     zkc_async_acquire_leases(as, sm, 0, -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_acquire_leases", "qty above the fixed limit",
     ZKC_EINVAL, "it could never be granted; nothing is made",
     zkc_async_acquire_leases(as, sm, 2, -1, never_called, NULL, &u64));
  RC(HELD, "zkc_async_acquire_leases",
     "while this semaphore object holds the only lease", ZKC_EDEADLK,
     "at once, done never runs, nothing made (as zkc_sem_acquire)",
     zkc_async_acquire_leases(as, sm, 1, -1, never_called, NULL, &u64));
  RC(CLOSED, "zkc_async_acquire_leases", "closed client", ZKC_ECLOSED,
     "done never runs",
     zkc_async_acquire_leases(as, sm, 1, -1, never_called, NULL, &u64));
  RC(FRESH, "zkc_async_cancel", "async NULL", ZKC_EINVAL, NULL,
     zkc_async_cancel(NULL, 1));
  RC(FRESH, "zkc_async_cancel", "id 0", ZKC_EINVAL, NULL,
     zkc_async_cancel(as, 0));
  RC(FRESH, "zkc_async_cancel", "an id never given out", ZKC_EINVAL, NULL,
     zkc_async_cancel(as, 1000000));
  RC(HELD, "zkc_async_cancel", "an acquire that completed", ZKC_EALREADY,
     "the hold stays", zkc_async_cancel(as, fx.hold_id));
  RC(FRESH, "zkc_async_fd", "async NULL", ZKC_EINVAL, NULL,
     zkc_async_fd(NULL, &fd));
  RC(FRESH, "zkc_async_fd", "fd NULL", ZKC_EINVAL, NULL, zkc_async_fd(asd, NULL));
  RC(FRESH, "zkc_async_fd", "library-thread delivery", ZKC_EINVAL, NULL,
     zkc_async_fd(as, &fd));
  RC(FRESH, "zkc_async_stats", "async or out NULL", ZKC_EINVAL, NULL,
     zkc_async_stats(NULL, "/x", &lstats));
  RC(FRESH, "zkc_async_stats", "invalid path", ZKC_EINVAL, NULL,
     zkc_async_stats(as, "x/", &lstats));
  RC(FRESH, "zkc_async_stats", "no acquire on the path yet", ZKC_OK,
     "all zero", zkc_async_stats(as, "/never/asked", &lstats));
  RC(CALLBACK, "zkc_async_stats", "valid", ZKC_OK, NULL,
     zkc_async_stats(as, "/never/asked", &lstats));
  RC(FRESH, "zkc_async_dispatch", "async NULL", ZKC_EINVAL, NULL,
     zkc_async_dispatch(NULL, &i32));
  RC(FRESH, "zkc_async_dispatch", "library-thread delivery", ZKC_EINVAL, NULL,
     zkc_async_dispatch(as, &i32));
  RC(FRESH, "zkc_async_dispatch", "nothing queued", ZKC_OK, "*ran = 0",
     zkc_async_dispatch(asd, &i32));
  RC(CALLBACK, "zkc_async_dispatch", "from a callback", ZKC_EDEADLK,
     "nothing runs", zkc_async_dispatch(asd, &i32));
  RC(FRESH, "zkc_hold_release", "async NULL", ZKC_EINVAL, NULL,
     zkc_hold_release(NULL, ho, NULL, NULL));
  RC(FRESH, "zkc_hold_release", "hold NULL", ZKC_EINVAL, NULL,
     zkc_hold_release(as, NULL, NULL, NULL));
  RC(HELD, "zkc_hold_release", "a hold of another context", ZKC_ENOTOWNER,
     "nothing changes", zkc_hold_release(asd, ho, NULL, NULL));
  UB(FRESH, "zkc_hold_release", "a freed hold", "undefined behaviour");
  VAL(FRESH, "zkc_hold_free", "NULL", ZKC_OK, "`ZKC_OK`", zkc_hold_free(NULL));
  UB(FRESH, "zkc_hold_free", "twice, or any use after free",
     "undefined behaviour");
  RC(FRESH, "zkc_hold_fencing_token", "hold NULL", ZKC_EINVAL, NULL,
     zkc_hold_fencing_token(NULL, &i64));
  RC(HELD, "zkc_hold_fencing_token", "token NULL", ZKC_EINVAL, NULL,
     zkc_hold_fencing_token(ho, NULL));
  RC(FRESH, "zkc_hold_bind", "hold NULL", ZKC_EINVAL, "*out NULL",
     bind_refused(NULL));
  RC(HELD, "zkc_hold_bind", "out NULL", ZKC_EINVAL, NULL,
     zkc_hold_bind(ho, NULL));
  RC(HELD, "zkc_hold_release", "a bound hold (zkc_hold_bind)", ZKC_EINVAL,
     "nothing changes: the grant stays held", release_bound(as, ho));
  RC(FRESH, "zkc_hold_set_lost_callback", "hold NULL", ZKC_EINVAL, NULL,
     zkc_hold_set_lost_callback(NULL, hold_lost_fn, NULL));
  RC(HELD, "zkc_hold_set_lost_callback", "fn NULL", ZKC_OK,
     "the notice cleared", zkc_hold_set_lost_callback(ho, NULL, NULL));
  UB(FRESH, "zkc_hold_set_lost_callback", "a freed hold, or a view after "
     "its recipe object was destroyed", "undefined behaviour");
  RC(FRESH, "zkc_hold_node_list", "hold NULL", ZKC_EINVAL, "*out NULL",
     zkc_hold_node_list(NULL, &lst));
  RC(HELD, "zkc_hold_node_list", "out NULL", ZKC_EINVAL, NULL,
     zkc_hold_node_list(ho, NULL));
  VAL(FRESH, "zkc_hold_is_held", "NULL", 0, "0", zkc_hold_is_held(NULL));
  RC(FRESH, "zkc_hold_fenced_create", "hold NULL", ZKC_EINVAL, NULL,
     zkc_hold_fenced_create(NULL, "/x", "d", 1));
  RC(HELD, "zkc_hold_fenced_create", "path invalid", ZKC_EINVAL, NULL,
     zkc_hold_fenced_create(ho, "x", "d", 1));
  RC(HELD, "zkc_hold_fenced_create", "data NULL, len 1", ZKC_EINVAL, NULL,
     zkc_hold_fenced_create(ho, "/x", NULL, 1));
  RC(HELD, "zkc_hold_fenced_create", "len over 1020 KiB", ZKC_EINVAL, NULL,
     zkc_hold_fenced_create(ho, "/x", fx.big, ((size_t)2 << 20) - 1));
  RC(CALLBACK, "zkc_hold_fenced_create", "from a callback", ZKC_EDEADLK, NULL,
     zkc_hold_fenced_create(ho, "/x", "d", 1));
  RC(CLOSED, "zkc_hold_fenced_create", "closed client", ZKC_ECLOSED, NULL,
     zkc_hold_fenced_create(ho, "/x", "d", 1));
  RC(FRESH, "zkc_hold_fenced_set", "hold NULL", ZKC_EINVAL, NULL,
     zkc_hold_fenced_set(NULL, "/x", "d", 1));
  RC(HELD, "zkc_hold_fenced_set", "path invalid", ZKC_EINVAL, NULL,
     zkc_hold_fenced_set(ho, "x", "d", 1));
  RC(HELD, "zkc_hold_fenced_set", "data NULL, len 1", ZKC_EINVAL, NULL,
     zkc_hold_fenced_set(ho, "/x", NULL, 1));
  RC(HELD, "zkc_hold_fenced_set", "len over 1020 KiB", ZKC_EINVAL, NULL,
     zkc_hold_fenced_set(ho, "/x", fx.big, ((size_t)2 << 20) - 1));
  RC(CALLBACK, "zkc_hold_fenced_set", "from a callback", ZKC_EDEADLK, NULL,
     zkc_hold_fenced_set(ho, "/x", "d", 1));
  RC(CLOSED, "zkc_hold_fenced_set", "closed client", ZKC_ECLOSED, NULL,
     zkc_hold_fenced_set(ho, "/x", "d", 1));
  RC(HELD, "zkc_hold_fenced_set", "a read side's hold (zkc_mutex_hold)",
     ZKC_EINVAL, "nothing written",
     zkc_hold_fenced_set(zkc_mutex_hold(zkc_rwlock_read_side(rw)), "/x", "d", 1));
  RC(HELD, "zkc_hold_release", "a recipe's view (zkc_mutex_hold)", ZKC_EINVAL,
     "nothing changes: still held", zkc_hold_release(as, zkc_mutex_hold(m),
                                                     NULL, NULL));
  RC(HELD, "zkc_hold_free", "a recipe's view (zkc_latch_hold)", ZKC_EINVAL,
     "nothing changes: still leads", zkc_hold_free(zkc_latch_hold(l)));
  UB(FRESH, "zkc_hold_node_list", "a view used after its recipe object was "
     "destroyed", "undefined behaviour");
  RC(FRESH, "zkc_hold_fenced_cas", "hold NULL", ZKC_EINVAL, NULL,
     zkc_hold_fenced_cas(NULL, "/x", "d", 1, 0, NULL));
  RC(HELD, "zkc_hold_fenced_cas", "version below 0", ZKC_EINVAL,
     "nothing written", zkc_hold_fenced_cas(ho, "/x", "d", 1, -1, NULL));
  RC(HELD, "zkc_hold_fenced_cas", "path invalid", ZKC_EINVAL, NULL,
     zkc_hold_fenced_cas(ho, "x", "d", 1, 0, NULL));
  RC(HELD, "zkc_hold_fenced_cas", "data NULL, len 1", ZKC_EINVAL, NULL,
     zkc_hold_fenced_cas(ho, "/x", NULL, 1, 0, NULL));
  RC(HELD, "zkc_hold_fenced_cas", "a read side's hold (zkc_mutex_hold)",
     ZKC_EINVAL, "nothing written",
     zkc_hold_fenced_cas(zkc_mutex_hold(zkc_rwlock_read_side(rw)), "/x", "d",
                         1, 0, NULL));
  RC(FRESH, "zkc_hold_fenced_cas", "a view with nothing granted",
     ZKC_ENOTOWNER, "nothing written",
     zkc_hold_fenced_cas(zkc_selector_hold(s), "/x", "d", 1, 0, NULL));
  RC(CALLBACK, "zkc_hold_fenced_cas", "from a callback", ZKC_EDEADLK, NULL,
     zkc_hold_fenced_cas(ho, "/x", "d", 1, 0, NULL));
  RC(CLOSED, "zkc_hold_fenced_cas", "closed client", ZKC_ECLOSED, NULL,
     zkc_hold_fenced_cas(ho, "/x", "d", 1, 0, NULL));
  RC(FRESH, "zkc_hold_fenced_get", "hold NULL", ZKC_EINVAL, "*data NULL",
     zkc_hold_fenced_get(NULL, "/x", prep_text(&text), &n, &count32));
  RC(HELD, "zkc_hold_fenced_get", "data, len or version NULL", ZKC_EINVAL, NULL,
     zkc_hold_fenced_get(ho, "/x", NULL, &n, &count32));
  RC(HELD, "zkc_hold_fenced_get", "path invalid", ZKC_EINVAL, NULL,
     zkc_hold_fenced_get(ho, "x", &text, &n, &count32));
  RC(FRESH, "zkc_hold_fenced_get", "a view with nothing granted",
     ZKC_ENOTOWNER, "*data NULL",
     zkc_hold_fenced_get(zkc_latch_hold(l), "/x", prep_text(&text), &n,
                         &count32));
  RC(CALLBACK, "zkc_hold_fenced_get", "from a callback", ZKC_EDEADLK, NULL,
     zkc_hold_fenced_get(ho, "/x", &text, &n, &count32));
  RC(CLOSED, "zkc_hold_fenced_get", "closed client", ZKC_ECLOSED, NULL,
     zkc_hold_fenced_get(ho, "/x", &text, &n, &count32));

  /* ---- semaphore ---- */
  doc_section(w, "sem");
  VOID(FRESH, "zkc_sem_opts_init", "NULL", "no-op", zkc_sem_opts_init(NULL));
  RC(FRESH, "zkc_sem_opts_init_size", "opts NULL", ZKC_EINVAL, NULL,
     zkc_sem_opts_init_size(NULL, sizeof(zkc_sem_opts_t)));
  RC(FRESH, "zkc_sem_opts_init_size", "size below sizeof(zkc_sem_opts_t)",
     ZKC_EINVAL, "nothing written",
     zkc_sem_opts_init_size(&sem_big.o, sizeof sem_big.o - 1));
  RC(FRESH, "zkc_sem_create_size", "opts_size below the struct's", ZKC_EINVAL,
     "*out = NULL", made_sm(zkc_sem_create_size(prep_sm(&osm), c, "/x",
                                                sem_opts_sized(), 4), &osm));
  RC(FRESH, "zkc_sem_create_size", "a byte beyond the struct this library "
     "knows set", ZKC_EINVAL, "*out = NULL",
     made_sm(zkc_sem_create_size(prep_sm(&osm), c, "/x", sem_opts_beyond(),
                                 sizeof sem_big), &osm));
  RC(FRESH, "zkc_sem_create", "out NULL", ZKC_EINVAL, NULL,
     zkc_sem_create(NULL, c, "/x", NULL));
  RC(FRESH, "zkc_sem_create", "client NULL", ZKC_EINVAL, "*out = NULL",
     made_sm(zkc_sem_create(prep_sm(&osm), NULL, "/x", NULL), &osm));
  RC(FRESH, "zkc_sem_create", "path NULL", ZKC_EINVAL, NULL,
     made_sm(zkc_sem_create(prep_sm(&osm), c, NULL, NULL), &osm));
  RC(FRESH, "zkc_sem_create", "path invalid (as zkc_mutex_create)", ZKC_EINVAL,
     NULL, made_sm(zkc_sem_create(prep_sm(&osm), c, "/a/", NULL), &osm));
  RC(FRESH, "zkc_sem_create", "path of 1025 bytes", ZKC_EINVAL, NULL,
     made_sm(zkc_sem_create(prep_sm(&osm), c, LONG, NULL), &osm));
  RC(FRESH, "zkc_sem_create", "max_leases < 1", ZKC_EINVAL, NULL,
     made_sm(zkc_sem_create(prep_sm(&osm), c, "/x", sem_opts(0, NULL)), &osm));
  RC(FRESH, "zkc_sem_create", "count_path invalid", ZKC_EINVAL, NULL,
     made_sm(zkc_sem_create(prep_sm(&osm), c, "/x", sem_opts(1, "x")), &osm));
  RC(FRESH, "zkc_sem_create", "opts NULL", ZKC_OK, "the defaults: a limit of 1",
     made_sm(zkc_sem_create(prep_sm(&osm), c, "/x", NULL), &osm));
  RC(CLOSED, "zkc_sem_create", "closed client", ZKC_ECLOSED, NULL,
     made_sm(zkc_sem_create(prep_sm(&osm), c, "/x", NULL), &osm));
  VAL(FRESH, "zkc_sem_destroy", "NULL", ZKC_OK, "`ZKC_OK`", zkc_sem_destroy(NULL));
  RC(HELD, "zkc_sem_destroy", "a lease held", ZKC_EBUSY, "nothing changes",
     zkc_sem_destroy(sm));
  UB(FRESH, "zkc_sem_destroy", "twice, or any use after destroy",
     "undefined behaviour");
  RC(FRESH, "zkc_sem_acquire", "sem NULL", ZKC_EINVAL, NULL,
     zkc_sem_acquire(NULL, 1, 0, &ole));
  RC(FRESH, "zkc_sem_acquire", "out NULL", ZKC_EINVAL, NULL,
     zkc_sem_acquire(sm, 1, 0, NULL));
  RC(FRESH, "zkc_sem_acquire", "qty 0", ZKC_EINVAL, "*out = NULL",
     made_le(zkc_sem_acquire(sm, 0, 0, prep_le(&ole)), &ole));
  RC(FRESH, "zkc_sem_acquire", "qty above the fixed limit", ZKC_EINVAL,
     "it could never be granted; nothing is made",
     made_le(zkc_sem_acquire(sm, 2, -1, prep_le(&ole)), &ole));
  RC(HELD, "zkc_sem_acquire", "again, while this object holds the only lease",
     ZKC_EDEADLK, "at once, nothing made: not reentrant, and waiting would "
     "stall the path", made_le(zkc_sem_acquire(sm, 1, -1, prep_le(&ole)), &ole));
  RC(OTHER, "zkc_sem_acquire", "the object's lease held by another thread",
     ZKC_EDEADLK, "leases belong to the object, not the thread",
     made_le(zkc_sem_acquire(sm, 1, -1, prep_le(&ole)), &ole));
  RC(CALLBACK, "zkc_sem_acquire", "timeout 0", ZKC_EDEADLK, NULL,
     made_le(zkc_sem_acquire(sm, 1, 0, prep_le(&ole)), &ole));
  RC(CLOSED, "zkc_sem_acquire", "closed client", ZKC_ECLOSED, NULL,
     made_le(zkc_sem_acquire(sm, 1, 0, prep_le(&ole)), &ole));
  RC(FRESH, "zkc_sem_set_lost_callback", "sem NULL", ZKC_EINVAL, NULL,
     zkc_sem_set_lost_callback(NULL, NULL, NULL));
  VAL(FRESH, "zkc_sem_path", "NULL", 1, "NULL", zkc_sem_path(NULL) == NULL);
  RC(FRESH, "zkc_sem_stats", "sem or out NULL", ZKC_EINVAL, NULL,
     zkc_sem_stats(NULL, &lstats));
  RC(HELD, "zkc_sem_stats", "valid", ZKC_OK, NULL, zkc_sem_stats(sm, &lstats));
  RC(FRESH, "zkc_lease_release", "NULL", ZKC_EINVAL, NULL, zkc_lease_release(NULL));
  RC(CALLBACK, "zkc_lease_release", "a held lease", ZKC_EDEADLK, "nothing changes",
     zkc_lease_release(ls));
  RC(CLOSED, "zkc_lease_release", "held when the client closed", ZKC_ECLOSED,
     "released; the nodes went with the session", zkc_lease_release(ls));
  RC(CLOSED, "zkc_lease_release", "again (released already)", ZKC_ENOTOWNER,
     "nothing changes", zkc_lease_release(ls));
  VAL(FRESH, "zkc_lease_free", "NULL", ZKC_OK, "`ZKC_OK`", zkc_lease_free(NULL));
  UB(FRESH, "zkc_lease_free", "twice, any use after free, or a use by another "
     "thread meanwhile", "undefined behaviour");
  VAL(FRESH, "zkc_lease_hold", "NULL", 1, "NULL", zkc_lease_hold(NULL) == NULL);
  RC(CLOSED, "zkc_lease_hold", "released (its calls)", ZKC_ENOTOWNER,
     "nothing changes", zkc_hold_fencing_token(zkc_lease_hold(ls), &i64));
  RC(CLOSED, "zkc_lease_hold", "released (its node list)", ZKC_ENOTOWNER,
     "*out NULL", zkc_hold_node_list(zkc_lease_hold(ls), &lst));
  RC(FRESH, "zkc_sem_contender_list", "client NULL", ZKC_EINVAL,
     "*leases and *queue NULL", zkc_sem_contender_list(NULL, "/x", &lst, &lst2));
  RC(FRESH, "zkc_sem_contender_list", "leases or queue NULL", ZKC_EINVAL, NULL,
     zkc_sem_contender_list(c, "/x", NULL, &lst2));
  RC(FRESH, "zkc_sem_contender_list", "path invalid (as zkc_sem_create)",
     ZKC_EINVAL, NULL, zkc_sem_contender_list(c, "x", &lst, &lst2));
  RC(CALLBACK, "zkc_sem_contender_list", "valid", ZKC_EDEADLK, NULL,
     zkc_sem_contender_list(c, "/x", &lst, &lst2));
  RC(CLOSED, "zkc_sem_contender_list", "closed client", ZKC_ECLOSED, NULL,
     zkc_sem_contender_list(c, "/x", &lst, &lst2));
  RC(FRESH, "zkc_shared_count_get", "client NULL", ZKC_EINVAL, NULL,
     zkc_shared_count_get(NULL, "/x", &count32));
  RC(FRESH, "zkc_shared_count_get", "value NULL", ZKC_EINVAL, NULL,
     zkc_shared_count_get(c, "/x", NULL));
  RC(FRESH, "zkc_shared_count_get", "path invalid (as zkc_mutex_create)",
     ZKC_EINVAL, NULL, zkc_shared_count_get(c, "/a/", &count32));
  RC(CALLBACK, "zkc_shared_count_get", "any path", ZKC_EDEADLK, NULL,
     zkc_shared_count_get(c, "/x", &count32));
  RC(CLOSED, "zkc_shared_count_get", "closed client", ZKC_ECLOSED, NULL,
     zkc_shared_count_get(c, "/x", &count32));
  RC(FRESH, "zkc_shared_count_set", "client NULL", ZKC_EINVAL, NULL,
     zkc_shared_count_set(NULL, "/x", 3));
  RC(FRESH, "zkc_shared_count_set", "path invalid (as zkc_mutex_create)",
     ZKC_EINVAL, NULL, zkc_shared_count_set(c, "/a/", 3));
  RC(CALLBACK, "zkc_shared_count_set", "any path", ZKC_EDEADLK, NULL,
     zkc_shared_count_set(c, "/x", 3));
  RC(CLOSED, "zkc_shared_count_set", "closed client", ZKC_ECLOSED, NULL,
     zkc_shared_count_set(c, "/x", 3));
}

/* ---- fixture ---- */

static pthread_mutex_t lead_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lead_cv = PTHREAD_COND_INITIALIZER;
static atomic_int leading;

/* Leads until told to stop. */
static void lead(void *ctx, zkc_selector_t *sel) {
  (void)ctx;
  atomic_store(&leading, 1);
  pthread_mutex_lock(&lead_mu);
  while (!zkc_selector_should_stop(sel)) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 5 * 1000 * 1000;
    if (t.tv_nsec >= 1000000000) t.tv_sec++, t.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&lead_cv, &lead_mu, &t);
  }
  pthread_mutex_unlock(&lead_mu);
  atomic_store(&leading, 0);
}

static int is_leading(void *ctx) {
  (void)ctx;
  return atomic_load(&leading);
}

static void canary_open(void) {
  fx.canary_fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  socklen_t len = sizeof sa;
  if (fx.canary_fd < 0 || bind(fx.canary_fd, (struct sockaddr *)&sa, sizeof sa) ||
      listen(fx.canary_fd, 8) || getsockname(fx.canary_fd, (struct sockaddr *)&sa, &len))
    fail_msg("canary listener");
  snprintf(fx.canary, sizeof fx.canary, "127.0.0.1:%d", ntohs(sa.sin_port));
}

static void fixture_paths(void) {
  memset(fx.long_path, 'a', sizeof fx.long_path);
  fx.long_path[0] = '/';
  fx.long_path[ZKC__PATH_MAX + 1] = '\0';
  memcpy(fx.max_path, fx.long_path, ZKC__PATH_MAX);
  fx.max_path[ZKC__PATH_MAX] = '\0';
}

/* The server's last cxid for the client's session (-1: not found). */
static long long server_cxid(void) {
  int64_t sid;
  if (zkc_client_session_id(fx.c, &sid) != ZKC_OK) return -1;
  int server = zkt_session_server(sid);
  if (server == 0) return -1;
  char *out = zkt_4lw(server, "cons");
  char want[40];
  snprintf(want, sizeof want, "sid=0x%llx,", (unsigned long long)sid);
  char *at = out ? strstr(out, want) : NULL;
  char *cx = at ? strstr(at, "lcxid=0x") : NULL;
  long long v = cx ? strtoll(cx + 8, NULL, 16) : -1;
  free(out);
  return v;
}

/* The server's last cxid of fx.c's connection, read while no renewal
 * probe (the client's own syncs, one every 0.3 session timeouts) is
 * unanswered and none was sent meanwhile; *probes: how many were sent by
 * then. Between two such reads, every cxid the server saw is a probe's or
 * a call's. */
static int no_probe_pending(void *ctx) {
  (void)ctx;
  return !zkc__probe_pending(fx.c);
}
static int floor_measured(void *ctx) {
  (void)ctx;
  return zkc__probes(fx.c) >= ZKC__RTT_FIRST;
}
static long long quiet_cxid(uint64_t *probes) {
  /* A new connection's first probes come 25 ms apart (renewal.h): past
   * them, one every 0.3 session timeouts. */
  assert_true(zkt_await(floor_measured, NULL, zkt_ms(5000)));
  for (;;) {
    uint64_t before = zkc__probes(fx.c);
    assert_true(zkt_await(no_probe_pending, NULL, zkt_ms(5000)));
    long long cxid = server_cxid();
    *probes = zkc__probes(fx.c);
    /* The server counts a request after it sent the answer: read again. */
    if (*probes == before && !zkc__probe_pending(fx.c) &&
        server_cxid() == cxid && zkc__probes(fx.c) == before)
      return cxid;
  }
}

/* No request but the probes went out since quiet_cxid gave cxid, probes. */
static void no_traffic_since(long long cxid, uint64_t probes) {
  uint64_t now_probes;
  long long now = quiet_cxid(&now_probes);
  assert_true(cxid >= 0);
  assert_int_equal(now - cxid, (long long)(now_probes - probes));
}

static void walk_state(walker_t *w, where_t where) {
  w->where = where;
  walk(w);
}

static void *other_thread(void *arg) {
  walk_state(arg, OTHER);
  return NULL;
}

static walker_t *cb_walker;
static atomic_int cb_done;
static void callback_log(void *ctx, zkc_log_level_t level, const char *msg) {
  (void)ctx, (void)level;
  /* zkcoord's "session 0x... connected" line comes from the session
   * watcher, on the ZooKeeper completion thread. */
  if (strncmp(msg, "session 0x", 10) != 0 || atomic_exchange(&cb_done, 1)) return;
  walk_state(cb_walker, CALLBACK);
  atomic_store(&cb_done, 2);
}
static int cb_finished(void *ctx) {
  (void)ctx;
  return atomic_load(&cb_done) == 2;
}

static void check(walker_t *w) {
  if (w->failure[0]) fail_msg("%s", w->failure);
}

static atomic_int hold_rc = 1;
static void took_hold(void *ctx, int rc, zkc_hold_t *hold) {
  (void)ctx;
  fx.hold = hold;
  atomic_store(&hold_rc, rc);
}
static int hold_taken(void *ctx) {
  (void)ctx;
  return atomic_load(&hold_rc) == ZKC_OK;
}

static void walk_group(const char *group) {
  walker_t w = {.mode = RUN, .group = group};
  fixture_paths();
  canary_open();
  fx.big = calloc(1, (size_t)2 << 20);
  memset(fx.big, 'x', ((size_t)2 << 20) - 1);
  fx.c = zkt_open(NULL);
  assert_int_equal(zkc_mutex_create(&fx.m, fx.c, zkt_path("lock")), ZKC_OK);
  assert_int_equal(zkc_latch_create(&fx.l, fx.c, zkt_path("latch"), NULL, NULL), ZKC_OK);
  assert_int_equal(zkc_selector_create(&fx.s, fx.c, zkt_path("sel"), lead, NULL, NULL),
                   ZKC_OK);
  assert_int_equal(zkc_sem_create(&fx.sem, fx.c, zkt_path("sem"), NULL), ZKC_OK);
  fx.lease = NULL;
  assert_int_equal(zkc_mutex_create(&fx.mla, fx.c, zkt_path("mla")), ZKC_OK);
  assert_int_equal(zkc_mutex_create(&fx.mla2, fx.c, zkt_path("mla")), ZKC_OK);
  assert_int_equal(zkc_mutex_create(&fx.mlb, fx.c, zkt_path("mlb")), ZKC_OK);
  assert_int_equal(zkc_mutex_create(&fx.mlc, fx.c, zkt_path("mlc")), ZKC_OK);
  zkc_mutex_t *half[2] = {fx.m, fx.mlc};
  fx.pair[0] = fx.mlb, fx.pair[1] = fx.mla;
  assert_int_equal(zkc_multilock_create(&fx.ml, fx.pair, 2), ZKC_OK);
  assert_int_equal(zkc_multilock_create(&fx.ml_half, half, 2), ZKC_OK);
  fx.with_null[0] = fx.mla, fx.with_null[1] = NULL;
  fx.same_lock[0] = fx.same_lock[1] = fx.mla;
  fx.same_path[0] = fx.mla, fx.same_path[1] = fx.mla2;
  assert_int_equal(zkc_async_create(&fx.a, fx.c, NULL), ZKC_OK);
  assert_int_equal(zkc_async_create(&fx.ad, fx.c, async_opts(ZKC_DELIVER_DISPATCH)),
                   ZKC_OK);
  fx.hold = NULL;
  assert_int_equal(zkc_rwlock_create(&fx.rw, fx.c, zkt_path("rw")), ZKC_OK);
  assert_int_equal(zkc_observer_create(&fx.ob, fx.c, zkt_path("observed"),
                                       ZKC_OBSERVE_ELECTION), ZKC_OK);

  uint64_t probes;
  long long cxid = quiet_cxid(&probes);
  assert_true(cxid >= 0);
  walk_state(&w, FRESH);
  check(&w);
  no_traffic_since(cxid, probes);

  assert_int_equal(zkc_mutex_acquire(fx.m), ZKC_OK);
  assert_int_equal(zkc_multilock_acquire(fx.ml), ZKC_OK);
  assert_int_equal(zkc_latch_start(fx.l), ZKC_OK);
  assert_int_equal(zkc_latch_await(fx.l, zkt_ms(10000)), ZKC_OK);
  assert_int_equal(zkc_selector_start(fx.s), ZKC_OK);
  assert_true(zkt_await(is_leading, NULL, zkt_ms(10000)));
  assert_int_equal(zkc_sem_acquire(fx.sem, 1, -1, &fx.lease), ZKC_OK);
  assert_int_equal(zkc_async_acquire(fx.a, zkt_path("alock"), -1, took_hold,
                                     NULL, &fx.hold_id), ZKC_OK);
  assert_true(zkt_await(hold_taken, NULL, zkt_ms(10000)));
  assert_int_equal(zkc_mutex_acquire(zkc_rwlock_read_side(fx.rw)), ZKC_OK);
  /* The eight holds' watches on their own nodes are set 100 ms after the
   * acquisitions, in the background: let them be set before the baseline. */
  assert_int_equal(zkt_await_session_watches(fx.c, 8, NULL, 0, zkt_ms(5000)), 8);
  cxid = quiet_cxid(&probes);
  walk_state(&w, HELD);
  check(&w);
  pthread_t t;
  pthread_create(&t, NULL, other_thread, &w);
  pthread_join(t, NULL);
  check(&w);
  /* A second client's session event runs the callback rows. */
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = callback_log;
  o.log_level = ZKC_LOG_INFO;
  cb_walker = &w;
  atomic_store(&cb_done, 0);
  zkc_client_t *c2 = zkt_open(&o);
  assert_true(zkt_await(cb_finished, NULL, zkt_ms(10000)));
  zkc_client_close(c2);
  check(&w);
  no_traffic_since(cxid, probes);
  /* Nothing changed: still held once, still leading. */
  assert_true(zkc_hold_is_held(zkc_mutex_hold(fx.m)));
  assert_true(zkc_hold_is_held(zkc_multilock_hold(fx.ml)));
  assert_true(zkc_latch_has_leadership(fx.l));
  assert_true(zkc_selector_has_leadership(fx.s));
  assert_int_equal(zkt_children_count(zkt_path("lock")), 1);

  zkc_client_close(fx.c); /* while held and leading */
  walk_state(&w, CLOSED);
  check(&w);
  zkc_mutex_release(fx.m); /* in case the group's rows did not */
  zkc_multilock_release(fx.ml);
  assert_int_equal(zkc_multilock_destroy(fx.ml), ZKC_OK);
  assert_int_equal(zkc_multilock_destroy(fx.ml_half), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(fx.mla), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(fx.mla2), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(fx.mlb), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(fx.mlc), ZKC_OK);
  zkc_mutex_release(zkc_rwlock_read_side(fx.rw));
  assert_int_equal(zkc_rwlock_destroy(fx.rw), ZKC_OK);
  assert_int_equal(zkc_observer_destroy(fx.ob), ZKC_OK);
  assert_int_equal(zkc_latch_destroy(fx.l), ZKC_OK);
  assert_int_equal(zkc_selector_destroy(fx.s), ZKC_OK);
  assert_int_equal(zkc_mutex_destroy(fx.m), ZKC_OK);
  zkc_lease_free(fx.lease); /* released by the sem rows, or here */
  assert_int_equal(zkc_hold_free(fx.hold), ZKC_OK);
  assert_int_equal(zkc_async_destroy(fx.a), ZKC_OK);
  assert_int_equal(zkc_async_destroy(fx.ad), ZKC_OK);
  assert_int_equal(zkc_sem_destroy(fx.sem), ZKC_OK);
  assert_true(w.rows > 0);
  printf("%s: %d rows walked\n", group, w.rows);
  free(fx.big);
  close(fx.canary_fd);
}

static void common(void **state) { (void)state, walk_group("common"); }
static void client(void **state) { (void)state, walk_group("client"); }
static void mutex(void **state) { (void)state, walk_group("mutex"); }
static void latch(void **state) { (void)state, walk_group("latch"); }
static void selector(void **state) { (void)state, walk_group("selector"); }
static void sem(void **state) { (void)state, walk_group("sem"); }
static void async(void **state) { (void)state, walk_group("async"); }
static void multilock(void **state) { (void)state, walk_group("multilock"); }
static void rwlock(void **state) { (void)state, walk_group("rwlock"); }
static void observer(void **state) { (void)state, walk_group("observer"); }

/* ---- the doc ---- */

static const char BEGIN[] = "<!-- misuse-table: begin (generated by test/integration/test_misuse.c) -->\n";
static const char END[] = "<!-- misuse-table: end -->\n";

static char *table_markdown(void) {
  char *text = NULL;
  size_t len = 0;
  walker_t w = {.mode = DOC, .doc = open_memstream(&text, &len)};
  fixture_paths();
  walk(&w);
  fclose(w.doc);
  return text;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return NULL;
  char *text = NULL;
  size_t cap = 0;
  ssize_t n = getdelim(&text, &cap, '\0', f);
  fclose(f);
  if (n < 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* Every ZKC_EXTERN function of the headers has a row: 0, else prints the
 * missing ones and returns 1. */
static int all_functions_covered(const char *table, char **headers, int n) {
  int missing = 0;
  for (int i = 0; i < n; i++) {
    char *h = slurp(headers[i]);
    if (h == NULL) {
      fprintf(stderr, "cannot read %s\n", headers[i]);
      return 1;
    }
    for (char *p = strstr(h, "ZKC_EXTERN "); p; p = strstr(p + 1, "ZKC_EXTERN ")) {
      char *paren = strchr(p, '(');
      char *name = paren;
      while (name > p && (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z')))
        name--;
      if (paren == NULL || strncmp(name, "zkc_", 4) != 0) continue;
      char want[128];
      snprintf(want, sizeof want, "| `%.*s` |", (int)(paren - name), name);
      if (strstr(table, want) == NULL) {
        fprintf(stderr, "%s: %.*s has no row in the misuse table\n", headers[i],
                (int)(paren - name), name);
        missing = 1;
      }
    }
    free(h);
  }
  return missing;
}

static int check_doc(const char *doc_path, char **headers, int n) {
  char *table = table_markdown();
  char *doc = slurp(doc_path);
  int rc = 0;
  char *b = doc ? strstr(doc, BEGIN) : NULL;
  char *e = b ? strstr(b, END) : NULL;
  if (e == NULL) {
    fprintf(stderr, "%s: no misuse table markers\n", doc_path);
    rc = 1;
  } else {
    b += strlen(BEGIN);
    if ((size_t)(e - b) != strlen(table) || strncmp(b, table, (size_t)(e - b)) != 0) {
      fprintf(stderr, "%s: the misuse table differs from the test's rows; "
                      "regenerate it with `misuse --update-doc %s`\n",
              doc_path, doc_path);
      rc = 1;
    }
  }
  if (all_functions_covered(table, headers, n)) rc = 1;
  free(doc);
  free(table);
  return rc;
}

static int update_doc(const char *doc_path) {
  char *table = table_markdown();
  char *doc = slurp(doc_path);
  char *b = doc ? strstr(doc, BEGIN) : NULL;
  char *e = b ? strstr(b, END) : NULL;
  FILE *f = e ? fopen(doc_path, "w") : NULL;
  if (f == NULL) {
    fprintf(stderr, "%s: cannot update (markers missing?)\n", doc_path);
    return 1;
  }
  fprintf(f, "%.*s%s%s", (int)(b - doc), doc, BEGIN, table);
  fputs(e, f);
  fclose(f);
  free(doc);
  free(table);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--markdown") == 0) {
    char *t = table_markdown();
    fputs(t, stdout);
    free(t);
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "--check-doc") == 0)
    return check_doc(argv[2], argv + 3, argc - 3);
  if (argc == 3 && strcmp(argv[1], "--update-doc") == 0) return update_doc(argv[2]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(common), cmocka_unit_test(client), cmocka_unit_test(mutex),
      cmocka_unit_test(latch),  cmocka_unit_test(selector), cmocka_unit_test(sem),
      cmocka_unit_test(async),  cmocka_unit_test(multilock),
      cmocka_unit_test(rwlock), cmocka_unit_test(observer),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "misuse");
}
