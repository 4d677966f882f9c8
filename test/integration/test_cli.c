/* SPDX-License-Identifier: Apache-2.0 */
/* The zkcoord command-line tool against the real ensemble: exit codes of
 * each error class, mutual exclusion between processes, -n / -w, lock loss,
 * signals, leader hand-over, status on foreign nodes and as Prometheus
 * gauges, the read-write lock (--shared, --write) and revoke. One CTest
 * entry per case. The tool is $ZKT_CLI, run with $ZKT_CLI_LAUNCHER (valgrind in the
 * valgrind tree) in front when set. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)
#define MAX_ARGS 48

static int64_t long_op(void) { return zkt_ms(20000); }

/* -n and short -w give the connection only as long (at least 1 s): a case
 * that expects the tool to find the lock taken, not the ensemble
 * unreachable, gives it the default instead. */
#define CONNECTED "--connect-timeout", "15"

/* What revoke waits for the holders it asked, without -w (ZKCLI_REVOKE_WAIT_MS). */
#define ZKCLI_TEST_REVOKE_WAIT_MS 15000

/* With err_path, where the tool's stdout goes instead of the pipe (NULL:
 * the pipe). */
static const char *stdout_to;

/* argv: [sh -c ... ERR_FILE [OUT_FILE]] [launcher...] zkcoord --connect
 * <ensemble> <args...>; the args list ends with NULL. With err_path the
 * tool's stderr goes to that file (and its stdout to stdout_to, when set).
 * A later --connect overrides the first. */
static zkt_proc_t spawn_cli_v(const char *err_path, const char *first,
                              va_list ap) {
  static char launcher[512];
  char *argv[MAX_ARGS];
  int n = 0;
  if (err_path) {
    argv[n++] = "/bin/sh";
    argv[n++] = "-c";
    argv[n++] = stdout_to
                    ? "f=$1; o=$2; shift 2; exec \"$@\" 2>\"$f\" >\"$o\""
                    : "f=$1; shift; exec \"$@\" 2>\"$f\"";
    argv[n++] = "sh";
    argv[n++] = (char *)err_path;
    if (stdout_to) argv[n++] = (char *)stdout_to;
  }
  const char *wrap = getenv("ZKT_CLI_LAUNCHER");
  if (wrap && *wrap) {
    snprintf(launcher, sizeof launcher, "%s", wrap);
    for (char *t = strtok(launcher, ";"); t && n < 24; t = strtok(NULL, ";"))
      argv[n++] = t;
  }
  const char *cli = getenv("ZKT_CLI");
  if (cli == NULL) fail_msg("ZKT_CLI is not set");
  argv[n++] = (char *)cli;
  argv[n++] = "--connect";
  argv[n++] = (char *)zkt_connect();
  for (const char *a = first; a && n < MAX_ARGS - 1; a = va_arg(ap, const char *))
    argv[n++] = (char *)a;
  argv[n] = NULL;
  return zkt_spawn(argv);
}

static zkt_proc_t spawn_cli(const char *first, ...) {
  va_list ap;
  va_start(ap, first);
  zkt_proc_t p = spawn_cli_v(NULL, first, ap);
  va_end(ap);
  return p;
}

/* Runs the tool to completion and returns its exit status. */
#define RUN_CLI(...) run_cli(spawn_cli(__VA_ARGS__, NULL))
static int run_cli(zkt_proc_t p) {
  close(p.in_fd);
  p.in_fd = -1;
  return zkt_wait(&p, long_op());
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* Runs the tool with its stderr kept in err (NUL-terminated). */
#define run_cli_stderr(err, len, ...) run_cli_err(err, len, spawn_cli_err(__VA_ARGS__, NULL))
static char err_file[256];
static zkt_proc_t spawn_cli_err(const char *first, ...) {
  snprintf(err_file, sizeof err_file, "%s/zkcoord-cli-err-%d",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  va_list ap;
  va_start(ap, first);
  zkt_proc_t p = spawn_cli_v(err_file, first, ap);
  va_end(ap);
  return p;
}
/* The stderr of the tool spawn_cli_err started, once it has exited. */
static void take_err(char *err, size_t len) {
  FILE *f = fopen(err_file, "r");
  size_t n = f ? fread(err, 1, len - 1, f) : 0;
  err[n] = '\0';
  if (f) fclose(f);
  unlink(err_file);
}
static int run_cli_err(char *err, size_t len, zkt_proc_t p) {
  int code = run_cli(p);
  take_err(err, len);
  return code;
}

/* A private scratch directory for files the commands write. */
static char scratch[256];
static const char *scratch_dir(void) {
  snprintf(scratch, sizeof scratch, "%s/zkcoord-cli-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (mkdtemp(scratch) == NULL) fail_msg("mkdtemp failed");
  return scratch;
}

static void scratch_cleanup(void) {
  char cmd[320];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
  if (system(cmd) != 0) print_error("cannot remove %s\n", scratch);
}

static char *read_file(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (f == NULL) return NULL;
  char *buf = calloc(1, 65536);
  size_t n = fread(buf, 1, 65535, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static zkc_mutex_t *hold_lock(zkc_client_t *c, const char *path) {
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire_timeout(m, long_op()));
  return m;
}

static void release_lock(zkc_mutex_t *m) {
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
}

/* "<path>/<leaf>" (static buffer). */
static const char *sub_path(const char *path, const char *leaf) {
  static char buf[700];
  snprintf(buf, sizeof buf, "%s/%s", path, leaf);
  return buf;
}

/* ---- exit codes ---- */

static void bad_option_exit_64(void **state) {
  (void)state;
  const char *p = zkt_path("lock");
  assert_int_equal(RUN_CLI("--bogus", "lock", p, "true"), 64);
  assert_int_equal(RUN_CLI("lock"), 64);                       /* no PATH */
  assert_int_equal(RUN_CLI("leader", p), 64);                  /* no COMMAND */
  assert_int_equal(RUN_CLI("leader", "--observe", p, "true"), 64);
  assert_int_equal(RUN_CLI("lock", "-s", "-x", p, "true"), 64);
  assert_int_equal(RUN_CLI("--json", "lock", p, "true"), 64);  /* not lock's */
  assert_int_equal(RUN_CLI("sem", "-m", "1", "--revocable", p, "true"), 64);
  assert_int_equal(RUN_CLI("--parents", "flat", "status", p), 64);
  assert_int_equal(RUN_CLI("lock", "-n", "-w", "1", p, "true"), 64);
  assert_int_equal(RUN_CLI("lock", "-w", "soon", p, "true"), 64);
  assert_int_equal(RUN_CLI("lock", "-E", "300", p, "true"), 64);
  assert_int_equal(RUN_CLI("lock", "--json", p, "true"), 64);  /* not lock's */
  assert_int_equal(RUN_CLI("frobnicate", p), 64);
  assert_int_equal(RUN_CLI("--acl", "secure", "status", p), 64); /* no digest */
  assert_int_equal(RUN_CLI("--digest", "nocolon", "status", p), 64);
  assert_int_equal(RUN_CLI("status", p, "extra"), 64);
  assert_int_equal(RUN_CLI("lock", "-s", "--write", p, "true"), 64);
  assert_int_equal(RUN_CLI("--shared", "sem", "-m", "2", p, "true"), 64);
  assert_int_equal(RUN_CLI("--write", "status", p), 64);
  assert_int_equal(RUN_CLI("leader", "--shared", p, "true"), 64);
  assert_int_equal(RUN_CLI("revoke"), 64);                     /* no PATH */
  assert_int_equal(RUN_CLI("revoke", p, "extra"), 64);
  assert_int_equal(RUN_CLI("revoke", "--json", p), 64);
  zkt_proc_t h = spawn_cli("--help", NULL);
  char line[256];
  assert_true(zkt_read_line(&h, line, sizeof line, long_op()));
  assert_true(strncmp(line, "usage: zkcoord", 14) == 0);
  assert_int_equal(run_cli(h), 0);
  assert_int_equal(zkt_exists(zkt_root(), NULL), 0); /* nothing was created */
}

static void invalid_path_exit_65(void **state) {
  (void)state;
  assert_int_equal(RUN_CLI("lock", "relative/path", "true"), 65);
  assert_int_equal(RUN_CLI("lock", "/a//b", "true"), 65);
  assert_int_equal(RUN_CLI("leader", "/zookeeper/x", "true"), 65);
  assert_int_equal(RUN_CLI("status", "/trailing/"), 65);
  assert_int_equal(RUN_CLI("lock", "--shared", "/a//b", "true"), 65);
  assert_int_equal(RUN_CLI("revoke", "relative"), 65);
  char chroot[600];
  snprintf(chroot, sizeof chroot, "%s%s/missing", zkt_connect(), zkt_root());
  assert_int_equal(RUN_CLI("--connect", chroot, "status", "/x"), 65);
}

/* A port that is bound but not listening: connections are refused, and
 * nobody else can take it while the test runs. Its "host:port" goes to
 * connect; returns the socket to close. */
static int refusing_port(char *connect, size_t len) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  socklen_t salen = sizeof sa;
  assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &salen), 0);
  snprintf(connect, len, "127.0.0.1:%d", ntohs(sa.sin_port));
  return fd;
}

static void unreachable_exit_69(void **state) {
  (void)state;
  char connect[64];
  int fd = refusing_port(connect, sizeof connect);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(RUN_CLI("--connect", connect, "--connect-timeout", "1",
                           "lock", zkt_path("lock"), "true"), 69);
  assert_int_equal(RUN_CLI("--connect", connect, "--connect-timeout", "1",
                           "status", zkt_path("lock")), 69);
  printf("figure: two runs against a dead ensemble took %lld ms (1 s connect "
         "timeout each)\n", (long long)(zkt_now_ms() - t0));
  close(fd);
  /* A name that does not resolve (.invalid never does): 69, the host
   * named; beside a good host it is skipped and the lock works. */
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, "--connect",
                                  "no-such-host.invalid:2181", "lock",
                                  zkt_path("lock"), "true"), 69);
  assert_non_null(strstr(err, "cannot resolve host 'no-such-host.invalid'"));
  assert_int_equal(count_lines(err), 1);
  char mixed[1100];
  snprintf(mixed, sizeof mixed, "no-such-host.invalid:2181,%s", zkt_connect());
  assert_int_equal(RUN_CLI("--connect", mixed, "lock", zkt_path("lock"), "true"),
                   0);
}

/* -n and -w bound the whole wait, the connection included (flock's
 * habit): against an unreachable ensemble they end well before the 15 s
 * the connection gets without them, with 69. */
static void wait_bounds_the_connection(void **state) {
  (void)state;
  char connect[64];
  int fd = refusing_port(connect, sizeof connect);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(RUN_CLI("--connect", connect, "-n", "lock",
                           zkt_path("lock"), "true"), 69);
  int64_t nonblock = zkt_now_ms() - t0;
  t0 = zkt_now_ms();
  assert_int_equal(RUN_CLI("--connect", connect, "sem", "-m", "2", "-w", "2",
                           zkt_path("sem"), "true"), 69);
  int64_t wait2 = zkt_now_ms() - t0;
  printf("figure: unreachable ensemble: -n ended after %lld ms, -w 2 after "
         "%lld ms\n", (long long)nonblock, (long long)wait2);
  /* Not scaled: 15 s is the default connect timeout being ruled out, and
   * the tool's own start is a small part of this under valgrind too. */
  assert_true(nonblock < 10000);
  assert_true(wait2 < 10000);
  /* An explicit --connect-timeout still rules the connection. */
  t0 = zkt_now_ms();
  assert_int_equal(RUN_CLI("--connect", connect, "--connect-timeout", "3", "-n",
                           "lock", zkt_path("lock"), "true"), 69);
  assert_true(zkt_now_ms() - t0 >= 3000);
  close(fd);
}

/* A ZooKeeper handle with digest credentials added. */
static void authed_watcher(zhandle_t *zh, int type, int state, const char *path,
                           void *ctx) {
  (void)zh, (void)type, (void)path, (void)ctx, (void)state;
}

static zhandle_t *open_authed(const char *digest) {
  zhandle_t *zh = zookeeper_init2(zkt_connect(), authed_watcher, 10000, NULL,
                                  NULL, ZOO_NO_LOG_CLIENTENV, NULL);
  assert_non_null(zh);
  int64_t deadline = zkt_now_ms() + long_op();
  while (zoo_state(zh) != ZOO_CONNECTED_STATE && zkt_now_ms() < deadline)
    usleep(5000);
  assert_int_equal(zoo_state(zh), ZOO_CONNECTED_STATE);
  assert_int_equal(zoo_add_auth(zh, "digest", digest, (int)strlen(digest),
                                NULL, NULL), ZOK);
  return zh;
}

static void auth_failure_exit_77(void **state) {
  (void)state;
  char secured[512], path[600];
  snprintf(secured, sizeof secured, "%s", zkt_path("secured"));
  snprintf(path, sizeof path, "%s/lock", secured);
  assert_int_equal(zkt_make_root(), ZOK);
  zhandle_t *owner = open_authed("ops:right");
  /* Only the creator's credentials may do anything below `secured`. */
  assert_int_equal(zoo_create(owner, secured, "", 0, &ZOO_CREATOR_ALL_ACL, 0,
                              NULL, 0), ZOK);
  assert_int_equal(RUN_CLI("--digest", "ops:wrong", "lock", path, "true"), 77);
  assert_int_equal(RUN_CLI("lock", path, "true"), 77); /* no credentials */
  assert_int_equal(RUN_CLI("--digest", "ops:wrong", "status", secured), 77);
  /* An election the ACL refuses ends at once with 77 and one line. */
  assert_int_equal(RUN_CLI("--digest", "ops:wrong", "leader", path, "true"), 77);
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, "leader", path, "true"), 77);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "election"));
  assert_non_null(strstr(err, zkc_strerror(ZKC_ENOAUTH)));
  /* The right credentials work, in the option and in the environment. */
  assert_int_equal(RUN_CLI("--digest", "ops:right", "lock", path, "true"), 0);
  setenv("ZKCOORD_DIGEST", "ops:right", 1);
  assert_int_equal(RUN_CLI("status", secured), 0);
  unsetenv("ZKCOORD_DIGEST");
  zoo_delete(owner, path, -1); /* the lock's parent, made by the tool */
  assert_int_equal(zoo_delete(owner, secured, -1), ZOK);
  zookeeper_close(owner);
}

/* Credentials the ensemble refuses (the test ensemble's provider refuses
 * the user "refused"; stock digest never does): 77 and one line. */
static void refused_credentials_exit_77(void **state) {
  (void)state;
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, "--digest", "refused:x",
                                  "lock", zkt_path("lock"), "true"), 77);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "refused the credentials"));
  assert_int_equal(run_cli_stderr(err, sizeof err, "--digest", "refused:x",
                                  "leader", zkt_path("election"), "true"), 77);
  assert_int_equal(count_lines(err), 1);
}

static void command_not_found_127_not_executable_126(void **state) {
  (void)state;
  const char *dir = scratch_dir();
  char plain[512];
  snprintf(plain, sizeof plain, "%s/plain-file", dir);
  FILE *f = fopen(plain, "w");
  fputs("not a program\n", f);
  fclose(f);
  assert_int_equal(RUN_CLI("lock", zkt_path("lock"), "/nonexistent/cmd"), 127);
  assert_int_equal(RUN_CLI("lock", zkt_path("lock"), "no-such-cmd-zkc"), 127);
  assert_int_equal(RUN_CLI("lock", zkt_path("lock"), plain), 126);
  /* Checked before the lock is taken: nothing was created. */
  assert_int_equal(zkt_exists(zkt_root(), NULL), 0);
  scratch_cleanup();
}

/* ---- running COMMAND ---- */

static void command_status_token_and_clean_fds(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  /* No raw handle is open yet in this process: COMMAND may not see a
   * single socket (the ZooKeeper client's stay with zkcoord). */
  zkt_proc_t p = spawn_cli("lock", path, "--", "sh", "-c",
                           "s=0; for f in /proc/self/fd/*; do "
                           "case $(readlink $f) in socket:*) s=$((s+1));; esac; done; "
                           "echo \"ENV $ZKCOORD_FENCING_TOKEN $ZKCOORD_NODE $s\"; exit 3",
                           NULL);
  char line[1300];
  assert_true(zkt_expect(&p, "ENV ", line, sizeof line, long_op()));
  assert_int_equal(run_cli(p), 3);
  long long token = 0;
  char node[1200];
  int sockets = -1;
  assert_int_equal(sscanf(line, "ENV %lld %1199s %d", &token, node, &sockets), 3);
  assert_true(token > 0);
  assert_true(strncmp(node, path, strlen(path)) == 0);
  assert_non_null(strstr(node, "-lock-"));
  assert_int_equal(sockets, 0);
  assert_int_equal(zkt_children_count(path), 0); /* released */
  /* The next holder's token is larger. */
  p = spawn_cli("lock", path, "sh", "-c", "echo ENV $ZKCOORD_FENCING_TOKEN", NULL);
  assert_true(zkt_expect(&p, "ENV ", line, sizeof line, long_op()));
  assert_int_equal(run_cli(p), 0);
  assert_true(atoll(line + 4) > token);
}

