/* SPDX-License-Identifier: Apache-2.0 */
/* zkt_proxy: a fault-injecting TCP proxy between ZooKeeper clients and one
 * ZooKeeper server, for tests. Single-threaded, poll-based, loopback only.
 *
 *   zkt_proxy LISTEN_PORT TARGET_PORT      (both on 127.0.0.1; 0 = any port)
 *
 * Prints "READY <port>" once listening, then forwards bytes both ways for any
 * number of clients until stdin reaches EOF (then closes all, exits 0).
 * Commands, one per line on stdin; each gets exactly one line back
 * ("OK <command>", "STATS ..." or "ERR <reason>"):
 *   cut                   close every current connection (both sides) now
 *   stall / unstall       stop / resume all forwarding without closing
 *   refuse on|off         close new connections right after accept
 *   cut-after-create N    the next N create requests (opcodes 1, 15, 19, 21)
 *                         go to the server, but the reply carrying their xid
 *                         is dropped and that connection is closed; prints
 *                         "CUT <xid>" (asynchronous line) each time
 *   cut-after-list N      the same for the next N children reads (opcodes
 *                         8, 12): an earlier create's reply still arrives
 *   stall-after-create N  the Nth create request from now (N >= 1) goes to
 *                         the server and its reply to the client; right
 *                         after that reply the proxy stalls (as `stall`)
 *                         and prints "STALLED" (asynchronous line; 0
 *                         disarms):
 *                         the client's next request meets the silence
 *   stop-at-get N PID     as stall-after-create for the Nth data read
 *                         (opcode 4) from now, and before its reply passes
 *                         the proxy stops process PID (SIGSTOP): the reply
 *                         waits in the socket of a client that cannot read
 *                         it yet, and nothing after it follows (0 disarms)
 *   expire-after-create N the replies to the next N create requests are
 *                         rewritten to "session expired" (err -112, the
 *                         reply's body dropped), the connection kept open:
 *                         what a server answers on a connection it
 *                         revalidated while the ensemble closed the
 *                         session; prints "EXPIRED <xid>" (asynchronous
 *                         line) each time. The server did create the node.
 *   drop-after-create N   the replies to the next N create requests are
 *                         dropped, the connection kept open: the client
 *                         meets the next reply out of order; prints
 *                         "DROPPED <xid>" (asynchronous line) each time
 *   stats                 "STATS conns=<open> accepted=<total> cuts=<total>
 *                         up=<bytes> down=<bytes>"
 * cuts counts connections closed by `cut` and by cut-after-create; up and
 * down count the bytes written to servers and to clients (a client that is
 * stopped has been sent what `down` grew by: it waits in its socket).
 *
 * Bytes are forwarded unchanged and in order. To find creates and their
 * replies each direction is framed as ZooKeeper packets (4-byte big-endian
 * length + body) while streaming: only a packet's header is held back until
 * it is complete, so memory per connection stays bounded (two 64 KiB
 * buffers) whatever the packet size. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_SIZE (64 * 1024)

enum { CLI, SRV }; /* socket index; flow i carries bytes from fd[i] to fd[!i] */

struct flow {
  char buf[BUF_SIZE];
  size_t start; /* [start, ready): scanned, waiting to be written */
  size_t ready; /* [ready, end): an incomplete packet header, held back */
  size_t end;
  size_t left;  /* bytes of the current packet still to pass through */
  size_t skip;  /* then bytes of it to drop (a rewritten reply's body) */
  bool first;   /* next packet is ConnectRequest/ConnectResponse (no header) */
  bool eof;     /* source sent EOF */
  bool shut;    /* EOF passed on with shutdown(SHUT_WR) */
};

