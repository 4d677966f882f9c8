/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord: ZooKeeper locks and leader election from the shell. */
#include "cli.h"

int main(int argc, char **argv) {
  zkcli_opts_t o;
  int code = zkcli_parse(argc, argv, &o);
  if (code >= 0) return code;
  /* Before anything opens a descriptor of its own. */
  zkcli_fds_snapshot();
  if (o.argv != NULL && (code = zkcli_child_check(&o)) != 0) return code;
  switch (o.cmd) {
    case ZKCLI_LOCK:
      return zkcli_cmd_lock(&o);
    case ZKCLI_SEM:
      return zkcli_cmd_sem(&o);
    case ZKCLI_LEADER:
      return zkcli_cmd_leader(&o);
    case ZKCLI_REVOKE:
      return zkcli_cmd_revoke(&o);
    default:
      return zkcli_cmd_status(&o);
  }
}