static const char worker_sh[] =
    "#!/bin/sh\n"
    "# worker CLI CONNECT PATH DIR ID N: N locked read-modify-write cycles\n"
    "cli=$1 connect=$2 path=$3 dir=$4 id=$5 n=$6 i=0\n"
    "while [ $i -lt $n ]; do\n"
    "  \"$cli\" --connect \"$connect\" lock \"$path\" -- sh -c '\n"
    "    c=$(cat \"$1/counter\"); echo \"B $2\" >> \"$1/log\"\n"
    "    sleep 0.02; echo $((c + 1)) > \"$1/counter\"; echo \"E $2\" >> \"$1/log\"\n"
    "  ' sh \"$dir\" \"$id\" || exit 9\n"
    "  i=$((i + 1))\n"
    "done\n"
    "echo DONE\n";

static void two_processes_serialize_file_update(void **state) {
  (void)state;
  const int n = 6;
  const char *dir = scratch_dir();
  char script[512], counter[512], count[8];
  snprintf(script, sizeof script, "%s/worker.sh", dir);
  snprintf(counter, sizeof counter, "%s/counter", dir);
  snprintf(count, sizeof count, "%d", n);
  FILE *f = fopen(script, "w");
  fputs(worker_sh, f);
  fclose(f);
  chmod(script, 0700);
  f = fopen(counter, "w");
  fputs("0\n", f);
  fclose(f);
  const char *cli = getenv("ZKT_CLI");
  zkt_proc_t w[2];
  for (int i = 0; i < 2; i++) {
    char *argv[] = {script, (char *)cli, (char *)zkt_connect(),
                    (char *)zkt_path("lock"), (char *)dir, i ? "b" : "a", count,
                    NULL};
    w[i] = zkt_spawn(argv);
  }
  char line[64];
  for (int i = 0; i < 2; i++) {
    assert_true(zkt_expect(&w[i], "DONE", line, sizeof line, zkt_ms(60000)));
    assert_int_equal(zkt_wait(&w[i], long_op()), 0);
  }
  char *value = read_file(dir, "counter");
  char *log = read_file(dir, "log");
  assert_non_null(value);
  assert_non_null(log);
  assert_int_equal(atoi(value), 2 * n); /* no update lost */
  /* Every B is followed by the E of the same worker: no interleaving. */
  int pairs = 0, a = 0, b = 0;
  char *save, *ln = strtok_r(log, "\n", &save);
  while (ln) {
    char *end = strtok_r(NULL, "\n", &save);
    if (ln[0] != 'B' || end == NULL || end[0] != 'E' || strcmp(ln + 1, end + 1) != 0)
      fail_msg("interleaved updates: '%s' then '%s'", ln, end ? end : "(end)");
    if (ln[2] == 'a') a++; else b++;
    pairs++;
    ln = strtok_r(NULL, "\n", &save);
  }
  assert_int_equal(pairs, 2 * n);
  assert_int_equal(a, n);
  assert_int_equal(b, n);
  free(value);
  free(log);
  scratch_cleanup();
}


static void nonblock_while_held_exit_1(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  int64_t t0 = zkt_now_ms();
  zkt_proc_t p = spawn_cli(CONNECTED, "lock", "-n", path, "sh", "-c", "echo RAN", NULL);
  char line[64];
  assert_false(zkt_read_line(&p, line, sizeof line, long_op())); /* EOF */
  assert_int_equal(run_cli(p), 1);
  int64_t took = zkt_now_ms() - t0;
  assert_int_equal(RUN_CLI(CONNECTED, "lock", "--nonblock", "-E", "42", path, "true"), 42);
  assert_int_equal(zkt_children_count(path), 1); /* the tool left no node */
  release_lock(m);
  assert_int_equal(RUN_CLI("lock", "-w", "20", path, "true"), 0);
  zkc_client_close(c);
  printf("figure: lock -n on a held lock answered in %lld ms\n", (long long)took);
}

/* ---- --metrics ---- */

/* The value of the sample `name{recipe="<recipe>",path="<path>"}` in the
 * Prometheus text, or -1 when it is missing. */
static double sample(const char *text, const char *name, const char *recipe,
                     const char *path) {
  char want[800];
  snprintf(want, sizeof want, "\n%s{recipe=\"%s\",path=\"%s\"} ", name,
           recipe, path);
  const char *at = strstr(text, want);
  return at ? strtod(at + strlen(want), NULL) : -1;
}

/* A duration the test makes itself, not a wait for something to happen. */
static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* lock --metrics: the file holds the COMMAND's wait (behind a holder that
 * let go 300 ms after the tool queued) and hold (a 300 ms COMMAND), and
 * the tool's later -n attempt its timeout; promtool accepts the text. */
static void lock_metrics_write_wait_and_hold(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  const char *dir = scratch_dir();
  char file[512];
  snprintf(file, sizeof file, "%s/lock.prom", dir);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  zkt_proc_t p = spawn_cli(CONNECTED, "lock", "--metrics", file, path, "sh",
                           "-c", "sleep 0.3", NULL);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  pause_ms(300);
  release_lock(m);
  assert_int_equal(run_cli(p), 0);
  char *text = read_file(dir, "lock.prom");
  assert_non_null(text);
  assert_true(sample(text, "zkcoord_acquires_total", "mutex", path) == 1);
  assert_true(sample(text, "zkcoord_releases_total", "mutex", path) == 1);
  assert_true(sample(text, "zkcoord_hold_seconds_count", "mutex", path) == 1);
  assert_true(sample(text, "zkcoord_hold_seconds_sum", "mutex", path) >= 0.3);
  assert_true(sample(text, "zkcoord_wait_seconds_sum", "mutex", path) >= 0.3);
  assert_true(sample(text, "zkcoord_handoff_seconds_count", "mutex", path) == 1);
  assert_int_equal(zkt_promtool_check(text), 0);
  free(text);

  m = hold_lock(c, path);
  assert_int_equal(RUN_CLI(CONNECTED, "lock", "-n", "--metrics", file, path,
                           "true"), 1);
  text = read_file(dir, "lock.prom");
  assert_non_null(text);
  assert_true(sample(text, "zkcoord_acquire_timeouts_total", "mutex", path) == 1);
  assert_true(sample(text, "zkcoord_acquires_total", "mutex", path) == 0);
  free(text);
  release_lock(m);
  /* Only the file itself: its temporary went by rename. */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "test \"$(ls '%s')\" = lock.prom", dir);
  assert_int_equal(system(cmd), 0);
  scratch_cleanup();
  zkc_client_close(c);
}

/* sem --metrics: the lease's wait and hold, under recipe "semaphore". */
static void sem_metrics_write_lease_hold(void **state) {
  (void)state;
  const char *path = zkt_path("sem");
  const char *dir = scratch_dir();
  char file[512];
  snprintf(file, sizeof file, "%s/sem.prom", dir);
  assert_int_equal(RUN_CLI(CONNECTED, "sem", "-m", "2", "--metrics", file,
                           path, "sh", "-c", "sleep 0.3"),
                   0);
  char *text = read_file(dir, "sem.prom");
  assert_non_null(text);
  assert_true(sample(text, "zkcoord_acquires_total", "semaphore", path) == 1);
  assert_true(sample(text, "zkcoord_releases_total", "semaphore", path) == 1);
  assert_true(sample(text, "zkcoord_hold_seconds_sum", "semaphore", path) >=
              0.3);
  assert_true(sample(text, "zkcoord_holds", "semaphore", path) == 0);
  assert_int_equal(zkt_promtool_check(text), 0);
  free(text);
  scratch_cleanup();
}

/* leader --metrics: the turn of leadership COMMAND ran in, under recipe
 * "latch", given up when COMMAND exited. */
static void leader_metrics_write_turn(void **state) {
  (void)state;
  const char *path = zkt_path("leader");
  const char *dir = scratch_dir();
  char file[512];
  snprintf(file, sizeof file, "%s/leader.prom", dir);
  assert_int_equal(RUN_CLI(CONNECTED, "leader", "--metrics", file, path, "sh",
                           "-c", "sleep 0.3; exit 3"),
                   3);
  char *text = read_file(dir, "leader.prom");
  assert_non_null(text);
  assert_true(sample(text, "zkcoord_acquires_total", "latch", path) == 1);
  assert_true(sample(text, "zkcoord_releases_total", "latch", path) == 1);
  assert_true(sample(text, "zkcoord_hold_seconds_sum", "latch", path) >= 0.3);
  assert_int_equal(zkt_promtool_check(text), 0);
  free(text);
  scratch_cleanup();
}

/* A --metrics file that cannot be written is reported; COMMAND's status
 * stands. */
static void metrics_unwritable_reported(void **state) {
  (void)state;
  char err[4096];
  assert_int_equal(run_cli_stderr(err, sizeof err, "lock", "--metrics",
                                  "/nonexistent-dir/x.prom", zkt_path("lock"),
                                  "sh", "-c", "exit 7"),
                   7);
  assert_non_null(strstr(err, "--metrics /nonexistent-dir/x.prom: cannot write it"));
}

static void wait_expires_then_acquires(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(RUN_CLI("lock", "-w", "1", path, "true"), 1);
  int64_t waited = zkt_now_ms() - t0;
  assert_true(waited >= 1000);
  assert_true(waited < 1000 + long_op());
  /* A waiter with time to spare gets it once the holder releases. */
  zkt_proc_t p = spawn_cli("lock", "-w", "60", path, "sh", "-c", "echo GOT", NULL);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  char line[64];
  release_lock(m);
  assert_true(zkt_expect(&p, "GOT", line, sizeof line, long_op()));
  assert_int_equal(run_cli(p), 0);
  zkc_client_close(c);
  printf("figure: -w 1 gave up after %lld ms\n", (long long)waited);
}

/* COMMAND that reports its start and a SIGTERM, then runs until stopped. */
#define TRAPPING_CMD                                                           \
  "sh", "-c",                                                                  \
      "trap 'echo TERM; exit 0' TERM; echo RUNNING $ZKCOORD_FENCING_TOKEN; "   \
      "while :; do sleep 0.05; done"

static void lock_lost_stops_command_exit_75(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_proc_t p = spawn_cli("--session-timeout", "2", "--grace", "5", "lock", path,
                           TRAPPING_CMD, NULL);
  char line[128];
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  /* The fault: zkcoord paused past its session timeout, so the ensemble
   * expires the session and deletes the lock node while COMMAND runs on. */
  kill(p.pid, SIGSTOP);
  int64_t stopped = zkt_now_ms();
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(2000) + long_op()));
  int64_t expired = zkt_now_ms();
  /* Someone else may take the lock now: the fencing token is what protects
   * the resource; zkcoord must stop COMMAND as soon as it runs again. */
  kill(p.pid, SIGCONT);
  int64_t resumed = zkt_now_ms();
  assert_true(zkt_expect(&p, "TERM", line, sizeof line, long_op()));
  int64_t told = zkt_now_ms();
  assert_int_equal(run_cli(p), 75);
  printf("figure: session expired %lld ms into the pause; COMMAND got SIGTERM "
         "%lld ms after zkcoord resumed\n",
         (long long)(expired - stopped), (long long)(told - resumed));
}

/* -w runs out while the ensemble cannot be reached: an outage (69), not a
 * lock held by someone else (1). */
static void wait_during_outage_exit_69(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  zkt_proc_t proxy = zkt_proxy_start(1);
  const char *connect = zkt_proxy_connect(&proxy);
  zkt_proc_t p = spawn_cli("--connect", connect, "--session-timeout", "10",
                           "lock", "-w", "3", path, "true", NULL);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  assert_int_equal(run_cli(p), 69);
  /* The same wait with the ensemble reachable is a conflict. */
  assert_int_equal(RUN_CLI("lock", "-w", "1", path, "true"), 1);
  release_lock(m);
  zkc_client_close(c);
  zkt_proxy_stop(&proxy);
  /* zkcoord's session went with its close or expires: its node too. */
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(10000) + long_op()));
}

/* The lock node is deleted by someone else while zkcoord is paused, and
 * COMMAND exits meanwhile: when zkcoord runs again the loss is found at
 * the latest by the release, which must say so (75), not pass COMMAND's
 * status on as if it had run under the lock. */
static void loss_found_at_release_exit_75(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_proc_t p = spawn_cli("lock", path, "sh", "-c",
                           "echo RUNNING; read x; exit 3", NULL);
  char line[128];
  assert_true(zkt_expect(&p, "RUNNING", line, sizeof line, long_op()));
  kill(p.pid, SIGSTOP);
  char **nodes = NULL;
  size_t n = 0;
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkt_mutex_nodes(m, &nodes, &n));
  assert_int_equal(n, 1);
  assert_int_equal(zoo_delete(zkt_raw(), nodes[0], -1), ZOK);
  zkt_strings_free(nodes, n);
  zkt_send(&p, "go"); /* COMMAND exits 3 while zkcoord is stopped */
  kill(p.pid, SIGCONT);
  assert_int_equal(run_cli(p), 75);
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void command_ignoring_sigterm_is_killed_after_grace(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_proc_t p = spawn_cli("--grace", "0.5", "lock", path, "sh", "-c",
                           "trap 'echo IGNORED' TERM; echo RUNNING; "
                           "while :; do sleep 0.05; done", NULL);
  char line[64];
  assert_true(zkt_expect(&p, "RUNNING", line, sizeof line, long_op()));
  int64_t t0 = zkt_now_ms();
  kill(p.pid, SIGTERM);
  assert_true(zkt_expect(&p, "IGNORED", line, sizeof line, long_op()));
  assert_int_equal(run_cli(p), 128 + SIGTERM);
  int64_t took = zkt_now_ms() - t0;
  assert_true(took >= 500);
  assert_int_equal(zkt_children_count(path), 0);
  printf("figure: COMMAND ignoring SIGTERM was killed, zkcoord done %lld ms "
         "after its SIGTERM (grace 500 ms)\n", (long long)took);
}

static void sigterm_stops_command_and_releases(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_proc_t p = spawn_cli("lock", path, TRAPPING_CMD, NULL);
  char line[128];
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  kill(p.pid, SIGTERM);
  assert_true(zkt_expect(&p, "TERM", line, sizeof line, long_op()));
  assert_int_equal(run_cli(p), 128 + SIGTERM);
  /* Released, not left to the session timeout: free at once. */
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  assert_int_equal(zkt_children_count(path), 0);
  OK(zkc_mutex_acquire_timeout(m, zkt_ms(5000)));
  release_lock(m);
  /* SIGINT the same way. */
  p = spawn_cli("lock", path, TRAPPING_CMD, NULL);
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  kill(p.pid, SIGINT);
  assert_int_equal(run_cli(p), 128 + SIGINT);
  assert_int_equal(zkt_children_count(path), 0);
  zkc_client_close(c);
}

/* ---- COMMAND, the terminal and process groups ---- */

/* The tool on a pseudo-terminal it controls in the foreground, as from an
 * interactive shell: a session of its own whose controlling terminal is
 * the pty's slave (its stdin, stdout and stderr). Returns its pid; *master
 * is the pty's master side. */
static pid_t spawn_cli_on_pty(int *master, const char *const *args) {
  int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  assert_true(m >= 0);
  assert_int_equal(grantpt(m), 0);
  assert_int_equal(unlockpt(m), 0);
  char slave[128];
  assert_int_equal(ptsname_r(m, slave, sizeof slave), 0);
  char *argv[MAX_ARGS];
  int n = 0;
  argv[n++] = getenv("ZKT_CLI");
  argv[n++] = "--connect";
  argv[n++] = (char *)zkt_connect();
  for (; *args && n < MAX_ARGS - 1; args++) argv[n++] = (char *)*args;
  argv[n] = NULL;
  assert_non_null(argv[0]);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setsid();
    int s = open(slave, O_RDWR); /* the session's controlling terminal */
    if (s < 0) _exit(90);
    dup2(s, 0), dup2(s, 1), dup2(s, 2);
    if (s > 2) close(s);
    execv(argv[0], argv);
    _exit(91);
  }
  *master = m;
  return pid;
}

/* Reads the pty's master until `text` has appeared, within timeout_ms. */
static int pty_expect(int master, const char *text, int64_t timeout_ms) {
  static char seen[8192];
  size_t len = 0;
  int64_t deadline = zkt_now_ms() + timeout_ms;
  seen[0] = '\0';
  while (strstr(seen, text) == NULL) {
    int64_t left = deadline - zkt_now_ms();
    if (left <= 0) {
      print_error("pty: no '%s' in '%s'\n", text, seen);
      return 0;
    }
    struct pollfd p = {.fd = master, .events = POLLIN};
    if (poll(&p, 1, (int)left) <= 0) continue;
    ssize_t n = read(master, seen + len, sizeof seen - 1 - len);
    if (n <= 0) return 0; /* EIO: the slave side is closed */
    len += (size_t)n;
    seen[len] = '\0';
    if (len == sizeof seen - 1) len = 0;
  }
  return 1;
}

