/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord — export macro, error codes, version, and the types every
 * recipe shares (why a hold is lost, a stats record, a list of nodes).
 *
 * Every fallible zkcoord call returns an int: ZKC_OK (0) or one of the
 * negative ZKC_E* codes below, never a code of the ZooKeeper client itself.
 * What the server or the client library answered is translated where it
 * enters zkcoord; the raw code is kept for logs (zkc_last_zk_code).
 */
#ifndef ZKCOORD_COMMON_H
#define ZKCOORD_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ZKC_EXTERN __attribute__((visibility("default")))
#else
#define ZKC_EXTERN
#endif

/* Marks a declaration that the next major release drops; the message names
 * its replacement. A call to it draws the compiler's deprecation warning
 * (-Wdeprecated-declarations). Define ZKC_NO_DEPRECATION_WARNINGS before
 * including a zkcoord header to silence them while migrating. 1.0 marks
 * nothing: it dropped every 0.x form (CHANGELOG.md, 1.0.0). */
#if (defined(__GNUC__) || defined(__clang__)) && \
    !defined(ZKC_NO_DEPRECATION_WARNINGS)
#define ZKC_DEPRECATED(replacement) \
  __attribute__((deprecated("use " replacement " instead")))
#else
#define ZKC_DEPRECATED(replacement)
#endif

/* Timeouts: every call that takes a `timeout_ms` reads it the same way
 * (zkc_mutex_acquire_timeout, zkc_multilock_acquire_timeout,
 * zkc_sem_acquire, zkc_async_acquire, zkc_latch_await):
 *   < 0  wait without limit (as the calls without a timeout do);
 *     0  do not wait: one try at what is free now;
 *   > 0  wait at most that many milliseconds (CLOCK_MONOTONIC).
 * No negative value is an error. A timed call returns within its timeout
 * plus about 200 ms whatever the ensemble does, silent (hung, partitioned)
 * included: the answers it still needs at its deadline (its own node's
 * create, a read, the delete of its node after a timeout) are waited for
 * that much longer at most, then given up, and the clean-up goes on in the
 * background (the node is deleted once the ensemble answers, or goes with
 * the session). A timeout of 0 gets that time for its round trips. */

/* One table generates the codes, their names and their messages. The
 * values are stable: a code keeps its number once released. */
#define ZKC_ERRNO_MAP(XX)                                                      \
  XX(EINVAL, -1000, "invalid argument")                                        \
  XX(ENOMEM, -1001, "out of memory")                                           \
  XX(ETIMEDOUT, -1002, "timed out")                                            \
  XX(ENOTOWNER, -1003,                                                         \
     "the caller does not hold this lock (or this lease was released)")       \
  XX(EBUSY, -1004, "object in use: a lock is held or a call is in progress")   \
  XX(EDEADLK, -1005,                                                           \
     "the call would deadlock (a blocking call from a ZooKeeper callback "     \
     "thread, or a semaphore's own leases in the way)")                        \
  XX(ECLOSED, -1006, "the client is closed")                                   \
  XX(ELOST, -1007, "the ZooKeeper session was lost; the lock node is gone")    \
  XX(ECONNECT, -1008,                                                          \
     "could not connect to the ZooKeeper ensemble (no answer in time, or no "  \
     "host name resolved)")                                                    \
  XX(ESYSTEM, -1009, "a system call failed (threads, clock or random)")        \
  XX(EPROTO, -1010, "unexpected answer from ZooKeeper")                        \
  XX(ENOROOT, -1011, "the chroot of the connect string does not exist")        \
  XX(ECONNLOSS, -1012,                                                         \
     "connection to the ensemble lost: the request's outcome is unknown")      \
  XX(EOPTIMEOUT, -1013,                                                        \
     "the ensemble did not answer in time: the request's outcome is unknown")  \
  XX(ESESSIONEXPIRED, -1014, "the ZooKeeper session expired")                  \
  XX(ENOAUTH, -1015, "not authorized: the node's ACL refuses this operation")  \
  XX(EAUTHFAILED, -1016, "the ensemble refused the client's credentials")      \
  XX(ENONODE, -1017, "the node does not exist")                                \
  XX(ENODEEXISTS, -1018, "the node already exists")                            \
  XX(ENOTEMPTY, -1019, "the node has children")                                \
  XX(EBADVERSION, -1020, "the node's version does not match")                  \
  XX(EBADARGS, -1021, "the server refused the request's arguments")            \
  XX(EINVALIDACL, -1022, "the server refused the ACL")                         \
  XX(ENOCHILDREN, -1023, "an ephemeral node cannot have children")             \
  XX(EREADONLY, -1024, "the server is read-only: no writes")                   \
  XX(ETHROTTLED, -1025, "the server throttled the request: try again later") \
  XX(ECANCELED, -1026, "the asynchronous acquire was cancelled")              \
  XX(EALREADY, -1027, "the asynchronous acquire has already completed")      \
  XX(ELAYOUT, -1028,                                                           \
     "the path holds another recipe's nodes (a lock, a semaphore or a "        \
     "leader election): refused")

