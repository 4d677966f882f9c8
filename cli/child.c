/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command line: COMMAND's life — start it with the fencing token in
 * its environment, forward signals to it, stop it with SIGTERM and, after a
 * grace period, SIGKILL. fork + execve rather than posix_spawn: the child
 * must ask for SIGTERM when zkcoord dies (PR_SET_PDEATHSIG).
 *
 * COMMAND leads a process group of its own (unless --foreground). At a
 * terminal whose foreground zkcoord holds, that group is given the terminal
 * while COMMAND runs, as a shell gives it to a job: COMMAND can read it
 * (not stopped by SIGTTIN) and Ctrl-C reaches it. A job-control stop of
 * COMMAND stops zkcoord too, so that the shell's fg and bg work. A
 * watchdog process per COMMAND stops the whole group (SIGTERM, SIGKILL
 * after the grace) if zkcoord dies without reaping COMMAND, SIGKILL
 * included: COMMAND's own children do not run on beside the next holder. */
#define _GNU_SOURCE /* pipe2, close_range, strchrnul */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

/* File descriptors open when zkcoord started: the caller's, for COMMAND. */
#define FD_TRACKED 1024
static unsigned char caller_fd[FD_TRACKED];
static int caller_fd_max = 2;

void zkcli_fds_snapshot(void) {
  for (int fd = 0; fd < FD_TRACKED; fd++)
    if (fcntl(fd, F_GETFD) != -1) {
      caller_fd[fd] = 1;
      caller_fd_max = fd;
    }
}

/* environ without our variables, plus env[0..nenv). */
static char **build_env(const zkcli_env_t *env, int nenv, char *storage,
                        size_t storage_len) {
  size_t n = 0;
  while (environ[n]) n++;
  char **out = calloc(n + (size_t)nenv + 1, sizeof *out);
  if (out == NULL) return NULL;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int ours = 0;
    for (int k = 0; k < nenv; k++) {
      size_t len = strlen(env[k].name);
      if (strncmp(environ[i], env[k].name, len) == 0 && environ[i][len] == '=')
        ours = 1;
    }
    if (!ours) out[m++] = environ[i];
  }
  size_t used = 0;
  for (int k = 0; k < nenv; k++) {
    int w = snprintf(storage + used, storage_len - used, "%s=%s", env[k].name,
                     env[k].value);
    if (w < 0 || (size_t)w >= storage_len - used) break;
    out[m++] = storage + used;
    used += (size_t)w + 1;
  }
  return out;
}

/* The executable for argv[0], searched on $PATH as execvp would, into buf.
 * Returns 0, or ENOENT / EACCES. Done before fork: the child may only make
 * async-signal-safe calls. */
static int resolve(const char *name, char *buf, size_t len) {
  struct stat st;
  if (strchr(name, '/')) {
    snprintf(buf, len, "%s", name);
    if (stat(buf, &st) != 0) return ENOENT;
    return S_ISREG(st.st_mode) && access(buf, X_OK) == 0 ? 0 : EACCES;
  }
  const char *path = getenv("PATH");
  if (path == NULL || *path == '\0') path = "/usr/local/bin:/usr/bin:/bin";
  int err = ENOENT;
  for (const char *p = path;; p++) {
    const char *colon = strchrnul(p, ':');
    int dlen = (int)(colon - p);
    snprintf(buf, len, "%.*s%s%s", dlen, p, dlen ? "/" : "", name);
    if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
      if (access(buf, X_OK) == 0) return 0;
      err = EACCES;
    }
    if (*colon == '\0') break;
    p = colon;
  }
  return err;
}

/* The terminal zkcoord controls in the foreground, on its standard input
 * or output: the descriptor, or -1 (none, or zkcoord is in the
 * background). */
static int foreground_terminal(void) {
  for (int fd = 0; fd <= 1; fd++)
    if (isatty(fd) && tcgetpgrp(fd) == getpgrp()) return fd;
  return -1;
}

/* Makes `group` the terminal's foreground process group. SIGTTOU, which
 * the kernel sends a background group that does this, is blocked in the
 * calling thread meanwhile. Async-signal-safe. */
