/* The lock queue protocol: create a protected ephemeral-sequential node,
 * read the children in the same round trip, wait on the predecessor only
 * (a reader: on the nearest writer before it), and never leave a node
 * behind on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"

#include "decide.h"
#include "names.h"
#include "session.h"
#include "util.h"
#include "zkcoord/common.h"

/* How many times a vanished parent (a reaped container, or one deleted by
 * someone else) is recreated within one acquisition. */

/* wait_first's "read the queue again" (never returned to callers). */
#define ZKC__AGAIN 1

int64_t zkc__limit_after(int64_t deadline_ms) {
  return deadline_ms == ZKC__FOREVER ? ZKC__FOREVER : deadline_ms + ZKC__GRACE_MS;
}

int zkc__ensure_path(zkc_client_t *c, const char *path) {
  zkc__create_mode_t mode = zkc__parent_mode(c) == ZKC_PARENTS_CONTAINER
                                ? ZKC__CREATE_CONTAINER
                                : ZKC__CREATE_PERSISTENT;
  int rc = zkc__op_run_create(c, ZKC_NODE_PARENT, path, "", 0, mode);
  if (rc != ZKC_ENONODE) return rc == ZKC_ENODEEXISTS ? ZKC_OK : rc;
  char *parent = zkc__path_parent(path);
  if (parent == NULL) return ZKC_ENOMEM;
  /* ZKC_ENONODE under "/" means the chroot itself is missing: give up. */
  rc = strcmp(parent, "/") == 0 ? ZKC_ENOROOT : zkc__ensure_path(c, parent);
  free(parent);
  if (rc != ZKC_OK) return rc;
  rc = zkc__op_run_create(c, ZKC_NODE_PARENT, path, "", 0, mode);
  return rc == ZKC_ENODEEXISTS ? ZKC_OK : rc;
}

/* What the answer `rc` to the delete of a held node means (remove_node's
 * codes): a delete cut by connection loss or a session's end is finished
 * in the background, a refusal is logged. */
static int delete_answered(zkc_client_t *c, const char *node, int rc) {
  if (rc == ZKC_ENONODE) return ZKC_ELOST;
  if (rc == ZKC_OK || rc == ZKC_ECLOSED) return ZKC_OK;
  if (!zkc__retryable(rc) && rc != ZKC_ESESSIONEXPIRED) {
    zkc__log(c, ZKC_LOG_ERROR,
             "delete of %s refused (%s): it stays until its session ends",
             node, zkc_strerror(rc));
    return rc;
  }
  zkc__janitor_add(c, node, NULL);
  return ZKC_OK;
}

/* Deletes our node now, or hands the delete to the maintenance thread when
 * the connection is in trouble: whichever session is current then deletes
 * it (a node of a lost session may outlive it by up to a session timeout).
 * Nothing to do when the client is closing. Returns ZKC_OK when the node is
 * gone or will be, ZKC_ELOST when it was gone already (someone deleted it,
 * or its session ended), or the server's refusal (ZKC_ENOAUTH, ...): then the
 * node stays in the queue until its session ends, and the caller must say
 * so. */
static int remove_node_by(zkc_client_t *c, const char *node, int64_t limit) {
  /* Closing the session removes the node. */
  if (zkc__client_closed(c)) return ZKC_OK;
  int connected = zkc__session_live(c);
  zkc__op_t *op = connected ? zkc__op_new() : NULL;
  if (op == NULL) { /* disconnected (or no memory): do not wait for it here */
    zkc__janitor_add(c, node, NULL);
    return ZKC_OK;
  }
  zkc__submit_delete(c, op, node);
  int rc = zkc__op_wait_until(op, limit);
  if (rc == ZKC_ETIMEDOUT) { /* unanswered: finished in the background */
    zkc__op_give_up(op);
    zkc__janitor_add(c, node, NULL);
    return ZKC_OK;
  }
  zkc__op_free(op);
  return delete_answered(c, node, rc);
}

static int remove_node(zkc_client_t *c, const char *node) {
  return remove_node_by(c, node, ZKC__FOREVER);
}

/* A release's delete that nobody waits for (zkc__lock_delete_nowait). */
typedef struct unwaited {
  zkc__op_t op;
  zkc_client_t *c;
  char *node;
} unwaited_t;

