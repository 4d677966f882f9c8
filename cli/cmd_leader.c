/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord leader: run COMMAND only while this instance leads the election
 * on PATH; stop it when leadership is lost and join the election again.
 * With --observe, take no part: print the leader's id at every change,
 * and "(no leader)" when nobody leads. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void on_leader(void *ctx, zkc_latch_t *l) {
  (void)ctx, (void)l;
  zkcli_event_post(ZKCLI_EV_LEADER);
}

static void on_not_leader(void *ctx, zkc_latch_t *l) {
  (void)ctx, (void)l;
  zkcli_event_post(ZKCLI_EV_NOTLEADER);
}

static void on_error(void *ctx, zkc_latch_t *l, int rc) {
  (void)ctx, (void)l, (void)rc; /* zkc_latch_error keeps rc */
  zkcli_event_post(ZKCLI_EV_FAILED);
}

/* Starts COMMAND if this latch leads now. Returns 0 or an exit code. */
static int lead(const zkcli_opts_t *o, zkc_latch_t *l, zkcli_child_t *ch) {
  zkcli_env_t env[2] = {{.name = "ZKCOORD_FENCING_TOKEN"},
                        {.name = "ZKCOORD_NODE"}};
  int64_t token;
  if (zkc_hold_fencing_token(zkc_latch_hold(l), &token) != ZKC_OK)
    return 0; /* lost again */
  zkcli_hold_describe(zkc_latch_hold(l), &token, env[1].value,
                      sizeof env[1].value);
  snprintf(env[0].value, sizeof env[0].value, "%" PRId64, token);
  zkcli_info(o, 1, "leader of %s as '%s': node %s, token %s", o->path,
             zkc_latch_id(l), env[1].value, env[0].value);
  return zkcli_child_start(ch, o, env, 2);
}

static int run(const zkcli_opts_t *o, zkc_latch_t *l) {
  zkcli_child_t ch = {0};
  for (;;) {
    int ev = zkcli_event_wait(-1);
    if (ev == ZKCLI_EV_LEADER && ch.pid == 0 && zkc_latch_has_leadership(l)) {
      int code = lead(o, l, &ch);
      if (code != 0) return code;
    } else if (ev == ZKCLI_EV_NOTLEADER && ch.pid != 0) {
      zkcli_err("leadership of %s lost: stopping COMMAND, rejoining", o->path);
      int sig = zkcli_child_stop(&ch, SIGTERM, o->grace_ms);
      if (sig) return ZKCLI_EXIT_SIGNAL_BASE + sig;
      /* The latch may lead again before COMMAND is gone: the wait for its
       * exit reads that event and drops it, so ask the latch itself. */
      if (zkc_latch_has_leadership(l)) {
        int code = lead(o, l, &ch);
        if (code != 0) return code;
      }
    } else if (ev == ZKCLI_EV_FAILED) {
      /* A refusal that waiting cannot cure (ACL, credentials, chroot). */
      int rc = zkc_latch_error(l);
      zkcli_err("cannot take part in the election on %s: %s", o->path,
                zkc_strerror(rc));
      if (ch.pid) zkcli_child_stop(&ch, SIGTERM, o->grace_ms);
      return zkcli_exit_code(rc);
    } else if (ev == SIGCONT) {
      zkcli_child_resume(&ch);
    } else if (ev == SIGCHLD && zkcli_child_reap(&ch)) {
      zkcli_info(o, 1, "COMMAND exited: leaving the election");
      return zkcli_child_exit_code(&ch);
    } else if (zkcli_is_stop_signal(ev)) {
      if (ch.pid) zkcli_child_stop(&ch, ev, o->grace_ms);
      return ZKCLI_EXIT_SIGNAL_BASE + ev;
    }
  }
}

/* leader --observe: the library's observer on PATH (no node, no polling):
 * a line with the leader's id (its node's data) for the leader as it
 * starts and for each new leader, as `etcdctl elect -l` prints each new
 * leader's proposal, and the line "(no leader)" when nobody leads (no
 * contender, or no PATH), so that a monitor tells "no leader" from "no
 * change". Ends with a stop signal, exit 0. */
