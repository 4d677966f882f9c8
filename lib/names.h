/* SPDX-License-Identifier: Apache-2.0 */
/* Pure functions on ZooKeeper paths and lock node names. No I/O, no
 * allocation except where a function says so: unit-testable and fuzzable. */
#ifndef ZKC_NAMES_H
#define ZKC_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Longest lock path accepted; leaves room for the 60-byte node name. */
#define ZKC__PATH_MAX 1024

/* Most node data zkcoord sends in one request (ids, fenced writes): the
 * server drops the connection of a client whose request exceeds its
 * jute.maxbuffer (1 MiB by default), which would put every lock of the
 * session in doubt. 4 KiB are left for the paths in the same request. */
#define ZKC__DATA_MAX (1020 * 1024)

/* Protected node prefix: "_c_" + 36-char UUID + "-" (Curator's layout). */
#define ZKC__PROTECTED_PREFIX "_c_"
#define ZKC__PROTECTED_LEN 40
#define ZKC__UUID_LEN 36
#define ZKC__SEQ_DIGITS 10

/* Room for a reason written by the *_problem functions below. */
#define ZKC__PROBLEM_MAX 200

/* Why `path` may not name a lock (the rule zkc__path_validate keeps), as a
 * phrase ("it must be absolute (start with '/')"), or NULL when it may. A
 * reason naming a byte is written into buf (len bytes) and buf returned;
 * the others are static. */
const char *zkc__path_problem(const char *path, char *buf, size_t len);

/* ZKC_OK when `path` may name a lock: absolute, not "/", no empty, "." or
 * ".." segment, no trailing "/", valid UTF-8 without control characters or
 * the code points ZooKeeper rejects, not under "/zookeeper", at most
 * ZKC__PATH_MAX bytes. ZKC_EINVAL otherwise (also for NULL). */
int zkc__path_validate(const char *path);

/* ZKC_OK when the host list of a connect string ("host:port,host:port",
 * up to an optional "/chroot", which is not checked here) is well formed:
 * non-empty entries of printable ASCII without spaces, each ending in
 * ":<port>" with a port of 1..65535. ZKC_EINVAL otherwise (also for NULL):
 * such a string would only fail later, in a name lookup. */
int zkc__hosts_validate(const char *connect);
/* Why zkc__hosts_validate refuses `connect`, as zkc__path_problem says it;
 * NULL when it accepts it. */
const char *zkc__hosts_problem(const char *connect, char *buf, size_t len);

/* The port a server of a connect string without one gets, as ZooKeeper's
 * Java client (so Curator) and kazoo give it. */
#define ZKC__DEFAULT_PORT "2181"
/* A new copy of the connect string `connect` in which every server named
 * without any ':' gets ":2181" ("a,b:2182/x" -> "a:2181,b:2182/x"); the
 * chroot is kept as it is. NULL on OOM or for NULL. */
char *zkc__connect_with_ports(const char *connect);

/* ZKC_OK when `id` (node data: any bytes up to the NUL) is NULL or at most
 * ZKC__DATA_MAX bytes long, else ZKC_EINVAL. */
int zkc__id_validate(const char *id);

/* Parses the sequence ZooKeeper appended to a sequential node's name
 * (10 digits, or a sign and digits once the per-parent counter wrapped past
 * 2^31). Returns 1 and sets *seq, or 0 when `name` has no such suffix. */
int zkc__node_sequence(const char *name, int64_t *seq);

/* One child of a lock path, with its queue position key. */
typedef struct zkc__contender {
  const char *name; /* borrowed from the caller's array */
  int64_t key;      /* sequence, unwrapped when the counter wrapped */
} zkc__contender_t;

/* Fills `out` (room for n) with the children that carry a sequence, in
 * queue order (ascending sequence, ties by name) and returns how many.
 * A queue spanning the counter's wrap from 2^31-1 to -2^31 stays in order. */
size_t zkc__sort_contenders(char *const *names, size_t n,
                            zkc__contender_t *out);

/* Index in a sorted contender array of the node called `name`, or -1. */
long zkc__contender_index(const zkc__contender_t *sorted, size_t n,
                          const char *name);

/* What a child of a read-write lock path stands for: Curator's "__WRIT__"
 * and kazoo's "__lock__" are writers, Curator's "__READ__" and kazoo's
 * "__rlock__" readers, when the marker comes right before the sequence
 * (so a marker inside a uuid or id does not count). Anything else is
 * ZKC__RW_OTHER. */
typedef enum { ZKC__RW_OTHER, ZKC__RW_READ, ZKC__RW_WRITE } zkc__rw_kind_t;
zkc__rw_kind_t zkc__rw_kind(const char *name);

/* Index of the nearest node before position `me` of a sorted contender
 * array that is not a reader (the node a waiting reader watches), or -1
 * when none: the reader is granted. A sequenced node of no read-write kind
 * (a mutex's "lock-", anything unknown) counts as a writer: waiting on an
 * earlier node can only add safety, never a cycle. */
long zkc__rw_writer_before(const zkc__contender_t *sorted, long me);

/* Curator's revocation marker (Revoker.attemptRevoke): these 10 bytes, no
 * terminator, as a lock node's whole data. */
#define ZKC__REVOKE_MARKER "__REVOKE__"
#define ZKC__REVOKE_MARKER_LEN 10
/* 1 when data[0..len) is exactly the marker. */
int zkc__is_revoke_marker(const char *data, int len);

/* 1 when `name` is a protected node name ("_c_<uuid>-..."), else 0. */
int zkc__is_protected_name(const char *name);