/* Its result, on the completion thread (or at close): what remove_node
 * would do with it, with nobody to tell of a refusal but the log. */
static void unwaited_done(void *ctx) {
  unwaited_t *d = ctx;
  (void)delete_answered(d->c, d->node, d->op.rc);
  zkc__op_clear(&d->op);
  free(d->node);
  free(d);
}

/* State of one acquisition. */
typedef struct attempt {
  zkc_client_t *c;
  const char *base;
  const char *data; /* node data */
  int64_t deadline;
  int64_t limit;   /* deadline + the grace: no wait goes past it */
  char uuid[37];
  char *prefix; /* base + "/_c_<uuid>-<lock_name>" */
  char *node;   /* our node once created */
  zkc__stat_t stat;
  int64_t session; /* session at the time of the create */
  int no_list;     /* a plain create: no children read behind it */
  int plain;       /* EPHEMERAL, the name complete: no sequence appended */
  int reader;      /* read side of a read-write lock: waits on writers only */
  zkc__op_t *list; /* the latest children read, or NULL */
  int64_t proof;   /* zkc__boot_ms before the request whose answer the
                      next decision rests on was sent (zkc__grant_fresh) */
  int retries;
} attempt_t;

static int new_prefix(attempt_t *a, const char *lock_name) {
  int rc = zkc__uuid_new(a->uuid);
  if (rc != ZKC_OK) return rc;
  free(a->prefix);
  size_t len = strlen(a->base) + strlen(lock_name) + ZKC__PROTECTED_LEN + 2;
  a->prefix = malloc(len);
  if (a->prefix == NULL) return ZKC_ENOMEM;
  snprintf(a->prefix, len, "%s/" ZKC__PROTECTED_PREFIX "%s-%s", a->base,
           a->uuid, lock_name);
  return ZKC_OK;
}

/* Drops the children read; one still in flight is given up (its
 * completion frees it). */
static void drop_list(attempt_t *a) {
  zkc__op_give_up(a->list);
  a->list = NULL;
}

/* Starts a children read of base into a->list (the previous one dropped). */
static int submit_list(attempt_t *a) {
  drop_list(a);
  if ((a->list = zkc__op_new()) == NULL) return ZKC_ENOMEM;
  a->proof = zkc__boot_ms();
  zkc__submit_children(a->c, a->list, a->base);
  return ZKC_OK;
}

/* A node with our uuid was found after connection loss: adopt it only if
 * the current session owns it. A node of an older session is not ours to
 * trust (CURATOR-498); that session is gone and its node with it. */
static int adopt_found(attempt_t *a, char *found) {
  int rc = zkc__op_run_exists_until(a->c, found, &a->stat, a->limit);
  if (rc == ZKC_ETIMEDOUT) { /* it is ours or an older session's: gone */
    zkc__janitor_add(a->c, found, NULL);
    free(found);
    return rc;
  }
  if (rc == ZKC_OK && a->stat.ephemeral_owner == zkc__session_id(a->c)) {
    a->node = found;
    return ZKC_OK;
  }
  /* Ours from a lost session: nobody may wait behind it longer than needed. */
  if (rc == ZKC_OK) zkc__janitor_add(a->c, found, NULL);
  free(found);
  return rc == ZKC_OK ? ZKC_ENONODE : rc;
}

/* Creates our node, with the first children read pipelined behind it.
 * After connection loss the create may or may not have been applied, so
 * the next round searches for our uuid before creating again. */
