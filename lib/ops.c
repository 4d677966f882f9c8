/* SPDX-License-Identifier: Apache-2.0 */
/* Requests to the ZooKeeper client: submitted on the live handle, their
 * results translated and copied into the op on the completion thread, which
 * signals and does nothing more; a multi's among them (a fenced write, a
 * releasing create). Watch requests are in watches.c, an op's
 * life in op.c. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "acl.h"
#include "kernel_door.h"
#include "ops_zk.h"
#include "stats.h"
#include "zkcoord/common.h"

/* A ZooKeeper result entering zkcoord. The handle closed under the
 * request: because the client closes, or because a lost session's handle
 * is being replaced (then the request is to be retried on the new session,
 * like any connection loss). */
int zkc__zk_translate(zkc_client_t *c, int zk_rc) {
  if (zk_rc == ZCLOSING)
    return atomic_load(&c->zh_closed) ? ZKC_ECLOSED : ZKC_ECONNLOSS;
  return zkc__zk_error(zk_rc);
}

/* The raw code is kept for logs; the library sees the ZKC_* code only. */
int zkc__op_from_zk(zkc__op_t *op, int zk_rc) {
  op->zk_rc = zk_rc;
  return zkc__zk_translate(op->c, zk_rc);
}

/* A request refused at once because the handle's session is over: after
 * refused credentials that is ZAUTHFAILED, which the session's watcher
 * may not have reported yet. Caller holds zh_lock (read). */
int zkc__zk_refusal(zhandle_t *zh, int zk_rc) {
  if (zk_rc == ZINVALIDSTATE && zoo_state(zh) == ZOO_AUTH_FAILED_STATE)
    return ZAUTHFAILED;
  return zk_rc;
}

/* A ZooKeeper stat as the library keeps it. */
static const zkc__stat_t *stat_of(const struct Stat *s, zkc__stat_t *out) {
  if (s == NULL) return NULL;
  out->czxid = s->czxid;
  out->ctime = s->ctime;
  out->ephemeral_owner = s->ephemeralOwner;
  out->version = s->version;
  out->pzxid = s->pzxid;
  return out;
}

/* A server answered "session expired" on a connection still open (one
 * that revalidated it while the ensemble closed the session goes on
 * serving it): the maintenance thread declares the session lost. */
static void session_refused(zkc_client_t *c, uint64_t gen) {
  pthread_mutex_lock(&c->mu);
  c->refused_gen = gen;
  pthread_cond_broadcast(&c->state_cv);
  pthread_mutex_unlock(&c->mu);
}

/* A completion arrives: on the callback thread, for an op that close has
 * not finished already (NULL then). *rc is the translated result. */
static zkc__op_t *arrive(const void *data, int zk_rc, int *rc) {
  zkc__op_t *op = (zkc__op_t *)data;
  zkc__mark_callback_thread();
  if (!zkc__op_claim(op)) return NULL;
  atomic_store(&op->c->last_answer_ms, zkc__now_ms()); /* not silent */
  *rc = zkc__op_from_zk(op, zk_rc);
  if (zk_rc == ZSESSIONEXPIRED && op->gen != 0) session_refused(op->c, op->gen);
  return op;
}

void zkc__on_void(int zk_rc, const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op) zkc__op_finish(op, rc, NULL);
}

static void on_stat(int zk_rc, const struct Stat *stat, const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  zkc__stat_t st;
  if (op) zkc__op_finish(op, rc, rc == ZKC_OK ? stat_of(stat, &st) : NULL);
}

void zkc__on_data(int zk_rc, const char *value, int len,
                  const struct Stat *stat, const void *data) {
  (void)value, (void)len;
  on_stat(zk_rc, stat, data);
}

void zkc__on_get(int zk_rc, const char *value, int len,
                 const struct Stat *stat, const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op == NULL) return;
  if (rc == ZKC_OK) {
    if (len < 0 || value == NULL) len = 0;
    op->data = malloc((size_t)len + 1);
    if (op->data == NULL) {
      rc = ZKC_ENOMEM;
    } else {
      if (len > 0) memcpy(op->data, value, (size_t)len);
      op->data[len] = '\0';
      op->data_len = len;
    }
  }
  zkc__stat_t st;
  zkc__op_finish(op, rc, rc == ZKC_OK ? stat_of(stat, &st) : NULL);
}

