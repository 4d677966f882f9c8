/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command line: signals, child exits, lock loss and leadership
 * changes all arrive as single bytes on one pipe that the main thread
 * waits on. Signals are blocked in every thread and taken by sigwait on a
 * thread of their own, so no handler ever interrupts library code. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static int ev_pipe[2] = {-1, -1};
static sigset_t handled, orig_mask;
static void (*interrupt_fn)(int sig);
static atomic_int exit_on_stop = ZKCLI_STOP_EXIT_SIGNAL;

void zkcli_events_exit_on_stop(int on) { atomic_store(&exit_on_stop, on); }

int64_t zkcli_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void zkcli_event_post(int ev) {
  unsigned char b = (unsigned char)ev;
  int saved = errno;
  /* Non-blocking: a full pipe already holds plenty of wake-ups. */
  ssize_t n = write(ev_pipe[1], &b, 1);
  (void)n;
  errno = saved;
}

int zkcli_is_stop_signal(int ev) {
  return ev == SIGINT || ev == SIGTERM || ev == SIGHUP;
}

const void *zkcli_orig_sigmask(void) { return &orig_mask; }

static void *signal_thread(void *arg) {
  (void)arg;
  for (;;) {
    int sig;
    if (sigwait(&handled, &sig) != 0) continue;
    int how = atomic_load(&exit_on_stop);
    if (zkcli_is_stop_signal(sig) && how == ZKCLI_STOP_EXIT_0) _exit(0);
    if (zkcli_is_stop_signal(sig) && how) _exit(ZKCLI_EXIT_SIGNAL_BASE + sig);
    if (zkcli_is_stop_signal(sig) && interrupt_fn) interrupt_fn(sig);
    zkcli_event_post(sig);
  }
  return NULL;
}

int zkcli_events_start(void (*interrupt)(int sig)) {
  interrupt_fn = interrupt;
  if (pipe2(ev_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  sigemptyset(&handled);
  sigaddset(&handled, SIGINT);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGHUP);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGCONT); /* fg/bg after a stop: COMMAND goes on too */
  if (pthread_sigmask(SIG_BLOCK, &handled, &orig_mask) != 0) return -1;
  pthread_t t;
  int rc = pthread_create(&t, NULL, signal_thread, NULL);
  if (rc != 0) {
    errno = rc;
    return -1;
  }
  pthread_detach(t);
  return 0;
}

int zkcli_event_wait(int64_t timeout_ms) {
  int64_t deadline = timeout_ms < 0 ? -1 : zkcli_now_ms() + timeout_ms;
  for (;;) {
    unsigned char b;
    if (read(ev_pipe[0], &b, 1) == 1) return b;
    int wait = -1;
    if (deadline >= 0) {
      int64_t left = deadline - zkcli_now_ms();
      if (left <= 0) return 0;
      wait = left > 60000 ? 60000 : (int)left;
    }
    struct pollfd p = {.fd = ev_pipe[0], .events = POLLIN};
    poll(&p, 1, wait);
  }
}
