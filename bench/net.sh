#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The network matrix: bench/run.sh on a networked ensemble at each round
# trip (every link relayed with half of it each way, zkc_netdelay), plus the
# relays' own cost (the same scenarios with no relay and with relays at
# zero delay), then one table, net.md, of zkcoord against the raw C
# client's chain at each round trip:
#   uncontended: zkcoord's cycle rate / the raw create + delete loop (a)
#   hand-off:    zkcoord's p50 from the release call / the raw delete
#                committed plus one notification to a blocked thread (g)
#   network:     a read's round trip through the client relay minus the
#                same read on the server's own port (n)
#
# usage: bench/net.sh [--quick] [--out DIR] [--pin follower|leader] [RTT_MS...]   (default 0.2 1 4)
# Every session of a and g is on one server, a follower unless --pin says
# leader: both sides of a ratio then make the same round trips.
# Each run keeps its own directory under DIR (none, rtt-0, rtt-0.2, ...).
# Honours what bench/run.sh honours (ZKC_ENSEMBLE_PORT_BASE, ZKC_ENSEMBLE_DIR,
# ZKC_BENCH_BIN, ZKC_NETDELAY).
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT=$PWD

out=$ROOT/build/bench-net
quick=()
pin=follower
rtts=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=(--quick) ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --pin) pin=${2:?--pin needs follower or leader}; shift ;;
    [0-9]*) rtts+=("$1") ;;
    *) echo "usage: $0 [--quick] [--out DIR] [--pin follower|leader] [RTT_MS...]" >&2; exit 2 ;;
  esac
  shift
done
[ ${#rtts[@]} -gt 0 ] || rtts=(0.2 1 4)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# One run.sh per network, the scenarios a, g and n each.
"$ROOT/bench/run.sh" "${quick[@]}" --pin "$pin" --out "$out/none" n a g >/dev/null
for r in 0 "${rtts[@]}"; do
  "$ROOT/bench/run.sh" "${quick[@]}" --pin "$pin" --rtt "$r" --out "$out/rtt-$r" n a g >/dev/null
done

# The table (bench/net-table.awk reads every run's results.csv).
{
  printf '# Network matrix (%s)\n\n' "$(date -u +%F)"
  printf 'bench/net.sh %s--out DIR --pin %s %s\n\n' "${quick[*]:+${quick[*]} }" "$pin" "${rtts[*]}"
  awk -v rtts="none 0 ${rtts[*]}" -v dir="$out" -f "$ROOT/bench/net-table.awk"
} >"$out/net.md"
cat "$out/net.md"
