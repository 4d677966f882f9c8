/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord: ZooKeeper locks and leader election from the shell. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

static int run(const zkcli_opts_t *o) {
  switch (o->cmd) {
    case ZKCLI_LOCK:
      return zkcli_cmd_lock(o);
    case ZKCLI_SEM:
      return zkcli_cmd_sem(o);
    case ZKCLI_LEADER:
      return zkcli_cmd_leader(o);
    case ZKCLI_REVOKE:
      return zkcli_cmd_revoke(o);
    default:
      return zkcli_cmd_status(o);
  }
}

int main(int argc, char **argv) {
  /* Room for all one print puts out (each is flushed when done), so that
   * a write that fails does so in zkcli_flush_stdout, which can say why;
   * a terminal keeps its lines. */
  static char out_buf[1 << 16];
  if (!isatty(STDOUT_FILENO)) setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
  zkcli_opts_t o;
  int code = zkcli_parse(argc, argv, &o);
  if (code < 0) {
    /* Before anything opens a descriptor of its own. */
    zkcli_fds_snapshot();
    if (o.argv == NULL || (code = zkcli_child_check(&o)) == 0) code = run(&o);
  }
  /* What was printed (--help, an answer) must have arrived: exit's own
   * flush would lose a failure. */
  int written = zkcli_flush_stdout();
  return written ? written : code;
}