static void give_terminal(int fd, pid_t group) {
  sigset_t ttou, old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  pthread_sigmask(SIG_BLOCK, &ttou, &old);
  tcsetpgrp(fd, group);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The terminal back to zkcoord's group, if COMMAND's group still has it. */
static void take_terminal(const zkcli_child_t *ch) {
  if (ch->tty > 0 && tcgetpgrp(ch->tty - 1) == ch->group)
    give_terminal(ch->tty - 1, getpgrp());
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void exec_child(const zkcli_opts_t *o, const char *file, char **envp,
                       int err_fd, const int go[2], pid_t parent, int tty) {
  if (!o->foreground) setpgid(0, 0);
  /* Also here, so that COMMAND never reads the terminal before its group
   * has it (the parent does the same: whichever comes first). */
  if (tty >= 0) give_terminal(tty, getpid());
  /* COMMAND must not outlive a zkcoord killed outright: its lock would be
   * gone once the session times out. */
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(ZKCLI_EXIT_SIGNAL_BASE + SIGTERM);
  /* Not before the watchdog of our group runs: zkcoord killed before it
   * would leave COMMAND's own children unwatched (EOF: zkcoord is gone). */
  close(go[1]);
  char b;
  ssize_t got;
  while ((got = read(go[0], &b, 1)) < 0 && errno == EINTR) {
  }
  if (got != 1) _exit(ZKCLI_EXIT_SIGNAL_BASE + SIGTERM);
  pthread_sigmask(SIG_SETMASK, (const sigset_t *)zkcli_orig_sigmask(), NULL);
  /* Only the caller's descriptors reach COMMAND, never the ZooKeeper
   * client's sockets or zkcoord's own pipes (err_fd closes on exec). */
  for (int fd = 3; fd <= caller_fd_max; fd++)
    if (!caller_fd[fd] && fd != err_fd) close(fd);
  int from = caller_fd_max + 1;
  if (err_fd >= from) {
    if (err_fd > from) close_range((unsigned)from, (unsigned)err_fd - 1, 0);
    from = err_fd + 1;
  }
  close_range((unsigned)from, ~0U, 0);
  execve(file, o->argv, envp);
  int e = errno;
  ssize_t n = write(err_fd, &e, sizeof e);
  (void)n;
  _exit(ZKCLI_EXIT_NOT_FOUND);
}

/* The watchdog: /bin/sh reading the pipe on its stdin. A line (zkcoord
 * reaped COMMAND) ends it; end of file (zkcoord died, SIGKILL included)
 * makes it stop the group: SIGTERM (and SIGCONT, for stopped members),
 * SIGKILL after the grace ($2 ms) to what is left. A shell of its own
 * rather than a copy of zkcoord: it holds nothing of zkcoord's (memory,
 * sockets) and stays out of memory checkers' reports. */
static const char watchdog_sh[] =
    "g=$1 t=$2\n"
    "read -r x && exit 0\n"
    "kill -s TERM -- -$g 2>/dev/null\n"
    "kill -s CONT -- -$g 2>/dev/null\n"
    "while [ $t -gt 0 ] && kill -s 0 -- -$g 2>/dev/null; do\n"
    "  sleep 0.02; t=$((t - 20))\n"
    "done\n"
    "kill -s KILL -- -$g 2>/dev/null\n";

/* Starts the watchdog of COMMAND's group, in a session of its own (out of
 * zkcoord's group and terminal), on a pipe zkcoord alone holds. Best
 * effort: without it, COMMAND still gets SIGTERM from the kernel
 * (parent-death signal). */
static void watchdog_start(zkcli_child_t *ch, int64_t grace_ms) {
  char group[24], grace[24];
  snprintf(group, sizeof group, "%d", (int)ch->group);
  snprintf(grace, sizeof grace, "%lld", (long long)grace_ms);
  char *argv[] = {"sh", "-c", (char *)watchdog_sh, "zkcoord-watchdog", group,
                  grace, NULL};
  char *envp[] = {"PATH=/usr/bin:/bin", NULL};
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return;
  pid_t w = fork();
  if (w == 0) { /* async-signal-safe calls only */
    setsid();
    sigprocmask(SIG_SETMASK, (const sigset_t *)zkcli_orig_sigmask(), NULL);
    if (dup2(p[0], 0) != 0) _exit(1); /* dup2 clears close-on-exec */
    close_range(1, ~0U, 0);
    execve("/bin/sh", argv, envp);
    _exit(1);
  }
  close(p[0]);
  if (w < 0) {
    close(p[1]);
    return;
  }
  ch->watchdog = w;
  ch->watch_fd = p[1];
}

static void watchdog_disarm(zkcli_child_t *ch);

int zkcli_child_check(const zkcli_opts_t *o) {
  char file[4096];
  int rc = resolve(o->argv[0], file, sizeof file);
  if (rc == 0) return 0;
  zkcli_err("cannot run %s: %s", o->argv[0], strerror(rc));
  return rc == ENOENT ? ZKCLI_EXIT_NOT_FOUND : ZKCLI_EXIT_CANNOT_EXEC;
}

int zkcli_child_start(zkcli_child_t *ch, const zkcli_opts_t *o,
                      const zkcli_env_t *env, int nenv) {
  char file[4096];
  int rc = resolve(o->argv[0], file, sizeof file);
  if (rc != 0) {
    zkcli_err("cannot run %s: %s", o->argv[0], strerror(rc));
    return rc == ENOENT ? ZKCLI_EXIT_NOT_FOUND : ZKCLI_EXIT_CANNOT_EXEC;
  }
  char storage[4096];
  char **envp = build_env(env, nenv, storage, sizeof storage);
  int err_pipe[2], go[2];
  if (envp == NULL || pipe2(err_pipe, O_CLOEXEC) != 0) {
    free(envp);
    zkcli_err("cannot start %s: %s", o->argv[0], strerror(errno));
    return ZKCLI_EXIT_INTERNAL;
  }
  /* A socket pair, not a pipe: the go byte is sent with MSG_NOSIGNAL, so a
   * COMMAND that died before reading it costs no SIGPIPE. */
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0) {
    close(err_pipe[0]);
    close(err_pipe[1]);
    free(envp);
    zkcli_err("cannot start %s: %s", o->argv[0], strerror(errno));
    return ZKCLI_EXIT_INTERNAL;
  }
  pid_t parent = getpid();
  int tty = o->foreground ? -1 : foreground_terminal();
  pid_t pid = fork();
  if (pid == 0) exec_child(o, file, envp, err_pipe[1], go, parent, tty);
  int fork_errno = errno;
  close(err_pipe[1]);
  close(go[0]);
  free(envp);
  if (pid < 0) {
    close(err_pipe[0]);
    close(go[1]);
    zkcli_err("cannot start %s: %s", o->argv[0], strerror(fork_errno));
    return ZKCLI_EXIT_INTERNAL;
  }
  /* Also here, so that a signal sent right away reaches the group. */
  if (!o->foreground) setpgid(pid, pid);
  if (tty >= 0) give_terminal(tty, pid);
  ch->pid = pid;
  ch->pgrp = !o->foreground;
  ch->group = ch->pgrp ? pid : 0;
  ch->tty = tty + 1;
  ch->stopped = ch->stopping = 0;
  ch->watchdog = 0;
  ch->status = 0;
  /* The watchdog first, then COMMAND may go on to exec. */
  if (ch->pgrp) watchdog_start(ch, o->grace_ms);
  ssize_t n = send(go[1], "", 1, MSG_NOSIGNAL);
  close(go[1]);
  int exec_errno = 0;
  while ((n = read(err_pipe[0], &exec_errno, sizeof exec_errno)) < 0 &&
         errno == EINTR) {
  }
  close(err_pipe[0]);
  if (n == (ssize_t)sizeof exec_errno) { /* exec failed */
    waitpid(pid, &ch->status, 0);
    ch->pid = 0;
    watchdog_disarm(ch);
    take_terminal(ch);
    zkcli_err("cannot run %s: %s", o->argv[0], strerror(exec_errno));
    return exec_errno == ENOENT ? ZKCLI_EXIT_NOT_FOUND : ZKCLI_EXIT_CANNOT_EXEC;
  }
  return 0;
}

/* Disarms and reaps the watchdog: COMMAND was reaped by zkcoord, whose
 * own stop (if any) covered its group. */
static void watchdog_disarm(zkcli_child_t *ch) {
  if (ch->watchdog <= 0) return;
  ssize_t n = write(ch->watch_fd, "\n", 1);
  (void)n;
  close(ch->watch_fd);
  while (waitpid(ch->watchdog, NULL, 0) < 0 && errno == EINTR) {
  }
  ch->watchdog = 0;
}

/* A job-control stop of COMMAND: the terminal back to zkcoord's group,
 * and zkcoord stops too, so that its shell sees the job stopped. During a
 * stop by zkcoord COMMAND is continued instead, to act on the signal. */
static void child_stopped(zkcli_child_t *ch, int sig) {
  ch->stopped = 1;
  if (!ch->pgrp) return; /* --foreground: the stop reached zkcoord's group */
  take_terminal(ch);
  if (ch->stopping) {
    kill(-ch->group, SIGCONT);
  } else if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
    /* Discarded by the kernel when zkcoord's group is orphaned: nobody
     * could continue it. COMMAND then stays stopped until signalled. */
    kill(getpid(), SIGTSTP);
  }
}

