#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One-command set-up on a fresh Debian machine: installs what is missing,
# builds, and runs either the demo or the whole test suite.
#
#   tools/bootstrap.sh demo    build, start the local 3-server ensemble, run
#                              the overselling demo, stop the ensemble
#   tools/bootstrap.sh test    build and run the whole suite: the normal
#                              build, ASan+UBSan, TSan and valgrind, then a
#                              short libFuzzer run (clang) of the name logic
#   tools/bootstrap.sh quick   the normal build's suite only
#   tools/bootstrap.sh compose the compose cluster on Podman: images built
#                              from a debootstrap root (no registry), three
#                              servers, the suite against them, a server
#                              killed and healed, everything removed
#   tools/bootstrap.sh pristine [CMD]
#                              CMD (default: tools/bootstrap.sh demo) on the
#                              committed tree in a pristine Debian container
#                              (debootstrap, no registry): a missing install
#                              step fails there
#   tools/bootstrap.sh bench   install the benchmark's peers (Curator, kazoo,
#                              go-zookeeper) and gnuplot, run bench/run.sh
#   tools/bootstrap.sh deb     the Debian packages (libzkcoord1,
#                              libzkcoord-dev, zkcoord) built by
#                              dpkg-buildpackage from `git archive HEAD`
#                              (committed files only) in a temporary
#                              directory; the .debs, .buildinfo and .changes
#                              go to $ZKC_BUILD_ROOT/deb/
#   tools/bootstrap.sh deb-check
#                              the packages as a user gets them
#                              (tools/deb-check.sh): built as by deb,
#                              installed with apt (dependencies from
#                              Debian), test/consumer built against /usr
#                              with CMake and pkg-config, /usr/bin/zkcoord
#                              run under a lock on a local ensemble, then
#                              purged, leaving no file and no dpkg state.
#                              It installs and removes system packages:
#                              run it in the pristine container
#                              (tools/bootstrap.sh pristine 'tools/bootstrap.sh deb-check')
#
# Environment: ZKC_BUILD_ROOT (default ./build), ZKC_JOBS (default nproc).
set -euo pipefail

cd "$(dirname "$0")/.."
readonly ROOT=$PWD
readonly BUILD_ROOT=${ZKC_BUILD_ROOT:-$ROOT/build}
readonly JOBS=${ZKC_JOBS:-$(nproc)}
# What the demo needs: the library, its example and a local ensemble.
readonly DEMO_PACKAGES=(
  build-essential cmake pkg-config
  libzookeeper-mt-dev uthash-dev
  zookeeper default-jre-headless
)
# What the whole suite needs on top: cmocka, Curator, a JDK and kazoo (interop),
# valgrind, clang (fuzzing, LeakSanitizer runtime), Doxygen (API reference),
# docker-compose (compose file check), man-db (the packaging test renders
# the man page), libuv (the event-loop example the async tests run),
# abigail-tools (abidw and abidiff: the ABI guard), socat (the relays
# through which the suite's ensemble can cut a server off from the others),
# prometheus (its promtool checks the metrics' text exposition).
readonly TEST_PACKAGES=(
  "${DEMO_PACKAGES[@]}"
  libcmocka-dev
  default-jdk-headless libcurator-recipes-java libslf4j-java
  python3-kazoo
  valgrind
  clang libclang-rt-dev
  doxygen docker-compose man-db
  libuv1-dev
  abigail-tools
  socat
  prometheus
)
# The benchmark's peers (bench/peers/) and its plots, on top of the demo's.
readonly BENCH_PACKAGES=(
  "${DEMO_PACKAGES[@]}"
  default-jdk-headless libcurator-recipes-java libslf4j-java
  python3-kazoo
  golang-go golang-github-samuel-go-zookeeper-dev
  gnuplot-nox
)

