# SPDX-License-Identifier: Apache-2.0
# bench/cpu-cycle.sh's table from its cpu.csv: per program and N the
# medians (min-max) of the rounds, and zkcoord's CPU per cycle against the
# raw client's programs, the ratio taken per round, then the median.
function med(s,   a, m, i, j, t) {
  m = split(s, a, " ")
  for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
  lo = a[1]; hi = a[m]
  return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function cell(s, fmt,   v) { if (s == "") return "-"; v = med(s); return sprintf(fmt " (" fmt "-" fmt ")", v, lo, hi) }
NR > 1 && $5 > 0 {
  k = $2 SUBSEP $3
  if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
  if (!($3 in seenn)) { seenn[$3] = 1; nn[++nns] = $3 }
  cpu[$2, $3, $1] = $6 / $5
  c[k] = c[k] " " $6 / $5; sw[k] = sw[k] " " $7 / $5; rate[k] = rate[k] " " $4
  if ($8 != "") req[k] = req[k] " " $8
  if ($9 != "") lreq[k] = lreq[k] " " $9
  rounds[$1] = 1
}
END {
  print "| program | sessions | cycles/s | CPU ms per cycle | task switches per cycle | requests per cycle (servers' count, pings included) | requests per cycle (zkc_client_stats) |"
  print "| --- | --- | --- | --- | --- | --- | --- |"
  for (i = 1; i <= nk; i++) {
    split(order[i], kk, SUBSEP)
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", kk[1], kk[2], cell(rate[order[i]], "%.0f"),
      cell(c[order[i]], "%.3f"), cell(sw[order[i]], "%.1f"), cell(req[order[i]], "%.2f"), cell(lreq[order[i]], "%.2f")
  }
  print ""
  print "| zkcoord's CPU per cycle against | sessions | ratio, median of rounds (min-max) |"
  print "| --- | --- | --- |"
  na = split("mt-async mt-sync raw-c go-zookeeper", against, " ")
  for (a = 1; a <= na; a++) for (j = 1; j <= nns; j++) {
    s = ""
    for (r in rounds) if ((("zkcoord", nn[j], r) in cpu) && ((against[a], nn[j], r) in cpu))
      s = s " " cpu["zkcoord", nn[j], r] / cpu[against[a], nn[j], r]
    if (s != "") printf "| %s | %s | %s |\n", against[a], nn[j], cell(s, "%.2f")
  }
}