int zkcli_child_reap(zkcli_child_t *ch) {
  for (;;) {
    if (ch->pid <= 0) return 0;
    int status;
    pid_t r = waitpid(ch->pid, &status, WNOHANG | WUNTRACED | WCONTINUED);
    if (r != ch->pid) return 0;
    if (WIFSTOPPED(status)) {
      child_stopped(ch, WSTOPSIG(status));
    } else if (WIFCONTINUED(status)) {
      ch->stopped = 0;
    } else {
      ch->status = status;
      ch->pid = 0;
      take_terminal(ch);
      watchdog_disarm(ch);
      return 1;
    }
  }
}

void zkcli_child_resume(zkcli_child_t *ch) {
  if (ch->pid <= 0 || !ch->pgrp) return;
  if (ch->tty > 0 && tcgetpgrp(ch->tty - 1) == getpgrp())
    give_terminal(ch->tty - 1, ch->group);
  if (ch->stopped) kill(-ch->group, SIGCONT);
}

void zkcli_child_signal(const zkcli_child_t *ch, int sig) {
  if (ch->pid <= 0) return;
  /* The group may already be gone while its leader is a zombie: then the
   * pid itself. */
  if (!ch->pgrp || kill(-ch->pid, sig) != 0) kill(ch->pid, sig);
  /* A stopped process acts on the signal only once continued (a COMMAND
   * stopped by Ctrl-Z would otherwise take the whole grace). */
  if (sig != SIGKILL && sig != SIGCONT) {
    if (!ch->pgrp || kill(-ch->pid, SIGCONT) != 0) kill(ch->pid, SIGCONT);
  }
}

