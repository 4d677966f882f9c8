#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One version everywhere: the project's (CMakeLists.txt project(), its one
# place) is what the CHANGELOG's topmost heading, debian/changelog's topmost
# entry, the manual page (in the tree and as built), version.h, the
# pkg-config file, the CMake package version file and `zkcoord --version`
# say.
#
#   check-version.sh SOURCE_DIR BUILD_DIR VERSION [ZKCOORD_BINARY]
set -euo pipefail
src=$1 build=$2 version=$3 cli=${4:-}
bad=0
fail() { echo "check-version: $*" >&2; bad=1; }
top=$(grep -m1 '^## ' "$src/CHANGELOG.md" | sed -E 's/^## ([^ ]+).*/\1/')
[ "$top" = "$version" ] ||
  fail "CHANGELOG.md's topmost heading is '$top', the build is $version"
deb=$(sed -n -E '1s/^[^ ]+ \(([^)]+)\).*/\1/p' "$src/debian/changelog")
[ "$deb" = "$version" ] ||
  fail "debian/changelog's topmost entry is '$deb', the build is $version"
grep -q "^#define ZKC_VERSION_STRING \"$version\"" "$build/include/zkcoord/version.h" ||
  fail "version.h does not say $version"
grep -q "^Version: $version\$" "$build/zkcoord.pc" ||
  fail "zkcoord.pc does not say Version: $version"
cfg=$(find "$build" -maxdepth 3 -name 'zkcoordConfigVersion.cmake' | head -1)
[ -n "$cfg" ] && grep -q "set(PACKAGE_VERSION \"$version\")" "$cfg" ||
  fail "the CMake package version file does not say $version"
grep -q "^\.TH ZKCOORD 1 .*\"zkcoord $version\"" "$src/cli/zkcoord.1" ||
  fail "the manual page in the tree (cli/zkcoord.1) does not say zkcoord $version"
if [ -n "$cli" ]; then # the tool and its manual page, when built
  grep -q "^\.TH ZKCOORD 1 .*\"zkcoord $version\"" "$build/cli/zkcoord.1" ||
    fail "the manual page ($build/cli/zkcoord.1) does not say zkcoord $version"
  out=$("$cli" --version)
  [ "$out" = "zkcoord $version (library $version)" ] ||
    fail "zkcoord --version says '$out'"
fi
[ $bad = 0 ] && echo "check-version: $version everywhere"
exit $bad
