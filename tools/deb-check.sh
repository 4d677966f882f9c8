#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the Debian packages as a user gets them (tools/bootstrap.sh
# deb-check builds them first and runs this; meant for the pristine
# container: tools/pristine.sh 'tools/bootstrap.sh deb-check'):
#
#   install   apt-get installs libzkcoord1, libzkcoord-dev and zkcoord from
#             DEB_DIR, their dependencies from Debian (in a container the
#             ZooKeeper C client the build used is removed first, so that
#             apt must bring it as the packages' dependency)
#   consumer  test/consumer built against /usr with CMake find_package
#             (shared and static) and pkg-config, and run
#             (test/consumer/check-packages.sh)
#   cli       /usr/bin/zkcoord against a 3-server ensemble
#             (test/ensemble/zk-ensemble.sh): runs a command under a lock,
#             passes its exit status on, refuses a held lock with -n; its
#             manual page renders
#   purge     apt-get purge of the three packages leaves none of their
#             files, links or own directories, and no dpkg state
#
# It installs and purges packages: it refuses to run while any zkcoord
# package is installed, and purges what it installed when a step fails.
# Needs root (or sudo), the build tools, pkg-config, the `zookeeper`
# package and a JRE (tools/bootstrap.sh installs them).
#
#   tools/deb-check.sh [DEB_DIR]     default: ${ZKC_BUILD_ROOT:-build}/deb
#
# Environment: ZKC_ENSEMBLE_PORT_BASE (the ensemble's ports, see
# zk-ensemble.sh), ZKC_ENSEMBLE_DIR (default: a temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT=$PWD
debs=$(realpath -m "${1:-${ZKC_BUILD_ROOT:-$ROOT/build}/deb}")
readonly PACKAGES=(libzkcoord1 libzkcoord-dev zkcoord)
readonly ENSEMBLE=$ROOT/test/ensemble/zk-ensemble.sh

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
apt_get() { DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -q "$@"; }

log() { printf '\n==> deb-check: %s\n' "$*"; }
fail() { echo "deb-check: FAIL: $*" >&2; exit 1; }

# Status of the packages (dpkg -l lines for any zkcoord package but the
# not-installed ones: 'un', 'pn').
zkcoord_dpkg_state() { dpkg -l 2>/dev/null | awk '$2 ~ /zkcoord/ && $1 !~ /^[up]n$/' || true; }

[ -z "$(zkcoord_dpkg_state)" ] || {
  zkcoord_dpkg_state >&2
  fail "zkcoord packages are installed already; this check installs and purges them itself (apt-get purge them first)"
}
files=()
for p in "${PACKAGES[@]}"; do
  f=$(compgen -G "$debs/${p}_*.deb" | head -1) || true
  [ -n "$f" ] || fail "no ${p}_*.deb in $debs (tools/bootstrap.sh deb builds them)"
  files+=("$f")
done

work=$(mktemp -d "${TMPDIR:-/tmp}/zkcoord-deb-check-XXXXXX")
export ZKC_ENSEMBLE_DIR=${ZKC_ENSEMBLE_DIR:-$work/ensemble}
step='' installed=0 ensemble=0 holder=
summary=()
begin() {
  step=$1
  step_start=$SECONDS
  log "$step"
}
done_step() { summary+=("PASS  $step: $1 ($((SECONDS - step_start)) s)"); step=''; }

finish() {
  local rc=$?
  if [ -n "$holder" ]; then kill "$holder" 2>/dev/null || true; fi
  if [ "$ensemble" = 1 ]; then "$ENSEMBLE" clean >/dev/null 2>&1 || true; fi
  if [ "$installed" = 1 ]; then # a failed step: leave the machine as it was
    apt_get purge -y "${PACKAGES[@]}" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  [ "$rc" = 0 ] || summary+=("FAIL  ${step:-set-up}")
  echo
  echo "==> deb-check summary"
  printf '  %s\n' "${summary[@]}"
  if [ "$rc" = 0 ]; then echo "deb-check: PASS"; else echo "deb-check: FAIL (exit $rc)"; fi
  exit "$rc"
}
trap finish EXIT

begin install
log "packages: ${files[*]##*/}"
dpkg-query -W -f='${Package}\n' | sort >"$work/before"
# In a throwaway container, the ZooKeeper C client the build installed goes,
# so that apt must resolve it from the packages' dependencies.
if [ -e /run/.containerenv ] || [ -e /.dockerenv ]; then
  apt_get purge -y libzookeeper-mt-dev libzookeeper-mt2 >/dev/null
  dpkg-query -W -f='${Package}\n' | sort >"$work/before"
  expect_deps=1
else
  expect_deps=0
fi
installed=1
apt_get install -y --no-install-recommends "${files[@]}"
dpkg-query -W -f='${Package}\n' | sort >"$work/after"
new=$(comm -13 "$work/before" "$work/after" | grep -vxF -f <(printf '%s\n' "${PACKAGES[@]}") | tr '\n' ' ' || true)
new=${new% }
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || fail "$p is not installed"
done
if [ "$expect_deps" = 1 ]; then
  for d in libzookeeper-mt2 libzookeeper-mt-dev; do
    [[ " $new " == *" $d "* ]] || fail "apt did not bring $d as a dependency (new: ${new:-none})"
  done
