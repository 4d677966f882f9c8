#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The library's structure, as the architecture document draws it:
#  - no include cycle among lib/ files, and no call cycle among their
#    objects (the symbols each object defines and refers to, from nm);
#  - the client struct's header (client_struct.h) and the session layer's
#    shared header (session_shared.h) are reached, directly or through other
#    headers, only from the session layer's files; the kernel's door
#    (kernel_door.h: an op whole and what only the runs and their drivers
#    call) only from those and the kernel's (and the async acquire's
#    driver, async_engine.c); a recipe object refers to no session-layer
#    function that its door (session.h) does not declare, a kernel object
#    none that session.h, kernel_door.h and its world (qworld.h) do not,
#    the sized calls (opts.c) none that session.h and unsized.h (each
#    object's create on its own options, the client's open among them) do
#    not;
#  - the queue engine's one machine (qengine.c, its waiting round
#    qround.c, qown.c), its lease policy (lease_run.c) and the run kernel
#    under it (run_kernel.c) call no session-layer function but an op's
#    life and the log: the rest goes through their world (qworld.h; the
#    client's is zkc__qworld_session, of the session layer);
#  - the lease run is called by the semaphore's acquire run (sem_run.c)
#    alone, which both drivers step; no other file steps a semaphore's
#    acquire (its orchestration is written once);
#  - no arrow back up: modules (a .c with its .h), linked by includes and
#    calls, form no loop, and none depends on a higher floor (below, the
#    session layer, the kernel of the runs, the recipes); only the kernel
#    reaches the queue engine's world (qworld.h);
#  - the tests' hooks (test_hooks.h) are included only where they are
#    defined;
#  - one hold type: only fenced.c builds a fenced transaction (the session
#    layer's send.c and ops.c carry it), only hold.c looks up a hold's kind;
#  - ZooKeeper's states are translated at the door: no ZOO_* name in lib/
#    outside it;
#  - no file but the session layer's door (ops.c, watches.c, ops_zk.h,
#    handle.c, errors.c, log.c, acl.h and client_struct.h) includes zookeeper.h, and no public header,
#    CLI source or example does (nor calls the ZooKeeper client: examples
#    are built by users with zkcoord's pkg-config line alone).
# Usage: check-layers.sh SOURCE_DIR OBJECT...   (the library's objects)
set -euo pipefail
src=$(cd "${1:?usage: check-layers.sh SOURCE_DIR OBJECT...}" && pwd)
shift
[ $# -gt 0 ] || { echo "check-layers: no object files given" >&2; exit 2; }
objects=()
for o in "$@"; do objects+=("$(cd "$(dirname "$o")" && pwd)/$(basename "$o")"); done
cd "$src/lib"
session_layer="acl.c call.c client.c errors.c guard.c handle.c janitor.c janitor_queue.c listeners.c log.c maint.c op.c ops.c ops_zk.h probe.c qview.c recipe_tie.c retry.c send.c session_world.c state.c stats_client.c waiters.c watches.c"
hook_definers="async_engine.c guard.c handle.c mutex.c multilock.c mutex_downgrade.c probe.c qengine.c qown.c qround.c sem_run.c state.c"
zk_door="acl.h client_struct.h errors.c handle.c log.c ops.c ops_zk.h watches.c"
# The run kernel and its drivers: the files that may see an op whole
# (kernel_door.h). async_engine.c is the async acquire's driver of the queue
# engine, as drive.c (with queue.c) is the blocking one; sem_run.c the
# semaphore's one acquire run around the lease run, on either driver.
kernel_files="queue_nodes.c decide.c qown.c run_kernel.c qengine.c qround.c lease_run.c confirm_run.c drive.c queue.c async_engine.c sem_run.c"
fail=0

includes() { sed -n 's/^#include "\([^"/]*\)".*/\1/p' "$1"; }

# Every edge file -> local header, for tsort (which reports loops).
edges=$(for f in *.c *.h; do for h in $(includes "$f"); do
  [ -f "$h" ] && echo "$f $h"; done; done)
if ! tsort <<<"$edges" >/dev/null 2>/tmp/zkc-layers.$$; then
  echo "include cycle among lib/ files:"; cat /tmp/zkc-layers.$$; fail=1
fi
rm -f /tmp/zkc-layers.$$

# Which .c files reach (perhaps indirectly) the session layer's own headers:
# one awk walk over the include edges.
reached=$(awk -v layer=" $session_layer " -v kernel=" $kernel_files " '
  { next_of[$1] = next_of[$1] " " $2; files[$1] = 1 }
  function walk(f, seen,   n, i, parts) {
    n = split(next_of[f], parts, " ")
    for (i = 1; i <= n; i++) {
      if (parts[i] in seen) continue
      seen[parts[i]] = 1
      walk(parts[i], seen)
    }
  }
  END {
    for (f in files) {
      if (f !~ /\.c$/ || index(layer, " " f " ")) continue
      split("", seen)
      walk(f, seen)
      if ("client_struct.h" in seen) print f, "client_struct.h"
      if ("session_shared.h" in seen) print f, "session_shared.h"
      if ("kernel_door.h" in seen && !index(kernel, " " f " "))
        print f, "kernel_door.h"
    }
  }' <<<"$edges")
if [ -n "$reached" ]; then
  while read -r f h; do
    if [ "$h" = kernel_door.h ]; then
      echo "$f reaches $h but is neither the session layer nor the run kernel: recipes use session.h (an op is the kernel's)"
    else
      echo "$f reaches $h but is not in the session layer: recipes use session.h"
    fi
  done <<<"$reached"
  fail=1
fi
for f in *.c *.h; do
  if grep -q '^#include "test_hooks.h"' "$f" && [[ " $hook_definers " != *" $f "* ]]; then
    echo "$f includes test_hooks.h: the tests' hooks are for the tests"
    fail=1
  fi
done
# ZooKeeper's states (ZOO_*) outside the door; comment lines aside.
for f in *.c *.h; do
  [[ " $zk_door " == *" $f "* ]] && continue
  if grep -nE '\bZOO_[A-Z_]+' "$f" | grep -vE '^[0-9]+:\s*(/?\*|//)'; then
    echo "^ $f reads ZooKeeper's names: translate them at the door (handle.c, ops.c, watches.c)"
    fail=1
  fi
done

# Calls: object -> the object defining a global symbol it refers to.
# One nm per question for all objects (-A names each line's object): one
# per object took seconds on a loaded machine.
objname='{f = $1; sub(/:.*/, "", f); sub(/.*\//, "", f); sub(/\.o$/, "", f)}'
defs=$(nm -A -g --defined-only "${objects[@]}" | awk "$objname"' NF == 3 {print $3, f}')
uses=$(nm -A -u "${objects[@]}" | awk "$objname"' {print f, $NF}')
calls=$(awk 'NR == FNR {d[$1] = $2; next} ($2 in d) && d[$2] != $1 {print $1, d[$2], $2}' \
  <(echo "$defs") <(echo "$uses") | sort -u)
if ! awk '{print $1, $2}' <<<"$calls" | sort -u | tsort >/dev/null 2>/tmp/zkc-calls.$$; then
  echo "call cycle among lib/ objects:"; cat /tmp/zkc-calls.$$; fail=1
fi
rm -f /tmp/zkc-calls.$$
# A recipe calls into the session layer only through its door, session.h
# (or the public API, zkc_*); the kernel and its drivers also through
# theirs, kernel_door.h, and their world, qworld.h; the sized calls
# (opts.c) also through unsized.h, for the client's open.
# One awk over all calls: a grep per call made this check a minute and more
# on a loaded machine. A door declares the names outside its comments: a
# comment that names a function behind it does not open the door to it.
declared() {
  awk '{ out = ""; line = $0
    while (line != "") {
      if (in_comment) {
        i = index(line, "*/"); if (i == 0) break
        line = substr(line, i + 2); in_comment = 0
      } else {
        i = index(line, "/*"); if (i == 0) { out = out line; break }
        out = out substr(line, 1, i - 1); line = substr(line, i + 2)
        in_comment = 1
      }
    }
    print out }' "$@" | tr -c 'A-Za-z0-9_\n' ' '
}
undeclared=$(awk -v layer=" $session_layer " -v kernel=" $kernel_files " '
  FNR == 1 { file++ }
  file == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^zkc__/) door[$i] = 1; next }
  file == 2 { for (i = 1; i <= NF; i++) if ($i ~ /^zkc__/) kdoor[$i] = 1; next }
  file == 3 { for (i = 1; i <= NF; i++) if ($i ~ /^zkc__/) sized[$i] = 1; next }
  index(layer, " " $1 " ") { next }
  !index(layer, " " $2 " ") || $3 !~ /^zkc__/ || ($3 in door) { next }
  index(kernel, " " $1 " ") && ($3 in kdoor) { next }
  $1 == "opts.c" && ($3 in sized) { next }
  index(kernel, " " $1 " ") {
    print $1 " calls " $3 " (" $2 "), which neither session.h nor kernel_door.h nor qworld.h declares"; next }
  { print $1 " calls " $3 " (" $2 "), which session.h does not declare" ($3 in kdoor ? ": an op and the kernel'"'"'s calls are the kernel'"'"'s (kernel_door.h)" : "") }
 ' <(declared session.h) <(declared kernel_door.h qworld.h) \
  <(declared unsized.h) <(echo "$calls"))
