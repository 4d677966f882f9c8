/* zkcoord status: the contenders of a lock or election path, holder first,
 * as a table or as JSON; for a semaphore path (children "leases" and
 * "locks"), its lease holders and its queue. On a read-write lock path the
 * readers at the head of the queue hold together. */
#include <stdio.h>
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

/* The rows of a contender table; `leases`: every row holds a lease (the
 * kind of a lease node says nothing and is not shown). */
static void print_rows(const zkc_contender_t *v, size_t n, int leases) {
  int64_t now = now_epoch_ms();
  if (n == 0) return;
  size_t nh = holders(v, n);
  printf("%-6s %-9s %-11s %-18s %8s %-14s %-58s %s\n", "POS", "KIND",
         "SEQUENCE", "SESSION", "AGE", "CZXID", "NODE", "HOLDER");
  for (size_t i = 0; i < n; i++) {
    const zkc_contender_t *e = &v[i];
    char pos[16], seq[16], sess[24], age[24];
    if (leases && e->has_sequence) snprintf(pos, sizeof pos, "lease");
    else if (i < nh) snprintf(pos, sizeof pos, "holder");
    else if (e->position > 0) snprintf(pos, sizeof pos, "%d", e->position);
    else snprintf(pos, sizeof pos, "-");
    if (e->has_sequence) snprintf(seq, sizeof seq, "%lld", (long long)e->sequence);
    else snprintf(seq, sizeof seq, "(none)");
    if (e->ephemeral_owner) snprintf(sess, sizeof sess, "0x%llx",
                                     (unsigned long long)e->ephemeral_owner);
    else snprintf(sess, sizeof sess, "(persistent)");
    snprintf(age, sizeof age, "%.1fs", (double)(now - e->ctime_ms) / 1000.0);
    printf("%-6s %-9s %-11s %-18s %8s %-14lld %-58s ", pos,
           e->kind && !leases ? e->kind : "-", seq, sess, age,
           (long long)e->czxid, e->name);
    print_text(e->data, e->data_len, e->data_total, 60);
    putchar('\n');
  }
}

static void print_table(const zkcli_opts_t *o, const zkc_contender_t *v,
                        size_t n) {
  size_t queued = 0, nh = holders(v, n);
  for (size_t i = 0; i < n; i++) queued += v[i].has_sequence;
  if (queued == 0) {
    printf("%s: not held (no contenders)\n", o->path);
  } else {
    printf("%s: held by ", o->path);
    print_text(v[0].data, v[0].data_len, v[0].data_total, 60);
    if (is_read(&v[0]) && nh > 1)
      printf(" (reader) and %zu more reader%s", nh - 1, nh == 2 ? "" : "s");
    else if (is_read(&v[0]))
      fputs(" (reader)", stdout);
    else if (v[0].kind && strcmp(v[0].kind, "write") == 0)
      fputs(" (writer)", stdout);
    printf(", %zu waiting\n", queued - nh);
  }
  print_rows(v, n, 0);
}

static void print_sem_table(const zkcli_opts_t *o, const zkc_contender_t *l,
                            size_t nl, const zkc_contender_t *q, size_t nq) {
  printf("%s: semaphore, %zu lease node%s, %zu in the queue\n", o->path, nl,
         nl == 1 ? "" : "s", nq);
  if (nl) printf("leases (%s/leases; a waiting head's own nodes count):\n", o->path);
  print_rows(l, nl, 1);
  if (nq) printf("queue (%s/locks, head first):\n", o->path);
  print_rows(q, nq, 0);
}

