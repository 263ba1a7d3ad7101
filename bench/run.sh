#!/usr/bin/env bash
# Runs the benchmarks against a fresh coderunner on one engine.
#   bench/run.sh [docker|podman]     (default: docker)
# Environment: LATENCY_JOBS (30), CLI_LOOP (0 = the whole sequential CLI
# baseline; N = the first N, scaled), SECTIONS (latency,throughput,memory,sandboxes,data),
# HUMANEVAL (../shared/data/HumanEval.jsonl.gz), WAIT_JOBS (20), CONCURRENCY
# (jobs.max_concurrent of the server under test; 0 = one worker per core).
set -euo pipefail
cd "$(dirname "$0")/.."
engine="${1:-docker}"
sock=$("scripts/start-$engine.sh" | tail -n1)
images/build.sh --engine "$engine" >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCODERUNNER_TESTS=ON >/dev/null
cmake --build build -j"$(nproc)" --target coderunner coderunner-init wait_bench service_bench >/dev/null

dir=$(mktemp -d /tmp/coderunner-bench-XXXXXX)
port=18199
cat >"$dir/config.yaml" <<CFG
server: {listen: 127.0.0.1:$port}
engine: {socket: $sock}
workspace_dir: $dir/workspaces
data_dir: $dir/data
instance: bench
auth: {mode: none}
jobs: {max_queued: 2000, max_concurrent: ${CONCURRENCY:-0}}
artifacts: {dir: $dir/artifacts}
volumes: {dir: $dir/volumes}
CFG
# A second service on the same engine with its warm pool off: the cold path.
cold_port=18198
sed -e "s/:$port}/:$cold_port}/" -e "s/^instance: bench$/instance: bench-cold/" \
  -e "s#$dir/#$dir/cold-#g" "$dir/config.yaml" >"$dir/cold.yaml"
echo "pool: {enabled: false}" >>"$dir/cold.yaml"
# A third one, warm pool on, with python on the slim image (config alone):
# the data image's print(1+1) is compared with it in the same run.
slim_port=18197
sed -e "s/:$port}/:$slim_port}/" -e "s/^instance: bench$/instance: bench-slim/" \
  -e "s#$dir/#$dir/slim-#g" "$dir/config.yaml" >"$dir/slim.yaml"
# (The file's languages map replaces the built-in one: python is enough here.)
cat >>"$dir/slim.yaml" <<'CFG'
languages:
  python: {image: coderunner/python:3.11-slim, file: main.py, command: [python3, "{file}"], default: true}
CFG
build/coderunner serve --config "$dir/config.yaml" >"$dir/server.log" 2>&1 &
pid=$!
build/coderunner serve --config "$dir/cold.yaml" >"$dir/cold.log" 2>&1 &
cold_pid=$!
build/coderunner serve --config "$dir/slim.yaml" >"$dir/slim.log" 2>&1 &
slim_pid=$!
# The services make their artifacts and volumes dirs nosuid,nodev bind mounts.
trap 'kill $pid $cold_pid $slim_pid 2>/dev/null; wait $pid $cold_pid $slim_pid 2>/dev/null
  for m in "$dir"/{,cold-,slim-}{artifacts,volumes}; do umount -l "$m" 2>/dev/null; done; rm -rf "$dir"' EXIT
for p in $port $cold_port $slim_port; do
  for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$p/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
done

echo "== engine: $engine ($sock)"
build/bench/wait_bench --server "http://127.0.0.1:$port" --jobs "${WAIT_JOBS:-20}"

# Latency per language, HumanEval throughput and memory, each against
# baselines measured in this same run on this same engine.
humaneval="${HUMANEVAL:-../shared/data/HumanEval.jsonl.gz}"
if [[ -f "$humaneval" ]]; then zcat "$humaneval" >"$dir/humaneval.jsonl"; fi
build/bench/service_bench --server "http://127.0.0.1:$port" --socket "$sock" --engine "$engine" \
  --pid "$pid" --humaneval "$dir/humaneval.jsonl" --jobs "${LATENCY_JOBS:-30}" \
  --cli-loop "${CLI_LOOP:-0}" --cold-server "http://127.0.0.1:$cold_port" \
  --slim-server "http://127.0.0.1:$slim_port" --sections "${SECTIONS:-latency,throughput,memory,sandboxes,data}"
