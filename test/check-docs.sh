#!/usr/bin/env bash
# The reference docs name every public header and agree on the error-code
# rule: docs/mainpage.md (the API reference's front page) lists each header
# of include/zkcoord/ in its table, and says nothing of ZooKeeper codes
# passing through (they never do: common.h).
#
#   check-docs.sh SOURCE_DIR
set -euo pipefail
src=$1
bad=0
main=$src/docs/mainpage.md
for h in "$src"/include/zkcoord/*.h "$src"/include/zkcoord/*.h.in; do
  name=zkcoord/$(basename "${h%.in}")
  [ "$name" = zkcoord/zkcoord.h ] && continue # the umbrella, named above the table
  grep -q "^| $name |" "$main" || { echo "check-docs: $main: no row for $name" >&2; bad=1; }
done
if grep -qi "codes pass through" "$main"; then
  echo "check-docs: $main says ZooKeeper codes pass through; common.h says they never do" >&2
  bad=1
fi
[ $bad = 0 ] && echo "check-docs: mainpage lists every public header"
exit $bad
