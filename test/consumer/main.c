/* SPDX-License-Identifier: Apache-2.0 */
/* The consumer: compiles against the installed headers, links the installed
 * library and calls into it (no server needed). */
#include <stdio.h>
#include <string.h>

#include <zkcoord/zkcoord.h>

#if !defined(ZKC_VERSION_MAJOR) || !defined(ZKC_VERSION_HEX)
#error "zkcoord/version.h did not come with zkcoord.h"
#endif

int main(void) {
  int bad = 0;
  if (strcmp(ZKC_VERSION_STRING, EXPECTED_VERSION) != 0) {
    fprintf(stderr, "header version %s, package version %s\n",
            ZKC_VERSION_STRING, EXPECTED_VERSION);
    bad = 1;
  }
  if (strcmp(zkc_err_name(ZKC_ETIMEDOUT), "ZKC_ETIMEDOUT") != 0) bad = 1;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  zkc_client_t *c = NULL;
  /* Rejected before any connection is attempted. */
  if (zkc_client_open(&c, "", &o) != ZKC_EINVAL || c != NULL) bad = 1;
  printf("zkcoord %s (0x%06x): %s\n", ZKC_VERSION_STRING, ZKC_VERSION_HEX,
         bad ? "FAILED" : "ok");
  return bad;
}
