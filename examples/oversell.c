/* SPDX-License-Identifier: Apache-2.0 */
/* oversell — the classic overselling race, first without a lock, then under
 * a zkcoord mutex.
 *
 * Several worker processes sell from one stock kept in a ZooKeeper node (a
 * shared count: 4 bytes, big-endian, Curator's SharedCount format). A sale
 * is a read-modify-write: read the stock; if it is above zero, pause a
 * moment, write it back one lower and count a sale. Without a lock, workers
 * read the same count and overwrite each other's writes, so more items are
 * sold than existed. With zkc_mutex_* around each sale, exactly the stock
 * is sold.
 *
 * One lesson beyond the lock: the lock orders the holders, not what a
 * replica shows. A holder that read the stock through a session of its own
 * could be answered by a server still behind the previous holder's write,
 * even after a sync (a leader that was paused and resumed answers sync and
 * reads from its old state). So under the lock a sale reads the stock
 * through the hold's own session, which saw the grant and is never served
 * from behind it (zkc_hold_fenced_get), and writes it back with
 * zkc_hold_fenced_cas: only while the hold stands, and only if nobody
 * wrote since the read (see sell_locked).
 *
 * Only zkcoord's public API is used (build it with pkg-config alone):
 * zkc_shared_count_get/set for the stock outside the lock, the fenced calls
 * under it. Every client creates missing parents as container nodes, which
 * the server removes once empty: the lock's path goes by itself after the
 * run. The stock node, a plain persistent node, stays (4 bytes; zkcoord
 * deletes only the nodes of its recipes): the demo names it at the end.
 *
 *   oversell [--connect HOSTS] [--workers N] [--stock N] [--delay-ms N]
 *            [--path /zkcoord-demo/stock] [--phase 1|2]
 *
 * Exit status: 0 when every phase run finished without errors and the
 * locked phase (2) sold exactly the stock, down to 0, with no write landing
 * inside another worker's read-modify-write; 1 otherwise (including an
 * unreachable ensemble); 64 for bad usage. Phase 1 is expected to oversell,
 * but whether the race shows is up to timing, so it never fails the run.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zkcoord/zkcoord.h>

#define DEFAULT_CONNECT "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183"
#define CONNECT_TIMEOUT_MS 10000
#define SESSION_TIMEOUT_MS 10000
#define MAX_WORKERS 256
#define PATH_LEN 1100

typedef struct options {
  const char *connect;
  int workers;
  long stock;
  int delay_ms;
  const char *path; /* base; the pid is appended */
  int phase;        /* 0 = both, else only this one */
} options_t;

/* The nodes of one run. Unique per run so that concurrent and repeated runs
 * never share a stock. */
typedef struct paths {
  char stock[PATH_LEN];
  char lock[PATH_LEN];
} paths_t;

/* What a worker tells the parent over the shared pipe. Smaller than
 * PIPE_BUF, so writes from several workers never interleave. */
enum { MSG_READY, MSG_DONE };
typedef struct report {
  int worker;
  int kind;
  int rc;           /* ZKC_OK or what stopped the worker */
  long sales;       /* sales this worker counted */
  long cycles;      /* lock acquisitions */
  long interleaved; /* under the lock: writes refused by the compare-and-set
                     * (someone wrote since our read) */
} report_t;

/* A phase's outcome, summed over the workers. */
typedef struct tally {
  long sales, cycles, interleaved;
  long per_worker[MAX_WORKERS];
  long final_stock;
  double elapsed_s;
  int errors;
} tally_t;

/* ---------------------------------------------------------------------- */
/* Small helpers                                                          */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Both short writes and EINTR are possible on a pipe in theory. */
static int write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Returns 1 for a whole record, 0 on end of file, -1 on error. */
static int read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  size_t got = 0;
  while (got < len) {
    ssize_t n = read(fd, p + got, len - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return got == 0 ? 0 : -1;
    got += (size_t)n;
  }
  return 1;
}

/* ---------------------------------------------------------------------- */
/* ZooKeeper, through zkcoord                                             */