if [ -n "$undeclared" ]; then echo "$undeclared"; fail=1; fi
# The queue engine reaches the session only through its world (qworld.h),
# so that a test's world can drive it without a server: its objects call
# no session-layer function but an op's life (op.c), the log's, the
# pure classification of a result (zkc__retryable) and the client's own
# world, the default when a run is given none (zkc__client_world).
engine_calls=$(awk '($1 == "qengine.c" || $1 == "qround.c" || $1 == "qown.c" ||
  $1 == "lease_run.c" || $1 == "confirm_run.c" || $1 == "run_kernel.c") &&
  $2 != "op.c" &&
  $2 != "log.c" && $3 != "zkc__retryable" && $3 != "zkc__client_world" &&
  index(" '"$session_layer"' ", " " $2 " ") { print $1 " calls " $3 " (" $2 ") past its world (qworld.h)" }' <<<"$calls")
if [ -n "$engine_calls" ]; then echo "$engine_calls"; fail=1; fi
# The lease run is the semaphore's: only its one acquire run (sem_run.c)
# calls it, and both drivers step that run (sem_run.h), so the run can
# change behind that interface alone.
lease_callers=$(awk '$2 == "lease_run.c" && $1 != "sem_run.c" {
  print $1 " calls " $3 " (lease_run.c): the lease run is reached through sem_run.c (sem_run.h)" }' <<<"$calls")
