#!/usr/bin/env bash
# Builds coderunner's compiler images fully offline (Debian packages, no
# container registry) and loads them into the requested engines:
#   coderunner/gcc:12     the bash image's root filesystem + gcc, g++ and
#                         libc6-dev (GCC 12): languages c and cpp
#   coderunner/go:1.19    the same + golang-go (Go 1.19): go
#   coderunner/java:17    the same + openjdk-17-jdk-headless and libjavatuples-java
#                         (org.javatuples, which generated Java reaches for): java
#   coderunner/rust:1.63  the same + rustc (Rust 1.63, which links with gcc): rust
# Each starts from the bash root filesystem images/build.sh cached (run that
# first), so no second debootstrap is needed; each has the labels and the
# manifest build.sh gives its images (org.coderunner.language-version is the
# compiler's version), which GET /v1/languages shows.
# Usage: images/build-compilers.sh [--engine podman] [--engine docker] [--rebuild]
# Root filesystems are cached as tarballs under
# $CODERUNNER_COMPILER_IMAGE_CACHE, keyed by this script, engine-load.sh and
# the base's hash. Each is imported into the engines as one layer
# (engine-load.sh), without a Containerfile.
set -euo pipefail
umask 022
export DEBIAN_FRONTEND=noninteractive

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root_dir="$(dirname "$here")"
base_cache="${CODERUNNER_IMAGE_CACHE:-/var/cache/coderunner/images}"
cache="${CODERUNNER_COMPILER_IMAGE_CACHE:-/var/cache/coderunner/compiler-images}"
docker_sock="${CODERUNNER_DOCKER_SOCK:-/run/coderunner/docker.sock}"
names=(gcc go java rust)
declare -A tag=([gcc]=coderunner/gcc:12 [go]=coderunner/go:1.19 [java]=coderunner/java:17
  [rust]=coderunner/rust:1.63)
declare -A packages=([gcc]="gcc g++ libc6-dev" [go]="golang-go golang-1.19-go"
  [java]="openjdk-17-jdk-headless libjavatuples-java" [rust]="rustc gcc libc6-dev")
# What no job's build or run reads, dropped to keep the images (and their
# import into each engine) small: Go's prebuilt compiler internals, its
# sources of cmd/ and its test suite; tools only people at a shell use;
# GCC's LTO dumper; the JDK's jmods (jlink's input).
declare -A trim=([gcc]="usr/bin/x86_64-linux-gnu-lto-dump-12 usr/bin/lto-dump-12"
  [go]="usr/lib/go-1.19/pkg/linux_amd64/cmd usr/share/go-1.19/src/cmd usr/share/go-1.19/test
    $(printf 'usr/lib/go-1.19/pkg/tool/linux_amd64/%s ' trace pprof api doc fix dist objdump addr2line nm)"
  [java]="usr/lib/jvm/java-17-openjdk-amd64/jmods"
  [rust]="usr/bin/x86_64-linux-gnu-lto-dump-12 usr/bin/lto-dump-12")
declare -A probe=([gcc]="g++ --version" [go]="go version" [java]="javac -version"
  [rust]="rustc --version")
# Each image's CMD (its ENV is a Debian PATH and LANG=C.UTF-8: engine-load.sh).
declare -A cmd=([gcc]='["gcc", "--version"]' [go]='["go", "version"]' [java]='["javac", "-version"]'
  [rust]='["rustc", "--version"]')

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
step() { echo "build-compilers.sh: $* (+$(($(date +%s) - t0))s)"; }
# Run a command with its output in $log, shown only if it fails.
quiet() { "$@" >>"$log" 2>&1 || { echo "build-compilers.sh: failed: $*" >&2; tail -n 30 "$log" >&2; return 1; }; }
# Run a command chrooted into $1 inside a private mount namespace with /proc
# and the host's /dev (apt and dpkg need /dev/null), both gone with it.
in_root() {
  local dir=$1; shift
  # shellcheck disable=SC2016 # $0/$@ belong to the inner sh
  unshare --mount --propagation private sh -ec \
    'mount -t proc proc "$0/proc"; mount --rbind /dev "$0/dev"; exec chroot "$0" "$@"' "$dir" "$@"
}
# shellcheck source=images/engine-load.sh
source "$here/engine-load.sh"

base_tar=$(find "$base_cache" -mindepth 2 -maxdepth 2 -name bash.tar -printf "%T@ %p\n" 2>/dev/null |
  sort -rn | head -n1 | cut -d" " -f2-)
