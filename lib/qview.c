/* SPDX-License-Identifier: Apache-2.0 */
/* The queue views (qview.h): per client and path, the latest read a
 * waiter kept (below), in queue order, each name marked once known gone. */
#include <stdlib.h>
#include <string.h>

#include "qview.h"

#include "client_struct.h"
#include "hash.h"
#include "names.h"

typedef struct zkc__qview zkc__qview_t;

/* The names themselves, in the queue order every grant uses (sequence,
 * ties by name: zkc__sort_contenders). Not their sequences: an outsider
 * can make a child without the sequence flag whose name carries any
 * node's sequence, and a view keyed by sequence took such a twin for the
 * node it copied (its delete marked the other gone; ours was taken for
 * it: a grant beside a node ahead, hostile.duplicate_sequence_ties_by_name).
 * A downgrade's read node carries its writer's sequence too, and is its
 * own name. One copy per client and path, however many of its runs wait:
 * a queue of n costs n names, not n per waiter. */
struct zkc__qview {
  char *base;          /* the key */
  int refs;            /* runs waiting on base that use it */
  int read;            /* 1 once a read was taken */
  int64_t czxid;       /* the read's parent: which incarnation of base */
  int64_t pzxid;       /* and its children's last change */
  zkc__contender_t *e; /* the read's contenders, in queue order, their
                        * names in arena */
  char *arena;         /* their bytes */
  unsigned char *gone; /* per entry: known gone */
  size_t n;
  size_t live;   /* every entry before it is gone */
  size_t writer; /* the first read-write lock writer's entry (n: none) */
  UT_hash_handle hh;
};

static int entry_cmp(int64_t key, const char *name, const zkc__contender_t *e) {
  if (key != e->key) return key < e->key ? -1 : 1;
  return strcmp(name, e->name);
}

static long search(const zkc__qview_t *v, int64_t key, const char *name) {
  size_t lo = 0, hi = v->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int cmp = entry_cmp(key, name, &v->e[mid]);
    if (cmp == 0) return (long)mid;
    if (cmp < 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

/* The entry called `name`, or -1 (a name without a sequence is none). A
 * negative sequence sorts as itself, or past 2^31 where the read spanned
 * the counter's wrap (zkc__sort_contenders). */
static long find(const zkc__qview_t *v, const char *name) {
  int64_t seq;
  if (!zkc__node_sequence(name, &seq)) return -1;
  long k = search(v, seq, name);
  if (k < 0 && seq < 0) k = search(v, seq + ((int64_t)1 << 32), name);
  return k;
}

static void view_clear(zkc__qview_t *v) {
  free(v->e);
  free(v->arena);
  free(v->gone);
  v->e = NULL;
  v->arena = NULL;
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

/* Replaces v's entries by the read's contenders, keeping the old gone
 * marks of the same names (`carry`: the same incarnation of the path; in
 * a new one a kazoo lock's name comes again with the same sequence, the
 * counter started again). Without memory the view is left empty: an old
 * one would lack what the read shows (a squatter made since), and an
 * empty one says "clear" to nobody. */
static void view_take(zkc__qview_t *v, char *const *names, size_t n,
                      int carry) {
  zkc__contender_t *e = malloc((n ? n : 1) * sizeof *e);
  size_t m = e ? zkc__sort_contenders(names, n, e) : 0;
  size_t bytes = 1;
  for (size_t i = 0; i < m; i++) bytes += strlen(e[i].name) + 1;
  char *arena = e ? malloc(bytes) : NULL;
  unsigned char *gone = arena ? calloc(m ? m : 1, 1) : NULL;
  if (gone == NULL) {
    free(e);
    free(arena);
    view_clear(v);
    return;
  }
  size_t at = 0, writer = m;
  for (size_t i = 0; i < m; i++) {
    size_t len = strlen(e[i].name) + 1;
    long old = carry ? find(v, e[i].name) : -1;
    if (old >= 0 && v->gone[old]) gone[i] = 1; /* gone stays gone */
    e[i].name = memcpy(arena + at, e[i].name, len);
    at += len;
    const char *kind = zkc__node_kind(e[i].name);
    if (writer == m && kind && strcmp(kind, "write") == 0) writer = i;
  }
  view_clear(v);
  v->e = e;
  v->arena = arena;
  v->gone = gone;
  v->n = m;
  v->writer = writer;
}

/* 1 when a read with parent stat `p` is later than the view's: reads of a
 * client's runs may be taken in another order than the server answered
 * them, and an earlier one may lack a node a later one showed. Zxids
 * order them: the parent's creation (a later incarnation of the path),
 * then its children's last create or delete (the cversion counts creates
 * only, and stops at its maximum). */
static int later(const zkc__qview_t *v, const zkc__stat_t *p) {
  if (!v->read) return 1;
  if (p->czxid != v->czxid) return p->czxid > v->czxid;
  return p->pzxid > v->pzxid;
}

void zkc__qview_update(zkc_client_t *c, const char *base, char *const *names,
                       size_t n, const zkc__stat_t *parent, int *held) {
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
    if (later(v, parent)) {
      view_take(v, names, n, v->read && parent->czxid == v->czxid);
      v->read = 1;
      v->czxid = parent->czxid;
      v->pzxid = parent->pzxid;
    }
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
    while (v->live < v->n && v->gone[v->live]) v->live++;
    /* Behind a read-write lock's writer, a node may join ahead of ours
     * after the view's read: its downgrade makes a read node named with
     * the writer's sequence. Only a read of the queue shows it. */
    clear = k >= 0 && (size_t)k == v->live && (size_t)k <= v->writer;
  }
  pthread_mutex_unlock(&c->views_mu);
  return clear;
}

/* 1 for a name no client makes twice: a protected one (zkcoord's,
 * Curator's, go-zookeeper's: "_c_" and a fresh random id per create) or
 * kazoo's (32 hex digits of its lock's id, then "__" and a sequence: once
 * per incarnation of the path, so marks do not cross into the next). A
 * name made twice (a squatter's, deleted and made again) could be marked
 * gone while it stands again: it is never marked, and keeps a read. The
 * form is trusted: an outsider making a name of that form twice could
 * pass a waiter, as one deleting a holder's node can (docs/failures.md). */
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
  if (k >= 0) v->gone[k] = 1;
  pthread_mutex_unlock(&c->views_mu);
}

void zkc__qview_free_all(zkc_client_t *c) {
  zkc__qview_t *v, *tmp;
  HASH_ITER(hh, c->views, v, tmp) {
    HASH_DEL(c->views, v);
    view_free(v);
  }
}
