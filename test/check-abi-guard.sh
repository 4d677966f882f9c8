#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ABI guard catches breaks: a copy of the library's sources (include/,
# lib/, cmake/, CMakeLists.txt; no tool, tests, benches or examples) built
# at -O0 -g, one deliberate change at a time, each checked by check-abi.sh
# against the stored description:
#   (e) unmodified (functions added since the release
#       are compatible)                                  must pass
#   (a) a field inserted in the middle of zkc_client_opts_t, which
#       applications declare on their stack              must fail
#   (b) zkc_list_free no longer exported                 must fail
#   (c) zkc_lost_fn's token parameter int64_t -> int32_t must fail
#   (d) (a) with the major version bumped in project() (new SONAME)
#                                                        must pass, with a
#                                                        note to regenerate
#   (f) a function added (declared in common.h, defined in lib/version.c)
#                                                        must pass, naming it
# One configured tree; each case edits, builds the zkcoord target, checks
# and restores. An edit that no longer applies (the sources moved on) fails
# the test: update the edit here.
#
#   check-abi-guard.sh SOURCE_DIR STORED_ABI [C_COMPILER]
set -uo pipefail

[ $# -ge 2 ] || {
  echo "usage: $0 SOURCE_DIR STORED_ABI [C_COMPILER]" >&2
  exit 2
}
src=$(cd "$1" && pwd) stored=$2 cc=${3:-}
check=$src/test/check-abi.sh
for tool in abidw abidiff; do
  command -v "$tool" >/dev/null || {
    echo "check-abi-guard: $tool not found: the ABI guard needs libabigail's tools (Debian: apt-get install abigail-tools)" >&2
    exit 1
  }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkc-abi-guard.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
copy=$tmp/src build=$tmp/build
mkdir "$copy"
cp -R "$src/include" "$src/lib" "$src/cmake" "$src/CMakeLists.txt" "$copy/"

start=$SECONDS
cfg=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O0 -g" -DZKC_WERROR=OFF
     -DBUILD_TESTING=OFF -DZKC_BUILD_TESTS=OFF -DZKC_BUILD_CLI=OFF
     -DZKC_BUILD_BENCH=OFF -DZKC_BUILD_EXAMPLES=OFF -DZKC_FUZZ=OFF
     -DZKC_SANITIZE= -DCMAKE_DISABLE_FIND_PACKAGE_Doxygen=ON)
[ -n "$cc" ] && cfg+=("-DCMAKE_C_COMPILER=$cc")
if ! cmake -S "$copy" -B "$build" "${cfg[@]}" >"$tmp/configure.log" 2>&1; then
  cat "$tmp/configure.log"
  echo "check-abi-guard: configuring the copy failed" >&2
  exit 1
fi
echo "check-abi-guard: copy configured in $tmp ($((SECONDS - start)) s)"

bad=0

edit() { # FILE SED-EXPRESSION: apply to the copy; fails if nothing changed
  local f=$copy/$1
  [ -e "$f.orig" ] || cp -p "$f" "$f.orig"
  sed -i -e "$2" "$f"
  if cmp -s "$f" "$f.orig"; then
    echo "check-abi-guard: the edit '$2' no longer changes $1: update this test" >&2
    return 1
  fi
}
restore() { # every edited file back, with a new time so that it is rebuilt
  local o
  while IFS= read -r o; do
    cp "$o" "${o%.orig}" && rm -f "$o" && touch "${o%.orig}"
  done < <(find "$copy" -name '*.orig')
}

