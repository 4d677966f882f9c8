/* SPDX-License-Identifier: Apache-2.0 */
/* zkc__lock_contenders: a read-only view of a lock path's queue. */
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "names.h"
#include "session.h"
#include "util.h"
#include "zkcoord/semaphore.h"
#include "zkcoord/status.h"

static const char *node_style(const char *name) {
  if (zkc__is_protected_name(name)) return "protected";
  /* kazoo: "<hex uuid>__lock__<seq>", "__rlock__", "__entry__", ... */
  const char *u = strstr(name, "__");
  if (u != NULL && u != name && strstr(u + 2, "__") != NULL) return "kazoo";
  return "other";
}

unsigned zkc_contender_layout(const zkc_contender_t *e) {
  return e == NULL ? 0
                   : zkc__child_layout(e->name, e->ephemeral_owner != 0) &
                         ~ZKC__LAYOUT_KNOWN_LOCK;
}

unsigned zkc_layout_refusal(zkc_recipe_t recipe, const zkc_contender_t *v,
                            size_t count, const char **what) {
  zkc__recipe_layout_t as = ZKC__AS_NONE;
  switch (recipe) {
    case ZKC_RECIPE_MUTEX:
    case ZKC_RECIPE_SELECTOR:
    case ZKC_RECIPE_ASYNC: as = ZKC__AS_LOCK; break;
    case ZKC_RECIPE_READ:
    case ZKC_RECIPE_WRITE: as = ZKC__AS_RWLOCK; break;
    case ZKC_RECIPE_LATCH: as = ZKC__AS_ELECTION; break;
    case ZKC_RECIPE_SEMAPHORE: as = ZKC__AS_SEMAPHORE; break;
    case ZKC_RECIPE_MULTILOCK: break; /* its locks are judged each */
  }
  unsigned mask = 0;
  for (size_t i = 0; v != NULL && i < count; i++)
    mask |= zkc__child_layout(v[i].name, v[i].ephemeral_owner != 0);
  unsigned bad = zkc__layout_refused(as, mask);
  if (bad != 0 && what != NULL) *what = zkc__layout_what(bad);
  /* A lock's own node is known by its marker; to callers it is a lock's. */
  return bad == ZKC__LAYOUT_KNOWN_LOCK ? ZKC_LAYOUT_LOCK : bad;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void zkc__contenders_free(zkc_contender_t *v, size_t count) {
  if (v == NULL) return;
  for (size_t i = 0; i < count; i++) {
    free(v[i].name);
    free(v[i].data);
  }
  free(v);
}

/* Orders the children: contenders by sequence, then the rest by name.
 * `order` receives n names borrowed from `names`; *ncont the contenders. */
static int order_children(char **names, size_t n, const char **order,
                          size_t *ncont) {
  zkc__contender_t *sorted = malloc(n * sizeof *sorted);
  char **rest = malloc(n * sizeof *rest);
  if (sorted == NULL || rest == NULL) {
    free(sorted);
    free(rest);
    return ZKC_ENOMEM;
  }
  size_t m = zkc__sort_contenders(names, n, sorted), r = 0;
  for (size_t i = 0; i < m; i++) order[i] = sorted[i].name;
  for (size_t i = 0; i < n; i++) {
    int64_t seq;
    if (!zkc__node_sequence(names[i], &seq)) rest[r++] = names[i];
  }
  qsort(rest, r, sizeof *rest, by_name);
  for (size_t i = 0; i < r; i++) order[m + i] = rest[i];
  *ncont = m;
  free(sorted);
  free(rest);
  return ZKC_OK;
}

/* Fills one entry from a finished get (or, for a node whose ACL refuses
 * the read, from an exists: no data, data_denied set). */
static int fill(zkc_contender_t *e, const char *name, const zkc__call_t *rd,
                long position, int denied) {
  e->name = strdup(name);
  e->style = node_style(name);
  e->has_sequence = zkc__node_sequence(name, &e->sequence);
  if (!e->has_sequence) e->sequence = 0;
  e->kind = zkc__node_kind(name);
  e->position = (int)position;
  size_t total = rd->data_len > 0 ? (size_t)rd->data_len : 0;
  e->data_total = total;
  e->data_len = total < ZKC_CONTENDER_DATA_MAX ? total : ZKC_CONTENDER_DATA_MAX;
  e->data = malloc(e->data_len + 1);
  if (e->name == NULL || e->data == NULL) return ZKC_ENOMEM;
  if (e->data_len) memcpy(e->data, rd->data, e->data_len);
  e->data[e->data_len] = '\0';
  e->ephemeral_owner = rd->stat.ephemeral_owner;
  e->ctime_ms = rd->stat.ctime;
  e->czxid = rd->stat.czxid;
  e->data_denied = denied;
  return ZKC_OK;
}

/* The reads whose data the ACL refused, sent again together as exists
 * (one call) and answered in place; the rest keep their answers. */
static int stat_refused(zkc_client_t *c, zkc__call_t *reads, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += reads[i].rc == ZKC_ENOAUTH;
  if (k == 0) return ZKC_OK;
  zkc__call_t *again = calloc(k, sizeof *again);
  size_t *at = calloc(k, sizeof *at);
  int rc = again && at ? ZKC_OK : ZKC_ENOMEM;
  for (size_t i = 0, j = 0; rc == ZKC_OK && i < n; i++) {
    if (reads[i].rc != ZKC_ENOAUTH) continue;
    again[j].rq = reads[i].rq;
    again[j].rq.kind = ZKC__REQ_EXISTS;
    at[j++] = i;
  }
  if (rc == ZKC_OK) (void)zkc__call(c, again, k, NULL);
  for (size_t j = 0; rc == ZKC_OK && j < k; j++) /* nothing to free there */
    reads[at[j]] = again[j];
  free(again);
  free(at);
  return rc;
}

static int read_all(zkc_client_t *c, const char *path, char **names, size_t n,
                    zkc_contender_t **out, size_t *count) {
  const char **order = malloc(n * sizeof *order);
  char **child = calloc(n, sizeof *child);
  zkc__call_t *reads = calloc(n, sizeof *reads);
  zkc_contender_t *v = calloc(n, sizeof *v);
  size_t ncont = 0, m = 0;
  int rc = order && child && reads && v
               ? order_children(names, n, order, &ncont)
               : ZKC_ENOMEM;
  for (size_t i = 0; rc == ZKC_OK && i < n; i++) {
    if ((child[i] = zkc__path_join(path, order[i])) == NULL) rc = ZKC_ENOMEM;
    reads[i].rq = (zkc__req_t){.kind = ZKC__REQ_GET, .path = child[i]};
  }
  /* Every read is sent before the first is waited for: one round trip for
   * all of them; each answer is looked at on its own. */
  if (rc == ZKC_OK) (void)zkc__call(c, reads, n, NULL);
  /* A child whose ACL refuses reading its data (a lock node made with
   * ZKC_ACL_SECURE under other credentials) is still listed, without its
   * data: an exists, which no ACL restricts, gives its stat. Those go out
   * together once every get is answered: a second round trip only then. */
  if (rc == ZKC_OK) rc = stat_refused(c, reads, n);
  long position = 0;
  for (size_t i = 0; rc == ZKC_OK && i < n; i++) {
    if (reads[i].rc == ZKC_OK)
      rc = fill(&v[m++], order[i], &reads[i], i < ncont ? position++ : -1,
                reads[i].rq.kind == ZKC__REQ_EXISTS);
    else if (reads[i].rc != ZKC_ENONODE) /* gone: left the queue */
      rc = reads[i].rc;
  }
  if (reads) zkc__call_clear(reads, n);
  for (size_t i = 0; child && i < n; i++) free(child[i]);
  free(child);
  free(reads);
  free(order);
  if (rc == ZKC_OK && m > 0) {
    *out = v;
    *count = m;
  } else {
    zkc__contenders_free(v, m);
  }
  return rc;
}

static int lock_contenders_impl(zkc_client_t *c, const char *path,
                                zkc_contender_t **out, size_t *count) {
  if (out) *out = NULL;
  if (count) *count = 0;
  int rc =
      ZKC__REFUSE_IF(c, c == NULL, "zkc_lock_contender_list", "client is NULL");
  if (rc == ZKC_OK)
    rc = ZKC__REFUSE_IF(c, out == NULL || count == NULL, "zkc_lock_contender_list",
                        "%s is NULL", out == NULL ? "out" : "count");
  if (rc == ZKC_OK)
    rc = zkc__check_path(c, "zkc_lock_contender_list", "path", path);
  if (rc != ZKC_OK) return rc;
  if ((rc = zkc__call_enter(c)) != ZKC_OK) return rc;
  zkc__call_t list = {.rq = {.kind = ZKC__REQ_CHILDREN, .path = path}};
  rc = zkc__call(c, &list, 1, NULL);
  if (rc == ZKC_OK && list.children.count > 0)
    rc = read_all(c, path, list.children.data, (size_t)list.children.count,
                  out, count);
  zkc__call_clear(&list, 1);
  if (rc == ZKC_ENONODE) rc = ZKC_OK;
  zkc__call_leave(c);
  return rc;
}

int zkc__lock_contenders(zkc_client_t *c, const char *path,
                        zkc_contender_t **out, size_t *count) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           lock_contenders_impl(c, path, out, count));
}

