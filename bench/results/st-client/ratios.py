#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-round ratios of two programs' cycle rates in run.sh's output.

usage: ratios.py FILE.csv A/B...
prints, for each pair and each number of sessions, the median of the
per-round ratios A/B and their range (as bench/peers/summarize.awk does
for zkcoord against each peer)."""
import statistics
import sys

rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.startswith("P,")]
rate = {(r[2], r[4], r[1]): float(r[5]) for r in rows}
for pair in sys.argv[2:]:
    a, b = pair.split("/")
    for n in sorted({r[4] for r in rows}, key=int):
        v = sorted(rate[(a, n, rd)] / rate[(b, n, rd)]
                   for (lib, nn, rd) in rate
                   if lib == a and nn == n and rate.get((b, n, rd), 0) > 0)
        print(f"{a}/{b} at {n} sessions: {statistics.median(v):.2f} "
              f"({v[0]:.2f}-{v[-1]:.2f}), {len(v)} rounds")
