/* SPDX-License-Identifier: Apache-2.0 */
/* What the leader latch and the leader selector share: the candidate's
 * set-up, thread and queueing, the checks a first node passes before it may
 * lead, leadership's standing on the hold record, the accessors both answer
 * alike, and the reads of the participants. */
#include "candidate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hold_notice.h"
#include "queue.h"
#include "session.h"
#include "util.h"

/* Both recipes set up the same locks, reference and observer, and unwind
 * them the same way when one step fails. */
int zkc__candidate_init(zkc__candidate_t *cand, const char *kind,
                        zkc_recipe_t recipe, zkc_client_t *client,
                        const char *path, const char *id,
                        zkc__observer_fn observer, void *self) {
  cand->kind = kind;
  zkc__hold_view_init(&cand->view, ZKC__HOLD_LEADER, cand);
  cand->st = zkc__stats_for(zkc__client_facts(client).stats, recipe, path);
  cand->path = strdup(path);
  cand->id = strdup(id);
  int ok = cand->path && cand->id;
  int inits = 0;
  if (ok && pthread_mutex_init(&cand->mu, NULL) == 0) inits++;
  if (inits == 1 && pthread_mutex_init(&cand->cb_mu, NULL) == 0) inits++;
  if (inits == 2 && zkc__cond_init(&cand->cv) == ZKC_OK) inits++;
  int rc = inits == 3 ? ZKC_OK : ZKC_ENOMEM;
  /* Everything the observer reads is set before it can run. */
  cand->client = client;
  cand->observer = observer;
  cand->self = self;
  atomic_init(&cand->cancel, 0);
  atomic_init(&cand->thread_id, 0);
  if (rc == ZKC_OK) rc = zkc__recipe_attach(client, observer, self);
  if (rc != ZKC_OK) {
    if (inits >= 3) pthread_cond_destroy(&cand->cv);
    if (inits >= 2) pthread_mutex_destroy(&cand->cb_mu);
    if (inits >= 1) pthread_mutex_destroy(&cand->mu);
    free(cand->path);
    free(cand->id);
  }
  return rc;
}

/* The reverse of init, once for both recipes. */
int zkc__candidate_destroy(zkc__candidate_t *cand) {
  int rc = zkc__recipe_detach(cand->client, cand->observer, cand->self);
  if (rc != ZKC_OK) return rc;
  zkc__hold_notice_forget(cand); /* no notice after destroy */
  pthread_cond_destroy(&cand->cv);
  pthread_mutex_destroy(&cand->mu);
  pthread_mutex_destroy(&cand->cb_mu);
  free(cand->path);
  free(cand->id);
  return ZKC_OK;
}

/* Blocking calls from the candidate's own thread would wait for itself. */
int zkc__candidate_on_thread(const zkc__candidate_t *cand) {
  /* thread_id is set by the thread itself when it starts (0 before). */
  return atomic_load(&cand->thread_id) == zkc__thread_id();
}

static int live_state(zkc_state_t st) {
  return st == ZKC_STATE_CONNECTED || st == ZKC_STATE_RECONNECTED;
}

/* Every state is recorded whether the recipe leads or not: the checks
 * before leading (hold_locked, the latch's doubt) read what came while the
 * node was queued. */
void zkc__candidate_note_state_locked(zkc__candidate_t *cand, zkc_state_t st,
                                      int64_t lost_session) {
  cand->live = live_state(st);
  if (st == ZKC_STATE_LOST) cand->lost_session = lost_session;
  if (st == ZKC_STATE_SUSPENDED || st == ZKC_STATE_READ_ONLY)
    cand->suspend_gen++;
}

/* The thread's body: close cancels the election waits, and the blocking
 * zkcoord calls a leader makes on it, through cand->cancel. */
static void *candidate_main(void *arg) {
  zkc__candidate_t *cand = arg;
  atomic_store(&cand->thread_id, zkc__thread_id());
  zkc__cancel_bind(&cand->cancel);
  while (cand->turn(cand->self)) {
  }
  zkc__cancel_bind(NULL);
  return NULL;
}

/* Start reads the connection state the observer may have missed since
 * init, in the same order for both recipes. */
