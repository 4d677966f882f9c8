#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs zkcoord's benchmark matrix in one command: builds zkc_bench, starts a
# fresh local 3-server ensemble (test/ensemble/zk-ensemble.sh), runs the
# scenarios a-i, k (10,000 pending async acquires), l (leader hand-off,
# beside Curator's LeaderLatch and LeaderSelector), the peers (p: Curator,
# kazoo and go-zookeeper beside zkcoord's mutex, bench/peers/) and the
# recipes beside the peers (r: read-write lock and semaphore against Curator
# and kazoo), stops the ensemble, and writes into the output directory:
#
#   results.csv   every figure: median, min and max over the runs
#   targets.csv   the issue's targets, met or MISSED, with the measured value
#   results.json  both, plus the machine and its load during the run
#   results.md    the table (Markdown), also printed on stdout
#   contention.png  throughput and latency against the number of contenders
#   peers.png       one lock path: rate and hand-off of each library
#   recipes.png     read-write lock and semaphore rates of each library (r)
#   leader.png      scenario l: leader hand-off, graceful and crash
#
# The stats' cost (m) is counted in instructions under callgrind, not
# timed: a few atomic increments against a cycle of network round trips are
# below what timing can tell apart on a shared machine.
#
# usage: bench/run.sh [--quick] [--out DIR] [--rtt MS] [SCENARIO...]   (default: a b c d e f g h i k l m p r)
#   --quick   smoke run: 2 short rounds, smaller sizes (about half a minute)
#   --rtt MS  a networked ensemble: every link (client, quorum, election) through a
#             relay that adds MS/2 milliseconds each way (zkc_netdelay; 0: the relays
#             alone), the clients on the client relays; scenario n shows the round trips
#   --pin follower|leader  every session on that one server (the first follower, or the
#             leader), so that zkcoord and the raw loops it is compared with make the same
#             number of round trips (a write from a follower's client takes 3, from the
#             leader's 2); without it each session picks any of the three
#   --out     output directory (default build/bench-results; the committed
#             figures live in bench/results)
#
# Environment: ZKC_BUILD_ROOT (default ./build), ZKC_BENCH_BIN (a built
# zkc_bench to use instead of building one), ZKC_ENSEMBLE_PORT_BASE
# (default 2180: client ports 2181-2183), ZKC_ENSEMBLE_DIR (default
# ${TMPDIR:-/tmp}/zkcoord-bench-ensemble, apart from the tests' ensemble),
# ZKC_BENCH_R_ARGS (scenario r's rounds, milliseconds per round and rows,
# e.g. "9 2000 sem3k1:8 sem10k1:32", instead of the whole list),
# ZKC_BENCH_P_ARGS (the same for scenario p, e.g. "9 2000 contend:8 contend:32"),
# ZKC_BENCH_R_LIBS (scenario r's libraries, default "zkcoord curator kazoo";
# bench/compare-builds.sh names zkcoord alone, beside ZKC_PEER_BASE_BIN).
# gnuplot (Debian: gnuplot-nox) is installed when missing and apt-get is
# usable; without it the plot is skipped. The peers' packages are not
# installed here (tools/bootstrap.sh bench does): a missing peer is reported
# as missing in every output.
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT=$PWD
readonly BUILD=${ZKC_BUILD_ROOT:-$ROOT/build}/default
export ZKC_ENSEMBLE_DIR=${ZKC_ENSEMBLE_DIR:-${TMPDIR:-/tmp}/zkcoord-bench-ensemble}
readonly ENSEMBLE=$ROOT/test/ensemble/zk-ensemble.sh

