/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord command line: options, usage, messages. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEFAULT_CONNECT "127.0.0.1:2181"
/* The least time -n and a short -w give the connection: a reachable
 * ensemble answers well within it. */
#define MIN_CONNECT_MS 1000

static const char usage_text[] =
    "usage: zkcoord [OPTIONS] lock [-s | -x | --write] [--revocable] [-w SECONDS | -n] [-E CODE] PATH [[--] COMMAND [ARGS...]]\n"
    "       zkcoord [OPTIONS] sem -m N [-w SECONDS | -n] [-E CODE] PATH [[--] COMMAND [ARGS...]]\n"
    "       zkcoord [OPTIONS] sem --count-path COUNT [-m SEED] ... PATH [[--] COMMAND [ARGS...]]\n"
    "       zkcoord [OPTIONS] leader [--id ID] PATH [--] COMMAND [ARGS...]\n"
    "       zkcoord [OPTIONS] leader --observe PATH\n"
    "       zkcoord [OPTIONS] lock --observe PATH\n"
    "       zkcoord [OPTIONS] status [--json] [--watch] [-m N | --count-path COUNT] PATH\n"
    "       zkcoord [OPTIONS] status --prometheus [-m N | --count-path COUNT] PATH...\n"
    "       zkcoord [OPTIONS] revoke [-w SECONDS | -n] PATH\n"
    "       zkcoord help [COMMAND]\n"
    "\n"
    "  lock     run COMMAND while holding the distributed lock on PATH; with\n"
    "           -s the read side of a read-write lock (Curator's\n"
    "           InterProcessReadWriteLock), shared with other readers;\n"
    "           without it, on a path a read-write lock uses, the write side;\n"
    "           without COMMAND, hold it until signalled (the node and the\n"
    "           fencing token printed on stdout)\n"
    "  sem      the same with one of N leases on PATH (Curator's\n"
    "           InterProcessSemaphoreV2 layout)\n"
    "  leader   run COMMAND only while this instance is the elected leader;\n"
    "           with --observe print the leader's id at every change\n"
    "           (\"(no leader)\" when nobody leads)\n"
    "  status   list the contenders of PATH in queue order, holder first;\n"
    "           with --prometheus, count those of each PATH as metrics\n"
    "  revoke   ask the holder(s) of the lock on PATH to let go (Curator's\n"
    "           revocation; only holds made revocable act on it, such as\n"
    "           lock --revocable) and wait for them to do so\n"
    "\n"
    "Options (before or after the command name; for status and revoke also\n"
    "after PATH):\n"
    "  -c, --connect HOSTS         ensemble, \"host:port,...[/chroot]\" (default\n"
    "                              $ZKCOORD_CONNECT, else " DEFAULT_CONNECT ")\n"
    "      --session-timeout SECS  requested session timeout (default 10)\n"
    "      --connect-timeout SECS  wait for the first connection (default 15)\n"
    "      --digest USER:PASSWORD  digest credentials for every session\n"
    "                              (default $ZKCOORD_DIGEST)\n"
    "      --acl open|secure       ACL of created nodes (default open; secure\n"
    "                              needs --digest)\n"
    "      --parents persistent|container\n"
    "                              missing parents of PATH are created as\n"
    "                              persistent nodes (default) or as containers,\n"
    "                              which the server removes once empty\n"
    "      --lost-on-suspend       a dropped connection already counts as lost\n"
    "      --id ID                 holder / participant id stored in the node\n"
    "                              (default host:pid)\n"
    "  -w, --wait SECS             lock, sem: give up after SECS, the connection\n"
    "      --timeout SECS          included (default: wait forever; --timeout is\n"
    "                              flock's spelling); revoke: wait SECS for the\n"
    "                              holders to let go (default 15)\n"
    "  -n, --nonblock              lock, sem: give up at once when none is free\n"
    "                              (the connection gets 1 s); revoke: ask, do\n"
    "                              not wait\n"
    "  -E, --conflict-exit-code N  lock, sem: exit code when not obtained\n"
    "                              (default 1)\n"
    "  -s, --shared                lock: take the read side of the read-write\n"
    "                              lock on PATH (shared with other readers)\n"
    "  -x, --exclusive             lock: the exclusive lock, the default (the\n"
    "                              mutex, or the write side on a read-write\n"
    "                              path); flock's spelling\n"
    "      --write                 lock: take the write side even when PATH\n"
    "                              has no read-write contender yet\n"
    "      --revocable             lock: a revoke request stops COMMAND as a\n"
    "                              stop signal does (SIGTERM, then SIGKILL after\n"
    "                              --grace) and releases; exit with COMMAND's\n"
    "                              status (without COMMAND: release, exit 0)\n"
    "  -m, --max N                 sem: at most N holders (with --count-path:\n"
    "                              the count node's value if it is created);\n"
    "                              status: the limit to judge leases by\n"
    "      --count-path COUNT      sem: read the limit from the shared count\n"
    "                              node COUNT (Curator SharedCount, 4 bytes);\n"
    "                              status: the limit to judge leases by\n"
    "      --grace SECS            SIGTERM to SIGKILL delay when COMMAND must\n"
    "                              stop (default 10)\n"
    "      --foreground            keep COMMAND in zkcoord's process group\n"
    "      --metrics FILE          lock, sem, leader: at the end, write the wait\n"
    "                              and hold times and the counts as Prometheus\n"
    "                              text to FILE (renamed into place)\n"
    "      --json                  status: one JSON object (a line each time\n"
    "                              with --watch)\n"
    "      --watch                 status: print again at every change until\n"
    "                              signalled\n"
    "      --prometheus            status: gauges of each PATH (several may be\n"
    "                              given) in Prometheus text format, for\n"
    "                              node_exporter's textfile collector\n"
    "  -l, --observe               leader: take no part, print the leader's\n"
    "                              id now and at every change, \"(no leader)\"\n"
    "                              when nobody leads, until signalled (-l is\n"
    "                              etcdctl elect's spelling); lock: the same\n"
    "                              for the holder, \"(no holder)\"\n"
    "      --interval SECS         status --watch: read PATH every SECS\n"
    "                              (default 1); leader --observe reads on\n"
    "                              change only\n"
    "  -v, --verbose               -v: the session's states and the lock's\n"
    "                              steps on stderr; -vv: also the library's\n"
    "                              and the ZooKeeper client's detail\n"
    "  -h, --help                  this help; after a command, its own (as\n"
    "                              zkcoord help COMMAND)\n"
    "  -V, --version               print the version\n"
    "\n"
    "COMMAND sees ZKCOORD_FENCING_TOKEN (the lock node's czxid) and\n"
    "ZKCOORD_NODE. Exit status: COMMAND's; -E code when the lock was not\n"
    "obtained (revoke: 1 when nobody holds it, 2 when a holder did not\n"
    "let go); 0 when a command without COMMAND ends on a signal; 64\n"
    "usage, 65 invalid path or a path of\n"
    "another recipe, 69 ensemble unreachable, 70 internal error, 74 cannot\n"
    "write to stdout, 75 lock or\n"
    "leadership lost while COMMAND ran, 77 permission denied, 126/127\n"
    "COMMAND not executable/not found, 128+N zkcoord stopped by signal N.\n"
    "See zkcoord(1).\n";