int zkc__candidate_start(zkc__candidate_t *cand, int (*turn)(void *self)) {
  zkc_state_t st;
  pthread_mutex_lock(&cand->mu);
  /* Read under cand->mu: a state the observer reports after this read is
   * recorded after it, never overwritten by it. */
  zkc_client_state(cand->client, &st);
  if (st == ZKC_STATE_CLOSED) {
    pthread_mutex_unlock(&cand->mu);
    return ZKC_ECLOSED;
  }
  if (cand->state != ZKC__LATENT) {
    pthread_mutex_unlock(&cand->mu);
    return ZKC_EBUSY;
  }
  /* The observer keeps `live` current from here on. */
  cand->live = live_state(st);
  cand->state = ZKC__STARTED;
  cand->queued = 1;
  cand->turn = turn;
  int rc = pthread_create(&cand->thread, NULL, candidate_main, cand) == 0
               ? ZKC_OK
               : ZKC_ESYSTEM;
  if (rc == ZKC_OK) {
    cand->thread_started = 1;
  } else {
    cand->state = ZKC__LATENT;
    cand->queued = 0;
  }
  pthread_mutex_unlock(&cand->mu);
  return rc;
}

/* The first half of every turn: a node is queued only on a live
 * connection, and suspend_gen is read in the same lock as `live`, so that
 * the latch sees every suspension after it. */
int zkc__candidate_queue(zkc__candidate_t *cand, const char *lock_name,
                         zkc__held_t *held, uint64_t *gen0) {
  zkc_client_t *c = cand->client;
  pthread_mutex_lock(&cand->mu);
  while (!atomic_load(&cand->cancel) && !(cand->queued && cand->live))
    pthread_cond_wait(&cand->cv, &cand->mu);
  if (gen0) *gen0 = cand->suspend_gen;
  pthread_mutex_unlock(&cand->mu);
  if (atomic_load(&cand->cancel)) return ZKC_ECLOSED;

  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return ZKC_ECLOSED; /* client closed */
  cand->began_us = zkc__stats_begin(cand->st);
  rc = zkc__lock_acquire_data(c, cand->path, lock_name, cand->id, ZKC__FOREVER,
                              held);
  zkc__call_leave(c);
  if (rc != ZKC_OK) zkc__stats_end(cand->st, cand->began_us, rc, 0);
  return rc; /* ZKC_ECLOSED: the recipe or the client is closing */
}

/* An error that outlasted the retry policy (ZKC_ENOAUTH, ...) would recur
 * at once: pause as the client's backoff policy says (cut short by the
 * thread's cancel, cand->cancel), unless the recipe waits for a new request
 * to queue instead. */
int zkc__candidate_retry_later(zkc__candidate_t *cand, int rc, int pause) {
  if (pause) {
    zkc__background_retry(cand->client, rc, &cand->errors);
  } else {
    pthread_mutex_lock(&cand->mu);
    cand->queued = 0;
    pthread_mutex_unlock(&cand->mu);
  }
  return !atomic_load(&cand->cancel);
}

int zkc__candidate_fail(zkc__candidate_t *cand, int rc) {
  if (zkc__background_retry(cand->client, rc, NULL) == ZKC_OK) return 0;
  pthread_mutex_lock(&cand->mu);
  cand->failed = rc;
  cand->queued = 0;
  pthread_cond_broadcast(&cand->cv);
  pthread_mutex_unlock(&cand->mu);
  zkc__log(cand->client, ZKC_LOG_ERROR, "%s %s: election ended: %s (%s)",
           cand->kind, cand->path, zkc_strerror(rc), zkc_err_name(rc));
  return 1;
}

/* First in the queue with a node of the current session. Trouble that came
 * while we queued may already have taken it away: the observer records
 * every state under cand->mu whether we lead or not, so a change dispatched
 * between the grant and this check is seen here, one after it by the
 * recipe's observer. A node of any session but the current one is not ours
 * to lead with, whichever LOST was reported last. */
