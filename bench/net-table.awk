# SPDX-License-Identifier: Apache-2.0
# bench/net.sh's tables from the runs' results.csv files: -v dir=DIR (the
# runs in DIR/none, DIR/rtt-R) -v rtts="none 0 R..." (in that order).
function num(x,  a) {
  a = x < 0 ? -x : x
  return a >= 100 ? sprintf("%.0f", x) : a >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x)
}
function cell(k) { return (k in med) ? num(med[k]) " (" num(lo[k]) "–" num(hi[k]) ")" : "-" }
BEGIN {
  n = split(rtts, R, " ")
  for (i = 1; i <= n; i++) {
    f = dir "/" (R[i] == "none" ? "none" : "rtt-" R[i]) "/results.csv"
    while ((getline line < f) > 0) {
      split(line, c, ",")
      k = R[i] SUBSEP c[1] SUBSEP c[3] SUBSEP c[4]
      med[k] = c[6]; lo[k] = c[7]; hi[k] = c[8]
      if (c[1] == "n" && c[3] == "read p50" && c[4] == "link-direct") { added[R[i]] += c[6]; nadd[R[i]]++ }
      if (c[1] == "n" && c[3] == "read p50" && c[4] == "link/direct")
        relay[R[i]] = relay[R[i]] (relay[R[i]] == "" ? "" : "; ") "zk" c[2] " " num(c[6]) " (" num(c[7]) "–" num(c[8]) ")"
    }
    close(f)
  }
  print "Medians of the rounds (min–max); ratios taken per round, then their median."
  print ""
  print "| round trip added | read's round trip added, us (mean of the 3 client links) | uncontended cycles/s: raw create + delete | zkcoord | zkcoord / raw (>= 0.95 wanted) | hand-off p50, us: raw delete -> woken thread | zkcoord, from the release call | zkcoord / raw (<= 1.1 wanted) |"
  print "|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= n; i++) {
    r = R[i]
    a = r SUBSEP "a" SUBSEP "cycle rate"; g = r SUBSEP "g" SUBSEP "hand-off from release call p50"
    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
      r == "none" ? "none (no relay)" : r == "0" ? "0 (relays, no delay)" : r " ms",
      nadd[r] ? sprintf("%.0f", added[r] / nadd[r]) : "-",
      cell(a SUBSEP "raw"), cell(a SUBSEP "zkcoord"), cell(a SUBSEP "zkcoord/raw"),
      cell(g SUBSEP "raw"), cell(g SUBSEP "zkcoord"), cell(g SUBSEP "zkcoord/raw")
  }
  print ""
  print "**The relays' own cost.** Same process, request by request, relays at no delay: a read through"
  print "the client relay / on the server's own port: " (relay["0"] == "" ? "-" : relay["0"]) "."
  a0 = "0" SUBSEP "a" SUBSEP "cycle rate" SUBSEP "raw"; an = "none" SUBSEP "a" SUBSEP "cycle rate" SUBSEP "raw"
  g0 = "0" SUBSEP "g" SUBSEP "hand-off from release call p50" SUBSEP "raw"
  gn = "none" SUBSEP "g" SUBSEP "hand-off from release call p50" SUBSEP "raw"
  if ((a0 in med) && (an in med) && (g0 in med) && (gn in med))
    printf "Every link relayed at no delay against no relay (two ensembles, one after the other): raw cycles/s %s / %s = %.2f; raw hand-off p50 %s / %s = %.2f.\n",
      num(med[a0]), num(med[an]), med[a0] / med[an], num(med[g0]), num(med[gn]), med[g0] / med[gn]
}