/* The pid's exit status (128+signal when killed) within timeout_ms, or -1. */
static int wait_pid(pid_t pid, int64_t timeout_ms) {
  int64_t deadline = zkt_now_ms() + timeout_ms;
  const struct timespec nap = {0, 10 * 1000 * 1000};
  int status;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (zkt_now_ms() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    nanosleep(&nap, NULL); /* polls the child's exit; no condition to await */
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* From an interactive terminal: a COMMAND that reads the terminal gets
 * what is typed (its process group is given the terminal while it runs,
 * so it is not stopped by SIGTTIN), and Ctrl-C reaches it. */
static void command_reads_terminal_and_gets_ctrl_c(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  const char *reads[] = {"lock", path, "sh", "-c",
                         "read x; echo \"got [$x]\"; exit 3", NULL};
  int m;
  pid_t pid = spawn_cli_on_pty(&m, reads);
  ssize_t w = write(m, "typed\n", 6); /* queued until COMMAND reads it */
  assert_int_equal(w, 6);
  assert_true(pty_expect(m, "got [typed]", long_op()));
  assert_int_equal(wait_pid(pid, long_op()), 3);
  close(m);
  assert_int_equal(zkt_children_count(path), 0);

  /* Ctrl-C: COMMAND ends on it at once (not after the grace) and zkcoord
   * exits with its status, having released. */
  const char *runs[] = {"lock", "--grace", "60", path, "sh", "-c",
                        "echo RUNNING; exec sleep 100", NULL};
  pid = spawn_cli_on_pty(&m, runs);
  assert_true(pty_expect(m, "RUNNING", long_op()));
  int64_t t0 = zkt_now_ms();
  w = write(m, "\003", 1);
  assert_int_equal(w, 1);
  assert_int_equal(wait_pid(pid, long_op()), 128 + SIGINT);
  assert_true(zkt_now_ms() - t0 < 30000); /* well within the 60 s grace */
  close(m);
  assert_int_equal(zkt_children_count(path), 0);
}

/* The pid of COMMAND, a direct child of the tool (from /proc). */
static pid_t child_of(pid_t parent) {
  char file[64], buf[256];
  snprintf(file, sizeof file, "/proc/%d/task/%d/children", (int)parent,
           (int)parent);
  FILE *f = fopen(file, "r");
  if (f == NULL) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return (pid_t)atoi(buf);
}

/* A stopped COMMAND (SIGSTOP, Ctrl-Z) acts on a stop signal at once: it
 * is continued after the signal, not left to SIGKILL after the grace. */
static void stopped_command_stops_at_once(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_proc_t p = spawn_cli("lock", "--grace", "60", path, TRAPPING_CMD, NULL);
  char line[128];
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  pid_t cmd = child_of(p.pid);
  assert_true(cmd > 0);
  assert_int_equal(kill(-cmd, SIGSTOP), 0); /* COMMAND's whole group */
  int64_t t0 = zkt_now_ms();
  kill(p.pid, SIGTERM);
  assert_true(zkt_expect(&p, "TERM", line, sizeof line, long_op()));
  assert_int_equal(run_cli(p), 128 + SIGTERM);
  assert_true(zkt_now_ms() - t0 < 30000); /* well within the 60 s grace */
  assert_int_equal(zkt_children_count(path), 0);
}

/* 1 once the process `pid` (an int *) is gone (or a zombie). */
static int process_gone(void *ctx) {
  char file[64], buf[512];
  snprintf(file, sizeof file, "/proc/%d/stat", *(int *)ctx);
  FILE *f = fopen(file, "r");
  if (f == NULL) return 1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *end = strrchr(buf, ')');
  return end == NULL || end[1] == '\0' || end[2] == 'Z' || end[2] == 'X';
}

/* A holder killed outright (SIGKILL, no chance to clean up): what its
 * COMMAND started is stopped too, not only COMMAND (parent-death signal):
 * SIGTERM to COMMAND's group from the watchdog, SIGKILL after the grace
 * for a process that ignores SIGTERM. For lock and leader alike. */
static void sigkill_of_holder_stops_command_children(void **state) {
  (void)state;
  const char *cmds[] = {"lock", "leader"};
  for (size_t i = 0; i < 2; i++) {
    const char *path = zkt_path(cmds[i]);
    /* A child that ignores SIGTERM (the ignored disposition is inherited),
     * started in the background, as a daemon-ish helper would be. */
    zkt_proc_t p = spawn_cli("--session-timeout", "2", cmds[i], "--grace", "1",
                             path, "sh", "-c",
                             "(trap '' TERM; exec sleep 300) & echo CHILD $!; "
                             "wait",
                             NULL);
    char line[128];
    assert_true(zkt_expect(&p, "CHILD ", line, sizeof line, long_op()));
    int grandchild = atoi(line + 6);
    assert_true(grandchild > 0);
    assert_false(process_gone(&grandchild));
    kill(p.pid, SIGKILL);
    assert_int_equal(zkt_wait(&p, long_op()), 128 + SIGKILL);
    int gone = zkt_await(process_gone, &grandchild, long_op());
    if (!gone) kill(grandchild, SIGKILL); /* leave nothing behind */
    assert_true(gone);
    /* The killed holder's node goes with its session (2 s). */
    assert_true(zkt_await_children_exactly(path, 0, zkt_ms(2000) + long_op()));
  }
}

static void sigint_while_waiting_leaves_queue(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  zkt_proc_t p = spawn_cli("lock", path, "sh", "-c", "echo RAN", NULL);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  int64_t t0 = zkt_now_ms();
  kill(p.pid, SIGINT);
  assert_int_equal(run_cli(p), 128 + SIGINT);
  int64_t took = zkt_now_ms() - t0;
  assert_int_equal(zkt_children_count(path), 1); /* its node went with it */
  release_lock(m);
  zkc_client_close(c);
  printf("figure: SIGINT to a waiting zkcoord: exited in %lld ms\n",
         (long long)took);
}

/* ---- leader ---- */

static void leader_hands_over_when_killed(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  const char *cmd = "trap 'exit 0' TERM; echo LEADING $ZKCOORD_FENCING_TOKEN; "
                    "while :; do sleep 0.05; done";
  zkt_proc_t p[2];
  p[0] = spawn_cli("--session-timeout", "2", "leader", "--id", "first", path,
                   "sh", "-c", cmd, NULL);
  char line[128];
  assert_true(zkt_expect(&p[0], "LEADING ", line, sizeof line, long_op()));
  long long t1 = atoll(line + 8);
  p[1] = spawn_cli("--session-timeout", "2", "leader", "--id", "second", path,
                   "sh", "-c", cmd, NULL);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  /* The follower runs nothing. */
  assert_false(zkt_read_line(&p[1], line, sizeof line, zkt_ms(300)));
  kill(p[0].pid, SIGKILL);
  int64_t killed = zkt_now_ms();
  assert_true(zkt_expect(&p[1], "LEADING ", line, sizeof line,
                         zkt_ms(2000) + long_op()));
  int64_t took = zkt_now_ms() - killed;
  assert_true(atoll(line + 8) > t1);
  /* The killed leader's COMMAND was stopped with it (parent-death signal):
   * its stdout, the pipe, reaches EOF once every holder is gone. */
  assert_false(zkt_read_line(&p[0], line, sizeof line, long_op()));
  assert_int_equal(zkt_wait(&p[0], long_op()), 128 + SIGKILL);
  kill(p[1].pid, SIGTERM);
  assert_int_equal(zkt_wait(&p[1], long_op()), 128 + SIGTERM);
  printf("figure: leader SIGKILLed; the other instance's COMMAND started "
         "%lld ms later (2 s session)\n", (long long)took);
}

static void leader_restarts_command_after_losing(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkt_proc_t p = spawn_cli("--session-timeout", "2", "leader", path,
                           TRAPPING_CMD, NULL);
  char line[128];
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  long long t1 = atoll(line + 8);
  kill(p.pid, SIGSTOP); /* the session expires under the paused zkcoord */
  assert_true(zkt_await_children_exactly(path, 0, zkt_ms(2000) + long_op()));
  kill(p.pid, SIGCONT);
  assert_true(zkt_expect(&p, "TERM", line, sizeof line, long_op()));
  /* It joins again and, alone in the election, leads with a new node. */
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  assert_true(atoll(line + 8) > t1);
  kill(p.pid, SIGTERM);
  assert_true(zkt_expect(&p, "TERM", line, sizeof line, long_op()));
  assert_int_equal(zkt_wait(&p, long_op()), 128 + SIGTERM);
}

/* ---- status ---- */

static void status_lists_foreign_nodes_in_order(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  /* Queue order by sequence, whatever the prefix: a kazoo lock first, a
   * Curator-style node, a kazoo read lock; a plain child is no contender. */
  static const struct {
    const char *prefix, *data;
    int len;
  } nodes[] = {{"0123456789abcdef__lock__", "kazoo-host", 10},
               {"_c_8f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6-lock-", "cur\x01tor", 7},
               {"fedcba9876543210__rlock__", "", 0}};
  char created[3][1200];
  for (int i = 0; i < 3; i++) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", path, nodes[i].prefix);
    assert_int_equal(zoo_create(zkt_raw(), p, nodes[i].data, nodes[i].len,
                                &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL,
                                created[i], sizeof created[i]), ZOK);
  }
  char plain[1200];
  snprintf(plain, sizeof plain, "%s/readme", path);
  assert_int_equal(zoo_create(zkt_raw(), plain, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);

  zkt_proc_t p = spawn_cli("status", "--json", path, NULL);
  static char json[8192];
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_int_equal(run_cli(p), 0);
  const char *k = strstr(json, "__lock__"), *c = strstr(json, "-lock-"),
             *r = strstr(json, "__rlock__"), *f = strstr(json, "\"readme\"");
  assert_true(k && c && r && f);
  assert_true(k < c && c < r && r < f);
  /* The one schema: held a boolean, holders and waiting counts. */
  assert_non_null(strstr(json, "\"recipe\":\"lock\""));
  assert_non_null(strstr(json, "\"held\":true,\"holders\":1,\"waiting\":2,"
                               "\"limit\":null"));
  assert_non_null(strstr(json, "\"data\":\"kazoo-host\""));
  assert_non_null(strstr(json, "\"data\":\"cur\\u0001tor\""));
  assert_non_null(strstr(json, "\"position\":null"));
  char sess[40];
  snprintf(sess, sizeof sess, "\"session\":\"0x%llx\"",
           (unsigned long long)zoo_client_id(zkt_raw())->client_id);
  assert_non_null(strstr(json, sess));

  p = spawn_cli("status", path, NULL);
  char line[512];
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "held by kazoo-host, 2 waiting"));
  int saw_escape = 0;
  while (zkt_read_line(&p, line, sizeof line, long_op()))
    saw_escape |= strstr(line, "cur\\x01tor") != NULL;
  assert_true(saw_escape);
  assert_int_equal(run_cli(p), 0);

  for (int i = 0; i < 3; i++) assert_int_equal(zoo_delete(zkt_raw(), created[i], -1), ZOK);
  p = spawn_cli("status", path, NULL);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "not held"));
  assert_int_equal(run_cli(p), 0);
}

/* A connection cut right after status's children read: the tool reads
 * again once connected instead of exiting 69. */
static void status_reads_again_after_a_cut(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  char node[1200], created[1200];
  snprintf(node, sizeof node, "%s/0123456789abcdef__lock__", path);
  assert_int_equal(zoo_create(zkt_raw(), node, "kazoo-host", 10,
                              &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL,
                              created, sizeof created), ZOK);
  zkt_proc_t proxy = zkt_proxy_start(1);
  zkt_proxy_cmd(&proxy, "cut-after-list 1");
  zkt_proc_t p = spawn_cli("--connect", zkt_proxy_connect(&proxy), "status",
                           path, NULL);
  char line[512];
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "held by kazoo-host"));
  assert_int_equal(run_cli(p), 0);
  zkt_send(&proxy, "stats");
  assert_true(zkt_expect(&proxy, "STATS ", line, sizeof line, long_op()));
  const char *cuts = strstr(line, "cuts=");
  assert_non_null(cuts);
  assert_int_equal(atoi(cuts + 5), 1);
  zkt_proxy_stop(&proxy);
  assert_int_equal(zoo_delete(zkt_raw(), created, -1), ZOK);
}

/* The object of the JSON array entry whose node name contains `name`, up
 * to its closing brace (static buffer); fails the test when absent. */
static const char *json_entry(const char *json, const char *name) {
  static char buf[2048];
  const char *at = strstr(json, name);
  if (at == NULL) fail_msg("no node %s in %s", name, json);
  const char *start = at, *end = strchr(at, '}');
  while (start > json && *start != '{') start--;
  if (end == NULL) fail_msg("unterminated entry for %s", name);
  snprintf(buf, sizeof buf, "%.*s", (int)(end - start + 1), start);
  return buf;
}

/* Every kind of node on one path: the readers at the head hold together,
 * the first writer waits, exclusive nodes (a mutex's, kazoo's __lock__)
 * behind it. */
static void status_shows_kinds(void **state) {
  (void)state;
  const char *path = zkt_path("rw");
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  static const struct {
    const char *prefix, *data, *kind;
    int holder;
  } nodes[] = {
      {"_c_8f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6-__READ__", "reader-1", "read", 1},
      {"fedcba9876543210fedcba9876543210__rlock__", "reader-2", "read", 1},
      {"_c_11111111-2222-4333-8444-555555555555-__WRIT__", "writer", "write", 0},
      {"_c_66666666-7777-4888-8999-aaaaaaaaaaaa-lock-", "mutex", "exclusive", 0},
      {"0123456789abcdef0123456789abcdef__lock__", "kazoo", "exclusive", 0}};
  enum { N = sizeof nodes / sizeof *nodes };
  char created[N][1200];
  for (int i = 0; i < N; i++) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", path, nodes[i].prefix);
    assert_int_equal(zoo_create(zkt_raw(), p, nodes[i].data,
                                (int)strlen(nodes[i].data), &ZOO_OPEN_ACL_UNSAFE,
                                ZOO_EPHEMERAL_SEQUENTIAL, created[i],
                                sizeof created[i]), ZOK);
  }
  char plain[1200];
  snprintf(plain, sizeof plain, "%s/readme", path);
  assert_int_equal(zoo_create(zkt_raw(), plain, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);

  zkt_proc_t p = spawn_cli("status", "--json", path, NULL);
  static char json[16384];
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_int_equal(run_cli(p), 0);
  for (int i = 0; i < N; i++) {
    const char *e = json_entry(json, strrchr(created[i], '/') + 1);
    char want[64];
    snprintf(want, sizeof want, "\"kind\":\"%s\"", nodes[i].kind);
    if (strstr(e, want) == NULL) fail_msg("%s lacks %s", e, want);
    snprintf(want, sizeof want, "\"holder\":%s", nodes[i].holder ? "true" : "false");
    if (strstr(e, want) == NULL) fail_msg("%s lacks %s", e, want);
  }
  assert_non_null(strstr(json_entry(json, "\"readme\""), "\"kind\":null"));

  p = spawn_cli("status", path, NULL);
  char line[512];
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "held by reader-1 (reader) and 1 more reader, "
                               "3 waiting"));
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_true(strncmp(line, "POS    KIND ", 12) == 0);
  /* The rows in queue order: POS and KIND columns. */
  static const char *const rows[] = {
      "holder read      ", "holder read      ", "2      write     ",
      "3      exclusive ", "4      exclusive ", "-      -         "};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
    if (strncmp(line, rows[i], strlen(rows[i])) != 0)
      fail_msg("row %zu: '%s', expected it to start with '%s'", i, line, rows[i]);
  }
  assert_int_equal(run_cli(p), 0);
  /* A writer alone at the head. */
  for (int i = 0; i < 2; i++) assert_int_equal(zoo_delete(zkt_raw(), created[i], -1), ZOK);
  p = spawn_cli("status", path, NULL);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "held by writer (writer), 2 waiting"));
  assert_int_equal(run_cli(p), 0);
  for (int i = 2; i < N; i++) assert_int_equal(zoo_delete(zkt_raw(), created[i], -1), ZOK);
}

/* ---- read-write lock: --shared, --write ---- */

/* A COMMAND that reports its node, then runs until a line arrives. */
#define HOLDING_CMD "sh", "-c", "echo RUNNING $ZKCOORD_NODE; read x"

