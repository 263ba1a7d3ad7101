#!/usr/bin/env bash
# One command from a fresh Debian 12 machine (as root) to a running service:
# installs packages if missing, builds coderunner, builds the runtime images
# offline, starts a project-local Podman API service, and starts coderunner
# on 127.0.0.1:8080 with config/coderunner.yaml. Prints a working curl and
# the playground's address (http://127.0.0.1:8080/).
#
#   scripts/quickstart.sh          # Podman (the embedded default engine)
#   ENGINE=docker scripts/quickstart.sh
#   # Execute mode (intents) needs a model: any OpenAI-compatible endpoint.
#   LLM_BASE_URL=http://127.0.0.1:11434/v1 LLM_MODEL=llama3.1 scripts/quickstart.sh
#   LLM_BASE_URL=https://api.openai.com/v1 LLM_MODEL=gpt-4o-mini \
#     LLM_API_KEY_ENV=OPENAI_API_KEY OPENAI_API_KEY=sk-... scripts/quickstart.sh
# With LLM_* set, the config used is a copy of config/coderunner.yaml with
# llm.base_url, llm.model and llm.api_key_env filled in
# (/run/coderunner/quickstart.yaml); the key stays in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
engine="${ENGINE:-podman}"

scripts/install-deps.sh
# clang, the compiler CI builds with (scripts/test.sh).
CC=clang CXX=clang++ cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCODERUNNER_TESTS=OFF \
  >/dev/null
cmake --build build -j"$(nproc)" --target coderunner coderunner-init
sock=$("scripts/start-$engine.sh" | tail -n1)
images/build.sh --engine "$engine"
images/build-compilers.sh --engine "$engine"

mkdir -p /run/coderunner
config=config/coderunner.yaml
if [[ -n ${LLM_BASE_URL:-} ]]; then
  config=/run/coderunner/quickstart.yaml
  sed -e "/^llm:/,/^intents:/ s|^  base_url: \"\"|  base_url: \"${LLM_BASE_URL}\"|" \
    -e "/^llm:/,/^intents:/ s|^  model: \"\"|  model: \"${LLM_MODEL:?LLM_MODEL must name the model}\"|" \
    -e "/^llm:/,/^intents:/ s|^  api_key_env: \"\"|  api_key_env: \"${LLM_API_KEY_ENV:-}\"|" \
    config/coderunner.yaml >"$config"
fi
pidfile=/run/coderunner/coderunner.pid
if [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  kill "$(cat "$pidfile")" && sleep 1
fi
# The engine socket comes from DOCKER_HOST because config/coderunner.yaml
# leaves engine.socket empty (auto-detect).
DOCKER_HOST="unix://$sock" setsid nohup build/coderunner serve --config "$config" \
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
Open the playground: http://127.0.0.1:8080/  (Run, Execute, Sandboxes)
$([[ -n ${LLM_BASE_URL:-} ]] && echo "Execute mode uses $LLM_MODEL at $LLM_BASE_URL" || echo "Execute mode is off: rerun with LLM_BASE_URL and LLM_MODEL set (see the top of scripts/quickstart.sh)")
Or from a shell:
  curl -s http://127.0.0.1:8080/v1/execute -H 'Content-Type: application/json' \\
    -d '{"language":"python","code":"print(1+1)"}'
MSG
