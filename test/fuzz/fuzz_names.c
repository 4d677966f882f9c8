/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: node-name / sequence parsing, queue order and
 * predecessor lookup. The input is a children list, names separated by
 * '\n'; its first 4 bytes are also a sequence value for the round trip and
 * its first 16 bytes a UUID for the protected-name helpers. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names_props.h"
#include "util.h" /* zkc__uuid_format */

#define MAX_NAMES 4096

static void fail(const char *what) {
  fprintf(stderr, "property failed: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Every name in its own exact-size allocation, so that ASan catches a
   * read past any name's NUL. */
  char **names = calloc(MAX_NAMES, sizeof *names);
  if (names == NULL) return 0;
  size_t n = 0;
  for (size_t start = 0; start <= size && n < MAX_NAMES;) {
    const uint8_t *nl = memchr(data + start, '\n', size - start);
    size_t len = nl ? (size_t)(nl - (data + start)) : size - start;
    char *name = malloc(len + 1);
    if (name == NULL) break;
    memcpy(name, data + start, len);
    name[len] = '\0';
    names[n++] = name;
    start += len + 1;
  }
  const char *err = zkp_sorted(names, n);

  int32_t v = 0;
  if (!err && size >= 4) {
    memcpy(&v, data, 4);
    const char *prefixes[] = {"", "lock-", "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-",
                              "0123456789abcdef0123456789abcdef__lock__",
                              "x-72057594037927936-", "latch-"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && !err; i++)
      err = zkp_sequence_round_trip(prefixes[i], v);
  }
  if (!err && size >= 16) {
    char uuid[37], name[64];
    zkc__uuid_format(data, uuid);
    snprintf(name, sizeof name, "_c_%s-lock-%010d", uuid, v);
    if (strlen(uuid) != 36 || !zkc__is_protected_name(name) ||
        !zkc__name_has_uuid(name, uuid))
      err = "a formatted protected name is not recognised";
  }
  for (size_t i = 0; i < n && !err; i++)
    if (zkc__name_has_uuid(names[i], "53345f98-9423-4e0c-a7b5-9f819e3ec2e1") &&
        !zkc__is_protected_name(names[i]))
      err = "a name has a uuid but is not protected";
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  if (err) fail(err);
  return 0;
}
