/* SPDX-License-Identifier: Apache-2.0 */
/* The queue views (qview.h): per client and path, the keys of the latest
 * read a waiter kept (below), sorted, each marked once known gone. */
#include <stdlib.h>
#include <string.h>

#include "qview.h"

#include "client_struct.h"
#include "hash.h"
#include "names.h"

typedef struct zkc__qview zkc__qview_t;

/* Keys, not names: a sequential node's number is unique under its
 * parent but for one node, a downgrade's read node, which carries its
 * writer's (an outsider's name made without the sequence flag may carry
 * any: see shared_key). The key is the sequence and whether the node is a read-write
 * lock's reader (2 * seq, a reader; 2 * seq + 1, any other), so it names
 * the node in 9 bytes an entry where the name took some 80, and a
 * writer's delete never marks its downgrade's read node gone. A reader
 * sorts before its writer: it stands ahead of everyone behind the writer. */
struct zkc__qview {
  char *base;          /* the key */
  int refs;            /* runs waiting on base that use it */
  int64_t *key;        /* the read's keys, sorted (-1: none) */
  unsigned char *gone; /* per entry: known gone */
  size_t n;
  size_t live;   /* every entry before it is gone */
  size_t writer; /* the first read-write lock writer's entry (n: none) */
  UT_hash_handle hh;
};

static int64_t key_of(const char *name) {
  int64_t seq = -1;
  if (!zkc__node_sequence(name, &seq) || seq < 0) return -1;
  return 2 * seq + (zkc__rw_kind(name) != ZKC__RW_READ);
}

static int key_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The entry of `key` in v, or -1 (none; -1 is never looked for: an
 * unsequenced name is never marked, nor anyone's own). */
static long find(const zkc__qview_t *v, int64_t key) {
  if (key < 0) return -1;
  size_t lo = 0, hi = v->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->key[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < v->n && v->key[lo] == key ? (long)lo : -1;
}

/* 1 when entry k's key is another entry's too: a name carrying another's
 * sequence (an outsider's, made without the sequence flag). The view
 * cannot tell which of the two a delete was, nor which one is ours: such
 * an entry is never marked gone, and a waiter with such a key reads. */
static int shared_key(const zkc__qview_t *v, size_t k) {
  return (k > 0 && v->key[k - 1] == v->key[k]) ||
         (k + 1 < v->n && v->key[k + 1] == v->key[k]);
}

static void view_clear(zkc__qview_t *v) {
  free(v->key);
  free(v->gone);
  v->key = NULL;
  v->gone = NULL;
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

/* Replaces v's entries by the read's, keeping the old gone marks. */
static void view_take(zkc__qview_t *v, const zkc__names_t *read) {
  size_t n = (size_t)read->count;
  int64_t *key = malloc((n ? n : 1) * sizeof *key);
  unsigned char *gone = calloc(n ? n : 1, 1);
  if (key == NULL || gone == NULL) { /* the old view stays: still true */
    free(key);
    free(gone);
    return;
  }
  int64_t writer_key = -1;
  for (size_t i = 0; i < n; i++) {
    key[i] = key_of(read->data[i]);
    const char *kind = zkc__node_kind(read->data[i]);
    if (kind && strcmp(kind, "write") == 0 &&
        (writer_key < 0 || key[i] < writer_key))
      writer_key = key[i];
  }
  qsort(key, n, sizeof *key, key_cmp);
  zkc__qview_t next = {.key = key, .gone = gone, .n = n};
  for (size_t i = 0; i < v->n; i++) { /* gone stays gone */
    long k = v->gone[i] ? find(&next, v->key[i]) : -1;
    if (k >= 0 && !shared_key(&next, (size_t)k)) gone[k] = 1;
  }
  long w = writer_key >= 0 ? find(&next, writer_key) : -1;
  view_clear(v);
  v->key = key;
  v->gone = gone;
  v->n = n;
  v->writer = w >= 0 ? (size_t)w : n;
}

void zkc__qview_update(zkc_client_t *c, const char *base,
                       const zkc__names_t *read, const char *own, int *held) {
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
    if (find(v, key_of(own)) < 0) view_take(v, read);
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
    long k = find(v, key_of(own));
    while (v->live < v->n && v->gone[v->live]) v->live++;
    /* Behind a read-write lock's writer, a node may join ahead of ours
     * after the view's read: its downgrade makes a read node named with
     * the writer's sequence. Only a read of the queue shows it. */
    /* A name sharing our key may sort before ours by name. */
    clear = k >= 0 && !shared_key(v, (size_t)k) && (size_t)k == v->live &&
            (size_t)k <= v->writer;
  }
  pthread_mutex_unlock(&c->views_mu);
  return clear;
}

/* 1 for a name no client makes twice: a protected one (zkcoord's,
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
  int64_t key = key_of(slash + 1);
  if (key < 0) return;
  pthread_mutex_lock(&c->views_mu);
  zkc__qview_t *v = c->views ? lookup(c, path, (size_t)(slash - path)) : NULL;
  long k = v ? find(v, key) : -1;
  if (k >= 0 && !shared_key(v, (size_t)k)) v->gone[k] = 1;
  pthread_mutex_unlock(&c->views_mu);
}

void zkc__qview_free_all(zkc_client_t *c) {
  zkc__qview_t *v, *tmp;
  HASH_ITER(hh, c->views, v, tmp) {
    HASH_DEL(c->views, v);
    view_free(v);
  }
}
