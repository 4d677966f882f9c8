#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs a zkcoord build tree into a temporary prefix and checks what a
# user gets: the files, the SONAME, the exported symbols, the CLI and man
# page, and a consumer project built against it with find_package(zkcoord)
# (shared and static targets) and with pkg-config, as are the examples.
#
#   check-install.sh BUILD_DIR C_COMPILER
set -euo pipefail
build=$1
cc=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zkcoord-install-XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() { echo "check-install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null

libdir=$(cd "$prefix" && dirname "$(find . -name 'libzkcoord.so' | head -1)")
[ -n "$libdir" ] && [ "$libdir" != . ] || fail "libzkcoord.so not installed"
libdir=${libdir#./}
for f in include/zkcoord/zkcoord.h include/zkcoord/version.h include/zkcoord/status.h \
         "$libdir/libzkcoord.a" "$libdir/pkgconfig/zkcoord.pc" \
         "$libdir/cmake/zkcoord/zkcoordConfig.cmake" \
         "$libdir/cmake/zkcoord/zkcoordConfigVersion.cmake" \
         "$libdir/cmake/zkcoord/zkcoordTargets.cmake" \
         "$libdir/cmake/zkcoord/FindZooKeeperMT.cmake" \
         bin/zkcoord share/man/man1/zkcoord.1; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done

version=$(sed -n 's/^#define ZKC_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/zkcoord/version.h")
major=${version%%.*}
soname=$(readelf -d "$prefix/$libdir/libzkcoord.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libzkcoord.so.$major" ] || fail "SONAME '$soname', expected libzkcoord.so.$major"
[ -e "$prefix/$libdir/$soname" ] || fail "$soname link missing"
"$here/../check-exports.sh" "$prefix/$libdir/libzkcoord.so"

# The CLI finds the installed library by its RPATH, not the build tree's.
out=$("$prefix/bin/zkcoord" --version)
[ "$out" = "zkcoord $version (library $version)" ] || fail "zkcoord --version said '$out'"
loaded=$(ldd "$prefix/bin/zkcoord" | awk -v so="$soname" '$1 == so {print $3}')
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$prefix/$libdir/$soname")" ] ||
  fail "installed zkcoord loads '$loaded', not $prefix/$libdir/$soname"
man -l "$prefix/share/man/man1/zkcoord.1" 2>/dev/null | grep -q "EXIT STATUS" ||
  fail "man page does not render"

# CMake package: shared and static targets, and the version check.
cmake -S "$here" -B "$work/cmake" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" -DZKC_WANT_VERSION="$version" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer_shared"
"$work/cmake/consumer_static"
if cmake -S "$here" -B "$work/cmake-next" -DCMAKE_PREFIX_PATH="$prefix" \
     -DZKC_WANT_VERSION=$((major + 1)).0 >/dev/null 2>&1; then
  fail "find_package(zkcoord $((major + 1)).0) accepted version $version"
fi

# pkg-config, relocated: the .pc file works wherever the prefix is.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
[ "$(pkg-config --modversion zkcoord)" = "$version" ] || fail "pkg-config version"
# shellcheck disable=SC2046
"$cc" -Wall -Wextra -Werror -DEXPECTED_VERSION="\"$version\"" "$here/main.c" \
  $(pkg-config --cflags --libs zkcoord) -o "$work/consumer_pc"
# As docs/install.md says: a prefix the loader does not search needs an rpath
# (or ldconfig, or LD_LIBRARY_PATH); without one the program cannot start.
# (Unless this machine has a libzkcoord.so.1 of its own in the loader's
# cache, say from the packages: then that one is found instead.)
if ! /sbin/ldconfig -p | grep -q 'libzkcoord\.so\.0 ' &&
   env -u LD_LIBRARY_PATH "$work/consumer_pc" >/dev/null 2>&1; then
  fail "a pkg-config build without rpath started: the loader note of docs/install.md is wrong here"
fi
LD_LIBRARY_PATH="$prefix/$libdir" "$work/consumer_pc"
# shellcheck disable=SC2046
"$cc" -Wall -Wextra -Werror -DEXPECTED_VERSION="\"$version\"" "$here/main.c" \
  $(pkg-config --cflags --libs zkcoord) \
  -Wl,-rpath,"$(pkg-config --variable=libdir zkcoord)" -o "$work/consumer_rpath"
env -u LD_LIBRARY_PATH "$work/consumer_rpath" || fail "the rpath build of docs/install.md does not run"

# The examples build as a user builds them, with the pkg-config
# line (and rpath) alone: zkcoord's public API only, no ZooKeeper header or
# library of their own. Each must start (a usage error, exit 64; a program
# that cannot load its libraries exits 127).
examples=(oversell scheduler semaphore rwlock multilock selector metrics)
for ex in "${examples[@]}"; do
  # shellcheck disable=SC2046
  "$cc" -Wall -Wextra -Werror "$here/../../examples/$ex.c" \
    $(pkg-config --cflags --libs zkcoord) \
    -Wl,-rpath,"$(pkg-config --variable=libdir zkcoord)" -o "$work/ex_$ex" ||
    fail "examples/$ex.c does not build with pkg-config"
done
if pkg-config --exists libuv; then
  # shellcheck disable=SC2046
  "$cc" -Wall -Wextra -Werror "$here/../../examples/uv_daemon.c" \
    $(pkg-config --cflags --libs zkcoord libuv) \
    -Wl,-rpath,"$(pkg-config --variable=libdir zkcoord)" -o "$work/ex_uv_daemon" ||
    fail "examples/uv_daemon.c does not build with pkg-config"
fi
for ex in "${examples[@]}"; do
  rc=0
  env -u LD_LIBRARY_PATH "$work/ex_$ex" --no-such-option >/dev/null 2>&1 || rc=$?
  [ "$rc" = 64 ] || fail "examples/$ex built with pkg-config: exit $rc for a usage error, expected 64"
done
echo "install, CMake package and pkg-config consumers: ok ($soname)"