static int option_allowed(zkcli_cmd_t cmd, int c);
static const struct option long_opts[];

static const char *const cmd_names[] = {NULL, "lock", "leader", "status",
                                        "sem", "revoke"};

/* 1 when the usage line or command entry `line` (len bytes) is about
 * `name`: "zkcoord [OPTIONS] <name> ..." or "  <name>   ...". */
static int line_names(const char *line, size_t len, const char *name) {
  const char *opts = "zkcoord [OPTIONS] ";
  const char *at = memmem(line, len, opts, strlen(opts));
  size_t n = strlen(name);
  if (at != NULL) {
    at += strlen(opts);
  } else {
    at = line;
    while (at < line + len && *at == ' ') at++;
    if (at - line != 2) return 0;
  }
  return (size_t)(line + len - at) >= n && strncmp(at, name, n) == 0 &&
         (at + n == line + len || at[n] == ' ');
}

/* The option an entry line of the Options block starts with ("  -c,
 * --connect", "      --grace"): its getopt value, 0 when the line
 * continues an entry, -1 when it names no option of the table. */
static int entry_option(const char *line, size_t len) {
  size_t i = 0;
  while (i < len && line[i] == ' ') i++;
  if (i > 6 || i == len || line[i] != '-') return 0;
  const char *lng = memmem(line, len, "--", 2);
  if (lng == NULL) return -1;
  lng += 2;
  size_t n = 0;
  while (lng + n < line + len && (lng[n] == '-' || (lng[n] >= 'a' && lng[n] <= 'z')))
    n++;
  for (const struct option *o = long_opts; o->name; o++)
    if (strlen(o->name) == n && strncmp(o->name, lng, n) == 0) return o->val;
  return -1;
}

