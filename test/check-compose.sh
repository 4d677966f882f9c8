#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Validates docker/docker-compose.yml with docker-compose (no Docker engine
# needed) and checks that its servers publish the client ports the local
# script test/ensemble/zk-ensemble.sh uses by default, on loopback.
#   check-compose.sh [DOCKER_COMPOSE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
compose=${1:-docker-compose}
file=$here/../docker/docker-compose.yml
script=$here/ensemble/zk-ensemble.sh

config=$("$compose" -f "$file" config)
# The tests service must stay valid too.
"$compose" -f "$file" --profile tests config >/dev/null

# Ports as normalised by `config`: "- 127.0.0.1:2181:2181/tcp" under each
# server's "ports:" (host ip : published : container port).
for n in 1 2 3; do
  want=$(env -u ZKC_ENSEMBLE_PORT_BASE "$script" port "$n")
  got=$(awk -v svc="  zk$n:" '
      $0 == svc {inside = 1; next}
      inside && /^  [^ ]/ {inside = 0}
      inside && /^ *- .*:[0-9]+\/tcp$/ {print $2}' <<<"$config")
  [ "$got" = "127.0.0.1:$want:2181/tcp" ] || {
    echo "zk$n publishes '${got:-nothing}', the local script uses 127.0.0.1:$want" >&2
    exit 1
  }
  grep -q "ZOO_MY_ID: '$n'" <<<"$(awk -v svc="  zk$n:" '$0 == svc {i = 1; next} i && /^  [^ ]/ {i = 0} i' <<<"$config")" ||
    { echo "zk$n has no ZOO_MY_ID $n" >&2; exit 1; }
done
# Images are built here, from the BASE_IMAGE build argument (Docker:
# debian:bookworm; Podman: the imported debootstrap root).
[ "$(grep -c 'dockerfile: docker/Dockerfile.zookeeper' <<<"$config")" -eq 3 ] ||
  { echo "a server is not built from docker/Dockerfile.zookeeper" >&2; exit 1; }
grep -q "BASE_IMAGE: debian:bookworm" <<<"$config" || { echo "BASE_IMAGE is not a build argument" >&2; exit 1; }
base=$(ZKC_BASE_IMAGE=localhost/x:y "$compose" -f "$file" config | grep -c "BASE_IMAGE: localhost/x:y")
[ "$base" -eq 4 ] || { echo "ZKC_BASE_IMAGE does not reach every build (3 servers, tests)" >&2; exit 1; }
ported=$(ZKC_ZK2_PORT=9182 "$compose" -f "$file" config | grep -c "127.0.0.1:9182:2181")
[ "$ported" -eq 1 ] || { echo "ZKC_ZK2_PORT does not set zk2's published port" >&2; exit 1; }
grep -q "4lw.commands.whitelist=\*" "$here/../docker/zk-server.sh" || { echo "4lw not whitelisted" >&2; exit 1; }
[ "$(grep -c 'healthcheck:' <<<"$config")" -eq 3 ] || { echo "a server lacks its healthcheck" >&2; exit 1; }
echo "docker-compose.yml valid; client ports match zk-ensemble.sh defaults"
