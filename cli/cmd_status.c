/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord status: the contenders of a lock or election path, holder first,
 * as a table or as JSON; for a semaphore path (children "leases" and
 * "locks"), its lease nodes (held, or the waiting queue head's) and its
 * queue. On a read-write lock path the readers at the head of the queue
 * hold together. A node whose data the ACL refuses is listed without it.
 * With --watch, again at every change until a stop signal (exit 0). With
 * --prometheus, the counts of one or more paths as gauges in Prometheus
 * text format (version 0.0.4). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* Length of the valid UTF-8 sequence at s (at most `left` bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left) {
  size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2
             : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
  if (len == 0 || len > left || (len == 2 && s[0] < 0xc2)) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return len;
}

/* Node data for the table: printable text as is (UTF-8 included), other
 * bytes as \xNN, at most `max` output columns, "..." when cut. */
static void print_text(const char *data, size_t len, size_t total, size_t max) {
  const unsigned char *s = (const unsigned char *)data;
  size_t cols = 0;
  for (size_t i = 0; i < len;) {
    size_t n = utf8_len(s + i, len - i);
    size_t w = n == 1 && (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\') ? 4
             : n == 0 ? 4 : 1;
    if (cols + w > max) {
      fputs("...", stdout);
      return;
    }
    if (n == 0 || w == 4) {
      if (s[i] == '\\') fputs("\\\\", stdout); else printf("\\x%02x", s[i]);
      i++;
    } else {
      fwrite(s + i, 1, n, stdout);
      i += n;
    }
    cols += w;
  }
  if (len < total) fputs("...", stdout);
  if (len == 0) fputs("-", stdout);
}

/* A JSON string: valid UTF-8 passes, control characters and invalid bytes
 * become \u00NN escapes. */
static void print_json_string(const char *data, size_t len) {
  const unsigned char *s = (const unsigned char *)data;
  putchar('"');
  for (size_t i = 0; i < len;) {
    size_t n = utf8_len(s + i, len - i);
    if (n == 1 && s[i] == '"') {
      fputs("\\\"", stdout);
    } else if (n == 1 && s[i] == '\\') {
      fputs("\\\\", stdout);
    } else if (n == 0 || (n == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
      printf("\\u%04x", s[i]);
      n = 1;
    } else {
      fwrite(s + i, 1, n, stdout);
    }
    i += n;
  }
  putchar('"');
}

static int64_t now_epoch_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The snapshot's time, UTC to the millisecond ("2026-11-25T09:40:01.123Z"):
 * JSON's "time", and the head of each --watch table. */
static void print_time(void) {
  int64_t ms = now_epoch_ms();
  time_t secs = (time_t)(ms / 1000);
  struct tm tm;
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", gmtime_r(&secs, &tm));
  printf("%s.%03dZ", buf, (int)(ms % 1000));
}

/* --watch tables start with the time of the snapshot. */
static void print_watch_time(const zkcli_opts_t *o) {
  if (!o->watch) return;
  print_time();
  putchar(' ');
}

static int is_read(const zkc_contender_t *e) {
  return e->kind != NULL && strcmp(e->kind, "read") == 0;
}

/* How many contenders hold the lock: the first, and when it is a reader,
 * every reader before the first contender of another kind (a reader is
 * granted when no writer is before it). */
static size_t holders(const zkc_contender_t *v, size_t n) {
  if (n == 0 || !v[0].has_sequence) return 0;
  size_t h = 1;
  if (is_read(&v[0]))
    while (h < n && v[h].has_sequence && is_read(&v[h])) h++;
  return h;
}

/* What a row shows in POS: per entry, filled by the caller. */
typedef enum { ROW_QUEUED, ROW_HOLDER, ROW_LEASE, ROW_LEASE_WAIT, ROW_HEAD } row_t;

int zkcli_is_revoke_marker(const zkc_contender_t *e) {
  return !e->data_denied && e->data_total == 10 && e->data_len == 10 &&
         memcmp(e->data, "__REVOKE__", 10) == 0;
}

/* A node's data for the table: its text, or why it is not shown. The
 * revocation marker is no holder id: it says that the holder was asked
 * to let go (the node of a revocable hold has no id). */
static void print_data(const zkc_contender_t *e, size_t max) {
  if (e->data_denied) fputs("(unreadable: ACL)", stdout);
  else if (zkcli_is_revoke_marker(e)) fputs("(asked to let go)", stdout);
  else print_text(e->data, e->data_len, e->data_total, max);
}

void zkcli_print_holder(const zkc_contender_t *e, size_t max) {
  print_data(e, max);
}

/* The rows of a contender table. `row` says what each entry is; `kinds`:
 * show the KIND column's values (not for lease nodes, whose kind says
 * nothing). */
static void print_rows(const zkc_contender_t *v, size_t n, const row_t *row,
                       int kinds) {
  int64_t now = now_epoch_ms();
  if (n == 0) return;
  printf("%-6s %-9s %-11s %-18s %8s %-14s %-58s %s\n", "POS", "KIND",
         "SEQUENCE", "SESSION", "AGE", "CZXID", "NODE", "HOLDER");
  for (size_t i = 0; i < n; i++) {
    const zkc_contender_t *e = &v[i];
    char pos[16], seq[16], sess[24], age[24];
    switch (row[i]) {
      case ROW_HOLDER: snprintf(pos, sizeof pos, "holder"); break;
      case ROW_LEASE: snprintf(pos, sizeof pos, "lease"); break;
      case ROW_LEASE_WAIT: snprintf(pos, sizeof pos, "wait"); break;
      case ROW_HEAD: snprintf(pos, sizeof pos, "head"); break;
      default:
        if (e->position > 0) snprintf(pos, sizeof pos, "%d", e->position);
        else snprintf(pos, sizeof pos, "-");
    }
    if (e->has_sequence) snprintf(seq, sizeof seq, "%lld", (long long)e->sequence);
    else snprintf(seq, sizeof seq, "(none)");
    if (e->ephemeral_owner) snprintf(sess, sizeof sess, "0x%llx",
                                     (unsigned long long)e->ephemeral_owner);
    else snprintf(sess, sizeof sess, "(persistent)");
    snprintf(age, sizeof age, "%.1fs", (double)(now - e->ctime_ms) / 1000.0);
    printf("%-6s %-9s %-11s %-18s %8s %-14lld %-58s ", pos,
           e->kind && kinds ? e->kind : "-", seq, sess, age,
           (long long)e->czxid, e->name);
    print_data(e, 60);
    putchar('\n');
  }
}

/* The rows of a lock path: its holders, then the waiting. */
static row_t *lock_rows(const zkc_contender_t *v, size_t n) {
  row_t *row = calloc(n ? n : 1, sizeof *row);
  if (row == NULL) return NULL;
  size_t nh = holders(v, n);
  for (size_t i = 0; i < n; i++) row[i] = i < nh ? ROW_HOLDER : ROW_QUEUED;
  return row;
}

static void print_table(const zkcli_opts_t *o, const zkc_contender_t *v,
                        size_t n, const row_t *row) {
  size_t queued = 0, nh = holders(v, n);
  for (size_t i = 0; i < n; i++) queued += v[i].has_sequence;
  print_watch_time(o);
  if (queued == 0) {
    printf("%s: not held (no contenders)\n", o->path);
  } else {
    printf("%s: held by ", o->path);
    print_data(&v[0], 60);
    if (is_read(&v[0]) && nh > 1)
      printf(" (reader) and %zu more reader%s", nh - 1, nh == 2 ? "" : "s");
    else if (is_read(&v[0]))
      fputs(" (reader)", stdout);
    else if (v[0].kind && strcmp(v[0].kind, "write") == 0)
      fputs(" (writer)", stdout);
    printf(", %zu waiting\n", queued - nh);
  }
  print_rows(v, n, row, 1);
}

/* A semaphore path as status shows it. Which lease nodes are held: every
 * one but those of a queue head still waiting for room. Only the head of
 * <path>/locks creates lease nodes, so its own are the ones of its session
 * created after its queue node; they are held too once the limit (when
 * known) admits them all: the head is then about to leave the queue. */
typedef struct sem_view {
  zkc_contender_t *l, *q; /* lease nodes, queue */
  size_t nl, nq;
  row_t *lrow, *qrow;
  size_t held, waiting;
  int64_t limit;          /* -1: unknown */
  const char *limit_from; /* "-m", "count node" */
} sem_view_t;

static void sem_view_free(sem_view_t *s) {
  zkcli_contenders_free(s->l, s->nl);
  zkcli_contenders_free(s->q, s->nq);
  free(s->lrow);
  free(s->qrow);
  memset(s, 0, sizeof *s);
}

static int sem_view_fill(sem_view_t *s) {
  s->lrow = calloc(s->nl ? s->nl : 1, sizeof *s->lrow);
  s->qrow = calloc(s->nq ? s->nq : 1, sizeof *s->qrow);
  if (s->lrow == NULL || s->qrow == NULL) return ZKC_ENOMEM;
  const zkc_contender_t *head =
      s->nq > 0 && s->q[0].has_sequence ? &s->q[0] : NULL;
  if (head) s->qrow[0] = ROW_HEAD;
  for (size_t i = 1; i < s->nq; i++) s->qrow[i] = ROW_QUEUED;
  int admitted = s->limit >= 0 && (int64_t)s->nl <= s->limit;
  s->held = s->waiting = 0;
  for (size_t i = 0; i < s->nl; i++) {
    int wait = head && !admitted && s->l[i].ephemeral_owner != 0 &&
               s->l[i].ephemeral_owner == head->ephemeral_owner &&
               s->l[i].czxid > head->czxid;
    s->lrow[i] = wait ? ROW_LEASE_WAIT : ROW_LEASE;
    if (wait) s->waiting++;
    else s->held++;
  }
  return ZKC_OK;
}

static void print_sem_table(const zkcli_opts_t *o, const sem_view_t *s) {
  print_watch_time(o);
  printf("%s: semaphore, %zu lease%s held", o->path, s->held,
         s->held == 1 ? "" : "s");
  if (s->limit >= 0)
    printf(" of %lld (limit from %s)", (long long)s->limit, s->limit_from);
  else
    fputs(" (limit not recorded: give -m or --count-path)", stdout);
  if (s->waiting) printf(", %zu lease node%s of the queue head waiting",
                         s->waiting, s->waiting == 1 ? "" : "s");
  printf(", %zu in the queue\n", s->nq);
  if (s->nl) printf("leases (%s/leases):\n", o->path);
  print_rows(s->l, s->nl, s->lrow, 0);
  if (s->nq) printf("queue (%s/locks, head first; the head alone takes leases):\n",
                    o->path);
  print_rows(s->q, s->nq, s->qrow, 1);
}

static void print_json_array(const zkc_contender_t *v, size_t n,
                             const row_t *row, int kinds) {
  int64_t now = now_epoch_ms();
  putchar('[');
  for (size_t i = 0; i < n; i++) {
    const zkc_contender_t *e = &v[i];
    printf("%s{\"node\":", i ? "," : "");
    print_json_string(e->name, strlen(e->name));
    if (e->position >= 0) printf(",\"position\":%d", e->position);
    else fputs(",\"position\":null", stdout);
    printf(",\"holder\":%s",
           row[i] == ROW_HOLDER || row[i] == ROW_LEASE ? "true" : "false");
    if (row[i] == ROW_LEASE || row[i] == ROW_LEASE_WAIT)
      printf(",\"waiting\":%s", row[i] == ROW_LEASE_WAIT ? "true" : "false");
    if (e->has_sequence) printf(",\"sequence\":%lld", (long long)e->sequence);
    else fputs(",\"sequence\":null", stdout);
    printf(",\"style\":\"%s\"", e->style);
    if (e->kind && kinds) printf(",\"kind\":\"%s\"", e->kind);
    else fputs(",\"kind\":null", stdout);
    fputs(",\"data\":", stdout);
    if (e->data_denied) fputs("null", stdout);
    else print_json_string(e->data, e->data_len);
    printf(",\"data_truncated\":%s", e->data_len < e->data_total ? "true" : "false");
    printf(",\"data_denied\":%s", e->data_denied ? "true" : "false");
    printf(",\"revoke_requested\":%s",
           zkcli_is_revoke_marker(e) ? "true" : "false");
    if (e->ephemeral_owner)
      printf(",\"session\":\"0x%llx\"", (unsigned long long)e->ephemeral_owner);
    else
      fputs(",\"session\":null", stdout);
    printf(",\"ctime_ms\":%lld,\"age_ms\":%lld,\"czxid\":%lld}",
           (long long)e->ctime_ms, (long long)(now - e->ctime_ms),
           (long long)e->czxid);
  }
  putchar(']');
}

/* The keys every status object starts with, whatever the recipe (the one
 * schema docs/cli.md describes): held is a boolean, holders and waiting
 * count contenders, limit is null where none is known. */
static void print_json_head(const zkcli_opts_t *o, const char *recipe,
                            size_t holders_n, size_t waiting_n, int64_t limit,
                            const char *limit_from) {
  fputs("{\"path\":", stdout);
  print_json_string(o->path, strlen(o->path));
  printf(",\"recipe\":\"%s\",\"time\":\"", recipe);
  print_time();
  printf("\",\"held\":%s,\"holders\":%zu,\"waiting\":%zu",
         holders_n ? "true" : "false", holders_n, waiting_n);
  if (limit >= 0)
    printf(",\"limit\":%lld,\"limit_from\":\"%s\"", (long long)limit,
           limit_from);
  else
    fputs(",\"limit\":null,\"limit_from\":null", stdout);
}

static void print_json(const zkcli_opts_t *o, const zkc_contender_t *v,
                       size_t n, const row_t *row) {
  size_t queued = 0, nh = holders(v, n);
  for (size_t i = 0; i < n; i++) queued += v[i].has_sequence;
  print_json_head(o, "lock", nh, queued - nh, -1, NULL);
  fputs(",\"contenders\":", stdout);
  print_json_array(v, n, row, 1);
  puts("}");
}

/* A semaphore's waiting are its queue's contenders (the head among them
 * until it has its leases); the head's lease nodes still waiting for room
 * are the leases' entries with "waiting": true. */
static void print_sem_json(const zkcli_opts_t *o, const sem_view_t *s) {
  print_json_head(o, "semaphore", s->held, s->nq, s->limit, s->limit_from);
  fputs(",\"leases\":", stdout);
  print_json_array(s->l, s->nl, s->lrow, 0);
  fputs(",\"queue\":", stdout);
  print_json_array(s->q, s->nq, s->qrow, 1);
  puts("}");
}

/* A semaphore path: children without a sequence, "leases" among them. */
static int is_semaphore(const zkc_contender_t *v, size_t n) {
  int leases = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i].has_sequence) return 0;
    leases |= strcmp(v[i].name, "leases") == 0;
  }
  return leases;
}

