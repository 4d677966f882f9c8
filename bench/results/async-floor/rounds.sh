#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The async floor's runs (README.md): zkc_bench scenario a (or b), every
# session on one server, REPS times, each with ROUNDS rounds; prints each
# run's cycle-rate, acquire and cycle p50 figures (CSV records of zkc_bench)
# prefixed with the run, and keeps each run's output as SCEN-PORT-RUN.csv in
# the current directory.
#   usage: rounds.sh HOST:PORT BENCH REPS ROUNDS SCENARIO
set -euo pipefail
connect=$1 bin=$2 reps=$3 rounds=$4 scen=$5
port=${connect##*:}
for i in $(seq 1 "$reps"); do
  f=$scen-$port-$i.csv
  ZKC_BENCH_CONNECT=$connect ZKC_BENCH_LINKS=$connect "$bin" --rounds "$rounds" "$scen" >"$f"
  grep -E 'cycle rate,|acquire p50,|cycle p50,' "$f" | sed "s/^/$i,/"
done