if [ -n "$lease_callers" ]; then echo "$lease_callers"; fail=1; fi
# The semaphore's acquire is written once, as a run (sem_run.c) that the
# blocking driver and the async engine both step: no other file runs a
# queue, a lease run or a driver's loop of its own for it (semaphore.c once
# wrote the acquire again as blocking code beside the async state machine).
sem_twice=$(awk '($1 == "semaphore.c" || $1 == "sem_acquire.c" || $1 == "sem_lease.c" ||
  $1 == "sem_count.c") &&
  ($2 == "qengine.c" || $2 == "qround.c" || $2 == "lease_run.c" ||
   ($2 == "queue.c" && $3 ~ /^zkc__lock_acquire/)) {
  print $1 " calls " $3 " (" $2 "): the semaphore acquires through its one run (sem_run.c)" }' <<<"$calls")
if [ -n "$sem_twice" ]; then echo "$sem_twice"; fail=1; fi
# One state machine for every admission run: only the queue engine's
# machine (qengine.c) steps a run through the kernel's loop (zkc__rk_loop);
# a recipe's admission is a policy on its states (the semaphore's leases
# fit, lease_run.c), not a machine of its own.
machines=$(awk '$3 == "zkc__rk_loop" && $1 != "qengine.c" {
  print $1 " steps a run of its own (zkc__rk_loop): make it a policy of qengine.c" }' <<<"$calls")
