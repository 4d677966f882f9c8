/* SPDX-License-Identifier: Apache-2.0 */
/* Small shared helpers below the session layer: monotonic clock,
 * condition variables with deadlines, randomness, the callback-thread
 * marker, cancellation and thread identity. */
#ifndef ZKC_UTIL_H
#define ZKC_UTIL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>


/* No deadline. */
#define ZKC__FOREVER INT64_MAX

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t zkc__now_ms(void);

/* Milliseconds on CLOCK_BOOTTIME: like CLOCK_MONOTONIC, but it also runs
 * while the machine is suspended, as the servers' clocks do. A grant's
 * freshness (zkc__grant_fresh) is judged on it. */
int64_t zkc__boot_ms(void);

/* now + timeout_ms, saturating; timeout_ms < 0 means ZKC__FOREVER. */
int64_t zkc__deadline_after(int64_t timeout_ms);

/* Initialises a condition variable that waits on CLOCK_MONOTONIC. */
int zkc__cond_init(pthread_cond_t *cv);

/* Waits on cv until signalled or deadline_ms (monotonic, ZKC__FOREVER for
 * none). Returns 0, or ETIMEDOUT once the deadline has passed. */
int zkc__cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
                         int64_t deadline_ms);

/* The one wait-until-deadline loop: waits on cv (mu held) until done(arg)
 * is nonzero or deadline_ms passes. ZKC_OK once done, else ZKC_ETIMEDOUT
 * (done is asked once more at the deadline). */
int zkc__cond_await(pthread_cond_t *cv, pthread_mutex_t *mu,
                    int64_t deadline_ms, int (*done)(void *), void *arg);

/* Fills buf with random bytes (getrandom); ZKC_OK or ZKC_ESYSTEM. */
int zkc__random_bytes(void *buf, size_t len);

/* Uniform random integer in [lo, hi]. */
uint64_t zkc__random_range(uint64_t lo, uint64_t hi);

/* Formats 16 random bytes as a lowercase RFC 4122 version-4 UUID string
 * (36 characters + NUL). */
void zkc__uuid_format(const unsigned char bytes[16], char out[37]);

/* New random lowercase UUID v4 into out (37 bytes); ZKC_OK or ZKC_ESYSTEM. */
int zkc__uuid_new(char out[37]);

/* Marks the calling thread as a ZooKeeper callback thread (done by every
 * zkcoord watcher and completion) and asks whether it is one. Blocking calls
 * check this to fail with ZKC_EDEADLK instead of stalling all callbacks. */
void zkc__mark_callback_thread(void);
int zkc__on_callback_thread(void);
/* Brackets the application's own thread while it runs zkcoord callbacks
 * (async dispatch): it counts as a callback thread meanwhile. */
void zkc__dispatch_enter(void);
void zkc__dispatch_leave(void);

/* Cancellation of one thread's blocking internal call (the leader latch's
 * own thread uses it; NULL = none). While bound, the waits inside the lock
 * internals (predecessor watch, retry backoff, waiting for a connection)
 * give up with ZKC_ECLOSED once *flag is nonzero. Whoever sets the flag
 * then calls zkc__cancel_wake(client) (waiters.c) so a sleeping wait sees
 * it. */
void zkc__cancel_bind(const atomic_int *flag);
int zkc__cancelled(void);

/* A small per-process thread id, stable for the thread's life (reentrancy
 * tables are keyed by it). */
uint64_t zkc__thread_id(void);

/* Room for one more element in a growing array: *(void **)array holds
 * *cap elements of `size` bytes, n of them used; when full it is doubled
 * (`first` elements at first). 0 when out of memory (the array unchanged). */
int zkc__grow(void *array, size_t *cap, size_t n, size_t size, size_t first);

/* Frees an array of count strings and the strings. Accepts NULL. */
void zkc__strings_free(char **strings, size_t count);

#endif /* ZKC_UTIL_H */
