/* SPDX-License-Identifier: Apache-2.0 */
/* The session's plain types: what a request, a call, an answer and a
 * waiter are, and the callbacks' shapes. No function and no other local
 * header here, so that the session layer's headers (session.h,
 * session_shared.h, kernel_door.h, qworld.h, client_struct.h) each stand
 * on it side by side instead of on one another. A waiter's fields are in
 * session.h (its hash handle needs hash.h). */
#ifndef ZKC_SESSION_TYPES_H
#define ZKC_SESSION_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "zkcoord/client.h"

/* How a session (a node it owns) stands now: the client's facts give the
 * current session's (session.h); any other session is gone. */
typedef enum {
  ZKC__SESSION_LIVE,  /* the current session, connected read-write */
  ZKC__SESSION_DOUBT, /* the current session, connection down or read-only */
  ZKC__SESSION_GONE   /* expired, presumed lost, replaced, or never ours */
} zkc__session_fate_t;

/* Recipes learn of state changes before the user's listeners do: fn is
 * called on the maintenance thread for every state change. */
typedef void (*zkc__observer_fn)(void *ctx, zkc_state_t state,
                                 int64_t lost_session);

/* What zkcoord reads of a node's stat. */
typedef struct zkc__stat {
  int64_t czxid;           /* the create's zxid: the fencing token */
  int64_t ctime;           /* ms since the epoch */
  int64_t ephemeral_owner; /* session id, 0 for a persistent node */
  int32_t version;         /* the data version */
  int64_t pzxid;           /* the last create or delete of a child's zxid */
} zkc__stat_t;

/* A children list (names only), owned by the op that read it. */
typedef struct zkc__names {
  int count;
  char **data;
} zkc__names_t;

/* One ZooKeeper request in flight and its result: opaque here. The run
 * kernel and its drivers, which send requests and await answers one by
 * one, see it whole (kernel_door.h); a recipe's requests go through the
 * one call (zkc__call below), whose answers it reads from zkc__call_t. */
typedef struct zkc__op zkc__op_t;

/* A request, described as data: what a recipe (or the queue engine's
 * world) asks the server. Every node kind and ACL, the parent mode, the
 * watches' bookkeeping stay behind the door. */
typedef enum zkc__req_kind {
  ZKC__REQ_CREATE,   /* a participant's node at `path` (the protected
                        prefix) with `data`: ephemeral-sequential, or
                        ephemeral when `plain` */
  ZKC__REQ_PARENT,   /* a missing parent at `path`, empty, in the client's
                        parent mode */
  ZKC__REQ_COUNT,    /* a persistent node at `path` holding the `len` bytes
                        of `data` (a semaphore's shared count) */
  ZKC__REQ_CHILDREN, /* the children of `path` */
  ZKC__REQ_SYNC,     /* a sync of `path` through the leader: a follower
                        answers it only once the leader has (and the leader
                        checks the session then: an expired one gets
                        ZKC_ESESSIONEXPIRED), and it holds the session's
                        later reads until then, so a read pipelined behind
                        a sync that succeeded shows everything committed
                        before the sync was sent. On the leader itself a
                        sync is served as a read: the reads behind it show
                        a committed prefix that holds this session's own
                        writes, perhaps not yet a write another session was
                        answered (docs/failures.md) */
  ZKC__REQ_EXISTS,   /* the stat of `path` */
  ZKC__REQ_GET,      /* the data of `path` into op->data, op->data_len */
  ZKC__REQ_GET_IN_SESSION, /* ZKC__REQ_GET, but only on a handle of session
                        `session`: on another's (or none) op ends at once
                        with ZKC_ESESSIONEXPIRED and nothing is sent. So
                        sent, it is answered to that session alone, by a
                        server that has applied everything the session was
                        answered before */
  ZKC__REQ_EXISTS_IN_SESSION, /* ZKC__REQ_EXISTS, on a handle of session
                        `session` only, as ZKC__REQ_GET_IN_SESSION (an
                        exists asks for no permission on the node) */
  ZKC__REQ_SET,      /* `len` bytes of `data` into `path`, any version */
  ZKC__REQ_DELETE,   /* `path`, any version */
  /* Transactions fenced by the node `check` (it must exist; several
   * nodes, a set's, joined with '\n', which no ZooKeeper path holds, must
   * all exist), answered with the failing operation's error and index
   * (op->failed: 0 a check, 1 the write; -1 when none was applied or
   * sent): */
  ZKC__REQ_CHECK_SET,    /* `len` bytes of `data` into `path` if its data
                            version is `version` (-1: any); the stat is
                            path's after the set */
  ZKC__REQ_CHECK_CREATE, /* a persistent node `path` (the ACL of a parent
                            node) holding the `len` bytes of `data` */
  /* With a watch for the waiter whose id is `watch` (the queue engine's
   * and the lease run's rounds, through their world): */
  ZKC__REQ_WATCH,          /* the stat of `path` and a data watch */
  ZKC__REQ_CHILDREN_WATCH, /* the children of `path` and a children watch */
  ZKC__REQ_GET_WATCH,      /* the data of `path` and a data watch */
  ZKC__REQ_EXISTS_WATCH    /* the stat of `path` and a watch that is left
                              also when it does not exist (ZKC_ENONODE):
                              its creation fires it (an observer's, on a
                              path not made yet) */
} zkc__req_kind_t;

