/* SPDX-License-Identifier: Apache-2.0 */
/* One call: a recipe's requests sent together, each answer awaited within
 * a limit (and given up past it), sent again after a retryable failure
 * under the client's retry policy, or after a create's missing parents
 * were made, when the caller asks. The request loop written once, for
 * every blocking request outside the run kernel. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "kernel_door.h"
#include "names.h" /* the parents' walk */
#include "session_shared.h"
#include "util.h"
#include "zkcoord/common.h"

/* The send: every op made before the first is sent, so that all of them
 * go, or none (ZKC_ENOMEM or ZKC_ESYSTEM: each call unsent with it). */
static int send_all(zkc_client_t *c, zkc__call_t *calls, size_t n) {
  int rc = ZKC_OK;
  size_t made = 0;
  for (size_t i = 0; i < n; i++) { /* none sent yet */
    calls[i].failed = calls[i].failed_check = -1;
    calls[i].unsent = calls[i].check_gone = 0;
  }
  for (; made < n && rc == ZKC_OK; made++) {
    calls[made].op = malloc(sizeof *calls[made].op);
    if (calls[made].op == NULL) rc = ZKC_ENOMEM;
    else if ((rc = zkc__op_init(calls[made].op)) != ZKC_OK) {
      free(calls[made].op);
      calls[made].op = NULL;
    }
  }
  if (rc != ZKC_OK) {
    for (size_t i = 0; i < n; i++) {
      if (i < made) zkc__op_free(calls[i].op);
      calls[i].op = NULL;
      calls[i].rc = rc;
      calls[i].unsent = 1;
    }
    return rc;
  }
  for (size_t i = 0; i < n; i++) zkc__send(c, calls[i].op, &calls[i].rq);
  return ZKC_OK;
}

/* The answer moves from the op into k; the op is freed. */
static void take(zkc__call_t *k, zkc__op_t *op) {
  k->stat = op->stat;
  k->data = op->data, op->data = NULL;
  k->data_len = op->data_len;
  k->created = op->created, op->created = NULL;
  k->children = op->children;
  op->children = (zkc__names_t){0};
  k->failed = op->failed;
  k->failed_check = op->failed_check;
  zkc__op_free(op);
}

/* Every answer awaited until limit_ms; one not come by then is given up. */
static void wait_all(zkc__call_t *calls, size_t n, int64_t limit_ms) {
  for (size_t i = 0; i < n; i++) {
    zkc__op_t *op = calls[i].op;
    if (op == NULL) continue;
    calls[i].op = NULL;
    calls[i].rc = zkc__op_wait_until(op, limit_ms);
    if (calls[i].rc == ZKC_ETIMEDOUT) zkc__op_give_up(op); /* its answer frees it */
    else take(&calls[i], op);
    calls[i].check_gone = zkc__call_check_gone(&calls[i]);
  }
}

int zkc__call_answer(const zkc__call_t *calls, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (calls[i].rq.kind != ZKC__REQ_SYNC && calls[i].rc != ZKC_OK)
      return calls[i].rc;
  for (size_t i = 0; i < n; i++)
    if (calls[i].rq.kind == ZKC__REQ_SYNC && calls[i].rc != ZKC_OK &&
        calls[i].rc != ZKC_ENONODE)
      return calls[i].rc;
  return ZKC_OK;
}

int zkc__call_retries(zkc__call_retry_t retry, int answer) {
  return retry != ZKC__CALL_ONCE && zkc__retryable(answer);
}

int zkc__call_check_gone(const zkc__call_t *k) {
  return (k->rq.kind == ZKC__REQ_CHECK_SET ||
          k->rq.kind == ZKC__REQ_CHECK_CREATE) &&
         k->rc == ZKC_ENONODE && k->failed == 0;
}

int zkc__call_stop(zkc__call_retry_t retry, int answer, int why) {
  return retry == ZKC__CALL_RETRY_ANSWER ? answer : why;
}

int zkc__call_parent_missing(const zkc__call_t *k) {
  if (k->rc != ZKC_ENONODE) return 0;
  return k->rq.kind == ZKC__REQ_COUNT ||
         (k->rq.kind == ZKC__REQ_CHECK_CREATE && k->failed == 1);
}

/* Makes path's missing levels, path included, one create each (given up
 * at limit_ms); ZKC_OK also when they exist. */
static int make_path(zkc_client_t *c, const char *path, int64_t limit_ms) {
  const zkc__call_opts_t once = {.limit_ms = limit_ms,
                                 .retry = ZKC__CALL_ONCE,
                                 .deadline_ms = ZKC__FOREVER};
  int up = 0, steps = 0, rc = ZKC_OK;
  while (rc == ZKC_OK && up >= 0) {
    char *p = zkc__parent_path(path, up);
    if (p == NULL) return ZKC_ENOMEM;
    zkc__call_t k = {.rq = {.kind = ZKC__REQ_PARENT, .path = p}};
    rc = zkc__call(c, &k, 1, &once);
    zkc__call_clear(&k, 1); /* the created name, not needed */
    free(p);
    if (rc == ZKC_ETIMEDOUT) return rc;
    rc = zkc__parent_next(path, rc, &up, &steps);
  }
  return rc;
}

