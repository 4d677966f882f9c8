/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers for zkcoord's tests: the ensemble's address, scaled
 * timeouts, per-test roots, raw ZooKeeper inspection, 4-letter words and a
 * runner that runs one named case per CTest entry. */
#ifndef ZKT_HARNESS_H
#define ZKT_HARNESS_H

#define THREADED
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <zookeeper/zookeeper.h>

#include "zkcoord/zkcoord.h"
#include "hold_node.h"

/* Client port of test server N (1..3): $ZKC_ENSEMBLE_PORT_BASE (default 2180) + N. */
int zkt_client_port(int server);
/* Connect string of the test ensemble: $ZKC_TEST_CONNECT, else the three
 * loopback servers started by test/ensemble/zk-ensemble.sh. */
const char *zkt_connect(void);

/* base_ms scaled by $ZKC_TEST_TIMEOUT_MULT (default 1; sanitizer builds set
 * more). Every timeout in the tests goes through this. */
int64_t zkt_ms(int64_t base_ms);

/* The session of a case's zombie (a handle cut off while its session must
 * stay alive for a while): 6 s scaled, at most 15 s (the servers' maximum
 * session). Not shorter: a 3 s session expired under load in a fresh
 * root's default tree (two cases in parallel, three servers on two cores),
 * undoing what the zombie was there to show. */
int zkt_zombie_session_ms(void);

/* Milliseconds and nanoseconds on CLOCK_MONOTONIC. */
int64_t zkt_now_ms(void);
int64_t zkt_now_ns(void);

/* Opens a client (NULL opts = defaults) or fails the test. */
zkc_client_t *zkt_open(const zkc_client_opts_t *opts);
/* The same on server n (1..3) of zkt_connect() alone (its chroot kept);
 * 0: every server. */
zkc_client_t *zkt_open_on(int server, const zkc_client_opts_t *opts);

/* A fresh random root for this test, "/zkc-test/<name>-<random>", and the
 * lock path "<root>/<leaf>" under it (static buffers, valid until the next
 * call of the same function). */
const char *zkt_root(void);
const char *zkt_path(const char *leaf);

/* Credentials of the test ensemble's superuser (zk-ensemble.sh). */
#define ZKT_SUPER_DIGEST "super:zkt-super"

/* A raw ZooKeeper handle for inspecting the ensemble, independent of the
 * library under test, authenticated as the superuser (no ACL stops it).
 * Opened once per process. */
zhandle_t *zkt_raw(void);

/* A superuser session of its own on server n (1-3 of the connect string)
 * alone, connected; the caller closes it (zookeeper_close). */
zhandle_t *zkt_raw_on(int server);

/* zkt_raw_on the server that leads now (fails the test when none does).
 * The leader answers a write only once it has applied it, so another
 * session's read right after sees it whatever server it reads from (a
 * follower may answer first, before the leader has applied it). */
zhandle_t *zkt_raw_on_leader(void);

/* An outsider's EPHEMERAL_SEQUENTIAL node "<parent>/<name><seq>", empty,
 * made through zkt_raw(); its path into out (len bytes). Fails the test
 * when the server refuses. */
void zkt_raw_child(const char *parent, const char *name, char *out, int len);

/* Runs fn(arg), an acquire on client `waiter`, on a thread of its own as a
 * waiter behind the outsider's node `blocker` in `queue`: once the
 * waiter's node is queued behind it (2 children) and the waiter watches
 * it (it read the queue), deletes the blocker, and returns when the
 * thread ends. */
void zkt_run_behind(zkc_client_t *waiter, const char *queue,
                    const char *blocker, void *(*fn)(void *), void *arg);

/* A session watcher that ignores everything (raw handles of the harness's
 * own that wait by polling their state). */
void zkt_no_watch(zhandle_t *zh, int type, int state, const char *path, void *ctx);

/* Before a case (zkt_main calls it): the ensemble must serve, every server
 * in one quorum (a leader, both others its synced followers) and a write
 * committed. A recovery under way gets 20 s; then a local ensemble is
 * healed (zk-ensemble.sh heal, told on stderr and recorded in
 * $ZKT_BUILD/ensemble-heals.log), instead of this and every later case
 * failing. Returns 0 once it serves, -1 (said on stderr) when it cannot be
 * made to: another ensemble ($ZKC_TEST_CONNECT) is not restarted. */