# What the Debian packages need: the build dependencies (debian/control's
# Build-Depends) and the packaging tools.
readonly DEB_PACKAGES=(
  build-essential cmake pkg-config
  libzookeeper-mt-dev uthash-dev
  debhelper dpkg-dev fakeroot
)

# What checking the packages needs on top: a local ensemble for the
# installed tool, man-db to show its manual page.
readonly DEB_CHECK_PACKAGES=(
  "${DEB_PACKAGES[@]}"
  zookeeper default-jre-headless
  man-db
)

# What the compose cluster needs: Podman with runc and CNI name resolution
# between containers, a compose front-end, debootstrap for the base image.
readonly COMPOSE_PACKAGES=(
  podman podman-compose runc containernetworking-plugins
  golang-github-containernetworking-plugin-dnsname debootstrap
)

log() { printf '\n==> %s\n' "$*"; }

# install_missing PACKAGE...
install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
}

# build DIR [cmake args...]
build() {
  local dir=$1
  shift
  log "building in $dir $*"
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
}

# docs DIR: the API reference (Doxygen warnings fail it).
docs() {
  log "API reference: $1/docs/html"
  cmake --build "$1" --target docs
}

# suite DIR: every test of one build tree; CTest starts and stops the ensemble.
# suite DIR [PARALLEL]: PARALLEL cases at a time (default 4). Most cases
# wait on the ensemble, not the CPU (the cases that restart or cut off
# servers run one at a time on ensembles of their own, beside the rest):
# measured on 2 cores, the ASan and TSan trees kept the CPU 32 % and 57 %
# busy, and four at a time took 0.6-0.7 of two's time. The valgrind tree is
# CPU-bound (97 % busy at four): three there. One tree after another: a
# tree's ensembles use the same ports as the next tree's.
# A case that found the ensemble not serving healed it and went on
# (test/harness/serving.c): the suite says so after the tree, pass or fail.
suite() {
  local heals=$1/test/ensemble-heals.log rc=0 parallel=${2:-4}
  log "test suite: $1 ($parallel at a time)"
  rm -f "$heals"
  ctest --test-dir "$1" --output-on-failure --timeout 600 --parallel "$parallel" || rc=$?
  if [ -s "$heals" ]; then
    log "the ensemble did not serve before these cases and was healed:"
    cat "$heals"
  fi
  [ "$rc" -eq 0 ] || failed_tails "$1"
  return "$rc"
}

# failed_tails DIR: the last lines each failed case printed (its assertion,
# the checker's findings; the ZooKeeper client's own log lines left out),
# repeated at the very end of the log, where a reader of only the log's
# tail finds why the tree is red.
failed_tails() {
  local t=$1/Testing/Temporary name
  [ -s "$t/LastTestsFailed.log" ] || return 0
  log "why each failed case failed (its last lines):"
  while IFS=: read -r _ name; do
    echo "--- $name"
    awk -v name="$name" '
      $0 ~ / Testing: / { on = ($NF == name); n = 0; next }
      on && /^<end of output>/ { for (i = (n > 25 ? n - 25 : 0); i < n; i++) print buf[i % 25]; on = 0; next }
      on && !/:ZOO_(ERROR|WARN|INFO|DEBUG)@/ { buf[n % 25] = $0; n++ }' "$t/LastTest.log"
  done <"$t/LastTestsFailed.log"
}

demo() {
  # Only the library and the examples: no test suite, benches or CLI.
  build "$BUILD_ROOT/demo" -DZKC_BUILD_TESTS=OFF -DZKC_BUILD_BENCH=OFF \
    -DZKC_BUILD_CLI=OFF -DZKC_BUILD_EXAMPLES=ON
  local ensemble=$ROOT/test/ensemble/zk-ensemble.sh
  # Expanded now: the trap runs after this function's locals are gone.
  trap "'$ensemble' stop >/dev/null 2>&1 || true" EXIT
  "$ensemble" start
  examples/run-demo.sh "$BUILD_ROOT/demo"
}