/* Opens a client, waiting at most CONNECT_TIMEOUT_MS for the ensemble
 * (ZKC_ECONNECT when nobody answers). Missing parents (of the stock node
 * and of the lock path) are made containers, which the server deletes once
 * they are empty. The demo reports every failure itself, by its code: the
 * client's log (a line per failed connection attempt while it looks for a
 * server, among others) would drown that, so it is off. */
static int open_client(const char *connect, zkc_client_t **out) {
  zkc_client_opts_t opts;
  zkc_client_opts_init(&opts);
  opts.connect_timeout_ms = CONNECT_TIMEOUT_MS;
  opts.session_timeout_ms = SESSION_TIMEOUT_MS;
  opts.parent_mode = ZKC_PARENTS_CONTAINER;
  opts.log_level = ZKC_LOG_NONE;
  return zkc_client_open(out, connect, &opts);
}

/* The stock node holds a shared count: 4 bytes, big-endian. The fenced
 * calls read and write raw bytes, so the locked phase speaks the format
 * itself. */
#define COUNT_BYTES 4

static void count_encode(int32_t value, unsigned char out[COUNT_BYTES]) {
  uint32_t u = (uint32_t)value;
  for (int i = 0; i < COUNT_BYTES; i++)
    out[i] = (unsigned char)(u >> (8 * (COUNT_BYTES - 1 - i)));
}

/* ZKC_EPROTO when the node does not hold a count. */
static int count_decode(const char *data, size_t len, int32_t *value) {
  if (len != COUNT_BYTES) return ZKC_EPROTO;
  uint32_t u = 0;
  for (int i = 0; i < COUNT_BYTES; i++) u = u << 8 | (unsigned char)data[i];
  *value = (int32_t)u;
  return ZKC_OK;
}

/* ---------------------------------------------------------------------- */
/* Worker process                                                         */

typedef struct worker {
  zkc_client_t *client;
  zkc_mutex_t *mutex; /* locked phase only */
} worker_t;

/* Without the lock a worker reads and writes the stock through its client;
 * under the lock it reads and writes it through its hold instead. */
static int worker_open(worker_t *w, const options_t *o, const paths_t *p,
                       int locked) {
  int rc = open_client(o->connect, &w->client);
  if (rc == ZKC_OK && locked)
    rc = zkc_mutex_create(&w->mutex, w->client, p->lock);
  return rc;
}

static void worker_close(worker_t *w) {
  zkc_mutex_destroy(w->mutex);
  zkc_client_close(w->client);
}

/* One attempt to sell without the lock: the read-modify-write the lock
 * must protect, as naive code writes it (an unconditional write). The
 * pause between read and write is where other workers slip in. */
static int sell_unlocked(const worker_t *w, const options_t *o,
                         const paths_t *p, int *sold) {
  int32_t stock = 0;
  int rc = zkc_shared_count_get(w->client, p->stock, &stock);
  if (rc != ZKC_OK || stock <= 0) return rc;
  sleep_ms(o->delay_ms);
  rc = zkc_shared_count_set(w->client, p->stock, stock - 1);
  *sold = rc == ZKC_OK;
  return rc;
}

/* The same sale under the lock, read and written through the hold: the
 * read through the hold's session shows the previous holder's last write,
 * and the compare-and-set writes only while the hold stands and nobody
 * wrote since the read (a refusal, ZKC_EBADVERSION, would mean a writer
 * that does not take the lock: counted, nothing sold). */
static int sell_locked(const worker_t *w, const options_t *o,
                       const paths_t *p, int *sold, int *interleaved) {
  char *data = NULL;
  size_t len = 0;
  int32_t version = 0, stock = 0;
  int rc = zkc_hold_fenced_get(zkc_mutex_hold(w->mutex), p->stock, &data, &len, &version);
  if (rc != ZKC_OK) return rc;
  rc = count_decode(data, len, &stock);
  free(data);
  if (rc != ZKC_OK || stock <= 0) return rc;
  sleep_ms(o->delay_ms);
  unsigned char buf[COUNT_BYTES];
  count_encode(stock - 1, buf);
  rc = zkc_hold_fenced_cas(zkc_mutex_hold(w->mutex), p->stock, buf, sizeof buf, version, NULL);
  if (rc == ZKC_EBADVERSION) {
    *interleaved = 1;
    return ZKC_OK;
  }
  *sold = rc == ZKC_OK;
  return rc;
}

