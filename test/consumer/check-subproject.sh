#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds zkcoord from source inside a parent project (add_subdirectory), as a
# user's project would, and checks that it then adds only its libraries: no
# command-line tool, tests, benches or examples (subproject/CMakeLists.txt
# fails its configuration otherwise); that a parent can still ask for the
# tool; that ZKC_BUILD_TESTS=ON honours the parent's BUILD_TESTING=OFF; and
# that a program linked to zkcoord::zkcoord there runs.
#
#   check-subproject.sh C_COMPILER
set -euo pipefail
cc=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zkcoord-subproject-XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "check-subproject: $*" >&2; exit 1; }

# configure DIR [cmake args...]: the parent project, quietly unless it fails.
configure() {
  local dir=$1
  shift
  cmake -S "$here/subproject" -B "$work/$dir" -DCMAKE_C_COMPILER="$cc" \
    -DZKCOORD_SOURCE_DIR="$src" "$@" >"$work/$dir.log" 2>&1 ||
    { cat "$work/$dir.log" >&2; fail "configuring the parent ($dir${*:+: $*}) failed"; }
}

# Defaults: the libraries only; the parent's program builds and runs.
configure default
cmake --build "$work/default" -j 2 >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "building the parent failed"; }
"$work/default/app"
[ -z "$(ctest --test-dir "$work/default" -N | sed -n 's/^ *Test *#[0-9]*: //p')" ] ||
  fail "the parent's ctest lists zkcoord tests"

# A parent can turn the tool on.
configure cli -DZKC_BUILD_CLI=ON -DZKC_EXPECT_TARGETS=zkcoord_cli
# ZKC_BUILD_TESTS=ON adds no tests while the parent's BUILD_TESTING is off.
configure no-testing -DZKC_BUILD_TESTS=ON -DBUILD_TESTING=OFF

echo "add_subdirectory(zkcoord): libraries only, CLI on request, BUILD_TESTING honoured: ok"
