/* SPDX-License-Identifier: Apache-2.0 */
/* The client object itself, seen only by the session layer (client, state,
 * handle, maint, listeners, ops, waiters, guard, janitor, retry, acl, log).
 * Recipes see a zkc_client_t as opaque and go through session.h and the
 * modules' own headers. */
#ifndef ZKC_CLIENT_STRUCT_H
#define ZKC_CLIENT_STRUCT_H

#define THREADED
#include <pthread.h>
#include <stdatomic.h>
#include <zookeeper/zookeeper.h>

#include "acl.h"
#include "hash.h"
#include "renewal.h"
#include "session_types.h"
#include "stats_hub.h"
#include "util.h"
#include "zkcoord/client.h"

/* A delete the maintenance thread must finish: a node path, or (uuid set)
 * the protected node with that uuid under `path`. Whatever session is
 * current does it: the path (or uuid) names one attempt's node only, so the
 * delete can never remove anyone else's, and a node of a lost session that
 * the server still keeps is freed at once instead of at its expiry. */
typedef struct zkc__pending {
  char *path;
  char uuid[37];
  struct zkc__pending *next;
} zkc__pending_t;

/* Context of one ZooKeeper handle: events of a replaced handle are told
 * apart by their generation. */
typedef struct zkc__handle_ctx {
  zkc_client_t *c;
  uint64_t gen;
} zkc__handle_ctx_t;

/* The connection's state as the ZooKeeper client last reported it,
 * translated at the door (handle.c): nothing past it reads ZOO_*_STATE. */
typedef enum {
  ZKC__LINK_CONNECTING, /* connecting, or any state without a session */
  ZKC__LINK_CONNECTED,
  ZKC__LINK_READ_ONLY,
  ZKC__LINK_EXPIRED,
  ZKC__LINK_AUTH_FAILED
} zkc__link_t;

/* A raw session event, queued by the watcher for the maintenance thread. */
typedef struct zkc__event {
  uint64_t gen; /* handle generation */
  zkc__link_t link;
  int64_t session_id;
  struct zkc__event *next;
} zkc__event_t;

/* A registered state listener or recipe observer. */
typedef struct zkc__listener {
  zkc_state_fn fn;
  zkc__observer_fn observer;
  void *ctx;
  struct zkc__listener *next;
} zkc__listener_t;

struct zkc_client {
  pthread_mutex_t mu;       /* guards the fields below except zh */
  pthread_cond_t state_cv;  /* session state, call drain, maintenance work */
  pthread_rwlock_t zh_lock; /* read: submitting on zh; write: swapping it */
  zhandle_t *zh;
  atomic_int zh_closed;     /* set with zh = NULL by close (under zh_lock) */
  zkc__handle_ctx_t *hctx;  /* context of the current handle */
  uint64_t handle_gen;

  zkc__link_t link;   /* last state seen on the current handle */
  int64_t session_id; /* 0 until connected */
  int session_timeout_ms;
  int session_dead; /* expired, auth failed or presumed lost */
  /* A handle whose requests a server answered "session expired" (ops.c),
   * for the maintenance thread to declare its session lost: the C client
   * reports an expiry only when it reconnects. 0: none. */
  uint64_t refused_gen;
  int closed;