/* A semaphore's two queues: its lease holders and its waiters. */
static int sem_contenders_impl(zkc_client_t *c, const char *path,
                               zkc_contender_t **leases, size_t *n_leases,
                               zkc_contender_t **queue, size_t *n_queue) {
  if (leases) *leases = NULL;
  if (queue) *queue = NULL;
  if (n_leases) *n_leases = 0;
  if (n_queue) *n_queue = 0;
  int rc = ZKC__REFUSE_IF(c, c == NULL, "zkc_sem_contender_list", "client is NULL");
  if (rc == ZKC_OK)
    rc = ZKC__REFUSE_IF(
        c,
        leases == NULL || n_leases == NULL || queue == NULL || n_queue == NULL,
        "zkc_sem_contender_list", "an output argument is NULL");
  if (rc == ZKC_OK) rc = zkc__check_path(c, "zkc_sem_contender_list", "path", path);
  if (rc != ZKC_OK) return rc;
  char *lp = zkc__path_join(path, "leases");
  char *qp = zkc__path_join(path, "locks");
  rc = lp && qp ? ZKC_OK : ZKC_ENOMEM;
  if (rc == ZKC_OK) rc = zkc__lock_contenders(c, lp, leases, n_leases);
  if (rc == ZKC_OK) rc = zkc__lock_contenders(c, qp, queue, n_queue);
  if (rc != ZKC_OK) {
    zkc__contenders_free(*leases, *n_leases);
    *leases = NULL;
    *n_leases = 0;
  }
  free(lp);
  free(qp);
  return rc;
}

int zkc__sem_contenders(zkc_client_t *c, const char *path,
                       zkc_contender_t **leases, size_t *n_leases,
                       zkc_contender_t **queue, size_t *n_queue) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           sem_contenders_impl(c, path, leases, n_leases, queue,
                                               n_queue));
}
