#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds this consumer project against the INSTALLED Debian packages
# (libzkcoord1, libzkcoord-dev in /usr), as a user of the packages does:
# CMake's find_package(zkcoord) with no prefix given (shared and static
# targets, the version check), and pkg-config with no PKG_CONFIG_PATH and
# no rpath (the library is in the loader's own directory); then runs each
# program. The examples build with the same pkg-config line and start.
# Run by tools/deb-check.sh after it installs the packages.
#
#   check-packages.sh [C_COMPILER]
set -euo pipefail
cc=${1:-cc}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zkcoord-packages-XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "check-packages: $*" >&2; exit 1; }
say() { echo "check-packages: $*"; }

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || "$cc" -print-multiarch)
libdir=/usr/lib/$multiarch
header=/usr/include/zkcoord/version.h
[ -f "$header" ] || fail "$header missing: is libzkcoord-dev installed?"
dpkg-query -S "$header" >/dev/null 2>&1 || fail "$header belongs to no package"
version=$(sed -n 's/^#define ZKC_VERSION_STRING "\(.*\)"/\1/p' "$header")
major=${version%%.*}
# The package's version without epoch and Debian revision is the library's.
pkgversion=$(dpkg-query -W -f='${Version}' libzkcoord-dev)
pkgversion=${pkgversion#*:}
[ "${pkgversion%-*}" = "$version" ] ||
  fail "libzkcoord-dev is version $pkgversion, its version.h says $version"
so=$libdir/libzkcoord.so.$major
[ -e "$so" ] || fail "$so missing"

# loads PROGRAM: the libzkcoord.so.N the loader picks for PROGRAM (empty
# when it links none).
loads() { ldd "$1" | awk -v so="libzkcoord.so.$major" '$1 == so {print $3}'; }

# CMake: nothing but the system's default search path finds the package.
cmake -S "$here" -B "$work/cmake" -DCMAKE_C_COMPILER="$cc" \
  -DZKC_WANT_VERSION="$version" >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log" >&2; fail "find_package(zkcoord $version) failed against /usr"; }
dir=$(sed -n 's/^zkcoord_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")
[ "$dir" = "$libdir/cmake/zkcoord" ] || fail "CMake found zkcoord in '$dir', not $libdir/cmake/zkcoord"
cmake --build "$work/cmake" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "the CMake consumer does not build"; }
[ "$(realpath "$(loads "$work/cmake/consumer_shared")")" = "$(realpath "$so")" ] ||
  fail "consumer_shared does not load $so"
[ -z "$(loads "$work/cmake/consumer_static")" ] ||
  fail "consumer_static loads libzkcoord.so.$major: zkcoord::zkcoord_static is not static"
"$work/cmake/consumer_shared" || fail "consumer_shared (CMake) failed"
"$work/cmake/consumer_static" || fail "consumer_static (CMake) failed"
if cmake -S "$here" -B "$work/cmake-next" -DZKC_WANT_VERSION=$((major + 1)).0 >/dev/null 2>&1; then
  fail "find_package(zkcoord $((major + 1)).0) accepted version $version"
fi
say "CMake find_package(zkcoord $version) from $dir: shared and static consumers ok"

# pkg-config: the .pc file in the default search path, no rpath needed.
[ "$(pkg-config --modversion zkcoord)" = "$version" ] || fail "pkg-config --modversion zkcoord"
# (The .pc file is relocatable: its libdir is relative to its own place.)
[ "$(realpath -m "$(pkg-config --variable=libdir zkcoord)")" = "$libdir" ] ||
  fail "pkg-config's libdir is $(pkg-config --variable=libdir zkcoord), not $libdir"
# shellcheck disable=SC2046
"$cc" -Wall -Wextra -Werror -DEXPECTED_VERSION="\"$version\"" "$here/main.c" \
  $(pkg-config --cflags --libs zkcoord) -o "$work/consumer_pc" ||
  fail "the consumer does not build with pkg-config"
[ "$(realpath "$(loads "$work/consumer_pc")")" = "$(realpath "$so")" ] ||
  fail "the pkg-config consumer does not load $so"
env -u LD_LIBRARY_PATH "$work/consumer_pc" || fail "the pkg-config consumer failed"
say "cc \$(pkg-config --cflags --libs zkcoord): consumer ok, loads $so without rpath"

# The examples, with the same line: each starts (usage error, exit 64).
examples=(oversell scheduler semaphore rwlock multilock selector)
for ex in "${examples[@]}"; do
  # shellcheck disable=SC2046
  "$cc" -Wall -Wextra -Werror "$here/../../examples/$ex.c" \
    $(pkg-config --cflags --libs zkcoord) -o "$work/ex_$ex" ||
    fail "examples/$ex.c does not build with pkg-config"
  rc=0
  env -u LD_LIBRARY_PATH "$work/ex_$ex" --no-such-option >/dev/null 2>&1 || rc=$?
  [ "$rc" = 64 ] || fail "examples/$ex: exit $rc for a usage error, expected 64"
done
say "examples (${examples[*]}) build with pkg-config and start"
say "ok: the installed packages build and run consumers ($version, $so)"
