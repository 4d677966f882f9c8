#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every exported function that returns a ZKC_* code ends through
# zkc__public_leave (lib/session.h): its definition `int zkc_...(` in lib/
# opens with zkc__public_enter and returns zkc__public_leave(__func__, ...)
# around its body, so that its failures set the thread's
# zkc_last_error_message. Fails naming each that does not, except those
# whose int is not a failure of the call: the predicates (1 or 0), the
# getters of a kept code, and the ZooKeeper client's raw code.
#
#   check-public-calls.sh SOURCE_DIR SYMBOLS_FILE
set -euo pipefail
src=$1 symbols=$2
not_codes=" zkc_last_zk_code zkc_latch_error zkc_selector_error
  zkc_mutex_is_acquired_in_this_process zkc_mutex_is_owned_by_current_thread
  zkc_hold_is_held
  zkc_latch_has_leadership zkc_selector_has_leadership
  zkc_selector_should_stop "
not_codes=" $(echo $not_codes) " # one space between names
listed=$(sed -n -E 's/^[[:space:]]+(\([^)]*\))?([^@[:space:]]+)@.*/\2/p' "$symbols")
[ -n "$listed" ] || { echo "check-public-calls: no symbols in $symbols"; exit 1; }
# The text of $1's definition from its signature up to its closing brace.
definition() {
  awk -v re="^int $1[(]" '$0 ~ re {on = 1} on {print} on && /^}/ {exit}' "$src"/lib/*.c
}
ends_through_leave() {
  local d
  d=$(definition "$1")
  [[ $d == *"unsigned mark = zkc__public_enter();"* &&
     $d == *"return zkc__public_leave(__func__, mark,"* ]]
}
bad=0 wrapped=0
for s in $listed; do
  grep -qE "^int $s\(" "$src"/lib/*.c || continue
  if ends_through_leave "$s"; then
    [[ $not_codes != *" $s "* ]] ||
      { echo "check-public-calls: $s is listed as returning no code but ends through zkc__public_leave"; bad=1; }
    wrapped=$((wrapped + 1))
  elif [[ $not_codes != *" $s "* ]]; then
    echo "check-public-calls: $s returns a code but does not end through zkc__public_leave: its failures would not set zkc_last_error_message"
    bad=1
  fi
done
[ $bad = 0 ] && echo "check-public-calls: $wrapped functions returning a code, each ending through zkc__public_leave"
exit $bad
