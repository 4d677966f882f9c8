/* SPDX-License-Identifier: Apache-2.0 */
/* The clients a case has open. A case that fails leaves by longjmp, with its
 * clients still open and their callbacks still pointing into its stack,
 * which its teardown then reuses: a reconnection there once crashed the
 * teardown before it removed the case's nodes, and the suite's leftover
 * check failed too. Test programs link with --wrap for open and close (see
 * test/CMakeLists.txt), so teardown can close what the case left. */
#include "harness.h"
#include "util.h" /* zkc__on_callback_thread */

#include <pthread.h>
#include <stdlib.h>

int __real_zkc_client_open_size(zkc_client_t **out,
                                const char *connect_string,
                                const zkc_client_opts_t *opts, size_t size);
void __real_zkc_client_close(zkc_client_t *client);
int __wrap_zkc_client_open_size(zkc_client_t **out,
                                const char *connect_string,
                                const zkc_client_opts_t *opts, size_t size);
void __wrap_zkc_client_close(zkc_client_t *client);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static zkc_client_t **open_set;
static size_t n_open, cap_open;
static int closed_here; /* by zkt_close_open_clients, since zkt_left_open */

/* Removes c from the set; 1 if it was there. */
static int take_out(zkc_client_t *c) {
  int found = 0;
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < n_open && !found; i++)
    if (open_set[i] == c) {
      open_set[i] = open_set[--n_open];
      found = 1;
    }
  pthread_mutex_unlock(&mu);
  return found;
}

/* zkc_client_open is inline over zkc_client_open_size: one wrap sees both. */
int __wrap_zkc_client_open_size(zkc_client_t **out,
                                const char *connect_string,
                                const zkc_client_opts_t *opts, size_t size) {
  int rc = __real_zkc_client_open_size(out, connect_string, opts, size);
  if (rc != ZKC_OK || out == NULL) return rc;
  pthread_mutex_lock(&mu);
  if (n_open == cap_open) {
    size_t cap = cap_open ? 2 * cap_open : 64;
    zkc_client_t **grown = realloc(open_set, cap * sizeof *grown);
    if (grown == NULL) abort();
    open_set = grown;
    cap_open = cap;
  }
  open_set[n_open++] = *out;
  pthread_mutex_unlock(&mu);
  return rc;
}

/* A close the harness already made is not made twice; a close from a
 * callback thread is refused by the library, so the client stays open. */
void __wrap_zkc_client_close(zkc_client_t *client) {
  if (client == NULL) return;
  if (zkc__on_callback_thread()) {
    __real_zkc_client_close(client);
    return;
  }
  if (take_out(client)) __real_zkc_client_close(client);
}

void zkt_close_open_clients(void) {
  for (;;) {
    zkc_client_t *c = NULL;
    pthread_mutex_lock(&mu);
    if (n_open > 0) {
      c = open_set[--n_open];
      closed_here++;
    }
    pthread_mutex_unlock(&mu);
    if (c == NULL) break;
    __real_zkc_client_close(c);
  }
}

int zkt_left_open(void) {
  pthread_mutex_lock(&mu);
  int n = closed_here;
  closed_here = 0;
  pthread_mutex_unlock(&mu);
  return n;
}
