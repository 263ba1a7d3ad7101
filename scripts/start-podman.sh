#!/usr/bin/env bash
# Starts a root Podman API service (Docker-compatible REST API) on a Unix
# socket, using the project-local config/engines/containers.conf. Needs no
# systemd. Idempotent: does nothing if the socket already answers _ping.
# Prints the socket path on success.
#
#   CODERUNNER_PODMAN_RUNTIME=runsc scripts/start-podman.sh
# starts a second service whose default OCI runtime is runsc (gVisor, with
# --network=none) on /run/coderunner/podman-runsc.sock: Podman 4.3 cannot
# pick a runtime per container, so gVisor on Podman is a service-wide choice
# (see config/engines/containers.conf).
set -euo pipefail

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runtime="${CODERUNNER_PODMAN_RUNTIME:-}"
global_flags=()
case "$runtime" in
  "") name=podman ;;
  runsc)
    name=podman-runsc
    global_flags=(--runtime runsc --runtime-flag network=none)
    ;;
  *)
    echo "start-podman: CODERUNNER_PODMAN_RUNTIME must be empty or runsc, not '$runtime'" >&2
    exit 2
    ;;
esac
sock="${CODERUNNER_PODMAN_SOCK:-/run/coderunner/$name.sock}"
run_dir=/run/coderunner
log="$run_dir/$name.log"
pidfile="$run_dir/$name.pid"
# The service, and the cleanup command each of its containers runs when it
# exits, read this file for as long as they live: they get a copy that
# outlives the checkout. (A clone removed while its service ran left every
# container that exited afterwards "stopped", never "exited".)
conf="$run_dir/$name.containers.conf"

ping() { curl -fsS --max-time 2 --unix-socket "$sock" http://d/v1.41/_ping 2>/dev/null | grep -qx OK; }

if ping; then
  echo "$sock"
  exit 0
fi

mkdir -p "$run_dir" "$(dirname "$sock")"
install -m 0644 "$root_dir/config/engines/containers.conf" "$conf"
export CONTAINERS_CONF="$conf"
rm -f "$sock" # stale socket from a dead service would make bind() fail
# --time=0: never exit on idle (the default is to stop after 5 s without
# clients). setsid+nohup detach it from this shell and its terminal.
# A neutral working directory: the engine and its per-container monitors
# write marker files (e.g. "oom") into the cwd they inherit.
cd "$run_dir"
setsid nohup podman "${global_flags[@]}" system service --time=0 "unix://$sock" \
  >>"$log" 2>&1 </dev/null &
echo $! >"$pidfile"

for _ in $(seq 60); do # ~30 s
  if ping; then
    echo "$sock"
    exit 0
  fi
  if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then break; fi
  sleep 0.5
done
echo "start-podman: service did not answer on $sock; last log lines ($log):" >&2
tail -n 30 "$log" >&2
exit 1