int zkt_ensure_serving(const char *before);

/* The teardown of every case that stops, pauses or kills servers, whatever
 * happened in it: zk-ensemble.sh heal (paused servers continued, stopped
 * ones started, all restarted if that is not enough). 0 once healthy. */
int zkt_restore_ensemble(void);

/* Creates "/zkc-test" (if missing) and this test's root, both open to all,
 * through the raw handle, for tests that need the root before any recipe
 * makes it (chroots, raw children, nodes with their own ACLs). Returns the
 * root's create code: ZOK, or ZNODEEXISTS when it was there already. */
int zkt_make_root(void);

/* Makes zh's server apply every write answered so far, by any session,
 * before zh's next read (a write barrier: a sync is not one on the
 * leader); `path` is not used. The inspection helpers below do it for the
 * raw handle. */
void zkt_sync_handle(zhandle_t *zh, const char *path);

/* Number of children of path (-1 if it does not exist). */
int zkt_children_count(const char *path);
/* 1 if path exists, else 0; *stat filled when not NULL. */
int zkt_exists(const char *path, struct Stat *stat);
/* Data of a node into buf (NUL-terminated); returns its length or -1. */
int zkt_get_data(const char *path, char *buf, int len);
/* Deletes path and everything below it. */
void zkt_delete_tree(const char *path);
/* Sets path's ACL to everything but DELETE for anyone (deny != 0), so that
 * deletes of its children are refused, or back to open; fails the test
 * when the server refuses. */
void zkt_deny_delete(const char *path, int deny);

/* A log sink for zkc_client_opts_t.log_fn keeping the lines it is given
 * (4 KB in all) for zkt_log_has: those of every level when log_ctx is NULL,
 * else those at least as severe as (zkc_log_level_t)(intptr_t)log_ctx. */
void zkt_log_keep(void *ctx, zkc_log_level_t level, const char *msg);
/* 1 if a kept line contains `text` (a const char *; a zkt_await predicate). */
int zkt_log_has(void *text);

/* Polls pred(ctx) every few milliseconds until it returns nonzero or
 * timeout_ms (already scaled) passes; returns the last value of pred. For
 * conditions on the ensemble that nothing can signal. */
int zkt_await(int (*pred)(void *ctx), void *ctx, int64_t timeout_ms);

/* For zkt_await: c has a session other than `old` (its new one). */
typedef struct zkt_new_session {
  zkc_client_t *c;
  int64_t old;
} zkt_new_session_t;
int zkt_has_new_session(void *ctx);

/* zkt_await until path has exactly `count` children (a missing path has
 * -1, see zkt_children_count). */
int zkt_await_children_exactly(const char *path, int count, int64_t timeout_ms);
/* zkt_await_children_exactly after a zkc_client_close: the ZooKeeper
 * client may return from close before the server has ended the session (it
 * waits at most 1.5 s for the answer, less when other data comes first), so
 * the session's nodes may go just after. Awaited 5 s at most, unscaled:
 * that is the server's time, not this process's, and a close that did not
 * end the session must still fail it (its nodes would go only when the
 * session expires, 10 s by default). */
int zkt_await_closed(const char *path, int count);
/* zkt_await until mutex m's own client sees exactly n participants: a read
 * by another session (the harness's) may be served by a server ahead of
 * m's, so await this before asserting on m's view of the queue. */
int zkt_await_participants(zkc_mutex_t *m, size_t n, int64_t timeout_ms);

/* The library's lists as arrays (harness/lists.c): each reads through the
 * list call (zkc_mutex_node_list, ...), returns its code, and on ZKC_OK
 * hands out a copy freed with the matching zkt_*_free (NULL when empty). */
typedef struct zkt_participant {
  char *id;
  int is_leader; /* entry 0 of a participant list */
} zkt_participant_t;
void zkt_strings_free(char **v, size_t n);
void zkt_participants_free(zkt_participant_t *p, size_t n);
void zkt_contenders_free(zkc_contender_t *v, size_t n);
int zkt_mutex_nodes(zkc_mutex_t *m, char ***out, size_t *n);
int zkt_lease_nodes(zkc_lease_t *l, char ***out, size_t *n);
int zkt_latch_participants(zkc_latch_t *l, zkt_participant_t **out, size_t *n);
int zkt_selector_participants(zkc_selector_t *s, zkt_participant_t **out,
                              size_t *n);
