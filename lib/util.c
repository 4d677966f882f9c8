/* SPDX-License-Identifier: Apache-2.0 */
/* Clock, condition variables, randomness and thread identity. */
#include "util.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "zkcoord/common.h"

int64_t zkc__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t zkc__boot_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t zkc__deadline_after(int64_t timeout_ms) {
  if (timeout_ms < 0) return ZKC__FOREVER;
  int64_t now = zkc__now_ms();
  return timeout_ms > ZKC__FOREVER - now ? ZKC__FOREVER : now + timeout_ms;
}

int zkc__cond_init(pthread_cond_t *cv) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0) return ZKC_ESYSTEM;
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  int rc = pthread_cond_init(cv, &attr);
  pthread_condattr_destroy(&attr);
  return rc == 0 ? ZKC_OK : ZKC_ESYSTEM;
}

int zkc__cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
                         int64_t deadline_ms) {
  if (deadline_ms == ZKC__FOREVER) {
    pthread_cond_wait(cv, mu);
    return 0;
  }
  if (zkc__now_ms() >= deadline_ms) return ETIMEDOUT;
  struct timespec ts = {.tv_sec = deadline_ms / 1000,
                        .tv_nsec = (deadline_ms % 1000) * 1000000};
  int rc = pthread_cond_timedwait(cv, mu, &ts);
  return rc == ETIMEDOUT ? ETIMEDOUT : 0;
}

int zkc__cond_await(pthread_cond_t *cv, pthread_mutex_t *mu,
                    int64_t deadline_ms, int (*done)(void *), void *arg) {
  while (!done(arg))
    if (zkc__cond_wait_until(cv, mu, deadline_ms) == ETIMEDOUT)
      return done(arg) ? ZKC_OK : ZKC_ETIMEDOUT;
  return ZKC_OK;
}

int zkc__random_bytes(void *buf, size_t len) {
  unsigned char *p = buf;
  while (len > 0) {
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ZKC_ESYSTEM;
    }
    p += n;
    len -= (size_t)n;
  }
  return ZKC_OK;
}

uint64_t zkc__random_range(uint64_t lo, uint64_t hi) {
  uint64_t r = 0;
  if (hi <= lo || zkc__random_bytes(&r, sizeof r) != ZKC_OK) return lo;
  uint64_t span = hi - lo + 1;
  return span == 0 ? r : lo + r % span;
}

void zkc__uuid_format(const unsigned char bytes[16], char out[37]) {
  static const char hex[] = "0123456789abcdef";
  unsigned char b[16];
  memcpy(b, bytes, 16);
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  char *o = out;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *o++ = '-';
    *o++ = hex[b[i] >> 4];
    *o++ = hex[b[i] & 0x0f];
  }
  *o = '\0';
}

int zkc__uuid_new(char out[37]) {
  unsigned char b[16];
  int rc = zkc__random_bytes(b, sizeof b);
  if (rc != ZKC_OK) return rc;
  zkc__uuid_format(b, out);
  return ZKC_OK;
}

static _Thread_local const atomic_int *cancel_flag;

void zkc__cancel_bind(const atomic_int *flag) { cancel_flag = flag; }

int zkc__cancelled(void) {
  return cancel_flag != NULL && atomic_load(cancel_flag) != 0;
}

static _Thread_local int on_callback_thread;

void zkc__mark_callback_thread(void) { on_callback_thread = 1; }

static _Thread_local int dispatching;

int zkc__on_callback_thread(void) { return on_callback_thread || dispatching; }

void zkc__dispatch_enter(void) { dispatching++; }
void zkc__dispatch_leave(void) { dispatching--; }

uint64_t zkc__thread_id(void) {
  static atomic_uint_fast64_t next = 1;
  static _Thread_local uint64_t id;
  if (id == 0) id = atomic_fetch_add(&next, 1);
  return id;
}

int zkc__grow(void *array, size_t *cap, size_t n, size_t size,
              size_t first) {
  if (n < *cap) return 1;
  size_t more = *cap ? 2 * *cap : first;
  void *v = realloc(*(void **)array, more * size);
  if (v == NULL) return 0;
  *(void **)array = v;
  *cap = more;
  return 1;
}

_Thread_local int zkc__hash_oom; /* set by uthash on a failed add (hash.h) */

void zkc__strings_free(char **strings, size_t count) {
  if (strings == NULL) return;
  for (size_t i = 0; i < count; i++) free(strings[i]);
  free(strings);
}
