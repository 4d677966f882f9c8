/* SPDX-License-Identifier: Apache-2.0 */
/* Routes log lines to each client's sink. The ZooKeeper client's log
 * callback carries no context pointer, so every client gets one of a fixed
 * set of trampolines, each bound to one slot of a table; clients beyond the
 * table share a fallback that drops the ZooKeeper client's lines. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


#include "client_struct.h"
#include "names.h"
#include "session_shared.h"

#define SLOTS 64

static pthread_rwlock_t slots_lock = PTHREAD_RWLOCK_INITIALIZER;
static zkc_client_t *slots[SLOTS];

/* Without a sink nothing is written anywhere: a library does not print on
 * the application's stderr (libuv and hiredis never do). An application
 * that wants the lines there asks for it with zkc_log_stderr. */
static void deliver(zkc_client_t *c, zkc_log_level_t level, const char *msg) {
  if (level == ZKC_LOG_NONE || level > c->opts.log_level) return;
  if (c->opts.log_fn) c->opts.log_fn(c->opts.log_ctx, level, msg);
}

void zkc_log_stderr(void *ctx, zkc_log_level_t level, const char *message) {
  (void)ctx;
  (void)level;
  if (message != NULL) fprintf(stderr, "zkcoord: %s\n", message);
}

/* The ZooKeeper client's own lines ("<time>:<pid>(0x<tid>):ZOO_<LEVEL>@...")
 * are its internals, whatever level it gives them: one or more ERROR lines
 * per refused reconnect attempt, several INFO lines per connect. They reach
 * a sink at ZKC_LOG_DEBUG only; what happened to the session is zkcoord's
 * own lines (SUSPENDED, RECONNECTED, LOST, a lock lost), a few per outage. */
static void deliver_zk_line(zkc_client_t *c, const char *message) {
  if (c == NULL || c->opts.log_level < ZKC_LOG_DEBUG) return;
  char line[1024];
  snprintf(line, sizeof line, "%s", message);
  size_t n = strlen(line);
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
  deliver(c, ZKC_LOG_DEBUG, line);
}

static void from_slot(int i, const char *message) {
  pthread_rwlock_rdlock(&slots_lock);
  deliver_zk_line(slots[i], message);
  pthread_rwlock_unlock(&slots_lock);
}

static void fallback(const char *message) { deliver_zk_line(NULL, message); }

/* slot_<a>_<b> serves slot a * 8 + b. */
#define T(a, b) \
  static void slot_##a##_##b(const char *m) { from_slot(a * 8 + b, m); }
#define T8(a) T(a, 0) T(a, 1) T(a, 2) T(a, 3) T(a, 4) T(a, 5) T(a, 6) T(a, 7)
T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
#undef T
#define T(a, b) slot_##a##_##b,
static const zkc__zk_log_fn trampolines[SLOTS] = {
    T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)};
#undef T
#undef T8

zkc__zk_log_fn zkc__log_bind(zkc_client_t *c) {
  c->log_slot = -1;
  pthread_rwlock_wrlock(&slots_lock);
  for (int i = 0; i < SLOTS; i++) {
    if (slots[i] == NULL) {
      slots[i] = c;
      c->log_slot = i;
      break;
    }
  }
  pthread_rwlock_unlock(&slots_lock);
  return c->log_slot >= 0 ? trampolines[c->log_slot] : fallback;
}

void zkc__log_unbind(zkc_client_t *c) {
  if (c->log_slot < 0) return;
  pthread_rwlock_wrlock(&slots_lock);
  slots[c->log_slot] = NULL;
  pthread_rwlock_unlock(&slots_lock);
  c->log_slot = -1;
}

void zkc__log(zkc_client_t *c, zkc_log_level_t level, const char *fmt, ...) {
  if (c == NULL || level > c->opts.log_level) return; /* no client: no sink */
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  deliver(c, level, line);
}

/* A refusal: the thread's last error message, and the same line through
 * the sink at error level. */
static void refused_line(int rc, char *line, size_t len, const char *fmt,
                         va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  vsnprintf(line, len, fmt, copy);
  va_end(copy);
  zkc__error_message_vset(rc, fmt, ap);
}

int zkc__refuse(zkc_client_t *c, int rc, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  refused_line(rc, line, sizeof line, fmt, ap);
  va_end(ap);
  if (c != NULL) deliver(c, ZKC_LOG_ERROR, line);
  return rc;
}

int zkc__refuse_opts(const zkc_client_opts_t *o, int rc, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  refused_line(rc, line, sizeof line, fmt, ap);
  va_end(ap);
  /* The options may be the refused ones: a level out of range still lets
   * an error through, as the default level does. */
  if (o != NULL && o->log_level != ZKC_LOG_NONE && o->log_fn)
    o->log_fn(o->log_ctx, ZKC_LOG_ERROR, line);
  return rc;
}

int zkc__check_path(zkc_client_t *c, const char *fn, const char *what,
                    const char *path) {
  char buf[ZKC__PROBLEM_MAX];
  const char *why = zkc__path_problem(path, buf, sizeof buf);
  if (why == NULL) return ZKC_OK;
  if (path == NULL)
    return zkc__refuse(c, ZKC_EINVAL, "%s: %s is NULL", fn, what);
  return zkc__refuse(c, ZKC_EINVAL, "%s: invalid %s '%.300s': %s", fn, what,
                     path, why);
}

int zkc__refuse_null(zkc_client_t *c, const char *fn, ...) {
  va_list ap;
  va_start(ap, fn);
  int rc = ZKC_OK;
  for (const char *name; rc == ZKC_OK && (name = va_arg(ap, const char *));)
    if (va_arg(ap, int))
      rc = zkc__refuse(c, ZKC_EINVAL, "%s: %s is NULL", fn, name);
  va_end(ap);
  return rc;
}
