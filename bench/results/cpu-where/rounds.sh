#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU per contended mutex cycle on loopback: two zkcoord builds (BASE_PEER,
# NEW_PEER: each a build's bench/zkc_peer) and the threaded client's own
# asynchronous loop (LOCKPEER: ../st-client/lockpeer.c built with -DTHREADED),
# interleaved round by round, 8 and 32 sessions on one path, perf stat over
# each process. Round 0 warms the servers' JIT and is not kept.
#
# usage: rounds.sh CONNECT BASE_PEER NEW_PEER LOCKPEER [ROUNDS] [ROUND_MS]
# writes cpu.csv in the current directory: round,prog,n,rate,task_ms,switches,req
set -euo pipefail
connect=$1
cmds=("$2" "$3" "$4")
progs=(base new mt)
rounds=${5:-6} round_ms=${6:-4000}
echo "round,prog,n,rate,task_ms,switches,req" >cpu.csv
for ((r = 0; r <= rounds; r++)); do
  for n in 8 32; do
    for j in 0 1 2; do
      i=$(((j + r) % 3))
      res=$(ZKC_PEER_COUNTS=1 perf stat -x, -o st.txt -e task-clock,context-switches \
        "${cmds[$i]}" "$connect" "/cpu-where/$$/$r-$n-${progs[$i]}" "$round_ms" "contend:$n")
      ((r > 0)) || continue
      rate=$(awk -F, '$2 == "contend" { print $4 }' <<<"$res")
      req=$(awk -F, '$2 == "contend-lib-requests" { print $4 }' <<<"$res")
      awk -F, -v r="$r" -v p="${progs[$i]}" -v n="$n" -v rate="$rate" -v req="$req" '
        $3 == "task-clock" { t = $1 } $3 == "context-switches" { s = $1 }
        END { printf "%d,%s,%d,%s,%s,%s,%s\n", r, p, n, rate, t, s, req }' st.txt >>cpu.csv
    done
  done
done
rm -f st.txt
