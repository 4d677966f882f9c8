#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The bash completion (cli/zkcoord.bash-completion) against the parser: for
# every command, the long options it offers are exactly the ones the
# command takes (the tool itself judges: `zkcoord CMD OPTION [VALUE]
# --help` exits 0 for an option the command takes, 64 for one it refuses).
# Also the command names (and after help), the values of --acl and
# --parents, and COMMAND after PATH.
# Usage: check-completion.sh SOURCE_DIR ZKCOORD
set -uo pipefail
src=${1:?usage: check-completion.sh SOURCE_DIR ZKCOORD}
tool=${2:?usage: check-completion.sh SOURCE_DIR ZKCOORD}
fail=0
# shellcheck source=/dev/null
source "$src/cli/zkcoord.bash-completion" || exit 1

# What completing the last word of "$@" offers, sorted, one line.
offered() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _zkcoord
  printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' '
}

expect() { # what, got, wanted
  if [[ $2 != "$3" ]]; then
    echo "FAIL: $1: offered '$2', expected '$3'"
    fail=1
  fi
}

expect "command names" "$(offered zkcoord '')" "help leader lock revoke sem status "
expect "help COMMAND" "$(offered zkcoord help '')" "leader lock revoke sem status "
expect "help takes one COMMAND" "$(offered zkcoord help lock '')" ""
expect "--acl" "$(offered zkcoord lock --acl '')" "open secure "
expect "--parents" "$(offered zkcoord sem --parents '')" "container persistent "
# After PATH, lock runs a COMMAND: commands on PATH are offered.
expect "COMMAND after PATH" "$(offered zkcoord lock -w 3 /jobs/a ech | grep -ow echo | sort -u)" "echo"
expect "COMMAND after --" "$(offered zkcoord lock /jobs/a -- ech | grep -ow echo | sort -u)" "echo"
expect "status takes no COMMAND" "$(offered zkcoord status /jobs/a ech)" ""

# A sample value for each option that takes one.
value() {
  case $1 in
    --connect) echo 127.0.0.1:2181 ;;
    --digest) echo user:password ;;
    --acl) echo open ;;
    --parents) echo persistent ;;
    --id) echo someone ;;
    --count-path) echo /count ;;
    --metrics) echo /tmp/zkcoord.prom ;;
    --max | --conflict-exit-code) echo 3 ;;
    --session-timeout | --connect-timeout | --wait | --timeout | --grace | --interval)
      echo 1 ;;
  esac
}

# Every long option of --help.
all=$("$tool" --help | sed -n '/^Options/,/^$/p' | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' |
      grep -oE -- '--[a-z-]+' | sort -u)
[[ -n $all ]] || { echo "FAIL: no options in --help"; exit 1; }
for cmd in lock sem leader status revoke; do
  mine=" $(offered zkcoord "$cmd" --) "
  for opt in $all; do
    v=$(value "$opt")
    "$tool" "$cmd" "$opt" ${v:+"$v"} --help >/dev/null 2>&1
    rc=$?
    on=0
    [[ $mine == *" $opt "* ]] && on=1
    if [[ $rc -eq 0 && $on -eq 0 ]]; then
      echo "FAIL: $cmd takes $opt, the completion does not offer it"
      fail=1
    elif [[ $rc -ne 0 && $on -eq 1 ]]; then
      echo "FAIL: the completion offers $opt for $cmd, which refuses it (exit $rc)"
      fail=1
    fi
  done
done
[[ $fail -eq 0 ]] && echo "completion: every command's options as its parser takes them"
exit $fail
