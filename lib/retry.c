/* Retry policy: exponential backoff with jitter on connection loss and
 * operation timeout. */
#include "client_impl.h"
#include "zkcoord/common.h"

int zkc__retryable(int rc) {
  return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT;
}

/* base * random(1 .. 2^(n+1)), capped; the exponent is capped too so the
 * shift cannot overflow. */
static int64_t backoff_ms(const zkc_retry_policy_t *p, int attempt) {
  int shift = attempt + 1 > 30 ? 30 : attempt + 1;
  int64_t sleep = (int64_t)p->base_sleep_ms *
                  (int64_t)zkc__random_range(1, (uint64_t)1 << shift);
  return sleep > p->max_sleep_ms ? p->max_sleep_ms : sleep;
}

int zkc__retry_wait(zkc_client_t *c, int *attempt, int rc,
                    int64_t deadline_ms) {
  if (!zkc__retryable(rc) || *attempt >= c->opts.retry.max_retries) return rc;
  int64_t sleep = backoff_ms(&c->opts.retry, *attempt);
  int64_t left = deadline_ms - zkc__now_ms();
  if (deadline_ms != ZKC__FOREVER && left <= 0) return ZKC_ETIMEDOUT;
  if (deadline_ms != ZKC__FOREVER && sleep > left) sleep = left;
  /* Sleep on the state condition so that close cuts the backoff short. */
  int64_t until = zkc__now_ms() + sleep;
  pthread_mutex_lock(&c->mu);
  while (!c->closed && !zkc__cancelled() && zkc__now_ms() < until)
    zkc__cond_wait_until(&c->state_cv, &c->mu, until);
  pthread_mutex_unlock(&c->mu);
  if (zkc__cancelled()) return ZKC_ECLOSED;
  (*attempt)++;
  return zkc__wait_connected(c, deadline_ms);
}