/* A 64-bit FNV-1a over what status shows but the ages: --watch prints
 * again when it changes. */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

static uint64_t digest(uint64_t h, const zkc_contender_t *v, size_t n,
                       const row_t *row) {
  for (size_t i = 0; i < n; i++) {
    h = mix(h, v[i].name, strlen(v[i].name) + 1);
    h = mix(h, v[i].data, v[i].data_len);
    h = mix(h, &v[i].data_total, sizeof v[i].data_total);
    h = mix(h, &v[i].data_denied, sizeof v[i].data_denied);
    h = mix(h, &row[i], sizeof row[i]);
  }
  return mix(h, &n, sizeof n);
}

/* The limit status judges a semaphore's leases by: -m, or the count node
 * of --count-path (-1 when neither is given, or the node is missing). */
static int sem_limit(const zkcli_opts_t *o, zkc_client_t *c, sem_view_t *s) {
  s->limit = -1;
  s->limit_from = NULL;
  if (o->max_leases > 0) {
    s->limit = o->max_leases;
    s->limit_from = "-m";
    return ZKC_OK;
  }
  if (o->count_path == NULL) return ZKC_OK;
  int32_t v;
  int rc = zkc_shared_count_get(c, o->count_path, &v);
  if (rc == ZKC_ENONODE) return ZKC_OK;
  if (rc == ZKC_OK) {
    s->limit = v;
    s->limit_from = "count node";
  }
  return rc;
}