/* `zkcoord CMD --help`: the usage text about CMD alone: its usage lines,
 * its entry among the commands, and the options it takes (those
 * option_allowed lets through, as the parser does). */
static void command_help(zkcli_cmd_t cmd) {
  const char *name = cmd_names[cmd];
  int block = 0, keep = 0, usage_lines = 0;
  for (const char *l = usage_text; *l;) {
    const char *nl = strchr(l, '\n');
    size_t len = (size_t)(nl - l);
    if (len == 0) {
      block++;
      putchar('\n');
    } else if (block == 0) {
      /* "usage: " on the first line shown, its indent on the others. */
      if (line_names(l, len, name))
        printf("%s%.*s\n", usage_lines++ ? "       " : "usage: ",
               (int)len - 7, l + 7);
    } else if (block == 1) {
      if (l[0] == ' ' && l[1] == ' ' && l[2] != ' ')
        keep = line_names(l, len, name);
      if (keep) printf("%.*s\n", (int)len, l);
    } else if (block == 2) {
      int c = entry_option(l, len);
      if (c != 0) keep = c < 0 || option_allowed(cmd, c);
      if (strncmp(l, "Options", 7) == 0) keep = 1;
      if (keep) printf("%.*s\n", (int)len, l);
    } else {
      printf("%.*s\n", (int)len, l);
    }
    l = nl + 1;
  }
}

/* The synopsis (the usage lines) on stderr, when zkcoord is run without
 * arguments. Every other usage error is one line. */
static void brief_usage(void) {
  const char *end = strstr(usage_text, "\n\n");
  fprintf(stderr, "%.*s\nTry 'zkcoord --help'.\n", (int)(end - usage_text),
          usage_text);
}

static void report(const char *fmt, va_list ap) {
  char line[2048];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(stderr, "zkcoord: %s\n", line);
}

void zkcli_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(fmt, ap);
  va_end(ap);
}

void zkcli_info(const zkcli_opts_t *o, int level, const char *fmt, ...) {
  if (o->verbose < level) return;
  va_list ap;
  va_start(ap, fmt);
  report(fmt, ap);
  va_end(ap);
}

int zkcli_flush_stdout(void) {
  static int told; /* main checks again at the end: one line is enough */
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
  if (!told++) {
    /* errno is the flush's; an earlier write that failed left only the
     * stream's error flag behind. */
    if (errno) zkcli_err("write error: %s", strerror(errno));
    else zkcli_err("write error");
  }
  return ZKCLI_EXIT_IOERR;
}

/* Seconds with an optional fraction, 0 .. 1e6, into milliseconds. */
static int parse_seconds(const char *opt, const char *s, int64_t *ms) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e6) {
    zkcli_err("%s: '%s' is not a number of seconds", opt, s);
    return 0;
  }
  *ms = (int64_t)llround(v * 1000.0);
  return 1;
}

