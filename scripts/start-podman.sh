#!/usr/bin/env bash
# Starts a root Podman API service (Docker-compatible REST API) on a Unix
# socket, using the project-local config/engines/containers.conf. Needs no
# systemd. Idempotent: does nothing if the socket already answers _ping.
# Prints the socket path on success.
set -euo pipefail

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sock="${CODERUNNER_PODMAN_SOCK:-/run/coderunner/podman.sock}"
run_dir=/run/coderunner
log="$run_dir/podman.log"
pidfile="$run_dir/podman.pid"
export CONTAINERS_CONF="$root_dir/config/engines/containers.conf"

ping() { curl -fsS --max-time 2 --unix-socket "$sock" http://d/v1.41/_ping 2>/dev/null | grep -qx OK; }

if ping; then
  echo "$sock"
  exit 0
fi

mkdir -p "$run_dir" "$(dirname "$sock")"
rm -f "$sock" # stale socket from a dead service would make bind() fail
# --time=0: never exit on idle (the default is to stop after 5 s without
# clients). setsid+nohup detach it from this shell and its terminal.
# A neutral working directory: the engine and its per-container monitors
# write marker files (e.g. "oom") into the cwd they inherit.
cd "$run_dir"
setsid nohup podman system service --time=0 "unix://$sock" >>"$log" 2>&1 </dev/null &
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
