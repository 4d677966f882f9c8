/* SPDX-License-Identifier: Apache-2.0 */
/* Retry policy: exponential backoff with jitter on connection loss and
 * operation timeout. */

#include "session.h"
#include "client_struct.h"
#include "kernel_door.h"
#include "session_shared.h"
#include "zkcoord/common.h"

int zkc__retryable(int rc) {
  return rc == ZKC_ECONNLOSS || rc == ZKC_EOPTIMEOUT;
}

int zkc__permanent(int rc) {
  return rc == ZKC_ENOAUTH || rc == ZKC_EAUTHFAILED || rc == ZKC_ENOROOT ||
         rc == ZKC_EBADARGS || rc == ZKC_EINVALIDACL || rc == ZKC_ENOCHILDREN ||
         rc == ZKC_ELAYOUT;
}

/* The exponent is capped so the shift cannot overflow. */
int64_t zkc__backoff_ms(const zkc_retry_policy_t *p, int attempt) {
  int shift = attempt < 0 ? 1 : attempt + 1 > 30 ? 30 : attempt + 1;
  int64_t sleep = (int64_t)p->base_sleep_ms *
                  (int64_t)zkc__random_range(1, (uint64_t)1 << shift);
  return sleep > p->max_sleep_ms ? p->max_sleep_ms : sleep;
}

int64_t zkc__background_backoff_ms(int *attempt) {
  static const zkc_retry_policy_t background = {
      .base_sleep_ms = 100, .max_sleep_ms = 5000, .max_retries = 0};
  int64_t sleep = zkc__backoff_ms(&background, *attempt);
  if (*attempt < 30) (*attempt)++;
  return sleep;
}

static int backoff_over(void *arg) {
  zkc_client_t *c = arg;
  return c->closed || zkc__cancelled();
}

int zkc__retry_delay(zkc_client_t *c, int *attempt, int rc,
                     int64_t deadline_ms, int64_t *wake_at) {
  if (!zkc__retryable(rc) || *attempt >= c->opts.retry.max_retries) return rc;
  int64_t sleep = zkc__backoff_ms(&c->opts.retry, *attempt);
  int64_t left = deadline_ms - zkc__now_ms();
  if (deadline_ms != ZKC__FOREVER && left <= 0) return ZKC_ETIMEDOUT;
  if (deadline_ms != ZKC__FOREVER && sleep > left) sleep = left;
  (*attempt)++;
  *wake_at = zkc__now_ms() + sleep;
  return ZKC_OK;
}

int zkc__pause_until(zkc_client_t *c, int64_t until_ms) {
  /* On the state condition, so that close cuts the pause short. */
  pthread_mutex_lock(&c->mu);
  zkc__cond_await(&c->state_cv, &c->mu, until_ms, backoff_over, c);
  int over = backoff_over(c);
  pthread_mutex_unlock(&c->mu);
  return over ? ZKC_ECLOSED : ZKC_OK;
}

int zkc__background_retry(zkc_client_t *c, int rc, int *attempt) {
  if (zkc__permanent(rc)) return rc;
  if (attempt == NULL) return ZKC_OK;
  return zkc__pause_until(c,
                          zkc__now_ms() + zkc__background_backoff_ms(attempt));
}
