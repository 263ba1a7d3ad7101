#!/usr/bin/env bash
# Builds the fleet's two support images fully offline (Debian packages only,
# no container registry) and loads them into the requested engines:
#   coderunner/postgres:15   bookworm minbase + postgresql-15, with
#                            images/postgres/entrypoint.sh (initdb on first
#                            start, password auth, the database and its user)
#   coderunner/haproxy:2.6   bookworm minbase + haproxy (its config is
#                            mounted, see compose/haproxy.cfg)
# compose/fleet.yaml runs them (compose/README.md, "The fleet").
# Usage: images/build-fleet.sh [--engine docker] [--engine podman] [--rebuild]
# A script of its own, not a flag of images/build.sh or build-service.sh:
# their own text keys their caches, and each drops every other cache entry,
# so editing them would rebuild the runtime or service root filesystems on
# every machine. The root filesystems here are cached as tarballs under
# $CODERUNNER_FLEET_IMAGE_CACHE, keyed by this script, the mirrors and the
# architecture; an image whose org.coderunner.fleet-sha256 label (its rootfs
# and its images/<name>/ files) already matches is not built again.
set -euo pipefail
umask 022
export DEBIAN_FRONTEND=noninteractive

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root_dir="$(dirname "$here")"
cache="${CODERUNNER_FLEET_IMAGE_CACHE:-/var/cache/coderunner/fleet-images}"
mirror="${CODERUNNER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${CODERUNNER_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
docker_sock="${CODERUNNER_DOCKER_SOCK:-/run/coderunner/docker.sock}"
names=(postgres haproxy)
declare -A tag=([postgres]=coderunner/postgres:15 [haproxy]=coderunner/haproxy:2.6)
declare -A packages=([postgres]=postgresql-15 [haproxy]=haproxy)
declare -A probe=([postgres]="/usr/lib/postgresql/15/bin/postgres --version" [haproxy]="haproxy -v")
label=org.coderunner.fleet-sha256

engines=() rebuild=0
while (($#)); do
  case $1 in
    --engine) [[ ${2:-} == @(podman|docker) ]] || { echo "--engine podman|docker" >&2; exit 2; }
      engines+=("$2"); shift 2 ;;
    --rebuild) rebuild=1; shift ;;
    *) echo "usage: $0 [--engine podman|docker]... [--rebuild]" >&2; exit 2 ;;
  esac
done

t0=$(date +%s)
step() { echo "build-fleet.sh: $* (+$(($(date +%s) - t0))s)"; }
quiet() { "$@" >>"$log" 2>&1 || { echo "build-fleet.sh: failed: $*" >&2; tail -n 30 "$log" >&2; return 1; }; }
in_root() {
  local dir=$1; shift
  # shellcheck disable=SC2016 # $0/$@ belong to the inner sh
  unshare --mount --propagation private sh -ec \
    'mount -t proc proc "$0/proc"; exec chroot "$0" "$@"' "$dir" "$@"
}

key=$( { cat "$here/build-fleet.sh"
  echo "$mirror $security_mirror $(uname -m)"; } | sha256sum | cut -c1-16)
dir="$cache/$key"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one build per machine at a time

have_all() { for n in "${names[@]}"; do [[ -s $dir/$n.tar && -s $dir/$n.sha256 ]] || return 1; done; }

