#!/usr/bin/env bash
# Starts a private Docker Engine (dockerd) on its own socket, data-root and
# exec-root, so it never clashes with a system dockerd (/var/run/docker.sock,
# /var/lib/docker). Needs no systemd. Idempotent: does nothing if the socket
# already answers _ping. Prints the socket path on success.
set -euo pipefail

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sock="${CODERUNNER_DOCKER_SOCK:-/run/coderunner/docker.sock}"
run_dir=/run/coderunner
log="$run_dir/docker.log"
pidfile="$run_dir/docker.pid"

ping() { curl -fsS --max-time 2 --unix-socket "$sock" http://d/v1.41/_ping 2>/dev/null | grep -qx OK; }

if ping; then
  echo "$sock"
  exit 0
fi

mkdir -p "$run_dir" "$(dirname "$sock")" /var/lib/coderunner/docker
rm -f "$sock"
# --iptables=false --bridge=none: jobs only ever use --network none, and this
# must not rewrite the host firewall or create docker0. Other settings (own
# containerd namespace, log rotation, runsc runtime) are in daemon.json.
# A neutral working directory: the engine and its per-container monitors
# write marker files (e.g. "oom") into the cwd they inherit.
cd "$run_dir"
setsid nohup dockerd \
  --config-file "$root_dir/config/engines/daemon.json" \
  --iptables=false --bridge=none \
  --data-root /var/lib/coderunner/docker \
  --exec-root /run/coderunner/docker-exec \
  --pidfile "$pidfile" \
  --host "unix://$sock" \
  >>"$log" 2>&1 </dev/null &
pid=$!

for _ in $(seq 60); do # ~30 s
  if ping; then
    echo "$sock"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 0.5
done
echo "start-docker: dockerd did not answer on $sock; last log lines ($log):" >&2
tail -n 30 "$log" >&2
exit 1
