#!/usr/bin/env bash
# The library's include structure, as the architecture document draws it:
#  - no include cycle among lib/ files;
#  - the client struct's header (client_struct.h) is reached, directly or
#    through other headers, only from the session layer's files;
#  - no file but the session layer's door (ops.c, handle.c, errors.c, log.c,
#    acl.h and client_struct.h) includes zookeeper.h, and no public header,
#    CLI source or example does (nor calls the ZooKeeper client: examples
#    are built by users with zkcoord's pkg-config line alone).
# Usage: check-layers.sh SOURCE_DIR
set -euo pipefail
src=$(cd "${1:?usage: check-layers.sh SOURCE_DIR}" && pwd)
cd "$src/lib"
session_layer="acl.c client.c guard.c handle.c janitor.c listeners.c log.c maint.c ops.c retry.c state.c waiters.c"
zk_door="acl.h client_struct.h errors.c handle.c log.c ops.c"
fail=0

includes() { sed -n 's/^#include "\([^"/]*\)".*/\1/p' "$1"; }

# Every edge file -> local header, for tsort (which reports loops).
edges=$(for f in *.c *.h; do for h in $(includes "$f"); do
  [ -f "$h" ] && echo "$f $h"; done; done)
if ! tsort <<<"$edges" >/dev/null 2>/tmp/zkc-layers.$$; then
  echo "include cycle among lib/ files:"; cat /tmp/zkc-layers.$$; fail=1
fi
rm -f /tmp/zkc-layers.$$

reaches() { # reaches FILE HEADER: 1 if FILE includes HEADER, perhaps indirectly
  local seen=" " todo=("$1") f h
  while ((${#todo[@]})); do
    f=${todo[0]}; todo=("${todo[@]:1}")
    for h in $(includes "$f"); do
      [ "$h" = "$2" ] && return 0
      [[ -f $h && $seen != *" $h "* ]] && { seen+="$h "; todo+=("$h"); }
    done
  done
  return 1
}
for f in *.c; do
  if reaches "$f" client_struct.h && [[ " $session_layer " != *" $f "* ]]; then
    echo "$f reaches the client struct (client_struct.h) but is not in the session layer"
    fail=1
  fi
done
for f in *.c *.h; do
  if grep -q '^#include <zookeeper/' "$f" && [[ " $zk_door " != *" $f "* ]]; then
    echo "$f includes the ZooKeeper client's header outside the session layer's door"
    fail=1
  fi
done
# ZooKeeper's header, any of its constants (ZOK, ZNONODE, ZOO_...), types
# or calls, but not zkcoord's own ZKC_* / ZKCOORD_* / ZKCLI_* names.
if grep -rnoE '#include <zookeeper/|\bZ(OK|OO_[A-Z_]+|[A-JL-Z][A-Z]{3,})\b|\b(zoo|zookeeper)_[a-z_0-9]+|\bzhandle_t\b' \
     "$src/include" "$src/cli" "$src/examples"; then
  echo "^ public headers, the CLI and the examples must not mention the ZooKeeper client"; fail=1
fi
[ $fail = 0 ] && echo "layers: no include cycle; client struct seen by the session layer only; ZooKeeper's header at the door only"
exit $fail
