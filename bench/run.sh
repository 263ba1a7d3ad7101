#!/usr/bin/env bash
# Runs the benchmarks against a fresh coderunner on one engine.
#   bench/run.sh [docker|podman]     (default: docker)
# Environment: LATENCY_JOBS (30), CLI_LOOP (0 = the whole sequential CLI
# baseline; N = the first N, scaled), RAW_ROWS (20: HumanEval rows of the raw-API
# estimate in the batch section), SECTIONS (latency,throughput,memory,sandboxes,data,batch,judge,mcp,e2b,store,
# queue, packages, verify, edge; verify is Execute mode's verify step on 30 intents, off and on, against
# the scripted model (bench/verify_bench.py); queue alone needs no engine; edge stops the engine 20 s; also fleet, not in the
# default: three HumanEval rounds each on two more setups, minutes), QUEUE_ARGS (queue_bench's flags, e.g.
# "--processes 4 --workers 4 --jobs 20000 --sqlite-jobs 5000"),
# HUMANEVAL (../shared/data/HumanEval.jsonl.gz), WAIT_JOBS (20), CONCURRENCY
# (jobs.max_concurrent of the server under test; 0 = one worker per core),
# KEEP_LOGS (a dir: the services' and the cluster's logs are copied there),
# PG_OPTIONS (extra postgres options for the store section's cluster, for
# diagnosis only, e.g. "-c synchronous_commit=off" or "-c log_statement=all"),
# FLEET_ROUNDS (3: HumanEval rounds per side in the fleet section),
# FLEET_SHARED_DB (1: the fleet's two nodes share one database, the real test;
# 0: one database each, two independent nodes, to check the harness alone),
# FLEET_NODE_CONFIG (a YAML line appended to each of the two nodes' config,
# for diagnosis only, e.g. "pool: {size: 1, fill_parallelism: 1}").
set -euo pipefail
cd "$(dirname "$0")/.."
engine="${1:-docker}"
sections="${SECTIONS:-latency,throughput,memory,sandboxes,data,batch,judge,mcp,e2b,store,queue,packages,verify,edge}"
# The queue ceiling (issue 19): the job store driven directly on its own
# PostgreSQL cluster, no engine and no server.
if [[ $sections == *queue* ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCODERUNNER_TESTS=ON >/dev/null
  cmake --build build -j"$(nproc)" --target queue_bench >/dev/null
  # shellcheck disable=SC2086
  build/bench/queue_bench ${QUEUE_ARGS:-}
  rest=$(tr "," "\n" <<<"$sections" | { grep -vx queue || true; } | paste -sd, -)
  [[ -z $rest ]] && exit 0
fi
sock=$("scripts/start-$engine.sh" | tail -n1)
images/build.sh --engine "$engine" >/dev/null
if [[ $sections == *judge* ]]; then images/build-compilers.sh --engine "$engine" >/dev/null; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCODERUNNER_TESTS=ON >/dev/null
cmake --build build -j"$(nproc)" --target coderunner coderunner-init wait_bench service_bench edge_bench \
  batch_bench >/dev/null

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
# derive NAME PORT INSTANCE [WORKERS]: $dir/NAME.yaml, the config above on
# another port and instance, with its own dirs (prefixed NAME-) and, when
# given, WORKERS as jobs.max_concurrent; the caller appends to it.
derive() {
  sed -e "s/:$port}/:$2}/" -e "s/^instance: bench$/instance: $3/" \
    -e "s/max_concurrent: [0-9]*}/max_concurrent: ${4:-${CONCURRENCY:-0}}}/" \
    -e "s#$dir/#$dir/$1-#g" "$dir/config.yaml" >"$dir/$1.yaml"
}
# A second service on the same engine with its warm pool off: the cold path.
cold_port=18198
derive cold $cold_port bench-cold
echo "pool: {enabled: false}" >>"$dir/cold.yaml"
# A third one, warm pool on, with python on the slim image (config alone):
# the data image's print(1+1) is compared with it in the same run.
slim_port=18197
derive slim $slim_port bench-slim
# (The file's languages map replaces the built-in one: python is enough here.)
cat >>"$dir/slim.yaml" <<'CFG'
languages:
  python: {image: coderunner/python:3.11-slim, file: main.py, command: [python3, "{file}"], default: true}
CFG
pids=() ports=($port $cold_port $slim_port) store_args=() fleet_args=() pgdir=""
pgbin=/usr/lib/postgresql/15/bin
# The services make their artifacts and volumes dirs nosuid,nodev bind mounts.
cleanup() {
  set +e
  if [[ -n ${KEEP_LOGS:-} ]]; then
    cp "$dir"/*.log "$KEEP_LOGS"/ 2>/dev/null
    [[ -n $pgdir ]] && cp "$pgdir/server.log" "$KEEP_LOGS/postgres.log" 2>/dev/null
  fi
  kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
  [[ -d $dir/npm-mirror ]] && python3 tests/testdata/packages/npm_mirror.py stop --dir "$dir/npm-mirror"
  for m in "$dir"/*{artifacts,volumes}; do umount -l "$m" 2>/dev/null; done; rm -rf "$dir"
  if [[ -n $pgdir ]]; then
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1
    rm -rf "$pgdir"
  fi
}
trap cleanup EXIT
# A throwaway PostgreSQL 15 cluster for the store and fleet sections, started
# once (fsync on, the default: a production-like commit), over a Unix socket
# only. initdb and postgres refuse root: they run as the postgres user.
psql() { runuser -u postgres -- "$pgbin/psql" -h "$pgdir" -U postgres "$@"; }
start_postgres() {
  [[ -n $pgdir ]] && return
  pgdir=$(mktemp -d /tmp/coderunner-bench-pg-XXXXXX)
  chown postgres: "$pgdir"
  runuser -u postgres -- "$pgbin/initdb" -D "$pgdir/data" --auth=trust -U postgres -E UTF8 >/dev/null
  runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories=$pgdir ${PG_OPTIONS:-}" start >/dev/null
}
# pg_node NAME PORT INSTANCE DATABASE [WORKERS [LINE]]: a service on PORT
# (config derived as NAME.yaml, LINE appended) with store.kind postgres on
# DATABASE of the cluster above, created if missing.
pg_node() {
  local name=$1 p=$2 instance=$3 db=$4
  start_postgres
  [[ -n $(psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'") ]] ||
    psql -d postgres -qc "CREATE DATABASE $db"
  derive "$name" "$p" "$instance" "${5:-}"
  echo "store: {kind: postgres, url: \"host=$pgdir user=postgres dbname=$db\"}" >>"$dir/$name.yaml"
  [[ -z ${6:-} ]] || echo "$6" >>"$dir/$name.yaml"
  build/coderunner serve --config "$dir/$name.yaml" >"$dir/$name.log" 2>&1 &
  pids+=($!)
  ports+=("$p")
}
# The store section (issue 19): two more services, warm pool on, identical
# but for store.kind: sqlite, and postgres.
if [[ $sections == *store* && -x $pgbin/initdb ]]; then
  sqlite_port=18196 pg_port=18195
  derive sqlite $sqlite_port bench-sqlite
  echo "store: {kind: sqlite}" >>"$dir/sqlite.yaml"
  build/coderunner serve --config "$dir/sqlite.yaml" >"$dir/sqlite.log" 2>&1 &
  pids+=($!)
  ports+=($sqlite_port)
  pg_node pg $pg_port bench-pg coderunner
  store_args=(--sqlite-server "http://127.0.0.1:$sqlite_port" --pg-server "http://127.0.0.1:$pg_port")
fi
# The packages section (issue 36): the main service installs from a PEP 503
# index of small wheels (the tests' own), served on loopback.
if [[ $sections == *packages* ]]; then
  python3 tests/testdata/packages/make_python_mirror.py "$dir/mirror"
  chmod o+x "$dir"  # Each install runs as a uid of its own below it.
  python3 -m http.server 18194 --bind 127.0.0.1 --directory "$dir/mirror" >"$dir/mirror.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do curl -fsS http://127.0.0.1:18194/simple/ >/dev/null 2>&1 && break; sleep 0.1; done
  # And from a verdaccio of the tests' own npm packages (scripts/install-deps.sh
  # installs it).
  python3 tests/testdata/packages/npm_mirror.py start --verdaccio-dir /var/cache/coderunner/npm-mirror \
    --dir "$dir/npm-mirror" --port 18193 >/dev/null
  echo "packages: {dir: $dir/packages, python_index_url: \"http://127.0.0.1:18194/simple/\"," \
    "npm_registry_url: \"http://127.0.0.1:18193/\"}" >>"$dir/config.yaml"
fi
# The batch section (issue 38): two more services, each with four tenants
# (a flooder and three others) on a tier of their own that differs only in
# container_reuse.
batch_keys=(flood-key-0123456789 a-key-0123456789 b-key-0123456789 c-key-0123456789)
if [[ $sections == *batch* ]]; then
  for mode in default reuse; do
    bp=$([[ $mode == default ]] && echo 18192 || echo 18191)
    derive "batch-$mode" "$bp" "bench-batch-$mode"
    sed -i '/^auth: {mode: none}$/d' "$dir/batch-$mode.yaml"
    {
      echo "auth:"
      echo "  mode: api_keys"
      echo "  keys:"
      for k in "${batch_keys[@]}"; do
        echo "    - {tenant: ${k%%-*}, tier: batch, key_sha256: \"$(printf %s "$k" | sha256sum | cut -c1-64)\"}"
      done
      echo "tiers: {batch: {max_concurrent: 16, max_queued: 1000, requests_per_minute: 1000000," \
        "container_reuse: $([[ $mode == reuse ]] && echo true || echo false)}}"
    } >>"$dir/batch-$mode.yaml"
    build/coderunner serve --config "$dir/batch-$mode.yaml" >"$dir/batch-$mode.log" 2>&1 &
    pids+=($!)
    ports+=("$bp")
  done
fi
source bench/fleet.sh
build/coderunner serve --config "$dir/config.yaml" >"$dir/server.log" 2>&1 &
pid=$!
build/coderunner serve --config "$dir/cold.yaml" >"$dir/cold.log" 2>&1 &
cold_pid=$!
build/coderunner serve --config "$dir/slim.yaml" >"$dir/slim.log" 2>&1 &
slim_pid=$!
pids+=($pid $cold_pid $slim_pid)
for p in "${ports[@]}"; do
  for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$p/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
done
start_balancer

echo "== engine: $engine ($sock)"
build/bench/wait_bench --server "http://127.0.0.1:$port" --jobs "${WAIT_JOBS:-20}"

# Latency per language, HumanEval throughput and memory, each against
# baselines measured in this same run on this same engine.
humaneval="${HUMANEVAL:-../shared/data/HumanEval.jsonl.gz}"
if [[ -f "$humaneval" ]]; then zcat "$humaneval" >"$dir/humaneval.jsonl"; fi
build/bench/service_bench --server "http://127.0.0.1:$port" --socket "$sock" --engine "$engine" \
  --pid "$pid" --humaneval "$dir/humaneval.jsonl" --jobs "${LATENCY_JOBS:-30}" \
  --cli-loop "${CLI_LOOP:-0}" --cold-server "http://127.0.0.1:$cold_port" \
  --slim-server "http://127.0.0.1:$slim_port" --sections "$sections" "${store_args[@]}" \
  "${fleet_args[@]}"
if [[ $sections == *store* && -n $pgdir ]]; then
  # Evidence that the postgres service stored its jobs there.
  echo "  postgres jobs table: $(psql -d coderunner -tAc "SELECT count(*) FROM jobs") rows"
fi
fleet_evidence
# Batch throughput and the flood (issue 38): one container per job against
# container reuse, and both against the raw engine API.
if [[ $sections == *batch* ]]; then
  build/bench/batch_bench --default-server http://127.0.0.1:18192 --reuse-server http://127.0.0.1:18191 \
    --socket "$sock" --humaneval "$dir/humaneval.jsonl" --raw-rows "${RAW_ROWS:-20}"
fi
# Execute mode's verify step (issue 37): 30 intents with a known answer,
# verify off (the baseline) and checks, with the scripted model.
if [[ $sections == *verify* ]]; then
  cmake --build build -j"$(nproc)" --target fake_llm_server >/dev/null
  python3 bench/verify_bench.py --coderunner build/coderunner \
    --fake-llm build/tests/fake_llm/fake_llm_server --socket "$sock"
fi
# The edge under load and faults (issue 30), last: it stops the engine.
if [[ $sections == *edge* ]]; then
  build/bench/edge_bench --server "http://127.0.0.1:$port" --pid "$pid" \
    --engine-pid "$(cat "/run/coderunner/$engine.pid")" --humaneval "$dir/humaneval.jsonl"
fi