static int create_node(attempt_t *a, const char *lock_name) {
  zkc_client_t *c = a->c;
  int parents = 0, search = 0;
  int rc = new_prefix(a, lock_name);
  while (rc == ZKC_OK) {
    if (search) {
      char *found = NULL;
      rc = zkc__op_find_protected(c, a->base, a->uuid, a->limit, &found);
      if (rc == ZKC_OK && found) rc = adopt_found(a, found);
      if (rc == ZKC_OK && a->node) return a->no_list ? ZKC_OK : submit_list(a);
      if (rc == ZKC_ENONODE) rc = new_prefix(a, lock_name); /* older session's */
      if (zkc__retryable(rc)) {
        rc = zkc__retry_wait(c, &a->retries, rc, a->deadline);
        continue;
      }
      if (rc != ZKC_OK) break;
      search = 0;
    }
    zkc__op_t *create = zkc__op_new();
    if (create == NULL) {
      rc = ZKC_ENOMEM;
      break;
    }
    a->session = zkc__session_id(c);
    a->proof = zkc__boot_ms(); /* the read pipelined behind it is later */
    zkc__submit_create(c, create, ZKC_NODE_PARTICIPANT, a->prefix, a->data,
                       (int)strlen(a->data),
                       a->plain ? ZKC__CREATE_EPHEMERAL
                                : ZKC__CREATE_EPHEMERAL_SEQUENTIAL);
    int list_rc = a->no_list ? ZKC_OK : submit_list(a);
    rc = zkc__op_wait_until(create, a->limit);
    if (rc == ZKC_ETIMEDOUT) {
      /* Unanswered at the limit: the node may still be made. Whatever
       * session makes it, the janitor finds it by our uuid and deletes it
       * (its read is sent after the create, in the session's order). */
      zkc__op_give_up(create);
      zkc__janitor_add(c, a->base, a->uuid);
      break;
    }
    a->stat = create->stat;
    a->node = create->created, create->created = NULL;
    zkc__op_free(create);
    if (list_rc != ZKC_OK) rc = list_rc;
    if (rc == ZKC_OK) return ZKC_OK;
    if (a->node || rc == ZKC_ENOMEM) break; /* created, but cannot go on */

    if (rc == ZKC_ENONODE && parents++ < ZKC__PARENT_RECREATE_MAX) {
      rc = zkc__ensure_path(c, a->base);
      if (rc == ZKC_OK) continue;
    }
    if (!zkc__retryable(rc)) return rc; /* refused: nothing was created */
    search = 1;
    rc = zkc__retry_wait(c, &a->retries, rc, a->deadline);
  }
  /* Gave up with a create possibly applied: delete it by its uuid. */
  zkc__janitor_add(c, a->base, a->uuid);
  return rc;
}

/* After a wait, the node we queued with must still belong to the live
 * session: a node of a session that was replaced meanwhile is not ours to
 * hold (its session ends, and with it the node, whatever we think). */
static int still_ours(attempt_t *a) {
  return zkc__session_fate(a->c, a->stat.ephemeral_owner) == ZKC__SESSION_GONE
             ? ZKC_ELOST
             : ZKC_OK;
}

/* After a wait that ended with rc: reads the queue again if the wait went
 * well and our node is still the current session's. */
static int read_again(attempt_t *a, int rc) {
  if (rc == ZKC_OK) rc = still_ours(a);
  if (rc == ZKC_OK) rc = submit_list(a);
  return rc;
}

/* Retries after a failed request; ZKC_OK to read the queue again. */
static int retry(attempt_t *a, int rc) {
  return read_again(a, zkc__retry_wait(a->c, &a->retries, rc, a->deadline));
}

/* Granted only when the server's answers show our node first while its
 * session is the current one and connected read-write, and those answers
 * are fresh: their requests were sent less than half a session timeout ago
 * (zkc__grant_fresh), so no stall of this process can have outlived the
 * session between the server's answer and this grant. A read made while
 * connected and answered after a drop is read again once connected; an
 * answer gone stale (the process stalled, or the wait was long) is read
 * again at once: the read's own answer is then the proof. */
static int grant(attempt_t *a) {
  int rc = ZKC_OK;
  switch (zkc__session_fate(a->c, a->stat.ephemeral_owner)) {
    case ZKC__SESSION_LIVE:
      if (zkc__grant_fresh(a->c, a->proof)) return ZKC_OK;
      zkc__log(a->c, ZKC_LOG_DEBUG, "lock %s: the answer showing %s first is "
               "%lld ms old: reading again", a->base, a->node,
               (long long)(zkc__boot_ms() - a->proof));
      break;
    case ZKC__SESSION_GONE: return ZKC_ELOST;
    default:
      rc = zkc__wait_connected(a->c, a->deadline);
      break;
  }
  rc = read_again(a, rc);
  return rc == ZKC_OK ? ZKC__AGAIN : rc;
}

/* One wait on the blocker `pred`: watches it (with `sole`, our own node
 * first, see wait_first) and waits for a change. ZKC_OK when the blocker
 * changed or is gone, *clean set when its delete alone grants us; else
 * why the wait ended (ZKC_ETIMEDOUT, ZKC_ECLOSED, ZKC_ELOST) or the failed
 * request's code. */
