/* The maintenance thread (maint.c). */
#ifndef ZKC_MAINT_H
#define ZKC_MAINT_H

#include "zkcoord/client.h"

/* Starts the thread: ZKC_OK or ZKC_ESYSTEM. */
int zkc__maint_start(zkc_client_t *c);
/* Joins it (the client must be marked closed and the state condition
 * signalled) and frees the events it had not processed. */
void zkc__maint_stop(zkc_client_t *c);

#endif /* ZKC_MAINT_H */