/* The parents of create k made; on failure k's answer is that failure. */
static int make_parents(zkc_client_t *c, zkc__call_t *k, int64_t limit_ms) {
  char *parent = zkc__path_parent(k->rq.path);
  int rc = parent == NULL             ? ZKC_ENOMEM
           : strcmp(parent, "/") == 0 ? ZKC_ENOROOT
                                      : make_path(c, parent, limit_ms);
  free(parent);
  if (rc != ZKC_OK) {
    k->rc = rc;
    k->failed = -1;
    k->check_gone = 0;
  }
  return rc;
}

void zkc__call_clear(zkc__call_t *calls, size_t n) {
  for (size_t i = 0; i < n; i++) {
    zkc__call_t *k = &calls[i];
    free(k->data);
    free(k->created);
    for (int j = 0; j < k->children.count; j++) free(k->children.data[j]);
    free(k->children.data);
    k->data = k->created = NULL;
    k->data_len = 0;
    k->children = (zkc__names_t){0};
  }
}

/* Beside the call, its one user: a recipe waits for the connection only
 * inside zkc__call (session_shared.h). */
int zkc__retry_wait(zkc_client_t *c, int *attempt, int rc,
                    int64_t deadline_ms) {
  int64_t wake_at = 0;
  if ((rc = zkc__retry_delay(c, attempt, rc, deadline_ms, &wake_at)) != ZKC_OK)
    return rc;
  if (zkc__pause_until(c, wake_at) != ZKC_OK) return ZKC_ECLOSED;
  return zkc__wait_connected(c, deadline_ms);
}

/* Waits for the connection as zkc__wait_connected, but a while at a time,
 * ending with ZKC_ESESSIONEXPIRED once `session` is gone: a request bound
 * to a session is not waited on for as long as the ensemble stays out of
 * reach once that session is presumed lost. */
static int wait_connected_in(zkc_client_t *c, int64_t session,
                             int64_t deadline_ms) {
  int rc;
  for (;;) {
    int64_t slice = zkc__deadline_after(200);
    if (deadline_ms != ZKC__FOREVER && deadline_ms < slice) slice = deadline_ms;
    if ((rc = zkc__wait_connected(c, slice)) != ZKC_ETIMEDOUT) return rc;
    if (zkc__session_fate(c, session) == ZKC__SESSION_GONE)
      return ZKC_ESESSIONEXPIRED;
    if (deadline_ms != ZKC__FOREVER && zkc__now_ms() >= deadline_ms)
      return rc;
  }
}

/* After the retryable answer rc: waits as o says (the policy's backoff, the
 * connection, o's session and still hook); ZKC_OK to send again, or the
 * reason to stop. */
static int again(zkc_client_t *c, const zkc__call_opts_t *o, int *attempt,
                 int rc) {
  if (o->session == 0 && !o->refusal_ends) {
    rc = zkc__retry_wait(c, attempt, rc, o->deadline_ms);
  } else {
    if (o->session != 0 &&
        zkc__session_fate(c, o->session) == ZKC__SESSION_GONE)
      return ZKC_ESESSIONEXPIRED;
    int64_t wake = 0;
    if ((rc = zkc__retry_delay(c, attempt, rc, o->deadline_ms, &wake)) !=
        ZKC_OK)
      return rc;
    if (zkc__pause_until(c, wake) != ZKC_OK) return ZKC_ECLOSED;
    rc = o->session != 0
             ? wait_connected_in(c, o->session, o->deadline_ms)
             : zkc__wait_connected_or_refused(c, o->deadline_ms);
  }
  if (rc == ZKC_OK && o->still != NULL) rc = o->still(o->still_ctx);
  return rc;
}

int zkc__call(zkc_client_t *c, zkc__call_t *calls, size_t n,
              const zkc__call_opts_t *o) {
  static const zkc__call_opts_t once = {.limit_ms = ZKC__FOREVER,
                                        .retry = ZKC__CALL_ONCE,
                                        .deadline_ms = ZKC__FOREVER};
  if (o == NULL) o = &once;
  int attempt = 0, made = 0;
  for (;;) {
    int rc = send_all(c, calls, n);
    if (rc == ZKC_OK) {
      wait_all(calls, n, o->limit_ms);
      rc = zkc__call_answer(calls, n);
    }
    zkc__call_t *lacking = NULL; /* a create whose parent is missing */
    for (size_t i = 0; o->parents && lacking == NULL && i < n; i++)
      if (zkc__call_parent_missing(&calls[i])) lacking = &calls[i];
    if (lacking != NULL && made < ZKC__PARENT_RECREATE_MAX) {
      made++;
      if ((rc = make_parents(c, lacking, o->limit_ms)) != ZKC_OK) return rc;
      zkc__call_clear(calls, n);
      continue;
    }
    if (!zkc__call_retries(o->retry, rc)) return rc;
    int why = again(c, o, &attempt, rc);
    if (why != ZKC_OK) return zkc__call_stop(o->retry, rc, why);
    zkc__call_clear(calls, n);
  }
}
