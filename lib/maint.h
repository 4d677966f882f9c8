/* The maintenance thread (maint.c). */
#ifndef ZKC_MAINT_H
#define ZKC_MAINT_H

#include "zkcoord/client.h"

/* Starts the thread: ZKC_OK or ZKC_ESYSTEM. */
int zkc__maint_start(zkc_client_t *c);
/* Joins it (the client must be marked closed and the state condition
 * signalled). */
void zkc__maint_stop(zkc_client_t *c);
/* Frees the session events it did not process: after the handle is
 * dropped, when its watcher can queue no more. */
void zkc__maint_free(zkc_client_t *c);

#endif /* ZKC_MAINT_H */
