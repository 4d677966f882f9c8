/* SPDX-License-Identifier: Apache-2.0 */
/* Self-test of zkc_netdelay (no ZooKeeper): an echo server behind the relay.
 *
 *   netdelay_selftest <path-to-zkc_netdelay>
 *
 * At a one-way delay of 2 ms no round trip may come back in under 4 ms (a
 * relay must never deliver early); 4 MB echoed through it must come back
 * whole and in order; at no delay the median must be below the fastest
 * delayed round trip (the delay really is the option's). No bound in
 * seconds: the speed is the benchmark's to measure. Exits 0 when every
 * check passes. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons((uint16_t)port);
  return a;
}

/* A listening socket on a port of the kernel's choice; *port gets it. */
static int listen_any(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = loopback(0);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 8) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
    perror("listen");
    exit(1);
  }
  *port = ntohs(a.sin_port);
  return fd;
}

static void *echo(void *arg) {
  int lfd = *(int *)arg;
  for (;;) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0) return NULL;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char buf[65536];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
      for (ssize_t off = 0; off < n;) {
        ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
        if (w <= 0) break;
        off += w;
      }
    close(fd);
  }
}

/* Connects to the relay, retrying while it starts. */
static int dial(int port) {
  for (int i = 0; i < 200; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    close(fd);
    usleep(10000);
  }
  fprintf(stderr, "no relay on port %d\n", port);
  exit(1);
}

static int cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Median round trip of 30 pings through a relay of delay_us; *min too. */
static int64_t pings(const char *bin, int delay_us, int target, int64_t *min, int bulk) {
  int rport;
  close(listen_any(&rport)); /* a free port for the relay */
  pid_t pid = fork();
  if (pid == 0) {
    char d[16], l[16], t[16];
    snprintf(d, sizeof d, "%d", delay_us);
    snprintf(l, sizeof l, "%d", rport);
    snprintf(t, sizeof t, "%d", target);
    execl(bin, bin, d, l, t, (char *)NULL);
    _exit(127);
  }
  int fd = dial(rport);
  int64_t rtt[30];
  char b[100];
  memset(b, 'x', sizeof b);
  for (int i = 0; i < 30; i++) {
    int64_t t0 = now_us();
    if (send(fd, b, sizeof b, 0) != (ssize_t)sizeof b) exit(1);
    size_t got = 0;
    while (got < sizeof b) {
      ssize_t n = recv(fd, b, sizeof b - got, 0);
      if (n <= 0) exit(1);
      got += (size_t)n;
    }
    rtt[i] = now_us() - t0;
  }
  if (bulk) { /* 4 MB in order: a pattern no reordering keeps */
    size_t len = 4u << 20, sent = 0, got = 0;
    unsigned char *out = malloc(len), *in = malloc(len);
    for (size_t i = 0; i < len; i++) out[i] = (unsigned char)(i * 7 + i / 251);
    while (got < len) {
      if (sent < len) {
        ssize_t n = send(fd, out + sent, len - sent > 65536 ? 65536 : len - sent, MSG_DONTWAIT);
        if (n > 0) sent += (size_t)n;
      }
      ssize_t n = recv(fd, in + got, len - got, MSG_DONTWAIT);
      if (n > 0) got += (size_t)n;
      else if (n == 0) break;
      else if (errno == EAGAIN) usleep(200);
    }
    int ok = got == len && memcmp(in, out, len) == 0;
    printf("%s bulk: 4 MB echoed whole and in order at %d us\n", ok ? "ok  " : "FAIL", delay_us);
    failures += !ok;
    free(out);
    free(in);
  }
  close(fd);
  kill(pid, SIGTERM);
  waitpid(pid, NULL, 0);
  qsort(rtt, 30, sizeof rtt[0], cmp);
  *min = rtt[0];
  return rtt[15];
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: netdelay_selftest <path-to-zkc_netdelay>\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int eport, lfd = listen_any(&eport);
  pthread_t th;
  pthread_create(&th, NULL, echo, &lfd);
  int64_t min0, min2;
  int64_t med0 = pings(argv[1], 0, eport, &min0, 0);
  int64_t med2 = pings(argv[1], 2000, eport, &min2, 1);
  int ok = min2 >= 4000;
  printf("%s 2 ms each way: fastest round trip %lld us (>= 4000)\n", ok ? "ok  " : "FAIL",
         (long long)min2);
  failures += !ok;
  /* Relative, not timed: without a delay the relay answers faster than
   * the fastest delayed round trip (a bound in seconds would be a timed
   * assertion on a shared machine). */
  ok = med0 < min2;
  printf("%s no delay: median round trip %lld us (below the delayed %lld)\n",
         ok ? "ok  " : "FAIL", (long long)med0, (long long)min2);
  failures += !ok;
  printf("info 2 ms each way: median round trip %lld us\n", (long long)med2);
  return failures ? 1 : 0;
}
