/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command-line tool: shared declarations.
 *
 * options.c    command line -> zkcli_opts_t, usage text
 * session.c    opening the client, mapping library codes to exit codes
 * events.c     one pipe the main thread waits on: signals, child exits,
 *              lock loss and leadership changes
 * child.c      starting COMMAND and stopping it (signal, grace, SIGKILL)
 * cmd_lock.c   `zkcoord lock` and `zkcoord sem`: COMMAND under a hold
 * cmd_sem.c    the semaphore lease `zkcoord sem` holds
 * cmd_leader.c `zkcoord leader`
 * cmd_status.c `zkcoord status`
 * cmd_revoke.c `zkcoord revoke`
 * layout.c     which recipe's nodes a path holds; why a path is invalid
 * read.c       a path's children, read again after a connection blip
 */
#ifndef ZKCLI_CLI_H
#define ZKCLI_CLI_H

#include <stdint.h>
#include <sys/types.h>

#include "zkcoord/zkcoord.h"
#include "zkcoord/rwlock.h"

/* Exit codes (documented in zkcoord.1 and docs/cli.md). COMMAND's own
 * status passes through otherwise. */
enum {
  ZKCLI_EXIT_CONFLICT = 1,     /* lock not obtained (-n, -w; -E changes it);
                                  revoke: nobody held the lock */
  ZKCLI_EXIT_NOT_HONOURED = 2, /* revoke: a holder did not let go (not
                                  revocable, or not within the wait) */
  ZKCLI_EXIT_USAGE = 64,       /* bad option or argument (EX_USAGE) */
  ZKCLI_EXIT_BADPATH = 65,     /* invalid path, a path of another recipe,
                                  or a missing chroot */
  ZKCLI_EXIT_UNAVAILABLE = 69, /* ensemble unreachable, connection lost */
  ZKCLI_EXIT_INTERNAL = 70,    /* unexpected error (EX_SOFTWARE) */
  ZKCLI_EXIT_IOERR = 74,       /* writing to stdout failed (EX_IOERR) */
  ZKCLI_EXIT_LOST = 75,        /* lock lost while COMMAND ran (EX_TEMPFAIL) */
  ZKCLI_EXIT_NOPERM = 77,      /* credentials refused, ACL denied (EX_NOPERM) */
  ZKCLI_EXIT_CANNOT_EXEC = 126,
  ZKCLI_EXIT_NOT_FOUND = 127,
  ZKCLI_EXIT_SIGNAL_BASE = 128 /* + signal that stopped zkcoord */
};

typedef enum {
  ZKCLI_LOCK = 1,
  ZKCLI_LEADER,
  ZKCLI_STATUS,
  ZKCLI_SEM,
  ZKCLI_REVOKE
} zkcli_cmd_t;

typedef struct zkcli_opts {
  zkcli_cmd_t cmd;
  const char *connect;         /* --connect, $ZKCOORD_CONNECT, default */
  int session_timeout_ms;      /* --session-timeout */
  int session_timeout_given;   /* --session-timeout was given */
  int connect_timeout_ms;      /* --connect-timeout, or bounded by -w/-n */
  int connect_timeout_given;   /* --connect-timeout was given */
  int64_t started_ms;          /* when zkcoord started: -w counts from it */
  int connect_from_env;        /* connect came from $ZKCOORD_CONNECT */
  const char *digest;          /* --digest user:password */
  int digest_from_env;         /* digest came from $ZKCOORD_DIGEST */
  int secure_acl;              /* --acl secure */
  int container_parents;       /* --parents container */
  int lost_on_suspended;       /* --lost-on-suspend */
  int verbose;                 /* -v, repeatable */
  const char *id;              /* --id: node data / participant id */
  int64_t wait_ms;             /* -w; -1 = forever, 0 = -n */
  int conflict_code;           /* -E */
  int64_t grace_ms;            /* --grace */
  int foreground;              /* --foreground: COMMAND in our group */
  int json;                    /* status --json */
  int watch;                   /* status --watch */
  int prometheus;              /* status --prometheus */
  int observe;                 /* leader --observe */
  int64_t interval_ms;         /* --interval: status --watch, --observe */
  int shared;                  /* lock -s/--shared: the read side */
  int exclusive;               /* lock -x/--exclusive: not the read side */
  int write_side;              /* lock --write: the write side, always */
  int revocable;               /* lock --revocable */
  int max_leases;              /* sem -m (0: not given) */
  const char *count_path;      /* sem --count-path */
  const char *metrics_file;    /* --metrics: lock, sem, leader */
  const char *path;            /* PATH (the first, with several) */
  char **paths;                /* every PATH given: status --prometheus
                                  takes several, the others one */
  int npaths;
  char **argv;                 /* COMMAND and its arguments (NULL-ended);
                                  NULL for lock and sem: hold until
                                  signalled */
} zkcli_opts_t;

