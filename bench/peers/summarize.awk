# SPDX-License-Identifier: Apache-2.0
# Turns run-peers.sh's P and X lines into bench/run.sh's records (scenario
# "p", the mutex, or with -v scen=r the read-write lock and semaphore
# measures): per library and measure the median, min and max over the
# rounds, and zkcoord/library ratios taken per round, then their median;
# the issue's targets against the peers; M,library,why for each missing one.
#   R,SCEN,n,measure,variant,unit,median,min,max,runs
# and for each ratio its interquartile range over the rounds (the spread that
# one odd round does not move, as it moves min and max):
#   Q,SCEN,n,measure,variant,p25,p75
function sortn(a, k,   i, j, t) {
  for (i = 2; i <= k; i++)
    for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
function stat(list,   a, k) { # "median,min,max,runs" of a space-separated list
  k = split(list, a, " ")
  sortn(a, k)
  return sprintf("%.6g,%.6g,%.6g,%d", k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2, a[1], a[k], k)
}
function med(list,   s) { s = stat(list); split(s, f, ","); return f[1] }
# "p25,p75" of a space-separated list (linear between the closest ranks).
function quart(a, k, p,   x, i) {
  x = 1 + (k - 1) * p; i = int(x)
  return i >= k ? a[k] : a[i] + (x - i) * (a[i + 1] - a[i])
}
function iqr(list,   a, k) {
  k = split(list, a, " ")
  sortn(a, k)
  return sprintf("%.6g,%.6g", quart(a, k, 0.25), quart(a, k, 0.75))
}
# The recipe measures' names (scenario r, bench/peers/README.md).
function rname(x,   a, pct, base, kind) {
  kind = ""
  if (x ~ /-notify$/) { kind = "notify"; sub(/-notify$/, "", x) }
  else if (x ~ /-timeouts$/) { kind = "timeouts"; sub(/-timeouts$/, "", x) }
  else if (x ~ /-requests$/) { kind = "requests"; sub(/-requests$/, "", x) }
  if (x == "rwherd") return "reader herd behind 1 writer: notifications per reader"
  if (x == "rwherd2") return "reader herd behind 2 writers: notifications per reader"
  if (x ~ /^rw[0-9]+$/) {
    pct = substr(x, 3) + 0; base = "rw " pct "/" (100 - pct) " read/write"
    unit_ = "1/s"
    if (kind == "notify") { unit_ = "count"; return base " notifications per acquisition" }
    if (kind == "timeouts") { unit_ = "count"; return base " timed-out acquires" }
    if (kind == "requests") { unit_ = "count"; return base " requests per acquire + release" }
    return base " acquisitions"
  }
  if (x ~ /^sem[0-9]+k[0-9]+$/) {
    split(substr(x, 4), a, "k"); base = "sem N=" a[1] " k=" a[2]
    unit_ = "1/s"
    if (kind == "notify") { unit_ = "count"; return base " notifications per release" }
    if (kind == "timeouts") { unit_ = "count"; return base " timed-out acquires" }
    if (kind == "requests") { unit_ = "count"; return base " requests per acquire + release" }
    return base " leases"
  }
  return x
}
BEGIN { FS = ","; if (scen == "") scen = "p" }
$1 == "X" { print "M," $2 "," $3; next }
$1 != "P" { next }
{
  r = $2; lib = $3; n = $5; unit_ = "1/s"
  if (scen == "r") m = rname($4)
  else m = ($4 == "paths" ? "distinct paths rate" : "cycle rate")
  if ($4 ~ /^rwherd/) unit_ = "count"
  unitof[m] = unit_
  if (!((lib) in libseen)) { libseen[lib] = 1; libs[nl++] = lib }
  k = n SUBSEP m
  if (!(k in kseen)) { kseen[k] = 1; keys[nk++] = k }
  rate[k, lib] = rate[k, lib] " " $6; byround[k, lib, r] = $6
  if ($7 >= 0) {
    p50[n, lib] = p50[n, lib] " " $7; p99[n, lib] = p99[n, lib] " " $8
    h50[n, lib, r] = $7; hn[n] = 1
  }
  rounds[r] = 1
}
END {
  for (i = 0; i < nk; i++) {
    split(keys[i], km, SUBSEP); n = km[1]; m = km[2]
    for (j = 0; j < nl; j++) {
      lib = libs[j]
      if ((keys[i], lib) in rate) print "R," scen "," n "," m "," lib "," unitof[m] "," stat(rate[keys[i], lib])
      if (lib == "zkcoord" || !((keys[i], lib) in rate) || m ~ /timed-out/) continue
      ratios = ""
      for (r in rounds)
        if ((keys[i], "zkcoord", r) in byround && (keys[i], lib, r) in byround && byround[keys[i], lib, r] > 0)
          ratios = ratios " " byround[keys[i], "zkcoord", r] / byround[keys[i], lib, r]
      if (ratios != "") {
        print "Q," scen "," n "," m ",zkcoord/" lib "," iqr(ratios) # before its R
        print "R," scen "," n "," m ",zkcoord/" lib ",x," stat(ratios)
        if (m == "cycle rate") ratio[n, lib] = med(ratios)
      }
      if (scen == "r" && lib == "curator" && unitof[m] == "1/s" && (n == 8 || n == 32)) {
        t = "T,r," n " sessions " m " zkcoord/curator,"
        if (ratios != "") print t (med(ratios) >= 1.5 ? "met" : "MISSED") "," med(ratios) ",>= 1.5"
        else if (med(rate[keys[i], "zkcoord"]) > 0) # Curator 0 in every round
          print t "met,-1,>= 1.5 (Curator: 0 in every round; -1 = infinite)"
      }
    }
  }
  if (scen == "r") exit
  for (n in hn)
    for (j = 0; j < nl; j++) {
      lib = libs[j]
      if (!((n, lib) in p50)) continue
      print "R,p," n ",hand-off p50," lib ",us," stat(p50[n, lib])
      print "R,p," n ",hand-off p99," lib ",us," stat(p99[n, lib])
      if (lib == "zkcoord") continue
      ratios = ""
      for (r in rounds)
        if ((n, "zkcoord", r) in h50 && (n, lib, r) in h50 && h50[n, lib, r] > 0)
          ratios = ratios " " h50[n, "zkcoord", r] / h50[n, lib, r]
      if (ratios != "") {
        print "Q,p," n ",hand-off p50,zkcoord/" lib "," iqr(ratios)
        print "R,p," n ",hand-off p50,zkcoord/" lib ",x," stat(ratios)
      }
    }
  want["curator"] = 1.5; want["kazoo"] = 1.3; want["go-zookeeper"] = 1.0
  split("8 32", ns, " ")
  for (i = 1; i <= 2; i++)
    for (lib in want)
      if ((ns[i], lib) in ratio)
        print "T,p,contended " ns[i] " rate zkcoord/" lib "," (ratio[ns[i], lib] >= want[lib] ? "met" : "MISSED") "," ratio[ns[i], lib] ",>= " want[lib]
  z8 = (8 SUBSEP "cycle rate") SUBSEP "zkcoord"; z128 = (128 SUBSEP "cycle rate") SUBSEP "zkcoord"
  if (z8 in rate && z128 in rate) {
    v = med(rate[z128]) / med(rate[z8])
    print "T,p,zkcoord rate 128 / 8 contenders," (v >= 0.8 ? "met" : "MISSED") "," v ",>= 0.8"
  }
}
