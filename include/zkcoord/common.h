/* zkcoord — export macro, error codes and small shared helpers.
 *
 * Every fallible zkcoord call returns an int: ZKC_OK (0) or a negative code.
 * ZooKeeper's own codes (ZCONNECTIONLOSS, ZNOAUTH, ZSESSIONEXPIRED, ...) are
 * passed through unchanged; zkcoord's own codes are <= -1000.
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

/* One table generates the codes, their names and their messages. */
#define ZKC_ERRNO_MAP(XX)                                                      \
  XX(EINVAL, -1000, "invalid argument")                                        \
  XX(ENOMEM, -1001, "out of memory")                                           \
  XX(ETIMEDOUT, -1002, "timed out")                                            \
  XX(ENOTOWNER, -1003, "the calling thread does not hold this lock")          \
  XX(EBUSY, -1004, "object in use: a lock is held or a call is in progress")   \
  XX(EDEADLK, -1005,                                                           \
     "blocking call from a ZooKeeper callback thread would deadlock")          \
  XX(ECLOSED, -1006, "the client is closed")                                   \
  XX(ELOST, -1007, "the ZooKeeper session was lost; the lock node is gone")    \
  XX(ECONNECT, -1008, "could not connect to the ZooKeeper ensemble in time")   \
  XX(ESYSTEM, -1009, "a system call failed (threads, clock or random)")        \
  XX(EPROTO, -1010, "unexpected answer from ZooKeeper")                        \
  XX(ENOROOT, -1011, "the chroot of the connect string does not exist")

typedef enum zkc_errno {
  ZKC_OK = 0,
#define ZKC__ERRNO_ENUM(name, value, msg) ZKC_##name = (value),
  ZKC_ERRNO_MAP(ZKC__ERRNO_ENUM)
#undef ZKC__ERRNO_ENUM
} zkc_errno_t;

/* Human-readable message for any code returned by zkcoord, including
 * ZooKeeper's own. Never NULL; the string is static. Thread-safe. */
ZKC_EXTERN const char *zkc_strerror(int rc);

/* Symbolic name of a code ("ZKC_ETIMEDOUT", "ZCONNECTIONLOSS", ...), or
 * "UNKNOWN". Never NULL; static. Thread-safe. */
ZKC_EXTERN const char *zkc_err_name(int rc);

/* Frees an array of strings returned by zkcoord (for example by
 * zkc_mutex_participant_nodes). Accepts NULL. */
ZKC_EXTERN void zkc_strings_free(char **strings, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* ZKCOORD_COMMON_H */
