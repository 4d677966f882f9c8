#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every public name of 0.3.0, the last 0.x release (test/api-0.x.txt), is
# still there in 1.x (a symbol of debian/libzkcoord1.symbols, or declared
# in a public header) or is named in the 0.x column of the changelog's 1.0.0
# table, which maps each 0.x call to its 1.0 form: a 0.x program's author finds
# each call they wrote there.
#
#   check-changelog-map.sh SOURCE_DIR
set -euo pipefail
src=$1
# The 0.x column: the first cell of each row of the 1.0.0 section's tables.
section=$(awk '/^## 1\.0\.0/ {on = 1; next} on && /^## / {exit}
               on && /^\| / {split($0, cell, "|"); print cell[2]}' "$src/CHANGELOG.md")
[ -n "$section" ] || { echo "check-changelog-map: no table in CHANGELOG.md's 1.0.0 section" >&2; exit 1; }
headers=$(cat "$src"/include/zkcoord/*.h "$src"/include/zkcoord/*.h.in)
symbols=$(awk '/^ zkc_/ {sub(/@.*/, "", $1); print $1}' "$src/debian/libzkcoord1.symbols")
n=0 bad=0
while read -r name; do
  case $name in '' | '#'*) continue ;; esac
  n=$((n + 1))
  grep -qx "$name" <<<"$symbols" && continue
  grep -qw "$name" <<<"$headers" && continue
  grep -qw "$name" <<<"$section" && continue
  echo "check-changelog-map: 0.x's $name is gone from 1.x and the 1.0.0 changelog does not say what replaces it" >&2
  bad=1
done <"$src/test/api-0.x.txt"
[ "$n" -gt 100 ] || { echo "check-changelog-map: only $n names read from test/api-0.x.txt" >&2; exit 1; }
[ $bad = 0 ] && echo "check-changelog-map: each of 0.x's $n public names is kept or mapped in the 1.0.0 changelog"
exit $bad