# build_one NAME BASE WORK: BASE (a minbase tree) + NAME's packages, trimmed,
# as $dir.tmp/NAME.tar.
build_one() {
  local n=$1 base=$2 work=$3 r=$3/$1 s
  cp -a "$base" "$r"
  # No service may start in the chroot (invoke-rc.d asks policy-rc.d), and
  # postgresql-common must not make a cluster: the entrypoint makes one.
  printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d" && chmod 0755 "$r/usr/sbin/policy-rc.d"
  mkdir -p "$r/etc/postgresql-common"
  echo 'create_main_cluster = false' >"$r/etc/postgresql-common/createcluster.conf"
  s=$(date +%s)
  quiet in_root "$r" apt-get -q -y -o Dpkg::Use-Pty=0 install --no-install-recommends "${packages[$n]}"
  step "$n: install of ${packages[$n]} took $(($(date +%s) - s))s"
  rm "$r/usr/sbin/policy-rc.d"
  if [[ $n == postgres ]]; then
    # JIT is LLVM (libLLVM-14 and its libz3: 130 of 425 MB). Without its
    # provider library PostgreSQL runs without JIT; the entrypoint says
    # jit=off too.
    quiet in_root "$r" dpkg --purge --force-depends libllvm14 libz3-4
    rm -rf "$r"/usr/lib/postgresql/15/lib/llvmjit* "$r"/usr/lib/postgresql/15/lib/bitcode
  fi
  in_root "$r" sh -c "${probe[$n]}" >/dev/null || { echo "build-fleet.sh: $n: '${probe[$n]}' fails" >&2; exit 1; }
  # Trim as images/build.sh does; a package's postinst may have made a
  # cluster or config we do not want (the entrypoint makes its own).
  rm -rf "${r:?}"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old \
    "$r"/usr/share/{doc,man,info,lintian}/* "$r"/var/log/* "${r:?}"/dev/* \
    "$r"/var/lib/postgresql/15 "$r"/etc/postgresql/15
  : >"$r/etc/resolv.conf"
  echo localhost >"$r/etc/hostname"
  tar --numeric-owner --sort=name -C "$r" -cf "$dir.tmp/$n.tar" .
  sha256sum <"$dir.tmp/$n.tar" | cut -d' ' -f1 >"$dir.tmp/$n.sha256"
  echo "build-fleet.sh: $n rootfs $(du -sh "$r" | cut -f1)"
}

build_rootfs() {
  local work; work=$(mktemp -d /var/tmp/coderunner-fleet-image.XXXXXX)
  # shellcheck disable=SC2064 # expand $work now
  trap "rm -rf '$work'" EXIT
  local b=$work/base s
  log=$work/build.log
  s=$(date +%s)
  quiet debootstrap --variant=minbase bookworm "$b" "$mirror"
  step "debootstrap took $(($(date +%s) - s))s"
  cat >"$b/etc/dpkg/dpkg.cfg.d/01-coderunner-nodoc" <<'EON'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
EON
  cat >"$b/etc/apt/sources.list" <<EOS
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security_mirror bookworm-security main
EOS
  cp /etc/resolv.conf "$b/etc/resolv.conf"
  s=$(date +%s)
  quiet in_root "$b" apt-get -q update
  quiet in_root "$b" apt-get -q -y -o Dpkg::Use-Pty=0 upgrade
  step "upgrade took $(($(date +%s) - s))s"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  for n in "${names[@]}"; do build_one "$n" "$b" "$work"; done
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
  rm -rf "$work"; trap - EXIT
}

if ((rebuild)) || ! have_all; then
  step "building the root filesystems into $dir"
  build_rootfs
else
  step "using the cached root filesystems in $dir"
fi

engine_cli() {
  local e=$1; shift
  if [[ $e == podman ]]; then
    CONTAINERS_CONF="$root_dir/config/engines/containers.conf" podman "$@"
  else
    DOCKER_BUILDKIT=0 docker -H "unix://$docker_sock" "$@"
  fi
}

for n in "${names[@]}"; do
  # The image's identity: its rootfs and everything in its context.
  sha=$(cat "$dir/$n.sha256" "$here/$n"/* | sha256sum | cut -d' ' -f1)
  for e in "${engines[@]}"; do
    old=$(engine_cli "$e" image inspect --format "{{index .Config.Labels \"$label\"}}" "${tag[$n]}" 2>/dev/null || true)
    if [[ $old == "$sha" ]]; then
      step "$e: ${tag[$n]} up to date"
      continue
    fi
    old_id=$(engine_cli "$e" image inspect --format '{{.Id}}' "${tag[$n]}" 2>/dev/null || true)
    ctx=$(mktemp -d /var/tmp/coderunner-fleet-ctx.XXXXXX)
    cp "$here/$n"/* "$ctx/"
    ln "$dir/$n.tar" "$ctx/rootfs.tar" 2>/dev/null || cp "$dir/$n.tar" "$ctx/rootfs.tar"
    log=$ctx/build.log
    quiet engine_cli "$e" build -f "$ctx/Containerfile" -t "${tag[$n]}" --label "$label=$sha" "$ctx"
    rm -rf "$ctx"
    step "$e: ${tag[$n]} built"
    if [[ -n $old_id && $old_id != "$(engine_cli "$e" image inspect --format '{{.Id}}' "${tag[$n]}")" ]]; then
      engine_cli "$e" rmi "$old_id" >/dev/null 2>&1 || true
    fi
  done
done
step "done"
