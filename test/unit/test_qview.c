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
/* The reads' parent: one incarnation, each read later than the last. */
static int64_t CV;

static int setup(void **state) {
  (void)state;
  memset(&C, 0, sizeof C);
  CV = 0;
  return pthread_mutex_init(&C.views_mu, NULL);
}

static int teardown(void **state) {
  (void)state;
  zkc__qview_free_all(&C);
  assert_null(C.views);
  return pthread_mutex_destroy(&C.views_mu);
}

/* A read answering first and the names in ap (NULL-terminated), in the
 * server's order. */
static zkc__names_t read_ofv(const char *first, va_list ap) {
  zkc__names_t r = {0, calloc(16, sizeof(char *))};
  assert_non_null(r.data);
  for (const char *s = first; s; s = va_arg(ap, const char *))
    assert_non_null(r.data[r.count++] = strdup(s));
  return r;
}

static zkc__names_t read_of(const char *first, ...) {
  va_list ap;
  va_start(ap, first);
  zkc__names_t r = read_ofv(first, ap);
  va_end(ap);
  return r;
}

/* The view takes read r of "/q" with the parent's stat given. */
static void take_at(zkc__names_t *r, int64_t czxid, int64_t pzxid,
                    int *held) {
  zkc__stat_t parent = {.czxid = czxid, .pzxid = pzxid};
  zkc__qview_update(&C, "/q", r->data, (size_t)r->count, &parent, held);
}

/* ... a read later than every one before. */
static void take(zkc__names_t *r, int *held) { take_at(r, 1, ++CV, held); }

static void names_free(zkc__names_t *r) {
  for (int i = 0; i < r->count; i++) free(r->data[i]);
  free(r->data);
}

/* The view takes a later read of these names (NULL-terminated). */
static void take_read(int *held, const char *first, ...) {
  va_list ap;
  va_start(ap, first);
  zkc__names_t r = read_ofv(first, ap);
  va_end(ap);
  take(&r, held);
  names_free(&r);
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
  take(&r, &held);
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
  take_read(&h1, A, B, (char *)NULL);
  zkc__qview_gone(&C, "/q/" A);
  assert_true(zkc__qview_clear_ahead(&C, "/q", B));
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__names_t r2 = read_of(A, B, ME, (char *)NULL); /* A gone since, yet shown */
  take(&r2, &h2);
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
 * behind it reading the queue. A name without a sequence is no contender,
 * as for the grant's decision. */
static void names_made_twice_are_never_gone(void **state) {
  (void)state;
  int held = 0;
  take_read(&held, ME, "junk", "x-lock-0000000004", (char *)NULL);
  zkc__qview_gone(&C, "/q/junk");
  zkc__qview_gone(&C, "/q/x-lock-0000000004");
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
  take_read(&held, ME, "junk", (char *)NULL);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
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
  take_read(&held, W, ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" W);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
  take_read(&held, A, ME, W_LATER, (char *)NULL);
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
  take_read(&held, W, ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" W);
  /* Another waiter of this client reads after the downgrade. */
  take_read(&later_held, W_READ, ME, LATER, (char *)NULL);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* the reader stands */
  zkc__qview_gone(&C, "/q/" W_READ);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &later_held);
  zkc__qview_drop(&C, "/q", &held);
  /* Both listed: the writer's delete leaves the read node standing. */
  take_read(&held, W, W_READ, ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" W);
  take_read(&later_held, W_READ, ME, LATER, (char *)NULL);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &later_held);
  zkc__qview_drop(&C, "/q", &held);
}

/* A node whose name carries our own sequence (an outsider's, made without
 * the sequence flag) sorts by name beside ours: one sorting before ours
 * stands ahead of it until its delete is told (never, for a name made
 * twice), as in the grant's decision. A view keyed by sequence took it
 * for ours. */
static void a_name_sharing_our_sequence_keeps_the_read(void **state) {
  (void)state;
  int held = 0;
  take_read(&held, A, "0dup-lock-0000000009", ME, (char *)NULL);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_gone(&C, "/q/" A);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* the twin stands */
  zkc__qview_gone(&C, "/q/0dup-lock-0000000009"); /* never marked */
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
  /* Sorting after ours by name, it is behind us. */
  take_read(&held, A, ME, "zdup-lock-0000000009", (char *)NULL);
  zkc__qview_gone(&C, "/q/" A);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
}

/* A node ahead sharing another's sequence (an outsider's name made
 * without the sequence flag) is not the other: the other's delete marks
 * the other alone, by the event or carried into a later read that shows
 * the twin alone. */
static void a_shared_sequence_ahead_is_never_gone(void **state) {
  (void)state;
  int held = 0, later_held = 0;
#define A_TWIN "0dup-lock-0000000003"
  take_read(&held, A, A_TWIN, ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" A);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* the twin stands */
  /* Another waiter of this client reads: the twin alone. */
  take_read(&later_held, A_TWIN, ME, LATER, (char *)NULL);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &later_held);
  zkc__qview_drop(&C, "/q", &held);
}

/* A node that joined ahead of ours after the view's read (a squatter, or
 * a twin of our own sequence: outsiders' names made without the sequence
 * flag) is in the next, later read, and that read makes the view: it
 * stands ahead until told gone. The view used to keep its first read
 * while it showed our node. */
static void a_later_read_shows_what_joined_ahead(void **state) {
  (void)state;
  int held = 0;
  take_read(&held, A, B, ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" A);
  take_read(&held, B, "0dup-lock-0000000009", ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" B);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  take_read(&held, B, "squat-lock-0000000001", ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" B);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &held);
}

/* A delete is told by name: a protected-looking name carrying B's
 * sequence, never in the view, marks nothing when it goes (a view keyed
 * by sequence marked B). */
static void a_twin_outside_the_view_marks_nothing(void **state) {
  (void)state;
  int held = 0;
  take_read(&held, A, B, ME, (char *)NULL);
  zkc__qview_gone(&C, "/q/" A);
  zkc__qview_gone(&C,
                  "/q/_c_zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz-lock-0000000007");
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* B stands */
  zkc__qview_drop(&C, "/q", &held);
}

/* The queue order is the grant's (sequence, then name) whatever the
 * kinds: an outsider's name with our reader's sequence that sorts before
 * it stands ahead, a writer to the grant's decision. A view ordering
 * readers first by key put it behind. */
static void same_sequence_of_another_kind_keeps_name_order(void **state) {
  (void)state;
  int held = 0;
#define KAZOO_W "0123456789abcdef0123456789abcdef__lock__0000000003"
#define ME_READ "_c_0a1b2c3d-0000-4000-8000-0000000000ff-__READ__0000000005"
  take_read(&held, KAZOO_W, "0x0000000005", ME_READ, (char *)NULL);
  zkc__qview_gone(&C, "/q/" KAZOO_W);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME_READ));
  zkc__qview_drop(&C, "/q", &held);
}

