/* SPDX-License-Identifier: Apache-2.0 */
/* The ensemble serves before every case, and is brought back after a case
 * that stopped, paused or killed servers: one case's trouble must not fail
 * every case after it. See harness.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* Recovery already under way (an election after a server came back) gets
 * this long before the ensemble is healed: the servers' time, not the
 * client's, so it is not scaled. */
#define RECOVERY_GRACE_MS 20000
/* A healthy ensemble connects and commits a write well within this, under
 * valgrind too. */
#define PROBE_MS 5000

/* Every server in a quorum: one leader, the others its synced followers,
 * from the 4-letter words. Says what is wrong in why. */
static int quorum_whole(char *why, size_t len) {
  int leaders = 0, leader = 0;
  for (int s = 1; s <= 3; s++) {
    char *out = zkt_4lw(s, "srvr");
    const char *mode = out ? strstr(out, "Mode: ") : NULL;
    if (mode == NULL) {
      snprintf(why, len, "zk%d does not serve (%s)", s,
               out && *out ? "no quorum" : "no answer");
      free(out);
      return 0;
    }
    mode += strlen("Mode: ");
    if (strncmp(mode, "leader", 6) == 0) {
      leaders++;
      leader = s;
    } else if (strncmp(mode, "follower", 8) != 0) {
      snprintf(why, len, "zk%d is in mode %.16s", s, mode);
      free(out);
      return 0;
    }
    free(out);
  }
  if (leaders != 1) {
    snprintf(why, len, "%d servers claim to lead", leaders);
    return 0;
  }
  char *out = zkt_4lw(leader, "mntr");
  const char *synced = out ? strstr(out, "zk_synced_followers") : NULL;
  int n = synced ? atoi(synced + strlen("zk_synced_followers")) : -1;
  free(out);
  if (n != 2) {
    snprintf(why, len, "leader zk%d has %d synced followers", leader, n);
    return 0;
  }
  return 1;
}

/* A write's answer. It lives until the probe's session is closed, and
 * closing runs any completion still pending: none comes later. */
typedef struct probe {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done, rc;
} probe_t;

static void probe_done(int rc, const char *value, const void *data) {
  (void)value;
  probe_t *p = (probe_t *)data;
  pthread_mutex_lock(&p->mu);
  p->done = 1;
  p->rc = rc;
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

/* Sends the probe's write on zh and waits up to PROBE_MS for its answer;
 * 1 once answered (p->rc), else 0 with why said. */
static int write_answered(zhandle_t *zh, probe_t *p, char *why, size_t len) {
  if (zoo_acreate(zh, "/zkc-test", "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, probe_done,
                  p) != ZOK) {
    snprintf(why, len, "the write could not be sent");
    return 0;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += PROBE_MS / 1000;
  pthread_mutex_lock(&p->mu);
  while (!p->done)
    if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) != 0) break;
  int done = p->done;
  pthread_mutex_unlock(&p->mu);
  if (!done) snprintf(why, len, "a write was not committed within %d ms", PROBE_MS);
  return done;
}

/* A session of its own, connected within PROBE_MS, or NULL. */
static zhandle_t *probe_session(void) {
  zhandle_t *zh = zookeeper_init2(zkt_connect(), zkt_no_watch, 10000, NULL, NULL,
                                  ZOO_NO_LOG_CLIENTENV, NULL);
  if (zh == NULL) return NULL;
  int64_t end = zkt_now_ms() + PROBE_MS;
  while (zoo_state(zh) != ZOO_CONNECTED_STATE && zkt_now_ms() < end) usleep(5000);
  if (zoo_state(zh) == ZOO_CONNECTED_STATE) return zh;
  zookeeper_close(zh);
  return NULL;
}

/* A write goes through the leader and a quorum: "/zkc-test" (the parent of
 * every test root) created, or found there, within PROBE_MS. The 4-letter
 * words alone can show a quorum that commits nothing. A session of its
 * own, closed before the case: a case may need this process to hold no
 * ZooKeeper socket yet (cli_tests.command_status_token_and_clean_fds
 * counts the ones its COMMAND inherits). */
static int write_commits(char *why, size_t len) {
  zhandle_t *zh = probe_session();
  if (zh == NULL) {
    snprintf(why, len, "no session within %d ms", PROBE_MS);
    return 0;
  }
  probe_t p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  int answered = write_answered(zh, &p, why, len);
  zookeeper_close(zh); /* a completion still pending runs here */
  if (answered && p.rc != ZOK && p.rc != ZNODEEXISTS) {
    snprintf(why, len, "a write failed: %s", zerror(p.rc));
    return 0;
  }
  return answered;
}

static int serving(char *why, size_t len) {
  return quorum_whole(why, len) && write_commits(why, len);
}

/* Appends a line to the suite's record of heals ($ZKT_BUILD/ensemble-heals.log),
 * which tools/bootstrap.sh prints after each tree: a green suite that needed
 * one still says so. */
static void record_heal(const char *before, const char *why, int ok) {
  const char *dir = getenv("ZKT_BUILD");
  if (dir == NULL) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/ensemble-heals.log", dir);
  FILE *f = fopen(path, "a");
  if (f == NULL) return;
  time_t now = time(NULL);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", gmtime(&now));
  fprintf(f, "%s before %s: %s; %s\n", stamp, before, why,
          ok ? "healed" : "NOT healed");
  fclose(f);
}

int zkt_restore_ensemble(void) {
  const char *script = getenv("ZKT_ENSEMBLE");
  if (script == NULL) {
    fprintf(stderr, "zkt: ZKT_ENSEMBLE is not set\n");
    return -1;
  }
  char cmd[1100];
  /* Its account of what it did goes to the case's output. */
  snprintf(cmd, sizeof cmd, "'%s' heal 1>&2", script);
  fflush(NULL);
  int status = system(cmd);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int zkt_ensure_serving(const char *before) {
  char why[256] = "";
  int64_t end = zkt_now_ms() + RECOVERY_GRACE_MS;
  int ok = serving(why, sizeof why);
  while (!ok && zkt_now_ms() < end) {
    usleep(200 * 1000);
    ok = serving(why, sizeof why);
  }
  if (!ok) {
    const char *other = getenv("ZKC_TEST_CONNECT");
    if (other && *other) {
      fprintf(stderr, "zkt: the ensemble at %s does not serve before %s (%s), "
                      "and it is not this suite's to restart\n", other, before, why);
      return -1;
    }
    fprintf(stderr, "zkt: the ensemble does not serve before %s (%s) after "
                    "%d ms: healing it (zk-ensemble.sh heal)\n",
            before, why, RECOVERY_GRACE_MS);
    ok = zkt_restore_ensemble() == 0 && serving(why, sizeof why);
    record_heal(before, why, ok);
    if (!ok) {
      fprintf(stderr, "zkt: the ensemble still does not serve (%s)\n", why);
      return -1;
    }
    fprintf(stderr, "zkt: the ensemble serves again\n");
  }
  return 0;
}