/* A semaphore path's lease nodes and queue, read again after a blip until
 * `deadline`, its limit and what each node shows. */
static int sem_read(const zkcli_opts_t *o, zkc_client_t *c, const char *path,
                    int64_t deadline, sem_view_t *s) {
  int rc;
  while ((rc = zkcli_sem_contenders(c, path, &s->l, &s->nl, &s->q, &s->nq)) !=
             ZKC_OK &&
         zkcli_retry_after(c, rc, deadline)) {
  }
  if (rc == ZKC_OK) rc = sem_limit(o, c, s);
  if (rc == ZKC_OK) rc = sem_view_fill(s);
  return rc;
}

/* One read of PATH, printed when *last (the digest of what was printed
 * last, 0 before the first) differs from what it shows; always when last
 * is NULL. Returns a library code. */
static int show(const zkcli_opts_t *o, zkc_client_t *c, uint64_t *last) {
  zkc_contender_t *v = NULL;
  size_t n = 0;
  int64_t deadline = zkcli_now_ms() + o->connect_timeout_ms;
  int rc = zkcli_read_contenders(o, c, o->path, &v, &n);
  if (rc == ZKC_OK && is_semaphore(v, n)) {
    sem_view_t s = {0};
    rc = sem_read(o, c, o->path, deadline, &s);
    uint64_t h = 0;
    if (rc == ZKC_OK) {
      h = digest(digest(mix(0xcbf29ce484222325ULL, &s.limit, sizeof s.limit),
                        s.l, s.nl, s.lrow),
                 s.q, s.nq, s.qrow);
    }
    if (rc == ZKC_OK && (last == NULL || *last != h)) {
      if (last && *last && !o->json) putchar('\n'); /* after the last */
      if (o->json) print_sem_json(o, &s);
      else print_sem_table(o, &s);
      if (last) *last = h;
    }
    sem_view_free(&s);
  } else if (rc == ZKC_OK) {
    row_t *row = lock_rows(v, n);
    if (row == NULL) rc = ZKC_ENOMEM;
    uint64_t h = row ? digest(0xcbf29ce484222325ULL, v, n, row) : 0;
    if (row && (last == NULL || *last != h)) {
      if (last && *last && !o->json) putchar('\n'); /* after the last */
      if (o->json) print_json(o, v, n, row);
      else print_table(o, v, n, row);
      if (last) *last = h;
    }
    free(row);
  }
  zkcli_contenders_free(v, n);
  return rc;
}