static int parse_code(const char *s, int *code) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 0 || v > 255) {
    zkcli_err("-E: '%s' is not an exit code (0..255)", s);
    return 0;
  }
  *code = (int)v;
  return 1;
}

enum {
  OPT_SESSION = 256,
  OPT_CONNECT_TIMEOUT,
  OPT_DIGEST,
  OPT_ACL,
  OPT_PARENTS,
  OPT_LOST_ON_SUSPEND,
  OPT_ID,
  OPT_GRACE,
  OPT_FOREGROUND,
  OPT_JSON,
  OPT_WATCH,
  OPT_INTERVAL,
  OPT_COUNT_PATH,
  OPT_WRITE,
  OPT_REVOCABLE,
  OPT_METRICS,
  OPT_PROMETHEUS
};

static const struct option long_opts[] = {
    {"connect", required_argument, NULL, 'c'},
    {"session-timeout", required_argument, NULL, OPT_SESSION},
    {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
    {"digest", required_argument, NULL, OPT_DIGEST},
    {"acl", required_argument, NULL, OPT_ACL},
    {"parents", required_argument, NULL, OPT_PARENTS},
    {"lost-on-suspend", no_argument, NULL, OPT_LOST_ON_SUSPEND},
    {"id", required_argument, NULL, OPT_ID},
    {"wait", required_argument, NULL, 'w'},
    {"timeout", required_argument, NULL, 'w'}, /* flock's spelling */
    {"nonblock", no_argument, NULL, 'n'},
    {"conflict-exit-code", required_argument, NULL, 'E'},
    {"shared", no_argument, NULL, 's'},
    {"exclusive", no_argument, NULL, 'x'},
    {"write", no_argument, NULL, OPT_WRITE},
    {"revocable", no_argument, NULL, OPT_REVOCABLE},
    {"grace", required_argument, NULL, OPT_GRACE},
    {"foreground", no_argument, NULL, OPT_FOREGROUND},
    {"json", no_argument, NULL, OPT_JSON},
    {"watch", no_argument, NULL, OPT_WATCH},
    {"prometheus", no_argument, NULL, OPT_PROMETHEUS},
    {"observe", no_argument, NULL, 'l'},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"max", required_argument, NULL, 'm'},
    {"count-path", required_argument, NULL, OPT_COUNT_PATH},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};

/* Which options each command takes beyond the common ones. */
static int option_allowed(zkcli_cmd_t cmd, int c) {
  switch (c) {
    case 'w': case 'n':
      return cmd == ZKCLI_LOCK || cmd == ZKCLI_SEM || cmd == ZKCLI_REVOKE;
    case 'E':
      return cmd == ZKCLI_LOCK || cmd == ZKCLI_SEM;
    case 'm': case OPT_COUNT_PATH:
      return cmd == ZKCLI_SEM || cmd == ZKCLI_STATUS;
    case 's': case 'x': case OPT_WRITE: case OPT_REVOCABLE:
      return cmd == ZKCLI_LOCK;
    case OPT_GRACE: case OPT_FOREGROUND: case OPT_ID: case OPT_LOST_ON_SUSPEND:
    case OPT_METRICS:
      return cmd == ZKCLI_LOCK || cmd == ZKCLI_LEADER || cmd == ZKCLI_SEM;
    case OPT_JSON: case OPT_WATCH: case OPT_PROMETHEUS:
      return cmd == ZKCLI_STATUS;
    case 'l':
      return cmd == ZKCLI_LEADER || cmd == ZKCLI_LOCK;
    case OPT_INTERVAL:
      return cmd == ZKCLI_STATUS || cmd == ZKCLI_LEADER;
    default:
      return 1;
  }
}

