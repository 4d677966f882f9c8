#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The example systemd unit (examples/systemd/scheduler-leader.service): its
# ExecStart is a command line the zkcoord tool takes. Run with an ensemble
# nobody listens on, it must get past the parser (64 usage, 65 path) to the
# connection: 69 (COMMAND replaced by true). Also the unit's keys that make it safe: the control group
# stopped with zkcoord, restarts, no restart on usage errors.
# Usage: check-unit-example.sh SOURCE_DIR ZKCOORD
set -euo pipefail
src=${1:?usage: check-unit-example.sh SOURCE_DIR ZKCOORD}
tool=${2:?usage: check-unit-example.sh SOURCE_DIR ZKCOORD}
unit=$src/examples/systemd/scheduler-leader.service
fail() { echo "FAIL: $*"; exit 1; }

line=$(sed -n 's/^ExecStart=//p' "$unit")
[[ $line == /usr/bin/zkcoord\ * ]] || fail "ExecStart does not run /usr/bin/zkcoord: $line"
read -r -a argv <<<"${line#/usr/bin/zkcoord }"
# %H is the host name; the scheduler (after --) is the unit's user's own:
# true stands in for it.
args=()
for a in "${argv[@]}"; do
  [[ $a == -- ]] && break
  [[ $a == %H ]] && a=$(hostname)
  args+=("$a")
done
[[ ${#args[@]} -lt ${#argv[@]} ]] || fail "ExecStart has no -- COMMAND"
argv=("${args[@]}" -- true)
set +e
"$tool" --connect 127.0.0.1:1 --connect-timeout 0.2 "${argv[@]}" 2>/dev/null
rc=$?
set -e
[[ $rc -eq 69 ]] || fail "ExecStart's command line exited $rc, expected 69 (parsed, ensemble unreachable)"
for key in KillMode=control-group Restart=always 'RestartPreventExitStatus=64 65 77'; do
  grep -qxF "$key" "$unit" || fail "the unit lacks $key"
done
echo "unit example: ExecStart parses (exit 69 without an ensemble), keys present"