int zkc__candidate_hold_locked(zkc__candidate_t *cand, zkc__held_t *held,
                               int doubt, zkc__guard_fn on_gone) {
  zkc_client_t *c = cand->client;
  int bad = atomic_load(&cand->cancel) || doubt ||
            held->session_id == cand->lost_session ||
            held->session_id != zkc__client_facts(c).session_id;
  if (bad) return 0;
  cand->errors = 0;
  cand->held = *held;
  cand->has_node = 1;
  zkc__hold_rec_set(&cand->rec, held->token, held->session_id);
  atomic_store(&cand->rec.in_doubt, 0);
  atomic_store(&cand->rec.lost, 0);
  atomic_store(&cand->rec.told, 0);
  /* Under cand->mu, so that the guard cannot fire before it is recorded. */
  if (zkc__guard_add(c, held->node, held->session_id, on_gone, cand->self,
                     NULL, &cand->guard) != ZKC_OK)
    zkc__log(c, ZKC_LOG_WARN, "out of memory: %s %s unwatched", cand->kind,
             cand->path);
  return 1;
}

void zkc__candidate_count_turn(zkc__candidate_t *cand, const zkc__held_t *held,
                               int lead) {
  int rc = lead ? ZKC_OK : atomic_load(&cand->cancel) ? ZKC_ECLOSED : ZKC_ELOST;
  int64_t at = zkc__stats_end(cand->st, cand->began_us, rc, held->woken_us);
  if (!lead) return;
  pthread_mutex_lock(&cand->mu); /* close reads it after the thread is gone */
  cand->granted_us = at;
  pthread_mutex_unlock(&cand->mu);
}

void zkc__candidate_let_go(zkc__candidate_t *cand, zkc__held_t *held) {
  /* About a round trip: an answering ensemble is waited for, a silent one
   * leaves the delete to the janitor, which finishes it. */
  zkc__lock_release_by(cand->client, held,
                       zkc__limit_after(zkc__deadline_after(0)));
}

/* A node that may not lead is given up at once: the next participant, or
 * this one in a new turn, must not queue behind it. */
int zkc__candidate_decline(zkc__candidate_t *cand, zkc__held_t *held) {
  zkc__candidate_let_go(cand, held);
  return !atomic_load(&cand->cancel);
}

/* Whoever ends leadership (the thread, or close once it is gone) takes the
 * node out under cand->mu, so that only one of them deletes it. */
zkc__held_t zkc__candidate_take_node_locked(zkc__candidate_t *cand,
                                            uint64_t *guard) {
  zkc__held_t held = cand->held;
  *guard = cand->guard;
  cand->guard = 0;
  cand->has_node = 0;
  cand->held.node = NULL;
  return held;
}

/* The hold record names a loss into a list; leadership has one token and
 * the recipe tells its loss itself, so only whether it was named counts. */
static int named(int now, zkc__lost_list_t *l) {
  zkc__lost_clear(l);
  return now;
}

int zkc__candidate_state_locked(zkc__candidate_t *cand, zkc_state_t st,
                                int64_t lost_session, int lost_on_suspended,
                                zkc_lost_reason_t *why) {
  if (!cand->has_node) return 0;
  zkc__lost_list_t l = {0};
  return named(zkc__hold_rec_on_state(&cand->rec, st, lost_session,
                                      lost_on_suspended, &l, why),
               &l);
}

int zkc__candidate_lose_locked(zkc__candidate_t *cand) {
  if (!cand->has_node) return 0;
  zkc__lost_list_t l = {0};
  return named(zkc__hold_rec_lose(&cand->rec, &l), &l);
}

/* ---- the accessors, written once for both recipes ---- */

int zkc__candidate_error(zkc__candidate_t *cand, const char *fn,
                         const char *kind) {
  if (cand == NULL)
    return zkc__refuse(NULL, ZKC_EINVAL, "%s: %s is NULL", fn, kind);
  pthread_mutex_lock(&cand->mu);
  int rc = cand->failed;
  pthread_mutex_unlock(&cand->mu);
  return rc;
}

int zkc__candidate_stats(const zkc__candidate_t *cand, const char *fn,
                         const char *kind, zkc_lock_stats_t *out) {
  if (cand == NULL || out == NULL)
    return zkc__refuse(cand ? cand->client : NULL, ZKC_EINVAL,
                       "%s: %s is NULL", fn, cand ? "out" : kind);
  return zkc__stats_copy(cand->st, out);
}

