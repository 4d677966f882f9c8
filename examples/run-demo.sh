#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run-demo.sh [BUILDDIR | OVERSELL] [oversell options...]
#
# Runs the overselling demo against the local test ensemble and passes its
# exit status through. Which oversell program runs:
#   BUILDDIR   a directory: the build tree's BUILDDIR/examples/oversell
#   OVERSELL   a program: a path (./oversell, /opt/demo/oversell: built
#              elsewhere, say with the pkg-config line of docs/install.md), or a
#              name looked up on PATH
#   (neither)  `oversell` found on PATH; the first argument may then be an
#              oversell option already (run-demo.sh --stock 50)
# The ensemble must already be running (test/ensemble/zk-ensemble.sh
# start); ZKCOORD_CONNECT overrides the connect string it reports.
set -euo pipefail

me=${0##*/}
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)

demo=
if [[ $# -gt 0 && $1 != -* ]]; then
    if [[ -d $1 ]]; then
        demo=$1/examples/oversell
        [[ -x $demo ]] || { echo "$me: $demo not found: build the project first" >&2; exit 1; }
    elif [[ $1 == */* ]]; then
        demo=$1
        [[ -f $demo && -x $demo ]] || { echo "$me: $demo is not an executable program" >&2; exit 1; }
    else
        demo=$(command -v -- "$1") ||
            { echo "$me: $1: neither a build directory nor a program on PATH" >&2; exit 1; }
    fi
    shift
else
    demo=$(command -v oversell) || {
        echo "usage: $me [BUILDDIR | OVERSELL] [oversell options...]" >&2
        echo "$me: no oversell on PATH: name a build directory or the program" >&2
        exit 64
    }
fi

connect=${ZKCOORD_CONNECT:-}
if [[ -z $connect ]]; then
    connect=$("$here/../test/ensemble/zk-ensemble.sh" connect)
fi
exec "$demo" --connect "$connect" "$@"
