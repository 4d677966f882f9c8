/* SPDX-License-Identifier: Apache-2.0 */
/* Each recipe's hold behind a follower cut off from the leader: H holds on
 * follower F alone with a short session and writes through its hold; F is
 * cut off (zk-ensemble.sh isolate: its quorum relays stall); the leader
 * expires H's session and a successor C, on another server, takes the
 * grant and writes. H's fenced read must not return F's frozen data (its
 * own write, from before C's), and its fenced compare-and-set with the
 * version it read must write nothing: C's data stands. An attempt shows
 * the rule when H's session was alive at the cut and F still followed the
 * leader when H read; the figure says whether it did. H's loss notice
 * (zkc_hold_set_lost_callback) is told exactly once, with its token and
 * the session's end, once F is back; its token stays (a leader's term is
 * asked through a hold bound to it, whose token stays the term's once it
 * is over, as zkc_hold_bind says), is-held says 0 (and said 0 already
 * when C was granted: never two holders) and its fenced read is refused
 * (ZKC_ELOST). A read hold (a read side's, a downgrade's,
 * an async read's) has a writer for successor; its own write is refused
 * with ZKC_EINVAL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hold_notes.h"
#include "hold_subject.h"
#define H_SESSION_MS 1000 /* the ensemble's least: 2 ticks of 500 ms */
#define C_SESSION_MS 4000

static const char *server_at(int s) {
  static char buf[4][32];
  snprintf(buf[s], sizeof buf[s], "127.0.0.1:%d", zkt_client_port(s));
  return buf[s];
}

static int leader_now(void) {
  char out[64] = "";
  if (zkt_ensemble(out, sizeof out, "leader") != 0) fail_msg("no leader");
  return atoi(out);
}

static int follows(int s) {
  char *out = zkt_4lw(s, "srvr");
  int f = out != NULL && strstr(out, "Mode: follower") != NULL;
  free(out);
  return f;
}

/* 1 while the leader l lists session sid among those with ephemerals. */
static int leader_lists(int l, int64_t sid) {
  char hex[32];
  snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)sid);
  char *out = zkt_4lw(l, "dump");
  int has = out != NULL && strstr(out, hex) != NULL;
  free(out);
  return has;
}

static zkc_client_t *open_on(int server, int session_ms) {
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.session_timeout_ms = session_ms;
  zkc_client_t *c = NULL;
  OK(zkc_client_open(&c, server_at(server), &o));
  return c;
}