[[ -s $base_tar ]] || { echo "build-compilers.sh: no cached bash root filesystem: run images/build.sh first" >&2; exit 1; }
key=$(cd "$here" && { cat build-compilers.sh engine-load.sh
  cat "${base_tar%.tar}.sha256"; uname -m; } | sha256sum | cut -c1-16)
dir="$cache/$key"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one build per machine at a time

have_all() { for n in "${names[@]}"; do [[ -s $dir/$n.tar && -s $dir/$n.sha256 ]] || return 1; done; }

# write_manifest NAME ROOTFS: the compiler's version and its packages (JSON)
# into ROOTFS/$image_manifest.
write_manifest() {
  local n=$1 r=$2 version list
  case $n in
    gcc) version=$(in_root "$r" gcc -dumpfullversion) ;;
    go) version=$(in_root "$r" go env GOVERSION | sed 's/^go//') ;;
    java) version=$(in_root "$r" javac -version 2>&1 | cut -d' ' -f2) ;;
    rust) version=$(in_root "$r" rustc --version | cut -d' ' -f2) ;;
  esac
  # shellcheck disable=SC2086,SC2016 # a package list; dpkg's format
  list=$(in_root "$r" dpkg-query -W -f '"${Package}":"${Version}",' ${packages[$n]})
  mkdir -p "$(dirname "$r/$image_manifest")"
  printf '{"version":"%s","packages":{%s}}\n' "$version" "${list%,}" >"$r/$image_manifest"
  chmod 0644 "$r/$image_manifest"
}

build_rootfs() {
  local n=$1 work r s
  work=$(mktemp -d /var/tmp/coderunner-compilers.XXXXXX)
  r=$work/$n
  log=$work/build.log
  mkdir -p "$r"
  tar -xf "$base_tar" -C "$r"
  cp /etc/resolv.conf "$r/etc/resolv.conf" # apt inside the chroot needs DNS
  # update-alternatives links man pages (excluded) into this directory, which
  # the base's trim removed; a missing one fails openjdk's postinst.
  mkdir -p "$r/usr/share/man/man1"
  s=$(date +%s)
  quiet in_root "$r" apt-get -q update
  # shellcheck disable=SC2086 # a package list
  quiet in_root "$r" apt-get -q -y -o Dpkg::Use-Pty=0 install --no-install-recommends ${packages[$n]}
  step "$n: ${packages[$n]} install took $(($(date +%s) - s))s"
  rm -rf "${r:?}"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old \
    "$r"/usr/share/{doc,man,info,locale,lintian}/* "$r"/var/log/*
  local t
  for t in ${trim[$n]}; do rm -rf "${r:?}/$t"; done
  [[ $n == go ]] && find "$r/usr/share/go-1.19/src" \( -name '*_test.go' -o -name testdata \) -prune -exec rm -rf {} +
  : >"$r/etc/resolv.conf"
  # As build.sh: everything world-readable, no setuid or setgid binaries.
  find "$r" -xdev \( -path "$r/root" -o -path "$r/etc/*shadow*" \) -prune -o ! -type l \
    \( ! -perm -o+r -o -perm /u+x ! -perm -o+x \) -exec chmod o+r,o+X {} +
  find "$r" -xdev -type f -perm /6000 -exec chmod ug-s {} +
  chmod 1777 "$r/tmp"
  # shellcheck disable=SC2086 # probe is a command line
  in_root "$r" setpriv --reuid 65534 --regid 65534 --clear-groups ${probe[$n]} | sed -n "1s/^/build-compilers.sh: $n: /p"
  write_manifest "$n" "$r"
  tar --numeric-owner --sort=name -C "$r" -cf "$dir.tmp/$n.tar" .
  sha256sum <"$dir.tmp/$n.tar" | cut -d' ' -f1 >"$dir.tmp/$n.sha256"
  step "$n rootfs $(du -sh "$r" | cut -f1)"
  rm -rf "$work"
}

if ((rebuild)) || ! have_all; then
  step "building root filesystems into $dir from $base_tar"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  # In parallel: each mostly waits on the mirror.
  pids=()
  for n in "${names[@]}"; do build_rootfs "$n" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
else
  step "using cached root filesystems in $dir"
fi

for e in "${engines[@]}"; do
  for n in "${names[@]}"; do
    load_image "$e" "${tag[$n]}" "$dir/$n.tar" "${cmd[$n]}"
  done
done
step "done"