static void on_created(int zk_rc, const char *name, const struct Stat *stat,
                       const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op == NULL) return;
  if (rc == ZKC_OK) {
    op->created = strdup(name);
    if (op->created == NULL) rc = ZKC_ENOMEM; /* node exists: caller cleans */
  }
  zkc__stat_t st;
  zkc__op_finish(op, rc, rc == ZKC_OK ? stat_of(stat, &st) : NULL);
}

/* A children read's answer, with the parent's stat (NULL: none): its
 * pzxid orders two reads of one path (the queue view keeps the later). */
static void children_arrived(int zk_rc, const struct String_vector *v,
                             const struct Stat *stat, const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op == NULL) return;
  if (rc == ZKC_OK && v != NULL && v->count > 0) {
    /* The vector belongs to the client: copy it. */
    op->children.data = calloc((size_t)v->count, sizeof(char *));
    if (op->children.data == NULL) {
      rc = ZKC_ENOMEM;
    } else {
      op->children.count = v->count;
      for (int i = 0; i < v->count; i++)
        if ((op->children.data[i] = strdup(v->data[i])) == NULL) rc = ZKC_ENOMEM;
    }
  }
  zkc__stat_t st;
  zkc__op_finish(op, rc, rc == ZKC_OK ? stat_of(stat, &st) : NULL);
}

void zkc__on_children(int zk_rc, const struct String_vector *v,
                      const void *data) {
  children_arrived(zk_rc, v, NULL, data);
}

static int zk_mode(zkc__create_mode_t mode) {
  switch (mode) {
    case ZKC__CREATE_CONTAINER: return ZOO_CONTAINER;
    case ZKC__CREATE_EPHEMERAL_SEQUENTIAL: return ZOO_EPHEMERAL_SEQUENTIAL;
    case ZKC__CREATE_EPHEMERAL: return ZOO_EPHEMERAL;
    default: return ZOO_PERSISTENT;
  }
}

/* A request that fails before it is sent: op ends at once with rc. */
static void refuse_now(zkc_client_t *c, zkc__op_t *op, int rc) {
  zkc__op_link(c, op);
  if (zkc__op_claim(op)) zkc__op_finish(op, rc, NULL);
}

/* zkc__acl_for, its refusal of acl_fn's answer told here (acl.c logs
 * nothing: it sits under the log). */
static int acl_for(zkc_client_t *c, const char *path, zkc_node_kind_t kind,
                   struct ACL_vector *tmp, const struct ACL_vector **out) {
  int rc = zkc__acl_for(&c->acls, path, kind, tmp, out);
  if (rc != ZKC_EINVAL) return rc;
  return zkc__refuse(c, rc,
                     "the ACL callback (acl_fn) gave an "
                     "invalid ACL for %.300s (no entry, an empty or NULL "
                     "scheme, a NULL id, or permissions none or outside "
                     "ZKC_PERM_ALL)",
                     path);
}

void zkc__submit_create(zkc_client_t *c, zkc__op_t *op, zkc_node_kind_t kind,
                        const char *path, const char *data, int len,
                        zkc__create_mode_t mode) {
  struct ACL_vector tmp;
  const struct ACL_vector *acl;
  int rc = acl_for(c, path, kind, &tmp, &acl);
  if (rc != ZKC_OK) {
    refuse_now(c, op, rc);
    return;
  }
  /* The request is serialized before zoo_acreate2 returns: tmp may go. */
  ZKC__SUBMIT(c, op,
              zoo_acreate2(zh, path, data, len, acl, zk_mode(mode), on_created,
                           op));
  zkc__acl_tmp_free(&tmp);
}

void zkc__submit_children(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_aget_children2(zh, path, 0, children_arrived, op));
}

void zkc__submit_delete(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_adelete(zh, path, -1, zkc__on_void, op));
}

void zkc__submit_exists(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_aexists(zh, path, 0, on_stat, op));
}

void zkc__submit_get(zkc_client_t *c, zkc__op_t *op, const char *path) {
  ZKC__SUBMIT(c, op, zoo_aget(zh, path, 0, zkc__on_get, op));
}

/* The handle's session is read under zh_lock with the submit, so a handle
 * swapped in meanwhile is never used: its session has not seen what
 * session_id saw. */
static int in_session(zhandle_t *zh, int64_t session_id) {
  const clientid_t *id = zoo_client_id(zh);
  return id != NULL && id->client_id != 0 && id->client_id == session_id;
}

void zkc__submit_get_in_session(zkc_client_t *c, zkc__op_t *op,
                                const char *path, int64_t session_id) {
  ZKC__SUBMIT(c, op,
              in_session(zh, session_id) ? zoo_aget(zh, path, 0, zkc__on_get, op)
                                         : ZSESSIONEXPIRED);
}

