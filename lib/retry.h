/* The one retry and backoff policy (retry.c): every wait after a failure
 * (a recipe's retried request, the janitor's delete, the guard's check,
 * a new session, the latch's next try) is timed here. */
#ifndef ZKC_RETRY_H
#define ZKC_RETRY_H

#include <stdint.h>

#include "zkcoord/client.h"

/* 1 for the codes worth retrying: connection loss, operation timeout. */
int zkc__retryable(int rc);

/* The pause before try `attempt` + 1 (attempt counts from 0): the client's
 * retry policy, base * random(1 .. 2^(attempt+1)) capped at its maximum,
 * and never less than floor_ms (background work must not spin when the
 * policy's base is 0). */
int64_t zkc__backoff_ms(zkc_client_t *c, int attempt, int64_t floor_ms);

/* After a retryable failure: sleeps the policy's backoff for `*attempt`,
 * then waits for the connection, both bounded by deadline_ms, and returns
 * ZKC_OK to try again (attempt incremented), or the reason to stop:
 * `rc` itself when the policy is exhausted, ZKC_ETIMEDOUT, ZKC_ECLOSED,
 * ZKC_ELOST. */
int zkc__retry_wait(zkc_client_t *c, int *attempt, int rc,
                    int64_t deadline_ms);

#endif /* ZKC_RETRY_H */