/* Returns -1 to go on, or an exit code. `seen_wait` tracks -n/-w. */
static int apply(zkcli_opts_t *o, int c, const char *arg, const char *name,
                 int *seen_wait) {
  int64_t ms;
  if (o->cmd && !option_allowed(o->cmd, c)) {
    zkcli_err("option %s does not apply to this command", name);
    return ZKCLI_EXIT_USAGE;
  }
  switch (c) {
    case 'c': o->connect = arg; o->connect_from_env = 0; break;
    case OPT_SESSION:
    case OPT_CONNECT_TIMEOUT:
    case OPT_GRACE:
    case OPT_INTERVAL:
      if (!parse_seconds(name, arg, &ms)) return ZKCLI_EXIT_USAGE;
      if (c == OPT_GRACE) {
        o->grace_ms = ms;
      } else if (ms < 1 || ms > 3600 * 1000) {
        zkcli_err("%s: must be between 0.001 and 3600 seconds", name);
        return ZKCLI_EXIT_USAGE;
      } else if (c == OPT_SESSION) {
        o->session_timeout_ms = (int)ms;
        o->session_timeout_given = 1;
      } else if (c == OPT_INTERVAL) {
        o->interval_ms = ms;
      } else {
        o->connect_timeout_ms = (int)ms;
        o->connect_timeout_given = 1;
      }
      break;
    case OPT_DIGEST: o->digest = arg; o->digest_from_env = 0; break;
    case OPT_ACL:
      if (strcmp(arg, "open") == 0) {
        o->secure_acl = 0;
      } else if (strcmp(arg, "secure") == 0) {
        o->secure_acl = 1;
      } else {
        zkcli_err("--acl: expected 'open' or 'secure', got '%s'", arg);
        return ZKCLI_EXIT_USAGE;
      }
      break;
    case OPT_PARENTS:
      if (strcmp(arg, "persistent") == 0) {
        o->container_parents = 0;
      } else if (strcmp(arg, "container") == 0) {
        o->container_parents = 1;
      } else {
        zkcli_err("--parents: expected 'persistent' or 'container', got '%s'",
                  arg);
        return ZKCLI_EXIT_USAGE;
      }
      break;
    case OPT_LOST_ON_SUSPEND: o->lost_on_suspended = 1; break;
    case OPT_ID: o->id = arg; break;
    case 'w':
      if (!parse_seconds(name, arg, &ms)) return ZKCLI_EXIT_USAGE;
      if (*seen_wait) goto both;
      *seen_wait = 1;
      o->wait_ms = ms;
      break;
    case 'n':
      if (*seen_wait) goto both;
      *seen_wait = 1;
      o->wait_ms = 0;
      break;
    case 'E':
      if (!parse_code(arg, &o->conflict_code)) return ZKCLI_EXIT_USAGE;
      break;
    case 'm': {
      char *end;
      errno = 0;
      long v = strtol(arg, &end, 10);
      if (errno || end == arg || *end || v < 1 || v > 1000000) {
        zkcli_err("%s: '%s' is not a number of leases (1..1000000)", name, arg);
        return ZKCLI_EXIT_USAGE;
      }
      o->max_leases = (int)v;
      break;
    }
    case OPT_COUNT_PATH: o->count_path = arg; break;
    case OPT_METRICS: o->metrics_file = arg; break;
    case 's': o->shared = 1; break;
    case 'x': o->exclusive = 1; break;
    case OPT_WRITE: o->write_side = 1; break;
    case OPT_REVOCABLE: o->revocable = 1; break;
    case OPT_FOREGROUND: o->foreground = 1; break;
    case OPT_JSON: o->json = 1; break;
    case OPT_WATCH: o->watch = 1; break;
    case OPT_PROMETHEUS: o->prometheus = 1; break;
    case 'l': o->observe = 1; break;
    case 'v': o->verbose++; break;
    case 'h':
      if (o->cmd) command_help(o->cmd); /* zkcoord CMD --help */
      else fputs(usage_text, stdout);
      return 0;
    case 'V':
      printf("zkcoord %s (library %s)\n", ZKC_VERSION_STRING,
             zkc_version_string());
      return 0;
    default: /* reported by parse_run */
      return ZKCLI_EXIT_USAGE;
  }
  return -1;
both:
  zkcli_err("-w and -n exclude each other (give one of them once)");
  return ZKCLI_EXIT_USAGE;
}

