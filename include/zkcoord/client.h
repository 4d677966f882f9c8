/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord client: one ZooKeeper session shared by every recipe made from it.
 *
 * Threads: the ZooKeeper C client runs two threads per client, an I/O thread
 * and a completion thread. zkcoord runs one more, a maintenance thread that
 * finishes deletes interrupted by connection loss ("guaranteed delete").
 * Log callbacks may run on any of these threads and on the caller's. No
 * zkcoord blocking call may be made from inside a callback: it returns
 * ZKC_EDEADLK at once.
 */
#ifndef ZKCOORD_CLIENT_H
#define ZKCOORD_CLIENT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkc_client zkc_client_t;

/* Connection states, as Curator's ConnectionState. */
typedef enum zkc_state {
  /* Connected with a new session: the first time, and again after LOST. */
  ZKC_STATE_CONNECTED = 1,
  /* Disconnected: the session may still live, but locks held through it
   * are in doubt until RECONNECTED (or gone with LOST). */
  ZKC_STATE_SUSPENDED = 2,
  /* Connected again within the same session: nothing was lost. */
  ZKC_STATE_RECONNECTED = 3,
  /* The session expired, or stayed disconnected for a whole session
   * timeout and is presumed expired: every lock held through it is gone.
   * The client then opens a new session by itself (CONNECTED follows). */
  ZKC_STATE_LOST = 4,
  /* Connected to a read-only server (only with allow_read_only): no lock
   * can be taken or released; held locks are in doubt as when SUSPENDED. */
  ZKC_STATE_READ_ONLY = 5,
  /* zkc_client_close was called (query only; never sent to listeners). */
  ZKC_STATE_CLOSED = 6
} zkc_state_t;

/* Told of every state change of a client, in order, on the client's
 * maintenance thread. Must not block for long and must not make blocking
 * zkcoord calls (they return ZKC_EDEADLK there). */
typedef void (*zkc_state_fn)(void *ctx, zkc_client_t *client,
                             zkc_state_t state);

typedef enum zkc_log_level {
  ZKC_LOG_NONE = 0,
  ZKC_LOG_ERROR = 1,
  ZKC_LOG_WARN = 2,
  ZKC_LOG_INFO = 3,
  ZKC_LOG_DEBUG = 4
} zkc_log_level_t;

/* Receives zkcoord's log lines and the ZooKeeper client's lines for this
 * client's handle. `message` has no trailing newline and is valid only
 * during the call. Called from several threads: must be thread-safe and must
 * not call blocking zkcoord functions. */
typedef void (*zkc_log_fn)(void *ctx, zkc_log_level_t level,
                           const char *message);

/* A ready-made sink that writes each line it gets to stderr as
 * "zkcoord: <message>\n", for an application that wants the library's lines
 * there: opts.log_fn = zkc_log_stderr (ctx unused). zkcoord never writes to
 * stderr by itself: without a sink its lines and the ZooKeeper client's are
 * dropped. A NULL message prints nothing. Thread-safe. */
ZKC_EXTERN void zkc_log_stderr(void *ctx, zkc_log_level_t level,
                               const char *message);

/* How missing parents of a lock path are created. */
typedef enum zkc_parent_mode {
  /* Persistent nodes: they stay after the last lock node is gone. Default. */
  ZKC_PARENTS_PERSISTENT = 0,
  /* Container nodes, as Curator does by default: the server reaps a
   * container once it is empty, so millions of one-off lock paths do not
   * pile up. zkcoord recreates a reaped parent on the next acquire. Needs a
   * ZooKeeper 3.5.3+ server. */
  ZKC_PARENTS_CONTAINER = 1
} zkc_parent_mode_t;

/* Exponential backoff with jitter, used on connection loss and operation
 * timeout: the n-th retry (n from 0) sleeps
 * base_sleep_ms * random(1 .. 2^(n+1)), at most max_sleep_ms. */
typedef struct zkc_retry_policy {
  int base_sleep_ms; /* default 100 */
  int max_sleep_ms;  /* default 2000 */
  int max_retries;   /* default 10; 0 = never retry */
} zkc_retry_policy_t;

