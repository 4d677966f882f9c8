/* SPDX-License-Identifier: Apache-2.0 */
/* The client's queue views (qview.c), no server: a waiter's read kept per
 * path, names marked gone by the watches' events, and the one question a
 * woken waiter asks: is every node ahead of mine known gone? A wrong "yes"
 * would grant a lock held by another, so each case checks a "no" as well. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client_struct.h"
#include "session_shared.h"
#include "qview.h"

static zkc_client_t C;

static int setup(void **state) {
  (void)state;
  memset(&C, 0, sizeof C);
  return pthread_mutex_init(&C.views_mu, NULL);
}

static int teardown(void **state) {
  (void)state;
  zkc__qview_free_all(&C);
  assert_null(C.views);
  return pthread_mutex_destroy(&C.views_mu);
}

/* A read answering these names (NULL-terminated), in the server's order. */
static zkc__names_t read_of(const char *first, ...) {
  zkc__names_t r = {0, calloc(16, sizeof(char *))};
  assert_non_null(r.data);
  va_list ap;
  va_start(ap, first);
  for (const char *s = first; s; s = va_arg(ap, const char *))
    assert_non_null(r.data[r.count++] = strdup(s));
  va_end(ap);
  return r;
}

static void names_free(zkc__names_t *r) {
  for (int i = 0; i < r->count; i++) free(r->data[i]);
  free(r->data);
}

/* Protected names (a random id each), as zkcoord, Curator and
 * go-zookeeper make them, and kazoo's. */
#define A "_c_0a1b2c3d-0000-4000-8000-00000000000a-lock-0000000003"
#define B "0123456789abcdef0123456789abcdef__lock__0000000007"
#define ME "_c_0a1b2c3d-0000-4000-8000-0000000000ff-lock-0000000009"
#define LATER "_c_0a1b2c3d-0000-4000-8000-00000000000c-lock-0000000012"

/* Not clear until every node ahead is told gone, in any order; nodes
 * behind do not count; the read stays the caller's. */
static void clear_once_every_node_ahead_is_gone(void **state) {
  (void)state;
  int held = 0;
  zkc__names_t r = read_of(LATER, ME, B, A, (char *)NULL);
  zkc__qview_update(&C, "/q", &r, ME, &held);
  assert_int_equal(held, 1);
  assert_int_equal(r.count, 4); /* the view keeps sequences: a copy */
  names_free(&r);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_gone(&C, "/q/" B);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* A still there */
  zkc__qview_gone(&C, "/other/" A); /* another path: not ours */
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_gone(&C, "/q/" A);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
  assert_false(zkc__qview_clear_ahead(&C, "/q", LATER)); /* ME ahead */
  zkc__qview_gone(&C, "/q/" ME);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* ours gone: no */
  zkc__qview_drop(&C, "/q", &held);
  assert_int_equal(held, 0);
  assert_null(C.views); /* the last reference: freed */
}

/* A name the view does not show is never clear (a read made before our
 * node): the next read that shows it replaces the view, and the gone
 * marks of the old one carry over. */
static void unknown_node_not_clear_until_read(void **state) {
  (void)state;
  int h1 = 0, h2 = 0;
  zkc__names_t r1 = read_of(A, B, (char *)NULL);
  zkc__qview_update(&C, "/q", &r1, B, &h1);
  names_free(&r1);
  zkc__qview_gone(&C, "/q/" A);
  assert_true(zkc__qview_clear_ahead(&C, "/q", B));
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__names_t r2 = read_of(A, B, ME, (char *)NULL); /* A gone since, yet shown */
  zkc__qview_update(&C, "/q", &r2, ME, &h2);
  names_free(&r2);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* B */
  zkc__qview_gone(&C, "/q/" B);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME)); /* A's mark kept */
  zkc__qview_drop(&C, "/q", &h1);
  assert_non_null(C.views); /* h2 still holds it */
  zkc__qview_drop(&C, "/q", &h2);
  assert_null(C.views);
}

/* A name someone may make twice (a squatter's, sequenced or not) is never
 * marked gone: its delete told, it may stand again. It keeps the waiters
 * behind it reading the queue; a name without a sequence counts ahead of
 * every queued one. */
static void names_made_twice_are_never_gone(void **state) {
  (void)state;
  int held = 0;
  zkc__names_t r = read_of(ME, "junk", "x-lock-0000000004", (char *)NULL);
  zkc__qview_update(&C, "/q", &r, ME, &held);
  names_free(&r);
  zkc__qview_gone(&C, "/q/junk");
  zkc__qview_gone(&C, "/q/x-lock-0000000004");
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
  zkc__names_t r2 = read_of(ME, "junk", (char *)NULL);
  zkc__qview_update(&C, "/q", &r2, ME, &held);
  names_free(&r2);
  zkc__qview_gone(&C, "/q/junk");
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
}

/* A read-write lock's writer ahead, even gone, keeps the read: its
 * downgrade may have made a read node with its sequence since the view's
 * read, ahead of ours. A writer behind ours does not count. */