static const char *option_name(int c, int long_index) {
  static char buf[4];
  if (long_index >= 0) {
    static char lbuf[64];
    snprintf(lbuf, sizeof lbuf, "--%s", long_opts[long_index].name);
    return lbuf;
  }
  snprintf(buf, sizeof buf, "-%c", c);
  return buf;
}

/* Parses options from argv[1..] until the first operand; returns -1 to go
 * on with *next the operand's index (*dashes 1 when "--" ended the
 * options, and getopt stepped over it), or an exit code. An unknown option
 * or a missing argument is one line on stderr (getopt's own messages are
 * off). */
static int parse_run(int argc, char **argv, zkcli_opts_t *o, int *seen_wait,
                     int *next, int *dashes) {
  optind = 0; /* full re-initialisation (glibc) */
  opterr = 0;
  for (;;) {
    int long_index = -1;
    int at = optind ? optind : 1; /* the word getopt looks at next */
    /* '+': stop at the first operand, so COMMAND's options stay its own;
     * ':': a missing argument is told apart from an unknown option. */
    int c = getopt_long(argc, argv, "+:c:w:nE:m:sxlvhV", long_opts,
                        &long_index);
    if (c == -1) {
      /* Not a "--" that was an option's value (-c --). */
      *dashes = optind == at + 1 && strcmp(argv[at], "--") == 0;
      break;
    }
    if (c == '?' || c == ':') {
      char opt[64];
      const char *a = argv[optind - 1];
      if (strncmp(a, "--", 2) == 0 || optopt == 0 || optopt >= 256)
        snprintf(opt, sizeof opt, "%.*s", (int)strcspn(a, "="), a);
      else
        snprintf(opt, sizeof opt, "-%c", optopt);
      if (c == '?')
        zkcli_err("unknown option '%s' (zkcoord --help lists them)", opt);
      else
        zkcli_err("option '%s' needs a value", opt);
      return ZKCLI_EXIT_USAGE;
    }
    int r = apply(o, c, optarg, option_name(c, long_index), seen_wait);
    if (r >= 0) return r;
  }
  *next = optind;
  return -1;
}

/* The words after the first PATH of a command without COMMAND: options
 * (`status PATH --json`) and further paths (status --prometheus), in any
 * order; after "--" (options_end: one came before PATH) only paths. Each
 * operand plays argv[0] of the options after it. The paths are gathered
 * into o->paths, behind the first, in slots of sub already read. Returns
 * -1 to go on, or an exit code. */
static int parse_after_paths(char **sub, int sub_argc, int at, zkcli_opts_t *o,
                             int *seen_wait, int options_end) {
  for (;;) {
    int rest = 1;
    if (!options_end) {
      int r = parse_run(sub_argc - at, sub + at, o, seen_wait, &rest,
                        &options_end);
      if (r >= 0) return r;
    }
    at += rest;
    if (at >= sub_argc) return -1;
    o->paths[o->npaths++] = sub[at];
  }
}

/* The command called `name`, 0 for none. */
static zkcli_cmd_t command_named(const char *name) {
  for (size_t i = 1; i < sizeof cmd_names / sizeof *cmd_names; i++)
    if (strcmp(name, cmd_names[i]) == 0) return (zkcli_cmd_t)i;
  return 0;
}

static int unknown_command(const char *name) {
  zkcli_err("unknown command '%s' (expected lock, sem, leader, status or "
            "revoke)", name);
  return ZKCLI_EXIT_USAGE;
}

/* `zkcoord help [COMMAND]`, git's spelling of `zkcoord [COMMAND] --help`:
 * words[0] is "help". */
static int help(int n, char **words) {
  if (n > 2) {
    zkcli_err("help takes one COMMAND, got extra '%s'", words[2]);
    return ZKCLI_EXIT_USAGE;
  }
  if (n == 1 || strcmp(words[1], "help") == 0) {
    fputs(usage_text, stdout);
    return 0;
  }
  zkcli_cmd_t cmd = command_named(words[1]);
  if (cmd == 0) return unknown_command(words[1]);
  command_help(cmd);
  return 0;
}