/* 1 when `name` is the protected node made with `uuid`, else 0. */
int zkc__name_has_uuid(const char *name, const char *uuid);

/* Last segment of a path (after the final '/'); `path` itself if none. */
const char *zkc__basename(const char *path);

/* New string "<a>/<b>" (a must not end with '/'); NULL on OOM. */
char *zkc__path_join(const char *a, const char *b);

/* New string: the parent of `path` ("/" for "/x"); NULL on OOM or when
 * path is "/" or has no '/'. */
char *zkc__path_parent(const char *path);

/* ---- which recipe a path's children belong to: the one rule, used by
 * the recipes (which refuse a path of another recipe's layout), by
 * zkc_contender_layout (so by status and the command-line tool) ---- */

/* What zkc_contender_t.kind says of a child named `name`: "read",
 * "write", "exclusive", or NULL for a name without a sequence. Static. */
const char *zkc__node_kind(const char *name);

/* Set by zkc__child_layout beside ZKC_LAYOUT_LOCK when the node carries a
 * lock's own marker before its sequence ("lock-", "__lock__", "__rlock__",
 * "__WRIT__", "__READ__"): known to be a lock's, not a squatter's. Not a
 * public bit (zkc_contender_layout clears it). */
#define ZKC__LAYOUT_KNOWN_LOCK (1u << 8)

/* The ZKC_LAYOUT_* bits (zkcoord/status.h) of a child named `name` of a
 * path, with ZKC__LAYOUT_KNOWN_LOCK; `ephemeral` is 1 when the node is
 * ephemeral, 0 when persistent, -1 when not known (a children list:
 * counted as ephemeral). Of the lock nodes, "lock-" (a plain lock's) adds
 * ZKC_LAYOUT_MUTEX, "__WRIT__", "__READ__" and kazoo's "__rlock__" (a
 * read-write lock's) add ZKC_LAYOUT_RWLOCK; kazoo's "__lock__", which its
 * Lock and its WriteLock both make, adds neither: it cannot be told. */
unsigned zkc__child_layout(const char *name, int ephemeral);

/* The layout a recipe keeps on its path. */
typedef enum {
  ZKC__AS_NONE,      /* no check (a semaphore's own locks/ queue) */
  ZKC__AS_LOCK,      /* plain lock: mutex, selector, async acquire */
  ZKC__AS_ELECTION,  /* leader latch */
  ZKC__AS_SEMAPHORE, /* semaphore */
  ZKC__AS_RWLOCK     /* either side of a read-write lock */
} zkc__recipe_layout_t;

/* The layout a lock queue whose nodes are named "_c_<uuid>-<marker><seq>"
 * keeps: "latch-" an election's, Curator's "__WRIT__" and "__READ__" a
 * read-write lock's, any other (a mutex's "lock-") a plain lock's. */
zkc__recipe_layout_t zkc__marker_layout(const char *marker);

/* The one bit among `layouts` (children's zkc__child_layout or'ed) that a
 * recipe keeping layout `as` must not share a path with, or 0. A plain
 * lock and a read-write lock refuse each other's known nodes
 * (ZKC_LAYOUT_RWLOCK, ZKC_LAYOUT_MUTEX): Curator's and kazoo's readers
 * skip a mutex's node and Curator's mutex sorts readers last, so a peer
 * would hold beside the other; a node of either that cannot be told
 * (kazoo's "__lock__", a squatter's) queues with both. An election and a
 * semaphore refuse a lock's known nodes only (ZKC__LAYOUT_KNOWN_LOCK): a
 * squatter's sequenced node queues with a latch as with a lock. */
unsigned zkc__layout_refused(zkc__recipe_layout_t as, unsigned layouts);

/* A phrase naming the recipe of a bit zkc__layout_refused returns ("a
 * semaphore (...)"). Static. */
const char *zkc__layout_what(unsigned layout);

/* What a recipe keeping layout `as` is, for a message ("a lock", "a
 * read-write lock"). Static. */
const char *zkc__layout_as_what(zkc__recipe_layout_t as);

/* The semaphore's shared count as its node holds it (Curator's
 * SharedCount): 4 bytes, big-endian, signed. Here, below the recipes, so
 * that the lease run reads it without reaching into the semaphore. */
#define ZKC__COUNT_BYTES 4
void zkc__sem_count_encode(int32_t v, char out[ZKC__COUNT_BYTES]);
/* The count from a node's data: exactly 4 bytes; ZKC_EPROTO otherwise. */
int zkc__sem_count_decode(const char *data, int len, int32_t *v);

/* Times a create may find its parent gone (deleted by another client, a
 * container reaped) and make it again before giving up. */
#define ZKC__PARENT_RECREATE_MAX 8

/* The walk that makes a path's missing parents, one create at a time
 * (zkc__call's parents option, call.c; the queue engine's run, which
 * never waits): `*up` is how many levels above `path` the next create is
 * (0: path itself), `*steps` the creates answered so far (both 0 at the
 * start). zkc__parent_path is the node to create at level `up` (malloc;
 * NULL without memory), sent as a ZKC__REQ_PARENT. Once that create is
 * answered rc, zkc__parent_next says where the walk goes: ZKC_OK
 * with *up the next level, -1 once path exists; or the walk's failure
 * (ZKC_ENOROOT: the chroot itself is missing; the create's refusal; the
 * connection's trouble, to retry from *up). */
char *zkc__parent_path(const char *path, int up);
int zkc__parent_next(const char *path, int rc, int *up, int *steps);

#endif /* ZKC_NAMES_H */
