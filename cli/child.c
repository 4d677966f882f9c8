/* zkcoord command line: COMMAND's life — start it with the fencing token in
 * its environment, forward signals to it, stop it with SIGTERM and, after a
 * grace period, SIGKILL. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

int zkcli_child_start(zkcli_child_t *ch, const zkcli_opts_t *o,
                      const zkcli_env_t *env, int nenv) {
  char storage[4096];
  char **envp = build_env(env, nenv, storage, sizeof storage);
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t fa;
  int rc = envp ? 0 : ENOMEM;
  if (rc == 0) rc = posix_spawnattr_init(&attr);
  if (rc == 0) rc = posix_spawn_file_actions_init(&fa);
  if (rc != 0) {
    free(envp);
    zkcli_err("cannot start %s: %s", o->argv[0], strerror(rc));
    return ZKCLI_EXIT_INTERNAL;
  }
  short flags = POSIX_SPAWN_SETSIGMASK;
  if (!o->foreground) {
    /* Its own process group: stopping COMMAND reaches its children too. */
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);
  posix_spawnattr_setsigmask(&attr, (const sigset_t *)zkcli_orig_sigmask());
  /* Only the caller's descriptors reach COMMAND, never the ZooKeeper
   * client's sockets or zkcoord's own pipes. */
  for (int fd = 3; fd <= caller_fd_max; fd++)
    if (!caller_fd[fd]) posix_spawn_file_actions_addclose(&fa, fd);
  posix_spawn_file_actions_addclosefrom_np(&fa, caller_fd_max + 1);
  pid_t pid;
  rc = posix_spawnp(&pid, o->argv[0], &fa, &attr, o->argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  free(envp);
  if (rc != 0) {
    zkcli_err("cannot run %s: %s", o->argv[0], strerror(rc));
    return rc == ENOENT ? ZKCLI_EXIT_NOT_FOUND : ZKCLI_EXIT_CANNOT_EXEC;
  }
  ch->pid = pid;
  ch->pgrp = !o->foreground;
  ch->status = 0;
  return 0;
}

int zkcli_child_reap(zkcli_child_t *ch) {
  if (ch->pid <= 0) return 0;
  int status;
  pid_t r = waitpid(ch->pid, &status, WNOHANG);
  if (r != ch->pid) return 0;
  ch->status = status;
  ch->pid = 0;
  return 1;
}

void zkcli_child_signal(const zkcli_child_t *ch, int sig) {
  if (ch->pid <= 0) return;
  /* The group may already be gone while its leader is a zombie: then the
   * pid itself. */
  if (!ch->pgrp || kill(-ch->pid, sig) != 0) kill(ch->pid, sig);
}

int zkcli_child_stop(zkcli_child_t *ch, int sig, int64_t grace_ms) {
  int stop_sig = 0;
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
  return stop_sig;
}

int zkcli_child_exit_code(const zkcli_child_t *ch) {
  if (WIFEXITED(ch->status)) return WEXITSTATUS(ch->status);
  if (WIFSIGNALED(ch->status))
    return ZKCLI_EXIT_SIGNAL_BASE + WTERMSIG(ch->status);
  return ZKCLI_EXIT_INTERNAL;
}
