/* SPDX-License-Identifier: Apache-2.0 */
/* The library's lists (zkc_list_t) as the arrays many cases index: each
 * helper reads through the list call and copies out what a case looks at,
 * freed with the matching zkt_*_free. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

void zkt_strings_free(char **v, size_t n) {
  if (v == NULL) return;
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* The strings of `list` (freed) as an array; *n its count. */
static int strings_out(int rc, zkc_list_t *list, char ***out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (rc != ZKC_OK) return rc;
  size_t k = zkc_list_count(list);
  char **v = k ? calloc(k, sizeof *v) : NULL;
  for (size_t i = 0; v != NULL && i < k; i++)
    if ((v[i] = strdup(zkc_list_string(list, i))) == NULL) abort();
  if (k && v == NULL) abort();
  zkc_list_free(list);
  *out = v;
  *n = k;
  return ZKC_OK;
}

int zkt_mutex_nodes(zkc_mutex_t *m, char ***out, size_t *n) {
  zkc_list_t *list = NULL;
  int rc = zkc_mutex_node_list(m, &list);
  return strings_out(rc, list, out, n);
}

int zkt_lease_nodes(zkc_lease_t *l, char ***out, size_t *n) {
  zkc_list_t *list = NULL;
  int rc = zkc_hold_node_list(zkc_lease_hold(l), &list);
  return strings_out(rc, list, out, n);
}

void zkt_participants_free(zkt_participant_t *p, size_t n) {
  if (p == NULL) return;
  for (size_t i = 0; i < n; i++) free(p[i].id);
  free(p);
}

/* A participant list's ids, the leader first (entry 0). */
static int participants_out(int rc, zkc_list_t *list, zkt_participant_t **out,
                            size_t *n) {
  char **ids;
  size_t k;
  *out = NULL;
  *n = 0;
  if ((rc = strings_out(rc, list, &ids, &k)) != ZKC_OK) return rc;
  zkt_participant_t *p = k ? calloc(k, sizeof *p) : NULL;
  if (k && p == NULL) abort();
  for (size_t i = 0; i < k; i++) p[i] = (zkt_participant_t){ids[i], i == 0};
  free(ids);
  *out = p;
  *n = k;
  return ZKC_OK;
}

int zkt_latch_participants(zkc_latch_t *l, zkt_participant_t **out,
                           size_t *n) {
  zkc_list_t *list = NULL;
  int rc = zkc_latch_participant_list(l, &list);
  return participants_out(rc, list, out, n);
}

int zkt_selector_participants(zkc_selector_t *s, zkt_participant_t **out,
                              size_t *n) {
  zkc_list_t *list = NULL;
  int rc = zkc_selector_participant_list(s, &list);
  return participants_out(rc, list, out, n);
}

void zkt_contenders_free(zkc_contender_t *v, size_t n) {
  if (v == NULL) return;
  for (size_t i = 0; i < n; i++) {
    free(v[i].name);
    free(v[i].data);
  }
  free(v);
}

/* A contender list's records (the list freed), copied. */
static int contenders_out(int rc, zkc_list_t *list, zkc_contender_t **out,
                          size_t *n) {
  *out = NULL;
  *n = 0;
  if (rc != ZKC_OK) return rc;
  size_t k = zkc_list_count(list);
  zkc_contender_t *v = k ? calloc(k, sizeof *v) : NULL;
  if (k && v == NULL) abort();
  for (size_t i = 0; i < k; i++) {
    const zkc_contender_t *e = zkc_list_contender(list, i);
    v[i] = *e;
    v[i].name = strdup(e->name);
    v[i].data = malloc(e->data_len + 1);
    if (v[i].name == NULL || v[i].data == NULL) abort();
    memcpy(v[i].data, e->data, e->data_len);
    v[i].data[e->data_len] = '\0';
  }
  zkc_list_free(list);
  *out = v;
  *n = k;
  return ZKC_OK;
}

int zkt_lock_contenders(zkc_client_t *c, const char *path,
                        zkc_contender_t **out, size_t *n) {
  zkc_list_t *list = NULL;
  int rc = zkc_lock_contender_list(c, path, &list);
  return contenders_out(rc, list, out, n);
}

int zkt_sem_contenders(zkc_client_t *c, const char *path,
                       zkc_contender_t **leases, size_t *nl,
                       zkc_contender_t **queue, size_t *nq) {
  zkc_list_t *l = NULL, *q = NULL;
  int rc = zkc_sem_contender_list(c, path, &l, &q);
  if (rc != ZKC_OK) {
    *leases = *queue = NULL;
    *nl = *nq = 0;
    return rc;
  }
  contenders_out(ZKC_OK, l, leases, nl);
  return contenders_out(ZKC_OK, q, queue, nq);
}
