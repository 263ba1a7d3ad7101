#!/usr/bin/env bash
# Stops the Podman services (the default one and, if started, the runsc one)
# and dockerd started by start-podman.sh and start-docker.sh, via their
# pidfiles. Best effort: missing or stale pidfiles are skipped, and a process
# still alive after 20 s gets SIGKILL.
set -euo pipefail

run_dir=/run/coderunner

stop() { # name pidfile socket
  local name=$1 pidfile=$2 sock=$3 pid
  [[ -s $pidfile ]] || { echo "$name: not running (no pidfile)"; return 0; }
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "$name: pid $pid ignored SIGTERM, sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    echo "$name: stopped (pid $pid)"
  else
    echo "$name: not running (stale pidfile)"
  fi
  rm -f "$pidfile" "$sock"
}

stop podman "$run_dir/podman.pid" "${CODERUNNER_PODMAN_SOCK:-$run_dir/podman.sock}"
stop docker "$run_dir/docker.pid" "${CODERUNNER_DOCKER_SOCK:-$run_dir/docker.sock}"
stop podman-runsc "$run_dir/podman-runsc.pid" "$run_dir/podman-runsc.sock"
