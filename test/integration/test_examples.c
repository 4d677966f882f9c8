/* SPDX-License-Identifier: Apache-2.0 */
/* The programs in examples/ and the demo script run against the ensemble,
 * one CTest entry each, so that they cannot rot: each must exit 0 with the
 * summary its header promises, and leave on the ensemble only what it says
 * it leaves. (uv_daemon.c is run by async.example_daemon.) The programs
 * come from $ZKT_EXAMPLES, the build tree's examples directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* The example program `name`, or the test fails. */
static const char *example(const char *name) {
  static char buf[4096];
  const char *dir = getenv("ZKT_EXAMPLES");
  if (dir == NULL || *dir == '\0')
    fail_msg("ZKT_EXAMPLES unset: configure with ZKC_BUILD_EXAMPLES=ON");
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  return buf;
}

/* Reads the child's output until a line starting with `prefix` (copied into
 * line), then waits for it to exit 0. */
static void expect_then_exit_0(zkt_proc_t *p, const char *prefix, char *line,
                               size_t len) {
  assert_true(zkt_expect(p, prefix, line, len, zkt_ms(60000)));
  assert_int_equal(zkt_wait(p, zkt_ms(30000)), 0);
}

/* The example's lock path, made of container nodes, is gone once the
 * server's reaper has seen it empty. */
static void assert_reaped(const char *path) {
  assert_true(zkt_await_children_exactly(path, -1, zkt_ms(10000)));
}

/* The demo: phase 1 runs, phase 2 sells exactly the stock, PASS; only the
 * stock node it names is left (a 4-byte count at 0), the lock's path is
 * reaped. */
static void oversell(void **state) {
  (void)state;
  zkt_make_root();
  char base[600], line[1024], stock[1024] = "";
  snprintf(base, sizeof base, "%s", zkt_path("stock"));
  char *argv[] = {(char *)example("oversell"), "--connect", (char *)zkt_connect(),
                  "--path", base, "--workers", "3", "--stock", "20",
                  "--delay-ms", "2", NULL};
  zkt_proc_t p = zkt_spawn(argv);
  assert_true(zkt_expect(&p, "  stock node ", line, sizeof line, zkt_ms(30000)));
  snprintf(stock, sizeof stock, "%s", line + strlen("  stock node "));
  assert_true(zkt_expect(&p, "phase 1:", line, sizeof line, zkt_ms(30000)));
  assert_true(zkt_expect(&p, "  => correct: exactly 20 sold", line, sizeof line,
                         zkt_ms(60000)));
  expect_then_exit_0(&p, "PASS", line, sizeof line);

  char lock[1100];
  snprintf(lock, sizeof lock, "%s-lock", stock);
  assert_reaped(lock);
  assert_int_equal(zkt_children_count(zkt_root()), 1);
  char data[16];
  assert_int_equal(zkt_get_data(stock, data, sizeof data), 4);
  assert_memory_equal(data, "\0\0\0\0", 4);
}

/* examples/run-demo.sh runs an oversell given as a program (not a build
 * tree), and one found on PATH. */
static void run_demo(void **state) {
  (void)state;
  zkt_make_root();
  const char *src = getenv("ZKT_SOURCE");
  assert_non_null(src);
  char script[4096], base[600], line[1024];
  snprintf(script, sizeof script, "%s/examples/run-demo.sh", src);
  snprintf(base, sizeof base, "%s", zkt_path("demo"));
  setenv("ZKCOORD_CONNECT", zkt_connect(), 1);

  char *given[] = {script, (char *)example("oversell"), "--phase", "2",
                   "--workers", "2", "--stock", "5", "--path", base, NULL};
  zkt_proc_t p = zkt_spawn(given);
  expect_then_exit_0(&p, "PASS", line, sizeof line);

  char *old = getenv("PATH"), path[8192];
  char *saved = strdup(old ? old : "");
  snprintf(path, sizeof path, "%s:%s", getenv("ZKT_EXAMPLES"), saved);
  setenv("PATH", path, 1);
  char *found[] = {script, "--phase", "2", "--workers", "2", "--stock", "5",
                   "--path", base, NULL};
  p = zkt_spawn(found);
  setenv("PATH", saved, 1);
  free(saved);
  expect_then_exit_0(&p, "PASS", line, sizeof line);
  unsetenv("ZKCOORD_CONNECT");
}

/* Two schedulers: the first leads for its ticks, then the second takes
 * over with a larger fencing token; the election path is reaped. */
static void scheduler(void **state) {
  (void)state;
  zkt_make_root();
  char election[600], line[1024];
  snprintf(election, sizeof election, "%s", zkt_path("scheduler"));
  char *argv_a[] = {(char *)example("scheduler"), "--connect", (char *)zkt_connect(),
                    "--path", election, "--id", "a", "--ticks", "2", NULL};
  zkt_proc_t a = zkt_spawn(argv_a);
  assert_true(zkt_expect(&a, "tick 1 leader=a token=", line, sizeof line,
                         zkt_ms(30000)));
  long long token_a = atoll(strstr(line, "token=") + 6);
  char *argv_b[] = {(char *)example("scheduler"), "--connect", (char *)zkt_connect(),
                    "--path", election, "--id", "b", "--ticks", "2", NULL};
  zkt_proc_t b = zkt_spawn(argv_b);
  expect_then_exit_0(&a, "tick 2 leader=a", line, sizeof line);
  assert_true(zkt_expect(&b, "tick 1 leader=b token=", line, sizeof line,
                         zkt_ms(30000)));
  long long token_b = atoll(strstr(line, "token=") + 6);
  assert_true(token_b > token_a);
  expect_then_exit_0(&b, "tick 2 leader=b", line, sizeof line);
  assert_reaped(election);
}

