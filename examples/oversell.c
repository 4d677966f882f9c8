/* oversell — the classic overselling race, first without a lock, then under
 * a zkcoord mutex.
 *
 * Several worker processes sell from one stock kept in a ZooKeeper node (its
 * data is the decimal count). A sale is a read-modify-write: read the stock;
 * if it is above zero, pause a moment, write it back one lower and count a
 * sale. Without a lock, workers read the same count and overwrite each
 * other's writes, so more items are sold than existed. With zkc_mutex_*
 * around each sale, exactly the stock is sold.
 *
 * One lesson beyond the lock: the lock orders the holders, not what a
 * replica shows. A holder that read the stock through a session of its own
 * could be answered by a server still behind the previous holder's write,
 * even after a sync (a leader that was paused and resumed answers sync and
 * reads from its old state). So under the lock a sale reads the stock
 * through the hold's own session, which saw the grant and is never served
 * from behind it (zkc_mutex_fenced_get), and writes it back with
 * zkc_mutex_fenced_cas: only while the hold stands, and only if nobody
 * wrote since the read (see sell_locked).
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
#define THREADED

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>
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
  long interleaved; /* writes after someone else's write since our read
                     * (under the lock: refused by the compare-and-set) */
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

/* The demo speaks to ZooKeeper twice: through zkcoord (ZKC_* codes, all
 * <= -1000) for the lock, and through its own plain handle for the stock
 * node (the ZooKeeper client's codes). Either kind, in words. */