/* Permission bits of an ACL entry (the same values as ZooKeeper's). */
#define ZKC_PERM_READ 1
#define ZKC_PERM_WRITE 2
#define ZKC_PERM_CREATE 4
#define ZKC_PERM_DELETE 8
#define ZKC_PERM_ADMIN 16
#define ZKC_PERM_ALL 31

/* One ACL entry: permission bits for an identity, as ZooKeeper's ACL.
 * scheme/id examples: "world"/"anyone"; "auth"/"" (whoever created the
 * node, by the credentials its session added); "digest"/"user:<base64 of
 * SHA-1 of user:password>"; "ip"/"10.0.0.0/8". */
typedef struct zkc_acl {
  int32_t perms;
  const char *scheme;
  const char *id;
} zkc_acl_t;

/* Which ACL the nodes zkcoord creates get, unless acl/acl_fn say otherwise. */
typedef enum zkc_acl_preset {
  /* Everyone may do everything (ZooKeeper's OPEN_ACL_UNSAFE), as Curator
   * and kazoo by default: any client of the ensemble can delete or
   * overwrite lock nodes and so break the lock. Default, for
   * compatibility with contenders that use no credentials. */
  ZKC_ACL_OPEN = 0,
  /* Lock and election nodes: all permissions for their creator's
   * credentials only (CREATOR_ALL). Parents zkcoord creates: all for the
   * creator, read for everyone (others can list the queue, not join it or
   * delete from it). Needs auth_digest: every participant of a lock uses
   * the same credentials. */
  ZKC_ACL_SECURE = 1
} zkc_acl_preset_t;

/* The kind of node zkcoord is about to create. */
typedef enum zkc_node_kind {
  ZKC_NODE_PARENT = 1,     /* a missing parent of a lock or election path */
  ZKC_NODE_PARTICIPANT = 2 /* a lock, latch or selector node */
} zkc_node_kind_t;

/* Chooses the ACL of one node: `path` is the node's full path (without the
 * chroot; for a participant, the path and name prefix before the sequence
 * number). Returns the entries and sets *count (at least 1), or returns
 * NULL to use the client's ACL (acl, else acl_preset). The entries must
 * stay valid until the client is closed (a static table, or one owned by
 * ctx). Called on the thread that creates the node (a caller of acquire, or
 * a latch or selector thread): it must not block nor call zkcoord. */
typedef const zkc_acl_t *(*zkc_acl_fn)(void *ctx, const char *path,
                                       zkc_node_kind_t kind, size_t *count);