/* The line for a failed read of `path`, and the exit code. */
static int read_failure(const zkcli_opts_t *o, const char *path, int rc) {
  if (rc == ZKC_EINVAL) {
    char buf[200];
    if (o->count_path && !zkcli_path_problem(path, buf, sizeof buf) &&
        zkcli_path_problem(o->count_path, buf, sizeof buf))
      zkcli_bad_path("count path", o->count_path);
    else
      zkcli_bad_path("path", path);
    return ZKCLI_EXIT_BADPATH;
  }
  zkcli_err("cannot read %s: %s", path, zkc_strerror(rc));
  return zkcli_exit_code(rc);
}

/* ---- --prometheus ---- */

/* What the gauges tell of one path: the counts of --json ("holders",
 * "waiting"). */
typedef struct prom_path {
  const char *path;
  int read_ok;
  size_t holders, waiters;
  int64_t oldest_ms; /* ctime of the oldest holder's node (when holders) */
  int64_t limit;     /* a semaphore's, -1: unknown */
} prom_path_t;

/* The ctime of the oldest node that holds (a lock's holders, the held
 * lease nodes). */
static int64_t oldest_holder(const zkc_contender_t *v, size_t n,
                             const row_t *row) {
  int64_t t = INT64_MAX;
  for (size_t i = 0; i < n; i++)
    if ((row[i] == ROW_HOLDER || row[i] == ROW_LEASE) && v[i].ctime_ms < t)
      t = v[i].ctime_ms;
  return t;
}