/* Runs of one client may hand the view their reads in another order than
 * the server answered them: an earlier read (by the parent's pzxid)
 * never replaces a later one, which may show a node the earlier lacks.
 * A read of the parent made again (a later czxid) replaces any of the old
 * one, and no gone mark crosses: a kazoo lock's name comes again in the
 * new parent, its counter started again. A late read of the old parent
 * never replaces the new one's. */
static void an_earlier_read_never_replaces_a_later(void **state) {
  (void)state;
  int h1 = 0, h2 = 0;
  zkc__names_t later = read_of(A, "squat-lock-0000000004", ME, (char *)NULL);
  take_at(&later, 1, 20, &h1);
  names_free(&later);
  zkc__names_t earlier = read_of(A, ME, (char *)NULL);
  take_at(&earlier, 1, 18, &h2);
  zkc__qview_gone(&C, "/q/" A);
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* the squatter */
  zkc__names_t again = read_of(B, ME, (char *)NULL);
  take_at(&again, 1, 30, &h2);
  zkc__qview_gone(&C, "/q/" B); /* B, in the old parent */
  take_at(&again, 2, 3, &h2);   /* /q deleted and made again */
  assert_false(zkc__qview_clear_ahead(&C, "/q", ME)); /* not carried */
  zkc__qview_gone(&C, "/q/" B);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
  take_at(&earlier, 1, 50, &h2); /* the old parent's, answered late */
  names_free(&earlier);
  names_free(&again);
  assert_true(zkc__qview_clear_ahead(&C, "/q", ME));
  zkc__qview_drop(&C, "/q", &h1);
  zkc__qview_drop(&C, "/q", &h2);
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
      cmocka_unit_test_setup_teardown(a_later_read_shows_what_joined_ahead,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(a_twin_outside_the_view_marks_nothing,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          same_sequence_of_another_kind_keeps_name_order, setup, teardown),
      cmocka_unit_test_setup_teardown(an_earlier_read_never_replaces_a_later,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(gone_without_a_view_keeps_nothing, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