# case NAME EXPECT(0|1) PATTERN DESCRIPTION EDIT...
#   EDIT: FILE=SED-EXPRESSION; EXPECT is check-abi.sh's exit status; PATTERN
#   must appear in its output (the reason it passed or failed).
case_() {
  local name=$1 expect=$2 pattern=$3 what=$4 t0=$SECONDS e rc verdict
  shift 4
  for e in "$@"; do
    edit "${e%%=*}" "${e#*=}" || {
      bad=1
      restore
      return
    }
  done
  if ! cmake --build "$build" --target zkcoord -j "${ZKC_JOBS:-$(nproc)}" \
    >"$tmp/build-$name.log" 2>&1; then
    tail -n 30 "$tmp/build-$name.log"
    echo "check-abi-guard: ($name) $what: the library did not build" >&2
    bad=1
    restore
    return
  fi
  "$check" "$build/libzkcoord.so" "$stored" "$copy/include/zkcoord" >"$tmp/check-$name.log" 2>&1
  rc=$?
  verdict=PASS
  [ $rc = 1 ] && verdict=FAIL
  [ $rc -gt 1 ] && verdict="ERROR ($rc)"
  if [ "$rc" = "$expect" ] && grep -qE -- "$pattern" "$tmp/check-$name.log"; then
    echo "check-abi-guard: ($name) $what: guard says $verdict, as it must ($((SECONDS - t0)) s)"
  else
    echo "check-abi-guard: ($name) $what: guard says $verdict (exit $rc)," \
      "expected exit $expect with /$pattern/ in its output: WRONG ($((SECONDS - t0)) s)"
    sed 's/^/    /' "$tmp/check-$name.log"
    bad=1
  fi
  # The guard's own summary and the lines of the report naming the change.
  grep -E '^check-abi: (PASS|FAIL|NOTE)|changes summary: .*[1-9]|\[[ACD]\]' \
    "$tmp/check-$name.log" | sed 's/^/    /'
  restore
}

major=$(sed -n 's/^project(zkcoord VERSION \([0-9]*\)\..*/\1/p' "$copy/CMakeLists.txt")
[ -n "$major" ] || {
  echo "check-abi-guard: no 'project(zkcoord VERSION X.Y.Z' line in CMakeLists.txt: update this test" >&2
  exit 1
}
insert_field='s/^\(  int connect_timeout_ms;\)$/\1\n  int abi_guard_inserted;/'

# Between releases the sources may already add functions to the released
# interface (listed, still a pass): (e) and (f) accept that.
case_ e 0 'PASS: (no ABI change|compatible ABI changes only)' "unmodified sources"
case_ a 1 "struct zkc_client_opts'" \
  "field inserted in the middle of zkc_client_opts_t" \
  "include/zkcoord/client.h=$insert_field"
case_ b 1 '[1-9][0-9]* Removed' "zkc_list_free no longer exported" \
  'include/zkcoord/common.h=s/^ZKC_EXTERN \(void zkc_list_free(\)/\1/'
case_ c 1 'zkc_lost_fn' "zkc_lost_fn's token int64_t -> int32_t" \
  'include/zkcoord/mutex.h=/^typedef void (\*zkc_lost_fn)/,/;/s/int64_t token/int32_t token/'
case_ d 0 "SONAME was bumped .*so\.$((major + 1))" \
  "field inserted in zkc_client_opts_t, major version $major -> $((major + 1))" \
  "include/zkcoord/client.h=$insert_field" \
  "CMakeLists.txt=s/^project(zkcoord VERSION $major\./project(zkcoord VERSION $((major + 1))./"
case_ f 0 "\\[A\\].*zkc_abi_guard_added" "function zkc_abi_guard_added added" \
  'include/zkcoord/common.h=s/^\(ZKC_EXTERN void zkc_list_free(.*\)$/\1\nZKC_EXTERN int zkc_abi_guard_added(void);/' \
  "lib/version.c=\$a int zkc_abi_guard_added(void) { return 0; }"

if [ $bad = 0 ]; then
  echo "check-abi-guard: the guard caught every break and passed the rest ($((SECONDS - start)) s)"
else
  echo "check-abi-guard: FAILED: see the cases above ($((SECONDS - start)) s)"
fi
exit $bad