typedef struct zkc_client_opts {
  /* Requested session timeout; the ensemble may narrow it to its
   * [2, 20] x tickTime range. Default 10000. */
  int session_timeout_ms;
  /* How long zkc_client_open waits for the first connection. Default
   * 15000. */
  int connect_timeout_ms;
  zkc_retry_policy_t retry;
  zkc_parent_mode_t parent_mode;
  /* Data stored in every node this client creates for a lock or election:
   * identifies the holder. NULL = "<hostname>:<pid>". Copied at open. */
  const char *holder_id;
  /* Log sink; NULL (default) = no log at all: zkcoord writes nothing to
   * stderr or anywhere else by itself, and drops the ZooKeeper client's
   * lines for this client's handle. zkc_log_stderr is a sink that prints
   * them. */
  zkc_log_fn log_fn;
  void *log_ctx;
  /* Most verbose level delivered. Default ZKC_LOG_ERROR: through an outage
   * that is a few lines at most (zkcoord's own: a lost session, a lost
   * lock), never one per reconnect attempt. ZKC_LOG_INFO adds the session's
   * states (SUSPENDED, RECONNECTED, ...) and the recipes' steps. The
   * ZooKeeper client's own lines, whatever their level there (it logs
   * every refused reconnect attempt as an error), come through this sink
   * at ZKC_LOG_DEBUG only. */
  zkc_log_level_t log_level;
  /* Lock-loss policy for every recipe of this client. 0 (default, as
   * Curator's standard policy): a held lock is lost only with the session
   * (LOST); while SUSPENDED it is in doubt (zkc_hold_is_held answers 0) and
   * comes back with RECONNECTED. 1: SUSPENDED already counts as lost. */
  int lost_on_suspended;
  /* 1 allows connecting to read-only servers (state READ_ONLY). Default 0. */
  int allow_read_only;
  /* Digest credentials "user:password" (user without ':', neither part
   * empty), added to every session this client opens, the first and each
   * one that replaces a lost session. NULL (default) = none. Copied at
   * open. Digest authentication itself never fails: a wrong password shows
   * as ZKC_ENOAUTH when an ACL refuses an operation. Without TLS (which
   * Debian's C client lacks) the credentials travel in clear text. */
  const char *auth_digest;
  /* ACL of every node zkcoord creates (see zkc_acl_preset_t). Default
   * ZKC_ACL_OPEN. */
  zkc_acl_preset_t acl_preset;
  /* One ACL for every node zkcoord creates, instead of the preset: acl_count
   * entries, copied at open. NULL (default) = the preset. */
  const zkc_acl_t *acl;
  size_t acl_count;
  /* Per-node choice, asked before each create; NULL (default) = acl or
   * the preset for every node. */
  zkc_acl_fn acl_fn;
  void *acl_ctx;
} zkc_client_opts_t;

/* Fills the `size` bytes of *opts (pass sizeof *opts) with the defaults: the
 * form of the options' init that lets zkc_client_opts_t grow without an ABI
 * break (fields are only ever appended, each with 0 as its default; bytes
 * this library does not know are zeroed). Returns ZKC_OK, or ZKC_EINVAL
 * (opts NULL, or size smaller than a zkc_client_opts_t of 1.0.0: nothing
 * written; zkc_last_error_message says which). Thread-safe. */
ZKC_EXTERN int zkc_client_opts_init_size(zkc_client_opts_t *opts,
                                         size_t size);

/* Fills `opts` with the defaults above. Accepts NULL (no-op). Thread-safe.
 * Inline over zkc_client_opts_init_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline void zkc_client_opts_init(zkc_client_opts_t *opts) {
  if (opts != NULL) (void)zkc_client_opts_init_size(opts, sizeof(zkc_client_opts_t));
}

/* As zkc_client_open, with `opts_size` the size of *opts (sizeof *opts, as
 * given to its init): ZKC_EINVAL, nothing made, when opts_size is smaller
 * than a zkc_client_opts_t of 1.0.0, or larger with a byte this library does
 * not know set (zkc_last_error_message names the size and the type); opts
 * NULL = defaults, whatever opts_size. Otherwise the codes of
 * zkc_client_open. Thread-safe. */
ZKC_EXTERN int zkc_client_open_size(zkc_client_t **out,
                                    const char *connect_string,
                                    const zkc_client_opts_t *opts,
                                    size_t opts_size);

