/* SPDX-License-Identifier: Apache-2.0 */
/* Path validation, node-name parsing and queue ordering: no I/O. */
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkcoord/common.h"
#include "zkcoord/status.h"

/* Decodes one UTF-8 code point at s (at most `left` bytes); returns its
 * length, or 0 for an invalid, overlong or truncated sequence. */
static size_t utf8_decode(const unsigned char *s, size_t left, uint32_t *cp) {
  size_t len;
  uint32_t min;
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  } else if ((s[0] & 0xe0) == 0xc0) {
    len = 2, min = 0x80, *cp = s[0] & 0x1f;
  } else if ((s[0] & 0xf0) == 0xe0) {
    len = 3, min = 0x800, *cp = s[0] & 0x0f;
  } else if ((s[0] & 0xf8) == 0xf0) {
    len = 4, min = 0x10000, *cp = s[0] & 0x07;
  } else {
    return 0;
  }
  if (len > left) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    *cp = (*cp << 6) | (s[i] & 0x3f);
  }
  return *cp < min ? 0 : len;
}

/* The characters ZooKeeper's server refuses in a path (PathUtils), and
 * everything outside the Basic Multilingual Plane, which Java would see as
 * surrogates. */
static int code_point_allowed(uint32_t cp) {
  if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) return 0;
  if (cp >= 0xd800 && cp <= 0xf8ff) return 0;
  if (cp >= 0xfff0) return 0;
  return 1;
}

const char *zkc__path_problem(const char *path, char *buf, size_t len) {
  if (path == NULL) return "it is NULL";
  if (path[0] != '/') return "it must be absolute (start with '/')";
  size_t n = strlen(path);
  if (n < 2) return "'/' itself cannot be used: name a node below it";
  if (n > ZKC__PATH_MAX) {
    snprintf(buf, len, "it is %zu bytes long, more than %d", n, ZKC__PATH_MAX);
    return buf;
  }
  if (path[n - 1] == '/') return "it must not end with '/'";
  if (strcmp(path, "/zookeeper") == 0 || strncmp(path, "/zookeeper/", 11) == 0)
    return "/zookeeper is the server's own subtree";
  const unsigned char *p = (const unsigned char *)path;
  size_t seg_start = 1;
  for (size_t i = 1; i <= n;) {
    if (i == n || p[i] == '/') {
      size_t seg_len = i - seg_start;
      if (seg_len == 0) return "it has an empty segment ('//')";
      if ((seg_len == 1 && p[seg_start] == '.') ||
          (seg_len == 2 && p[seg_start] == '.' && p[seg_start + 1] == '.'))
        return "it has a '.' or '..' segment (ZooKeeper paths are taken "
               "literally, not resolved)";
      seg_start = ++i;
      continue;
    }
    uint32_t cp;
    size_t l = utf8_decode(p + i, n - i, &cp);
    if (l == 0) {
      snprintf(buf, len, "byte %zu is not valid UTF-8", i);
      return buf;
    }
    if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) {
      snprintf(buf, len, "it has a control character (byte %zu)", i);
      return buf;
    }
    if (!code_point_allowed(cp)) {
      snprintf(buf, len,
               "character U+%04X (byte %zu) is one ZooKeeper "
               "refuses (surrogates, private use, specials, beyond the "
               "Basic Multilingual Plane)",
               (unsigned)cp, i);
      return buf;
    }
    i += l;
  }
  return NULL;
}

int zkc__path_validate(const char *path) {
  char buf[ZKC__PROBLEM_MAX];
  return zkc__path_problem(path, buf, sizeof buf) == NULL ? ZKC_OK : ZKC_EINVAL;
}

const char *zkc__hosts_problem(const char *s, char *buf, size_t len) {
  if (s == NULL) return "it is NULL";
  if (s[0] == '\0' || s[0] == '/') return "it names no server";
  size_t end = strcspn(s, "/");
  for (size_t start = 0; start <= end;) {
    size_t n = strcspn(s + start, ",/"), colon = 0;
    unsigned long port = 0;
    for (size_t i = start; i < start + n; i++) {
      unsigned char ch = (unsigned char)s[i];
      if (ch <= ' ' || ch >= 0x7f) {
        snprintf(buf, len,
                 "byte %zu is a space, a control character or "
                 "not ASCII",
                 i);
        return buf;
      }
      if (ch == ':') colon = i, port = 0;
      else if (colon && ch >= '0' && ch <= '9' && port <= 65535)
        port = port * 10 + (ch - '0');
      else if (colon) port = 70000; /* a non-digit after the last ':' */
    }
    if (n == 0) return "it has an empty server entry (',,' or a ',' at an end)";
    if (colon <= start || colon + 1 == start + n || port == 0 || port > 65535) {
      snprintf(buf, len,
               "server '%.*s' has no valid port (host:port, the "
               "port 1..65535)",
               (int)(n > 200 ? 200 : n), s + start);
      return buf;
    }
    start += n + 1;
  }
  return NULL;
}