/* One read of p->path, as show() reads it, into counts. */
static int prom_read(const zkcli_opts_t *o, zkc_client_t *c, prom_path_t *p) {
  zkc_contender_t *v = NULL;
  size_t n = 0;
  int64_t deadline = zkcli_now_ms() + o->connect_timeout_ms;
  int rc = zkcli_read_contenders(o, c, p->path, &v, &n);
  if (rc == ZKC_OK && is_semaphore(v, n)) {
    sem_view_t s = {0};
    rc = sem_read(o, c, p->path, deadline, &s);
    if (rc == ZKC_OK) {
      p->holders = s.held;
      p->waiters = s.nq;
      p->oldest_ms = oldest_holder(s.l, s.nl, s.lrow);
      p->limit = s.limit;
    }
    sem_view_free(&s);
  } else if (rc == ZKC_OK) {
    row_t *row = lock_rows(v, n);
    size_t queued = 0;
    for (size_t i = 0; i < n; i++) queued += v[i].has_sequence;
    if (row == NULL) {
      rc = ZKC_ENOMEM;
    } else {
      p->holders = holders(v, n);
      p->waiters = queued - p->holders;
      p->oldest_ms = oldest_holder(v, n, row);
    }
    free(row);
  }
  zkcli_contenders_free(v, n);
  p->read_ok = rc == ZKC_OK;
  return rc;
}