int64_t zkcli_wait_left(const zkcli_opts_t *o) {
  if (o->wait_ms < 0) return -1;
  int64_t left = o->wait_ms - (zkcli_now_ms() - o->started_ms);
  return left > 0 ? left : 0;
}

/* lock, sem and leader run a COMMAND after PATH; status, revoke and
 * leader --observe take more paths or options there instead. */
static int takes_command(const zkcli_opts_t *o) {
  return (o->cmd == ZKCLI_LOCK && !o->observe) || o->cmd == ZKCLI_SEM ||
         (o->cmd == ZKCLI_LEADER && !o->observe);
}

int zkcli_parse(int argc, char **argv, zkcli_opts_t *o) {
  memset(o, 0, sizeof *o);
  o->session_timeout_ms = 10000;
  o->connect_timeout_ms = 15000;
  o->interval_ms = 1000;
  o->wait_ms = -1;
  o->started_ms = zkcli_now_ms();
  o->conflict_code = ZKCLI_EXIT_CONFLICT;
  o->grace_ms = 10000;
  const char *env = getenv("ZKCOORD_CONNECT");
  o->connect_from_env = env && *env;
  o->connect = o->connect_from_env ? env : DEFAULT_CONNECT;
  env = getenv("ZKCOORD_DIGEST");
  if (env && *env) {
    o->digest = env;
    o->digest_from_env = 1;
  }

  int seen_wait = 0, next, dashes;
  if (argc <= 1) {
    brief_usage();
    return ZKCLI_EXIT_USAGE;
  }
  int r = parse_run(argc, argv, o, &seen_wait, &next, &dashes);
  if (r >= 0) return r;
  if (next >= argc) {
    zkcli_err("missing command: lock, sem, leader, status or revoke");
    return ZKCLI_EXIT_USAGE;
  }
  const char *name = argv[next];
  if (strcmp(name, "help") == 0) return help(argc - next, argv + next);
  if ((o->cmd = command_named(name)) == 0) return unknown_command(name);
  /* Options before the command name pass any command; check them now. */
  static const struct {
    int c;
    const char *name;
  } late[] = {{'s', "--shared"}, {'x', "--exclusive"}, {OPT_WRITE, "--write"},
              {OPT_REVOCABLE, "--revocable"}, {OPT_JSON, "--json"},
              {OPT_WATCH, "--watch"}, {OPT_PROMETHEUS, "--prometheus"},
              {'l', "--observe"}, {'m', "--max"},
              {OPT_COUNT_PATH, "--count-path"}, {'w', "-w or -n"},
              {'E', "-E"}, {OPT_METRICS, "--metrics"}};
  const int given[] = {o->shared, o->exclusive, o->write_side, o->revocable,
                       o->json, o->watch, o->prometheus, o->observe,
                       o->max_leases > 0, o->count_path != NULL, seen_wait,
                       o->conflict_code != ZKCLI_EXIT_CONFLICT,
                       o->metrics_file != NULL};
  for (size_t i = 0; i < sizeof late / sizeof *late; i++)
    if (given[i] && !option_allowed(o->cmd, late[i].c)) {
      zkcli_err("option %s does not apply to this command", late[i].name);
      return ZKCLI_EXIT_USAGE;
    }
  /* Options after the command name: argv[next] plays argv[0]. */
  int sub_argc = argc - next;
  char **sub = argv + next;
  int more;
  r = parse_run(sub_argc, sub, o, &seen_wait, &more, &dashes);
  if (r >= 0) return r;
  if (more >= sub_argc || (dashes && takes_command(o))) {
    /* After "--" comes COMMAND, never PATH: `lock -- true` would lock
     * the path "true". */
    zkcli_err("missing PATH%s", more < sub_argc ? " (before '--', which "
              "starts COMMAND)" : "");
    return ZKCLI_EXIT_USAGE;
  }
  o->path = sub[more++];
  o->paths = sub + more - 1;
  o->npaths = 1;
  if (!takes_command(o)) {
    r = parse_after_paths(sub, sub_argc, more - 1, o, &seen_wait, dashes);
    if (r >= 0) return r;
    if (o->npaths > 1 && !(o->cmd == ZKCLI_STATUS && o->prometheus)) {
      zkcli_err("%s takes one PATH, got extra '%s'%s",
                o->cmd == ZKCLI_STATUS ? "status"
                : o->cmd == ZKCLI_REVOKE ? "revoke"
                : o->cmd == ZKCLI_LOCK   ? "lock --observe"
                                         : "leader --observe",
                o->paths[1],
                o->cmd == ZKCLI_STATUS ? " (several need --prometheus)" : "");
      return ZKCLI_EXIT_USAGE;
    }
  }
  if (o->observe && o->metrics_file) { /* an observer holds nothing */
    zkcli_err("--metrics and --observe exclude each other");
    return ZKCLI_EXIT_USAGE;
  }
  if (o->observe && o->cmd == ZKCLI_LOCK &&
      (o->shared || o->exclusive || o->write_side || o->revocable ||
       seen_wait || o->conflict_code != ZKCLI_EXIT_CONFLICT)) {
    zkcli_err("--observe takes no part in the lock: %s does not apply",
              o->shared ? "--shared" : o->exclusive ? "--exclusive"
              : o->write_side ? "--write" : o->revocable ? "--revocable"
              : seen_wait ? "-w or -n" : "-E");
    return ZKCLI_EXIT_USAGE;
  }
  if (o->prometheus && (o->json || o->watch)) {
    zkcli_err("%s and %s exclude each other", "--prometheus",
              o->json ? "--json" : "--watch");
    return ZKCLI_EXIT_USAGE;
  }
  if ((o->shared != 0) + (o->exclusive != 0) > 1 ||
      (o->shared && o->write_side)) {
    zkcli_err("%s and %s exclude each other", "--shared",
              o->exclusive ? "--exclusive" : "--write");
    return ZKCLI_EXIT_USAGE;
  }
  if (o->cmd == ZKCLI_SEM && o->max_leases == 0 && o->count_path == NULL) {
    zkcli_err("sem needs -m N (the number of leases) or --count-path");
    return ZKCLI_EXIT_USAGE;
  }
  if (o->cmd == ZKCLI_STATUS && o->max_leases && o->count_path) {
    zkcli_err("status: give the limit with -m or --count-path, not both");
    return ZKCLI_EXIT_USAGE;
  }
  /* -w bounds the whole wait, the connection included, as flock's does:
   * the connection gets at most the wait (at least MIN_CONNECT_MS, which
   * -n gets), unless --connect-timeout says otherwise. */
  if (o->wait_ms >= 0 && !o->connect_timeout_given)
    o->connect_timeout_ms = (int)(o->wait_ms < MIN_CONNECT_MS ? MIN_CONNECT_MS
                                  : o->wait_ms < o->connect_timeout_ms
                                      ? o->wait_ms
                                      : o->connect_timeout_ms);
  if (!takes_command(o)) return -1;
  dashes = more < sub_argc && strcmp(sub[more], "--") == 0;
  more += dashes;
  if (more < sub_argc) {
    o->argv = sub + more;
  } else if (o->cmd == ZKCLI_LEADER) {
    zkcli_err("missing COMMAND to run (or --observe to watch the election)");
    return ZKCLI_EXIT_USAGE;
  } else if (dashes) {
    /* As flock: a script's empty $CMD must not hold the lock for ever. */
    zkcli_err("missing COMMAND after '--' (without '--', %s holds until "
              "signalled)", cmd_names[o->cmd]);
    return ZKCLI_EXIT_USAGE;
  }
  /* lock and sem without COMMAND hold until signalled. */
  return -1;
}