static void lock_shared_two_readers_hold_together(void **state) {
  (void)state;
  const char *path = zkt_path("rw");
  zkt_proc_t r1 = spawn_cli("lock", "--shared", path, HOLDING_CMD, NULL);
  char line[1300];
  assert_true(zkt_expect(&r1, "RUNNING ", line, sizeof line, long_op()));
  assert_non_null(strstr(line, "-__READ__"));
  /* The second reader runs while the first still holds. */
  zkt_proc_t r2 = spawn_cli("lock", "-s", "-w", "20", path, HOLDING_CMD, NULL);
  assert_true(zkt_expect(&r2, "RUNNING ", line, sizeof line, long_op()));
  assert_non_null(strstr(line, "-__READ__"));
  assert_int_equal(zkt_children_count(path), 2);
  zkt_send(&r1, "done");
  zkt_send(&r2, "done");
  assert_int_equal(run_cli(r1), 0);
  assert_int_equal(run_cli(r2), 0);
  assert_int_equal(zkt_children_count(path), 0);
}

/* Plain `lock` on a path with a read node takes the write side: it waits
 * while a --shared holder runs, and so does a later reader (FIFO). */
static void lock_on_read_write_path_waits_for_shared_holder(void **state) {
  (void)state;
  const char *path = zkt_path("rw");
  zkt_proc_t r = spawn_cli("lock", "--shared", path, HOLDING_CMD, NULL);
  char line[1300];
  assert_true(zkt_expect(&r, "RUNNING ", line, sizeof line, long_op()));
  /* A writer cannot have it now; a reader can. */
  assert_int_equal(RUN_CLI(CONNECTED, "lock", "-n", path, "true"), 1);
  assert_int_equal(RUN_CLI("lock", "--shared", "-w", "20", path, "true"), 0);
  zkt_proc_t w = spawn_cli("lock", path, "sh", "-c", "echo GOT $ZKCOORD_NODE",
                           NULL);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  zkc_client_t *c = zkt_open(NULL);
  zkc_contender_t *v;
  size_t n;
  OK(zkt_lock_contenders(c, path, &v, &n));
  assert_int_equal(n, 2);
  assert_string_equal(v[0].kind, "read");
  assert_string_equal(v[1].kind, "write");
  zkt_contenders_free(v, n);
  /* A reader behind the waiting writer waits too. */
  assert_int_equal(RUN_CLI(CONNECTED, "lock", "--shared", "-n", path, "true"), 1);
  /* Its node is in the queue behind a holding reader: it did not run. */
  assert_false(zkt_read_line(&w, line, sizeof line, zkt_ms(300)));
  zkt_send(&r, "done");
  assert_int_equal(run_cli(r), 0);
  assert_true(zkt_expect(&w, "GOT ", line, sizeof line, long_op()));
  assert_non_null(strstr(line, "-__WRIT__"));
  assert_int_equal(run_cli(w), 0);
  assert_int_equal(zkt_children_count(path), 0);
  zkc_client_close(c);
}

/* --write takes the write side on a path with no read-write contender
 * (where plain `lock` makes a mutex node, which Curator's readers would not
 * see). */
static void lock_write_on_empty_path_makes_writer_node(void **state) {
  (void)state;
  const char *path = zkt_path("rw");
  char line[1300];
  zkt_proc_t p = spawn_cli("lock", "--write", path, HOLDING_CMD, NULL);
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  assert_non_null(strstr(line, "-__WRIT__"));
  /* Readers see it: a reader cannot have the lock now. */
  assert_int_equal(RUN_CLI(CONNECTED, "lock", "-s", "-n", path, "true"), 1);
  zkt_send(&p, "done");
  assert_int_equal(run_cli(p), 0);
  /* Without --write, on the now empty path: the plain mutex. */
  p = spawn_cli("lock", path, HOLDING_CMD, NULL);
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  assert_non_null(strstr(line, "-lock-"));
  zkt_send(&p, "done");
  assert_int_equal(run_cli(p), 0);
}

/* A reader waiting behind a writer: SIGINT ends the wait at once and
 * takes its node out of the queue, as for the mutex. */
static void shared_sigint_while_waiting_leaves_queue(void **state) {
  (void)state;
  const char *path = zkt_path("rw");
  zkc_client_t *c = zkt_open(NULL);
  zkc_rwlock_t *rw;
  OK(zkc_rwlock_create(&rw, c, path));
  OK(zkc_mutex_acquire_timeout(zkc_rwlock_write_side(rw), long_op()));
  zkt_proc_t p = spawn_cli("lock", "--shared", path, "sh", "-c", "echo RAN",
                           NULL);
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  kill(p.pid, SIGINT);
  assert_int_equal(run_cli(p), 128 + SIGINT);
  assert_int_equal(zkt_children_count(path), 1);
  OK(zkc_mutex_release(zkc_rwlock_write_side(rw)));
  OK(zkc_rwlock_destroy(rw));
  zkc_client_close(c);
}

/* ---- revoke ---- */

typedef struct {
  atomic_int calls;
} revoked_t;

static void on_revoke(void *ctx, zkc_mutex_t *m, int64_t token) {
  (void)m, (void)token;
  atomic_fetch_add(&((revoked_t *)ctx)->calls, 1);
}

static int revoke_told(void *ctx) {
  return atomic_load(&((revoked_t *)ctx)->calls) > 0;
}

/* Starts `zkcoord revoke [args] path` and reads its first line into out:
 * the tool then waits for the holders it asked. */
static zkt_proc_t spawn_revoke(const char *path, const char *arg, char *out,
                               size_t len) {
  zkt_proc_t p = arg ? spawn_cli(CONNECTED, "revoke", arg, path, NULL)
                     : spawn_cli("revoke", path, NULL);
  out[0] = '\0';
  assert_true(zkt_read_line(&p, out, len, long_op()));
  return p;
}

/* Runs `zkcoord revoke path` to its end: its exit status, its first line
 * in out. */
static int run_revoke(const char *path, char *out, size_t len) {
  return run_cli(spawn_revoke(path, NULL, out, len));
}

/* A holder that made its hold revocable is told; the tool says how many it
 * asked, waits for them to let go and says they did (exit 0). On a
 * read-write path every holding reader is asked, not the writer waiting
 * behind them. */
static void revoke_asks_revocable_holders(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  revoked_t v = {0};
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_set_revocable(m, on_revoke, &v));
  OK(zkc_mutex_acquire_timeout(m, long_op()));
  char line[1300], want[1300];
  int64_t t0 = zkt_now_ms();
  zkt_proc_t r = spawn_revoke(path, NULL, line, sizeof line);
  snprintf(want, sizeof want, "%s: asked 1 holder to let go", path);
  assert_string_equal(line, want);
  assert_true(zkt_await(revoke_told, &v, long_op()));
  release_lock(m);
  snprintf(want, sizeof want, "%s: the holder let go after ", path);
  assert_true(zkt_expect(&r, want, line, sizeof line, long_op()));
  assert_int_equal(run_cli(r), 0);
  /* Told as soon as the node is gone, not at the end of its wait. */
  assert_true(zkt_now_ms() - t0 < ZKCLI_TEST_REVOKE_WAIT_MS);

  char rw[600];
  snprintf(rw, sizeof rw, "%s", zkt_path("rw"));
  zkc_rwlock_t *a, *b;
  revoked_t va = {0}, vb = {0};
  OK(zkc_rwlock_create(&a, c, rw));
  OK(zkc_rwlock_create(&b, c, rw));
  OK(zkc_mutex_set_revocable(zkc_rwlock_read_side(a), on_revoke, &va));
  OK(zkc_mutex_set_revocable(zkc_rwlock_read_side(b), on_revoke, &vb));
  OK(zkc_mutex_acquire_timeout(zkc_rwlock_read_side(a), long_op()));
  OK(zkc_mutex_acquire_timeout(zkc_rwlock_read_side(b), long_op()));
  zkt_proc_t w = spawn_cli("lock", rw, "sh", "-c", "echo GOT", NULL);
  assert_true(zkt_await_children_exactly(rw, 3, long_op()));
  r = spawn_revoke(rw, NULL, line, sizeof line);
  snprintf(want, sizeof want, "%s: asked 2 holders to let go", rw);
  assert_string_equal(line, want);
  assert_true(zkt_await(revoke_told, &va, long_op()));
  assert_true(zkt_await(revoke_told, &vb, long_op()));
  /* The readers let go, as asked: the writer runs. */
  OK(zkc_mutex_release(zkc_rwlock_read_side(a)));
  OK(zkc_mutex_release(zkc_rwlock_read_side(b)));
  assert_true(zkt_expect(&w, "GOT", line, sizeof line, long_op()));
  assert_int_equal(run_cli(w), 0);
  snprintf(want, sizeof want, "%s: the holders let go after ", rw);
  assert_true(zkt_expect(&r, want, line, sizeof line, long_op()));
  assert_int_equal(run_cli(r), 0);
  OK(zkc_rwlock_destroy(a));
  OK(zkc_rwlock_destroy(b));
  zkc_client_close(c);
}

/* Nobody to ask: exit 1 (as pkill with no match), also on a path that does
 * not exist. */
static void revoke_empty_path_exit_1(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  char line[1300], want[1300];
  assert_int_equal(run_revoke(path, line, sizeof line), 1); /* no such path */
  snprintf(want, sizeof want, "%s: asked 0 holders to let go (not held)", path);
  assert_string_equal(line, want);
  assert_int_equal(RUN_CLI("lock", path, "true"), 0); /* the path now exists */
  assert_int_equal(run_revoke(path, line, sizeof line), 1);
  assert_string_equal(line, want);
}

/* The JSON status entry of the holder (the first of "contenders"). */
static char *status_json(const char *path) {
  zkt_proc_t p = spawn_cli("status", "--json", path, NULL);
  char *line = calloc(1, 65536);
  assert_true(zkt_read_line(&p, line, 65536, long_op()));
  assert_int_equal(run_cli(p), 0);
  return line;
}

/* A holder that did not make its hold revocable: revoke does not write the
 * marker (nobody would act on it, and it would overwrite the holder id),
 * says so and exits 2 at once; status still shows the holder's id. */
static void revoke_not_revocable_keeps_id_exit_2(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  char node[1100], data[64], line[1300], want[1300];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  int id_len = zkt_get_data(node, data, sizeof data);
  assert_true(id_len > 0);
  int64_t t0 = zkt_now_ms();
  zkt_proc_t r = spawn_revoke(path, NULL, line, sizeof line);
  snprintf(want, sizeof want, "%s: not asked: %.*s holds it without making "
           "its hold revocable", path, id_len, data);
  assert_non_null(strstr(line, want));
  assert_int_equal(run_cli(r), 2);
  /* At once: not after the 15 s revoke waits for a holder it asked. */
  assert_true(zkt_now_ms() - t0 < ZKCLI_TEST_REVOKE_WAIT_MS);
  char after[64];
  assert_int_equal(zkt_get_data(node, after, sizeof after), id_len);
  assert_memory_equal(after, data, (size_t)id_len);
  char *json = status_json(path);
  char quoted[80];
  snprintf(quoted, sizeof quoted, "\"data\":\"%.*s\"", id_len, data);
  assert_non_null(strstr(json, quoted));
  assert_non_null(strstr(json, "\"revoke_requested\":false"));
  free(json);
  release_lock(m);
  zkc_client_close(c);
}

/* A revocable holder that does not let go within -w: the tool says the
 * request was not honoured and exits 2; status shows the request, not the
 * marker as a holder id. -n asks and does not wait (exit 0). */
static void revoke_not_honoured_within_wait_exit_2(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  revoked_t v = {0};
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_set_revocable(m, on_revoke, &v));
  OK(zkc_mutex_acquire_timeout(m, long_op()));
  char line[1300], want[1300];
  zkt_proc_t r = spawn_revoke(path, "-w0.5", line, sizeof line);
  snprintf(want, sizeof want, "%s: asked 1 holder to let go", path);
  assert_string_equal(line, want);
  assert_true(zkt_await(revoke_told, &v, long_op()));
  snprintf(want, sizeof want, "%s: 1 of 1 holder asked did not let go within "
           "0.5 s: the request was not honoured", path);
  assert_true(zkt_read_line(&r, line, sizeof line, long_op()));
  assert_string_equal(line, want);
  assert_int_equal(run_cli(r), 2);
  assert_true(zkc_hold_is_held(zkc_mutex_hold(m)));

  zkt_proc_t p = spawn_cli("status", path, NULL);
  snprintf(want, sizeof want, "%s: held by (asked to let go), 0 waiting", path);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, want);
  assert_int_equal(run_cli(p), 0);
  char *json = status_json(path);
  assert_non_null(strstr(json, "\"revoke_requested\":true"));
  free(json);

  r = spawn_revoke(path, "-n", line, sizeof line);
  snprintf(want, sizeof want, "%s: asked 1 holder to let go", path);
  assert_string_equal(line, want);
  assert_int_equal(run_cli(r), 0);
  release_lock(m);
  zkc_client_close(c);
}

/* ---- sem ---- */

/* 10 processes, N = 3: at most 3 COMMANDs run at once, judged from the
 * start and end times the COMMANDs themselves wrote. */
static void sem_ten_processes_at_most_three(void **state) {
  (void)state;
  const char *dir = scratch_dir();
  char path[600], log[512], cmd[1400];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(cmd, sizeof cmd,
           "echo \"S $(date +%%s%%N) $$\" >> '%s'; sleep 0.2; "
           "echo \"E $(date +%%s%%N) $$\" >> '%s'", log, log);
  enum { PROCS = 10 };
  zkt_proc_t p[PROCS];
  int64_t t0 = zkt_now_ms();
  for (int i = 0; i < PROCS; i++)
    p[i] = spawn_cli("sem", "-m", "3", path, "--", "sh", "-c", cmd, NULL);
  for (int i = 0; i < PROCS; i++) assert_int_equal(run_cli(p[i]), 0);
  int64_t took = zkt_now_ms() - t0;
  char *text = read_file(dir, "log");
  assert_non_null(text);
  assert_int_equal(count_lines(text), 2 * PROCS);
  /* Each COMMAND's start and end, paired by its shell's pid. */
  int64_t st[PROCS], en[PROCS];
  long pid[PROCS];
  int n = 0;
  char *save, *ln = strtok_r(text, "\n", &save);
  for (; ln; ln = strtok_r(NULL, "\n", &save)) {
    long long t;
    long who;
    char kind;
    if (sscanf(ln, "%c %lld %ld", &kind, &t, &who) != 3) fail_msg("bad line %s", ln);
    int k = 0;
    while (k < n && pid[k] != who) k++;
    if (k == n) {
      if (n == PROCS) fail_msg("more than %d COMMANDs", PROCS);
      pid[n++] = who;
    }
    if (kind == 'S') st[k] = t;
    else en[k] = t;
  }
  assert_int_equal(n, PROCS);
  int most = zkt_max_concurrent(st, en, n);
  free(text);
  scratch_cleanup();
  printf("figure: 10 x sem -m 3, at most %d COMMANDs at once, %lld ms in all\n",
         most, (long long)took);
  assert_true(most <= 3);
  assert_true(most >= 2);
  assert_int_equal(zkt_children_count(sub_path(path, "leases")), 0);
}

static void sem_exit_codes_and_status(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = 2;
  zkc_sem_t *s;
  zkc_lease_t *l;
  OK(zkc_sem_create(&s, c, path, &o));
  OK(zkc_sem_acquire(s, 2, long_op(), &l)); /* both leases */
  assert_int_equal(RUN_CLI(CONNECTED, "sem", "-n", "-m", "2", path, "true"), 1);
  assert_int_equal(RUN_CLI("sem", "--nonblock", "-E", "42", "--max", "2", path,
                           "true"), 42);
  int64_t t0 = zkt_now_ms();
  assert_int_equal(RUN_CLI("sem", "-w", "0.5", "-m", "2", path, "true"), 1);
  assert_true(zkt_now_ms() - t0 >= 500);
  assert_int_equal(RUN_CLI("sem", path, "true"), 64);      /* no -m */
  assert_int_equal(RUN_CLI("sem", "-m", "0", path, "true"), 64);
  assert_int_equal(RUN_CLI("lock", "-m", "2", path, "true"), 64);
  assert_int_equal(RUN_CLI("sem", "-m", "2", "bad", "true"), 65);
  /* status shows the leases and the queue. */
  zkt_proc_t st = spawn_cli("status", path, NULL);
  char line[512];
  assert_true(zkt_expect(&st, path, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "semaphore, 2 leases held (limit not recorded"));
  assert_non_null(strstr(line, ", 0 in the queue"));
  assert_int_equal(run_cli(st), 0);
  OK(zkc_lease_free(l));
  /* A shared count node: created with -m, then read. */
  char count[600];
  snprintf(count, sizeof count, "%s", zkt_path("count"));
  assert_int_equal(RUN_CLI("sem", "--count-path", count, "-m", "1", path,
                           "true"), 0);
  /* c's server may apply the CLI's create later than the CLI's own did
   * (a loaded run read ZKC_ENONODE here): await it there. */
  assert_true(zkt_await_shared_count(c, count, 1, long_op()));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
  zkt_delete_tree(count);
}