int zkc__hosts_validate(const char *s) {
  char buf[ZKC__PROBLEM_MAX];
  return zkc__hosts_problem(s, buf, sizeof buf) == NULL ? ZKC_OK : ZKC_EINVAL;
}

char *zkc__connect_with_ports(const char *s) {
  if (s == NULL) return NULL;
  size_t end = strcspn(s, "/"), extra = 0;
  for (size_t start = 0; start <= end;) {
    size_t n = strcspn(s + start, ",/");
    if (n > 0 && memchr(s + start, ':', n) == NULL)
      extra += strlen(ZKC__DEFAULT_PORT) + 1;
    start += n + 1;
  }
  char *out = malloc(strlen(s) + extra + 1);
  if (out == NULL) return NULL;
  char *o = out;
  for (size_t start = 0; start <= end;) {
    size_t n = strcspn(s + start, ",/");
    memcpy(o, s + start, n);
    o += n;
    if (n > 0 && memchr(s + start, ':', n) == NULL)
      o += sprintf(o, ":%s", ZKC__DEFAULT_PORT);
    if (start + n < end) *o++ = ',';
    start += n + 1;
  }
  strcpy(o, s + end); /* the chroot, if any */
  return out;
}

int zkc__id_validate(const char *id) {
  return id == NULL || strnlen(id, ZKC__DATA_MAX + 1) <= ZKC__DATA_MAX
             ? ZKC_OK
             : ZKC_EINVAL;
}

static int all_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

static int64_t digits_value(const char *s, size_t n) {
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
  return v;
}

/* ZooKeeper formats the counter with "%010d": "0000000042" for 42,
 * "-000000005" for -5 and "-2147483648" (11 bytes) for -2^31. A '-' right
 * before ten digits is a sign only when it does not end the recipe's own
 * prefix ("...lock-" ends in a letter before the dash; "lock--1000000000"
 * and "__lock__-1000000000" carry a sign, "x--0000000001" does not). */
int zkc__node_sequence(const char *name, int64_t *seq) {
  if (name == NULL) return 0;
  size_t n = strlen(name);
  if (n < ZKC__SEQ_DIGITS) return 0;
  const char *tail = name + n - ZKC__SEQ_DIGITS;
  if (tail[0] == '-' && all_digits(tail + 1, ZKC__SEQ_DIGITS - 1)) {
    *seq = -digits_value(tail + 1, ZKC__SEQ_DIGITS - 1);
    return 1;
  }
  if (!all_digits(tail, ZKC__SEQ_DIGITS)) return 0;
  int64_t v = digits_value(tail, ZKC__SEQ_DIGITS);
  int signed_form = 0;
  /* Only values <= -10^9 need the 11th byte: their first digit is not 0. */
  if (n > ZKC__SEQ_DIGITS && tail[-1] == '-' && tail[0] != '0') {
    char before = n > ZKC__SEQ_DIGITS + 1 ? tail[-2] : '\0';
    signed_form = before == '\0' || before == '-' || before == '_' ||
                  before == '/';
  }
  if (signed_form) v = -v;
  if (v > INT32_MAX || v < INT32_MIN) return 0;
  *seq = v;
  return 1;
}

static int contender_cmp(const void *a, const void *b) {
  const zkc__contender_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return strcmp(x->name, y->name);
}