int zkt_lock_contenders(zkc_client_t *c, const char *path,
                        zkc_contender_t **out, size_t *n);
int zkt_sem_contenders(zkc_client_t *c, const char *path,
                       zkc_contender_t **leases, size_t *nl,
                       zkc_contender_t **queue, size_t *nq);
/* zkt_await until the shared count at path reads `want` through client c's
 * own server (which may apply another client's write later). */
int zkt_await_shared_count(zkc_client_t *c, const char *path, int32_t want,
                           int64_t timeout_ms);

/* zkt_await until path has at least `at_least` children. */
int zkt_await_children(const char *path, int at_least, int64_t timeout_ms);

/* Sends a 4-letter word to server n (1..3): the nth host of zkt_connect(),
 * so the local servers or $ZKC_TEST_CONNECT's. Returns the answer (malloc,
 * caller frees) or NULL. */
char *zkt_4lw(int server, const char *word);

/* Watches held by a session across all servers (from "wchc"): count and
 * the first watched path copied into first (may be NULL). */
int zkt_session_watches(int64_t session_id, char *first, size_t first_len);
/* 1 when the session watches `path` (among any others), from "wchc". */
int zkt_session_watches_path(int64_t session_id, const char *path);
/* Polls zkt_session_watches for c's current session until it reports at
 * least `want` watches or timeout_ms (already scaled) passes; returns the
 * last count (first as above). Watches are set after the call that causes
 * them returns (a holder's own-node watch, a waiter's on its predecessor). */
int zkt_await_session_watches(zkc_client_t *c, int want, char *first,
                              size_t first_len, int64_t timeout_ms);
/* 1 once zkt_session_watches_path(session_id, path) is `want` (1: the
 * session watches path, 0: not any more), 0 if timeout_ms (already
 * scaled) passes first. */
int zkt_await_watch(int64_t session_id, const char *path, int want,
                    int64_t timeout_ms);

/* Runs the named case (argv[1]) of `tests`, or all when no name is given;
 * `--list` prints the case names, one a line, and runs nothing.
 * An unknown name is a failure, never a silent pass. Each case runs between
 * a setup that makes a fresh root and a teardown that checks no lock node
 * was left under it and removes it. */
int zkt_main(int argc, char **argv, const struct CMUnitTest *tests, size_t n,
             const char *group);

/* Setup/teardown used by zkt_main (exposed for tests that build their own).
 * zkt_teardown first closes the clients the case left open. */
int zkt_setup(void **state);
int zkt_teardown(void **state);

/* Closes every client the case opened and did not close (a failed case
 * leaves them open). Call it first in a teardown that waits before
 * zkt_teardown. Not from a callback thread. */
void zkt_close_open_clients(void);

/* How many clients zkt_close_open_clients closed since the last call:
 * zkt_teardown says so and fails the case when any (a passing case that
 * forgot one). */
int zkt_left_open(void);


/* A child process with pipes to its stdin and from its stdout. */
typedef struct zkt_proc {
  int pid;
  int port; /* proxies: the port they listen on */
  char connect[32]; /* proxies: "127.0.0.1:<port>" */
  int in_fd;  /* write end of the child's stdin (-1 once closed) */
  int out_fd; /* read end of the child's stdout */
} zkt_proc_t;

/* Starts argv[0] with argv (NULL-terminated) or fails the test. */
zkt_proc_t zkt_spawn(char *const argv[]);
/* Reads one line from the child's stdout into buf (newline stripped) within
 * timeout_ms; returns 1, or 0 on timeout/EOF. */
int zkt_read_line(zkt_proc_t *p, char *buf, size_t len, int64_t timeout_ms);
/* Waits for the child (up to timeout_ms, then SIGKILL) and returns its exit
 * status (128+signal when killed). */
int zkt_wait(zkt_proc_t *p, int64_t timeout_ms);

/* Reads lines until one starts with `prefix` (copied into buf) within
 * timeout_ms; returns 1, or 0 on timeout/EOF. Other lines are skipped. */
int zkt_expect(zkt_proc_t *p, const char *prefix, char *buf, size_t len,
               int64_t timeout_ms);
