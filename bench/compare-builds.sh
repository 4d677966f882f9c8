#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zkcoord beside another build of itself (the code before a change), in one
# run on one machine:
#  - the peers' scenarios (p: the mutex; r: read-write lock and semaphore)
#    with the other build's zkc_peer run as "zkcoord-base", interleaved
#    round by round with this build's (their ratios are zkcoord/zkcoord-base);
#  - zkc_bench's own scenarios (default k l h) from each build in turn,
#    base then this one, REPEATS times; each measure's median over the
#    repeats, min-max in brackets, and the ratio this/base.
# Each step is one bench/run.sh (its own fresh ensemble, stopped after).
#
# usage: bench/compare-builds.sh BASE_BUILD [--quick] [--out DIR] [--repeats N] [SCENARIO...]
#   BASE_BUILD  a CMake build directory of the other code, with its bench
#               built (cmake --build BASE_BUILD --target zkc_bench zkc_peer)
#   --quick     run.sh's smoke sizes (a check of this script, not figures)
#   SCENARIO    p, r and any of zkc_bench's (default: p r k l h)
# Writes DIR/compare.md (the table, also printed) and each run's directory.
# Environment: as bench/run.sh (ZKC_BUILD_ROOT, ZKC_ENSEMBLE_PORT_BASE, ...).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: compare-builds.sh BASE_BUILD [--out DIR] [--repeats N] [SCENARIO...]}
shift
out=build/compare-builds repeats=2 scen=() quick=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=(--quick); shift ;;
    --out) out=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    *) scen+=("$1"); shift ;;
  esac
done
[ ${#scen[@]} -gt 0 ] || scen=(p r k l h)
for b in zkc_bench zkc_peer; do
  [ -x "$base/bench/$b" ] || { echo "compare-builds: no $base/bench/$b (build it first)" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
log() { printf '==> compare-builds: %s\n' "$*" >&2; }

peers=() own=()
for s in "${scen[@]}"; do
  case $s in p | r) peers+=("$s") ;; *) own+=("$s") ;; esac
done

# The peers' scenarios: both builds as two libraries of one run.
for s in "${peers[@]}"; do
  log "$s: this build beside the base, round by round"
  ZKC_PEER_LIBS=zkcoord ZKC_BENCH_R_LIBS=zkcoord ZKC_PEER_BASE_BIN="$base/bench/zkc_peer" \
    "$ROOT/bench/run.sh" "${quick[@]}" --out "$out/$s" "$s" >"$out/$s.log" 2>&1
done

# zkc_bench's scenarios: base, then this build, REPEATS times.
if [ ${#own[@]} -gt 0 ]; then
  for i in $(seq 1 "$repeats"); do
    log "${own[*]}: base, repeat $i"
    ZKC_BENCH_BIN="$base/bench/zkc_bench" "$ROOT/bench/run.sh" "${quick[@]}" --out "$out/base-$i" \
      "${own[@]}" >"$out/base-$i.log" 2>&1
    log "${own[*]}: this build, repeat $i"
    "$ROOT/bench/run.sh" "${quick[@]}" --out "$out/this-$i" "${own[@]}" >"$out/this-$i.log" 2>&1
  done
fi

# The table: the peers' ratio rows as they are; zkc_bench's rows (every
# figure of a zkcoord variant, and its ratios) side by side.
{
  echo "| scenario | contenders | measure | variant | base | this | this/base |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for s in "${peers[@]}"; do
    awk -F, 'NR > 1 && $4 == "zkcoord/zkcoord-base" {
      printf "| %s | %s | %s | %s | | | %.3g (%.3g-%.3g) |\n", $1, $2, $3, "rounds: median (min-max)", $6, $7, $8 }' \
      "$out/$s/results.csv"
  done
  if [ ${#own[@]} -gt 0 ]; then
    for side in base this; do
      for i in $(seq 1 "$repeats"); do
        awk -F, -v side="$side" 'NR > 1 && $4 ~ /^zkcoord/ {
          print side "," $1 "," $2 "," $3 "," $4 "," $6 }' "$out/$side-$i/results.csv"
      done
    done | sort -t, -k2,5 -k1,1 | awk -F, '
      function med(s,   n, v, i, j, t) {
        n = split(s, v, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
          if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      }
      function span(s,   n, v, i, lo, hi) {
        n = split(s, v, " "); lo = v[1]; hi = v[1]
        for (i = 2; i <= n; i++) { if (v[i] + 0 < lo + 0) lo = v[i]; if (v[i] + 0 > hi + 0) hi = v[i] }
        return sprintf("%.4g-%.4g", lo, hi)
      }
      { key = $2 "|" $3 "|" $4 "|" $5; vals[key, $1] = vals[key, $1] " " $6; keys[key] = 1 }
      END {
        for (k in keys) {
          split(k, f, "|"); b = vals[k, "base"]; t = vals[k, "this"]
          if (b == "" || t == "") continue
          mb = med(b); mt = med(t)
          printf "| %s | %s | %s | %s | %.4g (%s) | %.4g (%s) | %s |\n", f[1], f[2], f[3], f[4],
            mb, span(b), mt, span(t), mb + 0 != 0 ? sprintf("%.3g", mt / mb) : "-"
        }
      }' | sort
  fi
} >"$out/compare.md"
cat "$out/compare.md"