struct conn {
  int fd[2];
  struct flow f[2];
  bool connected; /* non-blocking connect() to the server has completed */
  bool draining;  /* cut-after-create fired: flush earlier replies, then close */
  bool dead;      /* closed; freed at the end of the loop iteration */
  int32_t *xids;  /* xids of armed creates whose reply must be dropped */
  size_t nxids, capxids;
  bool stall_set;  /* stall-after-create: the create whose reply stalls */
  int32_t stall_xid;
  bool stop_set;   /* stop-at-get: the data read whose reply stops... */
  int32_t stop_xid;
  pid_t stop_pid;  /* ...this process before it passes */
  bool expire_set; /* expire-after-create: the create whose reply... */
  int32_t expire_xid; /* ...is rewritten to "session expired" */
  bool drop_set;   /* drop-after-create: the create whose reply is dropped */
  int32_t drop_xid;
  bool hold_at_end; /* that reply is passing */
  bool holding;    /* it passed: scan no further, stall once it is written */
};

static struct conn **conns;
static size_t nconns, capconns;
static uint16_t target_port;
static bool stalled, refusing, accept_paused;
static long armed; /* requests left for cut-after-create / cut-after-list */
static bool armed_lists; /* armed for children reads, not creates */
static long stall_countdown; /* creates until the one stall-after-create means */
static long stop_countdown;  /* data reads until the one stop-at-get means */
static long expire_armed;    /* creates left for expire-after-create */
static long drop_armed;      /* creates left for drop-after-create */
static pid_t stop_pid;       /* the process stop-at-get stops */
static unsigned long accepted_total, cuts_total;
static unsigned long long passed[2]; /* bytes written, by flow (CLI: up) */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout); /* the test driving us waits for this line */
}