/* Parses argv. Returns -1 when the command should run, else an exit code
 * (0 after --help / --version, ZKCLI_EXIT_USAGE with a message printed). */
int zkcli_parse(int argc, char **argv, zkcli_opts_t *o);

/* One line "zkcoord: ..." on stderr. */
void zkcli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, only when -v was given at least `level` times. */
void zkcli_info(const zkcli_opts_t *o, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Flushes stdout. When it (or an earlier write) failed, says so in one
 * line, "zkcoord: write error: <why>", and returns ZKCLI_EXIT_IOERR; else
 * 0. Every command checks what it printed with it. */
int zkcli_flush_stdout(void);

/* Exit code for a library or ZooKeeper error code. */
int zkcli_exit_code(int rc);

/* Without -v the library's warnings reach stderr only while this is on
 * (lock and sem: while they wait). Thread-safe. */
void zkcli_pass_warnings(int on);

/* Opens the client as the options say. On failure prints one line and
 * returns the exit code (with *out NULL); 0 on success. */
int zkcli_open(const zkcli_opts_t *o, zkc_client_t **out);

/* For lock and leader: starts event handling (zkcli_events_start with
 * `interrupt`), opens the client, and from then on leaves stop signals to
 * the command. Returns 0 or an exit code (message printed). */
int zkcli_start(const zkcli_opts_t *o, void (*interrupt)(int sig),
                zkc_client_t **out);

/* ---- events (events.c) ---- */

/* Event bytes besides signal numbers (which are all below 'A'). */
#define ZKCLI_EV_LOST 'L'     /* the lock was lost */
#define ZKCLI_EV_REVOKED 'R'  /* lock --revocable: asked to let go */
#define ZKCLI_EV_LEADER 'G'   /* leadership gained */
#define ZKCLI_EV_NOTLEADER 'N'/* leadership lost */
#define ZKCLI_EV_FAILED 'F'   /* the election ended for good */

/* Blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD in the calling thread (and so
 * in every thread started later) and starts a thread that turns them into
 * events. Call first thing in main, before the client opens. `interrupt`,
 * if set, is called on that thread for SIGINT/SIGTERM/SIGHUP before the
 * event is posted (the lock command uses it to abort a blocking acquire).
 * Returns 0, or -1 with errno. */
int zkcli_events_start(void (*interrupt)(int sig));
/* While on (the default after start), SIGINT/SIGTERM/SIGHUP end the
 * process at once: with 128+signal (ZKCLI_STOP_EXIT_SIGNAL: nothing is held
 * yet), or with 0 (ZKCLI_STOP_EXIT_0: a command that only watches, whose
 * normal end is the signal). Commands turn it off (0) once they have
 * something to clean up. */
#define ZKCLI_STOP_EXIT_SIGNAL 1
#define ZKCLI_STOP_EXIT_0 2
void zkcli_events_exit_on_stop(int on);
/* Posts an event; async-signal-safe and callable from any thread. */
void zkcli_event_post(int ev);
/* Waits up to timeout_ms (< 0 forever) for the next event; returns it, or
 * 0 on timeout. */
int zkcli_event_wait(int64_t timeout_ms);
/* 1 for SIGINT, SIGTERM and SIGHUP events. */
int zkcli_is_stop_signal(int ev);
/* The signal mask in force before zkcli_events_start (for COMMAND). */
const void *zkcli_orig_sigmask(void);

/* ---- COMMAND (child.c) ---- */

/* Records the file descriptors open at start (the caller's, inherited by
 * COMMAND); any other, such as the ZooKeeper client's sockets, is closed
 * in COMMAND. Call before the client opens. */
void zkcli_fds_snapshot(void);

/* One environment variable for COMMAND. */
typedef struct {
  const char *name;
  char value[1100];
} zkcli_env_t;

typedef struct zkcli_child {
  pid_t pid;  /* 0 when none runs */
  int pgrp;   /* 1: COMMAND leads its own process group */
  int status; /* wait status once reaped */
  pid_t group;     /* COMMAND's process group (its pid) when pgrp */
  int tty;         /* 1 + the descriptor of the terminal COMMAND's group
                      was given (0: none) */
  int stopped;     /* COMMAND is stopped (Ctrl-Z, SIGTTIN, SIGTTOU) */
  int stopping;    /* zkcli_child_stop is under way */
  pid_t watchdog;  /* the process that stops COMMAND's group if zkcoord
                      dies (0: none) */
  int watch_fd;    /* its pipe: a byte disarms it, EOF fires it */
} zkcli_child_t;

/* Checks that COMMAND can be found and executed, before anything is taken.
 * Returns 0, or 126/127 after printing why. */
int zkcli_child_check(const zkcli_opts_t *o);
/* Starts o->argv with the extra environment. Returns 0, or the exit code
 * (126/127/70) after printing why it could not start. */
/* A hold's token and (first) node, for COMMAND's environment; left as
 * they were when it is lost already. */
void zkcli_hold_describe(zkc_hold_t *hold, int64_t *token, char *node,
                         size_t len);
int zkcli_child_start(zkcli_child_t *ch, const zkcli_opts_t *o,
                      const zkcli_env_t *env, int nenv);
/* Reaps the child if it has exited: returns 1 (status filled, pid 0) or 0.
 * A COMMAND stopped by job control (Ctrl-Z, or reading a terminal it does
 * not own) stops zkcoord too (SIGTSTP to itself), after taking the
 * terminal back: the shell then shows zkcoord stopped, and `fg` or `bg`
 * continue it (zkcli_child_resume). Once reaped, the terminal returns to
 * zkcoord's group and the watchdog is disarmed. */
int zkcli_child_reap(zkcli_child_t *ch);
/* zkcoord was continued (SIGCONT): gives the terminal back to COMMAND's
 * group when zkcoord is in the foreground again, and continues COMMAND
 * if it was stopped. */
void zkcli_child_resume(zkcli_child_t *ch);
/* Sends sig to COMMAND (its process group unless --foreground). */
void zkcli_child_signal(const zkcli_child_t *ch, int sig);
/* Sends sig, waits up to grace_ms for COMMAND to exit while handling other
 * events (a further stop signal is forwarded), then SIGKILLs and reaps it.
 * Returns the first stop signal received meanwhile (0 if none). */
int zkcli_child_stop(zkcli_child_t *ch, int sig, int64_t grace_ms);
/* Exit code for a reaped child: its status, or 128+signal. */
int zkcli_child_exit_code(const zkcli_child_t *ch);

/* ---- what lock and sem hold while COMMAND runs ---- */

/* cmd_lock.c runs COMMAND for both; cmd_sem.c holds a semaphore's lease. */
typedef struct zkcli_hold {
  zkc_rwlock_t *rw;   /* lock on a read-write path: mutex is one side */
  zkc_mutex_t *mutex; /* lock */
  zkc_sem_t *sem;     /* sem */
  zkc_lease_t *lease; /* sem, once acquired */
} zkcli_hold_t;

/* Creates the semaphore of o (limit -m or --count-path) and registers
 * `lost` (called with no arguments of interest) as its lost callback. */
int zkcli_sem_create(const zkcli_opts_t *o, zkc_client_t *c, zkcli_hold_t *h,
                     void (*lost)(void));
/* Takes one lease within what is left of -w (forever without it). */
int zkcli_sem_acquire(const zkcli_opts_t *o, zkcli_hold_t *h);
/* Releases and frees the lease; destroys the semaphore. */
int zkcli_sem_release(zkcli_hold_t *h);
void zkcli_sem_destroy(zkcli_hold_t *h);

/* ---- commands ---- */
int zkcli_cmd_lock(const zkcli_opts_t *o);
int zkcli_cmd_sem(const zkcli_opts_t *o);
int zkcli_cmd_leader(const zkcli_opts_t *o);
/* leader --observe and lock --observe (cmd_leader.c): the library's
 * observer on o->path, a line for each leader (holder) and "(no leader)"
 * ("(no holder)") when nobody leads; until a stop signal (exit 0). */
int zkcli_observe(const zkcli_opts_t *o);
int zkcli_cmd_status(const zkcli_opts_t *o);
int zkcli_cmd_revoke(const zkcli_opts_t *o);

/* How long revoke waits for the holders it asked to let go, without -w:
 * more than the 10 s --grace a `lock --revocable` gives COMMAND. */
#define ZKCLI_REVOKE_WAIT_MS 15000

/* 1 when a node's data is exactly Curator's revocation marker, the 10
 * bytes "__REVOKE__" (a request to let go, not a holder id). */
int zkcli_is_revoke_marker(const zkc_contender_t *e);
/* A node's holder id as status shows it (at most `max` columns), on
 * stdout. */
void zkcli_print_holder(const zkc_contender_t *e, size_t max);

/* ---- reading a path (read.c) ---- */

/* A path's contenders as zkc_lock_contender_list reads them, copied into an
 * array the tool frees with zkcli_contenders_free (the layout rule,
 * zkc_layout_refusal, takes an array); a semaphore's leases and queue as
 * zkc_sem_contender_list reads them. On failure nothing is handed out. */
int zkcli_lock_contenders(zkc_client_t *c, const char *path,
                          zkc_contender_t **out, size_t *count);
int zkcli_sem_contenders(zkc_client_t *c, const char *path,
                         zkc_contender_t **leases, size_t *n_leases,
                         zkc_contender_t **queue, size_t *n_queue);
void zkcli_contenders_free(zkc_contender_t *v, size_t count);

/* zkcli_lock_contenders, read again after a connection blip for as long as
 * --connect-timeout allows (a snapshot read twice is as good as once). */
int zkcli_read_contenders(const zkcli_opts_t *o, zkc_client_t *c,
                          const char *path, zkc_contender_t **out,
                          size_t *count);
/* After a read that failed with rc: 1 once the client is connected again
 * when rc was a connection blip and `deadline` (zkcli_now_ms) allows, so
 * that the read is tried again; else 0. */
int zkcli_retry_after(zkc_client_t *c, int rc, int64_t deadline);

/* ---- layouts and paths (layout.c) ---- */

/* What the children of a path show of the recipe that uses it. */
typedef struct zkcli_layout {
  int semaphore;  /* Curator's semaphore: "leases" or "locks" children */
  int kazoo_sem;  /* kazoo's semaphore: ephemeral 32-hex-digit children */
  int election;   /* LeaderLatch nodes ("latch-<seq>") */
  int lock;       /* other sequenced nodes: a mutex, a read-write lock,
                     kazoo's locks, a LeaderSelector's election */
  int rw;         /* among those, readers or writers of a read-write lock */
} zkcli_layout_t;

/* Classifies contenders as zkc_lock_contender_list lists them. */
void zkcli_layout_of(const zkc_contender_t *v, size_t n, zkcli_layout_t *out);
/* 1 when a contender is a LeaderLatch node. */
int zkcli_is_latch_node(const zkc_contender_t *e);
/* Reads PATH's children (zkcli_read_contenders) and refuses, with one line
 * naming what PATH holds, a path that o->cmd's recipe refuses by the
 * library's rule (zkc_layout_refusal): lock and revoke refuse a
 * semaphore's (either layout) or an election's nodes, and lock (the plain
 * mutex, or the read-write lock where read-write nodes queue or --shared
 * or --write asks for it) the other lock's nodes; sem and leader a lock's
 * own nodes and each other's (and kazoo's semaphore). Returns 0 (*rw
 * set, when not NULL, if PATH holds read-write nodes), ZKCLI_EXIT_BADPATH
 * after that line, or a library error code (< 0) from the read. */
int zkcli_check_layout(const zkcli_opts_t *o, zkc_client_t *c, int *rw);

/* Why the library refuses `path` (one phrase, static or in buf; the rules
 * of its validation, for the messages only), or NULL when none of them
 * does. */
const char *zkcli_path_problem(const char *path, char *buf, size_t len);
/* Prints "invalid <what> '<path>': <why>" (what: "lock path", ...). */
void zkcli_bad_path(const char *what, const char *path);

/* Monotonic milliseconds. */
/* Closes the client, waiting at most `ms` for it: a silent ensemble (the
 * close-session request unanswered) must not hold the tool past the wait
 * it was given. When the time runs out the close goes on in the
 * background and the process exits meanwhile: the server then ends the
 * session after its timeout, and with it any node of it. 1 when closed in
 * time. Once per process. */
int zkcli_close_within(zkc_client_t *c, int64_t ms);

/* --metrics FILE: the client's stats (wait and hold times, counts) as
 * Prometheus text, written beside FILE and renamed over it, so that a
 * textfile collector never reads half of it. A failure is reported on
 * stderr and changes no exit status. Call while the client or an object
 * made from it is still open. No-op without --metrics. */
void zkcli_write_metrics(const zkcli_opts_t *o, zkc_client_t *c);
int64_t zkcli_now_ms(void);

/* What is left of -w's wait (counted from the start, the connection
 * included): -1 without -w/-n (forever), else at least 0. */
int64_t zkcli_wait_left(const zkcli_opts_t *o);

#endif /* ZKCLI_CLI_H */