void zkc__submit_exists_in_session(zkc_client_t *c, zkc__op_t *op,
                                   const char *path, int64_t session_id) {
  ZKC__SUBMIT(c, op,
              in_session(zh, session_id) ? zoo_aexists(zh, path, 0, on_stat, op)
                                         : ZSESSIONEXPIRED);
}

void zkc__submit_session_check(zkc_client_t *c, zkc__op_t *op,
                               const char *path, int64_t session_id) {
  ZKC__SUBMIT(c, op,
              in_session(zh, session_id)
                  ? zoo_aset(zh, path, NULL, -1, -1, on_stat, op)
                  : ZSESSIONEXPIRED);
}

/* A sync answered is a round trip through the leader, as a probe is: it
 * joins the floor that decides learning ahead (renewal.h), so that a busy
 * client's floor follows its many syncs, not its few probes. The answer
 * came on the connection it was sent on (the client fails a lost
 * connection's requests), the one the session watcher last counted. */
static void on_synced(int zk_rc, const char *value, const void *data) {
  (void)value;
  const zkc__op_t *op = data;
  if (zk_rc == ZOK) {
    zkc_client_t *c = op->c;
    int64_t rtt_us = zkc__now_us() - op->sent_us;
    pthread_mutex_lock(&c->mu);
    if (op->gen == c->handle_gen)
      zkc__rtt_floor_add(&c->rtt, c->conn_seq, zkc__boot_ms(), rtt_us);
    pthread_mutex_unlock(&c->mu);
  }
  zkc__on_void(zk_rc, data); /* may free op */
}

void zkc__submit_sync(zkc_client_t *c, zkc__op_t *op, const char *path) {
  op->sent_us = zkc__now_us();
  ZKC__SUBMIT(c, op, zoo_async(zh, path, on_synced, op));
}

/* The answer of a renewal probe, told to the function its sender named
 * (probe.c: the door calls nothing above it by name). The client is the
 * context: it outlives its handles' callbacks. */
static void on_probed(int zk_rc, const char *value, const void *data) {
  (void)value;
  zkc__mark_callback_thread();
  zkc_client_t *c = (zkc_client_t *)data;
  c->probed(c, zk_rc == ZOK);
}

int zkc__submit_probe(zkc_client_t *c, zkc__probed_fn fn) {
  c->probed = fn;
  pthread_rwlock_rdlock(&c->zh_lock);
  /* Counted before it can be answered (a test reads the count once none
   * is in flight). */
  atomic_fetch_add(&c->probes, 1);
  int rc = c->zh != NULL ? zoo_async(c->zh, "/", on_probed, c) : ZCONNECTIONLOSS;
  if (rc != ZOK) atomic_fetch_sub(&c->probes, 1);
  pthread_rwlock_unlock(&c->zh_lock);
  return rc == ZOK ? ZKC_OK : zkc__zk_translate(c, rc);
}

void zkc__submit_set(zkc_client_t *c, zkc__op_t *op, const char *path,
                     const void *data, int len) {
  ZKC__SUBMIT(c, op,
              zoo_aset(zh, path, (const char *)data, len, -1, on_stat, op));
}

/* 1 when zh's session is over (expired, or credentials refused). */
static int handle_over(zhandle_t *zh) {
  int state = zoo_state(zh);
  return state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE;
}

/* zoo_amulti, but not on a handle whose session is over: the C client
 * (3.8) refuses the first operation of such a multi, then frees the path
 * of the next one, which it never initialised (a stale pointer: in practice
 * the first operation's path, a double free of the caller's string, found
 * by faults.fenced_set_on_expired_session_is_lost), and reports a
 * marshalling error. Such a handle refuses every request anyway: the
 * refusal is ZINVALIDSTATE, as for any other request. Refused once called
 * (the session ended between the check and the call), the client may have
 * freed a path of the record `data`: forget(data) lets those go unfreed,
 * before the refusal finishes the op that owns the record. */
static int multi_call(zhandle_t *zh, int count, const zoo_op_t *ops,
                      zoo_op_result_t *results, void_completion_t done,
                      void *data, void (*forget)(void *)) {
  if (handle_over(zh)) return ZINVALIDSTATE;
  int rc = zoo_amulti(zh, count, ops, results, done, data);
  if (rc != ZOK) forget(data); /* a few bytes lost rather than a double free */
  /* The session ended between the check and the call. */
  if (rc != ZOK && handle_over(zh)) return ZINVALIDSTATE;
  return rc;
}

