#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The runs of this directory's README: zkcoord, go-zookeeper, lockpeer in
# both builds and the bare C client (raw-c), interleaved round by round as
# bench/peers/run-peers.sh does (one warm-up round, not reported), each
# round starting with the next program in turn.
#
# usage: run.sh BUILD_DIR LOCKPEER_DIR CONNECT ROUNDS ROUND_MS MEASURE:N...
# BUILD_DIR: a zkcoord build with bench/zkc_peer and, from an earlier
# run-peers.sh, peers/gozk_peer; LOCKPEER_DIR holds lp-st and lp-mt (see the
# README). Prints P,round,program,measure,n,rate,-1,-1 lines.
set -uo pipefail
build=$1 lp=$2 connect=$3 rounds=$4 round_ms=$5
shift 5
libs=(zkcoord go-zookeeper st-loop mt-async raw-c)
cmds=("$build/bench/zkc_peer" "$build/peers/gozk_peer" "$lp/lp-st" "$lp/lp-mt"
      "env ZKC_PEER_RAW=1 $build/bench/zkc_peer")
n=${#libs[@]}
for ((r = 0; r <= rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    i=$(( (k + r) % n ))
    # shellcheck disable=SC2086 # the command line is words
    if ! out=$(${cmds[$i]} "$connect" "/zkc-peers/$$/${libs[$i]}-$r" "$round_ms" "$@"); then
      echo "X,${libs[$i]},failed in round $r"
      continue
    fi
    if ((r > 0)); then sed -n "s/^M,/P,$r,${libs[$i]},/p" <<<"$out"; fi
  done
done