# deb: the packages built from the committed tree (git archive HEAD; a tree
# that is not a git checkout, such as pristine's export, is copied as it is,
# without its build trees), in a temporary directory that is removed after.
deb() {
  local out=$BUILD_ROOT/deb tmp
  tmp=$(mktemp -d)
  # Expanded now: the trap runs after this function's locals are gone.
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  mkdir "$tmp/zkcoord"
  if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    log "Debian packages from git archive HEAD ($(git -C "$ROOT" rev-parse --short HEAD))"
    git -C "$ROOT" archive --format=tar HEAD | tar -x -C "$tmp/zkcoord"
  else
    log "Debian packages from $ROOT (not a git checkout)"
    tar -C "$ROOT" --exclude='./.git' --exclude='./build*' --exclude='./obj-*' \
      -cf - . | tar -x -C "$tmp/zkcoord"
  fi
  (cd "$tmp/zkcoord" &&
    DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$JOBS} dpkg-buildpackage -us -uc -b)
  rm -rf "$out"
  mkdir -p "$out"
  cp "$tmp"/*.deb "$tmp"/*.buildinfo "$tmp"/*.changes "$out"/
  log "packages in $out"
  ls -l "$out"
}

main() {
  local what=${1:-}
  case "$what" in
    demo | test | quick | compose | pristine | bench | deb | deb-check) ;;
    *)
      echo "usage: $0 demo|test|quick|compose|pristine|bench|deb|deb-check" >&2
      exit 2
      ;;
  esac
  if [ "$what" = demo ]; then
    install_missing "${DEMO_PACKAGES[@]}"
  elif [ "$what" = compose ] || [ "$what" = pristine ]; then
    install_missing "${COMPOSE_PACKAGES[@]}"
  elif [ "$what" = bench ]; then
    install_missing "${BENCH_PACKAGES[@]}"
  elif [ "$what" = deb ]; then
    install_missing "${DEB_PACKAGES[@]}"
  elif [ "$what" = deb-check ]; then
    install_missing "${DEB_CHECK_PACKAGES[@]}"
  else
    install_missing "${TEST_PACKAGES[@]}"
  fi
  case "$what" in
    demo) demo ;;
    compose) exec tools/compose-cluster.sh ;;
    pristine) exec tools/pristine.sh "${2:-tools/bootstrap.sh demo}" ;;
    bench) ZKC_BUILD_ROOT=$BUILD_ROOT bench/run.sh ;;
    deb) deb ;;
    deb-check)
      deb
      ZKC_BUILD_ROOT=$BUILD_ROOT tools/deb-check.sh "$BUILD_ROOT/deb"
      ;;
    quick)
      build "$BUILD_ROOT/default"
      docs "$BUILD_ROOT/default"
      suite "$BUILD_ROOT/default"
      ;;
    test)
      local start=$SECONDS
      build "$BUILD_ROOT/default"
      docs "$BUILD_ROOT/default"
      suite "$BUILD_ROOT/default"
      build "$BUILD_ROOT/asan" -DZKC_SANITIZE=address
      suite "$BUILD_ROOT/asan"
      build "$BUILD_ROOT/tsan" -DZKC_SANITIZE=thread
      suite "$BUILD_ROOT/tsan"
      build "$BUILD_ROOT/valgrind" -DZKC_VALGRIND=ON
      suite "$BUILD_ROOT/valgrind" 3
      # libFuzzer targets only (no ensemble): ZKC_FUZZ_SECONDS each.
      build "$BUILD_ROOT/fuzz" -DCMAKE_C_COMPILER=clang -DZKC_FUZZ=ON \
        -DZKC_BUILD_TESTS=OFF -DZKC_BUILD_BENCH=OFF -DZKC_BUILD_EXAMPLES=OFF
      suite "$BUILD_ROOT/fuzz"
      log "all suites passed in $((SECONDS - start)) s"
      ;;
  esac
}

main "$@"
