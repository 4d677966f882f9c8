#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cmocka is needed by the tests only: configures fresh trees of this source
# with cmocka hidden (its paths pointed at nothing) and checks that
#   - a default configure succeeds and adds no tests (it says why);
#   - BUILD_TESTING=OFF and ZKC_BUILD_TESTS=OFF succeed without a word
#     about cmocka;
#   - ZKC_BUILD_TESTS=ON, an explicit request, fails naming cmocka.
# Configures only: nothing is built.
#
#   check-no-cmocka.sh C_COMPILER
set -euo pipefail
cc=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zkcoord-no-cmocka-XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "check-no-cmocka: $*" >&2; exit 1; }

# configure NAME [cmake args...]: 0 when the configure succeeded; its
# output in $work/NAME.log.
configure() {
  local name=$1
  shift
  cmake -S "$src" -B "$work/$name" -DCMAKE_C_COMPILER="$cc" \
    -DCMOCKA_INCLUDE_DIR="$work/none/include" \
    -DCMOCKA_LIBRARY="$work/none/libcmocka.so" "$@" >"$work/$name.log" 2>&1
}

tests_of() { ctest --test-dir "$work/$1" -N | sed -n 's/^ *Test *#[0-9]*: //p'; }

configure default || { cat "$work/default.log" >&2; fail "the default configure failed without cmocka"; }
[ -z "$(tests_of default)" ] || fail "the default configure without cmocka added tests"
grep -q "cmocka not found: the test suite is not built" "$work/default.log" ||
  { cat "$work/default.log" >&2; fail "the default configure did not say why there are no tests"; }

for off in -DBUILD_TESTING=OFF -DZKC_BUILD_TESTS=OFF; do
  configure "off$off" "$off" || { cat "$work/off$off.log" >&2; fail "configure with $off failed"; }
  [ -z "$(tests_of "off$off")" ] || fail "configure with $off added tests"
  ! grep -q "cmocka not found" "$work/off$off.log" || fail "configure with $off looked for cmocka"
done

if configure explicit -DZKC_BUILD_TESTS=ON; then
  fail "-DZKC_BUILD_TESTS=ON without cmocka configured"
fi
grep -q "cmocka not found, and the tests need it" "$work/explicit.log" ||
  { cat "$work/explicit.log" >&2; fail "-DZKC_BUILD_TESTS=ON failed without naming cmocka"; }

echo "no cmocka: default and tests-off configures work without it, ZKC_BUILD_TESTS=ON asks for it: ok"