  /* Public state, driven by the maintenance thread. */
  zkc_state_t state;       /* 0 before the first connection */
  int64_t public_session;  /* session of the last CONNECTED */
  int64_t suspended_since; /* monotonic ms, while SUSPENDED/READ_ONLY */
  int recreate;            /* LOST: a new handle is needed */
  int64_t recreate_at;     /* next attempt when opening one failed */
  int recreate_attempt;    /* failed attempts since the last success */
  /* The session's renewal at the leader, proven by probes (renewal.h):
   * live needs it; a lapse puts the client in SUSPENDED as a drop does. */
  zkc__renewal_t renewal;
  int64_t opened_boot_ms;  /* when the current handle was opened */
  uint64_t conn_seq;       /* bumped by every CONNECTED event */
  int probe_in_flight;     /* one probe at a time */
  int64_t probe_sent;      /* boot ms */
  int64_t probe_sent_us;   /* monotonic us, for its round trip */
  zkc__rtt_floor_t rtt;    /* round trips through the leader (renewal.h) */
  int probe_measures;      /* the one in flight only measures (renewal.h) */
  int64_t probe_answer_ms; /* boot ms: the last probe's answer */
  int measures_sent;       /* probes that only measure, on: */
  uint64_t measures_conn;  /*   this connection */
  uint64_t probe_gen;      /* the handle generation it went out on */
  int64_t probe_retry_at;  /* boot ms: after a send refused at once */
  int renewal_lapsed;      /* a lapse the public state has not shown yet */
  atomic_uint_fast64_t probes; /* probes sent (tests read it) */
  zkc__probed_fn probed;       /* told each probe's answer (ops.c) */
  zkc__event_t *events, **events_tail;
  zkc__listener_t *listeners; /* user listeners and recipe observers */
  int dispatching;            /* the maintenance thread is calling them */
  pthread_t maint;
  int maint_started;
  /* When the maintenance thread, asleep on state_cv, will wake by itself
   * (ZKC__FOREVER: never); 0 while it runs, and will look at everything
   * again before it sleeps. A guard due later needs no wake-up (guard.c). */
  int64_t maint_sleeps_until;
  int64_t janitor_retry_at; /* backoff after a failed delete */
  int janitor_attempt;
  int active_calls; /* blocking calls in progress (close waits for them) */
  atomic_int refs;  /* the user's plus one per recipe object */
  /* Frees the client: called by whoever drops the last reference
   * (recipe_tie.c), set by the open (client.c), so that a recipe's tie does
   * not stand on the client's whole life. */
  void (*free_last)(zkc_client_t *c);
  /* The queue engine's world over this client (session_world.c), set at
   * open: the kernel reaches it through zkc__client_world, not by name. */
  const struct zkc__qworld *world;
  atomic_uint_fast64_t requests; /* submitted to ZooKeeper (tests read it) */
  atomic_int_fast64_t last_answer_ms; /* when a request was last answered */
  zkc__watch_fn watch_fns[ZKC__WATCH_KINDS]; /* who a node watch tells */
  /* Who sets a watch again that a waiter's removal took from the guards on
   * the same path (the guards', set at open like watch_fns): the waiters
   * stand beside the guards, not on them. Client's lock held. */
  void (*guards_renew_locked)(zkc_client_t *c, const char *path);

  /* Requests in flight. The ZooKeeper client does not always complete the
   * requests still pending when the handle closes; close finishes them. */
  pthread_mutex_t ops_mu;
  pthread_cond_t ops_cv; /* signalled when the last request completes */
  struct zkc__op *ops;

  zkc__waiter_t *waiters;
  uint64_t next_waiter_id;

  pthread_mutex_t views_mu;   /* guards views (qview.c) */
  struct zkc__qview *views;   /* per lock path with waiters */
  /* Node events of one connection arrive in the order of the changes.
   * Counts what breaks that order for watches set earlier: a session event
   * (after a reconnection the server sets watches again and reports the
   * changes made meanwhile in no particular order) and a watch removal (it
   * clears this session's watch on a path for every watcher here). */
  uint64_t watch_epoch;
  int unwatching; /* watch removals under way */

  zkc__pending_t *pending;
  atomic_int_fast64_t janitor_pending; /* pending's length and the one in work */
  atomic_uint_fast64_t janitor_done;   /* background deletes finished */

  zkc__stats_hub_t stats; /* the recipes' records, the event hook */

  struct zkc__guard *guards; /* holders' watches on their own nodes */
  uint64_t next_guard_id;
  uint64_t guard_dispatching; /* guard whose owner is being told */

  int log_slot;
  zkc__zk_log_fn log_cb; /* bound once, reused by every handle */
  char *connect;
  char *holder_id;
  zkc__acls_t acls; /* credentials and ACLs (acl.h) */
  int auth_failed;                    /* the ensemble refused the credentials */
  zkc_client_opts_t opts; /* with holder_id, auth_digest at the copies */
};

/* The session proven renewed now, with the margin to spare (renewal.h).
 * Inline over the struct: the state's reads ask it without a call into
 * the probes' module. */
static inline int zkc__renewed_locked(const zkc_client_t *c) {
  return zkc__renewal_holds(&c->renewal, zkc__boot_ms(),
                            c->session_timeout_ms);
}

#endif /* ZKC_CLIENT_STRUCT_H */