/* 1 when the server answered the multi: then one operation carries the
 * reason and the others say only whether they came before it. A request
 * cut off (connection loss, a handle closed) gives every operation the
 * request's own code, translated already. */
static int server_answered(const zoo_op_result_t *res, int n) {
  for (int i = 0; i < n; i++)
    if (res[i].err == ZOK || res[i].err == ZRUNTIMEINCONSISTENCY) return 1;
  return 0;
}

/* A multi's result: when the server answered, the operation that failed
 * carries the reason (its index into *failed_op, -1 for none); the others
 * say only that they were not applied. */
static int multi_failure(int rc, const zoo_op_result_t *results, int n,
                         int *failed_op) {
  *failed_op = -1;
  if (!server_answered(results, n)) return rc;
  for (int i = 0; rc != ZKC_OK && i < n; i++)
    if (results[i].err != ZOK && results[i].err != ZRUNTIMEINCONSISTENCY) {
      *failed_op = i;
      zkc__note_zk_code(results[i].err);
      return zkc__zk_error(results[i].err);
    }
  return rc;
}

/* ---- a write fenced by a check (ZKC__REQ_CHECK_SET, _CREATE) ---- */

/* A fenced write's multi, owned by its op (freed with it): the results,
 * the set's stat, and the multi's own copy of the checked paths (see
 * multi_call), split in place. ncheck checks, then the write: res has
 * ncheck + 1. */
typedef struct {
  zkc__op_t *op;
  struct Stat stat;
  char *check;
  int ncheck;
  zoo_op_result_t res[];
} fenced_t;

static void on_fenced(int zk_rc, const void *data) {
  fenced_t *m = (fenced_t *)data;
  int rc;
  zkc__op_t *op = arrive(m->op, zk_rc, &rc);
  if (op != NULL) {
    int failed;
    rc = multi_failure(rc, m->res, m->ncheck + 1, &failed);
    /* The failing operation's own code, noted on the waiting thread. */
    if (failed >= 0) op->zk_rc = m->res[failed].err;
    /* Callers tell a check (0, whichever node) from the write (1). */
    op->failed = failed < 0 ? -1 : failed < m->ncheck ? 0 : 1;
    /* A set's own node, so that only its lock is marked lost. */
    op->failed_check = op->failed == 0 ? failed : -1;
    zkc__stat_t st;
    /* The last touch of m: finishing may free the op, and m with it. */
    zkc__op_finish(op, rc, rc == ZKC_OK ? stat_of(&m->stat, &st) : NULL);
  }
}

static void fenced_free(void *data) {
  fenced_t *m = data;
  free(m->check);
  free(m);
}

static void fenced_forget(void *data) { ((fenced_t *)data)->check = NULL; }

void zkc__submit_fenced(zkc_client_t *c, zkc__op_t *op, const char *check,
                        const char *path, const char *data, int len,
                        int create, int32_t version) {
  int ncheck = 1;
  for (const char *p = check; *p; p++) ncheck += *p == '\n';
  fenced_t *m = calloc(1, sizeof *m + (size_t)(ncheck + 1) * sizeof m->res[0]);
  zoo_op_t *ops = calloc((size_t)ncheck + 1, sizeof *ops);
  struct ACL_vector tmp;
  const struct ACL_vector *acl = NULL;
  int rc = m != NULL && ops != NULL && (m->check = strdup(check)) != NULL
               ? ZKC_OK
               : ZKC_ENOMEM;
  if (rc == ZKC_OK && create)
    rc = acl_for(c, path, ZKC_NODE_PARENT, &tmp, &acl);
  if (rc != ZKC_OK) {
    if (m) free(m->check);
    free(m);
    free(ops);
    refuse_now(c, op, rc);
    return;
  }
  m->op = op;
  m->ncheck = ncheck;
  zkc__op_own(op, m, fenced_free);
  /* Several nodes are joined with '\n', which no ZooKeeper path holds. */
  char *one = m->check;
  for (int i = 0; i < ncheck; i++) {
    char *nl = strchr(one, '\n');
    if (nl) *nl = '\0';
    zoo_check_op_init(&ops[i], one, -1); /* -1: only that it exists */
    one = nl ? nl + 1 : one;
  }
  if (create)
    zoo_create_op_init(&ops[ncheck], path, data, len, acl, ZOO_PERSISTENT,
                       NULL, 0);
  else
    zoo_set_op_init(&ops[ncheck], path, data, len, version, &m->stat);
  /* The request is serialized before zoo_amulti returns: tmp and ops may
   * go. m is the op's from here: not touched after the send. */
  ZKC__SUBMIT(c, op,
              multi_call(zh, ncheck + 1, ops, m->res, on_fenced, m, fenced_forget));
  if (create) zkc__acl_tmp_free(&tmp);
  free(ops);
}

