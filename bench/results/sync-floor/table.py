#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The table of README.md from runN/cpu.csv (../cpu-where/rounds.sh output):
# per round, CPU per cycle is task-clock over the window's rate times 1.2
# windows; ratios per round, then the median (min-max); requests per cycle
# as zkc_client_stats counted them.
# usage: table.py WINDOW_S CSV...
import csv, statistics as st, sys

win = float(sys.argv[1])
for path in sys.argv[2:]:
    rows = list(csv.DictReader(open(path)))
    d = {(r["round"], r["prog"], r["n"]): r for r in rows}
    rounds = sorted({r["round"] for r in rows})
    cpc = lambda r: float(r["task_ms"]) / (float(r["rate"]) * win * 1.2)
    span = lambda v: "%.2f (%.2f–%.2f)" % (st.median(v), min(v), max(v))
    for n in ("8", "32"):
        ratio = lambda a, b: span([cpc(d[(x, a, n)]) / cpc(d[(x, b, n)]) for x in rounds])
        req = lambda p: span([float(d[(x, p, n)]["req"]) for x in rounds])
        rate = lambda p: "%.0f" % st.median(float(d[(x, p, n)]["rate"]) for x in rounds)
        print(" | ".join([path, n, req("base"), req("new"), ratio("new", "base"),
                          ratio("base", "mt"), ratio("new", "mt"),
                          ", ".join(rate(p) for p in ("base", "new", "mt"))]))
