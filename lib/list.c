/* SPDX-License-Identifier: Apache-2.0 */
/* zkc_list_t: the one form in which every call hands back a list (node
 * paths, participant ids, contenders), with one free. The list calls of the
 * recipes are built here on their 0.x forms, whose arrays the list takes
 * over. */
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "candidate.h"
#include "session.h"
#include "util.h"
#include "zkcoord/common.h"
#include "zkcoord/hold.h"
#include "zkcoord/latch.h"
#include "zkcoord/lease.h"
#include "zkcoord/mutex.h"
#include "zkcoord/selector.h"
#include "zkcoord/semaphore.h"
#include "zkcoord/status.h"

struct zkc_list {
  size_t count;
  char **strings;              /* count entries; owned unless records */
  zkc_contender_t *contenders; /* count records, or NULL */
  int strings_borrowed;        /* strings point into contenders' names */
};

/* A list made of `count` strings (the array and each string now the
 * list's), or NULL (out of memory: they are freed). */
static zkc_list_t *list_of_strings(char **strings, size_t count) {
  zkc_list_t *l = calloc(1, sizeof *l);
  if (l == NULL) {
    zkc__strings_free(strings, count);
    return NULL;
  }
  l->count = count;
  l->strings = strings;
  return l;
}

/* A list made of `count` contenders (now the list's), or NULL. */
static zkc_list_t *list_of_contenders(zkc_contender_t *cs, size_t count) {
  zkc_list_t *l = calloc(1, sizeof *l);
  char **names = count ? calloc(count, sizeof *names) : NULL;
  if (l == NULL || (count && names == NULL)) {
    free(l);
    free(names);
    zkc__contenders_free(cs, count);
    return NULL;
  }
  for (size_t i = 0; i < count; i++) names[i] = cs[i].name;
  l->count = count;
  l->strings = names;
  l->contenders = cs;
  l->strings_borrowed = 1;
  return l;
}

size_t zkc_list_count(const zkc_list_t *list) {
  return list ? list->count : 0;
}

const char *zkc_list_string(const zkc_list_t *list, size_t i) {
  if (list == NULL || i >= list->count) return NULL;
  return list->strings[i];
}

const zkc_contender_t *zkc_list_contender(const zkc_list_t *list, size_t i) {
  if (list == NULL || list->contenders == NULL || i >= list->count)
    return NULL;
  return &list->contenders[i];
}

void zkc_list_free(zkc_list_t *list) {
  if (list == NULL) return;
  if (list->contenders) zkc__contenders_free(list->contenders, list->count);
  if (list->strings_borrowed)
    free(list->strings);
  else
    zkc__strings_free(list->strings, list->count);
  free(list);
}

/* The list calls' shared ending: *out a list of the strings (or NULL). */
static int strings_out(int rc, char **strings, size_t count,
                       zkc_list_t **out) {
  if (rc != ZKC_OK) return rc;
  *out = list_of_strings(strings, count);
  return *out ? ZKC_OK : ZKC_ENOMEM;
}

static int mutex_node_list_impl(zkc_mutex_t *mutex, zkc_list_t **out) {
  if (out) *out = NULL;
  int rc = zkc__refuse_null(NULL, "zkc_mutex_node_list", "mutex",
                            mutex == NULL, "out", out == NULL, (char *)NULL);
  if (rc != ZKC_OK) return rc;
  char **nodes = NULL;
  size_t n = 0;
  rc = zkc__mutex_nodes(mutex, &nodes, &n);
  return strings_out(rc, nodes, n, out);
}

int zkc_mutex_node_list(zkc_mutex_t *mutex, zkc_list_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, mutex_node_list_impl(mutex, out));
}

static int hold_node_list_impl(const zkc_hold_t *hold, zkc_list_t **out) {
  if (out) *out = NULL;
  int rc = zkc__refuse_null(NULL, "zkc_hold_node_list", "hold", hold == NULL,
                            "out", out == NULL, (char *)NULL);
  if (rc != ZKC_OK) return rc;
  char **nodes = NULL;
  size_t n = 0;
  rc = zkc__hold_nodes(hold, &nodes, &n);
  return strings_out(rc, nodes, n, out);
}

int zkc_hold_node_list(const zkc_hold_t *hold, zkc_list_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, hold_node_list_impl(hold, out));
}

