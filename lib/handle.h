/* The client's ZooKeeper handle (handle.c). */
#ifndef ZKC_HANDLE_H
#define ZKC_HANDLE_H

#include "zkcoord/client.h"

/* Opens a ZooKeeper handle for c (a new session) and installs it. ZKC_OK,
 * ZKC_EINVAL, ZKC_ENOMEM, ZKC_ESYSTEM or a refusal of the credentials. */
int zkc__handle_open(zkc_client_t *c);
/* Drops the current handle: close sets closing=1 (requests then fail with
 * ZKC_ECLOSED), session re-creation 0 (they fail with ZKC_ECONNLOSS). */
void zkc__handle_drop(zkc_client_t *c, int closing);

#endif /* ZKC_HANDLE_H */