if [ -n "$machines" ]; then echo "$machines"; fail=1; fi
# The freshness proof of a hold granted already (a sync, then a read on
# the hold's own session, judged by the kernel's grant rule) is written
# once, as the confirm policy (confirm_run.c): the multi-lock's set and the
# fenced read are its runs, and no other file sends a read bound to a
# session (send.c and ops.c carry it).
for f in *.c; do
  case $f in confirm_run.c | send.c | ops.c) ;;
  *) if grep -qE 'ZKC__REQ_(GET|EXISTS)_IN_SESSION' "$f"; then
       echo "$f proves a hold with a read of its own: the confirm run's (confirm_run.h)"; fail=1
     fi ;;
  esac
done
# No request loop by hand: an op's answer is awaited by the one call
# (call.c, whose send, wait and retry are its own) and by the blocking
# driver of a run (drive.c); everything else is one zkc__call or a run.
halves=$(awk '$3 == "zkc__op_wait_until" && $1 != "call.c" && $1 != "drive.c" {
  print $1 " calls " $3 ": a request loop by hand (make it a run, or one zkc__call)" }' <<<"$calls")
if [ -n "$halves" ]; then echo "$halves"; fail=1; fi
# No arrow back up. A module is a .c and its .h together (qown.c and
# qown.h); it depends on what it includes and on the objects whose
# functions it calls. Those dependencies form no loop (the queue engine
# and its own nodes' rules once called each other: qengine.c called qown.c,
# built on qengine.h's run; the machine calls its waiting round, qround.c,
# which works on the run its header declares and never calls back), and
# none goes up the floors of
# docs/architecture.md: below (util, names, stats, renewal), the session
# layer, the kernel of the runs (the queue engine's machine, its lease
# policy, the run kernel and what else they stand on, their driver), the
# recipes. The machine reaches its policies through their hooks, not by
# name: the lease policy depends on the machine, never the other way
# (a call of lease_run.c from qengine.c is a loop). So the lease run reads the
# shared count with names.c's codec, not the semaphore's, and session_world.c
# tells a delete's answer with the janitor's, not a recipe file's.
modules=$({ sed 's/\.[ch]\b//g' <<<"$edges"; awk '{print $1, $2}' <<<"$calls" |
  sed 's/\.c\b//g'; } | awk '$1 != $2' | sort -u)
if ! tsort <<<"$modules" >/dev/null 2>/tmp/zkc-modules.$$; then
  echo "dependency loop among lib/ modules (a .c with its .h; includes and calls):"
  cat /tmp/zkc-modules.$$; fail=1