typedef enum zkc_errno {
  ZKC_OK = 0,
#define ZKC__ERRNO_ENUM(name, value, msg) ZKC_##name = (value),
  ZKC_ERRNO_MAP(ZKC__ERRNO_ENUM)
#undef ZKC__ERRNO_ENUM
} zkc_errno_t;

/* Human-readable message for a zkcoord code; "unknown error code" for any
 * other value. Never NULL; the string is static. Thread-safe. */
ZKC_EXTERN const char *zkc_strerror(int rc);

/* Symbolic name of a code ("ZKC_OK", "ZKC_ETIMEDOUT", ...), or "UNKNOWN".
 * Never NULL; static. Thread-safe. */
ZKC_EXTERN const char *zkc_err_name(int rc);

/* The ZooKeeper C client's own code behind the last request this thread
 * waited for inside a zkcoord call and that failed (0 if none yet). For log
 * lines and bug reports only, and approximate: a call that succeeds may
 * leave the code of an expected internal failure (a parent that already
 * existed), and a request the library gave up itself (the client closing)
 * leaves none. zkc_strerror does not know these codes. Decisions belong on
 * the ZKC_* return value. Thread-safe (per thread). */
ZKC_EXTERN int zkc_last_zk_code(void);

/* What the calling thread's last failed zkcoord call returned, explained
 * in one line that names the function: the detail when the call gave one
 * (for example "zkc_mutex_create: invalid lock path 'locks/a': it must be
 * absolute (start with '/')", a NULL argument named, why a path's layout
 * was refused with ZKC_ELAYOUT, the ensemble zkc_client_open could not
 * reach and for how long), else the code's own message after the
 * function's name ("zkc_mutex_release: " followed by
 * zkc_strerror(ZKC_ENOTOWNER)). Every public call that returns a negative
 * ZKC_* code sets it, so it never shows an older failure's detail; a call
 * that succeeds leaves it as it was (as errno): read it right after the
 * failing call. "" when no call of this thread has failed yet. Getters
 * whose value is a code they keep (zkc_latch_error, zkc_selector_error)
 * and completions delivered to a callback (zkc_async_done_fn) do not set
 * it. Refusals (ZKC_EINVAL, ZKC_ELAYOUT) also go to the client's log sink
 * (or the options' sink at zkc_client_open) at ZKC_LOG_ERROR when the call
 * has a client and a sink is set. The string is the thread's own (valid
 * until this thread's next zkcoord call); never NULL. Thread-safe (per
 * thread). */
ZKC_EXTERN const char *zkc_last_error_message(void);

/* The version of the library actually loaded (the headers' version is
 * ZKC_VERSION_HEX in zkcoord/version.h): 0xMMmmpp, and "major.minor.patch"
 * (static). Compare them to tell a mismatched shared library. Thread-safe. */
ZKC_EXTERN unsigned zkc_version(void);
ZKC_EXTERN const char *zkc_version_string(void);

/* Why a held lock is (or may be) lost: told by every recipe's lost
 * callback (zkc_lost_fn, zkc_sem_lost_fn, zkc_hold_lost_fn) and counted in
 * zkc_lock_stats_t.lost. */
typedef enum zkc_lost_reason {
  /* The connection dropped and the client's policy (lost_on_suspended)
   * counts that as lost. The node is deleted once the connection is back. */
  ZKC_LOST_SUSPENDED = 1,
  /* The session expired, or stayed disconnected for a whole session
   * timeout: its lock nodes are gone (or go at once). */
  ZKC_LOST_SESSION = 2,
  /* The lock node was deleted by another client while the session lived
   * (an operator, or a participant with the rights to do so: see the
   * client's ACL options). The holder watches its own node to learn it
   * (the watch is set once the lock has been held for 100 ms; a delete
   * before that is seen then). */
  ZKC_LOST_DELETED = 3
} zkc_lost_reason_t;

