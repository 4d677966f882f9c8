/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord — ZooKeeper coordination recipes for C: the umbrella header. */
#ifndef ZKCOORD_ZKCOORD_H
#define ZKCOORD_ZKCOORD_H

#include "zkcoord/version.h"
#include "common.h"
#include "client.h"
#include "mutex.h"
#include "multilock.h"
#include "rwlock.h"
#include "leader.h"
#include "selector.h"
#include "status.h"
#include "observer.h"
#include "semaphore.h"
#include "async.h"
#include "stats.h"

#endif /* ZKCOORD_ZKCOORD_H */
