#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The reference docs name every public header and agree on the error-code
# rule: docs/mainpage.md (the API reference's front page) lists each header
# of include/zkcoord/ in its table, and says nothing of ZooKeeper codes
# passing through (they never do: common.h). The README's first screen,
# contents and links agree with the tree (below).
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

# The README: its first screen (above the contents) has a row for every
# recipe's header; the contents list every section; every link to a section
# (in the README, or into it from bench/README.md) finds its heading; every
# relative file link finds its file.
readme=$src/README.md
anchor() { # a heading's anchor, as the Markdown renderers make it
  printf '%s\n' "$1" | sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' |
    sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
first_screen=$(sed '/^## Contents/q' "$readme")
for h in "$src"/include/zkcoord/*.h; do
  name=$(basename "$h")
  case $name in common.h | client.h | zkcoord.h) continue ;; esac
  grep -q "include/zkcoord/$name" <<<"$first_screen" ||
    { echo "check-docs: README's first screen names no recipe of $name" >&2; bad=1; }
done
anchors=$(grep -E '^#{2,3} ' "$readme" | while IFS= read -r h; do anchor "$h"; done)
contents=$(sed -n '/^## Contents/,/^## [^C]/p' "$readme")
while IFS= read -r a; do
  [ "$a" = contents ] && continue
  grep -qF "(#$a)" <<<"$contents" ||
    { echo "check-docs: README's contents lack the section #$a" >&2; bad=1; }
done <<<"$anchors"
check_links() { # FILE PREFIX: links PREFIX#anchor into the README, and files
  local file=$1 prefix=$2 dir
  dir=$(dirname "$file")
  for a in $(grep -oE "\]\($prefix#[a-z0-9_-]+\)" "$file" | sed -E 's/.*#//; s/\)$//' | sort -u); do
    grep -qxF "$a" <<<"$anchors" ||
      { echo "check-docs: $file links to README section #$a, which does not exist" >&2; bad=1; }
  done
  for f in $(grep -oE '\]\([^)#:]+[)#]' "$file" | sed -E 's/^\]\(//; s/[)#]$//' | sort -u); do
    [ -e "$dir/$f" ] ||
      { echo "check-docs: $file links to $f, which does not exist" >&2; bad=1; }
  done
}
check_links "$readme" ""
check_links "$src/bench/README.md" "../README.md"
# The scratch-ensemble step: the script's commands and the programs it runs.
scratch=$(sed -n '/^### Try the CLI/,/^## /p' "$readme")
for cmd in $(grep -oE 'zk-ensemble.sh [a-z-]+' <<<"$scratch" | awk '{print $2}' | sort -u); do
  "$src/test/ensemble/zk-ensemble.sh" --help 2>&1 | grep -qE "^  $cmd " ||
    { echo "check-docs: README's scratch step runs 'zk-ensemble.sh $cmd', which it lacks" >&2; bad=1; }
done
for ex in $(grep -oE 'build/try/examples/[a-z_]+' <<<"$scratch" | sed 's|.*/||'); do
  [ -f "$src/examples/$ex.c" ] ||
    { echo "check-docs: README's scratch step runs examples/$ex, which does not exist" >&2; bad=1; }
done
[ $bad = 0 ] && echo "check-docs: README's first screen, contents and links agree with the tree"
exit $bad
