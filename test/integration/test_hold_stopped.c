/* SPDX-License-Identifier: Apache-2.0 */
/* Every kind of hold whose holder is stopped past its session: H, a helper
 * process (zkt_hold_prober) holding with a short session, is stopped
 * (SIGSTOP); a successor S is granted once the leader expired H's session
 * (a writer of the read-write lock for a read hold) and writes; H is
 * continued. H's loss notice is told exactly once, with its token and the
 * session's end (a selector's: its suspension); then its hold keeps its
 * token (a leader's term, watched through a hold bound to it, may refuse
 * it once over, as zkc_hold_bind says), says is-held 0, refuses a fenced
 * read (ZKC_ELOST) and its fenced writes (ZKC_ELOST; a read hold's
 * ZKC_EINVAL), and S's data stands. */
#include <signal.h>
#include <unistd.h>

#include "hold_notes.h"
#include "hold_subject.h"

#define SESSION_MS 2000

static zkt_proc_t prober = {.pid = -1, .in_fd = -1, .out_fd = -1};

static int stopped_teardown(void **state) {
  if (prober.pid > 0) {
    (void)kill(prober.pid, SIGKILL);
    (void)zkt_wait(&prober, zkt_ms(10000));
    prober.pid = -1;
  }
  return zkt_teardown(state);
}

static void spawn_prober(const char *recipe, const char *path,
                         const char *probe) {
  char session[16];
  snprintf(session, sizeof session, "%d", SESSION_MS);
  const char *bin = getenv("ZKT_HOLD_PROBER");
  if (bin == NULL) fail_msg("ZKT_HOLD_PROBER is not set");
  char *argv[] = {(char *)bin,  (char *)recipe, (char *)zkt_connect(),
                  (char *)path, session,        (char *)probe, NULL};
  prober = zkt_spawn(argv);
}

static void stopped_holder(const char *recipe) {
  char path[600], data[600], probe[600], line[256];
  zkt_make_root();
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(data, sizeof data, "%s", zkt_path("data"));
  snprintf(probe, sizeof probe, "%s", zkt_path("probe"));
  assert_int_equal(zoo_create(zkt_raw(), data, "0", 1, &ZOO_OPEN_ACL_UNSAFE,
                              0, NULL, 0), ZOK);
  spawn_prober(recipe, path, probe);
  long long token = 0;
  if (!zkt_expect(&prober, "HELD ", line, sizeof line, zkt_ms(20000)) ||
      sscanf(line, "HELD %lld", &token) != 1 || token <= 0)
    fail_msg("%s: H was not granted", recipe);
  assert_int_equal(kill(prober.pid, SIGSTOP), 0);
  int64_t stopped = zkt_now_ms();
  zkc_client_t *c = zkt_open(NULL);
  subject_t s;
  int exclusive = subject_exclusive(recipe);
  OK(subject_take(&s, exclusive ? recipe : "write", c, path,
                  SESSION_MS + zkt_ms(15000)));
  /* Granted only once the stopped holder's session ended. */
  assert_true(zkt_now_ms() - stopped >= SESSION_MS / 2);
  OK(zkc_hold_fenced_set(subject_hold(&s), data, "S", 1));
  assert_int_equal(kill(prober.pid, SIGCONT), 0);

  int why = -1;
  long long told_token = 0;
  if (!zkt_expect(&prober, "LOST ", line, sizeof line, zkt_ms(20000)) ||
      sscanf(line, "LOST %d %lld", &why, &told_token) != 2)
    fail_msg("%s: H's loss was never told", recipe);
  zkt_send(&prober, "check");
  int token_rc, held, get_rc, set_rc, cas_rc, create_rc;
  long long after = 0;
  if (!zkt_expect(&prober, "CHECK ", line, sizeof line, zkt_ms(30000)) ||
      sscanf(line, "CHECK %d %lld %d %d %d %d %d", &token_rc, &after, &held,
             &get_rc, &set_rc, &cas_rc, &create_rc) != 7)
    fail_msg("%s: H did not answer", recipe);
  printf("%s: H told reason %d token %lld (H's %lld); then %s\n", recipe, why,
         told_token, token, line);
  /* Told once: a second LOST would come by the time H let go. */
  close(prober.in_fd);
  prober.in_fd = -1;
  int more = 0, done = 0;
  while (!done && zkt_read_line(&prober, line, sizeof line, zkt_ms(15000))) {
    if (strncmp(line, "LOST ", 5) == 0) more++;
    done = strcmp(line, "DONE") == 0;
  }
  assert_true(done);
  assert_int_equal(zkt_wait(&prober, zkt_ms(10000)), 0);
  prober.pid = -1;
  char buf[16];
  assert_int_equal(zkt_get_data(data, buf, sizeof buf), 1);
  assert_string_equal(buf, "S");
  assert_false(zkt_exists(probe, NULL));
  subject_drop(&s);
  zkc_client_close(c);
  zkt_delete_tree(data);

  /* The session's end, or its suspension where the recipe gives up on it
   * (a selector's turn). */
  assert_true(why == ZKC_LOST_SESSION || why == ZKC_LOST_SUSPENDED);
  assert_true(told_token == token);
  assert_int_equal(more, 0);
  OK(token_rc);
  assert_true(after == token); /* a leader's bound term's too */
  assert_int_equal(held, 0);
  assert_int_equal(get_rc, ZKC_ELOST);
  int want = exclusive ? ZKC_ELOST : ZKC_EINVAL;
  assert_int_equal(set_rc, want);
  assert_int_equal(cas_rc, want);
  assert_int_equal(create_rc, want);
}

#define CASE(name, recipe)                                                     \
  static void name##_stopped_past_session(void **state) {                      \
    (void)state;                                                               \
    stopped_holder(recipe);                                                    \
  }
CASE(mutex, "mutex")
CASE(read_side, "read")
CASE(write_side, "write")
CASE(downgrade, "downgrade")
CASE(lease_set, "lease")
CASE(latch, "latch")
CASE(selector, "selector")
CASE(multilock, "multi")
CASE(async_mutex, "async")
CASE(async_read, "async_read")
CASE(async_write, "async_write")
CASE(async_lease, "async_lease")

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(mutex_stopped_past_session, stopped_teardown),
      cmocka_unit_test_teardown(read_side_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(write_side_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(downgrade_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(lease_set_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(latch_stopped_past_session, stopped_teardown),
      cmocka_unit_test_teardown(selector_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(multilock_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(async_mutex_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(async_read_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(async_lease_stopped_past_session,
                                stopped_teardown),
      cmocka_unit_test_teardown(async_write_stopped_past_session,
                                stopped_teardown),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "hold_stopped");
}
