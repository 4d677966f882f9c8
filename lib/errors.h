/* The one place where the ZooKeeper client's result codes enter zkcoord:
 * every request result and handle call goes through zkc__zk_error, so no
 * code above ops.c and handle.c ever sees a Z* code. */
#ifndef ZKC_ERRORS_H
#define ZKC_ERRORS_H

/* The ZKC_* code for a ZooKeeper client code (ZOK gives ZKC_OK). Codes that
 * are not the caller's to act on (marshalling, API misuse) become
 * ZKC_EPROTO. */
int zkc__zk_error(int zk_rc);

/* Remembers a failed ZooKeeper code for zkc_last_zk_code on the calling
 * thread (ZOK is ignored). */
void zkc__note_zk_code(int zk_rc);

/* Notes ZooKeeper's "authentication failed" on the calling thread: for a
 * refusal learnt from the session's state rather than a request's result. */
void zkc__note_auth_refused(void);

#endif /* ZKC_ERRORS_H */
