#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ABI guard: the built library against the stored description of the
# released one (abi/, written by tools/abi-dump.sh), compared by abidiff.
#
#   check-abi.sh LIB STORED_ABI HEADERS_DIR
#
#   LIB          the shared library, built with debug info (-g)
#   STORED_ABI   the stored description, or a directory holding exactly one
#                (*.abi)
#   HEADERS_DIR  the public headers LIB was built from (include/zkcoord)
#
# Fails when the library is incompatible with the stored description (a
# function or variable removed or no longer exported, or changed: a type it
# takes or returns changed, say a struct the application allocates or a
# callback's parameters) and its SONAME is still the stored one. Passes,
# with a note to regenerate the description, when the SONAME was bumped;
# passes on compatible changes (functions added), listing them. Changes
# abidiff calls harmless (an enumerator added, a typedef renamed) are not
# counted.
#
# abidiff's exit status is a bit field: 1 error, 2 usage error, 4 ABI
# change, 8 incompatible change. Bit 8 covers removals only (libabigail
# 2.2), so any function or variable abidiff reports as changed, after its
# harmless-change filters, counts as incompatible here too.
#
# Exit status: 0 pass; 1 incompatible change under the same SONAME; 2 could
# not check (tools or debug info missing, abidiff error, bad arguments).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dump=$here/../tools/abi-dump.sh
say() { echo "check-abi: $*"; }
error() {
  echo "check-abi: ERROR: $*" >&2
  exit 2
}
[ $# -eq 3 ] || error "usage: $0 LIB STORED_ABI HEADERS_DIR"
lib=$1 stored=$2 headers=$3

for tool in abidw abidiff; do
  command -v "$tool" >/dev/null ||
    error "$tool not found: the ABI guard needs libabigail's tools (Debian: apt-get install abigail-tools)"
done
command -v readelf >/dev/null ||
  error "readelf not found (Debian: apt-get install binutils)"
[ -e "$lib" ] || error "$lib: no such library"
lib=$(readlink -f "$lib")
if [ -d "$stored" ]; then
  shopt -s nullglob
  found=("$stored"/*.abi)
  shopt -u nullglob
  [ ${#found[@]} -eq 1 ] ||
    error "$stored: ${#found[@]} descriptions (*.abi), expected one (tools/abi-dump.sh writes it)"
  stored=${found[0]}
fi
[ -f "$stored" ] || error "$stored: no such stored ABI description (tools/abi-dump.sh writes it)"
# grep reads to the end (not -q): an early exit would leave readelf a
# SIGPIPE, failing the pipeline under pipefail
readelf -S --wide "$lib" | grep ' \.debug_info ' >/dev/null ||
  error "$lib has no debug info, and the guard compares types: build it with -g (CMAKE_BUILD_TYPE=RelWithDebInfo, as tools/bootstrap.sh does, or Debug)"

lib_soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
stored_soname=$(grep -m1 -o "<abi-corpus [^>]*soname='[^']*'" "$stored" | sed "s/.*soname='//; s/'\$//")
[ -n "$lib_soname" ] || error "$lib has no SONAME"
[ -n "$stored_soname" ] || error "$stored names no SONAME"
say "$lib (SONAME $lib_soname) against $stored (SONAME $stored_soname)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkc-check-abi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The library's description made as the stored one was, then the two
# compared: both sides read the same way.
"$dump" -o "$tmp/built.abi" -H "$headers" "$lib" >/dev/null ||
  error "could not describe $lib (tools/abi-dump.sh, above)"
abidiff "$stored" "$tmp/built.abi" >"$tmp/report" 2>"$tmp/errors"
rc=$?
if ((rc & 3)); then
  cat "$tmp/report" "$tmp/errors"
  error "abidiff failed (exit status $rc: $( ((rc & 2)) && echo usage error || echo error))"
fi
# abidiff reads a truncated or conflicted XML file as far as it can, says
# so on stderr and may still exit 0.
if [ -s "$tmp/errors" ]; then
  head -n 20 "$tmp/errors"
  error "abidiff could not read the descriptions cleanly (above): is $stored intact?"
fi

# The summary lines, e.g.
#   Functions changes summary: 1 Removed, 2 Changed (3 filtered out), 4 Added functions
#   Function symbols changes summary: 0 Removed, 1 Added function symbol not referenced by debug info
count() { # WORD: the sum of "<n> WORD" over the summary lines
  grep 'changes summary:' "$tmp/report" | grep -oE "[0-9]+ $1" | awk '{n += $1} END {print n + 0}'
}
removed=$(count Removed) changed=$(count Changed) added=$(count Added)
bumped=0
[ "$lib_soname" != "$stored_soname" ] && bumped=1
incompatible=0
if ((rc & 8)) || [ "$removed" -gt 0 ] || [ "$changed" -gt 0 ]; then
  incompatible=1
elif ((rc & 4)) && [ "$added" -eq 0 ] && [ $bumped = 0 ]; then
  incompatible=1 # a change abidiff reports but none of the counts above
fi
((rc & 4)) && sed 's/^/  | /' "$tmp/report"

regen="regenerate the description from a build with debug info: tools/abi-dump.sh BUILD_DIR (at the release; it replaces $(basename "$stored"))"
if [ $incompatible = 1 ] && [ $bumped = 0 ]; then
  say "FAIL: incompatible ABI change ($removed removed, $changed changed) under the same SONAME $lib_soname:"
  say "  applications built against the released library would break. Keep the"
  say "  released interface (add functions and types; change and remove none), or"
  say "  bump the major version in CMakeLists.txt's project() (the SONAME follows it)"
  say "  and $regen"
  exit 1
elif [ $bumped = 1 ]; then
  what="no ABI change"
  [ $incompatible = 1 ] && what="incompatible ABI changes ($removed removed, $changed changed)"
  [ $incompatible = 0 ] && [ "$added" -gt 0 ] && what="compatible ABI changes ($added added)"
  say "PASS: $what; the SONAME was bumped ($stored_soname -> $lib_soname)."
  say "NOTE: $stored describes $stored_soname: $regen"
elif ((rc & 4)); then
  say "PASS: compatible ABI changes only: $added added (listed above)"
else
  say "PASS: no ABI change against $stored_soname"
fi
exit 0
