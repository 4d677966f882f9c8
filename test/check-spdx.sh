#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project names its license (LICENSE: Apache-2.0)
# in an SPDX line within its first three lines. The pkg-config template
# carries it as its License field instead.
#   check-spdx.sh SOURCE_DIR
set -euo pipefail
cd "$1"
missing=0
while IFS= read -r f; do
  head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' && continue
  echo "check-spdx: $f: no 'SPDX-License-Identifier: Apache-2.0' in its first lines" >&2
  missing=1
done < <(find lib include cli examples test tools bench docker .ci cmake CMakeLists.txt \
  \( -path test/fuzz/corpus -o -path bench/results \) -prune -o -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.h.in' -o -name '*.cmake.in' -o -name '*.sh' \
     -o -name '*.py' -o -name '*.java' -o -name '*.go' -o -name '*.cmake' \
     -o -name CMakeLists.txt -o -path .ci/run \) -print)
grep -q '^License: @ZKC_LICENSE@$' cmake/zkcoord.pc.in ||
  { echo "check-spdx: cmake/zkcoord.pc.in has no License field" >&2; missing=1; }
[ "$missing" = 0 ] && echo "check-spdx: every source file names its license"
exit "$missing"