static void sem_lease_lost_stops_command_exit_75(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkt_proc_t p = spawn_cli("--session-timeout", "2", "--grace", "5", "sem", "-m",
                           "2", path, TRAPPING_CMD, NULL);
  char line[128];
  assert_true(zkt_expect(&p, "RUNNING ", line, sizeof line, long_op()));
  kill(p.pid, SIGSTOP);
  assert_true(zkt_await_children_exactly(sub_path(path, "leases"), 0,
                                         zkt_ms(2000) + long_op()));
  kill(p.pid, SIGCONT);
  assert_true(zkt_expect(&p, "TERM", line, sizeof line, long_op()));
  assert_int_equal(run_cli(p), 75);
}

/* ---- what a new user hit (issue 25) ---- */

/* The tool's stderr of a run still going: spawn_cli_err's file so far. */
static void read_err_file(char *err, size_t len) {
  FILE *f = fopen(err_file, "r");
  size_t n = f ? fread(err, 1, len - 1, f) : 0;
  err[n] = '\0';
  if (f) fclose(f);
}

/* 1 once the running tool's stderr holds `text` (a zkt_await predicate). */
static int err_file_has(void *text) {
  static char err[65536];
  read_err_file(err, sizeof err);
  return strstr(err, text) != NULL;
}

/* Counts how many times `needle` occurs in `hay`. */
static int count_of(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

typedef struct {
  zkc_sem_t *sem;
  zkc_lease_t *lease;
  int rc;
  atomic_int done;
} sem_waiter_t;

static void *sem_wait_main(void *arg) {
  sem_waiter_t *w = arg;
  w->rc = zkc_sem_acquire(w->sem, 1, -1, &w->lease);
  atomic_store(&w->done, 1);
  return NULL;
}

static int sem_waiter_done(void *arg) {
  return atomic_load(&((sem_waiter_t *)arg)->done);
}

/* A semaphore of 2 with both leases held and a third client at the head of
 * the queue, its lease node made, waiting: status counts 2 held and 1
 * waiting (every held lease a holder, the head's node not, the head itself
 * no holder), and shows the limit when given one. */
static void status_semaphore_holders_waiting_head_and_limit(void **state) {
  (void)state;
  char path[600], count[600], leases[700];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  snprintf(count, sizeof count, "%s", zkt_path("count"));
  snprintf(leases, sizeof leases, "%s/leases", path);
  zkc_client_t *a = zkt_open(NULL), *b = zkt_open(NULL);
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.max_leases = 2;
  zkc_sem_t *sa, *sb;
  OK(zkc_sem_create(&sa, a, path, &so));
  OK(zkc_sem_create(&sb, b, path, &so));
  zkc_lease_t *l1, *l2;
  OK(zkc_sem_acquire(sa, 1, long_op(), &l1));
  OK(zkc_sem_acquire(sa, 1, long_op(), &l2));
  sem_waiter_t w = {.sem = sb};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, sem_wait_main, &w), 0);
  assert_true(zkt_await_children_exactly(leases, 3, long_op()));

  /* JSON, the option after PATH. */
  static char json[16384];
  zkt_proc_t p = spawn_cli("status", path, "--json", NULL);
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_int_equal(run_cli(p), 0);
  /* The lock's schema: held a boolean, the leases held the holders, the
   * queue the waiting. */
  assert_non_null(strstr(json, "\"recipe\":\"semaphore\""));
  assert_non_null(strstr(json, "\"held\":true,\"holders\":2,\"waiting\":1,"
                               "\"limit\":null"));
  const char *q = strstr(json, "\"queue\":");
  assert_non_null(q);
  char lease_part[16384];
  snprintf(lease_part, sizeof lease_part, "%.*s", (int)(q - json), json);
  assert_int_equal(count_of(lease_part, "\"holder\":true,\"waiting\":false"), 2);
  assert_int_equal(count_of(lease_part, "\"holder\":false,\"waiting\":true"), 1);
  assert_int_equal(count_of(q, "\"holder\":true"), 0); /* the head holds none */
  assert_int_equal(count_of(q, "\"position\":0"), 1);

  /* The table: two held, the head's node waiting, the head itself. */
  char line[1300];
  p = spawn_cli("status", path, NULL);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "semaphore, 2 leases held (limit not recorded"));
  assert_non_null(strstr(line, "1 lease node of the queue head waiting"));
  int held = 0, waiting = 0, heads = 0;
  while (zkt_read_line(&p, line, sizeof line, long_op())) {
    held += strncmp(line, "lease ", 6) == 0;
    waiting += strncmp(line, "wait ", 5) == 0;
    heads += strncmp(line, "head ", 5) == 0;
    assert_true(strncmp(line, "holder ", 7) != 0);
  }
  assert_int_equal(run_cli(p), 0);
  assert_int_equal(held, 2);
  assert_int_equal(waiting, 1);
  assert_int_equal(heads, 1);

  /* The limit, from -m or from a count node. */
  p = spawn_cli("status", "-m", "2", path, NULL);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "2 leases held of 2 (limit from -m)"));
  assert_int_equal(run_cli(p), 0);
  OK(zkc_shared_count_set(a, count, 2));
  p = spawn_cli("status", "--count-path", count, "--json", path, NULL);
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_int_equal(run_cli(p), 0);
  assert_non_null(strstr(json, "\"limit\":2,\"limit_from\":\"count node\""));

  OK(zkc_lease_free(l1));
  assert_true(zkt_await(sem_waiter_done, &w, long_op()));
  pthread_join(t, NULL);
  OK(w.rc);
  OK(zkc_lease_free(w.lease));
  OK(zkc_lease_free(l2));
  OK(zkc_sem_destroy(sa));
  OK(zkc_sem_destroy(sb));
  zkc_client_close(b);
  zkc_client_close(a);
  zkt_delete_tree(count);
}

/* revoke on a leader election or a semaphore: refused (65, one line),
 * and the participant id Curator's LeaderLatch.getLeader() reads stays. */
static void revoke_refuses_election_and_semaphore(void **state) {
  (void)state;
  char election[600], sem[600];
  snprintf(election, sizeof election, "%s", zkt_path("election"));
  snprintf(sem, sizeof sem, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, election, "first", NULL));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, long_op()));
  char node[1100], data[64], err[8192];
  OK(zkt_hold_node(zkc_latch_hold(l), node, sizeof node));
  assert_int_equal(run_cli_stderr(err, sizeof err, "revoke", election), 65);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "leader election"));
  assert_int_equal(zkt_get_data(node, data, sizeof data), 5);
  assert_string_equal(data, "first");
  zkc_sem_t *s;
  zkc_lease_t *lease;
  OK(zkc_sem_create(&s, c, sem, NULL));
  OK(zkc_sem_acquire(s, 1, long_op(), &lease));
  assert_int_equal(run_cli_stderr(err, sizeof err, "revoke", sem), 65);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "semaphore"));
  OK(zkc_lease_free(lease));
  OK(zkc_sem_destroy(s));
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
}

/* A COMMAND that reports SIGTERM and exits 5 then, and runs until then. */
#define EXITS_5_ON_TERM                                                        \
  "sh", "-c",                                                                  \
      "trap 'echo TERM; exit 5' TERM; echo RUNNING; "                          \
      "while :; do sleep 0.05; done"

/* lock --revocable: `zkcoord revoke` stops COMMAND (SIGTERM), the lock is
 * released and zkcoord exits with COMMAND's status; without COMMAND the
 * request releases and zkcoord exits 0. A plain hold is not told. */
static void lock_revocable_lets_go_on_revoke(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  char line[1300], err[8192];
  zkt_proc_t p = spawn_cli_err("lock", "--revocable", path, EXITS_5_ON_TERM,
                               NULL);
  assert_true(zkt_expect(&p, "RUNNING", line, sizeof line, long_op()));
  assert_int_equal(RUN_CLI("revoke", path), 0);
  assert_true(zkt_expect(&p, "TERM", line, sizeof line, long_op()));
  assert_int_equal(run_cli_err(err, sizeof err, p), 5);
  assert_non_null(strstr(err, "revoked"));
  assert_int_equal(zkt_children_count(path), 0);
  /* Without COMMAND. */
  p = spawn_cli("lock", "--revocable", path, NULL);
  assert_true(zkt_expect(&p, "ZKCOORD_NODE=", line, sizeof line, long_op()));
  assert_int_equal(RUN_CLI("revoke", path), 0);
  assert_int_equal(run_cli(p), 0);
  assert_int_equal(zkt_children_count(path), 0);
}

/* lock on a semaphore's path (Curator's layout, or kazoo's), on an
 * election; sem on a lock path; leader on a lock path: each refused with
 * 65 and one line before anything is created; sem on a squatter's path
 * taken, as the library takes it. */
static void commands_refuse_another_recipes_path(void **state) {
  (void)state;
  char sem[600], election[600], lock[600], ksem[600], kid[700];
  snprintf(sem, sizeof sem, "%s", zkt_path("sem"));
  snprintf(election, sizeof election, "%s", zkt_path("election"));
  snprintf(lock, sizeof lock, "%s", zkt_path("lock"));
  snprintf(ksem, sizeof ksem, "%s", zkt_path("ksem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_t *s;
  zkc_lease_t *lease;
  OK(zkc_sem_create(&s, c, sem, NULL));
  OK(zkc_sem_acquire(s, 1, long_op(), &lease));
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, CONNECTED, "lock", "-n", sem, "true"),
                   65);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "semaphore"));
  assert_int_equal(zkt_children_count(sem), 2); /* leases, locks: no lock node */
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, election, "first", NULL));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, long_op()));
  assert_int_equal(run_cli_stderr(err, sizeof err, "lock", election, "true"),
                   65);
  assert_non_null(strstr(err, "leader election"));
  assert_int_equal(run_cli_stderr(err, sizeof err, "sem", "-m", "2", election,
                                  "true"), 65);
  zkc_mutex_t *m = hold_lock(c, lock);
  assert_int_equal(run_cli_stderr(err, sizeof err, "sem", "-m", "2", lock,
                                  "true"), 65);
  assert_non_null(strstr(err, "lock nodes"));
  assert_int_equal(run_cli_stderr(err, sizeof err, "leader", lock, "true"), 65);
  assert_int_equal(zkt_children_count(lock), 1);
  /* kazoo's Semaphore: its leases are ephemeral uuid-named children. */
  zkt_make_root();
  assert_int_equal(zoo_create(zkt_raw(), ksem, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  snprintf(kid, sizeof kid, "%s/0123456789abcdef0123456789abcdef", ksem);
  assert_int_equal(zoo_create(zkt_raw(), kid, "kazoo", 5, &ZOO_OPEN_ACL_UNSAFE,
                              ZOO_EPHEMERAL, NULL, 0), ZOK);
  assert_int_equal(run_cli_stderr(err, sizeof err, "lock", ksem, "true"), 65);
  assert_non_null(strstr(err, "kazoo's semaphore"));
  assert_int_equal(zoo_delete(zkt_raw(), kid, -1), ZOK);
  /* A sequenced node of no recipe (a squatter's) is not a lock's own: sem
   * takes the path, as zkc_sem_acquire does (before the CLI had a rule of
   * its own, stricter than the library's, and refused it). */
  char squat[600], sq[700];
  snprintf(squat, sizeof squat, "%s", zkt_path("squat"));
  assert_int_equal(zoo_create(zkt_raw(), squat, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0,
                              NULL, 0), ZOK);
  snprintf(sq, sizeof sq, "%s/x-", squat);
  assert_int_equal(zoo_create(zkt_raw(), sq, "", 0, &ZOO_OPEN_ACL_UNSAFE,
                              ZOO_SEQUENCE, NULL, 0), ZOK);
  assert_int_equal(RUN_CLI("sem", "-m", "2", squat, "true"), 0);
  release_lock(m);
  OK(zkc_lease_free(lease));
  OK(zkc_sem_destroy(s));
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
}

/* lock --shared and --write on a mutex's path: refused with 65 and one
 * line (Curator's readers would not see the mutex's node); plain lock
 * queues behind the mutex. */
static void read_write_lock_refuses_mutex_path(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, CONNECTED, "lock",
                                  "--shared", "-n", path, "true"), 65);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "plain lock"));
  assert_non_null(strstr(err, "not a read-write lock"));
  assert_int_equal(run_cli_stderr(err, sizeof err, CONNECTED, "lock",
                                  "--write", "-n", path, "true"), 65);
  assert_int_equal(RUN_CLI(CONNECTED, "lock", "-n", path, "true"), 1);
  assert_int_equal(zkt_children_count(path), 1);
  /* Where both layouts meet, revoke still asks the holders (none made its
   * hold revocable here): it is no recipe of its own. */
  char reader[800], line[1300];
  zkt_raw_child(path, "0123456789abcdef0123456789abcdef__rlock__", reader,
                sizeof reader);
  assert_int_equal(run_revoke(path, line, sizeof line), 2);
  assert_int_equal(zoo_delete(zkt_raw(), reader, -1), ZOK);
  release_lock(m);
  zkc_client_close(c);
}

/* A lock taken with --acl secure under other credentials: status without
 * them still lists it (session, czxid), its holder id unreadable. */
static void status_without_credentials_lists_secure_nodes(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_proc_t h = spawn_cli("--digest", "ops:secret", "--acl", "secure", "lock",
                           path, "sh", "-c", "echo RUNNING; read x", NULL);
  char line[1300];
  assert_true(zkt_expect(&h, "RUNNING", line, sizeof line, long_op()));
  zkt_proc_t p = spawn_cli("status", path, NULL);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_non_null(strstr(line, "held by (unreadable: ACL), 0 waiting"));
  assert_int_equal(run_cli(p), 0);
  static char json[8192];
  p = spawn_cli("status", "--json", path, NULL);
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_int_equal(run_cli(p), 0);
  assert_non_null(strstr(json, "\"held\":true"));
  assert_non_null(strstr(json, "\"data\":null"));
  assert_non_null(strstr(json, "\"data_denied\":true"));
  assert_non_null(strstr(json, "\"session\":\"0x"));
  /* The credentials read it all. */
  p = spawn_cli("--digest", "ops:secret", "status", path, NULL);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_null(strstr(line, "unreadable"));
  assert_int_equal(run_cli(p), 0);
  zkt_send(&h, "done");
  assert_int_equal(run_cli(h), 0);
}

typedef struct {
  zkt_proc_t *proxy;
  long want;
} proxy_count_t;

/* The proxy's "STATS" field `name` (conns, accepted, cuts). */
static long proxy_stat(zkt_proc_t *proxy, const char *name) {
  char line[256], key[32];
  zkt_send(proxy, "stats");
  assert_true(zkt_expect(proxy, "STATS ", line, sizeof line, long_op()));
  snprintf(key, sizeof key, "%s=", name);
  const char *a = strstr(line, key);
  assert_non_null(a);
  return atol(a + strlen(key));
}

static int accepted_at_least(void *ctx) {
  proxy_count_t *k = ctx;
  return proxy_stat(k->proxy, "accepted") >= k->want;
}

static int conns_at_least(void *ctx) {
  proxy_count_t *k = ctx;
  return proxy_stat(k->proxy, "conns") >= k->want;
}

/* -v through an outage: the session's SUSPENDED and RECONNECTED, the lock
 * and its node, none of the ZooKeeper client's own lines (its refused
 * reconnects); those come with -vv. */
static void verbose_shows_session_not_zookeeper_internals(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkt_proc_t proxy = zkt_proxy_start(1);
  const char *connect = zkt_proxy_connect(&proxy);
  zkt_proc_t p = spawn_cli_err("--connect", connect, "--session-timeout", "30",
                               "-v", "lock", path, "sh", "-c",
                               "echo RUNNING; read x", NULL);
  char line[1300], err[65536];
  assert_true(zkt_expect(&p, "RUNNING", line, sizeof line, long_op()));
  proxy_count_t k = {&proxy, proxy_stat(&proxy, "accepted") + 5};
  zkt_proxy_cmd(&proxy, "refuse on");
  zkt_proxy_cmd(&proxy, "cut");
  assert_true(zkt_await(accepted_at_least, &k, long_op())); /* 5 refused */
  zkt_proxy_cmd(&proxy, "refuse off");
  k.want = 1;
  assert_true(zkt_await(conns_at_least, &k, long_op()));
  /* The RECONNECTED line follows the connection; COMMAND runs on. */
  assert_true(zkt_await(err_file_has, "RECONNECTED", long_op()));
  zkt_send(&p, "done");
  assert_int_equal(run_cli_err(err, sizeof err, p), 0);
  if (strstr(err, "SUSPENDED") == NULL || strstr(err, "RECONNECTED") == NULL ||
      strstr(err, ":ZOO_") != NULL || strstr(err, "acquired") == NULL)
    fail_msg("-v through an outage printed:\n%s", err);
  printf("figure: -v through 5 refused reconnects: %d lines\n", count_lines(err));
  /* -vv: the ZooKeeper client's own lines too. */
  p = spawn_cli_err("--connect", connect, "-vv", "lock", path, "sh", "-c",
                    "echo RUNNING; read x", NULL);
  assert_true(zkt_expect(&p, "RUNNING", line, sizeof line, long_op()));
  zkt_proxy_cmd(&proxy, "cut");
  k.want = 1;
  assert_true(zkt_await(conns_at_least, &k, long_op()));
  /* Released once connected again: a release cut off by the outage would
   * leave the node until the session expires (the close cannot reach the
   * ensemble either), which is not what this case is about. */
  assert_true(zkt_await(err_file_has, "RECONNECTED", long_op()));
  zkt_send(&p, "done");
  assert_int_equal(run_cli_err(err, sizeof err, p), 0);
  if (strstr(err, ":ZOO_") == NULL) fail_msg("-vv printed:\n%s", err);
  zkt_proxy_stop(&proxy);
}

