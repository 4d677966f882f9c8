/* SPDX-License-Identifier: Apache-2.0 */
/* The error space's calls inside the library (errors.c): ZooKeeper's
 * result codes translated, and the calling thread's last error. No local
 * header here, so that errors.c stands on nothing of the session layer and
 * everything that reports a failure stands on it side by side. */
#ifndef ZKC_ERRORS_H
#define ZKC_ERRORS_H

#include <stdarg.h>

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

/* Sets the thread's zkc_last_error_message to the detail of a failure
 * with code rc (errors.c): the public call that returns rc keeps it
 * (zkc__public_leave, session.h). */
void zkc__error_message_vset(int rc, const char *fmt, va_list ap);
void zkc__error_detail(int rc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* 1 when a detail for rc was written on this thread since `mark`
 * (zkc__public_enter). */
int zkc__error_detailed_since(unsigned mark, int rc);

/* A public call's start and end (session.h says how every exported call
 * uses them): declared for the recipes in session.h and here again for
 * errors.c, which defines them; a file that includes both has the
 * compiler check that they agree. */
unsigned zkc__public_enter(void);
int zkc__public_leave(const char *fn, unsigned mark, int rc);

#endif /* ZKC_ERRORS_H */
