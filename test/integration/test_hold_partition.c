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
 * (zkc_hold_set_lost_callback) is told exactly once, with its token, once
 * F is back and H learns its session's end; is-held says 0. A read side's
 * hold, which may not write, is held to the same read and notice. */
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
  OK(zkc_hold_fenced_set(hh, data, "H", 1));
  int32_t hv = -1;
  char *got = NULL;
  size_t len = 0;
  OK(zkc_hold_fenced_get(hh, data, &got, &len, &hv));
  free(got);
  int64_t hsid = 0;
  OK(zkc_client_session_id(hc, &hsid));
  int64_t htoken = token_of(hh);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(hh, note, t));

  if (zkt_ensemble(NULL, 0, "isolate %d", F) != 0) fail_msg("isolate failed");
  int alive_at_cut = leader_lists(L, hsid);
  /* C is granted once the leader has expired H, and writes. */
  OK(subject_take(&c, recipe, cc, path, zkt_ms(20000)));
  OK(zkc_hold_fenced_set(subject_hold(&c), data, "C", 1));
  int followed = follows(F);
  got = NULL;
  int32_t v = -1;
  int get_rc = zkc_hold_fenced_get(hh, data, &got, &len, &v);
  int stale = get_rc == ZKC_OK && got != NULL && len == 1 && got[0] == 'H';
  free(got);
  int cas_rc = zkc_hold_fenced_cas(hh, data, "X", 1, hv, NULL);
  printf("figure: %s: H's session %s at the cut, zk%d %s when H read; H's "
         "read: %s, its compare-and-set: %s\n",
         recipe, alive_at_cut ? "alive" : "already gone", F,
         followed ? "still followed" : "had given up", zkc_err_name(get_rc),
         zkc_err_name(cas_rc));
  if (zkt_ensemble(NULL, 0, "rejoin %d", F) != 0) fail_msg("rejoin failed");
  int was_told = zkt_await(told, t, zkt_ms(20000));
  int held_after = zkc_hold_is_held(hh);
  char buf[16];
  assert_int_equal(zkt_get_data(data, buf, sizeof buf), 1);
  subject_drop(&c);
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
  if (stale) fail_msg("%s: H read its own frozen write through cut-off zk%d", recipe, F);
  assert_int_not_equal(cas_rc, ZKC_OK);
  assert_string_equal(buf, "C");
  assert_true(was_told);
  assert_int_equal(seen.n, 1);
  assert_true(seen.token == htoken);
  assert_int_equal(held_after, 0);
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

/* A read side's hold: the same cut, the successor a writer. H may not
 * write (ZKC_EINVAL); its fenced read once C has written must not return
 * F's frozen data, and its notice is told once with its token. */
static void read_side_on_cut_follower(void **state) {
  (void)state;
  char path[600], data[620];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(data, sizeof data, "%s", zkt_path("data"));
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), data, "0", 1, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  int L = leader_now(), F = L % 3 + 1, G = F % 3 + 1;
  printf("read: leader zk%d, H on follower zk%d, C on zk%d\n", L, F, G);
  zkc_client_t *hc = open_on(F, H_SESSION_MS), *cc = open_on(G, C_SESSION_MS);
  zkc_rwlock_t *hrw = NULL, *crw = NULL;
  OK(zkc_rwlock_create(&hrw, hc, path));
  OK(zkc_rwlock_create(&crw, cc, path));
  zkc_mutex_t *hr = zkc_rwlock_read_side(hrw), *cw = zkc_rwlock_write_side(crw);
  OK(zkc_mutex_acquire_timeout(hr, zkt_ms(10000)));
  zkc_hold_t *hh = zkc_mutex_hold(hr);
  char *got = NULL;
  size_t len = 0;
  int32_t hv = -1;
  OK(zkc_hold_fenced_get(hh, data, &got, &len, &hv));
  free(got);
  assert_int_equal(zkc_hold_fenced_set(hh, data, "H", 1), ZKC_EINVAL);
  int64_t hsid = 0;
  OK(zkc_client_session_id(hc, &hsid));
  int64_t htoken = token_of(hh);
  notes_t *t = notes_new();
  OK(zkc_hold_set_lost_callback(hh, note, t));

  if (zkt_ensemble(NULL, 0, "isolate %d", F) != 0) fail_msg("isolate failed");
  int alive_at_cut = leader_lists(L, hsid);
  /* The writer is granted once the leader has expired H, and writes. */
  OK(zkc_mutex_acquire_timeout(cw, zkt_ms(20000)));
  OK(zkc_hold_fenced_set(zkc_mutex_hold(cw), data, "C", 1));
  int followed = follows(F);
  got = NULL;
  int32_t v = -1;
  int get_rc = zkc_hold_fenced_get(hh, data, &got, &len, &v);
  int stale = get_rc == ZKC_OK && got != NULL && len == 1 && got[0] == '0';
  free(got);
  printf("figure: read: H's session %s at the cut, zk%d %s when H read; "
         "H's read: %s\n",
         alive_at_cut ? "alive" : "already gone", F,
         followed ? "still followed" : "had given up", zkc_err_name(get_rc));
  if (zkt_ensemble(NULL, 0, "rejoin %d", F) != 0) fail_msg("rejoin failed");
  int was_told = zkt_await(told, t, zkt_ms(20000));
  int held_after = zkc_hold_is_held(hh);
  int release_rc = zkc_mutex_release(hr);
  OK(zkc_mutex_release(cw));
  OK(zkc_rwlock_destroy(hrw));
  OK(zkc_rwlock_destroy(crw));
  zkc_client_close(hc);
  zkc_client_close(cc);
  zkt_delete_tree(data);
  pthread_mutex_lock(&t->mu);
  notes_t seen = *t; /* asserted outside the lock */
  pthread_mutex_unlock(&t->mu);
  notes_free(t);
  printf("read: H's notice told %d time(s), token %lld (H's %lld), reason "
         "%d; its release %s\n", seen.n, (long long)seen.token,
         (long long)htoken, (int)seen.why, zkc_err_name(release_rc));
  if (stale) fail_msg("read: H read frozen data through cut-off zk%d", F);
  assert_int_not_equal(get_rc, ZKC_OK); /* its hold cannot stand after C's grant */
  assert_true(was_told);
  assert_int_equal(seen.n, 1);
  assert_true(seen.token == htoken);
  assert_int_equal(held_after, 0);
  assert_int_not_equal(release_rc, ZKC_OK);
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
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "hold_partition");
}
