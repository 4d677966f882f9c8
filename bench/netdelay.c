/* SPDX-License-Identifier: Apache-2.0 */
/* zkc_netdelay: a TCP relay on 127.0.0.1 that delivers every chunk it reads
 * a fixed delay after it read it, in order, both ways: a network link of a
 * chosen one-way latency on a kernel without netem. One process per link,
 * so that stopping it (SIGSTOP) stalls that link alone.
 *
 *   zkc_netdelay DELAY_US LISTEN_PORT TARGET_PORT
 *
 * Each accepted connection gets its own connection to TARGET_PORT. A target
 * that does not listen yet is tried again every 100 ms for 3 s (the client's
 * bytes wait meanwhile), as a direct connect would wait for a starting
 * ZooKeeper server. EOF is passed on (half-close) after the delay too; an
 * error on either side closes both at once. Runs until killed (SIGTERM).
 * Where it may (root), it runs at a real-time priority: on a loaded machine
 * its wake-ups would otherwise wait behind the servers, and the delay grow
 * with the load (0.3-0.8 ms for 0.2 asked at a load of 9 on 2 cores, about
 * 0.1 ms over with it). It only ever blocks in ppoll, so it takes little. */
#define _GNU_SOURCE /* accept4, ppoll */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_MAX (64 * 1024)
#define QUEUE_MAX (4 * 1024 * 1024) /* bytes held per direction: then stop reading */
#define RETRY_NS 100000000LL
#define RETRY_FOR_NS 3000000000LL

enum { CLI, SRV }; /* flow i carries bytes read from fd[i] to fd[!i] */

struct chunk {
  struct chunk *next;
  int64_t due;
  size_t len, off; /* len 0: EOF */
  char data[];
};

struct flow {
  struct chunk *head, *tail;
  size_t queued;
  bool eof;     /* EOF read from the source */
  bool shut;    /* EOF passed on */
  bool blocked; /* the destination's socket was full */
};

struct conn {
  int fd[2];
  struct flow f[2];
  bool connected;
  int64_t retry_at, give_up_at; /* target not listening yet */
  bool dead;
};

static int64_t delay_ns;
static uint16_t target_port;
static struct conn **conns;
static size_t nconns, capconns;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct sockaddr_in loopback(uint16_t port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  return a;
}

static void set_nodelay(int fd) {
  int one = 1; /* a delayed link must not also wait for Nagle */
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void close_conn(struct conn *c) {
  for (int i = CLI; i <= SRV; i++) {
    if (c->fd[i] >= 0) close(c->fd[i]);
    c->fd[i] = -1;
    while (c->f[i].head) {
      struct chunk *k = c->f[i].head;
      c->f[i].head = k->next;
      free(k);
    }
  }
  c->dead = true;
}

/* Starts a non-blocking connect to the target; false if it failed at once. */
static bool start_connect(struct conn *c) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  set_nodelay(fd);
  struct sockaddr_in a = loopback(target_port);
  c->fd[SRV] = fd;
  if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
    c->connected = true;
    return true;
  }
  if (errno == EINPROGRESS) return true;
  close(fd);
  c->fd[SRV] = -1;
  return false;
}

static void retry_later(struct conn *c, int64_t now) {
  if (c->fd[SRV] >= 0) close(c->fd[SRV]);
  c->fd[SRV] = -1;
  if (now >= c->give_up_at)
    close_conn(c);
  else
    c->retry_at = now + RETRY_NS;
}

static void open_conn(int cfd) {
  if (nconns == capconns) {
    size_t cap = capconns ? 2 * capconns : 16;
    struct conn **a = realloc(conns, cap * sizeof *a);
    if (!a) {
      close(cfd);
      return;
    }
    conns = a;
    capconns = cap;
  }
  struct conn *c = calloc(1, sizeof *c);
  if (!c) {
    close(cfd);
    return;
  }
  set_nodelay(cfd);
  c->fd[CLI] = cfd;
  c->fd[SRV] = -1;
  int64_t now = now_ns();
  c->give_up_at = now + RETRY_FOR_NS;
  if (!start_connect(c)) retry_later(c, now);
  conns[nconns++] = c;
}

/* Reads one chunk from fd[i] and queues it, due delay_ns from now. */
static void take(struct conn *c, int i) {
  static char buf[CHUNK_MAX];
  struct flow *f = &c->f[i];
  ssize_t n = recv(c->fd[i], buf, sizeof buf, 0);
  if (n < 0) {
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) close_conn(c);
    return;
  }
  struct chunk *k = malloc(sizeof *k + (size_t)n);
  if (!k) {
    close_conn(c);
    return;
  }
  k->next = NULL;
  k->due = now_ns() + delay_ns;
  k->len = (size_t)n;
  k->off = 0;
  if (n > 0) memcpy(k->data, buf, (size_t)n);
  else f->eof = true;
  if (f->tail) f->tail->next = k;
  else f->head = k;
  f->tail = k;
  f->queued += (size_t)n;
}