/* A semaphore user whose -m is below what others hold is told, without
 * -v (it waits behind leases its own limit does not allow). */
static void sem_mismatched_limit_warns_without_v(void **state) {
  (void)state;
  char path[600];
  snprintf(path, sizeof path, "%s", zkt_path("sem"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.max_leases = 3;
  zkc_sem_t *s;
  zkc_lease_t *l;
  OK(zkc_sem_create(&s, c, path, &so));
  OK(zkc_sem_acquire(s, 2, long_op(), &l));
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, CONNECTED, "sem", "-n", "-m", "1", path,
                                  "true"), 1);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "higher limit"));
  /* The same limit: not a word. */
  assert_int_equal(run_cli_stderr(err, sizeof err, "sem", "-m", "3", path,
                                  "true"), 0);
  assert_string_equal(err, "");
  OK(zkc_lease_free(l));
  OK(zkc_sem_destroy(s));
  zkc_client_close(c);
}

/* Messages that say what is wrong: a malformed --digest or ZKCOORD_DIGEST
 * (the secret not repeated), a bad connect string, an unknown option (one
 * line, not the usage), and why a path is invalid. */
static void errors_say_what_is_wrong(void **state) {
  (void)state;
  const char *p = zkt_path("lock");
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, "--digest", "nocolon",
                                  "status", p), 64);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "--digest: expected USER:PASSWORD"));
  assert_null(strstr(err, "nocolon"));
  assert_null(strstr(err, "--connect"));
  setenv("ZKCOORD_DIGEST", "user:", 1);
  assert_int_equal(run_cli_stderr(err, sizeof err, "status", p), 64);
  unsetenv("ZKCOORD_DIGEST");
  assert_non_null(strstr(err, "$ZKCOORD_DIGEST: expected USER:PASSWORD"));
  assert_int_equal(run_cli_stderr(err, sizeof err, "--connect", "host:",
                                  "status", p), 64);
  assert_non_null(strstr(err, "invalid --connect 'host:': expected "
                              "host[:port]"));
  assert_non_null(strstr(err, "(server 'host:' has no valid port"));
  assert_int_equal(run_cli_stderr(err, sizeof err, "--bogus", "lock", p, "true"),
                   64);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "unknown option '--bogus'"));
  static const struct {
    const char *cmd, *path, *why;
  } bad[] = {{"lock", "relative/path", "invalid lock path 'relative/path': it "
                                       "must be absolute"},
             {"lock", "/a//b", "empty segment"},
             {"lock", "/a/../b", "'.' or '..' segment"},
             {"leader", "/zookeeper/x", "/zookeeper is the server's own"},
             {"status", "/trailing/", "must not end with '/'"},
             {"sem", "/a\x01", "control character"},
             {"revoke", "/", "'/' itself"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int code = strcmp(bad[i].cmd, "sem") == 0
                   ? run_cli_stderr(err, sizeof err, "sem", "-m", "1",
                                    bad[i].path, "true")
               : strcmp(bad[i].cmd, "status") == 0 ||
                       strcmp(bad[i].cmd, "revoke") == 0
                   ? run_cli_stderr(err, sizeof err, bad[i].cmd, bad[i].path)
                   : run_cli_stderr(err, sizeof err, bad[i].cmd, bad[i].path,
                                    "true");
    if (code != 65 || count_lines(err) != 1 || strstr(err, bad[i].why) == NULL)
      fail_msg("%s %s: exit %d, said: %s", bad[i].cmd, bad[i].path, code, err);
  }
}

/* flock's and etcdctl's habits: -x/--exclusive; `status PATH --json`;
 * `lock PATH` (no COMMAND) holds until signalled, printing the token and
 * the node; sem the same. */
static void lock_without_command_holds_until_signalled(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  char line[1300], node[1300];
  assert_int_equal(RUN_CLI("lock", "-x", path, "true"), 0);
  assert_int_equal(RUN_CLI("lock", "--exclusive", "-w", "20", path, "true"), 0);
  zkt_proc_t p = spawn_cli("lock", path, NULL);
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_true(strncmp(line, "ZKCOORD_FENCING_TOKEN=", 22) == 0);
  assert_true(atoll(line + 22) > 0);
  assert_true(zkt_read_line(&p, node, sizeof node, long_op()));
  assert_true(strncmp(node, "ZKCOORD_NODE=", 13) == 0);
  assert_true(zkt_exists(node + 13, NULL));
  assert_non_null(strstr(node, "-lock-"));
  assert_int_equal(RUN_CLI(CONNECTED, "lock", "-n", path, "true"), 1); /* held */
  zkt_proc_t st = spawn_cli("status", path, "--json", NULL);
  static char json[8192];
  assert_true(zkt_read_line(&st, json, sizeof json, long_op()));
  assert_int_equal(run_cli(st), 0);
  assert_non_null(strstr(json, strrchr(node, '/') + 1));
  kill(p.pid, SIGTERM);
  assert_int_equal(run_cli(p), 0);
  assert_int_equal(zkt_children_count(path), 0);
  /* sem, ended with SIGINT. */
  char sem[600];
  snprintf(sem, sizeof sem, "%s", zkt_path("sem"));
  p = spawn_cli("sem", "-m", "1", sem, NULL);
  assert_true(zkt_expect(&p, "ZKCOORD_NODE=", line, sizeof line, long_op()));
  assert_non_null(strstr(line, "-lease-"));
  assert_int_equal(RUN_CLI(CONNECTED, "sem", "-n", "-m", "1", sem, "true"), 1);
  kill(p.pid, SIGINT);
  assert_int_equal(run_cli(p), 0);
  assert_int_equal(zkt_children_count(sub_path(sem, "leases")), 0);
}

/* "2026-11-25T09:40:01.123Z" at s (UTC, to the millisecond). */
static int utc_stamp_at(const char *s) {
  if (s == NULL) return 0;
  static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
  for (size_t i = 0; i < sizeof shape - 1; i++)
    if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != shape[i]) return 0;
  return 1;
}

/* status --watch prints again at each change (a JSON object per line, a
 * table headed by the snapshot's time), until a stop signal: exit 0. */

static void status_watch_prints_each_change(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  static char json[8192];
  zkt_proc_t p = spawn_cli("status", "--watch", "--interval", "0.05", "--json",
                           path, NULL);
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_non_null(strstr(json, "\"held\":false"));
  assert_true(utc_stamp_at(strstr(json, "\"time\":\"") + 8));
  /* The table: each snapshot headed by its time. */
  static char table[1024];
  zkt_proc_t t = spawn_cli("status", "--watch", "--interval", "0.05", path,
                           NULL);
  assert_true(zkt_read_line(&t, table, sizeof table, long_op()));
  assert_true(utc_stamp_at(table));
  assert_non_null(strstr(table, "Z /"));
  assert_non_null(strstr(table, ": not held (no contenders)"));
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, path);
  assert_true(zkt_read_line(&t, table, sizeof table, long_op())); /* blank */
  assert_true(zkt_read_line(&t, table, sizeof table, long_op()));
  assert_true(utc_stamp_at(table));
  assert_non_null(strstr(table, ": held by "));
  kill(t.pid, SIGTERM);
  assert_int_equal(run_cli(t), 0);
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_non_null(strstr(json, "\"held\":true"));
  release_lock(m);
  assert_true(zkt_read_line(&p, json, sizeof json, long_op()));
  assert_non_null(strstr(json, "\"held\":false"));
  kill(p.pid, SIGTERM);
  assert_int_equal(run_cli(p), 0);
  zkc_client_close(c);
}

/* ---- status --prometheus ---- */

/* Wall-clock milliseconds: the servers' clock (this machine's), which
 * node ctimes come from. */
static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* All that a tool run printed on stdout (static buffer) once it ended,
 * and its exit status. */
static const char *run_cli_output(zkt_proc_t p, int *code) {
  static char out[65536];
  char line[4096];
  size_t n = 0;
  close(p.in_fd);
  p.in_fd = -1;
  out[0] = '\0';
  while (n < sizeof out && zkt_read_line(&p, line, sizeof line, long_op()))
    n += (size_t)snprintf(out + n, sizeof out - n, "%s\n", line);
  *code = zkt_wait(&p, long_op());
  return out;
}

/* `promtool check rules` on `rules`: it must pass. A missing promtool
 * fails the case, as zkt_promtool_check does. */
