#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs/cli.md "Try it against a scratch ensemble", run as printed but for the
# build line (this tree's binaries stand in for build/try), the
# directory (a private one) and, beside a suite on other ports than the
# default, the port base (moved by as much): its own ensemble on the ports it names starts,
# the holder holds before status reads (status must show it: the block may
# not race), the example runs, and the ensemble stops. Whatever happens,
# that ensemble is stopped and its directory removed.
# Usage: check-try.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=${1:?usage: check-try.sh SOURCE_DIR BUILD_DIR}
build=$(realpath "${2:?usage: check-try.sh SOURCE_DIR BUILD_DIR}")
cd "$src" || exit 1
block=$(sed -n '/^## Try it against a scratch ensemble/,/^## /p' docs/cli.md |
        sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
[[ -n $block ]] || { echo "FAIL: no sh block under 'Try it against a scratch ensemble'"; exit 1; }
work=$(mktemp -d)
printed=$(sed -n 's/^export ZKC_ENSEMBLE_PORT_BASE=\([0-9]*\).*/\1/p' <<<"$block")
[[ -n $printed ]] || { echo "FAIL: the block chooses no port base"; exit 1; }
# The printed base, moved as far as the suite's own ensemble is from the
# default (2180): suites run side by side on one machine stay apart.
base=$((printed + ${ZKC_ENSEMBLE_PORT_BASE:-2180} - 2180))
cleanup() {
  ZKC_ENSEMBLE_PORT_BASE=$base ZKC_ENSEMBLE_DIR=$work/ensemble \
    test/ensemble/zk-ensemble.sh stop >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
script=$(sed -e '/^cmake /d' -e "s|build/try/|$build/|g" \
             -e "s|^export ZKC_ENSEMBLE_PORT_BASE=$printed|export ZKC_ENSEMBLE_PORT_BASE=$base|" \
             -e "s|^export ZKC_ENSEMBLE_DIR=[^ ]*|export ZKC_ENSEMBLE_DIR=$work/ensemble|" <<<"$block")
grep -q "^export ZKC_ENSEMBLE_DIR=$work/ensemble" <<<"$script" ||
  { echo "FAIL: the block chooses no directory"; exit 1; }
printf 'set -e\n%s\n' "$script" >"$work/try.sh"
bash "$work/try.sh" >"$work/out" 2>&1
rc=$?
cat "$work/out"
fail=0
[[ $rc -eq 0 ]] || { echo "FAIL: the block exited $rc"; fail=1; }
grep -q '^/try/me: held by ' "$work/out" || { echo "FAIL: status did not show the holder"; fail=1; }
grep -q 'jobs .* done' "$work/out" || { echo "FAIL: the example did not run its jobs"; fail=1; }
[[ $fail -eq 0 ]] && echo "try it: ran as printed (ports from $((base + 1)))"
exit $fail