/* ---- a create that lets another node go (ZKC__REQ_CREATE's release) ---- */

/* A releasing create's multi, owned by its op (freed with it): the
 * results, its own copies of the paths (see multi_call) and the created
 * name's buffer. */
typedef struct {
  zkc__op_t *op;
  zoo_op_result_t res[2];
  char *path, *release;
  char name[]; /* the created node's path */
} releasing_t;

static void releasing_free(void *data) {
  releasing_t *m = data;
  free(m->path);
  free(m->release);
  free(m);
}

/* Refused once called: left whole, as before the op owned it (the client
 * may have freed a path of it, and on a failed allocation it has already
 * registered the completion, which would read m). */
static void releasing_forget(void *data) {
  zkc__op_own(((releasing_t *)data)->op, NULL, NULL);
}

/* The created node's stat: a create inside a multi answers with its name
 * alone, and its czxid is the fencing token. Gone already (an outsider's
 * delete, the session's end): the node is lost. */
static void on_released_stat(int zk_rc, const struct Stat *stat,
                             const void *data) {
  int rc;
  zkc__op_t *op = arrive(data, zk_rc, &rc);
  if (op == NULL) return;
  if (rc == ZKC_ENONODE) rc = ZKC_ELOST;
  zkc__stat_t st;
  zkc__op_finish(op, rc, rc == ZKC_OK ? stat_of(stat, &st) : NULL);
}

static void on_released(int zk_rc, const void *data) {
  releasing_t *m = (releasing_t *)data;
  int rc;
  zkc__op_t *op = arrive(m->op, zk_rc, &rc);
  if (op != NULL) {
    int failed;
    rc = multi_failure(rc, m->res, 2, &failed);
    /* The node to let go is gone: not ours to let go any more. */
    if (failed == 1 && rc == ZKC_ENONODE) rc = ZKC_ELOST;
    if (rc == ZKC_OK && (op->created = strdup(m->name)) == NULL)
      rc = ZKC_ENOMEM; /* node exists: caller cleans, as on_created */
    /* The last touch of m: the op (and m with it) may go once sent again
     * and answered, or finished. */
    if (rc == ZKC_OK) {
      zkc_client_t *c = op->c;
      ZKC__SUBMIT(c, op,
                  zoo_aexists(zh, op->created, 0, on_released_stat, op));
    } else {
      zkc__op_finish(op, rc, NULL);
    }
  }
}

void zkc__submit_create_releasing(zkc_client_t *c, zkc__op_t *op,
                                  const char *path, const char *data, int len,
                                  const char *release) {
  /* The sequence: 10 digits, 11 characters once it wraps negative. */
  size_t cap = strlen(path) + 16;
  releasing_t *m = calloc(1, sizeof *m + cap);
  struct ACL_vector tmp;
  const struct ACL_vector *acl;
  int rc = m ? acl_for(c, path, ZKC_NODE_PARTICIPANT, &tmp, &acl)
             : ZKC_ENOMEM;
  if (rc == ZKC_OK && ((m->path = strdup(path)) == NULL ||
                       (m->release = strdup(release)) == NULL)) {
    zkc__acl_tmp_free(&tmp);
    rc = ZKC_ENOMEM;
  }
  if (rc != ZKC_OK) {
    if (m) releasing_free(m);
    refuse_now(c, op, rc);
    return;
  }
  m->op = op;
  zkc__op_own(op, m, releasing_free);
  zoo_op_t ops[2];
  zoo_create_op_init(&ops[0], m->path, data, len, acl,
                     ZOO_EPHEMERAL_SEQUENTIAL, m->name, (int)cap);
  zoo_delete_op_init(&ops[1], m->release, -1);
  /* The request is serialized before zoo_amulti returns: tmp may go. m is
   * the op's from here: not touched after the send. */
  ZKC__SUBMIT(c, op,
              multi_call(zh, 2, ops, m->res, on_released, m, releasing_forget));
  zkc__acl_tmp_free(&tmp);
}