/* The length of the UTF-8 sequence at s as the text format takes it
 * (shortest form, no surrogate, at most U+10FFFF), or 0. */
static size_t utf8_strict_len(const unsigned char *s, size_t left) {
  size_t n = utf8_len(s, left);
  if (n < 3) return n;
  unsigned cp = s[0] & (n == 3 ? 0x0f : 0x07);
  for (size_t i = 1; i < n; i++) cp = cp << 6 | (s[i] & 0x3f);
  if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) return 0;
  if (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) return 0;
  return n;
}

/* A label value: backslash, double quote and newline escaped as the text
 * format says. A byte that is not UTF-8 (only in a path status refuses,
 * read_ok 0) is written as the four characters \xNN (the backslash
 * escaped), so that the line still parses. */
static void print_label_value(const char *s) {
  const unsigned char *b = (const unsigned char *)s;
  size_t len = strlen(s);
  for (size_t i = 0; i < len;) {
    size_t n = utf8_strict_len(b + i, len - i);
    if (n == 0) printf("\\\\x%02x", b[i]);
    else if (b[i] == '\\') fputs("\\\\", stdout);
    else if (b[i] == '"') fputs("\\\"", stdout);
    else if (b[i] == '\n') fputs("\\n", stdout);
    else fwrite(b + i, 1, n, stdout);
    i += n ? n : 1;
  }
}

/* The gauges, in the order printed; docs/cli.md describes them. */
enum { PROM_CONTENDERS, PROM_HOLDERS, PROM_WAITERS, PROM_HOLDER_AGE,
       PROM_LIMIT, PROM_READ_OK, PROM_FAMILIES };
static const struct {
  const char *name, *help;
} prom_family[PROM_FAMILIES] = {
    {"zkcoord_status_contenders",
     "Sequenced nodes in the queue of the path, holders and waiters."},
    {"zkcoord_status_holders",
     "Contenders that hold: a lock's holder, the readers at the head of a "
     "read-write lock, a semaphore's held leases."},
    {"zkcoord_status_waiters", "Contenders that do not hold."},
    {"zkcoord_status_holder_age_seconds",
     "Local time minus the creation time (the server's clock) of the oldest "
     "holder's node."},
    {"zkcoord_status_limit",
     "A semaphore's lease limit, as given to status by -m or --count-path."},
    {"zkcoord_status_read_ok",
     "1 when status read the path, 0 when reading it failed."},
};

