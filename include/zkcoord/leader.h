/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord 0.x compatibility header: the leader latch's calls (zkc_latch_*)
 * are declared in zkcoord/latch.h, which this includes. Include latch.h in
 * new code; this header goes in 1.0. */
#ifndef ZKCOORD_LEADER_H
#define ZKCOORD_LEADER_H

#include "latch.h"

#endif /* ZKCOORD_LEADER_H */