/* Sells until the stock reads zero, taking the mutex around each sale when
 * there is one. */
static int sell_all(const worker_t *w, const options_t *o, const paths_t *p,
                    report_t *r) {
  for (;;) {
    if (w->mutex) {
      int rc = zkc_mutex_acquire(w->mutex);
      if (rc != ZKC_OK) return rc;
      r->cycles++;
    }
    int sold = 0, interleaved = 0;
    int rc = w->mutex ? sell_locked(w, o, p, &sold, &interleaved)
                      : sell_unlocked(w, o, p, &sold);
    if (w->mutex) {
      int rrc = zkc_mutex_release(w->mutex);
      if (rc == ZKC_OK) rc = rrc;
    }
    if (rc != ZKC_OK) return rc;
    r->interleaved += interleaved;
    if (!sold && !interleaved) return ZKC_OK; /* sold out */
    r->sales += sold;
  }
}

/* Runs in the forked child: its own sessions, opened after the fork. */
static void worker_main(int index, const options_t *o, const paths_t *p,
                        int locked, int go_fd, int report_fd) {
  worker_t w = {0};
  report_t r = {.worker = index, .kind = MSG_READY};
  r.rc = worker_open(&w, o, p, locked);
  int ok = write_all(report_fd, &r, sizeof r) == 0 && r.rc == ZKC_OK;

  /* Everyone starts together; end of file instead of a byte means the
   * parent gave up. */
  char go;
  ssize_t n;
  while ((n = read(go_fd, &go, 1)) < 0 && errno == EINTR) {
  }
  if (ok && n == 1) {
    r.kind = MSG_DONE;
    r.rc = sell_all(&w, o, p, &r);
    if (r.rc != ZKC_OK)
      fprintf(stderr, "oversell: worker %d: %s\n", index, zkc_strerror(r.rc));
    ok = write_all(report_fd, &r, sizeof r) == 0 && r.rc == ZKC_OK;
  }
  worker_close(&w);
  close(go_fd);
  close(report_fd);
  _exit(ok ? 0 : 1); /* no atexit handlers or stdio buffers of the parent */
}

/* ---------------------------------------------------------------------- */
/* Parent: one phase                                                      */

typedef struct crew {
  pid_t pids[MAX_WORKERS];
  int count;
  int go_fd;     /* write end: one byte per worker starts them */
  int report_fd; /* read end of the shared report pipe */
} crew_t;

/* Forks the workers; each gets the read end of the go pipe and the write
 * end of the report pipe. */
static int crew_start(crew_t *crew, const options_t *o, const paths_t *p,
                      int locked) {
  int go[2], rep[2];
  if (pipe(go) != 0) return -1;
  if (pipe(rep) != 0) {
    close(go[0]), close(go[1]);
    return -1;
  }
  fflush(NULL); /* or the children would print our buffered output again */
  int err = 0;
  for (int i = 0; i < o->workers && err == 0; i++) {
    pid_t pid = fork();
    if (pid < 0) {
      err = errno;
    } else if (pid == 0) {
      close(go[1]);
      close(rep[0]);
      worker_main(i, o, p, locked, go[0], rep[1]);
    } else {
      crew->pids[crew->count++] = pid;
    }
  }
  /* Only the workers keep these ends, so EOF tells us they are all gone. */
  close(go[0]);
  close(rep[1]);
  crew->go_fd = go[1];
  crew->report_fd = rep[0];
  errno = err;
  return err == 0 ? 0 : -1;
}

/* Closing the go pipe without writing sends idle workers home. Returns the
 * number of workers that did not exit cleanly. */