/* The histograms' finite buckets. Their upper bounds are fixed, three per
 * decade from 100 us to 1000 s: 0.0001, 0.00025, 0.0005, 0.001, ... 1000
 * seconds (zkc_stats_bucket_bound_us); one more bucket counts what is
 * above the last bound. */
#define ZKC_STATS_BUCKETS 22

/* The one recipe enum: which kind of object a stats record counts, and
 * the recipe whose layout rule zkc_layout_refusal applies. */
typedef enum zkc_recipe {
  ZKC_RECIPE_MUTEX = 1,
  ZKC_RECIPE_READ = 2,  /* a read-write lock's read side */
  ZKC_RECIPE_WRITE = 3, /* a read-write lock's write side */
  ZKC_RECIPE_SEMAPHORE = 4,
  ZKC_RECIPE_MULTILOCK = 5,
  ZKC_RECIPE_LATCH = 6,
  ZKC_RECIPE_SELECTOR = 7,
  ZKC_RECIPE_ASYNC = 8 /* acquires of an asynchronous context */
} zkc_recipe_t;

/* The recipe's name ("mutex", "read", "write", "semaphore", "multilock",
 * "latch", "selector", "async"; "unknown" for any other value), as the
 * Prometheus text labels it. Static string; no traffic; thread-safe. */
ZKC_EXTERN const char *zkc_recipe_name(zkc_recipe_t recipe);

/* A histogram of durations. buckets[i] counts the values above bound i-1
 * and at most bound i (not cumulative); buckets[ZKC_STATS_BUCKETS] those
 * above the last bound. count is the sum of the buckets. */
typedef struct zkc_histogram {
  uint64_t count;
  uint64_t sum_us;
  uint64_t buckets[ZKC_STATS_BUCKETS + 1];
} zkc_histogram_t;

/* One record: a snapshot of a client's counts for one recipe and path.
 * Each number is read atomically, the record as a whole is not: taken
 * while acquires run, a count may be one event ahead of another. */
typedef struct zkc_lock_stats {
  zkc_recipe_t recipe;
  /* The path the object was created on; a multi-lock's paths joined with
   * ','. Valid until the client is closed. */
  const char *path;
  uint64_t acquires;
  uint64_t timeouts;
  uint64_t refusals;
  uint64_t releases;
  /* Holds lost, indexed by zkc_lost_reason_t (index 0 is unused). */
  uint64_t lost[4];
  int64_t holds;   /* holds now: granted and not yet released */
  int64_t waiters; /* acquires in progress now */
  zkc_histogram_t wait;
  zkc_histogram_t hold;
  zkc_histogram_t handoff;
  uint64_t reserved[8]; /* zero; room for counts added later */
} zkc_lock_stats_t;

/* A list handed back by zkcoord: the one form of every call that returns
 * several things (zkc_mutex_node_list, zkc_hold_node_list,
 * zkc_latch_participant_list, zkc_selector_participant_list,
 * zkc_lock_contender_list, zkc_sem_contender_list). Opaque: read it with
 * the calls below, free it with zkc_list_free. The caller owns the list;
 * every string and record read from it belongs to the list and stays valid
 * until zkc_list_free. A list is never changed once handed back: reading
 * it from several threads at once is safe. An empty list is a list (count
 * 0), never NULL, when its call returned ZKC_OK. */
typedef struct zkc_list zkc_list_t;
struct zkc_contender; /* zkc_contender_t, zkcoord/status.h */

/* The number of entries (0 for NULL). Thread-safe. */
ZKC_EXTERN size_t zkc_list_count(const zkc_list_t *list);

/* Entry i as a string, NUL-terminated: a node's full path (node lists),
 * a participant's id (participant lists, the leader first), a node's name
 * (contender lists). NULL when i >= zkc_list_count(list) or list is NULL.
 * Owned by the list. Thread-safe. */
ZKC_EXTERN const char *zkc_list_string(const zkc_list_t *list, size_t i);

/* Entry i as a node record read from the ensemble (zkc_contender_t, see
 * zkcoord/status.h), for the lists of zkc_lock_contender_list and
 * zkc_sem_contender_list; NULL for the other lists, when i is past the
 * end or list is NULL. Owned by the list. Thread-safe. */
ZKC_EXTERN const struct zkc_contender *zkc_list_contender(
    const zkc_list_t *list, size_t i);

/* Frees a list and everything read from it. Accepts NULL. */
ZKC_EXTERN void zkc_list_free(zkc_list_t *list);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_COMMON_H */
