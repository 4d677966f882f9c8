#!/usr/bin/env bash
# Fails when the shared library exports anything but zkc_* symbols, or
# exports none at all.
set -euo pipefail
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}')
[ -n "$syms" ] || { echo "no symbols exported by $lib"; exit 1; }
bad=$(grep -v '^zkc_' <<<"$syms" || true)
if [ -n "$bad" ]; then
  echo "symbols outside the zkc_ prefix exported by $lib:"
  echo "$bad"
  exit 1
fi
echo "$(wc -l <<<"$syms") symbols exported, all zkc_*"