static void writer_ahead_keeps_the_read(void **state) {
  (void)state;
  int held = 0;
#define W "_c_0a1b2c3d-0000-4000-8000-00000000000b-__WRIT__0000000004"
#define W_LATER "_c_0a1b2c3d-0000-4000-8000-00000000000d-__WRIT__0000000011"
  zkc__names_t r = read_of(W, ME, (char *)NULL);
  zkc__qview_update(&C, "/q", &r, ME, &held);
  names_free(&r);
  zkc__qview_gone(&C, "/q/" W);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
  zkc__names_t r2 = read_of(A, ME, W_LATER, (char *)NULL);
  zkc__qview_update(&C, "/q", &r2, ME, &held);
  names_free(&r2);
  zkc__qview_gone(&C, "/q/" A);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
}

/* A downgrade's read node shares its writer's sequence. The writer's
 * delete marks the writer gone, never the read node: not by the event
 * (both listed), not when another waiter's read replaces the view (the
 * read node listed, its writer no longer). Else a writer behind it would
 * be granted beside the downgraded reader. */
static void downgrade_read_node_is_not_its_writer(void **state) {
  (void)state;
  int held = 0, later_held = 0;
#define W_READ "_c_0a1b2c3d-0000-4000-8000-00000000000e-__READ__0000000004"
  zkc__names_t r = read_of(W, ME, (char *)NULL);
  zkc__qview_update(&C, "/q", &r, ME, &held);
  names_free(&r);
  zkc__qview_gone(&C, "/q/" W);
  /* Another waiter of this client reads after the downgrade. */
  zkc__names_t r2 = read_of(W_READ, ME, LATER, (char *)NULL);
  zkc__qview_update(&C, "/q", &r2, LATER, &later_held);
  names_free(&r2);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* the reader stands */
  zkc__qview_gone(&C, "/q/" W_READ);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &later_held);
  zkc__qview_drop(&C, "/q", &held);
  /* Both listed: the writer's delete leaves the read node standing. */
  zkc__names_t r3 = read_of(W, W_READ, ME, (char *)NULL);
  zkc__qview_update(&C, "/q", &r3, ME, &held);
  names_free(&r3);
  zkc__qview_gone(&C, "/q/" W);
  zkc__names_t r4 = read_of(W_READ, ME, LATER, (char *)NULL);
  zkc__qview_update(&C, "/q", &r4, LATER, &later_held);
  names_free(&r4);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &later_held);
  zkc__qview_drop(&C, "/q", &held);
}

/* A node whose name carries our own sequence (an outsider's, made without
 * the sequence flag) sorts by name beside ours, and the view cannot tell
 * the two apart by key: it never says clear, whatever is marked gone; the
 * waiter reads the queue. Else the name sorting before ours would be
 * passed over as if it were ours. */
static void a_name_sharing_our_sequence_keeps_the_read(void **state) {
  (void)state;
  int held = 0;
  zkc__names_t r = read_of(A, "0dup-lock-0000000009", ME, (char *)NULL);
  zkc__qview_update(&C, "/q", &r, ME, &held);
  names_free(&r);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_gone(&C, "/q/" A);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* the twin stands */
  zkc__qview_gone(&C, "/q/0dup-lock-0000000009"); /* never marked */
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
  /* Sorting after ours by name, it is behind us, but the view still
   * cannot tell: a read decides. */
  zkc__names_t r2 = read_of(A, ME, "zdup-lock-0000000009", (char *)NULL);
  zkc__qview_update(&C, "/q", &r2, ME, &held);
  names_free(&r2);
  zkc__qview_gone(&C, "/q/" A);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
}

/* A node ahead sharing another's sequence (an outsider's name made
 * without the sequence flag): the view cannot tell which of the two a
 * delete was, so neither is marked, by the event or by a later read that
 * shows only one of them. */
static void a_shared_sequence_ahead_is_never_gone(void **state) {
  (void)state;
  int held = 0, later_held = 0;
#define A_TWIN "0dup-lock-0000000003"
  zkc__names_t r = read_of(A, A_TWIN, ME, (char *)NULL);
  zkc__qview_update(&C, "/q", &r, ME, &held);
  names_free(&r);
  zkc__qview_gone(&C, "/q/" A);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* the twin stands */
  /* Another waiter of this client reads: the twin alone. */
  zkc__names_t r2 = read_of(A_TWIN, ME, LATER, (char *)NULL);
  zkc__qview_update(&C, "/q", &r2, LATER, &later_held);
  names_free(&r2);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &later_held);
  zkc__qview_drop(&C, "/q", &held);
}

/* Gone marks before any view, or for a path nobody waits on, change
 * nothing and keep nothing. */
static void gone_without_a_view_keeps_nothing(void **state) {
  (void)state;
  zkc__qview_gone(&C, "/q/" A);
  zkc__qview_gone(&C, "/");
  zkc__qview_gone(&C, "noslash");
  assert_null(C.views);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(clear_once_every_node_ahead_is_gone,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(unknown_node_not_clear_until_read, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(names_made_twice_are_never_gone, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(writer_ahead_keeps_the_read, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(downgrade_read_node_is_not_its_writer,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(a_name_sharing_our_sequence_keeps_the_read,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(a_shared_sequence_ahead_is_never_gone,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(gone_without_a_view_keeps_nothing, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
