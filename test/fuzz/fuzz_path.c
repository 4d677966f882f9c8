/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the path validator, the path helpers and the host-list
 * check of connect strings. The input, cut at its first NUL, is the path
 * (and the connect string); every accepted one must satisfy the contract
 * in names_props.h. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names_props.h"

static void fail(const char *what, const char *input) {
  fprintf(stderr, "property failed: %s: \"", what);
  for (const unsigned char *s = (const unsigned char *)input; *s; s++)
    fprintf(stderr, *s >= 0x20 && *s < 0x7f ? "%c" : "\\x%02x", *s);
  fprintf(stderr, "\"\n");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* An exact-size copy: ASan catches any read past the NUL. */
  char *s = malloc(size + 1);
  if (s == NULL) return 0;
  memcpy(s, data, size);
  s[size] = '\0';
  const char *err = NULL;
  int rc = zkc__path_validate(s);
  if (rc != ZKC_OK && rc != ZKC_EINVAL) err = "a code other than OK/EINVAL";
  if (!err && rc == ZKC_OK) err = zkp_accepted_path(s);
  if (!err && zkc__hosts_validate(s) == ZKC_OK) err = zkp_accepted_hosts(s);
  if (err) fail(err, s);
  free(s);
  return 0;
}