out=$ROOT/build/bench-results
quick=()
rtt=
pin=
scenarios=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=(--quick) ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --rtt) rtt=${2:?--rtt needs milliseconds}; shift
           [[ $rtt =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "--rtt takes milliseconds, e.g. 0.2, 1, 4" >&2; exit 2; } ;;
    --pin) pin=${2:?--pin needs follower or leader}; shift
           [[ $pin == follower || $pin == leader ]] || { echo "--pin takes follower or leader" >&2; exit 2; } ;;
    [a-iklmnpr]) scenarios+=("$1") ;;
    *) echo "usage: $0 [--quick] [--out DIR] [--rtt MS] [--pin follower|leader] [a|b|c|d|e|f|g|h|i|k|l|m|n|p|r ...]" >&2; exit 2 ;;
  esac
  shift
done
[ ${#scenarios[@]} -gt 0 ] || scenarios=(a b c d e f g h i k l m p r)
mkdir -p "$out"
out=$(cd "$out" && pwd)

log() { printf '==> %s\n' "$*" >&2; }

ensure_gnuplot() {
  command -v gnuplot >/dev/null && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
  log "installing gnuplot-nox for the plot"
  { "${sudo[@]}" apt-get update -q && DEBIAN_FRONTEND=noninteractive \
      "${sudo[@]}" apt-get install -y -q --no-install-recommends gnuplot-nox; } \
    >/dev/null 2>&1 || log "gnuplot unavailable: no plot"
}

bench=${ZKC_BENCH_BIN:-}
if [ -z "$bench" ]; then
  log "building zkc_bench in $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" --target zkc_bench zkc_peer zkc_netdelay -j "$(nproc)" >/dev/null
  bench=$BUILD/bench/zkc_bench
fi
export ZKC_PEER_BIN=${ZKC_PEER_BIN:-$(dirname "$bench")/zkc_peer}
# The network: the relays' one-way delay, half the round trip; none without --rtt.
rtt_us=0
if [ -n "$rtt" ]; then
  rtt_us=$(awk -v m="$rtt" 'BEGIN { printf "%d", m * 1000 + 0.5 }')
  export ZKC_ENSEMBLE_DELAY_US=$((rtt_us / 2))
  export ZKC_NETDELAY=${ZKC_NETDELAY:-$(dirname "$bench")/zkc_netdelay}
else
  export ZKC_ENSEMBLE_DELAY_US=off
fi
port_base=${ZKC_ENSEMBLE_PORT_BASE:-2180}
connect=${ZKC_BENCH_CONNECT:-127.0.0.1:$((port_base + 1)),127.0.0.1:$((port_base + 2)),127.0.0.1:$((port_base + 3))}
ensure_gnuplot

# Scenario l's Curator side (bench/peers/CuratorLeaderPeer.java), full runs
# only: built here, run by zkc_bench through $ZKC_CURATOR_LEADER. Without a
# JDK or the jars the scenario measures zkcoord alone.
if [ ${#quick[@]} -eq 0 ] && [[ " ${scenarios[*]} " == *" l "* ]]; then
  peers=$BUILD/peers
  mkdir -p "$peers"
  if command -v javac >/dev/null && cp=$("$ROOT/test/interop/curator-classpath.sh" 2>/dev/null) &&
      javac -d "$peers" -cp "$cp" -nowarn "$ROOT/bench/peers/CuratorLeaderPeer.java" >"$peers/javac-leader.log" 2>&1; then
    export ZKC_CURATOR_LEADER="java -cp $peers:$cp CuratorLeaderPeer"
  else
    log "scenario l: no Curator (JDK, Curator jars or javac missing): zkcoord alone"
  fi
fi

# shellcheck source=bench/ensemble.sh
. "$ROOT/bench/ensemble.sh"
start_ensemble
if [ -n "$rtt" ]; then # the clients go through the client links' relays
  connect=${ZKC_BENCH_CONNECT:-$("$ENSEMBLE" connect)}
  export ZKC_BENCH_CONNECT=$connect
  log "network: round trip $rtt ms per link ($ZKC_ENSEMBLE_DELAY_US us each way), clients on $connect"
fi
# Scenario n reaches every server whatever --pin says.
export ZKC_BENCH_LINKS=$connect
if [ -n "$pin" ]; then
  leader=$("$ENSEMBLE" leader)
  n=$leader
  [ "$pin" = leader ] || n=$((leader % 3 + 1))
  connect=$(echo "$connect" | cut -d, -f"$n")
  export ZKC_BENCH_CONNECT=$connect
  log "every session on zk$n ($pin; leader zk$leader): $connect"
fi
bench_args=(--rtt-us "$rtt_us")

# Scenario m: the process of 500 and of 2,500 uncontended cycles, each
# under callgrind (every thread counted); the difference is what 2,000
# cycles cost, and the stats calls' part of it (inclusive: with what they
# call; each function's own line, not the call-graph lines "=> ..." that
# name it again). clock_gettime runs as a system call under valgrind, so
# its vDSO instructions are not in either count. Records on stdout as
# zkc_bench writes them.
stats_cost() {
  local rounds f ir=() st=()
  command -v valgrind >/dev/null || { echo "X,m,not run: valgrind missing"; return; }
  for rounds in 2 10; do
    f=$out/m-$rounds.callgrind
    valgrind --tool=callgrind --callgrind-out-file="$f" \
      "$bench" "${bench_args[@]}" --rounds "$rounds" m >/dev/null 2>"$out/m-$rounds.log"
    ir+=("$(callgrind_annotate "$f" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')")
    st+=("$(callgrind_annotate --inclusive=yes --threshold=100 "$f" |
      awk '!/=>/ && /zkc__stats_(begin|end|released) \[/ {gsub(",", "", $1); s += $1} END {print s + 0}')")
    rm -f "$f"
  done
  awk -v i1="${ir[0]}" -v i2="${ir[1]}" -v s1="${st[0]}" -v s2="${st[1]}" 'BEGIN {
    per = (i2 - i1) / 2000; stats = (s2 - s1) / 2000; share = per > 0 ? stats / per : 1
    printf "R,m,1,instructions per cycle,zkcoord,Ir,%.6g,%.6g,%.6g,1\n", per, per, per
    printf "R,m,1,instructions per cycle,stats,Ir,%.6g,%.6g,%.6g,1\n", stats, stats, stats
    printf "T,m,stats share of a cycle'"'"'s instructions,%s,%.6g,<= 0.02\n", share <= 0.02 ? "met" : "MISSED", share
  }'
}

raw=$out/raw.out
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$SECONDS
for s in "${scenarios[@]}"; do
  log "scenario $s"
  if [ "$s" = p ]; then # the libraries side by side, one process per round each
    if [ -n "${ZKC_BENCH_P_ARGS:-}" ]; then # e.g. "9 2000 contend:8": rounds, ms, rows
      warmup=1
      read -r -a peer_args <<<"$ZKC_BENCH_P_ARGS"
    elif [ ${#quick[@]} -eq 0 ]; then
      # Nine rounds of two seconds after one unreported: the rounds'
      # ratios spread 0.45-4.7 with five rounds of one second and none.
      warmup=1
      peer_args=(9 2000 cycle:1 contend:8 contend:32 contend:128 paths:8)
    else
      warmup=0
      peer_args=(2 300 cycle:1 contend:8 paths:8)
    fi
    ZKC_PEER_WARMUP=$warmup \
      "$ROOT/bench/peers/run-peers.sh" "$BUILD" "$connect" "${peer_args[@]}" |
      awk -f "$ROOT/bench/peers/summarize.awk" >>"$raw"
    continue
  fi
  if [ "$s" = r ]; then # read-write lock and semaphore beside Curator and kazoo
    if [ -n "${ZKC_BENCH_R_ARGS:-}" ]; then # e.g. "9 2000 sem3k1:8": rounds, ms, rows
      read -r -a peer_args <<<"$ZKC_BENCH_R_ARGS"
    elif [ ${#quick[@]} -eq 0 ]; then
      peer_args=(5 1000 rw90:8 rw90:32 rw10:8 rw10:32 rwherd:32 rwherd2:32
        sem3k1:8 sem3k1:32 sem3k2:8 sem3k2:32 sem10k1:8 sem10k1:32 sem10k2:8 sem10k2:32)
    else
      peer_args=(2 300 rw90:8 rw10:8 rwherd:8 sem3k1:8 sem3k2:8)
    fi
    { ZKC_PEER_LIBS="${ZKC_BENCH_R_LIBS:-zkcoord curator kazoo}" \
        "$ROOT/bench/peers/run-peers.sh" "$BUILD" "$connect" "${peer_args[@]}"
      echo "X,go-zookeeper,not applicable: go-zookeeper has no read-write lock or semaphore"
    } | awk -v scen=r -f "$ROOT/bench/peers/summarize.awk" >>"$raw"
    continue
  fi
  if [ "$s" = m ]; then
    stats_cost >>"$raw"
    continue
  fi
  "$bench" "${quick[@]}" "${bench_args[@]}" "$s" >>"$raw" # one process each
done
duration=$((SECONDS - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
stop_ensemble
trap - EXIT

# ---- the files ----
{
  echo "scenario,contenders,measure,variant,unit,median,min,max,runs"
  sed -n 's/^R,//p' "$raw"
} >"$out/results.csv"
{
  echo "scenario,target,result,value,threshold"
  sed -n 's/^T,//p' "$raw"
} >"$out/targets.csv"

mode=full
[ ${#quick[@]} -eq 0 ] || mode=quick
awk -F, -v mode="$mode" -v cpus="$(nproc)" -v before="$load_before" \
  -v after="$load_after" -v secs="$duration" -v date="$(date -u +%FT%TZ)" -v rtt="${rtt:-none}" '
  function q(s) { gsub(/"/, "\\\"", s); return "\"" s "\"" }
  BEGIN {
    printf "{\n  \"date\": %s, \"mode\": %s, \"duration_s\": %d, \"rtt_ms\": %s,\n", q(date), q(mode), secs, q(rtt)
    printf "  \"host\": {\"cpus\": %d, \"loadavg_before\": %s, \"loadavg_after\": %s},\n",
           cpus, q(before), q(after)
  }
  $1 == "R" {
    res = res (nr++ ? ",\n" : "") sprintf("    {\"scenario\": %s, \"contenders\": %d, " \
      "\"measure\": %s, \"variant\": %s, \"unit\": %s, \"median\": %s, \"min\": %s, " \
      "\"max\": %s, \"runs\": %d}", q($2), $3, q($4), q($5), q($6), $7, $8, $9, $10)
  }
  $1 == "T" {
    tgt = tgt (nt++ ? ",\n" : "") sprintf("    {\"scenario\": %s, \"target\": %s, " \
      "\"met\": %s, \"value\": %s, \"threshold\": %s}", q($2), q($3),
      $4 == "met" ? "true" : "false", $5, q($6))
  }
  $1 == "M" { miss = miss (nm++ ? ", " : "") sprintf("{\"library\": %s, \"why\": %s}", q($2), q($3)) }
  END {
    printf "  \"missing_peers\": [%s],\n", miss
    printf "  \"results\": [\n%s\n  ],\n  \"targets\": [\n%s\n  ]\n}\n", res, tgt
  }
' "$raw" >"$out/results.json"

# The table: one row per (scenario, contenders, measure), one column per
# variant; each cell "median (min-max)".
awk -F, -v before="$load_before" -v after="$load_after" -v cpus="$(nproc)" \
  -v secs="$duration" -v mode="$mode" -v rtt="$rtt" -v pin="$pin" '
  function num(x,  a) {
    a = x < 0 ? -x : x
    return a >= 100 ? sprintf("%.0f", x) : a >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x)
  }
  function cell(k) {
    if (!(k in med)) return ""
    return runs[k] > 1 ? num(med[k]) " (" num(lo[k]) "–" num(hi[k]) ")" : num(med[k])
  }
  $1 == "R" && $2 != "p" && $2 != "r" {
    row = $2 SUBSEP $3 SUBSEP $4
    if (!(row in seen)) { seen[row] = 1; order[n++] = row; unit[row] = $6 }
    if ($5 !~ /\//) unit[row] = $6
    k = row SUBSEP $5
    med[k] = $7; lo[k] = $8; hi[k] = $9; runs[k] = $10
    if (index(" " known " ", " " $5 " ") == 0) other[row] = other[row] (other[row] == "" ? "" : "; ") $5 " " cell(k)
  }
  BEGIN { known = "raw naive pipelined zkcoord zkcoord/raw zkcoord/naive zkcoord/pipelined raw-nowait zkcoord-nowait zkcoord-nowait/raw zkcoord-nowait/raw-nowait" }
  $1 == "T" { t[nt++] = "| " $2 " | " $3 " | " num($5) " | " $6 " | " ($4 == "met" ? "met" : "**MISSED**") " |" }
  END {
    split("raw naive pipelined zkcoord zkcoord/raw zkcoord/naive zkcoord/pipelined raw-nowait zkcoord-nowait zkcoord-nowait/raw zkcoord-nowait/raw-nowait", cols, " ")
    if (n) printf "| scen. | n | measure | unit | raw (1) | naive (2) | pipelined | zkcoord | zkcoord/raw | zkcoord/naive | zkcoord/pipelined | raw, delete not waited | zkcoord nowait | nowait/raw | nowait/raw not waited | other |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    for (i = 0; i < n; i++) {
      split(order[i], key, SUBSEP)
      line = "| " key[1] " | " key[2] " | " key[3] " | " unit[order[i]]
      for (c = 1; c <= 11; c++) line = line " | " cell(order[i] SUBSEP cols[c])
      print line " | " other[order[i]] " |"
    }
    printf "\n| scen. | target | measured | wanted | result |\n|---|---|---|---|---|\n"
    for (i = 0; i < nt; i++) print t[i]
    printf "\n%s run, %d s; %d CPUs, load average %s before, %s after.\n", mode, secs, cpus, before, after
    if (rtt != "") printf "Network: every link relayed with a round trip of %s ms added (bench/run.sh --rtt).\n", rtt
    if (pin != "") printf "Every session on one server, the %s (--pin).\n", pin
  }
' "$raw" >"$out/results.md"
# The peers (scenarios p and r): one column per library, then zkcoord/library.
for sc in p r; do
  grep -q "^R,$sc," "$raw" || continue
  awk -F, -v sc="$sc" '
    function num(x,  a) {
      a = x < 0 ? -x : x
      return a >= 100 ? sprintf("%.0f", x) : a >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x)
    }
    function absent(c) { return sc == "r" && c == 4 ? "n/a" : "missing" }
    $1 == "M" { gone[$2] = $3; next }
    $1 == "Q" && $2 == sc { q[$3, $4, $5] = " [" num($6) "–" num($7) "]"; next }
    $1 == "R" && $2 == sc {
      row = $3 SUBSEP $4
      if (!(row in seen)) { seen[row] = 1; order[n++] = row; unit[row] = $6 }
      here[$5] = 1
      cell[row, $5] = $10 > 1 ? num($7) q[$3, $4, $5] " (" num($8) "–" num($9) ")" : num($7)
    }
    END {
      split("zkcoord curator kazoo go-zookeeper", L, " ")
      if (sc == "p") printf "\n**Peers** (scenario p: every library the same loop, one session per worker, rounds interleaved, each round begun by the next library in turn; a cell is the median of the rounds, [the middle half of the rounds] for a ratio, (min–max))\n\n"
      else printf "\n**Recipes** (scenario r: read-write lock and semaphore, every library the same loop, one session and one lock object per worker on one path, rounds interleaved; n/a: no such recipe in a compatible layout)\n\n"
      printf "| n | measure | unit | zkcoord | Curator | kazoo | go-zookeeper | zkcoord/Curator | zkcoord/kazoo | zkcoord/go-zookeeper |\n"
      printf "|---|---|---|---|---|---|---|---|---|---|\n"
      for (i = 0; i < n; i++) {
        split(order[i], key, SUBSEP)
        line = "| " key[1] " | " key[2] " | " unit[order[i]]
        # A library reported gone by the other scenario (go-zookeeper in r)
        # still has its cells in this one.
        for (c = 1; c <= 4; c++) line = line " | " ((order[i] SUBSEP L[c]) in cell ? cell[order[i], L[c]] : L[c] in gone && !(L[c] in here) ? absent(c) : "n/a")
        for (c = 2; c <= 4; c++) line = line " | " ((order[i] SUBSEP "zkcoord/" L[c]) in cell ? cell[order[i], "zkcoord/" L[c]] : L[c] in gone && !(L[c] in here) ? absent(c) : "")
        print line " |"
      }
      for (l in gone) if (!(l in here)) printf "\n%s: %s.\n", (sc == "r" && l == "go-zookeeper" ? "Not applicable" : "Missing"), l " (" gone[l] ")"
    }' "$raw" >>"$out/results.md"
done
cat "$out/results.md"

# ---- the plot: scenario c against the number of contenders ----
if command -v gnuplot >/dev/null && grep -q '^R,c,' "$raw"; then
  awk -F, '
    $1 == "R" && $2 == "c" && $4 == "cycle rate" && $5 !~ /\// { r[$3, $5] = $7 " " $8 " " $9; ns[$3] = 1 }
    $1 == "R" && $2 == "c" && $4 ~ /^hand-off p(50|99)$/ { r[$3, $4] = $7 " " $8 " " $9 }
    $1 == "R" && $2 == "c" && $4 == "acquire p50" && $5 == "raw" { r[$3, "create"] = $7 " " $8 " " $9 }
    END {
      for (n in ns) print n, r[n, "raw"], r[n, "naive"], r[n, "zkcoord"], \
        r[n, "hand-off p50"], r[n, "hand-off p99"], r[n, "create"] | "sort -n"
    }' "$raw" >"$out/contention.dat"
  notify=$(awk -F, '$1 == "R" && $2 == "g" && $4 == "hand-off from release call p50" && $5 == "raw" { print $7 }' "$raw")
  gnuplot <<EOF
set terminal pngcairo size 1100,520 font "sans,10"
set output "$out/contention.png"
set multiplot layout 1,2 title "zkcoord: one lock path, each contender its own session ($mode run, median and min-max of the rounds)"
set logscale x 2
set xtics (2, 8, 32, 128)
set xrange [1.6:160]
set xlabel "contenders"
set key below
set grid
set ylabel "cycles per second (all contenders)"
set yrange [0:*]
set title "throughput"
plot "$out/contention.dat" using 1:2:3:4 with yerrorlines lw 2 title "raw create+delete (no lock)", \
     "" using 1:5:6:7 with yerrorlines lw 2 title "naive create, list, delete (no lock)", \
     "" using 1:8:9:10 with yerrorlines lw 2 title "zkcoord acquire+release (lock)"
set title "latency"
set ylabel "microseconds"
set logscale y
set yrange [*:*]
plot "$out/contention.dat" using 1:11:12:13 with yerrorlines lw 2 title "zkcoord hand-off p50", \
     "" using 1:14:15:16 with yerrorlines lw 2 title "zkcoord hand-off p99", \
     "" using 1:17:18:19 with yerrorlines lw 2 title "raw create p50 (under the raw load)", \
     ${notify:-1/0} with lines dt 2 lw 2 title "raw delete + notification + wake-up p50 (scenario g)"
unset multiplot
EOF
  log "plot: $out/contention.png"
fi
# ---- the peers' plot: one line per library ----
if command -v gnuplot >/dev/null && grep -q '^R,p,' "$raw"; then
  plots='' hplots=''
  for lib in zkcoord curator kazoo go-zookeeper; do
    awk -F, -v lib="$lib" '$1 == "R" && $2 == "p" && $5 == lib && $4 == "cycle rate" { print $3, $7, $8, $9 }' "$raw" |
      sort -n >"$out/peers-$lib.dat"
    awk -F, -v lib="$lib" '$1 == "R" && $2 == "p" && $5 == lib && $4 == "hand-off p50" { print $3, $7, $8, $9 }' "$raw" |
      sort -n >"$out/peers-$lib-handoff.dat"
    [ -s "$out/peers-$lib.dat" ] &&
      plots="$plots${plots:+, }\"$out/peers-$lib.dat\" using 1:2:3:4 with yerrorlines lw 2 title \"$lib\""
    [ -s "$out/peers-$lib-handoff.dat" ] &&
      hplots="$hplots${hplots:+, }\"$out/peers-$lib-handoff.dat\" using 1:2:3:4 with yerrorlines lw 2 title \"$lib\""
  done
  gnuplot <<EOF
set terminal pngcairo size 1100,520 font "sans,10"
set output "$out/peers.png"
set multiplot layout 1,2 title "one lock path, each contender its own session: zkcoord and its peers ($mode run, median and min-max of the rounds)"
set logscale x 2
set xtics (1, 8, 32, 128)
set xrange [0.8:160]
set xlabel "contenders"
set key below
set grid
set title "lock cycles (hand-offs) per second"
set yrange [0:*]
plot ${plots:-1/0 notitle}
set title "hand-off p50, microseconds"
set xrange [6:160]
set logscale y
set yrange [*:*]
plot ${hplots:-1/0 notitle}
unset multiplot
EOF
  rm -f "$out"/peers-*.dat
  log "plot: $out/peers.png"
fi
# ---- the recipes' plot (scenario r): one bar per library and measure ----
if command -v gnuplot >/dev/null && grep -q '^R,r,' "$raw"; then
  awk -F, '
    $1 == "R" && $2 == "r" && $6 == "1/s" && $5 !~ /\// {
      row = $3 " " $4
      if (!(row in seen)) { seen[row] = 1; order[n++] = row }
      v[row, $5] = $7
    }
    END {
      for (i = 0; i < n; i++) {
        label = order[i]; sub(/ read\/write acquisitions| leases$/, "", label)
        printf "\"%s\" %s %s %s\n", label, ((order[i], "zkcoord") in v ? v[order[i], "zkcoord"] : "NaN"),
          ((order[i], "curator") in v ? v[order[i], "curator"] : "NaN"), ((order[i], "kazoo") in v ? v[order[i], "kazoo"] : "NaN")
      }
    }' "$raw" >"$out/recipes.dat"
  # a bar per library that ran (a run of zkcoord alone, as
  # compare-builds.sh makes, has no Curator or kazoo column to draw)
  bars='' col=2
  for lib in zkcoord:zkcoord curator:Curator kazoo:kazoo; do
    if grep -q "^R,r,[^,]*,[^,]*,${lib%%:*}," "$raw"; then
      bars="$bars${bars:+, }\"$out/recipes.dat\" using $col:xtic(1) title \"${lib#*:}\""
    fi
    col=$((col + 1))
  done
  [ -n "$bars" ] || bars='1/0 notitle'
  gnuplot <<EOF
set terminal pngcairo size 1200,560 font "sans,10"
set output "$out/recipes.png"
set title "read-write lock (acquisitions/s) and semaphore (leases/s) on one path, each worker its own session: median of the rounds ($mode run)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -35 left
set key top right
set grid ytics
set yrange [0:*]
set ylabel "per second (all sessions)"
set bmargin 8
plot $bars
EOF
  rm -f "$out/recipes.dat"
  log "plot: $out/recipes.png"
fi

# ---- scenario l: the leader hand-offs ----
"$ROOT/bench/plot-leader.sh" "$out" || log "no leader plot"
log "results in $out (matrix took ${duration} s)"
