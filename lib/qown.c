/* SPDX-License-Identifier: Apache-2.0 */
/* A queue engine run's own nodes, known by their uuid (qown.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qown.h"

#include "test_hooks.h"
#include "util.h"
#include "zkcoord/common.h"

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

int zkc__qown_search(const char *base, char *const *names, int count,
                     const char *uuid, char **found,
                     zkc__qown_stray_fn *stray, void *ctx) {
  *found = NULL;
  int oldest = -1;
  for (int i = 0; i < count; i++) {
    if (!zkc__name_has_uuid(names[i], uuid)) continue;
    if (oldest < 0 || seq_of(names[i]) < seq_of(names[oldest])) {
      if (oldest >= 0) stray(ctx, names[oldest]);
      oldest = i;
    } else {
      stray(ctx, names[i]);
    }
  }
  if (oldest < 0) return ZKC_OK;
  *found = zkc__path_join(base, names[oldest]);
  return *found ? ZKC_OK : ZKC_ENOMEM;
}

size_t zkc__qown_drop_twins(const char *own, const char *uuid, char **names,
                            size_t n, zkc__qown_stray_fn *stray, void *ctx) {
  size_t kept = n;
  for (size_t i = 0; i < kept;) {
    if (strcmp(names[i], own) == 0 || !zkc__name_has_uuid(names[i], uuid)) {
      i++;
      continue;
    }
    stray(ctx, names[i]);
    char *twin = names[i]; /* past the end: still freed with the read */
    names[i] = names[--kept];
    names[kept] = twin;
  }
  return kept;
}