static int watch_round(attempt_t *a, const char *pred, int sole, int *clean) {
  zkc_client_t *c = a->c;
  zkc__waiter_t w;
  zkc__op_t *watch = zkc__op_new(), *own = sole ? zkc__op_new() : NULL;
  if (own == NULL) sole = 0;
  int rc = watch ? zkc__waiter_register(c, &w, pred) : ZKC_ENOMEM;
  if (rc != ZKC_OK) {
    zkc__op_free(watch);
    zkc__op_free(own);
    return rc;
  }
  /* Both watches' answers renew the session: the proof of a grant on the
   * blocker's delete alone. */
  int64_t sent = zkc__boot_ms();
  if (sole) {
    zkc__waiter_watch_own(c, &w, a->node);
    zkc__submit_watch(c, own, a->node, w.id);
  }
  zkc__submit_watch(c, watch, pred, w.id);
  rc = zkc__op_wait_until(watch, a->limit);
  /* A predecessor of our own session may be deleted in one transaction
   * with our node (the session closing), its events then told in any
   * order: no grant on its delete alone. */
  int same_session =
      rc == ZKC_OK && watch->stat.ephemeral_owner == a->stat.ephemeral_owner;
  int own_rc = ZKC_OK;
  if (sole) own_rc = zkc__op_wait_until(own, a->limit);
  if (rc == ZKC_ETIMEDOUT || own_rc == ZKC_ETIMEDOUT) {
    /* Unanswered at the limit: a late answer sets a watch whose event
     * finds no waiter (they are found by id). */
    zkc__op_give_up(watch);
    zkc__op_give_up(own);
    zkc__waiter_unregister(c, &w);
    return ZKC_ETIMEDOUT;
  }
  zkc__op_free(watch);
  zkc__op_free(own);
  zkc__wake_t why = ZKC__WAKE_FIRED;
  if (rc == ZKC_OK && own_rc == ZKC_OK)
    why = zkc__waiter_wait(c, &w, a->deadline);
  *clean = sole && !same_session && own_rc == ZKC_OK &&
           why == ZKC__WAKE_FIRED && (rc == ZKC_OK || rc == ZKC_ENONODE) &&
           zkc__waiter_clean(c, &w, rc == ZKC_ENONODE);
  if (*clean) a->proof = sent;
  if (why == ZKC__WAKE_TIMEOUT) zkc__waiter_unwatch(c, &w);
  /* Watches that did not fire are this round's only: a next round sets
   * its own. */
  if (sole && own_rc == ZKC_OK) zkc__forget_watch(c, a->node, w.id);
  if (rc == ZKC_OK) zkc__forget_watch(c, pred, w.id);
  zkc__waiter_unregister(c, &w);

  if (why == ZKC__WAKE_TIMEOUT) return ZKC_ETIMEDOUT;
  if (why == ZKC__WAKE_CLOSED) return ZKC_ECLOSED;
  if (why == ZKC__WAKE_LOST) return ZKC_ELOST;
  /* Our node gone (ZKC_ENONODE) shows in the read that follows. */
  if (rc == ZKC_OK && own_rc != ZKC_ENONODE) rc = own_rc;
  return rc == ZKC_ENONODE ? ZKC_OK : rc;
}

/* Waits until nothing is in our way (see blocker). a->list holds a
 * children read submitted after our create. A wake-up reads the queue
 * again: the blocker's delete alone proves nothing (our own node may have
 * been deleted by an outsider meanwhile, or our session replaced), except
 * when it was the sole blocker and a watch on our own node, set before the
 * blocker's, proves by the order of the server's events that our node was
 * still there when the blocker went (zkc__waiter_clean). That saves the
 * hand-off a read round trip, but only while the watches' answers are
 * fresh (grant): the order of events on one connection says nothing about
 * whether our session outlived a stall of this process, and an event may
 * have waited in the socket through one. */
