#!/usr/bin/env bash
# Builds the coderunner SERVICE image fully offline (Debian packages only, no
# container registry) and loads it into the requested engines:
#   coderunner/coderunner:latest and coderunner/coderunner:<project version>
# = Debian bookworm minbase + the packages whose shared libraries the built
#   coderunner binary needs (found with ldd + dpkg -S on this Debian 12 host)
#   + curl + ca-certificates + the built coderunner and coderunner-init.
# Usage: images/build-service.sh [--build-dir build] [--engine podman]
#        [--engine docker] [--rebuild]
# The root filesystem (everything but the binaries) is cached as a tarball
# under $CODERUNNER_SERVICE_IMAGE_CACHE, keyed by a hash of its inputs, so
# re-runs skip debootstrap; an image whose org.coderunner.service-sha256
# label already matches (same rootfs, binaries, entrypoint) is not rebuilt.
# The helpers mirror images/build.sh on purpose: sharing them would change
# build.sh, whose own hash keys the runtime images' cache.
set -euo pipefail
umask 022
export DEBIAN_FRONTEND=noninteractive

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root_dir="$(dirname "$here")"
# Not under images/build.sh's cache dir: build.sh deletes every other
# directory there when its inputs change.
cache="${CODERUNNER_SERVICE_IMAGE_CACHE:-/var/cache/coderunner/service-image}"
mirror="${CODERUNNER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${CODERUNNER_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
docker_sock="${CODERUNNER_DOCKER_SOCK:-/run/coderunner/docker.sock}"
repo=coderunner/coderunner
label=org.coderunner.service-sha256
version=$(sed -nE 's/^project\(coderunner VERSION ([0-9.]+).*/\1/p' "$root_dir/CMakeLists.txt")
[[ -n $version ]] || { echo "build-service.sh: no project VERSION in CMakeLists.txt" >&2; exit 1; }

build_dir=$root_dir/build engines=() rebuild=0
while (($#)); do
  case $1 in
    --build-dir) [[ -n ${2:-} ]] || { echo "--build-dir DIR" >&2; exit 2; }
      build_dir=$(cd "$2" && pwd); shift 2 ;;
    --engine) [[ ${2:-} == @(podman|docker) ]] || { echo "--engine podman|docker" >&2; exit 2; }
      engines+=("$2"); shift 2 ;;
    --rebuild) rebuild=1; shift ;;
    *) echo "usage: $0 [--build-dir DIR] [--engine podman|docker]... [--rebuild]" >&2; exit 2 ;;
  esac
done
bin=$build_dir/coderunner init=$build_dir/coderunner-init
for f in "$bin" "$init"; do
  [[ -x $f ]] || { echo "build-service.sh: $f missing; build the coderunner and coderunner-init targets first" >&2; exit 1; }
done

t0=$(date +%s)
step() { echo "build-service.sh: $* (+$(($(date +%s) - t0))s)"; }
# Run a command with its output in $log, shown only if it fails.
quiet() { "$@" >>"$log" 2>&1 || { echo "build-service.sh: failed: $*" >&2; tail -n 30 "$log" >&2; return 1; }; }
# Run a command chrooted into $1 inside a private mount namespace, so the
# /proc mount vanishes with the process even if the script dies.
in_root() {
  local dir=$1; shift
  # shellcheck disable=SC2016 # $0/$@ belong to the inner sh
  unshare --mount --propagation private sh -ec \
    'mount -t proc proc "$0/proc"; exec chroot "$0" "$@"' "$dir" "$@"
}

# The Debian packages that own the binary's shared libraries. The host is
# Debian 12 like the image, so the names are the image's too. A library
# that dpkg does not know (built locally) cannot be installed: fail.
if ldd "$bin" | grep -q 'not found'; then
  echo "build-service.sh: $bin has unresolved libraries:" >&2; ldd "$bin" | grep 'not found' >&2; exit 1
fi
# With merged /usr, dpkg records some libraries under /lib and some under
# /usr/lib, and ldd may print either (or a symlink): ask for the path ldd
# gives and its real path, in one dpkg -S call (one per library is slow).
mapfile -t libs < <(ldd "$bin" | awk '/ => \// {print $3}' | sort -u)
owners=$(for l in "${libs[@]}"; do echo "$l"; readlink -f "$l"; done | xargs dpkg -S 2>/dev/null || true)
pkgs=(curl ca-certificates)
for l in "${libs[@]}"; do
  owner=$(grep -m1 -e ": $l\$" -e ": $(readlink -f "$l")\$" <<<"$owners") ||
    { echo "build-service.sh: no Debian package owns $l" >&2; exit 1; }
  pkgs+=("${owner%%:*}")
done
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)

# Cache key: everything that decides the rootfs contents (not the binaries).
key=$( { cat "$here/build-service.sh"; echo "${pkgs[*]} $mirror $security_mirror $(uname -m)"; } |
  sha256sum | cut -c1-16)
dir="$cache/$key"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one build per machine at a time

