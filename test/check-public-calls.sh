#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every exported function that returns a ZKC_* code is defined through
# ZKC__PUBLIC (lib/session.h), so that its failures set the thread's
# zkc_last_error_message. Fails naming each exported function defined as a
# plain `int zkc_...(` in lib/, except those whose int is not a failure of
# the call: the predicates (1 or 0), the getters of a kept code, and the
# ZooKeeper client's raw code.
#
#   check-public-calls.sh SOURCE_DIR SYMBOLS_FILE
set -euo pipefail
src=$1 symbols=$2
not_codes=" zkc_last_zk_code zkc_latch_error zkc_selector_error
  zkc_mutex_is_acquired_in_this_process zkc_mutex_is_owned_by_current_thread
  zkc_mutex_is_held zkc_multilock_is_held zkc_lease_is_held zkc_hold_is_held
  zkc_latch_has_leadership zkc_selector_has_leadership
  zkc_selector_should_stop "
not_codes=" $(echo $not_codes) " # one space between names
listed=$(sed -n -E 's/^[[:space:]]+(\([^)]*\))?([^@[:space:]]+)@.*/\2/p' "$symbols")
[ -n "$listed" ] || { echo "check-public-calls: no symbols in $symbols"; exit 1; }
bad=0 wrapped=0
for s in $listed; do
  if grep -qE "^ZKC__PUBLIC\($s," "$src"/lib/*.c; then
    wrapped=$((wrapped + 1))
  elif grep -qE "^int $s\(" "$src"/lib/*.c && [[ $not_codes != *" $s "* ]]; then
    echo "check-public-calls: $s returns a code but is not defined through ZKC__PUBLIC: its failures would not set zkc_last_error_message"
    bad=1
  fi
done
for s in $not_codes; do
  grep -qE "^ZKC__PUBLIC\($s," "$src"/lib/*.c &&
    { echo "check-public-calls: $s is listed as returning no code but is wrapped"; bad=1; }
done
[ $bad = 0 ] && echo "check-public-calls: $wrapped functions returning a code, each through ZKC__PUBLIC"
exit $bad
