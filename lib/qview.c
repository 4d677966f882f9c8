/* SPDX-License-Identifier: Apache-2.0 */
/* The queue views (qview.h): per client and path, the names of the latest
 * read a waiter kept, sorted by sequence, each marked once known gone. */
#include <stdlib.h>
#include <string.h>

#include "qview.h"

#include "client_struct.h"
#include "hash.h"
#include "names.h"

typedef struct zkc__qview zkc__qview_t;

typedef struct {
  int64_t seq; /* -1: no sequence (ahead of every sequenced name) */
  const char *name;
  int gone;
} entry_t;

struct zkc__qview {
  char *base; /* the key */
  int refs;   /* runs waiting on base that use it */
  zkc__names_t names; /* the read's, owned */
  entry_t *e;
  size_t n;
  size_t live; /* every entry before it is gone */
  size_t writer; /* the first read-write lock writer's entry (n: none) */
  UT_hash_handle hh;
};

static int64_t seq_of(const char *name) {
  int64_t seq = -1;
  return zkc__node_sequence(name, &seq) ? seq : -1;
}

static int entry_cmp(const void *a, const void *b) {
  const entry_t *x = a, *y = b;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The index of `name` in v, or -1. */
static long find(const zkc__qview_t *v, const char *name) {
  entry_t key = {seq_of(name), name, 0};
  const entry_t *hit = bsearch(&key, v->e, v->n, sizeof *v->e, entry_cmp);
  return hit ? hit - v->e : -1;
}

static void view_clear(zkc__qview_t *v) {
  for (int i = 0; i < v->names.count; i++) free(v->names.data[i]);
  free(v->names.data);
  free(v->e);
  v->names.data = NULL;
  v->names.count = 0;
  v->e = NULL;
  v->n = v->live = v->writer = 0;
}

static void view_free(zkc__qview_t *v) {
  view_clear(v);
  free(v->base);
  free(v);
}

static zkc__qview_t *lookup(zkc_client_t *c, const char *base, size_t len) {
  zkc__qview_t *v = NULL;
  HASH_FIND(hh, c->views, base, len, v);
  return v;
}

/* Replaces v's names by the read's (moved), keeping the old gone marks. */
static void view_take(zkc__qview_t *v, zkc__names_t *read) {
  size_t n = (size_t)read->count;
  entry_t *e = malloc((n ? n : 1) * sizeof *e);
  if (e == NULL) return; /* the old view stays: still true, perhaps stale */
  for (size_t i = 0; i < n; i++)
    e[i] = (entry_t){seq_of(read->data[i]), read->data[i], 0};
  qsort(e, n, sizeof *e, entry_cmp);
  zkc__qview_t next = {.names = *read, .e = e, .n = n};
  size_t writer = n;
  for (size_t i = 0; i < n && writer == n; i++) {
    const char *kind = zkc__node_kind(e[i].name);
    if (kind && strcmp(kind, "write") == 0) writer = i;
  }
  for (size_t i = 0; i < v->n; i++) { /* gone stays gone: names are unique */
    if (!v->e[i].gone) continue;
    long k = find(&next, v->e[i].name);
    if (k >= 0) e[k].gone = 1;
  }
  view_clear(v);
  v->names = next.names;
  v->e = e;
  v->n = n;
  v->writer = writer;
  read->data = NULL;
  read->count = 0;
}

void zkc__qview_update(zkc_client_t *c, const char *base, zkc__names_t *read,
                       const char *own, int *held) {
  size_t len = strlen(base);
  pthread_mutex_lock(&c->views_mu);
  zkc__qview_t *v = lookup(c, base, len);
  if (v == NULL && !*held) {
    v = calloc(1, sizeof *v);
    if (v != NULL && (v->base = strdup(base)) == NULL) {
      free(v);
      v = NULL;
    }
    if (v != NULL) {
      zkc__hash_oom = 0;
      HASH_ADD_KEYPTR(hh, c->views, v->base, len, v);
      if (zkc__hash_oom) {
        view_free(v);
        v = NULL;
      }
    }
  }
  if (v != NULL) {
    if (!*held) {
      v->refs++;
      *held = 1;
    }
    if (find(v, own) < 0) view_take(v, read);
  }
  pthread_mutex_unlock(&c->views_mu);
}

void zkc__qview_drop(zkc_client_t *c, const char *base, int *held) {
  if (!*held) return;
  *held = 0;
  pthread_mutex_lock(&c->views_mu);
  zkc__qview_t *v = lookup(c, base, strlen(base));
  if (v != NULL && --v->refs == 0) {
    HASH_DEL(c->views, v);
    view_free(v);
  }
  pthread_mutex_unlock(&c->views_mu);
}

int zkc__qview_clear_ahead(zkc_client_t *c, const char *base,
                           const char *own) {
  pthread_mutex_lock(&c->views_mu);
  zkc__qview_t *v = lookup(c, base, strlen(base));
  int clear = 0;
  if (v != NULL) {
    long k = find(v, own);
    while (v->live < v->n && v->e[v->live].gone) v->live++;
    /* Behind a read-write lock's writer, a node may join ahead of ours
     * after the view's read: its downgrade makes a read node named with
     * the writer's sequence. Only a read of the queue shows it. */
    clear = k >= 0 && (size_t)k == v->live && (size_t)k <= v->writer;
  }
  pthread_mutex_unlock(&c->views_mu);
  return clear;
}

/* 1 for a name no client creates twice: a protected one (zkcoord's,
 * Curator's, go-zookeeper's: "_c_" and a fresh random id per create) or
 * kazoo's (32 hex digits of its lock's id, then "__" and a sequence). A
 * name made twice (a squatter's, deleted and made again) could be marked
 * gone while it stands again: it is never marked, and keeps a read. */
static int unique_name(const char *name) {
  size_t len = strlen(name);
  if (strncmp(name, ZKC__PROTECTED_PREFIX, strlen(ZKC__PROTECTED_PREFIX)) == 0)
    return len > strlen(ZKC__PROTECTED_PREFIX) + 32;
  if (len < 34 || name[32] != '_' || name[33] != '_') return 0;
  for (int i = 0; i < 32; i++)
    if (!strchr("0123456789abcdefABCDEF", name[i])) return 0;
  return 1;
}

void zkc__qview_gone(zkc_client_t *c, const char *path) {
  const char *slash = strrchr(path, '/');
  if (slash == NULL || slash == path || !unique_name(slash + 1)) return;
  pthread_mutex_lock(&c->views_mu);
  zkc__qview_t *v = c->views ? lookup(c, path, (size_t)(slash - path)) : NULL;
  long k = v ? find(v, slash + 1) : -1;
  if (k >= 0) v->e[k].gone = 1;
  pthread_mutex_unlock(&c->views_mu);
}

void zkc__qview_free_all(zkc_client_t *c) {
  zkc__qview_t *v, *tmp;
  HASH_ITER(hh, c->views, v, tmp) {
    HASH_DEL(c->views, v);
    view_free(v);
  }
}
