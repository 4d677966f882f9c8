#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The compose cluster on Podman, from nothing: `tools/bootstrap.sh compose`
# installs the packages and runs this. No registry is needed: the base image
# is a Debian root made with debootstrap from this machine's apt source and
# imported; the server and tests images are built FROM it by
# docker/docker-compose.yml. Then: three servers up and healthy, the suite's
# tests that need no local servers run against them inside the tests image,
# one server killed while a lock is taken, the cluster healed, everything
# removed. Exit status: the suite's (or the first failing phase's).
#
# Environment: ZKC_ZK1_PORT..ZKC_ZK3_PORT (published client ports, default
# 2181-2183), ZKC_COMPOSE_PROJECT (default zkcoord), ZKC_BASE_CACHE (see
# tools/podman-base.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT=$PWD
readonly PROJECT=${ZKC_COMPOSE_PROJECT:-zkcoord}
export ZKC_ZK1_PORT=${ZKC_ZK1_PORT:-2181} ZKC_ZK2_PORT=${ZKC_ZK2_PORT:-2182}
export ZKC_ZK3_PORT=${ZKC_ZK3_PORT:-2183}

work=$(mktemp -d)
# shellcheck source=tools/podman-base.sh
. "$ROOT/tools/podman-base.sh"
export ZKC_BASE_IMAGE=$BASE_IMAGE
compose() { podman-compose -p "$PROJECT" -f "$ROOT/docker/docker-compose.yml" "$@"; }
ctr() { echo "${PROJECT}_$1_1"; }
# quiet COMMAND...: its output only if it fails (Podman warns on every
# container start that no systemd runs its health checks; see healthy).
quiet() { "$@" >"$work/out.log" 2>&1 || { cat "$work/out.log" >&2; return 1; }; }

phase_start=$SECONDS
phases=()
phase() { # phase NAME: closes the phase before it
  local now=$SECONDS
  [ -n "${current:-}" ] && phases+=("$current $((now - phase_start)) s")
  current=$1 phase_start=$now
  printf '\n==> compose: %s\n' "$1"
}
report() {
  [ -n "${current:-}" ] && phases+=("$current $((SECONDS - phase_start)) s")
  current=
  printf '==> compose: phase times: %s\n' "$(IFS=';'; echo "${phases[*]}")"
}

teardown() {
  local rc=$?
  phase teardown
  compose down -v >/dev/null 2>&1 || true
  podman network rm -f "${PROJECT}_default" >/dev/null 2>&1 || true
  left=$(podman ps -a --filter "name=^${PROJECT}_" --format '{{.Names}}')
  [ -z "$left" ] || { echo "compose: containers left: $left" >&2; rc=1; }
  rm -rf "$work"
  report
  echo "==> compose: exit $rc"
  exit $rc
}
trap teardown EXIT

# healthy [SECONDS]: every server's healthcheck passes. Podman runs
# healthchecks from systemd timers; without systemd nothing runs them, so
# they are run here (which also records the container's health).
healthy() {
  local deadline=$((SECONDS + ${1:-120})) n ok
  while :; do
    ok=0
    for n in 1 2 3; do
      podman healthcheck run "$(ctr zk$n)" >/dev/null 2>&1 && ok=$((ok + 1))
    done
    [ $ok = 3 ] && break
    if [ $SECONDS -ge $deadline ]; then
      echo "compose: only $ok of 3 servers healthy; their last words:" >&2
      for n in 1 2 3; do
        podman logs --tail 15 "$(ctr zk$n)" 2>&1 | sed "s/^/zk$n: /" >&2 || true
      done
      return 1
    fi
    sleep 1
  done
  for n in 1 2 3; do
    printf 'zk%s: %s, %s\n' $n "$(podman inspect -f '{{.State.Health.Status}}' "$(ctr zk$n)")" \
      "$(podman exec "$(ctr zk$n)" /usr/local/bin/zk-healthy.sh)"
  done
}

# zkcoord's CLI from the tests image, on the host's network (published ports).
cli() {
  podman run --rm --network host "localhost/zkcoord-tests:bookworm" /build/cli/zkcoord \
    --connect "127.0.0.1:$ZKC_ZK1_PORT,127.0.0.1:$ZKC_ZK2_PORT,127.0.0.1:$ZKC_ZK3_PORT" "$@"
}

phase "base image"
base_image
phase "image builds"
# podman-compose 1.0.3 exits 0 when a build fails: its log says so.
for svc in zk1 tests; do
  compose build "$svc" >"$work/build.log" 2>&1 || true
  if grep -qE '^exit code: [1-9]|^Error: ' "$work/build.log"; then
    tail -30 "$work/build.log" >&2
    echo "compose: building $svc failed" >&2
    exit 1
  fi
done
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep zkcoord-
phase "start"
quiet compose up -d zk1 zk2 zk3
healthy 180
phase "tests against the cluster"
set +e
podman run --rm --network "${PROJECT}_default" \
  -e ZKC_TEST_CONNECT=zk1:2181,zk2:2181,zk3:2181 "localhost/zkcoord-tests:bookworm" \
  ctest --test-dir /build --output-on-failure -j 2 \
  -LE 'local-servers|package|docker' -E '^ensemble[.]' -FA ensemble 2>&1 | tee "$work/ctest.log"
suite=${PIPESTATUS[0]}
set -e
grep -E 'tests passed|tests failed out of' "$work/ctest.log" | sed 's/^/compose: suite: /'
phase "server kill"
podman kill "$(ctr zk2)" >/dev/null
echo "zk2 killed"
cli lock -w 30 /zkcoord-compose-check -- sh -c 'echo "lock held with zk2 down, token $ZKCOORD_FENCING_TOKEN"'
quiet compose start zk2
healthy 120
echo "cluster healed: zk2 back and serving"
cli status /zkcoord-compose-check
exit $suite
