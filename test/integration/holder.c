/* Test helper process: takes a lock and holds it until stdin closes (then
 * releases and exits 0) or until it is killed.
 *   zkt_holder CONNECT PATH SESSION_TIMEOUT_MS
 * Prints "HELD <token> <node>" once the lock is held. */
#include <stdio.h>
#include <stdlib.h>

#include "zkcoord/zkcoord.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: zkt_holder CONNECT PATH SESSION_TIMEOUT_MS\n");
    return 64;
  }
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = atoi(argv[3]);
  zkc_client_t *c;
  zkc_mutex_t *m;
  int rc = zkc_client_open(&c, argv[1], &o);
  if (rc == ZKC_OK) rc = zkc_mutex_create(&m, c, argv[2]);
  if (rc == ZKC_OK) rc = zkc_mutex_acquire(m);
  if (rc != ZKC_OK) {
    fprintf(stderr, "zkt_holder: %s\n", zkc_strerror(rc));
    return 1;
  }
  int64_t token = 0;
  char node[1200];
  zkc_mutex_fencing_token(m, &token);
  zkc_mutex_lock_node(m, node, sizeof node);
  printf("HELD %lld %s\n", (long long)token, node);
  fflush(stdout);
  while (getchar() != EOF) {
  }
  rc = zkc_mutex_release(m);
  zkc_mutex_destroy(m);
  zkc_client_close(c);
  return rc == ZKC_OK ? 0 : 1;
}
