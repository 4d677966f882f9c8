#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the ABI description of libzkcoord (abidw's XML, from the library's
# DWARF): the exported zkc_* functions and the public types they reach, the
# types defined in include/zkcoord/ in full, every other type opaque. No
# machine's paths: source locations are file names only, no build or
# compilation directory, no DT_NEEDED list.
#
#   tools/abi-dump.sh [-o FILE] [-H HEADERS_DIR] BUILD_DIR|LIBRARY
#
#   BUILD_DIR  a configured and built tree (its libzkcoord.so), or the
#              library itself; it needs debug info (-g: CMAKE_BUILD_TYPE
#              RelWithDebInfo or Debug)
#   -o FILE    where to write; default abi/<SONAME>.abi in this source tree,
#              replacing the description of an older SONAME there
#   -H DIR     the public headers the library was built from; default
#              include/zkcoord of this source tree
#
# abi/<SONAME>.abi is the description of the released library, the one
# `unit.abi_guard` (test/check-abi.sh) compares every build against.
# Regenerate it, and commit it with the release:
#   - at each release, from the release's own build:
#       cmake -S . -B build/abi -DCMAKE_BUILD_TYPE=RelWithDebInfo
#       cmake --build build/abi --target zkcoord
#       tools/abi-dump.sh build/abi
#   - when the SONAME is bumped (the major version in CMakeLists.txt's
#     project()): the guard then passes with a note until it is done.
# Never to silence the guard: a change it calls incompatible under the same
# SONAME breaks applications built against the release.
#
# Exit status: 0 written; 2 could not (tool or debug info missing, a
# private header named like a public one, a path left in the output).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out='' headers=''
usage() {
  echo "usage: $0 [-o FILE] [-H HEADERS_DIR] BUILD_DIR|LIBRARY" >&2
  exit 2
}
die() {
  echo "abi-dump: $*" >&2
  exit 2
}
while getopts o:H: opt; do
  case $opt in
    o) out=$OPTARG ;;
    H) headers=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
headers=${headers:-$root/include/zkcoord}

for tool in abidw readelf; do
  command -v "$tool" >/dev/null ||
    die "$tool not found: install it (Debian: apt-get install abigail-tools binutils)"
done
lib=$1
[ -d "$lib" ] && lib=$lib/libzkcoord.so
[ -e "$lib" ] || die "$lib: no such library (build the zkcoord target first)"
lib=$(readlink -f "$lib")
[ -d "$headers" ] || die "$headers: no such headers directory"
headers=$(cd "$headers" && pwd -P)

# grep reads to the end (not -q): an early exit would leave readelf a
# SIGPIPE, failing the pipeline under pipefail
readelf -S --wide "$lib" | grep ' \.debug_info ' >/dev/null ||
  die "$lib has no debug info: build it with -g (CMAKE_BUILD_TYPE=RelWithDebInfo or Debug)"
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
[ -n "$soname" ] || die "$lib has no SONAME"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkc-abi-dump.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

opts=(--headers-dir "$headers" --drop-private-types --exported-interfaces-only
      --no-corpus-path --no-comp-dir-path --no-elf-needed --type-id-style hash)

# abidw counts a type as public when the header that defines it has the base
# name of a file of HEADERS_DIR, wherever it is: a private header named like
# a public one would put its types into the description (and every change
# to them into the guard's report). Checked on a dump with full paths.
abidw "${opts[@]}" --out-file "$tmp/full.abi" "$lib" ||
  die "abidw failed on $lib"
declare -A public=()
for h in "$headers"/*; do public[$(basename "$h")]=1; done
bad=0
while IFS= read -r path; do
  [ -n "${public[$(basename "$path")]:-}" ] || continue
  dir=$(cd "$(dirname "$path")" 2>/dev/null && pwd -P) || dir=$(dirname "$path")
  if [ "$dir" != "$headers" ]; then
    echo "abi-dump: $path has the base name of a public header of $headers:" \
      "abidw would count its types as public (rename it), or the library was" \
      "built from other headers than $headers" >&2
    bad=1
  fi
done < <(grep -o "filepath='[^']*'" "$tmp/full.abi" | sed "s/^filepath='//; s/'\$//" | sort -u)
[ $bad = 0 ] || exit 2

abidw "${opts[@]}" --short-locs --out-file "$tmp/out.abi" "$lib" ||
  die "abidw failed on $lib"
# Nothing of this machine: no absolute path, not this tree's.
if grep -nE "='/|/(work|tmp|root|home)/" "$tmp/out.abi" >&2 ||
  grep -nF -e "$root" -e "$(dirname "$lib")" "$tmp/out.abi" >&2; then
  die "the description names paths of this machine (lines above)"
fi

if [ -z "$out" ]; then
  mkdir -p "$root/abi"
  out=$root/abi/$soname.abi
  for old in "$root"/abi/*.abi; do
    if [ ! -e "$old" ] || [ "$old" = "$out" ]; then continue; fi
    rm -f "$old"
    echo "abi-dump: removed $old (another SONAME's)"
  done
fi
cp "$tmp/out.abi" "$out"
echo "abi-dump: $out: $soname, $(grep -c '<elf-symbol ' "$out") exported symbols"
