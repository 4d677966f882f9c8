/* Log lines through each client's sink (log.c). */
#ifndef ZKC_LOG_H
#define ZKC_LOG_H

#include "zkcoord/client.h"

/* An internal log line through the user's sink (filtered by level). Never
 * called under a library lock: the sink is the user's code. */
void zkc__log(zkc_client_t *c, zkc_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- for the session layer ---- */

/* The ZooKeeper client's log callback bound to c's sink (a shared fallback
 * when every slot is taken), as the handle wants it; unbound at close. */
typedef void (*zkc__zk_log_fn)(const char *message);
zkc__zk_log_fn zkc__log_bind(zkc_client_t *c);
void zkc__log_unbind(zkc_client_t *c);

#endif /* ZKC_LOG_H */