build_rootfs() {
  local work; work=$(mktemp -d /var/tmp/coderunner-service-image.XXXXXX)
  # shellcheck disable=SC2064 # expand $work now
  trap "rm -rf '$work'" EXIT
  local r=$work/rootfs s
  log=$work/build.log

  s=$(date +%s)
  quiet debootstrap --variant=minbase bookworm "$r" "$mirror"
  step "debootstrap took $(($(date +%s) - s))s"
  cat >"$r/etc/dpkg/dpkg.cfg.d/01-coderunner-nodoc" <<'EOF'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
  cat >"$r/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security_mirror bookworm-security main
EOF
  cp /etc/resolv.conf "$r/etc/resolv.conf" # apt inside the chroot needs DNS
  s=$(date +%s)
  # Security updates matter most here: the service parses untrusted HTTP.
  # Use-Pty=0: there is no /dev/pts in the chroot.
  quiet in_root "$r" apt-get -q update
  quiet in_root "$r" apt-get -q -y -o Dpkg::Use-Pty=0 upgrade
  quiet in_root "$r" apt-get -q -y -o Dpkg::Use-Pty=0 install --no-install-recommends "${pkgs[@]}"
  step "upgrade + install of ${#pkgs[@]} packages took $(($(date +%s) - s))s"

  # Trim: package caches/indexes, docs, logs, and /dev nodes (every engine
  # mounts its own /dev); placeholders for the files engines bind-mount.
  rm -rf "${r:?}"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old \
    "$r"/usr/share/{doc,man,info,locale,lintian}/* "$r"/var/log/* "${r:?}"/dev/*
  : >"$r/etc/resolv.conf"
  echo localhost >"$r/etc/hostname"
  # The binary must find every library in the image: run it there.
  install -m 0755 "$bin" "$r/usr/local/bin/coderunner"
  in_root "$r" /usr/local/bin/coderunner --help >/dev/null 2>&1 ||
    { echo "build-service.sh: coderunner does not start inside the rootfs" >&2; exit 1; }
  rm "$r/usr/local/bin/coderunner"

  mkdir -p "$dir.tmp"
  tar --numeric-owner --sort=name -C "$r" -cf "$dir.tmp/rootfs.tar" .
  sha256sum <"$dir.tmp/rootfs.tar" | cut -d' ' -f1 >"$dir.tmp/rootfs.sha256"
  echo "build-service.sh: rootfs $(du -sh "$r" | cut -f1) (${pkgs[*]})"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  # Drop rootfs sets of older build inputs so the cache stays bounded.
  find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
  rm -rf "$work"; trap - EXIT
}

if ((rebuild)) || [[ ! -s $dir/rootfs.tar || ! -s $dir/rootfs.sha256 ]]; then
  step "building the root filesystem into $dir"
  build_rootfs
else
  step "using the cached root filesystem in $dir"
fi

# engine_cli ENGINE ARGS...: as in images/build.sh. Podman uses the project
# containers.conf and its local storage (shared with the API service).
engine_cli() {
  local e=$1; shift
  if [[ $e == podman ]]; then
    CONTAINERS_CONF="$root_dir/config/engines/containers.conf" podman "$@"
  else
    DOCKER_BUILDKIT=0 docker -H "unix://$docker_sock" "$@"
  fi
}

# The image's identity: its rootfs, binaries, entrypoint and Containerfile.
sha=$(cat "$dir/rootfs.sha256" "$bin" "$init" "$here/service/entrypoint.sh" \
  "$here/service/Containerfile" | sha256sum | cut -d' ' -f1)
for e in "${engines[@]}"; do
  old=$(engine_cli "$e" image inspect --format "{{index .Config.Labels \"$label\"}}" "$repo:$version" 2>/dev/null || true)
  if [[ $old == "$sha" ]]; then
    step "$e: $repo:$version up to date"
    continue
  fi
  old_id=$(engine_cli "$e" image inspect --format '{{.Id}}' "$repo:$version" 2>/dev/null || true)
  ctx=$(mktemp -d /var/tmp/coderunner-service-ctx.XXXXXX)
  cp "$here/service/Containerfile" "$here/service/entrypoint.sh" "$init" "$ctx/"
  # Debug info is most of a RelWithDebInfo binary (~85 of 88 MB); keep it in
  # the build dir, not in the image.
  strip --strip-debug -o "$ctx/coderunner" "$bin"
  ln "$dir/rootfs.tar" "$ctx/rootfs.tar" 2>/dev/null || cp "$dir/rootfs.tar" "$ctx/rootfs.tar"
  s=$(date +%s)
  log=$ctx/build.log
  quiet engine_cli "$e" build -f "$ctx/Containerfile" -t "$repo:$version" -t "$repo:latest" \
    --label "$label=$sha" --label "org.opencontainers.image.version=$version" "$ctx"
  rm -rf "$ctx"
  step "$e: $repo:$version (and :latest) built in $(($(date +%s) - s))s"
  # Drop the image the tag pointed to before (fails harmlessly if in use).
  if [[ -n $old_id && $old_id != "$(engine_cli "$e" image inspect --format '{{.Id}}' "$repo:$version")" ]]; then
    engine_cli "$e" rmi "$old_id" >/dev/null 2>&1 || true
  fi
done
step "done"
