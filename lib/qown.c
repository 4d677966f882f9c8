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

int zkc__qown_new_prefix(const char *base, const char *name, char **prefix) {
  char uuid[ZKC__UUID_LEN + 1];
  int rc = zkc__uuid_new(uuid);
  if (rc != ZKC_OK) return rc;
  if (zkc__uuid_seam) zkc__uuid_seam(uuid);
  free(*prefix);
  size_t len = strlen(base) + strlen(name) + ZKC__PROTECTED_LEN + 2;
  if ((*prefix = malloc(len)) == NULL) return ZKC_ENOMEM;
  snprintf(*prefix, len, "%s/" ZKC__PROTECTED_PREFIX "%s-%s", base, uuid,
           name);
  return ZKC_OK;
}

void zkc__qown_uuid(const char *base, const char *prefix, const char *node,
                    char out[ZKC__UUID_LEN + 1]) {
  const char *name = prefix ? prefix + strlen(base) + 1 : zkc__basename(node);
  memcpy(out, name + strlen(ZKC__PROTECTED_PREFIX), ZKC__UUID_LEN);
  out[ZKC__UUID_LEN] = '\0';
}

/* A name's place among the run's nodes: its sequence (none: a plain
 * node, of which only one can exist). */
static int64_t seq_of(const char *name) {
  int64_t seq = -1;
  return zkc__node_sequence(name, &seq) ? seq : -1;
}

static void to_janitor(zkc_client_t *c, const zkc__qworld_t *world,
                       const char *base, const char *name) {
  char *path = zkc__path_join(base, name);
  if (path == NULL) return; /* no memory: it goes with its session */
  zkc__log(c, ZKC_LOG_INFO, "lock %s: %s carries our uuid too: deleting it",
           base, path);
  world->janitor_add(c, path, NULL);
  free(path);
}

int zkc__qown_search(zkc_client_t *c, const zkc__qworld_t *world,
                     const char *base, const zkc__names_t *names,
                     const char *uuid, char **found) {
  *found = NULL;
  int oldest = -1;
  for (int i = 0; i < names->count; i++) {
    if (!zkc__name_has_uuid(names->data[i], uuid)) continue;
    if (oldest < 0 || seq_of(names->data[i]) < seq_of(names->data[oldest])) {
      if (oldest >= 0) to_janitor(c, world, base, names->data[oldest]);
      oldest = i;
    } else {
      to_janitor(c, world, base, names->data[i]);
    }
  }
  if (oldest < 0) return ZKC_OK;
  *found = zkc__path_join(base, names->data[oldest]);
  return *found ? ZKC_OK : ZKC_ENOMEM;
}

size_t zkc__qown_drop_twins(zkc_client_t *c, const zkc__qworld_t *world,
                            const char *base, const char *own,
                            const char *uuid, char **names, size_t n) {
  size_t kept = n;
  for (size_t i = 0; i < kept;) {
    if (strcmp(names[i], own) == 0 || !zkc__name_has_uuid(names[i], uuid)) {
      i++;
      continue;
    }
    to_janitor(c, world, base, names[i]);
    char *twin = names[i]; /* past the end: still freed with the read */
    names[i] = names[--kept];
    names[kept] = twin;
  }
  return kept;
}
