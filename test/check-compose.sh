#!/usr/bin/env bash
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
grep -q "image: zookeeper:3.8" <<<"$config" || { echo "not the zookeeper:3.8 image" >&2; exit 1; }
grep -q "ZOO_4LW_COMMANDS_WHITELIST: '\*'" <<<"$config" || { echo "4lw not whitelisted" >&2; exit 1; }
[ "$(grep -c 'healthcheck:' <<<"$config")" -eq 3 ] || { echo "a server lacks its healthcheck" >&2; exit 1; }
echo "docker-compose.yml valid; client ports match zk-ensemble.sh defaults"