static int wait_first(attempt_t *a) {
  const char *name = zkc__basename(a->node);
  for (;;) {
    int rc = zkc__op_wait_until(a->list, a->limit);
    if (rc == ZKC_ETIMEDOUT) return rc; /* unanswered at the limit */
    if (rc != ZKC_OK) {
      if ((rc = retry(a, rc)) != ZKC_OK) return rc;
      continue;
    }
    a->retries = 0; /* the budget is per outage, not per acquisition */
    zkc__q_decision_t d;
    rc = zkc__queue_decide(a->list->children.data,
                           (size_t)a->list->children.count, name, a->reader,
                           &d);
    if (rc != ZKC_OK) return rc;
    char *pred = d.verdict == ZKC__Q_WAIT ? zkc__path_join(a->base, d.blocker)
                                          : NULL;
    int sole = d.sole;
    /* Not kept while waiting: a copy of the whole queue per waiter would
     * make a queue of n waiters cost O(n^2) memory. */
    drop_list(a);
    if (d.verdict == ZKC__Q_GONE) return ZKC_ELOST; /* session or outsider */
    if (d.verdict == ZKC__Q_FIRST) {
      rc = grant(a);
      if (rc == ZKC__AGAIN) continue;
      return rc;
    }
    if (pred == NULL) return ZKC_ENOMEM;
    if (zkc__now_ms() >= a->deadline) {
      free(pred);
      return ZKC_ETIMEDOUT;
    }

    int clean = 0;
    rc = watch_round(a, pred, sole, &clean);
    free(pred);
    if (rc != ZKC_OK) { /* retried if transient, else the answer */
      if ((rc = retry(a, rc)) != ZKC_OK) return rc;
      continue;
    }
    if (clean) {
      rc = grant(a);
      if (rc == ZKC__AGAIN) continue;
      return rc;
    }
    if ((rc = submit_list(a)) != ZKC_OK) return rc;
  }
}

/* One pass through the queue with one node. */
static int attempt(zkc_client_t *c, const char *base, const char *lock_name,
                   const char *data, int reader, int64_t deadline_ms,
                   zkc__held_t *out) {
  attempt_t a = {.c = c, .base = base, .data = data, .reader = reader,
                 .deadline = deadline_ms, .limit = zkc__limit_after(deadline_ms)};
  int rc = create_node(&a, lock_name);
  /* Double-holder guard: only a node of the current session is ours. */
  if (rc == ZKC_OK && a.stat.ephemeral_owner != zkc__session_id(c)) rc = ZKC_ELOST;
  if (rc == ZKC_OK) rc = wait_first(&a);
  drop_list(&a);
  free(a.prefix);
  /* A dead handle means the session expired: our node is gone. */
  if (rc == ZKC_ESESSIONEXPIRED) rc = ZKC_ELOST;
  if (rc == ZKC_OK) {
    out->node = a.node;
    out->token = a.stat.czxid;
    out->session_id = a.stat.ephemeral_owner;
    return ZKC_OK;
  }
  /* A node that cannot be deleted stays in the queue, and will block it
   * once first: that refusal is the caller's news, not the timeout. */
  /* The clean-up keeps the call's limit: a call ends by then whatever the
   * ensemble does, and a delete unanswered by then is the janitor's. */
  int del = a.node ? remove_node_by(c, a.node, a.limit)
                   : ZKC_OK;
  if (del == ZKC_ELOST) del = ZKC_OK; /* gone is what we wanted */
  free(a.node);
  return del != ZKC_OK && rc != ZKC_ELOST ? del : rc;
}

int zkc__lock_acquire(zkc_client_t *c, const char *base, const char *lock_name,
                      int64_t deadline_ms, zkc__held_t *out) {
  return zkc__lock_acquire_data(c, base, lock_name, NULL, deadline_ms, out);
}

int zkc__lock_acquire_data(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *data,
                           int64_t deadline_ms, zkc__held_t *out) {
  return zkc__lock_acquire_side(c, base, lock_name, data, 0, deadline_ms, out);
}

int zkc__lock_acquire_side(zkc_client_t *c, const char *base,
                           const char *lock_name, const char *data, int reader,
                           int64_t deadline_ms, zkc__held_t *out) {
  if (data == NULL) data = zkc__holder_id(c);
  for (;;) {
    int rc = attempt(c, base, lock_name, data, reader, deadline_ms, out);
    if (rc != ZKC_ELOST) return rc;
    /* Our node went with a lost session (or was deleted under us): queue
     * again, at the back, once a session is up; the deadline still holds. */
    zkc__log(c, ZKC_LOG_INFO, "lock %s: node lost while waiting, queueing "
                              "again", base);
    rc = zkc__wait_connected(c, deadline_ms);
    if (rc != ZKC_OK) return rc;
  }
}