static void print_json_array(const zkc_contender_t *v, size_t n, int leases) {
  int64_t now = now_epoch_ms();
  size_t nh = holders(v, n);
  putchar('[');
  for (size_t i = 0; i < n; i++) {
    const zkc_contender_t *e = &v[i];
    printf("%s{\"node\":", i ? "," : "");
    print_json_string(e->name, strlen(e->name));
    if (e->position >= 0) printf(",\"position\":%d", e->position);
    else fputs(",\"position\":null", stdout);
    printf(",\"holder\":%s", i < nh ? "true" : "false");
    if (e->has_sequence) printf(",\"sequence\":%lld", (long long)e->sequence);
    else fputs(",\"sequence\":null", stdout);
    printf(",\"style\":\"%s\"", e->style);
    if (e->kind && !leases) printf(",\"kind\":\"%s\"", e->kind);
    else fputs(",\"kind\":null", stdout);
    fputs(",\"data\":", stdout);
    print_json_string(e->data, e->data_len);
    printf(",\"data_truncated\":%s", e->data_len < e->data_total ? "true" : "false");
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

static void print_json(const zkcli_opts_t *o, const zkc_contender_t *v,
                       size_t n) {
  fputs("{\"path\":", stdout);
  print_json_string(o->path, strlen(o->path));
  printf(",\"held\":%s,\"contenders\":",
         n > 0 && v[0].has_sequence ? "true" : "false");
  print_json_array(v, n, 0);
  puts("}");
}

static void print_sem_json(const zkcli_opts_t *o, const zkc_contender_t *l,
                           size_t nl, const zkc_contender_t *q, size_t nq) {
  fputs("{\"path\":", stdout);
  print_json_string(o->path, strlen(o->path));
  fputs(",\"semaphore\":true,\"leases\":", stdout);
  print_json_array(l, nl, 1);
  fputs(",\"queue\":", stdout);
  print_json_array(q, nq, 0);
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

/* A read cut off by a connection blip is tried again once the client is
 * connected, for as long as --connect-timeout allows: status is a snapshot,
 * so a second read is as good as the first. */
static int retry_after(zkc_client_t *c, int rc, int64_t deadline) {
  if (rc != ZKC_ECONNLOSS && rc != ZKC_EOPTIMEOUT) return 0;
  const struct timespec nap = {0, 50 * 1000 * 1000};
  zkc_state_t st;
  while (zkcli_now_ms() < deadline) {
    nanosleep(&nap, NULL);
    if (zkc_client_state(c, &st) != ZKC_OK || st == ZKC_STATE_CLOSED)
      return 0; /* closed meanwhile (lock: by a stop signal) */
    if (st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED) return 1;
  }
  return 0;
}

int zkcli_read_contenders(const zkcli_opts_t *o, zkc_client_t *c,
                          const char *path, zkc_contender_t **out,
                          size_t *count) {
  int64_t deadline = zkcli_now_ms() + o->connect_timeout_ms;
  int rc;
  while ((rc = zkc_lock_contenders(c, path, out, count)) != ZKC_OK &&
         retry_after(c, rc, deadline)) {
  }
  return rc;
}

int zkcli_cmd_status(const zkcli_opts_t *o) {
  zkc_client_t *c;
  int code = zkcli_open(o, &c);
  if (code != 0) return code;
  zkc_contender_t *v = NULL;
  size_t n = 0;
  int64_t deadline = zkcli_now_ms() + o->connect_timeout_ms;
  int rc = zkcli_read_contenders(o, c, o->path, &v, &n);
  if (rc == ZKC_OK && is_semaphore(v, n)) {
    zkc_contender_t *l = NULL, *q = NULL;
    size_t nl = 0, nq = 0;
    while ((rc = zkc_sem_contenders(c, o->path, &l, &nl, &q, &nq)) != ZKC_OK &&
           retry_after(c, rc, deadline)) {
    }
    if (rc == ZKC_OK && o->json) print_sem_json(o, l, nl, q, nq);
    else if (rc == ZKC_OK) print_sem_table(o, l, nl, q, nq);
    zkc_contenders_free(l, nl);
    zkc_contenders_free(q, nq);
    if (rc == ZKC_OK && fflush(stdout) != 0) code = ZKCLI_EXIT_INTERNAL;
    if (rc != ZKC_OK) {
      zkcli_err("cannot read %s: %s", o->path, zkc_strerror(rc));
      code = zkcli_exit_code(rc);
    }
  } else if (rc == ZKC_OK) {
    if (o->json) print_json(o, v, n);
    else print_table(o, v, n);
    if (fflush(stdout) != 0) code = ZKCLI_EXIT_INTERNAL;
  } else if (rc == ZKC_EINVAL) {
    zkcli_err("invalid lock path '%s'", o->path);
    code = ZKCLI_EXIT_BADPATH;
  } else {
    zkcli_err("cannot read %s: %s", o->path, zkc_strerror(rc));
    code = zkcli_exit_code(rc);
  }
  zkc_contenders_free(v, n);
  zkc_client_close(c);
  return code;
}
