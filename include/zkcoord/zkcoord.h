/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord — ZooKeeper coordination recipes for C: the umbrella header. */
#ifndef ZKCOORD_ZKCOORD_H
#define ZKCOORD_ZKCOORD_H

#include "zkcoord/version.h"
#include "common.h"
#include "client.h"
#include "mutex.h"
#include "revoke.h"
#include "multilock.h"
#include "rwlock.h"
#include "latch.h"
#include "selector.h"
#include "status.h"
#include "observer.h"
#include "semaphore.h"
#include "lease.h"
#include "shared_count.h"
#include "async.h"
#include "hold.h"
#include "stats.h"

/* 0.x compatibility header (forwards to latch.h); kept through 1.x. */
#include "leader.h"

#endif /* ZKCOORD_ZKCOORD_H */
