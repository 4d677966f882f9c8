#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The reference docs name every public header and agree on the error-code
# rule: docs/mainpage.md (the API reference's front page) lists each header
# of include/zkcoord/ in its table, and says nothing of ZooKeeper codes
# passing through (they never do: common.h). The README's first screen,
# contents and links, and the manual's, agree with the tree (below).
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
# recipe's header; the contents list every section. In the README, the
# manual (docs/*.md), bench/README.md and the benchmark runs' READMEs
# (bench/results/**/README.md) every link to a section finds its
# heading and every relative file link finds its file; the manual's index
# lists every page.
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
declare -A anchor_cache
anchors_of() { # FILE: the anchors of its headings (each file read once)
  if [ -z "${anchor_cache[$1]+set}" ]; then
    anchor_cache[$1]=$(grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' |
      sed -E 's/[^a-z0-9 _-]//g; s/ /-/g')
  fi
  printf '%s\n' "${anchor_cache[$1]}"
}
check_links() { # FILE: its links to sections (#anchor, or FILE.md#anchor)
  # find their headings; its relative file links find their files
  local file=$1 dir link f a target
  dir=$(dirname "$file")
  for link in $(grep -oE '\]\([^)# ]*#[a-z0-9_-]+\)' "$file" | sed -E 's/^\]\(//; s/\)$//' | sort -u); do
    f=${link%%#*} a=${link#*#}
    case $f in http*) continue ;; esac
    target=$file
    [ -n "$f" ] && target=$dir/$f
    [ -f "$target" ] || continue # reported below
    target=$(realpath -m "$target")
    anchors_of "$target" >/dev/null # fills the cache in this shell
    grep -qxF "$a" <<<"${anchor_cache[$target]}" ||
      { echo "check-docs: $file links to $f#$a, a section that does not exist" >&2; bad=1; }
  done
  for f in $(grep -oE '\]\([^)#:]+[)#]' "$file" | sed -E 's/^\]\(//; s/[)#]$//' | sort -u); do
    [ -e "$dir/$f" ] ||
      { echo "check-docs: $file links to $f, which does not exist" >&2; bad=1; }
  done
}
for f in "$readme" "$src"/docs/*.md "$src/bench/README.md" "$src"/bench/results/README.md \
         "$src"/bench/results/*/README.md; do
  check_links "$f"
done
# Every benchmark run keeps the account of what it found beside its
# results (a README.md in its directory), and bench/README.md's history
# lists it.
for d in "$src"/bench/results/ "$src"/bench/results/*/; do
  [ -f "$d/README.md" ] ||
    { echo "check-docs: bench run ${d#"$src"/} has no README.md" >&2; bad=1; }
  rel=results/${d#"$src"/bench/results/}
  grep -qF "]($rel""README.md)" "$src/bench/README.md" ||
    { echo "check-docs: bench/README.md's history does not list $rel" >&2; bad=1; }
done
# The manual's index lists every page of docs/.
for f in "$src"/docs/*.md; do
  name=$(basename "$f")
  case $name in README.md) continue ;; esac
  grep -qF "]($name)" "$src/docs/README.md" ||
    { echo "check-docs: docs/README.md does not list $name" >&2; bad=1; }
done
# The scratch-ensemble step (docs/cli.md): the script's commands and the
# programs it runs.
scratch=$(sed -n '/^## Try it against a scratch ensemble/,/^## /p' "$src/docs/cli.md")
[ -n "$scratch" ] || { echo "check-docs: docs/cli.md has no scratch-ensemble step" >&2; bad=1; }
for cmd in $(grep -oE 'zk-ensemble.sh [a-z-]+' <<<"$scratch" | awk '{print $2}' | sort -u); do
  # grep reads to the end (not -q): an early exit would leave the help a
  # SIGPIPE, failing the pipeline under pipefail
  "$src/test/ensemble/zk-ensemble.sh" --help 2>&1 | grep -E "^  $cmd " >/dev/null ||
    { echo "check-docs: the scratch step runs 'zk-ensemble.sh $cmd', which it lacks" >&2; bad=1; }
done
for ex in $(grep -oE 'build/try/examples/[a-z_]+' <<<"$scratch" | sed 's|.*/||'); do
  [ -f "$src/examples/$ex.c" ] ||
    { echo "check-docs: the scratch step runs examples/$ex, which does not exist" >&2; bad=1; }
done
[ $bad = 0 ] && echo "check-docs: README's first screen, contents, the manual's links and index agree with the tree"
exit $bad
