#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A header per prefix, as docs/api.md's "| prefix | header |" table says:
# every function of include/zkcoord/ (exported or static inline) is
# declared in the header the table gives its prefix (the longest pattern
# that matches it: `zkc_client_stats` before `zkc_client_*`), and every
# shared type the table names for common.h is defined there.
#
#   check-header-prefix.sh SOURCE_DIR
set -euo pipefail
src=$1
table=$(awk '/^\| prefix \| header \|/ {on = 1; next} on && !/^\|/ {exit}
             on && !/^\| ---/' "$src/docs/api.md")
[ -n "$table" ] || { echo "check-header-prefix: no prefix table in docs/api.md" >&2; exit 1; }
# One "pattern header" line per name the first cell gives.
rules=$(while IFS='|' read -r _ names header _; do
  h=$(grep -oE '[a-z_]+\.h' <<<"$header" | head -n 1)
  cut -d: -f1 <<<"$names" | grep -oE '`zkc_[a-z0-9_]*\*?`' | tr -d '`' |
    while read -r p; do echo "$p $h"; done
done <<<"$table")
header_of() { # the header of the longest pattern matching function $1
  local best="" len=-1 p h
  while read -r p h; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    if [[ $1 == $p ]] && [ ${#p} -gt $len ]; then best=$h len=${#p}; fi
  done <<<"$rules"
  echo "$best"
}
bad=0 n=0
for f in "$src"/include/zkcoord/*.h; do
  h=$(basename "$f")
  for fn in $(grep -hoE '(ZKC_EXTERN|static inline)[^;(]*\bzkc_[a-z0-9_]+ *\(' "$f" |
              grep -oE 'zkc_[a-z0-9_]+ *\($' | tr -d ' ('); do
    n=$((n + 1))
    want=$(header_of "$fn")
    if [ -z "$want" ]; then
      echo "check-header-prefix: $h: $fn: no row of docs/api.md's prefix table names its prefix" >&2
      bad=1
    elif [ "$want" != "$h" ]; then
      echo "check-header-prefix: $fn is declared in $h, its prefix's header is $want" >&2
      bad=1
    fi
  done
done
[ "$n" -gt 100 ] || { echo "check-header-prefix: only $n functions found" >&2; exit 1; }
# The shared types: each one the common.h row names is defined in common.h.
shared=$(grep -E '\| `common\.h` \|$' <<<"$table" | sed 's/.*shared types://' |
         grep -oE '`zkc_[a-z0-9_]+_t`' | tr -d '`')
[ -n "$shared" ] || { echo "check-header-prefix: the common.h row names no shared type" >&2; exit 1; }
for t in $shared; do
  grep -qE "(typedef .*\b$t;|} $t;)" "$src/include/zkcoord/common.h" || {
    echo "check-header-prefix: shared type $t is not defined in common.h" >&2
    bad=1
  }
done
[ $bad = 0 ] && echo "check-header-prefix: $n functions each in its prefix's header; shared types in common.h"
exit $bad