/* Opens a ZooKeeper session on `connect_string` ("host:port,host:port" with
 * an optional chroot suffix "/app") and waits up to connect_timeout_ms for
 * the first connection. A host given without any ':' gets port 2181
 * ("localhost" is "localhost:2181"), as ZooKeeper's Java client (so
 * Curator) and kazoo give it. `opts` may be NULL (defaults); it is copied.
 * Every ZKC_EINVAL says why: zkc_last_error_message, and the same line
 * through the options' log sink at ZKC_LOG_ERROR (nothing without one;
 * none at ZKC_LOG_NONE).
 * On success *out is a new client, owned by the caller (zkc_client_close);
 * on failure *out is set to NULL (when out is not NULL).
 * Returns:
 *   ZKC_OK
 *   ZKC_EINVAL    out or connect_string NULL/empty, a malformed host list
 *                 (entries "host[:port]", printable ASCII, a port of
 *                 1..65535 after a ':'), a negative timeout,
 *                 a bad chroot, a retry policy with negative fields, a
 *                 holder_id over 1020 KiB, a malformed auth_digest, an ACL
 *                 entry with a NULL scheme or id or no permission, acl_count
 *                 0 with acl set (or set without acl), ZKC_ACL_SECURE
 *                 without auth_digest
 *   ZKC_ECONNECT  no server answered within connect_timeout_ms, or no host
 *                 name of the connect string resolves (each one that does
 *                 not is named in an error log line); names that resolve
 *                 are used even when others do not
 *   ZKC_ENOROOT   the chroot of the connect string does not exist
 *   ZKC_EAUTHFAILED  the ensemble refused the credentials (checked by one
 *                 round trip at open when auth_digest is set)
 *   ZKC_ECONNLOSS, ZKC_EOPTIMEOUT, ZKC_ENOAUTH
 *                 that round trip (or the chroot's check) failed
 *   ZKC_EDEADLK   called from a ZooKeeper callback thread
 *   ZKC_ENOMEM, ZKC_ESYSTEM
 * Thread-safe.
 * Inline over zkc_client_open_size: it passes the size of the options struct
 * this program was compiled with, so that it keeps working with a later
 * 1.x library whose struct grew. */
static inline int zkc_client_open(zkc_client_t **out,
                                  const char *connect_string,
                                  const zkc_client_opts_t *opts) {
  return zkc_client_open_size(out, connect_string, opts,
                              sizeof(zkc_client_opts_t));
}

/* Closes the session: the server deletes its lock nodes as it ends it. The
 * ZooKeeper client waits for the server's answer only briefly (at most
 * 1.5 s, less when other data from the server comes first, a watch's event
 * say), so on a loaded server the nodes may go just after close returns;
 * other sessions see them go through their watches as usual. Threads
 * blocked in this client's calls return ZKC_ECLOSED; close waits for them
 * to leave. Recipe objects made from the client stay valid until they are
 * destroyed, and every call on them returns ZKC_ECLOSED (release clears the
 * local state). Accepts NULL. Not twice on one client. Called from a
 * ZooKeeper callback thread it does nothing but log an error (closing there
 * would deadlock). */
ZKC_EXTERN void zkc_client_close(zkc_client_t *client);

/* The current session id (0 when not connected). Thread-safe.
 * Returns ZKC_OK, ZKC_EINVAL (NULL argument) or ZKC_ECLOSED. */
ZKC_EXTERN int zkc_client_session_id(zkc_client_t *client, int64_t *session_id);

/* The current connection state into *state. Thread-safe, never blocks.
 * Returns ZKC_OK or ZKC_EINVAL (NULL argument). After close: ZKC_OK with
 * ZKC_STATE_CLOSED. */
ZKC_EXTERN int zkc_client_state(zkc_client_t *client, zkc_state_t *state);

/* "CONNECTED", "SUSPENDED", ...; "UNKNOWN" for other values. Static. */
ZKC_EXTERN const char *zkc_state_name(zkc_state_t state);

/* Registers fn(ctx, ...) for state changes. The same (fn, ctx) pair may be
 * registered once. Returns ZKC_OK, ZKC_EINVAL (NULL client or fn, or the
 * pair already registered), ZKC_ENOMEM, ZKC_ECLOSED. Thread-safe. */
ZKC_EXTERN int zkc_client_add_listener(zkc_client_t *client, zkc_state_fn fn,
                                       void *ctx);

/* Unregisters the pair; once this returns, fn is not running and will not
 * be called again (called from fn itself, it takes effect after fn
 * returns). Returns ZKC_OK or ZKC_EINVAL (not registered). Thread-safe. */
ZKC_EXTERN int zkc_client_remove_listener(zkc_client_t *client,
                                          zkc_state_fn fn, void *ctx);

/* The session timeout the ensemble granted, in milliseconds. Thread-safe.
 * Returns ZKC_OK, ZKC_EINVAL or ZKC_ECLOSED. */
ZKC_EXTERN int zkc_client_session_timeout(zkc_client_t *client,
                                          int *timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_CLIENT_H */
