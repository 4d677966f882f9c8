#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every case a test binary has is a CTest entry, and no entry names a case it
# lacks: compares each binary's --list with the case names CMake read from
# its source (zkc_add_cases) and with the <binary>.* entries `ctest -N` shows
# (none for a binary not registered in this tree: the chaos test outside the
# plain tree; only the memchecked CLI cases in the valgrind tree).
#
#   check-cases.sh MANIFEST CTEST TEST_BUILD_DIR
#
# MANIFEST lines: <binary> <path> <registered: 1|0|some:<case>,...> <case>...
set -euo pipefail
manifest=$1
ctest=$2
dir=$3

entries=$("$ctest" --test-dir "$dir" -N | sed -n 's/^ *Test *#[0-9]*: //p' | sort)
bad=0
# differ BINARY A-NAME A B-NAME B: reports the names only in A or only in B.
differ() {
  echo "check-cases: $1: < only in $2, > only in $4:" >&2
  diff <(printf '%s\n' "$3") <(printf '%s\n' "$5") | grep '^[<>]' >&2 || true
  bad=1
}
n=0
while read -r bin path registered cases; do
  [ -n "$bin" ] || continue
  n=$((n + 1))
  if ! listed=$("$path" --list </dev/null); then
    echo "check-cases: $path --list failed" >&2
    bad=1
    continue
  fi
  # shellcheck disable=SC2086 # one case a word
  from_source=$(printf '%s\n' $cases)
  [ "$listed" = "$from_source" ] ||
    differ "$bin" "its --list" "$listed" "the names read from its source" "$from_source"
  want=
  if [ "$registered" = 1 ]; then
    want=$(printf '%s\n' "$listed" | sed "s/^/$bin./" | sort)
  elif [ "${registered#some:}" != "$registered" ]; then
    want=$(printf '%s\n' "${registered#some:}" | tr ',' '\n' | sed "s/^/$bin./" | sort)
  fi
  have=$(printf '%s\n' "$entries" | awk -v p="$bin." 'index($0, p) == 1')
  [ "$want" = "$have" ] || differ "$bin" "its --list" "$want" "the CTest entries" "$have"
done <"$manifest"
[ "$n" -gt 0 ] || { echo "check-cases: no binary in $manifest" >&2; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "check-cases: $n binaries, every case registered once"