fi
rm -f /tmp/zkc-modules.$$
# unsized.h declares, and stands on nothing of lib/: the client (client.c)
# and the recipes define what it declares, the sized calls (opts.c) call it.
floor_below="util names stats stats_hub hash renewal stall test_hooks unsized"
floor_session="$(sed 's/\.[ch]\b//g' <<<"$session_layer") session session_types session_shared client_struct kernel_door qworld"
floor_kernel="queue_nodes decide qown run_kernel qround qengine lease_run confirm_run drive queue"
upward=$(awk -v below=" $floor_below " -v session=" $floor_session " \
             -v kernel=" $floor_kernel " '
  function floor(m) {
    if (index(below, " " m " ")) return 1
    if (index(session, " " m " ")) return 2
    if (index(kernel, " " m " ")) return 3
    return 4
  }
  BEGIN { name[1] = "below"; name[2] = "session layer"; name[3] = "kernel"
          name[4] = "recipe" }
  floor($1) < floor($2) {
    print $1 " (" name[floor($1)] ") depends on " $2 " (" name[floor($2)] ")"
  }' <<<"$modules")
if [ -n "$upward" ]; then
  echo "$upward"
  echo "^ an arrow back up the floors (below, session layer, kernel, recipes)"
  fail=1
fi
# The queue engine's world (qworld.h, the client's in session_world.c) is the
# kernel's door: a recipe goes through session.h, never through the world
# (the multi-lock told its grant through zkc__qworld_session.granted).
worldly=$(awk -v kernel=" $floor_kernel " '
  $2 == "qworld" && $1 != "session_world" && !index(kernel, " " $1 " ")' <<<"$modules")
if [ -n "$worldly" ]; then
  while read -r m w; do
    echo "$m reaches the queue engine's world ($w): recipes use session.h"
  done <<<"$worldly"
  fail=1
fi
# The figures docs/architecture.md gives: the functions each door
# declares, and the floors, the longest chain of modules (a module's floor
# is one above the highest it depends on). The recipes' door and the
# floors have limits: the door only narrows (what the kernel or the session
# layer alone calls goes behind it, into kernel_door.h or
# session_shared.h), and the floors only flatten. Lower a limit with the
# drawing; never raise it.
door_width=21
max_floors=12
for h in session.h kernel_door.h session_shared.h; do
  n=$(grep -oE '^[a-z][^(]*[ *]zkc__[a-z_0-9]+\(' "$h" | wc -l)
  echo "$h declares $n functions"
  if [ "$h" = session.h ] && [ "$n" -gt "$door_width" ]; then
    echo "^ the recipes' door (session.h) grew past $door_width functions: a call only the kernel or the session layer makes goes behind it"
    fail=1
  fi
done
floors=$(awk '{ dep[$1] = dep[$1] " " $2; all[$1] = 1; all[$2] = 1 }
  function floor_of(m,   n, i, p, f, best) {
    if (m in fl) return fl[m]
    if (m in busy) return 0 # a loop, told above
    busy[m] = 1; best = 0; n = split(dep[m], p, " ")
    for (i = 1; i <= n; i++) { f = floor_of(p[i]); if (f > best) { best = f; via[m] = p[i] } }
    return fl[m] = best + 1
  }
  END {
    for (m in all) if (floor_of(m) > top) { top = fl[m]; head = m }
    chain = head; for (m = head; m in via; m = via[m]) chain = chain " -> " via[m]
    print top " (" chain ")"
  }' <<<"$modules")
echo "floors: $floors (at most $max_floors)"
if [ "${floors%% *}" -gt "$max_floors" ]; then
  echo "^ more than $max_floors floors: a module chain grew; set leaf modules side by side"; fail=1
fi
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
# One hold type: the fenced transactions are built in fenced.c alone (the
# session layer's send.c and ops.c carry them, call.c reads a fenced
# create's answer for its missing parent), and a hold's kind is looked up
# in hold.c alone: a recipe names its view's kind by its id.
for f in *.c; do
  case $f in fenced.c | send.c | ops.c | call.c) ;;
  *) if grep -qE 'ZKC__REQ_CHECK_(SET|CREATE)' "$f"; then
       echo "$f builds a fenced transaction: the calls on a hold are fenced.c's"; fail=1
     fi ;;
  esac
  if [ "$f" != hold.c ] && grep -qE '&zkc__[a-z]+_hold_kind\b' "$f"; then
    echo "$f names a hold kind's table: only hold.c looks a kind up"; fail=1
  fi
done
[ $fail = 0 ] && echo "layers: no include or call cycle, no arrow back up; the client struct and the session layer's shared header seen by it only, recipes through session.h, an op the kernel's (kernel_door.h), the queue engine through its world; ZooKeeper's header and states at the door only; fenced transactions in fenced.c, hold kinds looked up in hold.c"
exit $fail
