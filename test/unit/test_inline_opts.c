/* SPDX-License-Identifier: Apache-2.0 */
/* The unsized options calls (zkc_client_open, zkc_latch_create, every
 * zkc_*_opts_init, ...) are inline in the headers over the exported sized
 * calls: each must pass the size of the struct as this program was
 * compiled, its opts pointer as given (NULL too) and the sized call's code
 * back, and an init given NULL must do nothing, as the 0.x calls did. The
 * sized calls here are stand-ins that record what they were given: no
 * library is linked, so what is tested is the headers alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "zkcoord/async.h"
#include "zkcoord/client.h"
#include "zkcoord/latch.h"
#include "zkcoord/selector.h"
#include "zkcoord/semaphore.h"

static struct {
  int calls;
  const char *fn;
  const void *opts;
  size_t size;
} seen;

static int record(const char *fn, const void *opts, size_t size) {
  seen.calls++;
  seen.fn = fn;
  seen.opts = opts;
  seen.size = size;
  return -4242; /* not a code of the table: passed back as given */
}

int zkc_client_opts_init_size(zkc_client_opts_t *o, size_t size) {
  return record(__func__, o, size);
}
int zkc_client_open_size(zkc_client_t **out, const char *cs,
                         const zkc_client_opts_t *o, size_t size) {
  (void)out, (void)cs;
  return record(__func__, o, size);
}
int zkc_latch_opts_init_size(zkc_latch_opts_t *o, size_t size) {
  return record(__func__, o, size);
}
int zkc_latch_create_size(zkc_latch_t **out, zkc_client_t *c, const char *p,
                          const char *id, const zkc_latch_opts_t *o,
                          size_t size) {
  (void)out, (void)c, (void)p, (void)id;
  return record(__func__, o, size);
}
int zkc_selector_opts_init_size(zkc_selector_opts_t *o, size_t size) {
  return record(__func__, o, size);
}
int zkc_selector_create_size(zkc_selector_t **out, zkc_client_t *c,
                             const char *p, zkc_selector_fn fn, void *ctx,
                             const zkc_selector_opts_t *o, size_t size) {
  (void)out, (void)c, (void)p, (void)fn, (void)ctx;
  return record(__func__, o, size);
}
int zkc_sem_opts_init_size(zkc_sem_opts_t *o, size_t size) {
  return record(__func__, o, size);
}
int zkc_sem_create_size(zkc_sem_t **out, zkc_client_t *c, const char *p,
                        const zkc_sem_opts_t *o, size_t size) {
  (void)out, (void)c, (void)p;
  return record(__func__, o, size);
}
int zkc_async_opts_init_size(zkc_async_opts_t *o, size_t size) {
  return record(__func__, o, size);
}
int zkc_async_create_size(zkc_async_t **out, zkc_client_t *c,
                          const zkc_async_opts_t *o, size_t size) {
  (void)out, (void)c;
  return record(__func__, o, size);
}

static void expect(const char *fn, const void *opts, size_t size) {
  assert_int_equal(seen.calls, 1);
  assert_string_equal(seen.fn, fn);
  assert_ptr_equal(seen.opts, opts);
  assert_int_equal(seen.size, size);
  memset(&seen, 0, sizeof seen);
}

/* An init hands its struct and sizeof over; NULL reaches no call. */
#define INIT_CASE(init, type)                       \
  do {                                              \
    type o = {0};                                   \
    init(&o);                                       \
    expect(#init "_size", &o, sizeof(type));        \
    init(NULL);                                     \
    assert_int_equal(seen.calls, 0);                \
  } while (0)

static void inits_pass_sizeof_and_ignore_null(void **state) {
  (void)state;
  memset(&seen, 0, sizeof seen);
  INIT_CASE(zkc_client_opts_init, zkc_client_opts_t);
  INIT_CASE(zkc_latch_opts_init, zkc_latch_opts_t);
  INIT_CASE(zkc_selector_opts_init, zkc_selector_opts_t);
  INIT_CASE(zkc_sem_opts_init, zkc_sem_opts_t);
  INIT_CASE(zkc_async_opts_init, zkc_async_opts_t);
}

static void nothing(void *ctx, zkc_selector_t *s) { (void)ctx, (void)s; }

/* A create hands its options (NULL as NULL: the defaults) and sizeof over
 * and returns the sized call's code. */
static void creates_pass_sizeof_and_the_code(void **state) {
  (void)state;
  memset(&seen, 0, sizeof seen);
  zkc_client_opts_t co = {0};
  zkc_latch_opts_t lo = {0};
  zkc_selector_opts_t so = {0};
  zkc_sem_opts_t mo = {0};
  zkc_async_opts_t ao = {0};
  for (int with = 0; with <= 1; with++) {
    zkc_client_t *c;
    assert_int_equal(zkc_client_open(&c, "h:1", with ? &co : NULL), -4242);
    expect("zkc_client_open_size", with ? &co : NULL, sizeof co);
    zkc_latch_t *l;
    assert_int_equal(zkc_latch_create(&l, NULL, "/p", "id", with ? &lo : NULL),
                     -4242);
    expect("zkc_latch_create_size", with ? &lo : NULL, sizeof lo);
    zkc_selector_t *s;
    assert_int_equal(zkc_selector_create(&s, NULL, "/p", nothing, NULL,
                                         with ? &so : NULL),
                     -4242);
    expect("zkc_selector_create_size", with ? &so : NULL, sizeof so);
    zkc_sem_t *m;
    assert_int_equal(zkc_sem_create(&m, NULL, "/p", with ? &mo : NULL), -4242);
    expect("zkc_sem_create_size", with ? &mo : NULL, sizeof mo);
    zkc_async_t *a;
    assert_int_equal(zkc_async_create(&a, NULL, with ? &ao : NULL), -4242);
    expect("zkc_async_create_size", with ? &ao : NULL, sizeof ao);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(inits_pass_sizeof_and_ignore_null),
      cmocka_unit_test(creates_pass_sizeof_and_the_code),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
