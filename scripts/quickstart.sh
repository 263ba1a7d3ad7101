#!/usr/bin/env bash
# One command from a fresh Debian 12 machine (as root) to a running service:
# installs packages if missing, builds coderunner, builds the runtime images
# offline, starts a project-local Podman API service, and starts coderunner
# on 127.0.0.1:8080 with config/coderunner.yaml. Prints a working curl.
#
#   scripts/quickstart.sh          # Podman (the embedded default engine)
#   ENGINE=docker scripts/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."
engine="${ENGINE:-podman}"

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCODERUNNER_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target coderunner coderunner-init
sock=$("scripts/start-$engine.sh" | tail -n1)
images/build.sh --engine "$engine"

mkdir -p /run/coderunner
pidfile=/run/coderunner/coderunner.pid
if [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  kill "$(cat "$pidfile")" && sleep 1
fi
# The engine socket comes from DOCKER_HOST because config/coderunner.yaml
# leaves engine.socket empty (auto-detect).
DOCKER_HOST="unix://$sock" setsid nohup build/coderunner serve --config config/coderunner.yaml \
  >>/run/coderunner/coderunner.log 2>&1 </dev/null &
echo $! >"$pidfile"
for _ in $(seq 50); do
  curl -fsS http://127.0.0.1:8080/readyz >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS http://127.0.0.1:8080/readyz >/dev/null || {
  echo "coderunner did not become ready; see /run/coderunner/coderunner.log" >&2
  tail -n 20 /run/coderunner/coderunner.log >&2
  exit 1
}
cat <<MSG
coderunner is running on http://127.0.0.1:8080 (engine: $engine at $sock, log: /run/coderunner/coderunner.log)
Try:
  curl -s http://127.0.0.1:8080/v1/execute -H 'Content-Type: application/json' \\
    -d '{"language":"python","code":"print(1+1)"}'
MSG
