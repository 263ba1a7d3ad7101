# shellcheck shell=bash disable=SC2154,SC2034 # root_dir, docker_sock: the caller's; log: quiet's
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

# load_image ENGINE TAG TAR CMD: imports TAR (a rootfs tarball beside its
# .sha256) as TAG, with a Debian PATH, LANG=C.UTF-8 and CMD (JSON), labelled
# with the tar's hash and the manifest inside it; drops the image TAG named
# before. An import, not a build: the engine reads the tarball once (a build
# first copies it in as context), half the time and CPU.
load_image() {
  local e=$1 tag=$2 tar=$3 cmd=$4 sha old old_id s manifest version packages quoted
  sha=$(cat "${tar%.tar}.sha256")
  old=$(engine_cli "$e" image inspect --format "{{index .Config.Labels \"$image_label\"}}" "$tag" 2>/dev/null || true)
  if [[ $old == "$sha" ]]; then
    step "$e: $tag up to date"
    return 0
  fi
  old_id=$(engine_cli "$e" image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
  s=$(date +%s)
  log=$(mktemp /var/tmp/coderunner-load.XXXXXX) # quiet's (the caller's helper)
  # The manifest, as labels: GET /v1/languages reads them with the image.
  manifest=$(tar -xOf "$tar" "./$image_manifest")
  version=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["version"])' "$manifest")
  packages=$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["packages"], sort_keys=True, separators=(",", ":")))' "$manifest")
  # Docker's --change reads quotes as a Dockerfile does and drops them;
  # Podman's keeps them in the value.
  quoted="'$packages'"
  [[ $e == podman ]] && quoted=$packages
  quiet engine_cli "$e" import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change "CMD $cmd" --change "LABEL $image_label=$sha" \
    --change "LABEL org.coderunner.language-version=$version" \
    --change "LABEL org.coderunner.packages=$quoted" "$tar" "$tag"
  rm -f "$log"
  step "$e: $tag loaded in $(($(date +%s) - s))s"
  if [[ -n $old_id && $old_id != "$(engine_cli "$e" image inspect --format '{{.Id}}' "$tag")" ]]; then
    engine_cli "$e" rmi "$old_id" >/dev/null 2>&1 || true
  fi
}
