/* SPDX-License-Identifier: Apache-2.0 */
/* A queue engine run's own nodes, known by their uuid (qown.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qown.h"

#include "session.h"
#include "test_hooks.h"
#include "util.h"

void (*zkc__uuid_seam)(char uuid[ZKC__UUID_LEN + 1]);

zkc__op_t *zkc__qown_op_new(zkc__qrun_t *r) {
  return r->drv ? r->drv->op_new(r->drv_ctx) : zkc__op_new();
}

void zkc__qown_op_drop(zkc__qrun_t *r, zkc__op_t **op) {
  if (*op == NULL) return;
  int orphaned = zkc__op_give_up(*op);
  *op = NULL;
  if (orphaned && r->drv) r->drv->op_dropped(r->drv_ctx);
}

static void op_end(zkc__op_t **op) {
  zkc__op_free(*op);
  *op = NULL;
}

void zkc__qown_send(zkc__qrun_t *r, zkc__op_t *op, zkc__req_kind_t kind,
                    const char *path) {
  zkc__req_t rq = {.kind = kind, .path = path};
  r->world->send(r->c, op, &rq);
}

void zkc__qown_watch(zkc__qrun_t *r, zkc__op_t *op, const char *path) {
  zkc__req_t rq = {.kind = ZKC__REQ_WATCH, .path = path, .watch = r->w.id};
  r->world->send(r->c, op, &rq);
}

int zkc__qown_send_parent(zkc__qrun_t *r) {
  char *path = zkc__parent_path(r->base, r->up);
  if (path == NULL || (r->op = zkc__qown_op_new(r)) == NULL) {
    free(path);
    return ZKC_ENOMEM;
  }
  zkc__qown_send(r, r->op, ZKC__REQ_PARENT, path);
  free(path); /* serialized by the send */
  return ZKC_OK;
}

int zkc__qown_parent_made(zkc__qrun_t *r) {
  int up = r->up, steps = r->steps;
  int rc = zkc__parent_next(r->base, r->op->rc, &up, &steps);
  op_end(&r->op);
  r->up = (short)up, r->steps = (short)steps;
  return rc;
}

int zkc__qown_new_prefix(zkc__qrun_t *r) {
  char uuid[ZKC__UUID_LEN + 1];
  int rc = zkc__uuid_new(uuid);
  if (rc != ZKC_OK) return rc;
  if (zkc__uuid_seam) zkc__uuid_seam(uuid);
  free(r->prefix);
  size_t len = strlen(r->base) + strlen(r->name) + ZKC__PROTECTED_LEN + 2;
  if ((r->prefix = malloc(len)) == NULL) return ZKC_ENOMEM;
  snprintf(r->prefix, len, "%s/" ZKC__PROTECTED_PREFIX "%s-%s", r->base, uuid,
           r->name);
  return ZKC_OK;
}

void zkc__qown_uuid(const zkc__qrun_t *r, char out[ZKC__UUID_LEN + 1]) {
  const char *name = r->prefix ? r->prefix + strlen(r->base) + 1
                               : zkc__basename(r->node);
  memcpy(out, name + strlen(ZKC__PROTECTED_PREFIX), ZKC__UUID_LEN);
  out[ZKC__UUID_LEN] = '\0';
}

/* A name's place among the run's nodes: its sequence (none: a plain
 * node, of which only one can exist). */
static int64_t seq_of(const char *name) {
  int64_t seq = -1;
  return zkc__node_sequence(name, &seq) ? seq : -1;
}

static void to_janitor(zkc__qrun_t *r, const char *name) {
  char *path = zkc__path_join(r->base, name);
  if (path == NULL) return; /* no memory: it goes with its session */
  zkc__log(r->c, ZKC_LOG_INFO, "lock %s: %s carries our uuid too: deleting it",
           r->base, path);
  r->world->janitor_add(r->c, path, NULL);
  free(path);
}

static int own_search(zkc__qrun_t *r, const zkc__names_t *names,
                      const char *uuid, char **found) {
  *found = NULL;
  int oldest = -1;
  for (int i = 0; i < names->count; i++) {
    if (!zkc__name_has_uuid(names->data[i], uuid)) continue;
    if (oldest < 0 || seq_of(names->data[i]) < seq_of(names->data[oldest])) {
      if (oldest >= 0) to_janitor(r, names->data[oldest]);
      oldest = i;
    } else {
      to_janitor(r, names->data[i]);
    }
  }
  if (oldest < 0) return ZKC_OK;
  *found = zkc__path_join(r->base, names->data[oldest]);
  return *found ? ZKC_OK : ZKC_ENOMEM;
}

int zkc__qown_send_search(zkc__qrun_t *r) {
  if ((r->list = zkc__qown_op_new(r)) == NULL ||
      (r->op = zkc__qown_op_new(r)) == NULL) {
    zkc__qown_op_drop(r, &r->list);
    return ZKC_ENOMEM;
  }
  zkc__qown_send(r, r->list, ZKC__REQ_SYNC, r->base);
  zkc__qown_send(r, r->op, ZKC__REQ_CHILDREN, r->base);
  return ZKC_OK;
}

int zkc__qown_searched(zkc__qrun_t *r) {
  int rc = r->list->rc;
  op_end(&r->list);
  if (rc == ZKC_OK) rc = r->op->rc;
  if (rc == ZKC_ENONODE) rc = ZKC_OK; /* no parent: no node either */
  char uuid[ZKC__UUID_LEN + 1];
  zkc__qown_uuid(r, uuid);
  if (rc == ZKC_OK) rc = own_search(r, &r->op->children, uuid, &r->found);
  op_end(&r->op);
  return rc;
}

size_t zkc__qown_drop_twins(zkc__qrun_t *r, char **names, size_t n) {
  char uuid[ZKC__UUID_LEN + 1];
  zkc__qown_uuid(r, uuid);
  const char *own = zkc__basename(r->node);
  size_t kept = n;
  for (size_t i = 0; i < kept;) {
    if (strcmp(names[i], own) == 0 || !zkc__name_has_uuid(names[i], uuid)) {
      i++;
      continue;
    }
    to_janitor(r, names[i]);
    char *twin = names[i]; /* past the end: still freed with the read */
    names[i] = names[--kept];
    names[kept] = twin;
  }
  return kept;
}