/* The value of family f for p into buf; 0 when p has no sample in it. */
static int prom_value(const prom_path_t *p, int f, int64_t now, char *buf,
                      size_t len) {
  if (f == PROM_READ_OK) {
    snprintf(buf, len, "%d", p->read_ok);
    return 1;
  }
  if (!p->read_ok) return 0; /* nothing is known of it */
  switch (f) {
    case PROM_CONTENDERS:
      snprintf(buf, len, "%zu", p->holders + p->waiters);
      return 1;
    case PROM_HOLDERS: snprintf(buf, len, "%zu", p->holders); return 1;
    case PROM_WAITERS: snprintf(buf, len, "%zu", p->waiters); return 1;
    case PROM_HOLDER_AGE:
      if (p->holders == 0) return 0;
      snprintf(buf, len, "%.3f", (double)(now - p->oldest_ms) / 1000.0);
      return 1;
    default: /* PROM_LIMIT */
      if (p->limit < 0) return 0;
      snprintf(buf, len, "%lld", (long long)p->limit);
      return 1;
  }
}

/* Every family with a sample, each once and whole (HELP, TYPE, a line per
 * path), as the text format wants. No timestamps: the textfile collector
 * refuses them. */
static void print_prometheus(const prom_path_t *p, size_t n) {
  int64_t now = now_epoch_ms();
  for (int f = 0; f < PROM_FAMILIES; f++) {
    const char *name = prom_family[f].name;
    int head = 0;
    for (size_t i = 0; i < n; i++) {
      char value[32];
      if (!prom_value(&p[i], f, now, value, sizeof value)) continue;
      if (!head++)
        printf("# HELP %s %s\n# TYPE %s gauge\n", name, prom_family[f].help,
               name);
      printf("%s{path=\"", name);
      print_label_value(p[i].path);
      printf("\"} %s\n", value);
    }
  }
}

/* status --prometheus: every PATH read once (one given twice is one path:
 * a series twice would spoil the file), then the gauges. A path that
 * cannot be read has read_ok 0 and nothing else, every path when the
 * ensemble cannot be reached; the exit code is the first failure's. */
static int cmd_prometheus(const zkcli_opts_t *o) {
  prom_path_t *p = calloc((size_t)o->npaths, sizeof *p);
  if (p == NULL) {
    zkcli_err("out of memory");
    return ZKCLI_EXIT_INTERNAL;
  }
  size_t n = 0;
  for (int i = 0; i < o->npaths; i++) {
    size_t k = 0;
    while (k < n && strcmp(p[k].path, o->paths[i]) != 0) k++;
    if (k == n) p[n++] = (prom_path_t){.path = o->paths[i], .limit = -1};
  }
  zkc_client_t *c;
  int code = zkcli_open(o, &c);
  if (code == ZKCLI_EXIT_USAGE) { /* a bad option: nothing to tell */
    free(p);
    return code;
  }
  for (size_t i = 0; c != NULL && i < n; i++) {
    int rc = prom_read(o, c, &p[i]);
    if (rc == ZKC_OK) continue;
    int failed = read_failure(o, p[i].path, rc);
    if (code == 0) code = failed;
  }
  print_prometheus(p, n);
  if (zkcli_flush_stdout() != 0) code = ZKCLI_EXIT_IOERR; /* all lost */
  if (c != NULL) zkc_client_close(c);
  free(p);
  return code;
}

int zkcli_cmd_status(const zkcli_opts_t *o) {
  zkc_client_t *c;
  int code;
  if (o->prometheus) return cmd_prometheus(o);
  if (o->watch) {
    /* Watching ends with a stop signal, at once and with 0: nothing is
     * held. */
    code = zkcli_start(o, NULL, &c);
    zkcli_events_exit_on_stop(ZKCLI_STOP_EXIT_0);
  } else {
    code = zkcli_open(o, &c);
  }
  if (code != 0) return code;
  uint64_t last = 0;
  int rc;
  for (;;) {
    rc = show(o, c, o->watch ? &last : NULL);
    if (rc == ZKC_OK && (code = zkcli_flush_stdout()) != 0) break;
    if (rc != ZKC_OK || !o->watch) break;
    zkcli_event_wait(o->interval_ms); /* a stop signal ends the process */
  }
  if (rc != ZKC_OK) code = read_failure(o, o->path, rc);
  zkc_client_close(c);
  return code;
}