/* Writes one line to the child's stdin. */
void zkt_send(zkt_proc_t *p, const char *line);

/* Runs test/ensemble/zk-ensemble.sh with the arguments (a format string)
 * and returns its exit status; its stdout (first line) into out if given. */
int zkt_ensemble(char *out, size_t out_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The server (1..3) that leads, from "srvr"; 0 if none does. */
int zkt_leader_server(void);
/* Server n's (1..3) host:port in zkt_connect(), without its chroot (a
 * buffer of the calling thread's, valid until its next call). */
const char *zkt_server_host(int server);

/* The server (1..3) that session_id is connected to, from "cons"; 0 if none. */
int zkt_session_server(int64_t session_id);

/* Expires a zkcoord client's session from outside, as a server would: a
 * second handle attaches to the same session and closes it. Returns the
 * session id that was expired. */
int64_t zkt_expire_session(zkc_client_t *c);
/* zkt_expire_session with the second handle on server n (1..3) alone: on
 * the client's own server, the client's connection is dropped for the
 * second handle's, and the client connects again (to any server) while
 * the session closes. 0: any server. */
int64_t zkt_expire_session_on(zkc_client_t *c, int server);

/* The id and password of c's current session (c must be connected). */
clientid_t zkt_session_credentials(zkc_client_t *c);
/* A raw handle on an existing session (a "zombie" that keeps it alive, or
 * closes it with zookeeper_close); waits until it is connected. */
zhandle_t *zkt_attach_session(const clientid_t *id);

/* The fault proxy (test/proxy) in front of one server: started with a free
 * port; zkt_proxy_cmd sends a command and waits for its "OK". */
zkt_proc_t zkt_proxy_start(int server);
int zkt_proxy_port(const zkt_proc_t *p);
/* The connect string of the proxy ("127.0.0.1:<port>", kept in p). */
const char *zkt_proxy_connect(zkt_proc_t *p);
/* Ends the proxy (EOF on its commands) and fails the test unless it exits 0. */
void zkt_proxy_stop(zkt_proc_t *p);
void zkt_proxy_cmd(zkt_proc_t *p, const char *cmd);

/* Contention on one lock path: `clients` clients x `threads` threads loop
 * acquire (with timeout_ms) / hold / release until stopped, recording every
 * hold's interval on the monotonic clock and how many holders were ever
 * inside at once. Acquire errors (timeouts, connection loss) are counted,
 * not fatal: fault scenarios expect some. */
typedef struct zkt_contention zkt_contention_t;
zkt_contention_t *zkt_contention_start(const char *path, int clients,
                                       int threads, int64_t timeout_ms,
                                       const zkc_client_opts_t *opts);
/* Holds completed so far. */
int zkt_contention_holds(zkt_contention_t *k);
/* Monotonic ns when the first hold began (0: none yet). */
int64_t zkt_contention_first_ns(zkt_contention_t *k);
/* Stops the loops, checks that no two holds overlapped (fails the test
 * otherwise), frees everything and returns the number of holds. */
int zkt_contention_stop(zkt_contention_t *k, int *errors);

/* Fails the test when two of the n intervals [start[i], end[i]) overlap;
 * end 0 means still open (it lasts forever). who[i] names the holder in the
 * message. Leadership and lock holds are checked with it. */
void zkt_assert_disjoint(const int64_t *start, const int64_t *end,
                         const int *who, int n);

/* The largest number of the n intervals [start[i], end[i]) open at one
 * moment (an interval ending when another starts does not overlap it).
 * Semaphore holds are checked with it. */
int zkt_max_concurrent(const int64_t *start, const int64_t *end, int n);

/* `promtool check metrics` on the Prometheus text in `file`: its exit
 * status (0: the text is valid exposition). A missing promtool fails the
 * test: it comes with Debian's prometheus package, which the suite's
 * set-up installs. */
int zkt_promtool_check_file(const char *file);
/* The same on `text`, through a temporary file. */
int zkt_promtool_check(const char *text);

/* Whether waiters learn ahead (the library's test hook): 1 always (what
 * zkt_setup sets for every case), 0 never, -1 as the library decides (on
 * its round trips through the leader). */
void zkt_learn_ahead(int mode);

#endif /* ZKT_HARNESS_H */
