/* SPDX-License-Identifier: Apache-2.0 */
/* A client's stats as Prometheus text exposition (format 0.0.4): every
 * metric family once, with its HELP and TYPE lines and all its samples
 * together, as the format asks. */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "stats.h"
#include "util.h"

/* The records of one call, read once so that every family shows the same
 * numbers. */
typedef struct {
  zkc_lock_stats_t *v;
  size_t n, cap;
  int failed;
} snaps_t;

static void keep(void *ctx, const zkc_lock_stats_t *s) {
  snaps_t *a = ctx;
  if (a->failed) return;
  if (!zkc__grow(&a->v, &a->cap, a->n, sizeof *a->v, 16)) {
    a->failed = 1;
    return;
  }
  a->v[a->n++] = *s;
}

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '\\')
      fputs("\\\\", f);
    else if (*s == '"')
      fputs("\\\"", f);
    else if (*s == '\n')
      fputs("\\n", f);
    else
      fputc(*s, f);
  }
}

static void family(FILE *f, const char *name, const char *type,
                   const char *help) {
  fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{recipe="...",path="..."[,extra] */
static void labels(FILE *f, const char *name, const char *suffix,
                   const zkc_lock_stats_t *s) {
  fprintf(f, "%s%s{recipe=\"%s\",path=\"", name, suffix,
          zkc_recipe_name(s->recipe));
  label_value(f, s->path);
  fputc('"', f);
}

/* One family with a row per record: the field at `offset`, a uint64_t
 * counter or an int64_t gauge. */
static void rows(FILE *f, const snaps_t *a, const char *name, const char *type,
                 const char *help, size_t offset) {
  int is_gauge = type[0] == 'g';
  family(f, name, type, help);
  for (size_t i = 0; i < a->n; i++) {
    const char *field = (const char *)&a->v[i] + offset;
    labels(f, name, "", &a->v[i]);
    if (is_gauge)
      fprintf(f, "} %lld\n", (long long)*(const int64_t *)field);
    else
      fprintf(f, "} %llu\n", (unsigned long long)*(const uint64_t *)field);
  }
}

static void counter(FILE *f, const snaps_t *a, const char *name,
                    const char *help, size_t offset) {
  rows(f, a, name, "counter", help, offset);
}

static void gauge(FILE *f, const snaps_t *a, const char *name,
                  const char *help, size_t offset) {
  rows(f, a, name, "gauge", help, offset);
}

static void losses(FILE *f, const snaps_t *a) {
  static const char *const reasons[] = {[ZKC_LOST_SUSPENDED] = "suspended",
                                        [ZKC_LOST_SESSION] = "session",
                                        [ZKC_LOST_DELETED] = "deleted"};
  const char *name = "zkcoord_losses_total";
  family(f, name, "counter", "Holds lost, by reason.");
  for (size_t i = 0; i < a->n; i++)
    for (int r = ZKC_LOST_SUSPENDED; r <= ZKC_LOST_DELETED; r++) {
      labels(f, name, "", &a->v[i]);
      fprintf(f, ",reason=\"%s\"} %llu\n", reasons[r],
              (unsigned long long)a->v[i].lost[r]);
    }
}

static void histogram(FILE *f, const snaps_t *a, const char *name,
                      const char *help, size_t offset) {
  family(f, name, "histogram", help);
  for (size_t i = 0; i < a->n; i++) {
    const zkc_histogram_t *h =
        (const zkc_histogram_t *)((const char *)&a->v[i] + offset);
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= ZKC_STATS_BUCKETS; b++) {
      cumulative += h->buckets[b];
      labels(f, name, "_bucket", &a->v[i]);
      if (b < ZKC_STATS_BUCKETS)
        fprintf(f, ",le=\"%g\"} %llu\n",
                (double)zkc_stats_bucket_bound_us(b) / 1e6,
                (unsigned long long)cumulative);
      else
        fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)cumulative);
    }
    labels(f, name, "_sum", &a->v[i]);
    fprintf(f, "} %.6f\n", (double)h->sum_us / 1e6);
    labels(f, name, "_count", &a->v[i]);
    fprintf(f, "} %llu\n", (unsigned long long)h->count);
  }
}

