#!/bin/bash
# Entrypoint of the coderunner service image (see compose/README.md).
#
# The engine resolves every bind-mount source on the HOST, so whatever
# coderunner hands to it as a path (workspace_dir, artifacts.dir,
# volumes.dir, sandbox.init_path) must be the same path inside this
# container and on the host. compose/compose.yaml bind-mounts the host
# directory $CODERUNNER_STATE_DIR at the identical path; this script checks
# that, puts coderunner-init there (job containers mount it from the host),
# checks that the config's paths lie inside it, and starts the service.
set -euo pipefail

state=${CODERUNNER_STATE_DIR:?}
config=${CODERUNNER_CONFIG:?}
die() { echo "coderunner-entrypoint: $*" >&2; exit 2; }

[[ -r $config ]] || die "no config at $config (mount one, see compose/README.md)"
# Field 5 of mountinfo is the mount point: without a mount here, jobs would
# get paths the engine resolves to some unrelated (or new, empty) host dir.
awk -v d="$state" '$5 == d {found = 1} END {exit !found}' /proc/self/mountinfo ||
  die "$state is not a mount; bind-mount the host's $state at the same path"

# Every host-path key of the config must point into the shared directory
# (plain "key: value" lines; the keys are unique to paths in the schema).
# They must be set explicitly: the built-in defaults assume
# /var/lib/coderunner, whatever the state dir is.
declare -A seen=([workspace_dir]=0 [init_path]=0 [dir]=0)
while read -r key value; do
  value=${value%%#*}
  value=${value//[\"\' ]/}
  seen[$key]=$((seen[$key] + 1))
  # Empty init_path means "next to the executable", a path inside the image.
  [[ -n $value || $key != init_path ]] || die "$config: set sandbox.init_path to $state/bin/coderunner-init"
  [[ -n $value && $value == "$state"/* ]] ||
    die "$config: $key '$value' is outside $state, which the engine would not see at that path"
done < <(sed -nE 's/^[[:space:]]*(workspace_dir|init_path|dir):[[:space:]]*/\1 /p' "$config")
((seen[workspace_dir] && seen[init_path] && seen[dir] >= 2)) ||
  die "$config: set workspace_dir, sandbox.init_path, artifacts.dir and volumes.dir, each under $state"

# Copy under a temporary name and rename: a job container starting right
# now keeps the complete old file, never a half-written one.
install -d -m 0755 "$state/bin"
install -m 0755 /usr/local/lib/coderunner/coderunner-init "$state/bin/.coderunner-init.$$"
mv -f "$state/bin/.coderunner-init.$$" "$state/bin/coderunner-init"

exec /usr/local/bin/coderunner serve --config "$config"
