/* SPDX-License-Identifier: Apache-2.0 */
/* The one loss notice of a hold (zkc_hold_set_lost_callback), kept in one
 * table (hold_notice.c). A notice is set on one hold (its key) and told the
 * losses of its scope: the recipe object or async context whose loss paths
 * tell them. It covers every grant of its scope (a recipe's view) or one
 * grant, named by its token (a lease set, an async acquire's own hold, a
 * bound hold). The loss paths tell here once they have decided a loss,
 * outside their locks; the table calls nothing else of the library. */
#ifndef ZKC_HOLD_NOTICE_H
#define ZKC_HOLD_NOTICE_H

#include <stdint.h>

#include "zkcoord/hold.h"
#include "zkcoord/mutex.h" /* zkc_lost_reason_t */

/* Sets key's notice (replacing one set before) on scope's losses, of every
 * grant (grant 0) or of the grant with that token. ZKC_OK or ZKC_ENOMEM. */
int zkc__hold_notice_set(const void *key, const void *scope, int64_t grant,
                         zkc_hold_lost_fn fn, void *ctx);

/* Drops key's notice, once no other thread is telling it: it is never told
 * after this returns (a notice dropped from inside its own call is freed
 * as that call returns). */
void zkc__hold_notice_drop(const void *key);

/* A one-grant notice whose grant was found lost as it was set: dropped
 * unless that loss was told to it already (or is being told), 1 if
 * dropped. */
int zkc__hold_notice_withdraw(const void *key);

/* Drops every notice of scope (the recipe object or context is ending). */
void zkc__hold_notice_forget(const void *scope);

/* The grant `token` of scope was lost, for `why`: told to each notice of
 * scope covering it, once per notice and grant, on the calling thread. */
void zkc__hold_notice_tell(const void *scope, zkc_lost_reason_t why,
                           int64_t token);

#endif /* ZKC_HOLD_NOTICE_H */
