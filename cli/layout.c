/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command line: which recipe a path's children belong to (so that
 * no command runs beside another recipe's holders, which it would not
 * exclude), and why a path is invalid. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The library's one rule (zkc_contender_layout), which its recipes apply
 * before they take part. */
int zkcli_is_latch_node(const zkc_contender_t *e) {
  return (zkc_contender_layout(e) & ZKC_LAYOUT_ELECTION) != 0;
}

void zkcli_layout_of(const zkc_contender_t *v, size_t n, zkcli_layout_t *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < n; i++) {
    unsigned l = zkc_contender_layout(&v[i]);
    out->semaphore |= (l & ZKC_LAYOUT_SEMAPHORE) != 0;
    out->kazoo_sem |= (l & ZKC_LAYOUT_KAZOO_SEMAPHORE) != 0;
    out->election |= (l & ZKC_LAYOUT_ELECTION) != 0;
    out->lock |= (l & ZKC_LAYOUT_LOCK) != 0;
    out->rw |= (l & ZKC_LAYOUT_RWLOCK) != 0;
  }
}

/* The recipe o->cmd runs on a path whose children show `l`: lock takes
 * the write side where read-write nodes queue (cmd_lock.c); revoke acts on
 * whichever lock the path holds. */
static zkc_recipe_t recipe_of(const zkcli_opts_t *o, const zkcli_layout_t *l) {
  if (o->cmd == ZKCLI_SEM) return ZKC_RECIPE_SEMAPHORE;
  if (o->cmd == ZKCLI_LEADER) return ZKC_RECIPE_LATCH;
  return o->shared || o->write_side || l->rw ? ZKC_RECIPE_WRITE
                                             : ZKC_RECIPE_MUTEX;
}

/* What a path holds that o->cmd refuses, for the message: NULL when it may
 * use the path. The library's own rule (zkc_layout_refusal), so that a
 * command refuses exactly the paths its recipe would. revoke acts on a
 * lock, so it refuses what a lock refuses, saying why there is nothing to
 * revoke; a path where plain and read-write lock nodes meet holds locks
 * all the same, whose holders it may ask. */
static const char *conflict(const zkcli_opts_t *o, zkc_recipe_t as,
                            const zkc_contender_t *v, size_t n) {
  const char *what = NULL;
  unsigned bad = zkc_layout_refusal(as, v, n, &what);
  if (bad == 0 || o->cmd != ZKCLI_REVOKE) return bad ? what : NULL;
  if (bad == ZKC_LAYOUT_MUTEX || bad == ZKC_LAYOUT_RWLOCK) return NULL;
  if (bad == ZKC_LAYOUT_ELECTION)
    return "a leader election (LeaderLatch nodes, whose data is the "
           "participant id LeaderLatch.getLeader() reads)";
  return "a semaphore (leases are not revocable: Curator's semaphores have "
         "no revocation)";
}

static const char *recipe_name(zkc_recipe_t as) {
  switch (as) {
    case ZKC_RECIPE_SEMAPHORE:
      return "a semaphore";
    case ZKC_RECIPE_LATCH:
      return "a leader election";
    case ZKC_RECIPE_WRITE:
      return "a read-write lock";
    default:
      return "a lock";
  }
}

int zkcli_check_layout(const zkcli_opts_t *o, zkc_client_t *c, int *rw) {
  zkc_contender_t *v = NULL;
  size_t n = 0;
  /* Nothing is held meanwhile: a stop signal ends zkcoord at once. */
  zkcli_events_exit_on_stop(ZKCLI_STOP_EXIT_SIGNAL);
  int rc = zkcli_read_contenders(o, c, o->path, &v, &n);
  zkcli_events_exit_on_stop(0);
  if (rc != ZKC_OK) return rc;
  zkcli_layout_t l;
  zkcli_layout_of(v, n, &l);
  zkc_recipe_t as = recipe_of(o, &l);
  const char *what = conflict(o, as, v, n);
  zkcli_contenders_free(v, n);
  if (rw) *rw = l.rw;
  if (what == NULL) return 0;
  zkcli_err("%s holds %s, not %s: refused", o->path, what, recipe_name(as));
  return ZKCLI_EXIT_BADPATH;
}

/* ---- why a path is invalid (the rules of the library's validation) ---- */

/* The code point of the UTF-8 sequence at s (at most `left` bytes) into
 * *cp; its length, or 0 when it is not valid UTF-8. */
static size_t utf8_cp(const unsigned char *s, size_t left, unsigned *cp) {
  size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2
             : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
  static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (len == 0 || len > left) return 0;
  *cp = len == 1 ? s[0] : s[0] & (0x7f >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    *cp = (*cp << 6) | (s[i] & 0x3f);
  }
  return *cp < min[len] ? 0 : len;
}

const char *zkcli_path_problem(const char *path, char *buf, size_t len) {
  size_t n = strlen(path);
  if (path[0] != '/') return "it must be absolute (start with '/')";
  if (n == 1) return "'/' itself cannot be used: name a node below it";
  if (n > 1024) return "it is longer than 1024 bytes";
  if (path[n - 1] == '/') return "it must not end with '/'";
  if (strcmp(path, "/zookeeper") == 0 || strncmp(path, "/zookeeper/", 11) == 0)
    return "/zookeeper is the server's own subtree";
  const unsigned char *p = (const unsigned char *)path;
  size_t seg = 1;
  for (size_t i = 1; i <= n;) {
    if (i == n || p[i] == '/') {
      size_t k = i - seg;
      if (k == 0) return "it has an empty segment ('//')";
      if ((k == 1 && p[seg] == '.') || (k == 2 && p[seg] == '.' && p[seg + 1] == '.'))
        return "it has a '.' or '..' segment (ZooKeeper paths are taken "
               "literally, not resolved)";
      seg = ++i;
      continue;
    }
    unsigned cp;
    size_t l = utf8_cp(p + i, n - i, &cp);
    if (l == 0) {
      snprintf(buf, len, "byte %zu is not valid UTF-8", i);
      return buf;
    }
    if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) {
      snprintf(buf, len, "it has a control character (byte %zu)", i);
      return buf;
    }
    if ((cp >= 0xd800 && cp <= 0xf8ff) || cp >= 0xfff0) {
      snprintf(buf, len, "character U+%04X (byte %zu) is one ZooKeeper "
               "refuses (surrogates, private use, specials, beyond the "
               "Basic Multilingual Plane)", cp, i);
      return buf;
    }
    i += l;
  }
  return NULL;
}

void zkcli_bad_path(const char *what, const char *path) {
  char buf[200];
  const char *why = zkcli_path_problem(path, buf, sizeof buf);
  zkcli_err("invalid %s '%s': %s", what, path,
            why ? why : "the library refuses it");
}