fi
dpkg -L "${PACKAGES[@]}" | sort -u >"$work/listed"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(dpkg-query -W -f='${Version}' zkcoord)
for f in "/usr/lib/$multiarch/libzkcoord.so.1" /usr/include/zkcoord/zkcoord.h \
         "/usr/lib/$multiarch/libzkcoord.a" "/usr/lib/$multiarch/pkgconfig/zkcoord.pc" \
         "/usr/lib/$multiarch/cmake/zkcoord/zkcoordConfig.cmake" \
         /usr/bin/zkcoord /usr/share/man/man1/zkcoord.1.gz \
         /usr/share/bash-completion/completions/zkcoord; do
  grep -qxF "$f" "$work/listed" || fail "$f is in none of the packages"
  [ -e "$f" ] || fail "$f is not installed"
done
bash -c 'source /usr/share/bash-completion/completions/zkcoord && complete -p zkcoord' \
  >/dev/null || fail "the bash completion does not load"
done_step "$version installed with apt; dependencies from Debian: ${new:-none new}"

begin "consumer builds against /usr"
"$ROOT/test/consumer/check-packages.sh"
done_step "CMake find_package (shared, static) and pkg-config consumers built and ran"

begin "zkcoord lock on a 3-server ensemble"
out=$(/usr/bin/zkcoord --version)
[ "$out" = "zkcoord ${version%-*} (library ${version%-*})" ] || fail "zkcoord --version said '$out'"
loaded=$(ldd /usr/bin/zkcoord | awk '$1 == "libzkcoord.so.1" {print $3}')
[ "$(realpath "$loaded")" = "$(realpath "/usr/lib/$multiarch/libzkcoord.so.1")" ] ||
  fail "/usr/bin/zkcoord loads '$loaded', not the packaged library"
if command -v man >/dev/null; then
  text=$(man zkcoord 2>/dev/null || true)
  grep -q "EXIT STATUS" <<<"$text" || fail "man zkcoord does not show the page"
  page="man zkcoord renders"
else
  page="man not installed: page not rendered"
fi
ensemble=1
"$ENSEMBLE" start
connect=$("$ENSEMBLE" connect)
path=/zkcoord-deb-check/lock-$$
zk=(/usr/bin/zkcoord -c "$connect" --connect-timeout 30)
# A command under the lock, which sees its fencing token.
# shellcheck disable=SC2016 # expanded by the command's shell
"${zk[@]}" lock "$path" -- sh -c 'echo "$ZKCOORD_FENCING_TOKEN" >"$1"' sh "$work/token" ||
  fail "zkcoord lock $path -- COMMAND failed"
token=$(cat "$work/token" 2>/dev/null || true)
[[ $token =~ ^[0-9]+$ ]] || fail "the command under the lock did not run (token '$token')"
# COMMAND's exit status is zkcoord's.
rc=0
"${zk[@]}" lock "$path" -- sh -c 'exit 7' || rc=$?
[ "$rc" = 7 ] || fail "zkcoord lock returned $rc for a command that exited 7"
# A held lock: -n gives up at once with the -E status; the holder goes on.
# shellcheck disable=SC2016 # expanded by the command's shell
"${zk[@]}" lock "$path" -- sh -c 'touch "$1/held"; while [ ! -e "$1/release" ]; do sleep 0.1; done' \
  sh "$work" &
holder=$!
for _ in $(seq 300); do [ -e "$work/held" ] && break; sleep 0.1; done
[ -e "$work/held" ] || fail "the holder did not get the lock within 30 s"
rc=0
"${zk[@]}" lock -n -E 42 "$path" -- touch "$work/second" || rc=$?
if [ "$rc" != 42 ] || [ -e "$work/second" ]; then
  fail "zkcoord lock -n on a held lock: exit $rc, expected 42 without running its command"
fi
touch "$work/release"
rc=0
wait "$holder" || rc=$?
holder=
[ "$rc" = 0 ] || fail "the holder exited $rc"
"$ENSEMBLE" clean
ensemble=0
done_step "ran a command under the lock (token $token), passed exit 7 on, -n refused a held lock; $page"

begin purge
installed=0
apt_get purge -y "${PACKAGES[@]}"
left=()
while IFS= read -r f; do
  [ "$f" = /. ] && continue
  if [ -d "$f" ] && [ ! -L "$f" ]; then
    # A directory may stay only while another package still owns it.
    dpkg-query -S "$f" >/dev/null 2>&1 || left+=("$f/")
  elif [ -e "$f" ] || [ -L "$f" ]; then
    left+=("$f")
  fi
done <"$work/listed"
[ ${#left[@]} = 0 ] || fail "left after the purge: ${left[*]}"
state=$(zkcoord_dpkg_state)
[ -z "$state" ] || fail "dpkg still knows the packages: $state"
cache=$(/sbin/ldconfig -p)
! grep -q libzkcoord <<<"$cache" || fail "the loader's cache still lists libzkcoord"
done_step "$(wc -l <"$work/listed") paths listed by dpkg -L all gone, no dpkg state, not in the loader's cache"