static int crew_finish(crew_t *crew) {
  if (crew->go_fd >= 0) close(crew->go_fd);
  if (crew->report_fd >= 0) close(crew->report_fd);
  int bad = 0;
  for (int i = 0; i < crew->count; i++) {
    int status;
    while (waitpid(crew->pids[i], &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) bad++;
  }
  return bad;
}

/* Waits for every worker's READY; 0 when all of them are connected. */
static int crew_wait_ready(crew_t *crew) {
  int failed = 0;
  for (int i = 0; i < crew->count; i++) {
    report_t r;
    if (read_all(crew->report_fd, &r, sizeof r) != 1) return -1;
    if (r.rc != ZKC_OK) {
      fprintf(stderr, "oversell: worker %d could not start: %s\n", r.worker,
              zkc_strerror(r.rc));
      failed = 1;
    }
  }
  return failed ? -1 : 0;
}

static int crew_go(crew_t *crew) {
  char bytes[MAX_WORKERS];
  memset(bytes, 'g', sizeof bytes);
  int rc = write_all(crew->go_fd, bytes, (size_t)crew->count);
  close(crew->go_fd);
  crew->go_fd = -1;
  return rc;
}

/* Collects every DONE into the tally; the clock stops at the last one. */
static void crew_collect(crew_t *crew, tally_t *t) {
  for (int i = 0; i < crew->count; i++) {
    report_t r;
    if (read_all(crew->report_fd, &r, sizeof r) != 1) {
      t->errors++; /* a worker died without reporting */
      break;
    }
    if (r.rc != ZKC_OK) t->errors++;
    t->sales += r.sales;
    t->cycles += r.cycles;
    t->interleaved += r.interleaved;
    if (r.worker >= 0 && r.worker < MAX_WORKERS)
      t->per_worker[r.worker] = r.sales;
  }
}

/* Reads the stock after the race, under the lock and through the hold:
 * a plain read through this session could be answered by a server that
 * has not applied the last workers' writes yet. */
static int read_final_stock(zkc_client_t *client, const paths_t *p,
                            long *stock) {
  zkc_mutex_t *mutex = NULL;
  int rc = zkc_mutex_create(&mutex, client, p->lock);
  if (rc == ZKC_OK) rc = zkc_mutex_acquire(mutex);
  if (rc == ZKC_OK) {
    char *data = NULL;
    size_t len = 0;
    int32_t version, value = 0;
    rc = zkc_hold_fenced_get(zkc_mutex_hold(mutex), p->stock, &data, &len, &version);
    if (rc == ZKC_OK) rc = count_decode(data, len, &value);
    free(data);
    *stock = value;
    int rrc = zkc_mutex_release(mutex);
    if (rc == ZKC_OK) rc = rrc;
  }
  zkc_mutex_destroy(mutex);
  return rc;
}

/* Forks the workers, then (never the other way round) opens the parent's
 * session, fills the stock, starts the race and gathers the result. */
static int run_phase(const options_t *o, const paths_t *p, int locked,
                     tally_t *t) {
  crew_t crew = {.go_fd = -1, .report_fd = -1};
  memset(t, 0, sizeof *t);
  if (crew_start(&crew, o, p, locked) != 0) {
    fprintf(stderr, "oversell: cannot start workers: %s\n", strerror(errno));
    t->errors += crew_finish(&crew) + 1;
    return -1;
  }

  zkc_client_t *client = NULL;
  int rc = open_client(o->connect, &client);
  if (rc == ZKC_OK)
    rc = zkc_shared_count_set(client, p->stock, (int32_t)o->stock);
  if (rc != ZKC_OK)
    fprintf(stderr, "oversell: cannot fill the stock %s: %s\n", p->stock,
            zkc_strerror(rc));

  if (rc == ZKC_OK && crew_wait_ready(&crew) == 0 && crew_go(&crew) == 0) {
    double start = now_s();
    crew_collect(&crew, t);
    t->elapsed_s = now_s() - start;
    int rrc = read_final_stock(client, p, &t->final_stock);
    if (rrc != ZKC_OK) {
      fprintf(stderr, "oversell: cannot read the final stock: %s\n",
              zkc_strerror(rrc));
      t->errors++;
    }
  } else {
    t->errors++;
  }

  t->errors += crew_finish(&crew);
  zkc_client_close(client);
  return t->errors ? -1 : 0;
}

/* ---------------------------------------------------------------------- */
/* Report                                                                 */

static void print_tally(const options_t *o, const tally_t *t, int locked) {
  long applied = o->stock - t->final_stock;
  long oversold = t->sales > o->stock ? t->sales - o->stock : 0;
  printf("  sold          %ld of %ld items\n", t->sales, o->stock);
  printf("  per worker   ");
  for (int i = 0; i < o->workers; i++) printf(" %ld", t->per_worker[i]);
  printf("\n");
  printf("  final stock   %ld\n", t->final_stock);
  printf("  oversold      %ld\n", oversold);
  printf("  lost updates  %ld (sales %ld - decrements applied %ld)\n",
         t->sales - applied, t->sales, applied);
  if (locked)
    printf("  interleaved   %ld writes refused (compare-and-set): another "
           "worker had written since the read\n", t->interleaved);
  printf("  elapsed       %.3f s\n", t->elapsed_s);
  if (locked && t->elapsed_s > 0)
    printf("  lock cycles   %ld, %.1f per second\n", t->cycles,
           (double)t->cycles / t->elapsed_s);
}

static int phase1(const options_t *o, const paths_t *p) {
  tally_t t;
  printf("\nphase 1: no lock, blind writes\n");
  if (run_phase(o, p, 0, &t) != 0) {
    printf("  FAILED: errors while running (see above)\n");
    return -1;
  }
  print_tally(o, &t, 0);
  if (t.sales > o->stock || t.sales != o->stock - t.final_stock)
    printf("  => the race showed: %ld sold from a stock of %ld\n", t.sales,
           o->stock);
  else if (o->workers == 1)
    printf("  => no race: a single worker has nobody to race with\n");
  else
    printf("  => the race did not show this time (timing-dependent); try a "
           "larger --delay-ms or more --workers\n");
  return 0;
}

static int phase2(const options_t *o, const paths_t *p) {
  tally_t t;
  printf("\nphase 2: zkcoord mutex on %s, reads and compare-and-set writes "
         "through the hold\n", p->lock);
  if (run_phase(o, p, 1, &t) != 0) {
    printf("  FAILED: errors while running (see above)\n");
    return -1;
  }
  print_tally(o, &t, 1);
  int exact = t.sales == o->stock && t.final_stock == 0 && t.interleaved == 0;
  if (exact)
    printf("  => correct: exactly %ld sold, none oversold, stock 0\n",
           o->stock);
  else
    printf("  => WRONG: the sales were not serialised\n");
  return exact ? 0 : -1;
}

/* ---------------------------------------------------------------------- */
/* Options and main                                                       */

static void usage(FILE *f) {
  fprintf(f,
          "usage: oversell [--connect HOSTS] [--workers N] [--stock N] "
          "[--delay-ms N]\n"
          "                [--path /zkcoord-demo/stock] [--phase 1|2]\n"
          "  --connect   ZooKeeper hosts (default $ZKCOORD_CONNECT or %s)\n"
          "  --workers   worker processes, 1..%d (default 4)\n"
          "  --stock     items to sell, 1..1000000 (default 100)\n"
          "  --delay-ms  pause between reading and writing the stock, 0..1000 "
          "(default 3)\n"
          "  --path      stock node; \"-<pid>\" is appended (default "
          "/zkcoord-demo/stock)\n"
          "  --phase     run only phase 1 (no lock) or 2 (mutex); default "
          "both\n",
          DEFAULT_CONNECT, MAX_WORKERS);
}

static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* Returns 0, or -1 after printing what is wrong. */
static int parse_options(int argc, char **argv, options_t *o) {
  static const struct option longs[] = {
      {"connect", required_argument, NULL, 'c'},
      {"workers", required_argument, NULL, 'w'},
      {"stock", required_argument, NULL, 's'},
      {"delay-ms", required_argument, NULL, 'd'},
      {"path", required_argument, NULL, 'p'},
      {"phase", required_argument, NULL, 'P'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  const char *env = getenv("ZKCOORD_CONNECT");
  *o = (options_t){.connect = env && *env ? env : DEFAULT_CONNECT,
                   .workers = 4, .stock = 100, .delay_ms = 3,
                   .path = "/zkcoord-demo/stock"};
  int c, idx = 0;
  long v = 0;
  while ((c = getopt_long(argc, argv, "", longs, &idx)) != -1) {
    int bad = 0;
    switch (c) {
    case 'c':
      o->connect = optarg;
      break;
    case 'w':
      bad = parse_long(optarg, 1, MAX_WORKERS, &v);
      o->workers = (int)v;
      break;
    case 's':
      bad = parse_long(optarg, 1, 1000000, &v);
      o->stock = v;
      break;
    case 'd':
      bad = parse_long(optarg, 0, 1000, &v);
      o->delay_ms = (int)v;
      break;
    case 'p':
      o->path = optarg;
      break;
    case 'P':
      bad = parse_long(optarg, 1, 2, &v);
      o->phase = (int)v;
      break;
    case 'h':
      usage(stdout);
      exit(0);
    default:
      usage(stderr);
      return -1;
    }
    if (bad) {
      fprintf(stderr, "oversell: bad value for --%s: %s\n", longs[idx].name,
              optarg);
      usage(stderr);
      return -1;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "oversell: unexpected argument: %s\n", argv[optind]);
    return -1;
  }
  if (o->connect[0] == '\0') {
    fprintf(stderr, "oversell: --connect needs a host list\n");
    return -1;
  }
  size_t n = strlen(o->path);
  if (o->path[0] != '/' || n < 2 || o->path[n - 1] == '/' ||
      n > PATH_LEN - 40) {
    fprintf(stderr, "oversell: --path must be an absolute node path\n");
    return -1;
  }
  return 0;
}

/* Checks the ensemble and creates the stock node (and its missing parents,
 * as containers). A node already there is used only when it holds a count
 * (the stock of an earlier run whose process had the same pid): anything
 * else is not the demo's. The session is closed again before any worker is
 * forked. */
static int prepare(const options_t *o, const paths_t *p) {
  zkc_client_t *client;
  int rc = open_client(o->connect, &client);
  if (rc != ZKC_OK) {
    fprintf(stderr,
            "oversell: cannot reach the ZooKeeper ensemble at %s: %s\n"
            "  (is it running? pass --connect or set ZKCOORD_CONNECT)\n",
            o->connect, zkc_strerror(rc));
    return -1;
  }
  int32_t old;
  rc = zkc_shared_count_get(client, p->stock, &old);
  if (rc == ZKC_OK || rc == ZKC_ENONODE)
    rc = zkc_shared_count_set(client, p->stock, 0);
  else if (rc == ZKC_EPROTO)
    fprintf(stderr, "oversell: %s exists and is not a stock count: pass "
                    "another --path\n", p->stock);
  if (rc != ZKC_OK && rc != ZKC_EPROTO)
    fprintf(stderr, "oversell: cannot create %s: %s\n", p->stock,
            zkc_strerror(rc));
  zkc_client_close(client);
  return rc == ZKC_OK ? 0 : -1;
}

int main(int argc, char **argv) {
  options_t o;
  if (parse_options(argc, argv, &o) != 0) return 64;

  paths_t p;
  /* parse_options bounded the length of o.path: these fit. */
  snprintf(p.stock, sizeof p.stock, "%s-%ld", o.path, (long)getpid());
  snprintf(p.lock, sizeof p.lock, "%s-%ld-lock", o.path, (long)getpid());

  if (prepare(&o, &p) != 0) return 1;
  printf("oversell: %d worker processes sell %ld items, %d ms between read "
         "and write\n  ensemble   %s\n  stock node %s\n",
         o.workers, o.stock, o.delay_ms, o.connect, p.stock);

  int failed = 0;
  if (o.phase != 2 && phase1(&o, &p) != 0) failed = 1;
  if (o.phase != 1 && phase2(&o, &p) != 0) failed = 1;

  /* The lock's path is a container: the server removes it once empty. */
  printf("\nThe stock node %s stays on the ensemble (4 bytes);\n"
         "remove it with ZooKeeper's zkCli.sh: delete %s\n", p.stock,
         p.stock);
  printf("\n%s\n", failed ? "FAIL" : "PASS");
  return failed ? 1 : 0;
}
