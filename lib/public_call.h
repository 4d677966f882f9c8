/* SPDX-License-Identifier: Apache-2.0 */
/* A public call's end: every exported function that returns a ZKC_* code
 * is written
 *
 *   ZKC__PUBLIC(zkc_thing_do, (zkc_thing_t *t, int n), (t, n)) {
 *     ...body, returning a code...
 *   }
 *
 * which defines zkc_thing_do (the exported symbol, as declared in its public
 * header) around a static body; when the body returns a failure, the
 * calling thread's zkc_last_error_message is made to describe it: the
 * detail a refusal of this call gave for that code (zkc__refuse, with the
 * function, the argument and why), or else "zkc_thing_do: <zkc_strerror>".
 * So the message always describes the thread's last failed call, never an
 * older failure's detail. A call that succeeds leaves it as it was
 * (errors.c). */
#ifndef ZKC_PUBLIC_CALL_H
#define ZKC_PUBLIC_CALL_H

/* A mark taken as a public call starts. */
unsigned zkc__public_enter(void);
/* Its end: rc passes through; a failure sets the thread's message unless a
 * refusal since `mark` already described that code. */
int zkc__public_leave(const char *fn, unsigned mark, int rc);

#define ZKC__PUBLIC(name, params, args)                                  \
  static int name##__body params;                                        \
  int name params {                                                      \
    unsigned zkc__mark = zkc__public_enter();                            \
    return zkc__public_leave(#name, zkc__mark, name##__body args);       \
  }                                                                      \
  static int name##__body params

#endif /* ZKC_PUBLIC_CALL_H */
