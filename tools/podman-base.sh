# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts that run Podman (compose-cluster.sh, pristine.sh):
# Podman's settings for hosts without systemd, and the base image, a Debian
# bookworm root made with debootstrap from this machine's apt source (no
# registry), cached as a tarball and imported.
#
# The sourcing script sets `work` (a scratch directory it removes) first.
# Environment: ZKC_BASE_CACHE (the base root's tarball, kept between runs;
# default /var/cache/zkcoord).
readonly ZKC_CACHE=${ZKC_BASE_CACHE:-/var/cache/zkcoord}
readonly BASE_IMAGE=localhost/zkcoord-base:bookworm
readonly CACHE_DAYS=7 # a week-old base still serves; apt-get update runs in every use

# Podman's defaults fail on hosts without systemd and with a hybrid cgroup
# tree, or hard limits below its default ulimits: cgroupfs, runc, and
# limits every such host allows.
cat >"$work/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
CONF
export CONTAINERS_CONF=$work/containers.conf

# base_image: debootstrap once, then the cached tarball (rebuilt when older
# than a week or when the apt source changed). Nothing is installed in it
# but what debootstrap's minimal variant brings.
base_image() {
  local mirror tar=$ZKC_CACHE/base-bookworm.tar
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
  [ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
  [ -n "$mirror" ] || { echo "no Debian apt source on this machine" >&2; return 1; }
  if [ -s "$tar" ] && [ "$(cat "$tar.source" 2>/dev/null)" = "$mirror" ] &&
     [ -n "$(find "$tar" -mtime -"$CACHE_DAYS")" ]; then
    if podman image exists "$BASE_IMAGE"; then echo "base image cached"; return 0; fi
  else
    echo "debootstrap bookworm from $mirror"
    local root=$work/root
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
      { tail -20 "$work/debootstrap.log" >&2; return 1; }
    # The image's apt uses the same source as the host.
    rm -f "$root/etc/apt/sources.list"
    cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
      cp /etc/apt/sources.list "$root/etc/apt/"
    mkdir -p "$ZKC_CACHE"
    tar -C "$root" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar" && echo "$mirror" >"$tar.source"
    rm -rf "$root"
    podman rmi -f "$BASE_IMAGE" >/dev/null 2>&1 || true
  fi
  podman import "$tar" "$BASE_IMAGE" >/dev/null
}
