#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The zkcoord tool's options, three ways: the parser's table (cli/options.c),
# `zkcoord --help` and the manual page's OPTIONS section. Fails unless all
# three name the same long and short options; command by command, that the
# options `zkcoord CMD --help` lists are the ones the manual page gives CMD
# (an OPTIONS entry whose body starts with ".BR lock ", " sem :" belongs to
# those commands, one without such a line to every command), and that the
# commands of --help are the manual page's; also checks that a call with
# no arguments prints the usage and exits 64, and that any other usage error
# (an unknown command or option, a missing value, an empty COMMAND after
# "--") is one line and exit 64.
# Usage: check-cli-options.sh SOURCE_DIR ZKCOORD [LAUNCHER...]
set -euo pipefail
src=${1:?usage: check-cli-options.sh SOURCE_DIR ZKCOORD}
shift
run=("$@")
fail=0

sorted() { tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' '; }

# The parser: long options from the long_opts table, short ones from the
# getopt string.
table=$(sed -n '/long_opts\[\] = {/,/};/p' "$src/cli/options.c")
parser_long=$(grep -oE '\{"[a-z][a-z-]*"' <<<"$table" | tr -d '{"' | sorted)
shorts=$(grep -oE 'getopt_long\([^"]*"[^"]*"' "$src/cli/options.c" | sed 's/.*"\(.*\)"/\1/' |
         tr -d '+:' | fold -w1 | sorted)

# --help: the Options block, an option only where a line starts with it.
help=$("${run[@]}" --help | sed -n '/^Options/,/^$/p')
help_long=$(grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' <<<"$help" | grep -oE -- '--[a-z-]+' |
            sed 's/^--//' | sorted)
help_short=$(grep -oE '^ +-[A-Za-z],' <<<"$help" | tr -d ' ,-' | sorted)

# The manual page: the tags (.TP's next line) of the OPTIONS section.
tags=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$src/cli/zkcoord.1" | awk 'tp {print; tp = 0} /^\.TP/ {tp = 1}')
man_long=$(grep -oE '\\-\\-[a-z](\\-|[a-z])*' <<<"$tags" | sed 's/\\-/-/g; s/^--//' | sorted)
man_short=$(grep -oE '(^|[ "])\\-[A-Za-z]( |$)' <<<"$tags" | grep -oE '[A-Za-z] ?$' | tr -d ' ' | sorted)

same() { # same WHAT A_NAME A B_NAME B
  if [ "$3" != "$5" ]; then
    echo "$1 differ:"; echo "  $2: $3"; echo "  $4: $5"; fail=1
  fi
}
same "long options" parser "$parser_long" "--help" "$help_long"
same "long options" parser "$parser_long" "man page" "$man_long"
same "short options" parser "$shorts" "--help" "$help_short"
same "short options" parser "$shorts" "man page" "$man_short"

# The commands: --help's entries ("  lock     run ...") against the manual
# page's SYNOPSIS (".B lock" after "[OPTIONS]").
help_cmds=$("${run[@]}" --help | sed -n '/^$/,/^$/p' | grep -oE '^  [a-z]+ ' | tr -d ' ' | sorted)
man_cmds=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$src/cli/zkcoord.1" |
           awk 'o && /^\.B [a-z]/ {print $2} {o = /OPTIONS/}' | sorted)
same "commands" "--help" "$help_cmds" "man page" "$man_cmds"
[ -n "$help_cmds" ] || { echo "no commands found in --help"; fail=1; }

# Command by command. The manual page: each OPTIONS entry's options, and
# the commands its scope lines name (".BR lock \", \" sem :", ".BR \"status
# \-\-watch\" ,"); no scope line: every command.
man_entries=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$src/cli/zkcoord.1" | awk '
  function flush() { if (tag != "") print tag "\t" scope; tag = ""; scope = "" }
  /^\.SH / && NR > 1 { flush(); next }
  /^\.TP/ { flush(); want = 1; next }
  want { tag = $0; want = 0; next }
  tag != "" && /^\.BR? / && /[:,]$/ {
    line = $0; sub(/^\.BR? /, "", line); gsub(/[",:]/, " ", line)
    n = split(line, w, " "); words = ""; ok = 1
    for (i = 1; i <= n; i++) {
      if (w[i] ~ /^\\-/) continue
      if (w[i] !~ /^(lock|sem|leader|status|revoke)$/) { ok = 0; break }
      words = words " " w[i]
    }
    if (ok && words != "") scope = scope words
  }
  END { flush() }')
man_for() { # the options the manual page gives command $1
  while IFS=$'\t' read -r tag scope; do
    [ -z "$scope" ] || [[ " $scope " == *" $1 "* ]] || continue
    grep -oE '\\-\\-[a-z](\\-|[a-z])*' <<<"$tag" | sed 's/\\-/-/g'
    grep -oE '(^|[ "])\\-[A-Za-z]( |$)' <<<"$tag" | grep -oE '[A-Za-z] ?$' | tr -d ' ' | sed 's/^/-/'
  done <<<"$man_entries" | sorted
}
help_for() { # the options `zkcoord $1 --help` lists
  "${run[@]}" "$1" --help | sed -n '/^Options/,/^$/p' |
    grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' | grep -oE -- '-[A-Za-z]|--[a-z-]+' | sorted
}
for cmd in $help_cmds; do
  h=$(help_for "$cmd"); m=$(man_for "$cmd")
  [ -n "$h" ] || { echo "zkcoord $cmd --help lists no options"; fail=1; }
  same "options of $cmd" "zkcoord $cmd --help" "$h" "man page" "$m"
  # Its usage lines are its own.
  if "${run[@]}" "$cmd" --help | grep '^usage:\|^       zkcoord' | grep -vq "zkcoord \[OPTIONS\] $cmd "; then
    echo "zkcoord $cmd --help shows another command's usage"; fail=1
  fi
done

# No arguments: the usage (on stderr) and exit 64.
set +e
err=$("${run[@]}" 2>&1 >/dev/null); code=$?
set -e
if [ "$code" != 64 ] || ! grep -q '^usage: zkcoord' <<<"$err"; then
  echo "zkcoord (no arguments): exit $code, usage not shown:"; echo "$err"; fail=1
fi
# Other usage errors: exactly one line "zkcoord: ..." and exit 64.
for args in "frobnicate /x" "--no-such-option status /x" "-q status /x" \
            "status /x --no-such-option" "lock -w" "--connect" \
            "help frobnicate" "lock /x --" "lock -- true"; do
  set +e
  # shellcheck disable=SC2086  # the cases are word lists
  err=$("${run[@]}" $args 2>&1 >/dev/null); code=$?
  set -e
  if [ "$code" != 64 ] || [ "$(wc -l <<<"$err")" != 1 ] || ! grep -q '^zkcoord: ' <<<"$err"; then
    echo "zkcoord $args: exit $code, not one line:"; echo "$err"; fail=1
  fi
done

[ $fail = 0 ] && echo "options agree: ${parser_long}| short: ${shorts}| per command as the manual page gives them: ${help_cmds}"
exit $fail