static const char *describe(int rc) {
  return rc <= -1000 ? zkc_strerror(rc) : zerror(rc);
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
/* ZooKeeper: a plain handle for the stock node                           */

/* The client logs every failed connection attempt while it looks for a
 * server; the demo reports failures by their codes instead. */
static void quiet_log(const char *message) { (void)message; }

/* Opens a read-write session or returns ZKC_ECONNECT after the timeout. */
static int zk_open(const char *connect, zhandle_t **out) {
  *out = zookeeper_init2(connect, NULL, SESSION_TIMEOUT_MS, NULL, NULL,
                         ZOO_NO_LOG_CLIENTENV, quiet_log);
  if (*out == NULL) return errno == EINVAL ? ZKC_EINVAL : ZKC_ESYSTEM;
  /* Polling the state keeps the watcher context-free; connecting takes
   * milliseconds on a healthy ensemble. */
  for (int waited = 0; waited < CONNECT_TIMEOUT_MS; waited += 10) {
    if (zoo_state(*out) == ZOO_CONNECTED_STATE) return ZKC_OK;
    sleep_ms(10);
  }
  zookeeper_close(*out);
  *out = NULL;
  return ZKC_ECONNECT;
}

static long parse_stock(const char *buf, int len) {
  char text[32];
  if (len <= 0 || len >= (int)sizeof text) return -1;
  memcpy(text, buf, (size_t)len);
  text[len] = '\0';
  char *end;
  long v = strtol(text, &end, 10);
  return *end == '\0' ? v : -1;
}

/* Reads the stock count and the node's version. */
static int read_stock(zhandle_t *zh, const char *path, long *stock,
                      int *version) {
  char buf[32];
  int len = sizeof buf;
  struct Stat st;
  int rc = zoo_get(zh, path, 0, buf, &len, &st);
  if (rc != ZOK) return rc;
  *stock = parse_stock(buf, len);
  *version = st.version;
  return *stock < 0 ? ZKC_EPROTO : ZOK;
}

/* Writes the count with version -1: a blind write, as naive code does. The
 * new version tells whether anyone else wrote since `read_version`. */
static int write_stock(zhandle_t *zh, const char *path, long stock,
                       int read_version, int *interleaved) {
  char buf[32];
  int len = snprintf(buf, sizeof buf, "%ld", stock);
  struct Stat st;
  int rc = zoo_set2(zh, path, buf, len, -1, &st);
  if (rc == ZOK) *interleaved = st.version != read_version + 1;
  return rc;
}

/* Parents the demo creates carry this data, so that any run may remove
 * them once empty, including parents created by a concurrent run; nodes
 * that were there before the demo are never touched. */
#define PARENT_MARK "zkcoord-demo"

/* Creates the missing ancestors of `path` as persistent, marked nodes. */
static int create_ancestors(zhandle_t *zh, const char *path) {
  char prefix[PATH_LEN];
  for (const char *slash = strchr(path + 1, '/'); slash != NULL;
       slash = strchr(slash + 1, '/')) {
    size_t len = (size_t)(slash - path);
    memcpy(prefix, path, len);
    prefix[len] = '\0';
    int rc = zoo_create(zh, prefix, PARENT_MARK, (int)strlen(PARENT_MARK),
                        &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
    if (rc != ZOK && rc != ZNODEEXISTS) return rc;
  }
  return ZOK;
}

static void delete_node(zhandle_t *zh, const char *path) {
  int rc = zoo_delete(zh, path, -1);
  if (rc != ZOK && rc != ZNONODE)
    fprintf(stderr, "oversell: cannot delete %s: %s\n", path,
            describe(rc));
}

/* Deletes the marked ancestors of `path` from the deepest up, stopping at
 * one that is still in use (ZNOTEMPTY) or not the demo's. The version
 * check makes sure the node deleted is the one whose mark was read. */
static void delete_ancestors(zhandle_t *zh, const char *path) {
  char prefix[PATH_LEN];
  snprintf(prefix, sizeof prefix, "%s", path);
  char *slash;
  while ((slash = strrchr(prefix, '/')) != NULL && slash != prefix) {
    *slash = '\0';
    char data[sizeof PARENT_MARK];
    int len = sizeof data;
    struct Stat st;
    int rc = zoo_get(zh, prefix, 0, data, &len, &st);
    if (rc != ZOK || len != (int)strlen(PARENT_MARK) ||
        memcmp(data, PARENT_MARK, (size_t)len) != 0)
      return;
    rc = zoo_delete(zh, prefix, st.version);
    if (rc != ZOK && rc != ZNONODE) return;
  }
}

/* ---------------------------------------------------------------------- */
/* Worker process                                                         */

typedef struct worker {
  zhandle_t *zh;        /* for the stock node */
  zkc_client_t *client; /* locked phase only */
  zkc_mutex_t *mutex;
} worker_t;

/* Without the lock a worker has a plain handle for the stock node; under
 * the lock it reads and writes the stock through its hold instead. */
static int worker_open(worker_t *w, const options_t *o, const paths_t *p,
                       int locked) {
  if (!locked) return zk_open(o->connect, &w->zh);
  zkc_client_opts_t copts;
  zkc_client_opts_init(&copts);
  copts.connect_timeout_ms = CONNECT_TIMEOUT_MS;
  int rc = zkc_client_open(&w->client, o->connect, &copts);
  if (rc == ZKC_OK) rc = zkc_mutex_create(&w->mutex, w->client, p->lock);
  return rc;
}

static void worker_close(worker_t *w) {
  zkc_mutex_destroy(w->mutex);
  zkc_client_close(w->client);
  if (w->zh) zookeeper_close(w->zh);
}

/* One attempt to sell without the lock: the read-modify-write the lock
 * must protect, as naive code writes it. The pause between read and write
 * is where other workers slip in. */
static int sell_unlocked(const worker_t *w, const options_t *o,
                         const paths_t *p, int *sold, int *interleaved) {
  long stock = 0;
  int version = 0;
  int rc = read_stock(w->zh, p->stock, &stock, &version);
  if (rc != ZOK || stock <= 0) return rc;
  sleep_ms(o->delay_ms);
  rc = write_stock(w->zh, p->stock, stock - 1, version, interleaved);
  *sold = rc == ZOK;
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
  int32_t version = 0;
  int rc = zkc_mutex_fenced_get(w->mutex, p->stock, &data, &len, &version);
  if (rc != ZKC_OK) return rc;
  long stock = len < 32 ? parse_stock(data, (int)len) : -1;
  free(data);
  if (stock < 0) return ZKC_EPROTO;
  if (stock == 0) return ZKC_OK;
  sleep_ms(o->delay_ms);
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%ld", stock - 1);
  rc = zkc_mutex_fenced_cas(w->mutex, p->stock, buf, (size_t)n, version, NULL);
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
                      : sell_unlocked(w, o, p, &sold, &interleaved);
    if (w->mutex) {
      int rrc = zkc_mutex_release(w->mutex);
      if (rc == ZOK) rc = rrc;
    }
    if (rc != ZOK) return rc;
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
      fprintf(stderr, "oversell: worker %d: %s\n", index, describe(r.rc));
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
              describe(r.rc));
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

  zhandle_t *zh = NULL;
  int rc = zk_open(o->connect, &zh);
  char value[32];
  int len = snprintf(value, sizeof value, "%ld", o->stock);
  if (rc == ZKC_OK) rc = zoo_set(zh, p->stock, value, len, -1);
  if (rc != ZOK) fprintf(stderr, "oversell: cannot fill the stock %s: %s\n",
                         p->stock, describe(rc));

  if (rc == ZOK && crew_wait_ready(&crew) == 0 && crew_go(&crew) == 0) {
    double start = now_s();
    crew_collect(&crew, t);
    t->elapsed_s = now_s() - start;
    int version;
    int rrc = read_stock(zh, p->stock, &t->final_stock, &version);
    if (rrc != ZOK) {
      fprintf(stderr, "oversell: cannot read the final stock: %s\n",
              describe(rrc));
      t->errors++;
    }
  } else {
    t->errors++;
  }

  t->errors += crew_finish(&crew);
  if (zh) zookeeper_close(zh);
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
  printf("  interleaved   %ld writes %s after another worker's write\n",
         t->interleaved, locked ? "refused (compare-and-set)" : "landed");
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

/* Checks the ensemble and creates the stock node with its missing
 * ancestors. The node stays until cleanup, which keeps its parents from
 * being removed by a concurrent run's cleanup meanwhile. The session is
 * closed again before any worker is forked. */
static int prepare(const options_t *o, const paths_t *p) {
  zhandle_t *zh;
  int rc = zk_open(o->connect, &zh);
  if (rc != ZKC_OK) {
    fprintf(stderr,
            "oversell: cannot reach the ZooKeeper ensemble at %s: %s\n"
            "  (is it running? pass --connect or set ZKCOORD_CONNECT)\n",
            o->connect, describe(rc));
    return -1;
  }
  rc = create_ancestors(zh, p->stock);
  if (rc == ZOK)
    rc = zoo_create(zh, p->stock, "0", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  if (rc != ZOK) {
    fprintf(stderr, "oversell: cannot create %s: %s\n", p->stock,
            describe(rc));
    delete_ancestors(zh, p->stock);
  }
  zookeeper_close(zh);
  return rc == ZOK ? 0 : -1;
}

/* Removes what the run created: the lock's parent node (zkcoord made it in
 * phase 2), the stock node and the demo's parents once they are empty. */
static int cleanup(const options_t *o, const paths_t *p) {
  zhandle_t *zh;
  int rc = zk_open(o->connect, &zh);
  if (rc != ZKC_OK) {
    fprintf(stderr, "oversell: cannot clean up %s: %s\n", p->stock,
            describe(rc));
    return -1;
  }
  delete_node(zh, p->lock);
  delete_node(zh, p->stock);
  delete_ancestors(zh, p->stock);
  zookeeper_close(zh);
  return 0;
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

  if (cleanup(&o, &p) != 0) failed = 1;
  printf("\n%s\n", failed ? "FAIL" : "PASS");
  return failed ? 1 : 0;
}
