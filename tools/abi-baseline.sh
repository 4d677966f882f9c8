#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Takes the release's baseline from one build of the library: the Debian
# symbols file (debian/libzkcoord<MAJOR>.symbols) and the ABI description
# (abi/libzkcoord.so.<MAJOR>.abi, by tools/abi-dump.sh). Run it at a
# release, and again after merging anything that adds public calls, then
# commit both files:
#
#   tools/abi-baseline.sh [BUILD_DIR]
#
#   BUILD_DIR  where to configure and build the library (RelWithDebInfo:
#              the description needs debug info); default build/abi. Give
#              it a directory of its own: it is configured with the tests,
#              CLI, benches and examples off.
#
# The symbols file lists every exported symbol. A symbol it already lists
# keeps its version; a new one gets the project's version (CMakeLists.txt's
# project()), so in the first release of a major every symbol carries that
# release. The symbols file of another major is removed (a new major is a
# new package, libzkcoord<MAJOR>), as tools/abi-dump.sh removes the
# description of another SONAME.
#
# Exit status: 0 written; 1 could not (build failed, tool missing).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/abi}
die() {
  echo "abi-baseline: $*" >&2
  exit 1
}
command -v nm >/dev/null || die "nm not found (Debian: apt-get install binutils)"

version=$(sed -n 's/^project(zkcoord VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || die "no 'project(zkcoord VERSION X.Y.Z' line in CMakeLists.txt"
major=${version%%.*}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DZKC_BUILD_TESTS=OFF -DBUILD_TESTING=OFF -DZKC_BUILD_CLI=OFF \
  -DZKC_BUILD_BENCH=OFF -DZKC_BUILD_EXAMPLES=OFF >/dev/null ||
  die "configuring $build failed"
cmake --build "$build" --target zkcoord -j "${ZKC_JOBS:-2}" >/dev/null ||
  die "building the library in $build failed"
lib=$build/libzkcoord.so
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
[ "$soname" = "libzkcoord.so.$major" ] ||
  die "$lib has SONAME '$soname', expected libzkcoord.so.$major"

symbols=$root/debian/libzkcoord$major.symbols
declare -A since=()
if [ -f "$symbols" ]; then
  while read -r name ver; do since[$name]=$ver; done < <(
    sed -n -E 's/^[[:space:]]+(\([^)]*\))?([^@[:space:]]+)@[^[:space:]]+[[:space:]]+([^[:space:]]+).*/\2 \3/p' "$symbols")
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  echo "libzkcoord.so.$major libzkcoord$major #MINVER#"
  echo "* Build-Depends-Package: libzkcoord-dev"
  nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | LC_ALL=C sort -u |
    while read -r s; do echo " $s@Base ${since[$s]:-$version}"; done
} >"$tmp"
cp "$tmp" "$symbols"
echo "abi-baseline: $symbols: $(grep -c '@Base' "$symbols") symbols"
for old in "$root"/debian/libzkcoord*.symbols; do
  [ "$old" = "$symbols" ] && continue
  rm -f "$old"
  echo "abi-baseline: removed $old (another major's)"
done

"$root/tools/abi-dump.sh" "$build"