typedef struct zkc__req {
  zkc__req_kind_t kind;
  const char *path; /* the caller's: serialized by the send */
  const char *data; /* CREATE: NUL-terminated; COUNT, SET: `len` bytes */
  int len;
  int plain;        /* CREATE: no sequence */
  const char *release; /* CREATE (sequential): a node deleted in the same
                        transaction; answered as session_shared.h's
                        zkc__submit_create_releasing says */
  uint64_t watch;   /* the *_WATCH kinds: the waiter's id */
  int64_t session;  /* *_IN_SESSION: the session it must go through */
  const char *check; /* CHECK_*: the node the transaction rests on */
  int32_t version;  /* CHECK_SET: the data version expected (-1: any) */
} zkc__req_t;

/* One request of a call and, once it is over, its answer, moved out of
 * the op: data, created and children are the caller's (zkc__call_clear). */
typedef struct zkc__call {
  zkc__req_t rq;         /* the request; its strings are read by the send */
  int rc;                /* its answer; ZKC_ETIMEDOUT: none by the limit */
  zkc__stat_t stat;      /* the node's stat, as the answer gave it */
  char *data;            /* the GET kinds: a copy, NUL-terminated */
  int data_len;
  char *created;         /* the create kinds: the node's path */
  zkc__names_t children; /* ZKC__REQ_CHILDREN */
  int failed;            /* the CHECK kinds: as op->failed */
  int failed_check;      /* the CHECK kinds: as op->failed_check */
  int check_gone;        /* the CHECK kinds: 1 when the node the
                            transaction rests on (its check) is gone, so
                            the hold that node is is lost */
  int unsent;            /* 1: no op could be made (rc says why), so
                            nothing of the call went out */
  zkc__op_t *op;         /* the call's, from the send to the wait */
} zkc__call_t;

/* Whether a call sends its requests again after a retryable failure
 * (zkc__retryable), under the client's retry policy until deadline_ms: */
typedef enum {
  ZKC__CALL_ONCE,        /* never */
  ZKC__CALL_RETRY,       /* yes; a stop returns its reason (zkc__retry_wait's:
                            the answer itself once the policy is spent,
                            ZKC_ETIMEDOUT, ZKC_ECLOSED, ...) */
  ZKC__CALL_RETRY_ANSWER /* yes; a stop returns the last answer */
} zkc__call_retry_t;

typedef struct zkc__call_opts {
  int64_t limit_ms;        /* each answer awaited until then (monotonic,
                              ZKC__FOREVER; zkc__op_wait_until in
                              kernel_door.h) */
  zkc__call_retry_t retry;
  int64_t deadline_ms;     /* the retries' bound (ZKC__FOREVER) */
  /* Non-zero: retries only while this session may live (ZKC_ESESSIONEXPIRED
   * once it is gone, also while waiting for the connection). */
  int64_t session;
  /* Optional: asked before each retry, once connected; non-ZKC_OK stops
   * the call with it. */
  int (*still)(void *ctx);
  void *still_ctx;
  /* Non-zero (no session): the wait for the connection also ends once the
   * server refused the client's credentials (ZKC_EAUTHFAILED), as at open,
   * where the refusal closes the connection the retry would wait for. */
  int refusal_ends;
  /* Non-zero: a create whose answer is its parent missing (a count's, a
   * fenced create's write: zkc__call_parent_missing) has every missing
   * level made (empty, in the client's parent mode, each answer awaited
   * until limit_ms) and the calls sent again, up to
   * ZKC__PARENT_RECREATE_MAX times (parents deleted as fast as they are
   * made); a parent that cannot be made ends the call with its failure
   * (that create's answer, its failed -1; ZKC_ENOROOT: the chroot). */
  int parents;
} zkc__call_opts_t;

/* How a waiter's wait ended (zkc__waiter_end, session.h; zkc__waiter_wait,
 * kernel_door.h). */
typedef enum {
  ZKC__WAKE_FIRED,
  ZKC__WAKE_TIMEOUT,
  ZKC__WAKE_CLOSED,
  ZKC__WAKE_LOST
} zkc__wake_t;

/* What a waiter leaving leaves on the server: nothing (its watch fired,
 * or was never set), its data watch, or its children watch (and, with
 * `also`, that node's data watch). */
typedef enum {
  ZKC__LEFT_NONE,
  ZKC__LEFT_DATA,
  ZKC__LEFT_CHILDREN
} zkc__watch_left_t;

/* Told, on the maintenance thread, that the guarded node was deleted while
 * its session lived. */
typedef void (*zkc__guard_fn)(void *ctx, uint64_t guard_id);

/* Who a node watch belongs to. The client keeps one handler per kind
 * (set at open), told on the ZooKeeper completion thread with the owner's
 * id: an owner that left meanwhile is simply not found. */
typedef enum {
  ZKC__WATCH_WAITER, /* a thread waiting on a predecessor (waiters.c) */
  ZKC__WATCH_GUARD,  /* a holder watching its own node (guard.c) */
  ZKC__WATCH_KINDS
} zkc__watch_kind_t;
typedef void (*zkc__watch_fn)(zkc_client_t *c, uint64_t id, const char *path,
                              int deleted);

/* The ZooKeeper client's log callback (log.c). */
typedef void (*zkc__zk_log_fn)(const char *message);

/* Node kinds zkcoord creates. */
typedef enum {
  ZKC__CREATE_PERSISTENT,
  ZKC__CREATE_CONTAINER,
  ZKC__CREATE_EPHEMERAL_SEQUENTIAL,
  ZKC__CREATE_EPHEMERAL
} zkc__create_mode_t;

/* A probe's answer (probe.c): ok is 1 when the leader answered. */
typedef void (*zkc__probed_fn)(zkc_client_t *c, int ok);

/* A thread blocked until the node it watches changes (session.h). */
typedef struct zkc__waiter zkc__waiter_t;

#endif /* ZKC_SESSION_TYPES_H */