static uint32_t be32(const char *p) {
  const unsigned char *u = (const unsigned char *)p;
  return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static void close_conn(struct conn *c) {
  for (int i = CLI; i <= SRV; i++)
    if (c->fd[i] >= 0) close(c->fd[i]);
  c->fd[CLI] = c->fd[SRV] = -1;
  c->dead = true;
  accept_paused = false; /* an fd came free */
}

static size_t live_conns(void) {
  size_t n = 0;
  for (size_t i = 0; i < nconns; i++) n += !conns[i]->dead;
  return n;
}

/* Writes f's scanned bytes to fd[!i]. Returns -1 on error (conn closed),
 * 0 if bytes remain (socket full), 1 when everything scanned was written. */
static int flush(struct conn *c, int i) {
  struct flow *f = &c->f[i];
  while (f->start < f->ready) {
    ssize_t n = send(c->fd[!i], f->buf + f->start, f->ready - f->start, MSG_NOSIGNAL);
    if (n > 0) {
      f->start += (size_t)n;
      passed[i] += (unsigned long long)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return 0;
    } else {
      close_conn(c);
      return -1;
    }
  }
  return 1;
}

static bool is_armed_type(int32_t type) {
  if (armed_lists) return type == 8 || type == 12;
  return type == 1 || type == 15 || type == 19 || type == 21;
}

/* A request passed to the server: remember armed creates. */
static void note_request(struct conn *c, int32_t xid, int32_t type) {
  bool create = type == 1 || type == 15 || type == 19 || type == 21;
  if (create && stall_countdown > 0 && --stall_countdown == 0) {
    c->stall_set = true;
    c->stall_xid = xid;
  }
  if (create && expire_armed > 0 && !c->expire_set) {
    c->expire_set = true;
    c->expire_xid = xid;
    expire_armed--;
  }
  if (create && drop_armed > 0 && !c->drop_set) {
    c->drop_set = true;
    c->drop_xid = xid;
    drop_armed--;
  }
  if (type == 4 && stop_countdown > 0 && --stop_countdown == 0) {
    c->stop_set = true;
    c->stop_xid = xid;
    c->stop_pid = stop_pid;
  }
  if (armed <= 0 || !is_armed_type(type)) return;
  if (c->nxids == c->capxids) {
    size_t cap = c->capxids ? 2 * c->capxids : 4;
    int32_t *x = realloc(c->xids, cap * sizeof *x);
    if (!x) return; /* out of memory: let this one through uncut */
    c->xids = x;
    c->capxids = cap;
  }
  c->xids[c->nxids++] = xid;
  armed--;
}

/* A reply from the server: true (and forgotten) if it answers an armed create. */
static bool take_reply(struct conn *c, int32_t xid) {
  for (size_t k = 0; k < c->nxids; k++) {
    if (c->xids[k] == xid) {
      c->xids[k] = c->xids[--c->nxids];
      return true;
    }
  }
  return false;
}

/* The reply to an armed create starts at f[SRV].ready: drop it and everything
 * after it, close the server side now, let earlier replies reach the client,
 * then close the client side. */
static void fire(struct conn *c, int32_t xid) {
  say("CUT %d", (int)xid);
  cuts_total++;
  close(c->fd[SRV]);
  c->fd[SRV] = -1;
  c->f[SRV].end = c->f[SRV].ready;
  c->draining = true;
  if (flush(c, SRV) == 1) close_conn(c);
}

/* Moves f->ready over every complete packet header in the buffer, noting
 * creates (client side) and acting on their replies (server side). Returns
 * false if the connection was cut. */
static bool scan(struct conn *c, int i) {
  struct flow *f = &c->f[i];
  while (f->ready < f->end && !c->holding) {
    size_t avail = f->end - f->ready;
    if (f->left > 0) { /* inside a packet: pass it through */
      size_t n = avail < f->left ? avail : f->left;
      f->ready += n;
      f->left -= n;
      if (f->left == 0 && c->hold_at_end) {
        c->hold_at_end = false;
        c->holding = true;
      }
      continue;
    }
    if (f->skip > 0) { /* a rewritten reply's body: out of the buffer */
      size_t n = avail < f->skip ? avail : f->skip;
      memmove(f->buf + f->ready, f->buf + f->ready + n, avail - n);
      f->end -= n;
      f->skip -= n;
      continue;
    }
    if (avail < 4) break;
    const char *p = f->buf + f->ready;
    uint32_t len = be32(p);
    /* RequestHeader {xid, type} or the xid of ReplyHeader {xid, zxid, err} */
    size_t hdr = f->first ? 0 : i == CLI ? 8 : 4;
    if (hdr > len) hdr = 0; /* too short to carry one: not ours to judge */
    if (avail < 4 + hdr) break;
    if (hdr && i == CLI) {
      note_request(c, (int32_t)be32(p + 4), (int32_t)be32(p + 8));
    } else if (hdr && c->expire_set && (int32_t)be32(p + 4) == c->expire_xid &&
               len >= 16) {
      /* ReplyHeader {xid, zxid, err}: the header alone, err ZSESSIONEXPIRED */
      if (avail < 4 + 16) break;
      char *w = f->buf + f->ready;
      const uint32_t hdr_len = 16, expired = (uint32_t)-112;
      for (int b = 0; b < 4; b++) {
        w[b] = (char)(hdr_len >> (24 - 8 * b));
        w[16 + b] = (char)(expired >> (24 - 8 * b));
      }
      c->expire_set = false;
      say("EXPIRED %d", (int)be32(p + 4));
      f->first = false;
      f->left = 4 + 16;
      f->skip = len - 16;
      continue;
    } else if (hdr && c->drop_set && (int32_t)be32(p + 4) == c->drop_xid) {
      c->drop_set = false;
      say("DROPPED %d", (int)be32(p + 4));
      f->first = false;
      f->skip = 4 + (size_t)len; /* the whole packet, from here */
      continue;
    } else if (hdr && take_reply(c, (int32_t)be32(p + 4))) {
      fire(c, (int32_t)be32(p + 4));
      return false;
    } else if (hdr && c->stall_set && (int32_t)be32(p + 4) == c->stall_xid) {
      c->stall_set = false;
      c->hold_at_end = true; /* this reply passes, then the stall */
    } else if (hdr && c->stop_set && (int32_t)be32(p + 4) == c->stop_xid) {
      c->stop_set = false;
      kill(c->stop_pid, SIGSTOP); /* before the reply passes */
      c->hold_at_end = true;
    }
    f->first = false;
    f->left = 4 + (size_t)len;
  }
  return true;
}

static bool has_room(const struct flow *f) { return f->end < BUF_SIZE || f->start > 0; }

/* Reads from fd[i] (if can_read), then writes what is ready to fd[!i] and
 * passes EOF on once everything before it is written. */
static void pump(struct conn *c, int i, bool can_read) {
  struct flow *f = &c->f[i];
  if (can_read) {
    if (f->start == f->end) {
      f->start = f->ready = f->end = 0;
    } else if (f->start > 0 && f->end > BUF_SIZE / 2) {
      memmove(f->buf, f->buf + f->start, f->end - f->start);
      f->ready -= f->start;
      f->end -= f->start;
      f->start = 0;
    }
    ssize_t n = recv(c->fd[i], f->buf + f->end, BUF_SIZE - f->end, 0);
    if (n > 0) {
      f->end += (size_t)n;
      if (!scan(c, i)) return;
    } else if (n == 0) {
      f->eof = true;
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      close_conn(c);
      return;
    }
  }
  if (!can_read && !scan(c, i)) return; /* bytes held back by a stall */
  if (f->eof) f->ready = f->end; /* no more bytes will complete a header */
  int flushed = flush(c, i);
  if (flushed < 0) return;
  if (flushed == 1 && c->holding) { /* stall-after-create's reply is out */
    c->holding = false;
    stalled = true;
    say("STALLED");
  }
  if (f->eof && f->start == f->end && !f->shut) {
    shutdown(c->fd[!i], SHUT_WR); /* half-close, as the peer did */
    f->shut = true;
    if (c->f[!i].shut) close_conn(c);
  }
}

/* Fills the two pollfds of c; an fd with nothing to wait for gets fd -1 so
 * that POLLHUP/POLLERR on it cannot wake us in a loop. */
static void interest(const struct conn *c, struct pollfd p[2]) {
  short ev[2] = {0, 0};
  if (c->dead || stalled) {
    /* nothing: stalled data stays in our buffers or in the kernel */
  } else if (c->draining) {
    if (c->f[SRV].start < c->f[SRV].ready) ev[CLI] = POLLOUT;
  } else if (!c->connected) {
    ev[SRV] = POLLOUT;
  } else {
    for (int i = CLI; i <= SRV; i++) {
      if (!c->f[i].eof && has_room(&c->f[i])) ev[i] |= POLLIN;
      if (c->f[i].start < c->f[i].ready) ev[!i] |= POLLOUT;
    }
  }
  for (int i = CLI; i <= SRV; i++) {
    p[i].fd = ev[i] ? c->fd[i] : -1;
    p[i].events = ev[i];
    p[i].revents = 0;
  }
}

static void service(struct conn *c, const struct pollfd p[2]) {
  if (c->dead || stalled) return;
  if (c->draining) {
    if (p[CLI].revents && flush(c, SRV) == 1) close_conn(c);
    return;
  }
  if (!c->connected) {
    int err = 0;
    socklen_t len = sizeof err;
    if (!p[SRV].revents) return;
    if (getsockopt(c->fd[SRV], SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
      close_conn(c); /* server down: the client sees its connection close */
      return;
    }
    c->connected = true;
  }
  for (int i = CLI; i <= SRV && !c->dead; i++) {
    bool rd = (p[i].events & POLLIN) && (p[i].revents & (POLLIN | POLLHUP | POLLERR));
    pump(c, i, rd);
  }
}

static void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static struct sockaddr_in loopback(uint16_t port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  return a;
}

/* Pairs an accepted client with a fresh (non-blocking) server connection. */
static void open_conn(int cfd) {
  if (nconns == capconns) {
    size_t cap = capconns ? 2 * capconns : 64;
    struct conn **a = realloc(conns, cap * sizeof *a);
    if (!a) {
      close(cfd);
      return;
    }
    conns = a;
    capconns = cap;
  }
  struct conn *c = calloc(1, sizeof *c);
  int sfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (!c || sfd < 0) {
    free(c);
    if (sfd >= 0) close(sfd);
    close(cfd);
    return;
  }
  set_nodelay(cfd);
  set_nodelay(sfd);
  c->fd[CLI] = cfd;
  c->fd[SRV] = sfd;
  c->f[CLI].first = c->f[SRV].first = true;
  struct sockaddr_in a = loopback(target_port);
  if (connect(sfd, (struct sockaddr *)&a, sizeof a) == 0) {
    c->connected = true;
  } else if (errno != EINPROGRESS) {
    close(sfd);
    close(cfd);
    free(c);
    return;
  }
  conns[nconns++] = c;
}

static void accept_all(int lfd) {
  for (;;) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        /* the backlog would keep lfd readable: wait until an fd is freed */
        if (live_conns() > 0) accept_paused = true;
        fprintf(stderr, "zkt_proxy: accept: %s\n", strerror(errno));
      }
      return; /* EAGAIN: backlog empty */
    }
    accepted_total++;
    if (refusing)
      close(fd);
    else
      open_conn(fd);
  }
}