size_t zkc__sort_contenders(char *const *names, size_t n,
                            zkc__contender_t *out) {
  const int64_t quarter = (int64_t)1 << 30;
  size_t m = 0;
  int has_high = 0, has_low = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t seq;
    if (!zkc__node_sequence(names[i], &seq)) continue;
    out[m].name = names[i];
    out[m].key = seq;
    has_high |= seq >= quarter;
    has_low |= seq < -quarter;
    m++;
  }
  /* Values near both ends of the int32 range mean the counter wrapped: the
   * negative ones were issued after the large positive ones. */
  if (has_high && has_low)
    for (size_t i = 0; i < m; i++)
      if (out[i].key < 0) out[i].key += (int64_t)1 << 32;
  if (m > 1) qsort(out, m, sizeof *out, contender_cmp);
  return m;
}

long zkc__contender_index(const zkc__contender_t *sorted, size_t n,
                          const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(sorted[i].name, name) == 0) return (long)i;
  return -1;
}

/* 1 when `s` is exactly a sequence as ZooKeeper formats it: ten digits,
 * '-' and nine digits, or '-' and ten digits (from -2^31 on). */
static int is_sequence_text(const char *s) {
  size_t n = strlen(s);
  if (n == ZKC__SEQ_DIGITS && all_digits(s, n)) return 1;
  return (n == ZKC__SEQ_DIGITS || n == ZKC__SEQ_DIGITS + 1) && s[0] == '-' &&
         all_digits(s + 1, n - 1);
}

/* 1 when some occurrence of `marker` in `name` is followed by a sequence
 * and nothing else. */
static int marked_before_sequence(const char *name, const char *marker) {
  size_t len = strlen(marker);
  for (const char *p = strstr(name, marker); p; p = strstr(p + 1, marker))
    if (is_sequence_text(p + len)) return 1;
  return 0;
}

zkc__rw_kind_t zkc__rw_kind(const char *name) {
  if (name == NULL) return ZKC__RW_OTHER;
  if (marked_before_sequence(name, "__WRIT__") ||
      marked_before_sequence(name, "__lock__"))
    return ZKC__RW_WRITE;
  if (marked_before_sequence(name, "__READ__") ||
      marked_before_sequence(name, "__rlock__"))
    return ZKC__RW_READ;
  return ZKC__RW_OTHER;
}

long zkc__rw_writer_before(const zkc__contender_t *sorted, long me) {
  for (long i = me - 1; i >= 0; i--)
    if (zkc__rw_kind(sorted[i].name) != ZKC__RW_READ) return i;
  return -1;
}

int zkc__is_revoke_marker(const char *data, int len) {
  return data != NULL && len == ZKC__REVOKE_MARKER_LEN &&
         memcmp(data, ZKC__REVOKE_MARKER, ZKC__REVOKE_MARKER_LEN) == 0;
}

static int is_hex_lower(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int zkc__is_protected_name(const char *name) {
  if (name == NULL || strncmp(name, ZKC__PROTECTED_PREFIX, 3) != 0) return 0;
  if (strlen(name) <= ZKC__PROTECTED_LEN) return 0;
  if (name[ZKC__PROTECTED_LEN - 1] != '-') return 0;
  const char *u = name + 3;
  for (int i = 0; i < ZKC__UUID_LEN; i++) {
    int dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? u[i] != '-' : !is_hex_lower(u[i])) return 0;
  }
  return 1;
}

/* The uuid first: a queue's other names differ from it within a few
 * bytes, and this runs over every child of each read. */
int zkc__name_has_uuid(const char *name, const char *uuid) {
  return name != NULL && strncmp(name, ZKC__PROTECTED_PREFIX, 3) == 0 &&
         strncmp(name + 3, uuid, ZKC__UUID_LEN) == 0 &&
         zkc__is_protected_name(name);
}

const char *zkc__basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

char *zkc__path_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 2);
  if (s == NULL) return NULL;
  memcpy(s, a, la);
  s[la] = '/';
  memcpy(s + la + 1, b, lb + 1);
  return s;
}

char *zkc__path_parent(const char *path) {
  const char *slash = strrchr(path, '/');
  if (slash == NULL || path[1] == '\0') return NULL;
  size_t len = slash == path ? 1 : (size_t)(slash - path);
  char *s = malloc(len + 1);
  if (s == NULL) return NULL;
  memcpy(s, path, len);
  s[len] = '\0';
  return s;
}