int zkc__node_create(zkc_client_t *c, const char *base, const char *name,
                     const char *data, int64_t deadline_ms, zkc__held_t *out) {
  return zkc__node_create_mode(c, base, name, data, 0, deadline_ms, out);
}

int zkc__node_create_mode(zkc_client_t *c, const char *base, const char *name,
                          const char *data, int plain, int64_t deadline_ms,
                          zkc__held_t *out) {
  attempt_t a = {.c = c, .base = base, .deadline = deadline_ms, .no_list = 1,
                 .plain = plain, .limit = zkc__limit_after(deadline_ms)};
  a.data = data ? data : zkc__holder_id(c);
  int rc = create_node(&a, name);
  free(a.prefix);
  if (rc == ZKC_OK && a.stat.ephemeral_owner != zkc__session_id(c)) {
    remove_node(c, a.node); /* an older session's: not ours to hold */
    rc = ZKC_ELOST;
  }
  if (rc == ZKC_ESESSIONEXPIRED) rc = ZKC_ELOST;
  if (rc != ZKC_OK) {
    free(a.node);
    return rc;
  }
  out->node = a.node;
  out->token = a.stat.czxid;
  out->session_id = a.stat.ephemeral_owner;
  return ZKC_OK;
}

int zkc__lock_delete(zkc_client_t *c, const char *node) {
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  rc = remove_node(c, node);
  zkc__call_leave(c);
  return rc;
}

int zkc__lock_delete_by(zkc_client_t *c, const char *node, int64_t limit_ms) {
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  rc = remove_node_by(c, node, limit_ms);
  zkc__call_leave(c);
  return rc;
}

int zkc__lock_delete_nowait(zkc_client_t *c, const char *node) {
  int rc = zkc__call_enter(c);
  if (rc != ZKC_OK) return rc;
  unwaited_t *d = NULL;
  if (zkc__client_closed(c)) {
    rc = ZKC_ECLOSED; /* the node went with the session */
  } else if (!zkc__session_live(c)) {
    zkc__janitor_add(c, node, NULL); /* sent once connected */
  } else if ((d = calloc(1, sizeof *d)) == NULL ||
             (d->node = strdup(node)) == NULL ||
             zkc__op_init(&d->op) != ZKC_OK) {
    if (d) free(d->node);
    free(d);
    rc = remove_node(c, node); /* no memory to leave it: wait for it */
  } else {
    d->c = c;
    d->op.notify = unwaited_done;
    d->op.notify_ctx = d;
    /* In the session's order: its later requests come after this one.
     * With the caller's path: the C client may still read it (to log)
     * after the completion, which frees d->node, has run. */
    zkc__submit_delete(c, &d->op, node);
  }
  zkc__call_leave(c);
  return rc;
}

int zkc__lock_release(zkc_client_t *c, zkc__held_t *held) {
  int rc = zkc__lock_delete(c, held->node);
  free(held->node);
  held->node = NULL;
  return rc;
}

int zkc__lock_participants(zkc_client_t *c, const char *base, char ***nodes,
                           size_t *count) {
  zkc__op_t op;
  int rc = zkc__op_init(&op);
  if (rc != ZKC_OK) return rc;
  *nodes = NULL;
  *count = 0;
  zkc__submit_children(c, &op, base);
  rc = zkc__op_wait(&op);
  size_t n = rc == ZKC_OK ? (size_t)op.children.count : 0;
  zkc__contender_t *sorted = n ? malloc(n * sizeof *sorted) : NULL;
  char **paths = n ? calloc(n, sizeof *paths) : NULL;
  if (n && (sorted == NULL || paths == NULL)) rc = ZKC_ENOMEM;
  if (rc == ZKC_OK && n) {
    n = zkc__sort_contenders(op.children.data, n, sorted);
    for (size_t i = 0; i < n && rc == ZKC_OK; i++)
      if ((paths[i] = zkc__path_join(base, sorted[i].name)) == NULL)
        rc = ZKC_ENOMEM;
  }
  free(sorted);
  if (rc == ZKC_OK && n) {
    *nodes = paths;
    *count = n;
  } else {
    zkc_strings_free(paths, n);
  }
  zkc__op_clear(&op);
  return rc == ZKC_ENONODE ? ZKC_OK : rc;
}