static void cut_all(void) {
  for (size_t i = 0; i < nconns; i++) {
    if (!conns[i]->dead) {
      close_conn(conns[i]);
      cuts_total++;
    }
  }
}

static void sweep(void) {
  size_t k = 0;
  for (size_t i = 0; i < nconns; i++) {
    if (conns[i]->dead) {
      free(conns[i]->xids);
      free(conns[i]);
    } else {
      conns[k++] = conns[i];
    }
  }
  nconns = k;
}

/* s as a whole decimal number in [min, max] (min >= 0), or -1. */
static long number(const char *s, long min, long max) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s || v < min || v > max) return -1;
  return v;
}

static void command(char *line) {
  char *tok[4];
  int n = 0;
  for (char *s = strtok(line, " \t\r"); s; s = strtok(NULL, " \t\r")) {
    if (n == 4) {
      say("ERR too many words");
      return;
    }
    tok[n++] = s;
  }
  if (n == 0) return; /* blank line */
  const char *cmd = tok[0];
  if (n == 1 && strcmp(cmd, "cut") == 0) {
    cut_all();
    say("OK cut");
  } else if (n == 1 && (strcmp(cmd, "stall") == 0 || strcmp(cmd, "unstall") == 0)) {
    stalled = cmd[0] == 's';
    say("OK %s", cmd);
  } else if (n == 2 && strcmp(cmd, "refuse") == 0 &&
             (strcmp(tok[1], "on") == 0 || strcmp(tok[1], "off") == 0)) {
    refusing = strcmp(tok[1], "on") == 0;
    say("OK refuse %s", tok[1]);
  } else if (n == 2 && (strcmp(cmd, "cut-after-create") == 0 ||
                         strcmp(cmd, "cut-after-list") == 0)) {
    long v = number(tok[1], 0, LONG_MAX);
    if (v < 0) {
      say("ERR bad count: %s", tok[1]);
      return;
    }
    armed = v;
    armed_lists = strcmp(cmd, "cut-after-list") == 0;
    say("OK %s %ld", cmd, v);
  } else if (n == 2 && (strcmp(cmd, "expire-after-create") == 0 ||
                         strcmp(cmd, "drop-after-create") == 0)) {
    long v = number(tok[1], 0, LONG_MAX);
    if (v < 0) {
      say("ERR bad count: %s", tok[1]);
      return;
    }
    *(cmd[0] == 'e' ? &expire_armed : &drop_armed) = v;
    say("OK %s %ld", cmd, v);
  } else if (n == 2 && strcmp(cmd, "stall-after-create") == 0) {
    long v = number(tok[1], 0, LONG_MAX);
    if (v < 0) {
      say("ERR bad count: %s", tok[1]);
      return;
    }
    stall_countdown = v;
    say("OK %s %ld", cmd, v);
  } else if (n == 3 && strcmp(cmd, "stop-at-get") == 0) {
    long v = number(tok[1], 0, LONG_MAX), pid = number(tok[2], 1, INT_MAX);
    if (v < 0 || pid < 0) {
      say("ERR bad count or pid: %s %s", tok[1], tok[2]);
      return;
    }
    stop_countdown = v;
    stop_pid = (pid_t)pid;
    for (size_t i = 0; v == 0 && i < nconns; i++) conns[i]->stop_set = false;
    say("OK %s %ld %ld", cmd, v, pid);
  } else if (n == 1 && strcmp(cmd, "stats") == 0) {
    say("STATS conns=%zu accepted=%lu cuts=%lu up=%llu down=%llu", live_conns(),
        accepted_total, cuts_total, passed[CLI], passed[SRV]);
  } else {
    say("ERR unknown command: %s", cmd);
  }
}