static void client_metric(FILE *f, const char *name, const char *type,
                          const char *help, unsigned long long v) {
  family(f, name, type, help);
  fprintf(f, "%s %llu\n", name, v);
}

/* The client's own counts, one sample each, in the order they are written. */
static void write_client(FILE *f, const zkc_client_stats_t *cs) {
  const struct {
    const char *name, *type, *help;
    unsigned long long v;
  } m[] = {
      {"zkcoord_connected", "gauge",
       "1 while the client is connected read-write.",
       (unsigned long long)cs->connected},
      {"zkcoord_sessions_total", "counter", "Sessions established.",
       cs->sessions},
      {"zkcoord_suspensions_total", "counter",
       "Connections dropped (suspended or read-only).", cs->suspensions},
      {"zkcoord_reconnects_total", "counter",
       "Reconnections within the same session.", cs->reconnects},
      {"zkcoord_session_expiries_total", "counter",
       "Sessions lost (expired or presumed expired).", cs->expiries},
      {"zkcoord_janitor_deletes_pending", "gauge",
       "Deletes of abandoned nodes waiting to be done in the background.",
       cs->janitor_pending},
      {"zkcoord_janitor_deletes_total", "counter",
       "Background deletes finished.", cs->janitor_done},
      {"zkcoord_requests_total", "counter", "Requests sent to the ensemble.",
       cs->requests},
  };
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
    client_metric(f, m[i].name, m[i].type, m[i].help, m[i].v);
}

#define AT(field) offsetof(zkc_lock_stats_t, field)

static void write_records(FILE *f, const snaps_t *a) {
  counter(f, a, "zkcoord_acquires_total", "Holds granted.", AT(acquires));
  counter(f, a, "zkcoord_acquire_timeouts_total",
          "Acquires that gave up at their deadline.", AT(timeouts));
  counter(f, a, "zkcoord_acquire_refusals_total",
          "Acquires that failed otherwise than by timeout.", AT(refusals));
  counter(f, a, "zkcoord_releases_total", "Holds ended by their holder.",
          AT(releases));
  losses(f, a);
  gauge(f, a, "zkcoord_holds", "Holds granted and not yet released.",
        AT(holds));
  gauge(f, a, "zkcoord_waiters", "Acquires in progress.", AT(waiters));
  histogram(f, a, "zkcoord_wait_seconds",
            "Time from an acquire call to its grant.", AT(wait));
  histogram(f, a, "zkcoord_hold_seconds",
            "Time from a grant to its release.", AT(hold));
  histogram(f, a, "zkcoord_handoff_seconds",
            "Time from being told the way is clear to the grant.",
            AT(handoff));
}

static int client_prometheus_impl(zkc_client_t *c, char **text, size_t *len) {
  if (text) *text = NULL;
  if (len) *len = 0;
  if (c == NULL || text == NULL)
    return zkc__refuse(c, ZKC_EINVAL, "zkc_client_prometheus: %s is NULL",
                       c == NULL ? "client" : "text");
  zkc_client_stats_t cs;
  (void)zkc_client_stats(c, &cs);
  snaps_t a = {0};
  (void)zkc_client_foreach_lock_stats(c, keep, &a);
  char *buf = NULL;
  size_t size = 0;
  FILE *f = a.failed ? NULL : open_memstream(&buf, &size);
  if (f == NULL) {
    free(a.v);
    return ZKC_ENOMEM;
  }
  write_client(f, &cs);
  if (a.n) write_records(f, &a);
  int failed = ferror(f);
  failed |= fclose(f) != 0;
  free(a.v);
  if (failed) {
    free(buf);
    return ZKC_ENOMEM;
  }
  *text = buf;
  if (len) *len = size;
  return ZKC_OK;
}

int zkc_client_prometheus(zkc_client_t *c, char **text, size_t *len) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_prometheus_impl(c, text, len));
}