/* Four workers, two leases: every job runs, never more than two at once. */
static void semaphore(void **state) {
  (void)state;
  zkt_make_root();
  char sem[600], line[1024];
  snprintf(sem, sizeof sem, "%s", zkt_path("semaphore"));
  char *argv[] = {(char *)example("semaphore"), "--connect", (char *)zkt_connect(),
                  "--path", sem, "--leases", "2", "--workers", "4",
                  "--jobs", "2", "--job-ms", "50", NULL};
  zkt_proc_t p = zkt_spawn(argv);
  expect_then_exit_0(&p, "jobs ", line, sizeof line);
  int done = 0, most = 0, limit = 0;
  assert_int_equal(sscanf(line, "jobs %d done, at most %d at once (limit %d)",
                          &done, &most, &limit), 3);
  assert_int_equal(done, 8);
  assert_int_equal(limit, 2);
  assert_in_range(most, 1, 2);
  assert_reaped(sem);
}

/* Readers and writers of a file: no torn read, no lost generation. */
static void rwlock(void **state) {
  (void)state;
  zkt_make_root();
  char rw[600], line[1024];
  snprintf(rw, sizeof rw, "%s", zkt_path("rwlock"));
  char *argv[] = {(char *)example("rwlock"), "--connect", (char *)zkt_connect(),
                  "--path", rw, "--readers", "3", "--writers", "2",
                  "--rounds", "2", NULL};
  zkt_proc_t p = zkt_spawn(argv);
  expect_then_exit_0(&p, "reads ", line, sizeof line);
  int reads = 0, torn = -1, most = 0, writes = 0;
  long generation = 0;
  assert_int_equal(sscanf(line, "reads %d, torn %d, at most %d readers at once; "
                                "writes %d, generation %ld",
                          &reads, &torn, &most, &writes, &generation), 5);
  assert_int_equal(reads, 6);
  assert_int_equal(torn, 0);
  assert_int_equal(writes, 4);
  assert_int_equal(generation, 4);
  assert_reaped(rw);
}

/* Transfers under multi-locks: all made, the total unchanged. */
static void multilock(void **state) {
  (void)state;
  zkt_make_root();
  char bank[600], line[1024];
  snprintf(bank, sizeof bank, "%s", zkt_path("bank"));
  char *argv[] = {(char *)example("multilock"), "--connect", (char *)zkt_connect(),
                  "--path", bank, "--accounts", "3", "--workers", "3",
                  "--transfers", "4", NULL};
  zkt_proc_t p = zkt_spawn(argv);
  expect_then_exit_0(&p, "transfers ", line, sizeof line);
  assert_string_equal(line, "transfers 12, total 3000 (started with 3000)");
  assert_reaped(bank);
}

/* Participants take turns leading: every turn done, one leader at a time,
 * each turn's token larger than the last. */
static void selector(void **state) {
  (void)state;
  zkt_make_root();
  char election[600], line[1024];
  snprintf(election, sizeof election, "%s", zkt_path("election"));
  char *argv[] = {(char *)example("selector"), "--connect", (char *)zkt_connect(),
                  "--path", election, "--participants", "3", "--turns", "5",
                  "--lead-ms", "50", NULL};
  zkt_proc_t p = zkt_spawn(argv);
  expect_then_exit_0(&p, "turns ", line, sizeof line);
  int done = 0, most = 0;
  char rising[8] = "";
  assert_int_equal(sscanf(line, "turns %d done, at most %d leading at once, "
                                "tokens rising: %7s", &done, &most, rising), 3);
  assert_true(done >= 5);
  assert_int_equal(most, 1);
  assert_string_equal(rising, "yes");
  assert_reaped(election);
}

/* A daemon's export: after three rounds the file holds three acquires
 * and a hold histogram of three, and it is valid Prometheus text. */
static void metrics(void **state) {
  (void)state;
  zkt_make_root();
  char lock[600], out[] = "/tmp/zkt-metrics-XXXXXX", file[64], line[1024];
  snprintf(lock, sizeof lock, "%s", zkt_path("metrics"));
  assert_non_null(mkdtemp(out));
  snprintf(file, sizeof file, "%s/zkcoord.prom", out);
  char *argv[] = {(char *)example("metrics"), "--connect", (char *)zkt_connect(),
                  "--path", lock, "--rounds", "3", "--hold-ms", "10",
                  "--out", file, NULL};
  zkt_proc_t p = zkt_spawn(argv);
  expect_then_exit_0(&p, "rounds ", line, sizeof line);
  assert_non_null(strstr(line, "rounds 3 done, 3 acquires counted"));
  FILE *f = fopen(file, "r");
  assert_non_null(f);
  char text[65536];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char want[800];
  snprintf(want, sizeof want,
           "zkcoord_acquires_total{recipe=\"mutex\",path=\"%s\"} 3\n", lock);
  assert_non_null(strstr(text, want));
  snprintf(want, sizeof want,
           "zkcoord_hold_seconds_count{recipe=\"mutex\",path=\"%s\"} 3\n",
           lock);
  assert_non_null(strstr(text, want));
  assert_int_equal(zkt_promtool_check_file(file), 0);
  unlink(file);
  rmdir(out);
  assert_reaped(lock);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(oversell),
      cmocka_unit_test(run_demo),
      cmocka_unit_test(scheduler),
      cmocka_unit_test(semaphore),
      cmocka_unit_test(rwlock),
      cmocka_unit_test(multilock),
      cmocka_unit_test(selector),
      cmocka_unit_test(metrics),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "examples");
}