static void assert_rules_pass(const char *rules) {
  char file[512], cmd[1200];
  snprintf(file, sizeof file, "%s/zkcoord-rules-%d.yml",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fputs(rules, f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "command -v promtool >/dev/null || exit 127; "
           "promtool check rules '%s'", file);
  int st = system(cmd);
  unlink(file);
  if (!WIFEXITED(st)) fail_msg("promtool check rules: killed (%d)", st);
  if (WEXITSTATUS(st) == 127)
    fail_msg("promtool not found: it comes with Debian's prometheus package "
             "(tools/bootstrap.sh test installs it)");
  if (WEXITSTATUS(st) != 0)
    fail_msg("promtool check rules refused (above):\n%s", rules);
}

/* What promtool does not check of the text format: each family's HELP and
 * TYPE (gauge) once, right before its samples, and all of them together;
 * no timestamp after a value. */
static void assert_families_whole(const char *text) {
  char done[16][64], family[64] = "";
  int ndone = 0;
  for (const char *l = text; *l;) {
    const char *end = l + strcspn(l, "\n");
    int len = (int)(end - l);
    char name[64] = "", type[128];
    if (strncmp(l, "# HELP ", 7) == 0) {
      sscanf(l + 7, "%63s", name);
      for (int i = 0; i < ndone; i++)
        if (strcmp(done[i], name) == 0) fail_msg("%s: a second HELP", name);
      assert_true(ndone < 16);
      snprintf(done[ndone++], sizeof *done, "%s", name);
      snprintf(family, sizeof family, "%s", name);
      snprintf(type, sizeof type, "# TYPE %s gauge\n", name);
      if (*end == '\0' || strncmp(end + 1, type, strlen(type)) != 0)
        fail_msg("%s: HELP not followed by its TYPE gauge", name);
      end = strchr(end + 1, '\n'); /* the TYPE line */
    } else if (l[0] == '#') {
      fail_msg("a comment out of place: %.*s", len, l);
    } else {
      snprintf(name, sizeof name, "%.*s", (int)strcspn(l, "{"), l);
      if (strcmp(name, family) != 0)
        fail_msg("a sample of %s among %s's", name, family);
      const char *value = memchr(l, '}', (size_t)len);
      if (value == NULL || value[1] != ' ' || memchr(value + 2, ' ', (size_t)(end - value - 2)))
        fail_msg("not 'name{labels} value': %.*s", len, l);
    }
    l = *end ? end + 1 : end;
  }
}

/* The samples of text (the lines not comments), each holder age replaced
 * by "AGE" (static buffer): what a case knows exactly. */
static const char *prom_samples(const char *text) {
  static char out[65536];
  size_t n = 0;
  for (const char *l = text; *l;) {
    const char *end = l + strcspn(l, "\n");
    int len = (int)(end - l);
    if (l[0] != '#') {
      if (strncmp(l, "zkcoord_status_holder_age_seconds{", 34) == 0)
        while (len > 0 && l[len - 1] != '}') len--; /* the value cut */
      n += (size_t)snprintf(out + n, sizeof out - n, "%.*s%s\n", len, l,
                            len < (int)(end - l) ? " AGE" : "");
    }
    l = *end ? end + 1 : end;
  }
  out[n] = '\0';
  return out;
}

/* The value of the sample `name{path="<label>"}`; fails the case when
 * there is none. */
static double prom_value(const char *text, const char *name, const char *label) {
  char head[1400];
  snprintf(head, sizeof head, "%s{path=\"%s\"} ", name, label);
  for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
    if (strncmp(l, head, strlen(head)) == 0) return atof(l + strlen(head));
  fail_msg("no sample %s in:\n%s", head, text);
  return 0;
}

/* The ctime of a node (its server's clock). */
static int64_t node_ctime(const char *node) {
  struct Stat st;
  assert_true(zkt_exists(node, &st));
  return st.ctime;
}

/* The holder age of `path` against `ctime`, the oldest holder's node's,
 * for a status run between before_ms and after_ms (printed to the
 * millisecond, rounded). */
static void assert_holder_age(const char *text, const char *path,
                              int64_t ctime, int64_t before_ms,
                              int64_t after_ms) {
  double age = prom_value(text, "zkcoord_status_holder_age_seconds", path);
  double lo = (double)(before_ms - ctime) / 1000.0 - 0.001,
         hi = (double)(after_ms - ctime) / 1000.0 + 0.001;
  if (age < lo || age > hi)
    fail_msg("holder age %.3f s, expected %.3f .. %.3f", age, lo, hi);
}

/* Stops a zkcoord lock or sem process that holds or waits (SIGTERM: it
 * leaves the queue), before a case's checks: a failed check must not
 * leave it running. */
static void stop_cli(zkt_proc_t *p) {
  kill(p->pid, SIGTERM);
  run_cli(*p);
}

/* A status --prometheus run's stdout as node_exporter would take it:
 * promtool's check (a missing promtool fails the case) and the shape. */
static void assert_exposition(const char *text) {
  if (zkt_promtool_check(text) != 0)
    fail_msg("promtool check metrics refused (above):\n%s", text);
  assert_families_whole(text);
}

#define PROM_RUN(code, ...) \
  run_cli_output(spawn_cli("status", "--prometheus", __VA_ARGS__, NULL), code)

/* A holder and two waiters on a mutex (zkcoord lock processes), a path
 * that does not exist, the first path given twice (one path): exact
 * counts, the holder's age from its node's ctime, read_ok 1 each. */
static void status_prometheus_mutex_queue_and_missing_path(void **state) {
  (void)state;
  char path[600], missing[600], node[1300];
  snprintf(path, sizeof path, "%s", zkt_path("lock"));
  snprintf(missing, sizeof missing, "%s", zkt_path("missing"));
  zkt_proc_t h = spawn_cli("lock", path, NULL);
  assert_true(zkt_expect(&h, "ZKCOORD_NODE=", node, sizeof node, long_op()));
  zkt_proc_t w1 = spawn_cli("lock", path, NULL);
  zkt_proc_t w2 = spawn_cli("lock", path, NULL);
  assert_true(zkt_await_children_exactly(path, 3, long_op()));
  int64_t ctime = node_ctime(node + 13);
  int code;
  int64_t before = wall_ms();
  const char *out = PROM_RUN(&code, path, missing, path);
  int64_t after = wall_ms();
  stop_cli(&w1);
  stop_cli(&w2);
  stop_cli(&h);
  assert_true(zkt_await_children_exactly(path, 0, long_op()));
  assert_int_equal(code, 0);
  assert_exposition(out);
  char want[16384];
  snprintf(want, sizeof want,
           "zkcoord_status_contenders{path=\"%s\"} 3\n"
           "zkcoord_status_contenders{path=\"%s\"} 0\n"
           "zkcoord_status_holders{path=\"%s\"} 1\n"
           "zkcoord_status_holders{path=\"%s\"} 0\n"
           "zkcoord_status_waiters{path=\"%s\"} 2\n"
           "zkcoord_status_waiters{path=\"%s\"} 0\n"
           "zkcoord_status_holder_age_seconds{path=\"%s\"} AGE\n"
           "zkcoord_status_read_ok{path=\"%s\"} 1\n"
           "zkcoord_status_read_ok{path=\"%s\"} 1\n",
           path, missing, path, missing, path, missing, path, path, missing);
  assert_string_equal(prom_samples(out), want);
  assert_holder_age(out, path, ctime, before, after);
  assert_false(zkt_exists(missing, NULL)); /* read, not made */
}

/* Two readers at the head of a read-write lock hold together, the writer
 * behind them waits; the age is the older reader's. */
static void status_prometheus_readers_hold_together(void **state) {
  (void)state;
  char path[600], first[1300], second[1300];
  snprintf(path, sizeof path, "%s", zkt_path("rw"));
  zkt_proc_t r1 = spawn_cli("lock", "--shared", path, NULL);
  assert_true(zkt_expect(&r1, "ZKCOORD_NODE=", first, sizeof first, long_op()));
  usleep(500 * 1000); /* the two ages apart by more than a status run */
  zkt_proc_t r2 = spawn_cli("lock", "--shared", path, NULL);
  assert_true(zkt_expect(&r2, "ZKCOORD_NODE=", second, sizeof second,
                         long_op()));
  zkt_proc_t w = spawn_cli("lock", "--write", path, NULL);
  assert_true(zkt_await_children_exactly(path, 3, long_op()));
  int64_t ctime = node_ctime(first + 13);
  assert_true(node_ctime(second + 13) - ctime >= 400);
  int code;
  int64_t before = wall_ms();
  const char *out = PROM_RUN(&code, path);
  int64_t after = wall_ms();
  stop_cli(&w);
  stop_cli(&r2);
  stop_cli(&r1);
  assert_true(zkt_await_children_exactly(path, 0, long_op()));
  assert_int_equal(code, 0);
  assert_exposition(out);
  char want[16384];
  snprintf(want, sizeof want,
           "zkcoord_status_contenders{path=\"%s\"} 3\n"
           "zkcoord_status_holders{path=\"%s\"} 2\n"
           "zkcoord_status_waiters{path=\"%s\"} 1\n"
           "zkcoord_status_holder_age_seconds{path=\"%s\"} AGE\n"
           "zkcoord_status_read_ok{path=\"%s\"} 1\n",
           path, path, path, path, path);
  assert_string_equal(prom_samples(out), want);
  assert_holder_age(out, path, ctime, before, after);
}

/* A semaphore of 2 (zkcoord sem processes): two leases held, a third
 * process at the head of the queue waiting for room. The limit only when
 * -m or --count-path gives it, and only on the semaphore's path. */
static void status_prometheus_semaphore_limit(void **state) {
  (void)state;
  char sem[600], count[600], missing[600], first[1300], line[1300];
  snprintf(sem, sizeof sem, "%s", zkt_path("sem"));
  snprintf(count, sizeof count, "%s", zkt_path("count"));
  snprintf(missing, sizeof missing, "%s", zkt_path("missing"));
  zkt_proc_t s1 = spawn_cli("sem", "-m", "2", sem, NULL);
  assert_true(zkt_expect(&s1, "ZKCOORD_NODE=", first, sizeof first, long_op()));
  zkt_proc_t s2 = spawn_cli("sem", "-m", "2", sem, NULL);
  assert_true(zkt_expect(&s2, "ZKCOORD_NODE=", line, sizeof line, long_op()));
  zkt_proc_t s3 = spawn_cli("sem", "-m", "2", sem, NULL);
  assert_true(zkt_await_children_exactly(sub_path(sem, "leases"), 3, long_op()));
  int64_t ctime = node_ctime(first + 13);
  int code, code_none, code_count;
  int64_t before = wall_ms();
  static char out[65536], none[65536], counted[65536];
  snprintf(out, sizeof out, "%s", PROM_RUN(&code, "-m", "2", sem, missing));
  int64_t after = wall_ms();
  snprintf(none, sizeof none, "%s", PROM_RUN(&code_none, sem));
  /* The limit from a count node, the option after the paths. */
  zkc_client_t *c = zkt_open(NULL);
  OK(zkc_shared_count_set(c, count, 2));
  zkc_client_close(c);
  snprintf(counted, sizeof counted, "%s",
           PROM_RUN(&code_count, sem, "--count-path", count));
  stop_cli(&s3);
  stop_cli(&s2);
  stop_cli(&s1);
  assert_true(zkt_await_children_exactly(sub_path(sem, "leases"), 0, long_op()));
  zkt_delete_tree(count);
  assert_int_equal(code, 0);
  assert_exposition(out);
  char want[16384];
  snprintf(want, sizeof want,
           "zkcoord_status_contenders{path=\"%s\"} 3\n"
           "zkcoord_status_contenders{path=\"%s\"} 0\n"
           "zkcoord_status_holders{path=\"%s\"} 2\n"
           "zkcoord_status_holders{path=\"%s\"} 0\n"
           "zkcoord_status_waiters{path=\"%s\"} 1\n"
           "zkcoord_status_waiters{path=\"%s\"} 0\n"
           "zkcoord_status_holder_age_seconds{path=\"%s\"} AGE\n"
           "zkcoord_status_limit{path=\"%s\"} 2\n"
           "zkcoord_status_read_ok{path=\"%s\"} 1\n"
           "zkcoord_status_read_ok{path=\"%s\"} 1\n",
           sem, missing, sem, missing, sem, missing, sem, sem, sem, missing);
  assert_string_equal(prom_samples(out), want);
  assert_holder_age(out, sem, ctime, before, after);
  /* No limit given: none shown, the same counts. */
  assert_int_equal(code_none, 0);
  assert_exposition(none);
  assert_null(strstr(none, "zkcoord_status_limit"));
  assert_int_equal((int)prom_value(none, "zkcoord_status_holders", sem), 2);
  assert_int_equal((int)prom_value(none, "zkcoord_status_waiters", sem), 1);
  /* The count node's. */
  assert_int_equal(code_count, 0);
  assert_exposition(counted);
  assert_int_equal((int)prom_value(counted, "zkcoord_status_limit", sem), 2);
  assert_int_equal((int)prom_value(counted, "zkcoord_status_holders", sem), 2);
}

/* Paths that cannot be read beside one that can: read_ok 0 and nothing
 * else for each, a line each on stderr, the others all there, the exit
 * status the first failure's; the labels escaped as the text format says
 * (a quote and a backslash in a valid path, a newline and a byte that is
 * not UTF-8 in invalid ones). An ensemble out of reach: read_ok 0 for
 * every path, 69. */
static void status_prometheus_read_failures(void **state) {
  (void)state;
  char held[600], secured[600], odd[600], newline[600], bad[600];
  snprintf(held, sizeof held, "%s", zkt_path("lock"));
  snprintf(secured, sizeof secured, "%s", zkt_path("secured"));
  snprintf(odd, sizeof odd, "%s", zkt_path("q\"uo\\te"));
  snprintf(newline, sizeof newline, "%s", zkt_path("new\nline"));
  snprintf(bad, sizeof bad, "%s", zkt_path("bad\xff"));
  zkt_make_root();
  zhandle_t *owner = open_authed("ops:right");
  assert_int_equal(zoo_create(owner, secured, "", 0, &ZOO_CREATOR_ALL_ACL, 0,
                              NULL, 0), ZOK);
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, held);
  int code;
  zkt_proc_t p = spawn_cli_err("status", "--prometheus", held, secured, odd,
                               newline, bad, NULL);
  const char *out = run_cli_output(p, &code);
  char err[8192];
  read_err_file(err, sizeof err);
  unlink(err_file);
  assert_int_equal(code, 77); /* secured's, the first to fail */
  assert_int_equal(count_of(err, "zkcoord: "), 3);
  assert_non_null(strstr(err, "cannot read"));
  assert_non_null(strstr(err, "not valid UTF-8"));
  assert_exposition(out);
  char o_label[700], n_label[700], b_label[700], want[16384];
  snprintf(o_label, sizeof o_label, "%s/q\\\"uo\\\\te", zkt_root());
  snprintf(n_label, sizeof n_label, "%s/new\\nline", zkt_root());
  snprintf(b_label, sizeof b_label, "%s/bad\\\\xff", zkt_root());
  snprintf(want, sizeof want,
           "zkcoord_status_contenders{path=\"%s\"} 1\n"
           "zkcoord_status_contenders{path=\"%s\"} 0\n"
           "zkcoord_status_holders{path=\"%s\"} 1\n"
           "zkcoord_status_holders{path=\"%s\"} 0\n"
           "zkcoord_status_waiters{path=\"%s\"} 0\n"
           "zkcoord_status_waiters{path=\"%s\"} 0\n"
           "zkcoord_status_holder_age_seconds{path=\"%s\"} AGE\n"
           "zkcoord_status_read_ok{path=\"%s\"} 1\n"
           "zkcoord_status_read_ok{path=\"%s\"} 0\n"
           "zkcoord_status_read_ok{path=\"%s\"} 1\n"
           "zkcoord_status_read_ok{path=\"%s\"} 0\n"
           "zkcoord_status_read_ok{path=\"%s\"} 0\n",
           held, o_label, held, o_label, held, o_label, held, held, secured,
           o_label, n_label, b_label);
  assert_string_equal(prom_samples(out), want);
  /* Another order, another first failure. */
  out = PROM_RUN(&code, newline, secured, held);
  assert_int_equal(code, 65);
  assert_int_equal((int)prom_value(out, "zkcoord_status_read_ok", held), 1);
  /* Nothing reachable: every path unread. */
  char connect[64];
  int fd = refusing_port(connect, sizeof connect);
  out = run_cli_output(spawn_cli("--connect", connect, "--connect-timeout", "1",
                                 "status", "--prometheus", held, odd, NULL),
                       &code);
  close(fd);
  assert_int_equal(code, 69);
  assert_exposition(out);
  snprintf(want, sizeof want,
           "zkcoord_status_read_ok{path=\"%s\"} 0\n"
           "zkcoord_status_read_ok{path=\"%s\"} 0\n", held, o_label);
  assert_string_equal(prom_samples(out), want);
  release_lock(m);
  zkc_client_close(c);
  assert_int_equal(zoo_delete(owner, secured, -1), ZOK);
  zookeeper_close(owner);
}

/* A usage error: exit 64, one line saying what is wrong, nothing on
 * stdout (a textfile left empty, not half written). */
#define USAGE_64(why, ...) usage_64(why, spawn_cli_err(__VA_ARGS__, NULL))
static void usage_64(const char *why, zkt_proc_t p) {
  int code;
  const char *out = run_cli_output(p, &code);
  char err[8192];
  read_err_file(err, sizeof err);
  unlink(err_file);
  if (code != 64 || *out || count_lines(err) != 1 || strstr(err, why) == NULL)
    fail_msg("exit %d, expected 64 and one line with '%s'; stderr: %s; "
             "stdout: %s", code, why, err, out);
}

static void status_prometheus_usage_errors(void **state) {
  (void)state;
  char p[600], q[600];
  snprintf(p, sizeof p, "%s", zkt_path("lock"));
  snprintf(q, sizeof q, "%s", zkt_path("other"));
  USAGE_64("--prometheus and --json exclude each other", "status",
           "--prometheus", "--json", p);
  USAGE_64("--prometheus and --json exclude each other", "--json", "status", p,
           q, "--prometheus");
  USAGE_64("--prometheus and --watch exclude each other", "status", "--watch",
           p, "--prometheus");
  USAGE_64("status takes one PATH, got extra '", "status", p, q);
  USAGE_64("status takes one PATH, got extra '", "status", "--json", p, q);
  USAGE_64("missing PATH", "status", "--prometheus");
  USAGE_64("option --prometheus does not apply", "lock", "--prometheus", p,
           "true");
  USAGE_64("option --prometheus does not apply", "--prometheus", "revoke", p);
  USAGE_64("--digest: expected USER:PASSWORD", "--digest", "nocolon", "status",
           "--prometheus", p, q);
  assert_int_equal(zkt_exists(zkt_root(), NULL), 0); /* nothing was made */
}

/* The textfile recipe of docs/operations.md, run as printed but for the
 * directory (a scratch one), the tool (this build's) and the ensemble
 * (ZKCOORD_CONNECT, chrooted to the case's root so that its paths are the
 * case's): the file it leaves passes promtool with the expected counts,
 * no temporary file is left, and promtool takes the alert rules. */
static void status_prometheus_textfile_recipe(void **state) {
  (void)state;
  const char *src = getenv("ZKT_SOURCE");
  if (src == NULL) fail_msg("ZKT_SOURCE is not set");
  char doc[600];
  snprintf(doc, sizeof doc, "%s/docs/operations.md", src);
  FILE *f = fopen(doc, "r");
  assert_non_null(f);
  static char script[8192], rules[8192];
  char line[1024], dir[300];
  int section = 0, in = 0; /* in: 1 the sh block, 2 the yaml block */
  size_t ns = 0, nr = 0;
  snprintf(dir, sizeof dir, "%s", scratch_dir());
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "## ", 3) == 0)
      section = strcmp(line, "## Exporting lock state to Prometheus\n") == 0;
    if (!section) continue;
    if (in == 0 && strcmp(line, "```sh\n") == 0 && ns == 0) in = 1;
    else if (in == 0 && strcmp(line, "```yaml\n") == 0 && nr == 0) in = 2;
    else if (in && strcmp(line, "```\n") == 0) in = 0;
    else if (in == 1 && strncmp(line, "dir=", 4) == 0)
      ns += (size_t)snprintf(script + ns, sizeof script - ns, "dir=%s\n", dir);
    else if (in == 1 && strncmp(line, "zkcoord ", 8) == 0)
      ns += (size_t)snprintf(script + ns, sizeof script - ns, "\"$ZKT_CLI\" %s",
                             line + 8);
    else if (in == 1)
      ns += (size_t)snprintf(script + ns, sizeof script - ns, "%s", line);
    else if (in == 2)
      nr += (size_t)snprintf(rules + nr, sizeof rules - nr, "%s", line);
  }
  fclose(f);
  if (ns == 0 || nr == 0)
    fail_msg("%s: no sh and yaml block under 'Exporting lock state to "
             "Prometheus'", doc);
  assert_non_null(strstr(script, "\"$ZKT_CLI\" status --prometheus"));
  /* The state its paths are in: a holder, nothing, a lease of 3. */
  char nightly[600], backups[600], chroot[700];
  snprintf(nightly, sizeof nightly, "%s/jobs/nightly", zkt_root());
  snprintf(backups, sizeof backups, "%s/backups", zkt_root());
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m = hold_lock(c, nightly);
  zkc_sem_opts_t so;
  zkc_sem_opts_init(&so);
  so.max_leases = 3;
  zkc_sem_t *s;
  zkc_lease_t *lease;
  OK(zkc_sem_create(&s, c, backups, &so));
  OK(zkc_sem_acquire(s, 1, long_op(), &lease));
  snprintf(chroot, sizeof chroot, "%s%s", zkt_connect(), zkt_root());
  setenv("ZKCOORD_CONNECT", chroot, 1);
  char run[600];
  snprintf(run, sizeof run, "%s/recipe.sh", dir);
  f = fopen(run, "w");
  assert_non_null(f);
  fputs(script, f);
  fclose(f);
  char *argv[] = {"/bin/sh", run, NULL};
  assert_int_equal(run_cli(zkt_spawn(argv)), 0);
  unsetenv("ZKCOORD_CONNECT");
  char *prom = read_file(dir, "zkcoord.prom");
  if (prom == NULL) fail_msg("the recipe left no %s/zkcoord.prom", dir);
  assert_exposition(prom);
  assert_string_equal(prom_samples(prom),
                      "zkcoord_status_contenders{path=\"/jobs/nightly\"} 1\n"
                      "zkcoord_status_contenders{path=\"/db/migrate\"} 0\n"
                      "zkcoord_status_contenders{path=\"/backups\"} 1\n"
                      "zkcoord_status_holders{path=\"/jobs/nightly\"} 1\n"
                      "zkcoord_status_holders{path=\"/db/migrate\"} 0\n"
                      "zkcoord_status_holders{path=\"/backups\"} 1\n"
                      "zkcoord_status_waiters{path=\"/jobs/nightly\"} 0\n"
                      "zkcoord_status_waiters{path=\"/db/migrate\"} 0\n"
                      "zkcoord_status_waiters{path=\"/backups\"} 0\n"
                      "zkcoord_status_holder_age_seconds{path=\"/jobs/nightly\"} AGE\n"
                      "zkcoord_status_holder_age_seconds{path=\"/backups\"} AGE\n"
                      "zkcoord_status_limit{path=\"/backups\"} 3\n"
                      "zkcoord_status_read_ok{path=\"/jobs/nightly\"} 1\n"
                      "zkcoord_status_read_ok{path=\"/db/migrate\"} 1\n"
                      "zkcoord_status_read_ok{path=\"/backups\"} 1\n");
  free(prom);
  char ls[400];
  snprintf(ls, sizeof ls, "test \"$(ls '%s' | grep -c '^zkcoord\\.prom')\" = 1",
           dir);
  if (system(ls) != 0) fail_msg("the recipe left a temporary file in %s", dir);
  assert_rules_pass(rules);
  OK(zkc_lease_free(lease));
  OK(zkc_sem_destroy(s));
  release_lock(m);
  zkc_client_close(c);
  scratch_cleanup();
}