int zkc__candidate_participants(zkc__candidate_t *cand, const char *fn,
                                const char *kind, zkc__participant_t **out,
                                size_t *count) {
  int rc = zkc__refuse_null(cand ? cand->client : NULL, fn, kind,
                            cand == NULL, "out", out == NULL, "count",
                            count == NULL, (char *)NULL);
  if (rc != ZKC_OK) return rc;
  return zkc__participants_read(cand->client, cand->path, out, count);
}

int zkc__candidate_leader_id(zkc__candidate_t *cand, const char *fn,
                             const char *kind, char **id) {
  int rc = zkc__refuse_null(cand ? cand->client : NULL, fn, kind,
                            cand == NULL, "id", id == NULL, (char *)NULL);
  if (rc != ZKC_OK) return rc;
  return zkc__leader_id_read(cand->client, cand->path, id);
}

void zkc__participants_free(zkc__participant_t *p, size_t count) {
  if (p == NULL) return;
  for (size_t i = 0; i < count; i++) free(p[i].id);
  free(p);
}

/* Lists the nodes and reads every node's data in one round trip. A node
 * that went away between the two is left out; when that was the head, the
 * leader is not known: *retry is set. */
static int read_participants(zkc_client_t *c, const char *path,
                             zkc__participant_t **out, size_t *count,
                             int *retry) {
  char **nodes = NULL;
  size_t n = 0;
  *retry = 0;
  int rc = zkc__lock_participants(c, path, &nodes, &n);
  if (rc != ZKC_OK || n == 0) return rc;
  zkc__call_t *gets = calloc(n, sizeof *gets);
  zkc__participant_t *parts = calloc(n, sizeof *parts);
  size_t found = 0;
  if (gets == NULL || parts == NULL) rc = ZKC_ENOMEM;
  for (size_t i = 0; rc == ZKC_OK && i < n; i++)
    gets[i].rq = (zkc__req_t){.kind = ZKC__REQ_GET, .path = nodes[i]};
  /* One round trip; each answer is looked at on its own. */
  if (rc == ZKC_OK) (void)zkc__call(c, gets, n, NULL);
  for (size_t i = 0; rc == ZKC_OK && i < n; i++) {
    if (gets[i].rc == ZKC_OK) {
      parts[found].id = gets[i].data, gets[i].data = NULL;
      parts[found].is_leader = i == 0;
      found++;
    } else if (gets[i].rc == ZKC_ENONODE) {
      if (i == 0) *retry = 1;
    } else {
      rc = gets[i].rc;
    }
  }
  if (gets) zkc__call_clear(gets, n);
  free(gets);
  zkc__strings_free(nodes, n);
  if (rc != ZKC_OK || found == 0) {
    zkc__participants_free(parts, found);
    return rc;
  }
  *out = parts;
  *count = found;
  return ZKC_OK;
}

int zkc__participants_read(zkc_client_t *c, const char *path,
                           zkc__participant_t **out, size_t *count) {
  *out = NULL;
  *count = 0;
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  int retry = 1;
  /* The head vanished between the list and the read: read again (a few
   * times; then the list is returned without a leader marked). */
  for (int i = 0; rc == ZKC_OK && retry && i < 5; i++) {
    zkc__participants_free(*out, *count);
    *out = NULL;
    *count = 0;
    rc = read_participants(c, path, out, count, &retry);
  }
  zkc__call_leave(c);
  return rc;
}

/* Both recipes answer leader_id from the same participants read. */
int zkc__leader_id_read(zkc_client_t *c, const char *path, char **id) {
  *id = NULL;
  zkc__participant_t *p;
  size_t n;
  int rc = zkc__participants_read(c, path, &p, &n);
  if (rc != ZKC_OK) return rc;
  for (size_t i = 0; i < n && *id == NULL; i++)
    if (p[i].is_leader) *id = p[i].id, p[i].id = NULL;
  zkc__participants_free(p, n);
  return ZKC_OK;
}