const char *zkc__node_kind(const char *name) {
  int64_t seq;
  if (!zkc__node_sequence(name, &seq)) return NULL;
  switch (zkc__rw_kind(name)) {
    case ZKC__RW_READ:
      return "read";
    case ZKC__RW_WRITE:
      /* Curator's "__WRIT__" is a read-write lock's writer; kazoo's
       * "__lock__", which its Lock and WriteLock share, excludes everyone
       * as a mutex does. */
      return marked_before_sequence(name, "__WRIT__") ? "write" : "exclusive";
    default:
      return "exclusive";
  }
}

/* 1 when `name` is 32 lowercase hex digits (a uuid's, without dashes). */
static int hex32(const char *name) {
  size_t n = 0;
  for (; name[n]; n++)
    if (!is_hex_lower(name[n])) return 0;
  return n == 32;
}

unsigned zkc__child_layout(const char *name, int ephemeral) {
  if (name == NULL) return 0;
  /* kazoo's lease first: a random uuid's digits end in ten decimal ones
   * (a sequence to the parse) about once in 500 leases */
  if (ephemeral != 0 && hex32(name)) return ZKC_LAYOUT_KAZOO_SEMAPHORE;
  int64_t seq;
  if (!zkc__node_sequence(name, &seq)) {
    /* Curator's InterProcessSemaphoreV2 (and zkcoord's): its queue and its
     * leases one level down (kazoo's Semaphore, above: a lease is an
     * ephemeral node named by a uuid's 32 hex digits). Anything else (a
     * user's data node, Curator's revocation helper nodes) belongs to no
     * recipe. */
    if (strcmp(name, "leases") == 0 || strcmp(name, "locks") == 0)
      return ZKC_LAYOUT_SEMAPHORE;
    return 0;
  }
  /* Curator's LeaderLatch: "latch-" right before the sequence. */
  if (marked_before_sequence(name, "latch-")) return ZKC_LAYOUT_ELECTION;
  /* Any other sequenced node takes part in a lock's queue; one with a
   * lock's own marker (a mutex's or a selector's "lock-", kazoo's, a
   * read-write lock's) is known to be a lock's. */
  unsigned mutex = marked_before_sequence(name, "lock-") ? ZKC_LAYOUT_MUTEX : 0;
  zkc__rw_kind_t kind = zkc__rw_kind(name);
  unsigned known = kind != ZKC__RW_OTHER || mutex ? ZKC__LAYOUT_KNOWN_LOCK : 0;
  /* "read" and "write" are a read-write lock's own; kazoo's "__lock__"
   * ("exclusive") is its Lock's or its WriteLock's, no one can tell
   * (zkc__node_kind's answer, without parsing the name again). */
  int rw_own = kind == ZKC__RW_READ ||
               (kind == ZKC__RW_WRITE && marked_before_sequence(name, "__WRIT__"));
  unsigned rw = rw_own ? ZKC_LAYOUT_RWLOCK : 0;
  return ZKC_LAYOUT_LOCK | known | mutex | rw;
}

zkc__recipe_layout_t zkc__marker_layout(const char *marker) {
  if (strcmp(marker, "latch-") == 0) return ZKC__AS_ELECTION;
  if (strcmp(marker, "__WRIT__") == 0 || strcmp(marker, "__READ__") == 0)
    return ZKC__AS_RWLOCK;
  return ZKC__AS_LOCK;
}

unsigned zkc__layout_refused(zkc__recipe_layout_t as, unsigned layouts) {
  static const unsigned order[] = {
      ZKC_LAYOUT_SEMAPHORE, ZKC_LAYOUT_KAZOO_SEMAPHORE, ZKC_LAYOUT_ELECTION,
      ZKC__LAYOUT_KNOWN_LOCK, ZKC_LAYOUT_RWLOCK, ZKC_LAYOUT_MUTEX};
  const unsigned others = ZKC_LAYOUT_SEMAPHORE | ZKC_LAYOUT_KAZOO_SEMAPHORE |
                          ZKC_LAYOUT_ELECTION;
  unsigned foreign;
  switch (as) {
    /* Curator's and kazoo's readers wait for writers only, so they would
     * join a mutex's holder; Curator's mutex sorts a reader's node after
     * its own and would join a reader. */
    case ZKC__AS_LOCK:
      foreign = others | ZKC_LAYOUT_RWLOCK;
      break;
    case ZKC__AS_RWLOCK:
      foreign = others | ZKC_LAYOUT_MUTEX;
      break;
    /* A sequenced node of no known recipe (a squatter, ZooKeeper's own
     * recipe's "x-<session>-<seq>") takes part in an election's queue as
     * in a lock's: only a lock's own nodes are refused. */
    case ZKC__AS_ELECTION:
      foreign = ZKC_LAYOUT_SEMAPHORE | ZKC_LAYOUT_KAZOO_SEMAPHORE |
                ZKC__LAYOUT_KNOWN_LOCK;
      break;
    case ZKC__AS_SEMAPHORE:
      foreign = ZKC_LAYOUT_KAZOO_SEMAPHORE | ZKC_LAYOUT_ELECTION |
                ZKC__LAYOUT_KNOWN_LOCK;
      break;
    default:
      return 0;
  }
  for (size_t i = 0; i < sizeof order / sizeof *order; i++)
    if (layouts & foreign & order[i]) return order[i];
  return 0;
}

