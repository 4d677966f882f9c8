#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The C in the docs compiles as printed: every ```c block of README.md and
# docs/*.md is a complete translation unit, compiled with -Wall -Wextra
# -Werror and linked against the library (with a main() of its own when the
# block has none). A block that is only a sketch (variables declared
# elsewhere, "..." for the work) is marked ```c fragment and skipped.
#
#   check-readme-code.sh SOURCE_DIR CC LIBRARY ZOOKEEPER_LIBRARY INCLUDE_DIR...
set -euo pipefail
src=$1 cc=$2 lib=$3 zklib=$4
shift 4
incs=()
for d in "$@"; do incs+=("-I$d"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'int main(void) { return 0; }\n' >"$work/stub_main.c"
bad=0 n=0 skipped=0
for md in "$src/README.md" "$src"/docs/*.md; do
  rel=${md#"$src"/}
  tag=$(tr '/.' '__' <<<"$rel")
  # Each block to its own file, named by the line its fence opens on.
  awk -v out="$work/blk" -v tag="$tag" '
    /^```c fragment/ { skip++; next }
    /^```c[ \t]*$/   { inblk = 1; start = NR + 1; f = out "-" tag "-" start ".c"; next }
    /^```/ && inblk { inblk = 0; close(f); next }
    inblk { print > f }
    END { print skip + 0 > (out "-" tag ".skipped") }' "$md"
  skipped=$((skipped + $(cat "$work/blk-$tag.skipped")))
  for c in "$work"/blk-"$tag"-*.c; do
    [ -e "$c" ] || continue
    n=$((n + 1))
    line=${c##*-}
    line=${line%.c}
    objs=("$c")
    grep -qE '^int main\(' "$c" || objs+=("$work/stub_main.c")
    if ! "$cc" -Wall -Wextra -Werror "${incs[@]}" "${objs[@]}" \
         "$lib" "$zklib" -pthread -o "$work/prog" 2>"$work/err"; then
      echo "check-readme-code: $rel: the C block at line $line does not build:" >&2
      sed 's/^/  /' "$work/err" >&2
      bad=1
    fi
  done
done
[ "$n" -gt 0 ] || { echo "check-readme-code: no C block found in $src/README.md" >&2; exit 1; }
[ $bad = 0 ] && echo "check-readme-code: $n C blocks build ($skipped fragments skipped)"
exit $bad
