#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a command on the committed tree inside a pristine Debian container:
# the base image (tools/podman-base.sh: debootstrap's minimal bookworm, with
# nothing installed but what the command installs itself). A step that
# forgets to install a package it needs fails here, where on a developer's
# or CI's machine the package may already be there.
#
#   tools/pristine.sh                       # tools/bootstrap.sh demo
#   tools/pristine.sh 'tools/bootstrap.sh deb-check'
#
# The tree is `git archive HEAD`: committed files only. The container shares
# the host's network (apt's source, and the ensemble on loopback), so the
# ensemble's ports (2181-2183 and their quorum ports, or those of
# $ZKC_ENSEMBLE_PORT_BASE, which is passed in) must be free. Exit status:
# the command's.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT=$PWD
readonly CMD=${1:-tools/bootstrap.sh demo}
readonly NAME=zkcoord-pristine-$$

work=$(mktemp -d)
# shellcheck source=tools/podman-base.sh
. "$ROOT/tools/podman-base.sh"
cleanup() {
  local rc=$?
  podman rm -f "$NAME" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT

start=$SECONDS
base_image
echo "pristine: running '$CMD' on $(git rev-parse --short HEAD) in a new $BASE_IMAGE container"
git archive --format=tar HEAD |
  podman run --rm -i --name "$NAME" --network host -e ZKC_ENSEMBLE_PORT_BASE "$BASE_IMAGE" \
    /bin/bash -c 'mkdir -p /root/project && cd /root/project && tar -xf - && exec /bin/bash -c "$1"' \
    bash "$CMD"
echo "pristine: '$CMD' passed in $((SECONDS - start)) s"