/* leader --observe prints the leader's id, then each new leader's, until
 * a stop signal: exit 0. It takes no part. */
static void leader_observe_prints_each_leader(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *first, *second;
  OK(zkc_latch_create(&first, c, path, "first", NULL));
  OK(zkc_latch_start(first));
  OK(zkc_latch_await(first, long_op()));
  zkt_proc_t p = spawn_cli("leader", "--observe", path, "--interval", "0.05",
                           NULL);
  char line[256];
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "first");
  assert_int_equal(zkt_children_count(path), 1); /* no node of its own */
  OK(zkc_latch_create(&second, c, path, "second", NULL));
  OK(zkc_latch_start(second));
  assert_true(zkt_await_children_exactly(path, 2, long_op()));
  OK(zkc_latch_close(first, ZKC_CLOSE_SILENT));
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "second");
  /* nobody leads: said, not left silent */
  OK(zkc_latch_close(second, ZKC_CLOSE_SILENT));
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "(no leader)");
  zkc_latch_t *third;
  OK(zkc_latch_create(&third, c, path, "third", NULL));
  OK(zkc_latch_start(third));
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "third");
  kill(p.pid, SIGINT);
  assert_int_equal(run_cli(p), 0);
  OK(zkc_latch_destroy(third));
  OK(zkc_latch_destroy(second));
  OK(zkc_latch_destroy(first));
  zkc_client_close(c);
}

/* lock --observe: the holder's id, "(no holder)" once it released, the
 * next holder's; an option of a participant is a usage error with it. */
static void lock_observe_says_no_holder(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_opts_t co;
  zkc_client_opts_init(&co);
  co.holder_id = "holder-1";
  zkc_client_t *c = zkt_open(&co);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire(m));
  zkt_proc_t p = spawn_cli("lock", "--observe", path, NULL);
  char line[256];
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "holder-1");
  assert_int_equal(zkt_children_count(path), 1); /* no node of its own */
  OK(zkc_mutex_release(m));
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "(no holder)");
  OK(zkc_mutex_acquire(m));
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "holder-1");
  kill(p.pid, SIGINT);
  assert_int_equal(run_cli(p), 0);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
  assert_int_equal(RUN_CLI("lock", "--observe", "-n", path), 64);
  assert_int_equal(RUN_CLI("lock", "--observe", "--write", path), 64);
  assert_int_equal(RUN_CLI("lock", "--observe", path, "true"), 64);
}

/* leader --observe on a path nobody leads (not made yet): "(no leader)" at
 * once, then the first leader. */
static void leader_observe_says_no_leader(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkt_proc_t p = spawn_cli("leader", "--observe", path, NULL);
  char line[256];
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "(no leader)");
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, path, "only", NULL));
  OK(zkc_latch_start(l));
  assert_true(zkt_read_line(&p, line, sizeof line, long_op()));
  assert_string_equal(line, "only");
  kill(p.pid, SIGTERM);
  assert_int_equal(run_cli(p), 0);
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
}

static int gone(void *path) { return !zkt_exists(path, NULL); }

/* --parents container: the parents the tool made are containers, which
 * the server removes once the lock is released; by default they stay. */
static void parents_container_leaves_nothing_behind(void **state) {
  (void)state;
  char top[600], path[700];
  zkt_make_root();
  snprintf(top, sizeof top, "%s", zkt_path("a"));
  snprintf(path, sizeof path, "%s/b/lock", top);
  assert_int_equal(RUN_CLI("--parents", "container", "lock", path, "true"), 0);
  assert_true(zkt_await(gone, top, long_op()));
  char sem[700];
  snprintf(sem, sizeof sem, "%s/sem", top);
  assert_int_equal(RUN_CLI("sem", "--parents", "container", "-m", "1", sem,
                           "true"), 0);
  assert_true(zkt_await(gone, top, long_op()));
  assert_int_equal(RUN_CLI("lock", path, "true"), 0);
  struct Stat st;
  assert_true(zkt_exists(path, &st));
  assert_int_equal(st.ephemeralOwner, 0); /* persistent: stays */
}

/* ---- habits of flock, git and coreutils (issue 56) ---- */

/* Everything the tool prints on stdout (lines joined by '\n') until it
 * exits; returns its exit status. */
static int run_cli_out(zkt_proc_t p, char *out, size_t len) {
  char line[1024];
  size_t at = 0;
  out[0] = '\0';
  while (zkt_read_line(&p, line, sizeof line, long_op())) {
    int n = snprintf(out + at, len - at, "%s\n", line);
    if (n < 0 || (size_t)n >= len - at) fail_msg("more output than %zu", len);
    at += (size_t)n;
  }
  return run_cli(p);
}

/* `zkcoord help [COMMAND]` is `zkcoord [COMMAND] --help`, as git's. */
static void help_command_is_help_option(void **state) {
  (void)state;
  static char want[16384], got[16384];
  char err[8192];
  assert_int_equal(run_cli_out(spawn_cli("--help", NULL), want, sizeof want), 0);
  assert_int_equal(run_cli_out(spawn_cli("help", NULL), got, sizeof got), 0);
  assert_string_equal(got, want);
  static const char *const cmds[] = {"lock", "sem", "leader", "status",
                                     "revoke"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    assert_int_equal(
        run_cli_out(spawn_cli(cmds[i], "--help", NULL), want, sizeof want), 0);
    assert_int_equal(
        run_cli_out(spawn_cli("help", cmds[i], NULL), got, sizeof got), 0);
    if (strcmp(got, want) != 0)
      fail_msg("zkcoord help %s printed:\n%s\nnot as %s --help:\n%s", cmds[i],
               got, cmds[i], want);
  }
  assert_int_equal(run_cli_stderr(err, sizeof err, "help", "nosuch"), 64);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "unknown command 'nosuch'"));
  assert_int_equal(run_cli_stderr(err, sizeof err, "help", "lock", "sem"), 64);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "'sem'"));
}

/* The tool's stdout to /dev/full; its stderr in err. */
#define run_cli_full(err, len, ...) \
  run_cli_to("/dev/full", err, len, __VA_ARGS__, NULL)
static int run_cli_to(const char *out, char *err, size_t len,
                      const char *first, ...) {
  stdout_to = out;
  snprintf(err_file, sizeof err_file, "%s/zkcoord-cli-err-%d",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  va_list ap;
  va_start(ap, first);
  zkt_proc_t p = spawn_cli_v(err_file, first, ap);
  va_end(ap);
  stdout_to = NULL;
  return run_cli_err(err, len, p);
}

/* One line, "zkcoord: write error: No space left on device", and 74
 * (EX_IOERR), whatever the command wrote. */
static void expect_write_error(const char *what, int code, const char *err) {
  if (code != 74 || count_lines(err) != 1 ||
      strcmp(err, "zkcoord: write error: No space left on device\n") != 0)
    fail_msg("%s to /dev/full: exit %d, said: '%s'", what, code, err);
}

/* A write to stdout that fails is said, as coreutils say it, with a
 * status of its own; before, nothing was said, and the status was 70 or
 * the one of a complete answer. */
static void stdout_write_error_said_exit_74(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  char err[8192];
  zkt_make_root();
  expect_write_error("--help", run_cli_full(err, sizeof err, "--help"), err);
  expect_write_error("lock --help",
                     run_cli_full(err, sizeof err, "lock", "--help"), err);
  expect_write_error("--version", run_cli_full(err, sizeof err, "--version"),
                     err);
  expect_write_error("status", run_cli_full(err, sizeof err, "status", path),
                     err);
  expect_write_error("status --json",
                     run_cli_full(err, sizeof err, "status", "--json", path),
                     err);
  expect_write_error("status --watch",
                     run_cli_full(err, sizeof err, "status", "--watch", path),
                     err);
  expect_write_error("status --prometheus",
                     run_cli_full(err, sizeof err, "status", "--prometheus",
                                  path, zkt_path("other")),
                     err);
  expect_write_error("revoke", run_cli_full(err, sizeof err, "revoke", path),
                     err);
  /* Hold mode: the token is not delivered, so the lock is let go. */
  expect_write_error("lock PATH", run_cli_full(err, sizeof err, "lock", path),
                     err);
  assert_int_equal(zkt_children_count(path), 0);
  char sem[600];
  snprintf(sem, sizeof sem, "%s", zkt_path("sem"));
  expect_write_error("sem PATH",
                     run_cli_full(err, sizeof err, "sem", "-m", "1", sem), err);
  assert_int_equal(zkt_children_count(sub_path(sem, "leases")), 0);
  const char *election = zkt_path("election");
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *l;
  OK(zkc_latch_create(&l, c, election, "first", NULL));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, long_op()));
  expect_write_error("leader --observe",
                     run_cli_full(err, sizeof err, "leader", "--observe",
                                  election, "--interval", "0.05"),
                     err);
  OK(zkc_latch_destroy(l));
  zkc_client_close(c);
}

/* As flock's: "--" ends zkcoord's words and starts COMMAND's, so `lock
 * PATH --` with nothing after it (a script's empty $CMD) is a usage error,
 * not a hold for ever, and a word after "--" is never PATH. */
static void dashes_separate_path_from_command(void **state) {
  (void)state;
  const char *p = zkt_path("lock");
  char err[8192];
  static const char *const empty[][6] = {
      {"lock", "P", "--"},
      {"lock", "-w", "5", "P", "--"},
      {"sem", "-m", "1", "P", "--"},
      {"leader", "P", "--"}};
  for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
    const char *a[6];
    for (size_t k = 0; k < 6; k++)
      a[k] = empty[i][k] && strcmp(empty[i][k], "P") == 0 ? p : empty[i][k];
    /* Before, lock and sem held: killed after the wait (137). */
    zkt_proc_t proc = spawn_cli_err(a[0], a[1], a[2], a[3], a[4], a[5], NULL);
    close(proc.in_fd);
    proc.in_fd = -1;
    int code = zkt_wait(&proc, zkt_ms(8000));
    take_err(err, sizeof err);
    if (code != 64 || count_lines(err) != 1 || strstr(err, "COMMAND") == NULL)
      fail_msg("%s ... %s --: exit %d, said: %s", a[0], p, code, err);
  }
  static const char *const after[][5] = {
      {"lock", "--", "true"},
      {"lock", "-n", "--", "P", "true"},
      {"sem", "-m", "1", "--", "true"},
      {"leader", "--", "true"}};
  for (size_t i = 0; i < sizeof after / sizeof *after; i++) {
    const char *a[5];
    for (size_t k = 0; k < 5; k++)
      a[k] = after[i][k] && strcmp(after[i][k], "P") == 0 ? p : after[i][k];
    int code = run_cli_stderr(err, sizeof err, a[0], a[1], a[2], a[3], a[4]);
    if (code != 64 || count_lines(err) != 1 ||
        strstr(err, "missing PATH") == NULL)
      fail_msg("%s %s %s: exit %d, said: %s", a[0], a[1], a[2], code, err);
  }
  assert_int_equal(zkt_exists(p, NULL), 0); /* nothing was taken */
  assert_int_equal(RUN_CLI("lock", p, "--", "true"), 0);
  /* status takes paths after "--", and only paths. */
  assert_int_equal(RUN_CLI("status", "--", p), 0);
  assert_int_equal(run_cli_stderr(err, sizeof err, "status", "--", p, "--json"),
                   64);
  assert_non_null(strstr(err, "extra '--json'"));
}

/* A session timeout the ensemble changes (the test ensemble grants 1 to
 * 20 s) is said without -v: one line, requested and granted. */
static void changed_session_timeout_said(void **state) {
  (void)state;
  const char *p = zkt_path("lock");
  char err[8192];
  assert_int_equal(run_cli_stderr(err, sizeof err, "--session-timeout", "60",
                                  "lock", p, "true"), 0);
  if (count_lines(err) != 1 || strstr(err, "60 s") == NULL ||
      strstr(err, "20 s") == NULL)
    fail_msg("--session-timeout 60 said: '%s'", err);
  assert_int_equal(run_cli_stderr(err, sizeof err, "status",
                                  "--session-timeout", "0.5", p), 0);
  if (count_lines(err) != 1 || strstr(err, "0.5 s") == NULL ||
      strstr(err, "1 s") == NULL)
    fail_msg("--session-timeout 0.5 said: '%s'", err);
  /* Granted as asked: nothing said. */
  assert_int_equal(run_cli_stderr(err, sizeof err, "--session-timeout", "20",
                                  "status", p), 0);
  assert_string_equal(err, "");
  assert_int_equal(run_cli_stderr(err, sizeof err, "status", p), 0);
  assert_string_equal(err, "");
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_option_exit_64),
      cmocka_unit_test(invalid_path_exit_65),
      cmocka_unit_test(unreachable_exit_69),
      cmocka_unit_test(wait_bounds_the_connection),
      cmocka_unit_test(auth_failure_exit_77),
      cmocka_unit_test(refused_credentials_exit_77),
      cmocka_unit_test(command_not_found_127_not_executable_126),
      cmocka_unit_test(command_status_token_and_clean_fds),
      cmocka_unit_test(two_processes_serialize_file_update),
      cmocka_unit_test(nonblock_while_held_exit_1),
      cmocka_unit_test(lock_metrics_write_wait_and_hold),
      cmocka_unit_test(metrics_unwritable_reported),
      cmocka_unit_test(sem_metrics_write_lease_hold),
      cmocka_unit_test(leader_metrics_write_turn),
      cmocka_unit_test(wait_expires_then_acquires),
      cmocka_unit_test(lock_lost_stops_command_exit_75),
      cmocka_unit_test(wait_during_outage_exit_69),
      cmocka_unit_test(loss_found_at_release_exit_75),
      cmocka_unit_test(command_ignoring_sigterm_is_killed_after_grace),
      cmocka_unit_test(sigterm_stops_command_and_releases),
      cmocka_unit_test(sigint_while_waiting_leaves_queue),
      cmocka_unit_test(command_reads_terminal_and_gets_ctrl_c),
      cmocka_unit_test(stopped_command_stops_at_once),
      cmocka_unit_test(sigkill_of_holder_stops_command_children),
      cmocka_unit_test(leader_hands_over_when_killed),
      cmocka_unit_test(leader_restarts_command_after_losing),
      cmocka_unit_test(status_lists_foreign_nodes_in_order),
      cmocka_unit_test(status_reads_again_after_a_cut),
      cmocka_unit_test(status_shows_kinds),
      cmocka_unit_test(lock_shared_two_readers_hold_together),
      cmocka_unit_test(lock_on_read_write_path_waits_for_shared_holder),
      cmocka_unit_test(lock_write_on_empty_path_makes_writer_node),
      cmocka_unit_test(shared_sigint_while_waiting_leaves_queue),
      cmocka_unit_test(revoke_asks_revocable_holders),
      cmocka_unit_test(revoke_empty_path_exit_1),
      cmocka_unit_test(revoke_not_revocable_keeps_id_exit_2),
      cmocka_unit_test(revoke_not_honoured_within_wait_exit_2),
      cmocka_unit_test(sem_ten_processes_at_most_three),
      cmocka_unit_test(sem_exit_codes_and_status),
      cmocka_unit_test(sem_lease_lost_stops_command_exit_75),
      cmocka_unit_test(status_semaphore_holders_waiting_head_and_limit),
      cmocka_unit_test(revoke_refuses_election_and_semaphore),
      cmocka_unit_test(lock_revocable_lets_go_on_revoke),
      cmocka_unit_test(commands_refuse_another_recipes_path),
      cmocka_unit_test(read_write_lock_refuses_mutex_path),
      cmocka_unit_test(status_without_credentials_lists_secure_nodes),
      cmocka_unit_test(verbose_shows_session_not_zookeeper_internals),
      cmocka_unit_test(sem_mismatched_limit_warns_without_v),
      cmocka_unit_test(errors_say_what_is_wrong),
      cmocka_unit_test(lock_without_command_holds_until_signalled),
      cmocka_unit_test(status_watch_prints_each_change),
      cmocka_unit_test(status_prometheus_mutex_queue_and_missing_path),
      cmocka_unit_test(status_prometheus_readers_hold_together),
      cmocka_unit_test(status_prometheus_semaphore_limit),
      cmocka_unit_test(status_prometheus_read_failures),
      cmocka_unit_test(status_prometheus_usage_errors),
      cmocka_unit_test(status_prometheus_textfile_recipe),
      cmocka_unit_test(leader_observe_prints_each_leader),
      cmocka_unit_test(leader_observe_says_no_leader),
      cmocka_unit_test(lock_observe_says_no_holder),
      cmocka_unit_test(parents_container_leaves_nothing_behind),
      cmocka_unit_test(help_command_is_help_option),
      cmocka_unit_test(stdout_write_error_said_exit_74),
      cmocka_unit_test(dashes_separate_path_from_command),
      cmocka_unit_test(changed_session_timeout_said),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests, "cli");
}
