#!/usr/bin/env bash
# run-demo.sh <builddir> [oversell options...]
#
# Runs the overselling demo against the local test ensemble and passes its
# exit status through. The ensemble must already be running
# (test/ensemble/zk-ensemble.sh start); ZKCOORD_CONNECT overrides the
# connect string it reports.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: ${0##*/} <builddir> [oversell options...]" >&2
    exit 64
fi
builddir=$1
shift

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
demo=$builddir/examples/oversell
if [[ ! -x $demo ]]; then
    echo "${0##*/}: $demo not found: build the project first" >&2
    exit 1
fi

connect=${ZKCOORD_CONNECT:-}
if [[ -z $connect ]]; then
    connect=$("$here/../test/ensemble/zk-ensemble.sh" connect)
fi
exec "$demo" --connect "$connect" "$@"
