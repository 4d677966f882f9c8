#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The client's own CPU per contended mutex cycle on loopback: one path,
# N sessions in one process, one process per program and row under
# `perf stat -e task-clock,context-switches` (the whole process: threads,
# set-up and close included), the programs interleaved round by round, each
# round begun by the next in turn:
#   zkcoord   bench/peers/zkc_peer (zkcoord's mutex)
#   raw-c     the same with ZKC_PEER_RAW: the threaded C client's
#             synchronous calls in go-zookeeper's protocol
#   mt-async  results/st-client/lockpeer.c on the threaded C client's
#             asynchronous calls (its completion thread, as zkcoord)
#   mt-sync   the same with LOCKPEER_SYNC: each wait sent behind a sync
#             through the leader, as zkcoord's waiting round (6 requests
#             a cycle): the protocol's cost apart from the library's
#   go-zookeeper  bench/peers/gozk_peer.go, when Go and its source are there
# A cycle count is the program's window rate times 1.2 windows (each runs a
# fifth of a window first as warm-up, at the same rate); zkc_peer also
# prints its true count and the requests the servers received per cycle
# (and zkcoord's own count, zkc_client_stats) with ZKC_PEER_COUNTS.
#
# usage: bench/cpu-cycle.sh [--out DIR] [ROUNDS [ROUND_MS [N...]]]   (default 5 3000 8 32)
# Prints and writes DIR/cpu.csv: round,program,n,rate,cycles,task_ms,switches,requests,lib_requests
# and DIR/cpu.md, medians (min-max) per program and N and the per-round
# ratios against mt-async. Honours ZKC_BUILD_ROOT, ZKC_ENSEMBLE_PORT_BASE and
# ZKC_ENSEMBLE_DIR as bench/run.sh does; starts and removes its own ensemble.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT=$PWD
readonly BUILD=${ZKC_BUILD_ROOT:-$ROOT/build}/default
export ZKC_ENSEMBLE_DIR=${ZKC_ENSEMBLE_DIR:-${TMPDIR:-/tmp}/zkcoord-bench-ensemble}
export ZKC_ENSEMBLE_DELAY_US=off
readonly ENSEMBLE=$ROOT/test/ensemble/zk-ensemble.sh

out=$ROOT/build/bench-cpu
if [ "${1:-}" = --out ]; then out=${2:?--out needs a directory}; shift 2; fi
rounds=${1:-5} round_ms=${2:-3000}
shift $(($# > 2 ? 2 : $#))
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(8 32)
mkdir -p "$out"
out=$(cd "$out" && pwd)
log() { printf '==> %s\n' "$*" >&2; }
command -v perf >/dev/null || { echo "perf missing (Debian: linux-perf)" >&2; exit 1; }

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" --target zkc_peer -j "$(nproc)" >/dev/null
peers=$BUILD/peers
mkdir -p "$peers"
cc -O2 -DMT -DTHREADED "$ROOT/bench/results/st-client/lockpeer.c" -lzookeeper_mt -lpthread \
  -o "$peers/lp-mt"
libs=(zkcoord raw-c mt-async mt-sync)
cmds=("$BUILD/bench/zkc_peer" "env ZKC_PEER_RAW=1 $BUILD/bench/zkc_peer" "$peers/lp-mt"
  "env LOCKPEER_SYNC=1 $peers/lp-mt")
gopath=${ZKC_PEER_GOPATH:-/usr/share/gocode}
if command -v go >/dev/null && GO111MODULE=off GOPATH=$gopath GOFLAGS='' GOPROXY=off \
    GOCACHE=$peers/gocache go build -o "$peers/gozk_peer" "$ROOT/bench/peers/gozk_peer.go" 2>/dev/null; then
  libs+=(go-zookeeper) cmds+=("$peers/gozk_peer")
else
  log "go-zookeeper not built: left out"
fi

# shellcheck source=bench/ensemble.sh
. "$ROOT/bench/ensemble.sh"
start_ensemble
port_base=${ZKC_ENSEMBLE_PORT_BASE:-2180}
connect=127.0.0.1:$((port_base + 1)),127.0.0.1:$((port_base + 2)),127.0.0.1:$((port_base + 3))

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
csv=$out/cpu.csv
echo "round,program,n,rate,cycles,task_ms,switches,requests,lib_requests" >"$csv"
k=${#libs[@]}
for ((r = 0; r <= rounds; r++)); do # round 0: warm-up, not reported
  for n in "${ns[@]}"; do
    for ((j = 0; j < k; j++)); do
      i=$(((j + r) % k))
      st=$out/perf.txt
      # shellcheck disable=SC2086 # the command line is words
      res=$(ZKC_PEER_COUNTS=1 perf stat -x, -o "$st" -e task-clock,context-switches \
        ${cmds[$i]} "$connect" "/zkc-cpu/$$/${libs[$i]}-$r" "$round_ms" "contend:$n") ||
        { log "${libs[$i]} failed in round $r"; continue; }
      ((r > 0)) || continue
      res=$res awk -F, -v r="$r" -v lib="${libs[$i]}" -v n="$n" -v ms="$round_ms" '
        BEGIN { m = split(ENVIRON["res"], lines, "\n"); cyc = req = lreq = ""
          for (x = 1; x <= m; x++) { split(lines[x], f, ",")
            if (f[1] == "M" && f[2] == "contend") rate = f[4]
            if (f[2] == "contend-cycles") cyc = f[4]
            if (f[2] == "contend-requests") req = f[4]
            if (f[2] == "contend-lib-requests") lreq = f[4] } }
        $3 == "task-clock" { task = $1 } $3 == "context-switches" { sw = $1 }
        END { est = rate * 1.2 * ms / 1000
          printf "%d,%s,%d,%s,%.0f,%.1f,%d,%s,%s\n", r, lib, n, rate, est, task, sw, req, lreq
          if (cyc != "") printf "# %s true cycles %s against %.0f estimated\n", lib, cyc, est > "/dev/stderr" }' "$st" >>"$csv"
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$out/perf.txt"

# Medians per program and N; ratios to mt-async taken per round.
{
  printf '# Client CPU per contended cycle (%s)\n\n' "$(date -u +%F)"
  printf 'bench/cpu-cycle.sh %s %s %s; load average %s before, %s after\n\n' \
    "$rounds" "$round_ms" "${ns[*]}" "$load_before" "$load_after"
  awk -F, -f "$ROOT/bench/cpu-table.awk" "$csv"
} >"$out/cpu.md"
cat "$out/cpu.md"
