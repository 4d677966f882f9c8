/* The one retry and backoff policy (retry.c): every wait after a failure
 * (a recipe's retried request, the janitor's delete, the guard's check,
 * a new session, the latch's next try) is timed here. */
#ifndef ZKC_RETRY_H
#define ZKC_RETRY_H

#include <stdint.h>

#include "zkcoord/client.h"

/* 1 for the codes worth retrying: connection loss, operation timeout. */
int zkc__retryable(int rc);

/* 1 for the codes the same request would meet again however long it
 * waited: an ACL or the credentials refuse it, the chroot is gone, the
 * server rejects the path or the ACL. A recipe that queues on its own
 * thread (latch, selector) ends its election on them instead of retrying
 * forever. */
int zkc__permanent(int rc);

/* The pause before try `attempt` + 1 (attempt counts from 0) under policy
 * p: base * random(1 .. 2^(attempt+1)), capped at its maximum. */
int64_t zkc__backoff_ms(const zkc_retry_policy_t *p, int attempt);

/* The same policy for the library's own background work (a new session, a
 * janitor's delete, a guard's check, an election's next try), with fixed
 * bounds of its own (100 ms base, 5 s cap) rather than the user's request
 * policy: a zero base must not make it spin, a long cap must not leave a
 * dead node blocking a queue. Counts *attempt up (saturating). */
int64_t zkc__background_backoff_ms(int *attempt);

/* After a retryable failure: sleeps the policy's backoff for `*attempt`,
 * then waits for the connection, both bounded by deadline_ms, and returns
 * ZKC_OK to try again (attempt incremented), or the reason to stop:
 * `rc` itself when the policy is exhausted, ZKC_ETIMEDOUT, ZKC_ECLOSED,
 * ZKC_ELOST. */
int zkc__retry_wait(zkc_client_t *c, int *attempt, int rc,
                    int64_t deadline_ms);

#endif /* ZKC_RETRY_H */
