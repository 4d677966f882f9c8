# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by bench/run.sh and bench/cpu-cycle.sh: their own fresh ensemble
# ($ENSEMBLE, test/ensemble/zk-ensemble.sh, in $ZKC_ENSEMBLE_DIR), stopped
# and removed on exit: no process, no file left behind.
stop_ensemble() {
  "$ENSEMBLE" clean >/dev/null 2>&1 || true
  rm -f "$ZKC_ENSEMBLE_DIR.lock"
}
start_ensemble() {
  trap stop_ensemble EXIT
  "$ENSEMBLE" clean >/dev/null 2>&1 || true
  "$ENSEMBLE" start
}
