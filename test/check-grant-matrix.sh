#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The grant rules' table in docs/testing.md ("The grant rules' cases") names
# real cases: every `name` in a row is a case registered in a unit test's
# C array (cmocka_unit_test(name) in test/unit/*.c), every cell names a
# case or says "n/a", and every queue policy in the header is one the
# queue engine's cases run (each_policy's table in test_qengine.c).
#
#   check-grant-matrix.sh SOURCE_DIR
set -euo pipefail
root=$1
doc=$root/docs/testing.md
units=("$root"/test/unit/*.c)
engine=$root/test/unit/test_qengine.c

# The section's table: its lines from the heading to the next heading.
table=$(awk '/^### The grant rules. cases/{on=1; next} on && /^#/{exit}
             on && /^\|/' "$doc")
[ -n "$table" ] || { echo "check-grant-matrix: no table in $doc" >&2; exit 1; }

bad=0
# The first line by expansion: a pipe into `head` closes early, and the
# writer's SIGPIPE fails the pipeline (pipefail) once the table passes
# the pipe's atomic write (4 KiB), with nothing said.
header=${table%%$'\n'*}
# The queue column's policies: "Queue: a, b, ..." in the header.
policies=$(printf '%s\n' "$header" | awk -F'|' '{print $3}' |
           sed -n 's/^ *Queue: *//p' | tr ',' '\n' | sed 's/^ *//; s/ *$//')
[ -n "$policies" ] || { echo "check-grant-matrix: no queue policies in the header" >&2; bad=1; }
while IFS= read -r p; do
  [ -n "$p" ] || continue
  grep -q "^ *{\"$p\"," "$engine" ||
    { echo "check-grant-matrix: queue policy '$p' is not run by each_policy" >&2; bad=1; }
done <<<"$policies"

columns=$(printf '%s\n' "$header" | awk -F'|' '{print NF}')
rows=0
while IFS= read -r row; do
  rows=$((rows + 1))
  [ "$rows" -le 2 ] && continue # the header and its rule
  if [ "$(printf '%s\n' "$row" | awk -F'|' '{print NF}')" != "$columns" ]; then
    echo "check-grant-matrix: not $((columns - 2)) cells: $row" >&2
    bad=1
    continue
  fi
  for ((i = 3; i < columns; i++)); do
    cell=$(printf '%s\n' "$row" | awk -F'|' -v i="$i" '{print $i}')
    # shellcheck disable=SC2016 # the backquotes are the markdown's
    names=$(printf '%s\n' "$cell" | grep -o '`[A-Za-z_][A-Za-z0-9_]*`' | tr -d '`' || true)
    if [ -z "$names" ]; then
      case $cell in
        *n/a*) continue ;;
        *) echo "check-grant-matrix: a cell with no case and no n/a: $row" >&2; bad=1 ;;
      esac
    fi
    for n in $names; do
      grep -qE "cmocka_unit_test[a-z_]*\( *$n *[,)]" "${units[@]}" ||
        { echo "check-grant-matrix: '$n' is no unit test case" >&2; bad=1; }
    done
  done
done <<<"$table"
[ "$rows" -gt 2 ] || { echo "check-grant-matrix: the table has no rows" >&2; bad=1; }
exit $bad