int zkcli_child_stop(zkcli_child_t *ch, int sig, int64_t grace_ms) {
  int stop_sig = 0;
  pid_t group = ch->group;
  ch->stopping = 1;
  zkcli_child_signal(ch, sig);
  int64_t deadline = zkcli_now_ms() + grace_ms;
  while (!zkcli_child_reap(ch)) {
    int64_t left = deadline - zkcli_now_ms();
    if (left <= 0) {
      zkcli_child_signal(ch, SIGKILL);
      while (!zkcli_child_reap(ch)) zkcli_event_wait(100);
      break;
    }
    int ev = zkcli_event_wait(left);
    if (zkcli_is_stop_signal(ev)) {
      if (!stop_sig) stop_sig = ev;
      zkcli_child_signal(ch, ev);
    }
  }
  /* What COMMAND started got the signal with it: it has the rest of the
   * grace to end, then SIGKILL, so that nothing of the group runs on once
   * the lock is released. */
  while (group > 0 && kill(-group, 0) == 0) {
    int64_t left = deadline - zkcli_now_ms();
    if (left <= 0) {
      kill(-group, SIGKILL);
      break;
    }
    int ev = zkcli_event_wait(left < 20 ? left : 20);
    if (zkcli_is_stop_signal(ev)) {
      if (!stop_sig) stop_sig = ev;
      kill(-group, ev);
    }
  }
  ch->stopping = 0;
  return stop_sig;
}

int zkcli_child_exit_code(const zkcli_child_t *ch) {
  if (WIFEXITED(ch->status)) return WEXITSTATUS(ch->status);
  if (WIFSIGNALED(ch->status))
    return ZKCLI_EXIT_SIGNAL_BASE + WTERMSIG(ch->status);
  return ZKCLI_EXIT_INTERNAL;
}

void zkcli_hold_describe(zkc_hold_t *hold, int64_t *token, char *node,
                         size_t len) {
  zkc_list_t *nodes = NULL;
  zkc_hold_fencing_token(hold, token);
  if (zkc_hold_node_list(hold, &nodes) == ZKC_OK && zkc_list_count(nodes) > 0)
    snprintf(node, len, "%s", zkc_list_string(nodes, 0));
  zkc_list_free(nodes);
}
