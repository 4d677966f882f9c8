#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The quick grant's runs (README.md): zkc_bench scenario a or b, every
# session on one server, the new build then the old, REPS times, each with
# ROUNDS rounds; prints each run's cycle-rate figures (CSV records of
# zkc_bench) prefixed with the build and run, and keeps each run's output
# as SCEN-PORT-BUILD-RUN.csv in the current directory.
#   usage: rounds.sh HOST:PORT OLD_BENCH NEW_BENCH REPS ROUNDS SCENARIO
set -euo pipefail
connect=$1 old=$2 new=$3 reps=$4 rounds=$5 scen=$6
port=${connect##*:}
for i in $(seq 1 "$reps"); do
  for v in new old; do
    bin=$new
    [ "$v" = old ] && bin=$old
    f=$scen-$port-$v-$i.csv
    ZKC_BENCH_CONNECT=$connect ZKC_BENCH_LINKS=$connect "$bin" --rounds "$rounds" "$scen" >"$f"
    grep 'cycle rate,' "$f" | sed "s/^/$v,$i,/"
  done
done