/* Writes every due chunk of flow i to fd[!i], in order. */
static void deliver(struct conn *c, int i, int64_t now) {
  struct flow *f = &c->f[i];
  f->blocked = false;
  while (!c->dead && f->head && f->head->due <= now) {
    struct chunk *k = f->head;
    if (k->len == 0) { /* EOF: half-close, as the source did */
      shutdown(c->fd[!i], SHUT_WR);
      f->shut = true;
    } else {
      ssize_t n = send(c->fd[!i], k->data + k->off, k->len - k->off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          f->blocked = true;
          return;
        }
        close_conn(c);
        return;
      }
      k->off += (size_t)n;
      f->queued -= (size_t)n;
      if (k->off < k->len) continue;
    }
    f->head = k->next;
    if (!f->head) f->tail = NULL;
    free(k);
  }
  if (c->f[CLI].shut && c->f[SRV].shut) close_conn(c);
}

static long number(const char *s, long min, long max) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s || v < min || v > max) return -1;
  return v;
}

int main(int argc, char **argv) {
  long d = argc == 4 ? number(argv[1], 0, 10000000) : -1;
  long lport = argc == 4 ? number(argv[2], 1, 65535) : -1;
  long tport = argc == 4 ? number(argv[3], 1, 65535) : -1;
  if (d < 0 || lport < 0 || tport < 0) {
    fprintf(stderr, "usage: zkc_netdelay DELAY_US LISTEN_PORT TARGET_PORT  (127.0.0.1)\n");
    return 2;
  }
  delay_ns = d * 1000LL;
  target_port = (uint16_t)tport;
  signal(SIGPIPE, SIG_IGN);
  /* The default 50 us timer slack would be half of a 0.1 ms link. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  struct sched_param sp = {.sched_priority = 10};
  (void)sched_setscheduler(0, SCHED_FIFO, &sp); /* refused: normal priority */

  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  struct sockaddr_in a = loopback((uint16_t)lport);
  if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, SOMAXCONN) < 0) {
    fprintf(stderr, "zkc_netdelay: listen on 127.0.0.1:%ld: %s\n", lport, strerror(errno));
    return 1;
  }

  struct pollfd *pfds = NULL;
  size_t cap = 0;
  for (;;) {
    size_t n = nconns;
    if (cap < 1 + 2 * n) {
      cap = 2 * (1 + 2 * n);
      struct pollfd *p = realloc(pfds, cap * sizeof *p);
      if (!p) {
        fprintf(stderr, "zkc_netdelay: out of memory\n");
        return 1;
      }
      pfds = p;
    }
    int64_t now = now_ns(), wake = -1;
    pfds[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
    for (size_t k = 0; k < n; k++) {
      struct conn *c = conns[k];
      struct pollfd *p = &pfds[1 + 2 * k];
      p[CLI] = p[SRV] = (struct pollfd){.fd = -1};
      if (c->dead) continue;
      if (c->fd[SRV] < 0) { /* waiting to try the target again */
        wake = wake < 0 || c->retry_at < wake ? c->retry_at : wake;
      } else if (!c->connected) {
        p[SRV] = (struct pollfd){.fd = c->fd[SRV], .events = POLLOUT};
      }
      for (int i = CLI; i <= SRV; i++) {
        struct flow *f = &c->f[i];
        short ev = 0;
        if (c->fd[i] >= 0 && !f->eof && f->queued < QUEUE_MAX && (i == CLI || c->connected))
          ev |= POLLIN;
        if (ev) {
          p[i].fd = c->fd[i];
          p[i].events |= ev;
        }
        if (!f->head || (i == CLI && !c->connected)) continue;
        if (f->blocked) {
          p[!i].fd = c->fd[!i];
          p[!i].events |= POLLOUT;
        } else if (wake < 0 || f->head->due < wake) {
          wake = f->head->due;
        }
      }
    }
    struct timespec ts, *tsp = NULL;
    if (wake >= 0) {
      int64_t left = wake > now ? wake - now : 0;
      ts.tv_sec = (time_t)(left / 1000000000LL);
      ts.tv_nsec = (long)(left % 1000000000LL);
      tsp = &ts;
    }
    if (ppoll(pfds, (nfds_t)(1 + 2 * n), tsp, NULL) < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "zkc_netdelay: poll: %s\n", strerror(errno));
      return 1;
    }
    if (pfds[0].revents) {
      for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        open_conn(fd);
      }
    }
    now = now_ns();
    for (size_t k = 0; k < n; k++) {
      struct conn *c = conns[k];
      struct pollfd *p = &pfds[1 + 2 * k];
      if (c->dead) continue;
      if (c->fd[SRV] < 0) {
        if (now >= c->retry_at && !start_connect(c)) retry_later(c, now);
        continue;
      }
      if (!c->connected && p[SRV].revents) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(c->fd[SRV], SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
          retry_later(c, now);
          continue;
        }
        c->connected = true;
      }
      for (int i = CLI; i <= SRV && !c->dead; i++)
        if ((p[i].events & POLLIN) && (p[i].revents & (POLLIN | POLLHUP | POLLERR)))
          take(c, i);
      if (!c->connected) continue;
      now = now_ns();
      for (int i = CLI; i <= SRV && !c->dead; i++) deliver(c, i, now);
    }
    size_t live = 0; /* sweep the closed ones */
    for (size_t k = 0; k < nconns; k++) {
      if (conns[k]->dead) free(conns[k]);
      else conns[live++] = conns[k];
    }
    nconns = live;
  }
}
