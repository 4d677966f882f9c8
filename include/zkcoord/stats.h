/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord stats: what a client's locks are doing, as numbers a daemon can
 * export.
 *
 * Always on: every recipe object counts its acquires, timeouts, refusals,
 * releases and losses, and keeps histograms of wait, hold and hand-off
 * times, with atomic increments on the calling thread and no allocation
 * (a record is made when the object is created). The counts are per client
 * and per (recipe, path): the objects of one client on one path and of one
 * kind share a record (normally there is one such object), and the record
 * stays until the client is closed, so a daemon that creates a mutex per
 * use still gets one steady series per path.
 *
 * What is counted, for every recipe alike:
 *   acquire   a hold granted: a mutex or read-write side taken by a thread
 *             (a thread's reentrant acquires and their releases are not
 *             counted: one hold, one acquire, one release), a semaphore's
 *             acquire (however many leases), a multi-lock's acquire, the
 *             leadership of a latch or selector, an asynchronous grant;
 *   timeout   an acquire that gave up at its deadline (ZKC_ETIMEDOUT);
 *   refusal   an acquire that failed otherwise (ZKC_ELOST, ZKC_ENOAUTH,
 *             ZKC_ECLOSED, ZKC_ECANCELED, ...); calls refused for bad
 *             arguments are not counted;
 *   release   the end of a hold by its holder (whatever the release call
 *             returned), or leadership given up;
 *   loss      a hold the client learned it lost, by reason
 *             (zkc_lost_reason_t);
 *   wait      from the acquire call to the grant (granted acquires only);
 *   hold      from the grant to the release;
 *   hand-off  for an acquire that waited for others: from the moment the
 *             client was told its way was clear (its watch on a
 *             predecessor fired) to the grant.
 *
 * The client's own counts (zkc_client_stats) follow its connection states.
 *
 * The record type (zkc_lock_stats_t) is in zkcoord/common.h and each
 * recipe's getter in its recipe's header (zkc_mutex_stats in mutex.h,
 * zkc_sem_stats in semaphore.h, ...); this header holds what is common to
 * them: the client's counts, the Prometheus text and the event hook.
 */
#ifndef ZKCOORD_STATS_H
#define ZKCOORD_STATS_H

#include "client.h"
#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The upper bound, in microseconds, of finite bucket i (i <
 * ZKC_STATS_BUCKETS); INT64_MAX for i >= ZKC_STATS_BUCKETS. Thread-safe. */
ZKC_EXTERN int64_t zkc_stats_bucket_bound_us(size_t i);


/* The client's own counts. */
typedef struct zkc_client_stats {
  uint64_t sessions;        /* sessions established (CONNECTED) */
  uint64_t suspensions;     /* connections dropped (SUSPENDED, READ_ONLY) */
  uint64_t reconnects;      /* same session again (RECONNECTED) */
  uint64_t expiries;        /* sessions lost (LOST) */
  uint64_t janitor_pending; /* background deletes waiting now */
  uint64_t janitor_done;    /* background deletes finished */
  uint64_t requests;        /* requests sent to the ensemble */
  int connected;            /* 1 while connected read-write */
  uint64_t reserved[8];     /* zero; room for counts added later */
} zkc_client_stats_t;

/* Fills *out with the client's counts. After zkc_client_close, while
 * objects made from the client remain, the counts as they stood then.
 * Returns ZKC_OK, or ZKC_EINVAL (client or out NULL). Thread-safe; may be
 * called from callbacks; no ZooKeeper request. */
ZKC_EXTERN int zkc_client_stats(zkc_client_t *client, zkc_client_stats_t *out);

/* Called once per record, in no particular order; `stats` is valid during
 * the call only. */
typedef void (*zkc_lock_stats_fn)(void *ctx, const zkc_lock_stats_t *stats);

/* Calls fn for every record of the client. Records made while it runs may
 * be missed. fn must not create recipe objects of this client (that call
 * would wait for this one).
 * Returns ZKC_OK, or ZKC_EINVAL (client or fn NULL). Thread-safe. */
ZKC_EXTERN int zkc_client_foreach_lock_stats(zkc_client_t *client,
                                             zkc_lock_stats_fn fn, void *ctx);

/* The client's counts and every record as Prometheus text exposition
 * (format 0.0.4, the form /metrics serves and node_exporter's textfile
 * collector reads). Metric names start with "zkcoord_"; records carry
 * the labels recipe and path; durations are in seconds. docs/operations.md
 * lists the metrics. On success *text is a NUL-terminated string the
 * caller frees with free(), and *len (when len is not NULL) its length.
 * After zkc_client_close, while objects made from the client remain, the
 * counts as they stood then.
 * Returns ZKC_OK, ZKC_EINVAL (client or text NULL), ZKC_ENOMEM (*text is
 * then NULL). Thread-safe; no ZooKeeper request. */
ZKC_EXTERN int zkc_client_prometheus(zkc_client_t *client, char **text,
                                     size_t *len);

/* What an event hook is told. */
typedef enum zkc_event_type {
  ZKC_EVENT_ACQUIRED = 1,  /* a hold granted: wait_us, handoff_us */
  ZKC_EVENT_TIMED_OUT = 2, /* an acquire gave up at its deadline: wait_us */
  ZKC_EVENT_REFUSED = 3,   /* an acquire failed otherwise: rc, wait_us */
  ZKC_EVENT_RELEASED = 4,  /* a hold ended by its holder: hold_us, rc */
  ZKC_EVENT_LOST = 5,      /* a hold lost: reason */
  ZKC_EVENT_STATE = 6      /* the client's state changed: state */
} zkc_event_type_t;

/* One event. Fields not named for its type are 0 (path NULL for
 * ZKC_EVENT_STATE). Fields may be added at the end: never copy the struct
 * by value into storage of your own size. */
typedef struct zkc_event {
  zkc_event_type_t type;
  zkc_recipe_t recipe;
  const char *path;   /* valid during the call only */
  int64_t wait_us;    /* from the acquire call to its end */
  int64_t hold_us;    /* from the grant to the release */
  int64_t handoff_us; /* -1: the acquire did not wait for anyone */
  int rc;             /* the call's result (ZKC_OK, ZKC_E*) */
  zkc_lost_reason_t reason;
  zkc_state_t state;
} zkc_event_t;

/* Told of every counted event, as it is counted, on the thread where it
 * happens: the caller's for acquires and releases, the client's
 * maintenance thread for losses and states, an asynchronous context's
 * engine thread for its grants, a latch's or selector's own thread for its
 * turns. Never under a lock of the library: it may call the recipes'
 * non-blocking calls (zkc_sem_stats, zkc_latch_has_leadership, ...). Must be
 * thread-safe, must not block and must not make blocking zkcoord calls
 * (on the library's callback threads they return ZKC_EDEADLK). */
typedef void (*zkc_event_fn)(void *ctx, const zkc_event_t *event);

/* Sets the client's event hook (fn NULL: none). A hook replaced while
 * events are told may still be called once more by an event under way;
 * ctx must stay valid until the client is closed.
 * Returns ZKC_OK, ZKC_EINVAL (client NULL) or ZKC_ENOMEM. Thread-safe. */
ZKC_EXTERN int zkc_client_set_event_hook(zkc_client_t *client,
                                         zkc_event_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

/* 0.x compatibility: this header declared every recipe's stats getter, and
 * so gave every recipe's header; kept through 1.x. */
#include "async.h"
#include "latch.h"
#include "multilock.h"
#include "mutex.h"
#include "selector.h"
#include "semaphore.h"

#endif /* ZKCOORD_STATS_H */