/* The ids of `parts` as strings (the array freed), in their order. */
static int participants_out(int rc, zkc__participant_t *parts, size_t n,
                            zkc_list_t **out) {
  if (rc != ZKC_OK) return rc;
  char **ids = n ? calloc(n, sizeof *ids) : NULL;
  if (n && ids == NULL) {
    zkc__participants_free(parts, n);
    return ZKC_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    ids[i] = parts[i].id; /* taken over */
    parts[i].id = NULL;
  }
  zkc__participants_free(parts, n);
  return strings_out(ZKC_OK, ids, n, out);
}

/* How participant_list_impl reads one recipe's participants. */
typedef int (*participants_fn)(void *recipe, zkc__participant_t **parts,
                               size_t *n);

static int latch_participants(void *latch, zkc__participant_t **parts,
                              size_t *n) {
  return zkc__latch_participants(latch, parts, n);
}

static int selector_participants(void *sel, zkc__participant_t **parts,
                                 size_t *n) {
  return zkc__selector_participants(sel, parts, n);
}

/* The participant list of a latch or a selector: `recipe` is the argument
 * `arg` of the public call `fn`, whose refusals name both. */
static int participant_list_impl(const char *fn, const char *arg, void *recipe,
                                 participants_fn read, zkc_list_t **out) {
  if (out) *out = NULL;
  int rc = zkc__refuse_null(NULL, fn, arg, recipe == NULL, "out", out == NULL,
                            (char *)NULL);
  if (rc != ZKC_OK) return rc;
  zkc__participant_t *parts = NULL;
  size_t n = 0;
  rc = read(recipe, &parts, &n);
  return participants_out(rc, parts, n, out);
}

int zkc_latch_participant_list(zkc_latch_t *latch, zkc_list_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           participant_list_impl(__func__, "latch", latch,
                                                 latch_participants, out));
}

int zkc_selector_participant_list(zkc_selector_t *sel, zkc_list_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           participant_list_impl(__func__, "sel", sel,
                                                 selector_participants, out));
}

static int lock_contender_list_impl(zkc_client_t *client, const char *path,
                                    zkc_list_t **out) {
  if (out) *out = NULL;
  int rc = zkc__refuse_null(client, "zkc_lock_contender_list", "client",
                            client == NULL, "out", out == NULL, (char *)NULL);
  if (rc == ZKC_OK)
    rc = zkc__check_path(client, "zkc_lock_contender_list", "lock path", path);
  if (rc != ZKC_OK) return rc;
  zkc_contender_t *cs = NULL;
  size_t n = 0;
  rc = zkc__lock_contenders(client, path, &cs, &n);
  if (rc != ZKC_OK) return rc;
  *out = list_of_contenders(cs, n);
  return *out ? ZKC_OK : ZKC_ENOMEM;
}

int zkc_lock_contender_list(zkc_client_t *client, const char *path,
                            zkc_list_t **out) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           lock_contender_list_impl(client, path, out));
}

static int sem_contender_list_impl(zkc_client_t *client, const char *path,
                                   zkc_list_t **leases, zkc_list_t **queue) {
  if (leases) *leases = NULL;
  if (queue) *queue = NULL;
  int rc = zkc__refuse_null(client, "zkc_sem_contender_list", "client",
                            client == NULL, "leases", leases == NULL, "queue",
                            queue == NULL, (char *)NULL);
  if (rc == ZKC_OK)
    rc = zkc__check_path(client, "zkc_sem_contender_list", "semaphore path",
                         path);
  if (rc != ZKC_OK) return rc;
  zkc_contender_t *ls = NULL, *qs = NULL;
  size_t nl = 0, nq = 0;
  rc = zkc__sem_contenders(client, path, &ls, &nl, &qs, &nq);
  if (rc != ZKC_OK) return rc;
  *leases = list_of_contenders(ls, nl);
  *queue = list_of_contenders(qs, nq);
  if (*leases && *queue) return ZKC_OK;
  zkc_list_free(*leases);
  zkc_list_free(*queue);
  *leases = *queue = NULL;
  return ZKC_ENOMEM;
}

int zkc_sem_contender_list(zkc_client_t *client, const char *path,
                           zkc_list_t **leases, zkc_list_t **queue) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           sem_contender_list_impl(client, path, leases, queue));
}
