/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command line: reading a path's children, again after a
 * connection blip (status, leader --observe, revoke and the layout check
 * read this way). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* A read cut off by a connection blip is tried again once the client is
 * connected, for as long as --connect-timeout allows: status is a snapshot,
 * so a second read is as good as the first. */
int zkcli_retry_after(zkc_client_t *c, int rc, int64_t deadline) {
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

void zkcli_contenders_free(zkc_contender_t *v, size_t count) {
  if (v == NULL) return;
  for (size_t i = 0; i < count; i++) {
    free(v[i].name);
    free(v[i].data);
  }
  free(v);
}

/* The records of a contender list copied into an array of the tool's own:
 * the layout rule (zkc_layout_refusal) and the tables take an array. */
static int copy_out(zkc_list_t *list, zkc_contender_t **out, size_t *count) {
  size_t n = zkc_list_count(list);
  zkc_contender_t *v = n ? calloc(n, sizeof *v) : NULL;
  int rc = n && v == NULL ? ZKC_ENOMEM : ZKC_OK;
  for (size_t i = 0; rc == ZKC_OK && i < n; i++) {
    const zkc_contender_t *e = zkc_list_contender(list, i);
    v[i] = *e;
    v[i].name = strdup(e->name);
    v[i].data = malloc(e->data_len + 1);
    if (v[i].name == NULL || v[i].data == NULL) {
      rc = ZKC_ENOMEM;
      continue;
    }
    memcpy(v[i].data, e->data, e->data_len);
    v[i].data[e->data_len] = '\0';
  }
  if (rc != ZKC_OK) {
    zkcli_contenders_free(v, n);
    v = NULL;
    n = 0;
  }
  *out = v;
  *count = n;
  return rc;
}

int zkcli_lock_contenders(zkc_client_t *c, const char *path,
                          zkc_contender_t **out, size_t *count) {
  zkc_list_t *list = NULL;
  *out = NULL;
  *count = 0;
  int rc = zkc_lock_contender_list(c, path, &list);
  if (rc == ZKC_OK) rc = copy_out(list, out, count);
  zkc_list_free(list);
  return rc;
}

int zkcli_sem_contenders(zkc_client_t *c, const char *path,
                         zkc_contender_t **leases, size_t *n_leases,
                         zkc_contender_t **queue, size_t *n_queue) {
  zkc_list_t *l = NULL, *q = NULL;
  *leases = *queue = NULL;
  *n_leases = *n_queue = 0;
  int rc = zkc_sem_contender_list(c, path, &l, &q);
  if (rc == ZKC_OK) rc = copy_out(l, leases, n_leases);
  if (rc == ZKC_OK) rc = copy_out(q, queue, n_queue);
  if (rc != ZKC_OK) {
    zkcli_contenders_free(*leases, *n_leases);
    *leases = NULL;
    *n_leases = 0;
  }
  zkc_list_free(l);
  zkc_list_free(q);
  return rc;
}

int zkcli_read_contenders(const zkcli_opts_t *o, zkc_client_t *c,
                          const char *path, zkc_contender_t **out,
                          size_t *count) {
  int64_t deadline = zkcli_now_ms() + o->connect_timeout_ms;
  int rc;
  while ((rc = zkcli_lock_contenders(c, path, out, count)) != ZKC_OK &&
         zkcli_retry_after(c, rc, deadline)) {
  }
  return rc;
}
