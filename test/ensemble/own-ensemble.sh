#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a command against an ensemble of its own beside the suite's: the port
# base shifted by OFFSET and a directory of its own, so that cases that crash,
# pause and cut off their servers (partition.*, chaos.*, faults' restarts)
# need not hold the suite's ensemble alone, and run beside the rest of the
# suite.
#   own-ensemble.sh OFFSET COMMAND [ARG...]
# OFFSETs 25, 50 and 75 keep every port of zk-ensemble.sh's layout (client,
# quorum, election, relays) clear of the suite's, of each other's and of a
# suite on a base 100 higher (test/CMakeLists.txt: zkc_own_ensemble).
set -euo pipefail
offset=$1
shift
export ZKC_ENSEMBLE_PORT_BASE=$((${ZKC_ENSEMBLE_PORT_BASE:-2180} + offset))
export ZKC_ENSEMBLE_DIR="${ZKC_ENSEMBLE_DIR:-${TMPDIR:-/tmp}/zkcoord-ensemble}-$offset"
exec "$@"
