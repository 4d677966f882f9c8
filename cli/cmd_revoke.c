/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord revoke: asks the current holder(s) of a lock path to let go, with
 * Curator's revocation marker (zkc_revoke_holders). Only a holder that made
 * its hold revocable is told; nothing is taken away from anyone. A path
 * another recipe uses (a leader election, a semaphore) is refused: the
 * marker would overwrite a participant id and ask nobody. */
#include <stdio.h>

#include "cli.h"

int zkcli_cmd_revoke(const zkcli_opts_t *o) {
  zkc_client_t *c;
  int code = zkcli_open(o, &c);
  if (code != 0) return code;
  size_t asked = 0;
  int rc = zkcli_check_layout(o, c, NULL);
  if (rc == ZKCLI_EXIT_BADPATH) {
    zkc_client_close(c);
    return rc;
  }
  if (rc == ZKC_OK) rc = zkc_revoke_holders(c, o->path, &asked);
  /* A holder whose node went between the read and the write has let go
   * already: what was asked for. */
  if (rc == ZKC_ENONODE) rc = ZKC_OK;
  if (rc == ZKC_OK) {
    printf("%s: asked %zu holder%s to let go%s\n", o->path, asked,
           asked == 1 ? "" : "s", asked == 0 ? " (not held)" : "");
    /* As pkill: 1 when there was nobody to ask. */
    code = asked > 0 ? 0 : ZKCLI_EXIT_CONFLICT;
    if (fflush(stdout) != 0) code = ZKCLI_EXIT_INTERNAL;
  } else if (rc == ZKC_EINVAL) {
    zkcli_bad_path("lock path", o->path);
    code = ZKCLI_EXIT_BADPATH;
  } else {
    zkcli_err("cannot revoke %s: %s", o->path, zkc_strerror(rc));
    code = zkcli_exit_code(rc);
  }
  zkc_client_close(c);
  return code;
}
