#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs zkcoord and its peers (Curator, kazoo, go-zookeeper; see README.md
# here) on one ensemble, interleaved round by round: each round runs every
# library's program once over all the measures. Builds the peers that need
# it into BUILD_DIR; installs nothing.
#
# usage: run-peers.sh BUILD_DIR CONNECT ROUNDS ROUND_MS MEASURE:N...
# Prints on stdout, for bench/peers/summarize.awk:
#   P,round,library,measure,n,rate,handoff_p50_us,handoff_p99_us
#   X,library,why it is missing (or failed)
# Environment: ZKC_PEER_BIN (default BUILD_DIR/bench/zkc_peer); ZKC_PEER_LIBS
# (default all: "zkcoord curator kazoo go-zookeeper"; "raw-c" too when
# named), the libraries to run;
# ZKC_PEER_BASE_BIN, another build's zkc_peer, run too as "zkcoord-base";
# the others are neither built nor reported; ZKC_PEER_WARMUP (default 0),
# rounds run first and not reported: the ensemble's own warm-up (JIT, the
# first log files) would otherwise fall on whichever library runs first.
# Each round starts with the next library in turn, so that no library
# always runs right after the same one (whose sessions the servers are still
# closing when the next process starts).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$1 connect=$2 rounds=$3 round_ms=$4
shift 4
peers=$build/peers
mkdir -p "$peers"
log() { printf '==> peers: %s\n' "$*" >&2; }

libs=() cmds=()
only=" ${ZKC_PEER_LIBS:-zkcoord curator kazoo go-zookeeper} "
want() { [[ $only == *" $1 "* ]]; }
add() { libs+=("$1"); cmds+=("$2"); }
missing() { echo "X,$1,$2"; log "$1 missing: $2"; }

want zkcoord && add zkcoord "${ZKC_PEER_BIN:-$build/bench/zkc_peer}"
# Not run unless named: the ZooKeeper C client alone, in go-zookeeper's lock
# protocol (zkc_peer with ZKC_PEER_RAW set; README.md): the floor of any
# library built on that client, for the mutex measures only.
want raw-c && add raw-c "env ZKC_PEER_RAW=1 ${ZKC_PEER_BIN:-$build/bench/zkc_peer}"
# A second zkcoord build, run as zkcoord-base: a change against the code
# before it, in the same interleaved rounds (its ratios are zkcoord/zkcoord-base).
if [ -n "${ZKC_PEER_BASE_BIN:-}" ]; then add zkcoord-base "$ZKC_PEER_BASE_BIN"; fi

# Curator 5.4 from Debian's jars (the interop tests' classpath).
if ! want curator; then :
elif ! command -v javac >/dev/null || ! command -v java >/dev/null; then
  missing curator "no JDK (Debian: default-jdk-headless)"
elif ! cp=$("$here/../../test/interop/curator-classpath.sh" 2>/dev/null); then
  missing curator "no Curator jars (Debian: libcurator-recipes-java)"
elif ! javac -d "$peers" -cp "$cp" -nowarn "$here/CuratorPeer.java" >"$peers/javac.log" 2>&1; then
  missing curator "javac failed (see $peers/javac.log)"
else
  add curator "java -cp $peers:$cp CuratorPeer"
fi

# kazoo: the system Python's package (a pyenv shim first on PATH may lack it).
py=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import kazoo' 2>/dev/null; then py=$(command -v "$p"); break; fi
done
if ! want kazoo; then :
elif [ -n "$py" ]; then add kazoo "$py $here/kazoo_peer.py"
else missing kazoo "no kazoo module (Debian: python3-kazoo)"; fi

# go-zookeeper from Debian's source package, GOPATH mode, no downloads.
gopath=${ZKC_PEER_GOPATH:-/usr/share/gocode}
if ! want go-zookeeper; then :
elif ! command -v go >/dev/null; then
  missing go-zookeeper "no Go compiler (Debian: golang-go)"
elif [ ! -d "$gopath/src/github.com/samuel/go-zookeeper/zk" ]; then
  missing go-zookeeper "no source in $gopath (Debian: golang-github-samuel-go-zookeeper-dev)"
elif ! GO111MODULE=off GOPATH=$gopath GOFLAGS='' GOPROXY=off GOCACHE=$peers/gocache \
    go build -o "$peers/gozk_peer" "$here/gozk_peer.go" >"$peers/go.log" 2>&1; then
  missing go-zookeeper "go build failed (see $peers/go.log)"
else
  add go-zookeeper "$peers/gozk_peer"
fi

failed=()
warmup=${ZKC_PEER_WARMUP:-0}
nlibs=${#libs[@]}
for ((r = 1 - warmup; r <= rounds; r++)); do
  for ((k = 0; k < nlibs; k++)); do
    i=$(( (k + (r > 0 ? r - 1 : 0)) % nlibs ))
    lib=${libs[$i]}
    [[ " ${failed[*]-} " == *" $lib "* ]] && continue
    if ((r <= 0)); then log "warm-up round: $lib"; else log "round $r: $lib"; fi
    # shellcheck disable=SC2086 # the command line is words
    if ! out=$(${cmds[$i]} "$connect" "/zkc-peers/$$/$lib-w$warmup-$r" "$round_ms" "$@"); then
      missing "$lib" "failed in $( ((r > 0)) && echo "round $r" || echo "the warm-up")"
      failed+=("$lib")
      continue
    fi
    if ((r > 0)); then sed -n "s/^M,/P,$r,$lib,/p" <<<"$out"; fi
  done
done
