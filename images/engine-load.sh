# shellcheck shell=bash disable=SC2154 # root_dir, docker_sock: the caller's
# Sourced by images/build-compilers.sh: loads one built root filesystem into
# an engine as a tagged image, unless the tag already carries its hash.
# Needs: $root_dir (the checkout), $docker_sock, step and quiet (the caller's
# progress and quiet-run helpers).

image_label=org.coderunner.rootfs-sha256
image_manifest=usr/share/coderunner/packages.json

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

# load_image ENGINE TAG TAR CONTAINERFILE: builds TAG from TAR (a rootfs
# tarball beside its .sha256) with CONTAINERFILE, labelled with the tar's
# hash and the manifest inside it; drops the image TAG named before.
load_image() {
  local e=$1 tag=$2 tar=$3 containerfile=$4 sha old old_id ctx s version packages
  sha=$(cat "${tar%.tar}.sha256")
  old=$(engine_cli "$e" image inspect --format "{{index .Config.Labels \"$image_label\"}}" "$tag" 2>/dev/null || true)
  if [[ $old == "$sha" ]]; then
    step "$e: $tag up to date"
    return 0
  fi
  old_id=$(engine_cli "$e" image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
  ctx=$(mktemp -d /var/tmp/coderunner-ctx.XXXXXX)
  cp "$containerfile" "$ctx/Containerfile"
  ln "$tar" "$ctx/rootfs.tar" 2>/dev/null || cp "$tar" "$ctx/rootfs.tar"
  s=$(date +%s)
  log=$ctx/load.log # quiet's log (the caller's helper)
  export log
  # The manifest, as labels: GET /v1/languages reads them with the image.
  tar -xOf "$tar" "./$image_manifest" >"$ctx/manifest.json"
  version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$ctx/manifest.json")
  packages=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["packages"], sort_keys=True, separators=(",", ":")))' "$ctx/manifest.json")
  quiet engine_cli "$e" build -f "$ctx/Containerfile" -t "$tag" --label "$image_label=$sha" \
    --label "org.coderunner.language-version=$version" --label "org.coderunner.packages=$packages" "$ctx"
  rm -rf "$ctx"
  step "$e: $tag loaded in $(($(date +%s) - s))s"
  if [[ -n $old_id && $old_id != "$(engine_cli "$e" image inspect --format '{{.Id}}' "$tag")" ]]; then
    engine_cli "$e" rmi "$old_id" >/dev/null 2>&1 || true
  fi
}