const char *zkc__layout_what(unsigned layout) {
  switch (layout) {
    case ZKC_LAYOUT_SEMAPHORE:
      return "a semaphore (Curator's InterProcessSemaphoreV2 layout: locks/ "
             "and leases/)";
    case ZKC_LAYOUT_KAZOO_SEMAPHORE:
      return "kazoo's semaphore (lease nodes named by 32 hex digits)";
    case ZKC_LAYOUT_ELECTION:
      return "a leader election (LeaderLatch \"latch-\" nodes)";
    case ZKC__LAYOUT_KNOWN_LOCK:
      return "lock nodes (a lock, a read-write lock or a LeaderSelector's "
             "queue)";
    case ZKC_LAYOUT_RWLOCK:
      return "a read-write lock (\"__READ__\" or \"__WRIT__\" nodes, kazoo's "
             "ReadLock \"__rlock__\")";
    case ZKC_LAYOUT_MUTEX:
      return "a plain lock (\"lock-\" nodes: a mutex, InterProcessMutex, a "
             "LeaderSelector's queue)";
    default:
      return "nothing of a recipe";
  }
}

const char *zkc__layout_as_what(zkc__recipe_layout_t as) {
  switch (as) {
    case ZKC__AS_ELECTION:
      return "a leader election";
    case ZKC__AS_SEMAPHORE:
      return "a semaphore";
    case ZKC__AS_RWLOCK:
      return "a read-write lock";
    default:
      return "a lock";
  }
}

void zkc__sem_count_encode(int32_t v, char out[ZKC__COUNT_BYTES]) {
  uint32_t u = (uint32_t)v;
  for (int i = 0; i < ZKC__COUNT_BYTES; i++)
    out[i] = (char)(u >> (8 * (ZKC__COUNT_BYTES - 1 - i)));
}

int zkc__sem_count_decode(const char *data, int len, int32_t *v) {
  if (len != ZKC__COUNT_BYTES) return ZKC_EPROTO;
  uint32_t u = 0;
  for (int i = 0; i < ZKC__COUNT_BYTES; i++)
    u = u << 8 | (unsigned char)data[i];
  *v = (int32_t)u;
  return ZKC_OK;
}

/* Levels below "/" ("/a/b" has 2). */
static int depth(const char *path) {
  int n = 0;
  for (const char *p = path; *p; p++) n += *p == '/';
  return n;
}

char *zkc__parent_path(const char *path, int up) {
  size_t len = strlen(path);
  for (int i = 0; i < up && len > 1; i++) {
    while (len > 1 && path[len - 1] != '/') len--;
    if (len > 1) len--; /* the '/' before the last level */
  }
  char *out = malloc(len + 1);
  if (out == NULL) return NULL;
  memcpy(out, path, len);
  out[len] = '\0';
  return out;
}

int zkc__parent_next(const char *path, int rc, int *up, int *steps) {
  /* Parents deleted as fast as they are made (or a path past any sense):
   * the walk ends rather than loop. */
  if (++*steps > 2 * depth(path) + 2 * ZKC__PARENT_RECREATE_MAX)
    return ZKC_ENONODE;
  if (rc == ZKC_OK || rc == ZKC_ENODEEXISTS) {
    --*up;
    return ZKC_OK;
  }
  if (rc != ZKC_ENONODE) return rc;
  /* ZKC_ENONODE under "/" means the chroot itself is missing: give up. */
  if (*up + 1 >= depth(path)) return ZKC_ENOROOT;
  ++*up;
  return ZKC_OK;
}