int zkcli_observe(const zkcli_opts_t *o) {
  int lock = o->cmd == ZKCLI_LOCK; /* lock --observe: its holder */
  zkc_client_t *c;
  int code = zkcli_start(o, NULL, &c);
  if (code != 0) return code;
  zkcli_events_exit_on_stop(ZKCLI_STOP_EXIT_0);
  zkc_observer_t *obs = NULL;
  int rc = zkc_observer_create(&obs, c, o->path,
                               lock ? ZKC_OBSERVE_LOCK : ZKC_OBSERVE_ELECTION);
  if (rc == ZKC_OK) rc = zkc_observer_start(obs);
  if (rc == ZKC_EINVAL) {
    zkcli_bad_path(lock ? "lock path" : "election path", o->path);
    code = ZKCLI_EXIT_BADPATH;
  }
  while (rc == ZKC_OK) {
    zkc_observation_t *ev;
    if ((rc = zkc_observer_next(obs, -1, &ev)) != ZKC_OK) break;
    if (!ev->has_leader) fputs(lock ? "(no holder)" : "(no leader)", stdout);
    else if (ev->id_denied) fputs("(unreadable: ACL)", stdout);
    else fwrite(ev->id, 1, ev->id_len, stdout);
    putchar('\n');
    if (ev->has_leader)
      zkcli_info(o, 1, "%s: %s by node %s, token %" PRId64, o->path,
                 lock ? "held" : "led", ev->node, ev->token);
    else
      zkcli_info(o, 1, "%s: nobody %s", o->path, lock ? "holds it" : "leads");
    zkc_observation_free(ev);
    if ((code = zkcli_flush_stdout()) != 0) break;
  }
  if (rc != ZKC_OK && code == 0) {
    zkcli_err("cannot observe %s: %s", o->path, zkc_strerror(rc));
    code = zkcli_exit_code(rc);
  }
  zkc_observer_destroy(obs);
  zkc_client_close(c);
  return code;
}

int zkcli_cmd_leader(const zkcli_opts_t *o) {
  if (o->observe) return zkcli_observe(o);
  zkc_client_t *c;
  int code = zkcli_start(o, NULL, &c);
  if (code != 0) return code;
  int rc = zkcli_check_layout(o, c, NULL);
  if (rc != ZKC_OK) {
    if (rc == ZKC_EINVAL) zkcli_bad_path("election path", o->path);
    else if (rc < 0) zkcli_err("cannot read %s: %s", o->path, zkc_strerror(rc));
    zkc_client_close(c);
    return rc == ZKC_EINVAL ? ZKCLI_EXIT_BADPATH
           : rc < 0         ? zkcli_exit_code(rc)
                            : rc;
  }
  zkc_latch_opts_t lo;
  zkc_latch_opts_init(&lo);
  lo.is_leader = on_leader;
  lo.not_leader = on_not_leader;
  lo.on_error = on_error;
  zkc_latch_t *l = NULL;
  rc = zkc_latch_create(&l, c, o->path, o->id, &lo);
  if (rc == ZKC_EINVAL) {
    zkcli_bad_path("election path", o->path);
    code = ZKCLI_EXIT_BADPATH;
  } else if (rc == ZKC_OK && (rc = zkc_latch_start(l)) == ZKC_OK) {
    zkcli_info(o, 1, "joined the election on %s as '%s'", o->path,
               zkc_latch_id(l));
    code = run(o, l);
  }
  if (rc != ZKC_OK && code == 0) {
    zkcli_err("cannot join the election on %s: %s", o->path, zkc_strerror(rc));
    code = zkcli_exit_code(rc);
  }
  zkc_latch_destroy(l); /* leadership given up: counted */
  zkcli_write_metrics(o, c);
  zkc_client_close(c);
  return code;
}
