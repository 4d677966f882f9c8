#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The peers on a network: at each round trip, one bench/run.sh on a
# networked ensemble with every session on one follower, running
#   n  the network itself (a read's and a write's round trip per link),
#   a  the uncontended cycle against the raw create + delete loop,
#   g  the hand-off against the raw delete + one notification,
#   p  zkcoord's mutex beside Curator, kazoo and go-zookeeper on one path,
#   r  the read-write lock beside Curator and kazoo,
# p and r cut to the rows the network question needs so that a round trip
# takes minutes, not an hour. Each run keeps its directory DIR/rtt-MS with
# its tables and the load average before and after (results.md).
#
# usage: bench/net-peers.sh [--out DIR] [RTT_MS...]   (default 1 4)
# Honours what bench/run.sh honours; ZKC_BENCH_P_ARGS and ZKC_BENCH_R_ARGS
# replace the rows below.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT=$PWD

out=$ROOT/build/bench-net-peers
rtts=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a directory}; shift ;;
    [0-9]*) rtts+=("$1") ;;
    *) echo "usage: $0 [--out DIR] [RTT_MS...]" >&2; exit 2 ;;
  esac
  shift
done
[ ${#rtts[@]} -gt 0 ] || rtts=(1 4)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Nine rounds of two seconds after one unreported, as scenario p's default;
# the read-write rows in seven.
export ZKC_BENCH_P_ARGS=${ZKC_BENCH_P_ARGS:-9 2000 contend:8 contend:32}
export ZKC_BENCH_R_ARGS=${ZKC_BENCH_R_ARGS:-7 2000 rw90:8 rw90:32 rw10:8 rw10:32}
for r in "${rtts[@]}"; do
  "$ROOT/bench/run.sh" --pin follower --rtt "$r" --out "$out/rtt-$r" n a g p r >/dev/null
done
for r in "${rtts[@]}"; do
  printf '\n## %s ms round trip\n' "$r"
  cat "$out/rtt-$r/results.md"
done
