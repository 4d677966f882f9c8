#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a program (with its launcher, if any) with stderr captured and fails
# when anything reached it: a library that was given no log sink must not
# print on its application's stderr (test/integration/quiet.c).
#
#   check-quiet.sh PROGRAM [ARG...]
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM [ARG...]" >&2; exit 2; }
err=$(mktemp "${TMPDIR:-/tmp}/zkc-quiet.XXXXXX")
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
rc=$?
if [ -s "$err" ]; then
  echo "check-quiet: $(wc -l <"$err") line(s) on stderr without a log sink:"
  head -n 20 "$err"
  exit 1
fi
[ "$rc" -eq 0 ] || { echo "check-quiet: the program failed (exit $rc)"; exit 1; }
echo "check-quiet: nothing on stderr"
