#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when the shared library exports anything but zkc_* symbols, or
# exports none at all. Given a dpkg symbols file too (debian/libzkcoord1.symbols),
# also fails unless the exports are exactly the symbols it lists, naming
# each one exported but not listed and each one listed but not exported
# (the package build would fail on either; this fails the suite first).
#
#   check-exports.sh LIBRARY [SYMBOLS_FILE]
set -euo pipefail
lib=$1
symbols_file=${2:-}
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}')
[ -n "$syms" ] || { echo "no symbols exported by $lib"; exit 1; }
bad=$(grep -v '^zkc_' <<<"$syms" || true)
if [ -n "$bad" ]; then
  echo "symbols outside the zkc_ prefix exported by $lib:"
  echo "$bad"
  exit 1
fi
echo "$(wc -l <<<"$syms") symbols exported, all zkc_*"
[ -n "$symbols_file" ] || exit 0

# A symbols file's symbol lines start with a space: " [(tags)]name@VERSION
# minver"; the others are the library's header line, "* field:" lines and
# comments.
listed=$(sed -n -E 's/^[[:space:]]+(\([^)]*\))?([^@[:space:]]+)@.*/\2/p' "$symbols_file" | sort)
[ -n "$listed" ] || { echo "no symbols listed in $symbols_file"; exit 1; }
dups=$(uniq -d <<<"$listed")
exported=$(sort -u <<<"$syms")
listed=$(uniq <<<"$listed")
unlisted=$(comm -23 <(echo "$exported") <(echo "$listed"))
gone=$(comm -13 <(echo "$exported") <(echo "$listed"))
bad=0
for s in $unlisted; do
  echo "$s: exported by $(basename "$lib") but not listed in $symbols_file"
  bad=1
done
for s in $gone; do
  echo "$s: listed in $symbols_file but not exported by $(basename "$lib")"
  bad=1
done
for s in $dups; do
  echo "$s: listed more than once in $symbols_file"
  bad=1
done
[ $bad = 0 ] || exit 1
echo "$(wc -l <<<"$listed") symbols listed in $(basename "$symbols_file"): the same set as exported"