static void cut_off_follower(const char *recipe) {
  char path[600], data[620];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(data, sizeof data, "%s", zkt_path("data"));
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), data, "0", 1, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  int L = leader_now(), F = L % 3 + 1, G = F % 3 + 1;
  printf("%s: leader zk%d, H on follower zk%d, C on zk%d\n", recipe, L, F, G);
  zkc_client_t *hc = open_on(F, H_SESSION_MS), *cc = open_on(G, C_SESSION_MS);
  subject_t h, c;
  OK(subject_take(&h, recipe, hc, path, zkt_ms(10000)));
  zkc_hold_t *hh = subject_hold(&h);
  int exclusive = subject_exclusive(recipe);
  /* A read hold may not write: "H" is written for it, under it. */
  if (exclusive)
    OK(zkc_hold_fenced_set(hh, data, "H", 1));
  else
    assert_int_equal(zoo_set(zkt_raw(), data, "H", 1, -1), ZOK);
  int32_t hv = -1;
  char *got = NULL;
  size_t len = 0;
  OK(zkc_hold_fenced_get(hh, data, &got, &len, &hv));
  free(got);
  int64_t hsid = 0;
  OK(zkc_client_session_id(hc, &hsid));
  /* A leader's view follows its later terms: its term, bound, is asked. */
  zkc_hold_t *bound = NULL;
  if (h.latch || h.sel) OK(zkc_hold_bind(hh, &bound)), hh = bound;
  int64_t htoken = token_of(hh);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(hh, note, t));

  if (zkt_ensemble(NULL, 0, "isolate %d", F) != 0) fail_msg("isolate failed");
  int alive_at_cut = leader_lists(L, hsid);
  /* C is granted once the leader has expired H, and writes. */
  /* A read hold's successor is a writer of its read-write lock. */
  OK(subject_take(&c, exclusive ? recipe : "write", cc, path, zkt_ms(20000)));
  /* Never two holders: H no longer believes it holds once C is granted. */
  int h_held_at_grant = zkc_hold_is_held(hh);
  OK(zkc_hold_fenced_set(subject_hold(&c), data, "C", 1));
  int followed = follows(F);
  got = NULL;
  int32_t v = -1;
  int get_rc = zkc_hold_fenced_get(hh, data, &got, &len, &v);
  int stale = get_rc == ZKC_OK && got != NULL && len == 1 && got[0] == 'H';
  free(got);
  int cas_rc = zkc_hold_fenced_cas(hh, data, "X", 1, hv, NULL);
  int64_t token_after = 0;
  int token_rc = zkc_hold_fencing_token(hh, &token_after);
  printf("figure: %s: H's session %s at the cut, zk%d %s when H read; H "
         "held at C's grant: %d; H's read: %s, its compare-and-set: %s\n",
         recipe, alive_at_cut ? "alive" : "already gone", F,
         followed ? "still followed" : "had given up", h_held_at_grant,
         zkc_err_name(get_rc), zkc_err_name(cas_rc));
  if (zkt_ensemble(NULL, 0, "rejoin %d", F) != 0) fail_msg("rejoin failed");
  int was_told = zkt_await(told, t, zkt_ms(20000));
  int held_after = zkc_hold_is_held(hh);
  got = NULL;
  int get_after = zkc_hold_fenced_get(hh, data, &got, &len, &v);
  free(got);
  char buf[16];
  assert_int_equal(zkt_get_data(data, buf, sizeof buf), 1);
  subject_drop(&c);
  zkc_hold_free(bound);
  subject_drop(&h);
  zkc_client_close(hc);
  zkc_client_close(cc);
  zkt_delete_tree(data);
  pthread_mutex_lock(&t->mu);
  notes_t seen = *t; /* asserted outside the lock */
  pthread_mutex_unlock(&t->mu);
  notes_free(t);
  printf("%s: H's notice told %d time(s), token %lld (H's %lld), reason %d\n",
         recipe, seen.n, (long long)seen.token, (long long)htoken,
         (int)seen.why);
  if (h_held_at_grant) fail_msg("%s: C granted while H said held", recipe);
  if (stale) fail_msg("%s: H read its own frozen write through cut-off zk%d", recipe, F);
  assert_int_not_equal(get_rc, ZKC_OK);
  assert_int_equal(cas_rc, exclusive ? ZKC_ELOST : ZKC_EINVAL);
  OK(token_rc);
  assert_true(token_after == htoken); /* a bound term's too, once over */
  /* The session's end, or its suspension where the recipe gives up on it
   * (a selector's turn). */
  assert_true(seen.why == ZKC_LOST_SESSION || seen.why == ZKC_LOST_SUSPENDED);
  assert_string_equal(buf, "C");
  assert_true(was_told);
  assert_int_equal(seen.n, 1);
  assert_true(seen.token == htoken);
  assert_int_equal(held_after, 0);
  assert_int_equal(get_after, ZKC_ELOST);
}

static int partition_teardown(void **state) {
  zkt_close_open_clients();
  int rc = zkt_restore_ensemble();
  return zkt_teardown(state) != 0 || rc != 0 ? -1 : 0;
}

static void mutex_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("mutex");
}
static void write_side_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("write");
}
static void multilock_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("multi");
}
static void lease_set_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("lease");
}
static void latch_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("latch");
}
static void selector_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("selector");
}
static void async_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("async");
}
static void read_side_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("read");
}
static void downgrade_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("downgrade");
}
static void async_read_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("async_read");
}
static void async_write_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("async_write");
}
static void async_lease_on_cut_follower(void **state) {
  (void)state;
  cut_off_follower("async_lease");
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(mutex_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(write_side_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(multilock_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(lease_set_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(latch_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(selector_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(async_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(read_side_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(downgrade_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(async_read_on_cut_follower, partition_teardown),
      cmocka_unit_test_teardown(async_lease_on_cut_follower,
                                partition_teardown),
      cmocka_unit_test_teardown(async_write_on_cut_follower,
                                partition_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "hold_partition");
}
