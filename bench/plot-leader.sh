#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Draws scenario l of a bench/run.sh output directory (its raw.out) into
# DIR/leader.png: the graceful hand-off p50 of the latch and the selector
# (raw chain, zkcoord, Curator) and the crash hand-off of each recipe
# (zkcoord, Curator) beside the session timeout; median of the rounds, bars
# from min to max. Needs gnuplot.
#
# usage: bench/plot-leader.sh DIR
set -euo pipefail
out=${1:?usage: plot-leader.sh DIR}
raw=$out/raw.out
command -v gnuplot >/dev/null || exit 0
grep -q '^R,l,' "$raw" || exit 0
dat=$(mktemp)
trap 'rm -f "$dat" "$dat.crash"' EXIT
awk -F, '
  $1 == "R" && $2 == "l" && $4 ~ /^graceful (latch|selector) hand-off p50$/ && $5 !~ /\// {
    split($4, w, " "); v[w[2], $5] = $7 / 1000 " " $8 / 1000 " " $9 / 1000; seen[w[2]] = 1
  }
  END {
    i = 0
    for (r in seen) {
      line = i " " r
      split("raw zkcoord curator", L, " ")
      for (c = 1; c <= 3; c++) line = line " " (((r, L[c]) in v) ? v[r, L[c]] : "NaN NaN NaN")
      print line; i++
    }
  }' "$raw" | sort -k2 | awk '{ $1 = NR - 1; print }' >"$dat"
# One line per recipe (the latch's label has no recipe name): x, recipe,
# zkcoord median min max, Curator median min max.
awk -F, '$1 == "R" && $2 == "l" && $4 ~ /^(selector )?crash: SIGKILL/ && $5 !~ /\// {
    r = $4 ~ /^selector/ ? 1 : 0; seen[r] = 1
    v[r, $5] = $7 / 1000 " " $8 / 1000 " " $9 / 1000
  }
  END {
    for (r = 0; r <= 1; r++)
      if (r in seen)
        print r, (r ? "selector" : "latch"), ((r, "zkcoord") in v ? v[r, "zkcoord"] : "NaN NaN NaN"),
          ((r, "curator") in v ? v[r, "curator"] : "NaN NaN NaN")
  }' "$raw" >"$dat.crash"
gnuplot <<GP
set terminal pngcairo size 1100,480 font "sans,10"
set output "$out/leader.png"
set multiplot layout 1,2 title "leader election hand-off (scenario l; median of the rounds, bars min-max)"
set style fill solid 0.6 border -1
set grid ytics
set key top left
set ylabel "milliseconds"
set yrange [0:*]
set xrange [-0.5:1.5]
set xtics ("latch" 0, "selector" 1)
set title "graceful: leader's close / return -> next leader's callback, p50"
plot "$dat" using (\$1-0.25):3:4:5:(0.11) with boxerrorbars title "raw delete -> woken thread", \
     "" using (\$1):6:7:8:(0.11) with boxerrorbars title "zkcoord", \
     "" using (\$1+0.25):9:10:11:(0.11) with boxerrorbars title "Curator"
set title "crash: SIGKILL of the leader's process -> next leader (session timeout 4 s)"
set yrange [0:5.5]
set ylabel "seconds"
set key horizontal top left samplen 2
plot "$dat.crash" using (\$1-0.13):3:4:5:(0.22) with boxerrorbars lc 2 title "zkcoord", \
     "" using (\$1+0.13):6:7:8:(0.22) with boxerrorbars lc 3 title "Curator", \
     4 with lines dt 2 lw 2 lc rgb "black" title "session timeout"
unset multiplot
GP
echo "plot: $out/leader.png" >&2
