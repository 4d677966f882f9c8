#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Health check of the ZooKeeper server image: more than `ruok` (process up),
# `srvr` must report leader or follower, i.e. the server is in a quorum and
# serving. bash's /dev/tcp: no netcat needed in the image.
exec 3<>/dev/tcp/127.0.0.1/2181 || exit 1
printf srvr >&3
grep -E '^Mode: (leader|follower)' <&3
