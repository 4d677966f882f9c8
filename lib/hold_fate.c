/* SPDX-License-Identifier: Apache-2.0 */
/* The fate of a hold: the one rule, the list of lost holds and their
 * telling (see hold_fate.h). */
#include "hold_fate.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>

zkc__hold_fate_t zkc__hold_fate_on_state(zkc_state_t st, int64_t lost_session,
                                         int64_t hold_session,
                                         int lost_on_suspended,
                                         zkc_lost_reason_t *why) {
  if (st == ZKC_STATE_SUSPENDED || st == ZKC_STATE_READ_ONLY) {
    if (!lost_on_suspended) return ZKC__HOLD_IN_DOUBT;
    *why = ZKC_LOST_SUSPENDED;
    return ZKC__HOLD_LOST;
  }
  if (st == ZKC_STATE_LOST) {
    if (hold_session != lost_session) return ZKC__HOLD_IN_DOUBT;
    *why = ZKC_LOST_SESSION;
    return ZKC__HOLD_LOST;
  }
  return ZKC__HOLD_STANDS;
}

zkc__hold_fate_t zkc__hold_fate_at_grant(zkc__session_fate_t fate,
                                         int lost_on_suspended) {
  if (fate == ZKC__SESSION_GONE) return ZKC__HOLD_LOST;
  if (fate == ZKC__SESSION_DOUBT)
    return lost_on_suspended ? ZKC__HOLD_LOST : ZKC__HOLD_IN_DOUBT;
  return ZKC__HOLD_STANDS;
}

void zkc__lost_push(zkc__lost_list_t *l, int64_t token) {
  if (!zkc__grow(&l->tokens, &l->cap, l->n, sizeof *l->tokens, 4)) {
    l->dropped = 1;
    return;
  }
  l->tokens[l->n++] = token;
}

void zkc__lost_clear(zkc__lost_list_t *l) {
  free(l->tokens);
  l->tokens = NULL;
  l->n = l->cap = 0;
}

void zkc__lost_tell(zkc_client_t *c, zkc__lstats_t *st, const char *kind,
                    const char *path, zkc_lost_reason_t why,
                    zkc__lost_list_t *l, zkc__lost_tell_fn tell, void *ctx) {
  static const char *const what[] = {
      [ZKC_LOST_SUSPENDED] = "connection suspended",
      [ZKC_LOST_SESSION] = "session lost",
      [ZKC_LOST_DELETED] = "a node of it was deleted by another client"};
  for (size_t i = 0; i < l->n; i++) {
    zkc__log(c, ZKC_LOG_WARN, "%s %s lost (%s), token %lld", kind, path,
             what[why], (long long)l->tokens[i]);
    zkc__stats_lost(st, why);
    if (tell) tell(ctx, why, l->tokens[i]);
  }
  if (l->dropped)
    zkc__log(c, ZKC_LOG_ERROR, "out of memory: not every lost %s of %s was "
             "reported", kind, path);
  zkc__lost_clear(l);
}

int zkc__release_code(zkc__session_fate_t fate) {
  if (fate == ZKC__SESSION_GONE) return ZKC_ELOST;
  return fate == ZKC__SESSION_LIVE ? ZKC_OK : ZKC_ECONNLOSS;
}

void zkc__released_push(zkc__released_list_t *l, int64_t token,
                        int64_t session) {
  if (!zkc__grow(&l->v, &l->cap, l->n, sizeof *l->v, 2)) {
    l->dropped = 1;
    return;
  }
  l->v[l->n++] = (zkc__released_t){token, session};
}

void zkc__released_on_state(zkc__released_list_t *l, zkc_state_t st,
                            int64_t lost_session, int lost_on_suspended,
                            zkc__lost_list_t *lost, zkc_lost_reason_t *why) {
  size_t keep = 0;
  for (size_t i = 0; i < l->n; i++) {
    zkc_lost_reason_t w = *why;
    zkc__hold_fate_t f = zkc__hold_fate_on_state(
        st, lost_session, l->v[i].session, lost_on_suspended, &w);
    if (f == ZKC__HOLD_LOST) {
      zkc__lost_push(lost, l->v[i].token);
      *why = w;
    } else if (f == ZKC__HOLD_IN_DOUBT) {
      l->v[keep++] = l->v[i];
    } /* standing: its session lived on, the release was clean after all */
  }
  l->n = keep;
}

void zkc__released_clear(zkc__released_list_t *l) {
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

void zkc__hold_rec_set(zkc__hold_rec_t *r, int64_t token, int64_t session) {
  r->token = token;
  r->session = session;
}

/* How the session of a hold's node stands: the current one's standing, any
 * other's gone. */
static zkc__session_fate_t fate_of(zkc_client_t *c, int64_t session) {
  zkc__client_facts_t f = zkc__client_facts(c);
  return session != 0 && session == f.session_id ? f.session
                                                 : ZKC__SESSION_GONE;
}

zkc__hold_fate_t zkc__hold_rec_grant(zkc__hold_rec_t *r, zkc_client_t *c,
                                     int64_t token, int64_t session) {
  zkc__hold_fate_t fate = zkc__hold_fate_at_grant(
      fate_of(c, session), zkc__client_facts(c).lost_on_suspended);
  if (fate == ZKC__HOLD_LOST) return fate;
  zkc__hold_rec_set(r, token, session);
  atomic_store(&r->in_doubt, fate == ZKC__HOLD_IN_DOUBT);
  return fate;
}

int zkc__hold_rec_lose(zkc__hold_rec_t *r, zkc__lost_list_t *lost) {
  atomic_store(&r->lost, 1);
  if (lost == NULL || atomic_exchange(&r->told, 1)) return 0;
  zkc__lost_push(lost, r->token);
  return 1;
}

int zkc__hold_rec_on_state(zkc__hold_rec_t *r, zkc_state_t st,
                           int64_t lost_session, int lost_on_suspended,
                           zkc__lost_list_t *lost, zkc_lost_reason_t *why) {
  zkc_lost_reason_t w = *why;
  zkc__hold_fate_t f = zkc__hold_fate_on_state(st, lost_session, r->session,
                                               lost_on_suspended, &w);
  atomic_store(&r->in_doubt, f != ZKC__HOLD_STANDS);
  if (f != ZKC__HOLD_LOST || !zkc__hold_rec_lose(r, lost)) return 0;
  *why = w;
  return 1;
}

int zkc__hold_rec_stands(const zkc__hold_rec_t *r, zkc_client_t *c) {
  return !atomic_load(&r->lost) && !atomic_load(&r->in_doubt) &&
         fate_of(c, r->session) == ZKC__SESSION_LIVE;
}

int zkc__hold_rec_release_code(zkc__hold_rec_t *r, zkc_client_t *c,
                               int *unproven) {
  int rc = zkc__release_code(fate_of(c, r->session));
  *unproven = rc != ZKC_OK;
  return rc;
}

void zkc__hold_rec_keep(zkc__hold_rec_t *r, int rc,
                        zkc__released_list_t *kept) {
  if ((rc == ZKC_ELOST || rc == ZKC_ECONNLOSS) &&
      !atomic_exchange(&r->told, 1))
    zkc__released_push(kept, r->token, r->session);
}