/* Reads what stdin has and runs every complete line. False at EOF. */
static bool read_commands(void) {
  static char line[256];
  static size_t len;
  static bool too_long;
  char buf[4096];
  ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  for (ssize_t k = 0; k < n; k++) {
    if (buf[k] == '\n') {
      line[len] = '\0';
      if (too_long)
        say("ERR line too long");
      else
        command(line);
      len = 0;
      too_long = false;
    } else if (len + 1 < sizeof line) {
      line[len++] = buf[k];
    } else {
      too_long = true;
    }
  }
  return true;
}

static int parse_port(const char *s, bool zero_ok) {
  return (int)number(s, zero_ok ? 0 : 1, 65535);
}

int main(int argc, char **argv) {
  int lport = argc == 3 ? parse_port(argv[1], true) : -1;
  int tport = argc == 3 ? parse_port(argv[2], false) : -1;
  if (lport < 0 || tport < 0) {
    fprintf(stderr, "usage: zkt_proxy LISTEN_PORT TARGET_PORT  (127.0.0.1; LISTEN_PORT 0 = any)\n");
    return 2;
  }
  target_port = (uint16_t)tport;
  signal(SIGPIPE, SIG_IGN); /* a peer that vanished must not kill the proxy */

  /* Two fds per connection: take the hard limit so hundreds of clients fit. */
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 65536 : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }

  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  struct sockaddr_in a = loopback((uint16_t)lport);
  socklen_t alen = sizeof a;
  if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, SOMAXCONN) < 0 ||
      getsockname(lfd, (struct sockaddr *)&a, &alen) < 0) {
    fprintf(stderr, "zkt_proxy: listen on 127.0.0.1:%d: %s\n", lport, strerror(errno));
    return 1;
  }
  say("READY %d", ntohs(a.sin_port));

  struct pollfd *pfds = NULL;
  size_t cap = 0;
  for (;;) {
    size_t n = nconns; /* connections accepted below are polled next round */
    if (cap < 2 + 2 * n) {
      cap = 2 * (2 + 2 * n);
      struct pollfd *p = realloc(pfds, cap * sizeof *p);
      if (!p) {
        fprintf(stderr, "zkt_proxy: out of memory\n");
        return 1;
      }
      pfds = p;
    }
    pfds[0] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
    pfds[1] = (struct pollfd){.fd = accept_paused ? -1 : lfd, .events = POLLIN};
    for (size_t i = 0; i < n; i++) interest(conns[i], &pfds[2 + 2 * i]);
    if (poll(pfds, (nfds_t)(2 + 2 * n), -1) < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "zkt_proxy: poll: %s\n", strerror(errno));
      return 1;
    }
    /* Commands first, so that e.g. a stall takes effect before more bytes move. */
    if (pfds[0].revents && !read_commands()) break;
    if (pfds[1].revents) accept_all(lfd);
    for (size_t i = 0; i < n; i++) service(conns[i], &pfds[2 + 2 * i]);
    sweep();
  }

  for (size_t i = 0; i < nconns; i++) close_conn(conns[i]);
  sweep();
  free(conns);
  free(pfds);
  close(lfd);
  return 0;
}
