#!/usr/bin/env bash
# Compose stage of the test suite: builds the service image offline, then for
# each engine brings compose/compose.yaml up (docker-compose 1.29 against
# our dockerd, podman-compose 1.0.3 against our Podman service), waits for
# /readyz, runs jobs through the HTTP API, checks the healthcheck, tears the
# stack down and checks nothing is left (containers, volumes, networks).
# The stack "fleet" (compose/fleet.yaml: PostgreSQL, a node on each engine,
# HAProxy) is scripts/compose-fleet-test.sh, run after the others.
#
#   scripts/compose-test.sh [--build-dir build] [docker] [podman] [fleet]
#
# No stack named: docker and podman (not fleet).
#
# Needs root, the packages from scripts/install-deps.sh, and built coderunner
# and coderunner-init targets in the build dir. The stack listens on
# 127.0.0.1:$CODERUNNER_COMPOSE_PORT (default 18080) through host networking,
# with its own state dir, config (a fresh API key) and instance label, so it
# never meets the integration tests' services.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
port=${CODERUNNER_COMPOSE_PORT:-18080}

build_dir=build engines=() fleet=0
while (($#)); do
  case $1 in
    --build-dir) build_dir=${2:?--build-dir DIR}; shift 2 ;;
    docker | podman) engines+=("$1"); shift ;;
    fleet) fleet=1; shift ;;
    *) echo "usage: $0 [--build-dir DIR] [docker] [podman] [fleet]" >&2; exit 2 ;;
  esac
done
((${#engines[@]} || fleet)) || engines=(docker podman)
# run_fleet: the fleet stack, with its own images, state dirs and projects.
run_fleet() {
  local s; s=$(date +%s)
  scripts/compose-fleet-test.sh --build-dir "$build_dir" || exit 1
  echo "compose-test: fleet stack passed in $(($(date +%s) - s))s"
}
if ((${#engines[@]} == 0)); then
  run_fleet
  exit 0
fi

t0=$(date +%s)
step() { echo "compose-test: $* (+$(($(date +%s) - t0))s)"; }
fail() { echo "compose-test: FAILED: $*" >&2; exit 1; }

declare -A sock
sock[docker]=$(scripts/start-docker.sh | tail -n1)
sock[podman]=$(scripts/start-podman.sh | tail -n1)
# The podman CLI that podman-compose drives must use the same config, and
# so the same storage, as the API service: that is where the image is.
export CONTAINERS_CONF=$root/config/engines/containers.conf

# The runtime images (cached: seconds) and the service image.
engine_flags=()
for e in "${engines[@]}"; do engine_flags+=(--engine "$e"); done
images/build.sh "${engine_flags[@]}"
images/build-compilers.sh "${engine_flags[@]}"
s=$(date +%s)
images/build-service.sh --build-dir "$build_dir" "${engine_flags[@]}"
step "service image ready in $(($(date +%s) - s))s"

# A fresh state dir, config and key. The key exists only in this process.
work=$(mktemp -d /var/tmp/coderunner-compose-test.XXXXXX)
state=$(mktemp -d /var/lib/coderunner-compose-test.XXXXXX)
chmod 0755 "$state"
# Every job's /output lies below it: nosuid,nodev on the host, as the
# service (which cannot mount from its container) requires.
mount --bind "$state" "$state" && mount -o remount,bind,nosuid,nodev "$state"
project='' up_engine=''
# On any exit: a stack still up (a failed check) goes down, what it left is
# removed (found by our project and instance labels only), dirs go.
cleanup() {
  if [[ -n $up_engine ]]; then
    compose "$up_engine" down -v -t 30 >/dev/null 2>&1 || true
    remove_leftovers "$up_engine"
  fi
  umount -l "$state" 2>/dev/null || true
  rm -rf "$work" "$state"
}
trap cleanup EXIT
key=$(head -c 32 /dev/urandom | base64 | tr -d '/+=')
key_sha=$(printf %s "$key" | sha256sum | cut -d' ' -f1)
sed -e "s#/var/lib/coderunner/#$state/#" -e "s#127\.0\.0\.1:18080#127.0.0.1:$port#" \
  -e 's#^instance: compose$#instance: compose-test#' \
  -e "s#^  keys: \[\]\$#  keys: [{tenant: ci, tier: pro, key_sha256: \"$key_sha\"}]#" \
  compose/coderunner.yaml >"$work/coderunner.yaml"
for want in "$state/workspaces" "127.0.0.1:$port" "instance: compose-test" "$key_sha"; do
  grep -qF "$want" "$work/coderunner.yaml" || fail "compose/coderunner.yaml changed shape: no '$want' after substitution"
done

export CODERUNNER_STATE_DIR=$state CODERUNNER_CONFIG_FILE=$work/coderunner.yaml CODERUNNER_PORT=$port
url=http://127.0.0.1:$port

# api METHOD PATH [JSON]: the body on stdout; fails on an HTTP error.
api() {
  curl -fsS --max-time 60 -X "$1" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' ${3:+--data-binary "$3"} "$url$2"
}

# engine_cli ENGINE ARGS...: docker or podman CLI on the engine under test.
engine_cli() {
  local e=$1; shift
  if [[ $e == podman ]]; then podman "$@"; else docker -H "unix://${sock[docker]}" "$@"; fi
}

# compose ENGINE ARGS...: the engine's compose tool on compose/compose.yaml.
# podman-compose 1.0.3 goes through compose/podman-hostnet (host networking).
compose() {
  local e=$1; shift
  if [[ $e == podman ]]; then
    podman-compose --podman-path "$root/compose/podman-hostnet" -p "$project" -f compose/compose.yaml "$@"
  else
    DOCKER_HOST="unix://${sock[docker]}" docker-compose -p "$project" -f compose/compose.yaml "$@"
  fi
}

# leftovers ENGINE: what the stack and its jobs left on the engine.
leftovers() {
  local e=$1
  engine_cli "$e" ps -aq --filter "label=com.docker.compose.project=$project"
  engine_cli "$e" ps -aq --filter "label=io.coderunner.instance=compose-test"
  engine_cli "$e" volume ls -q --filter "label=com.docker.compose.project=$project"
  engine_cli "$e" volume ls -q --filter "label=io.coderunner.instance=compose-test"
  engine_cli "$e" network ls -q --filter "label=com.docker.compose.project=$project"
}

remove_leftovers() {
  local e=$1 ids
  mapfile -t ids < <(engine_cli "$e" ps -aq --filter "label=com.docker.compose.project=$project"
    engine_cli "$e" ps -aq --filter "label=io.coderunner.instance=compose-test")
  ((${#ids[@]} == 0)) || engine_cli "$e" rm -f "${ids[@]}" >/dev/null 2>&1 || true
  mapfile -t ids < <(engine_cli "$e" volume ls -q --filter "label=com.docker.compose.project=$project"
    engine_cli "$e" volume ls -q --filter "label=io.coderunner.instance=compose-test")
  ((${#ids[@]} == 0)) || engine_cli "$e" volume rm -f "${ids[@]}" >/dev/null 2>&1 || true
  mapfile -t ids < <(engine_cli "$e" network ls -q --filter "label=com.docker.compose.project=$project")
  ((${#ids[@]} == 0)) || engine_cli "$e" network rm "${ids[@]}" >/dev/null 2>&1 || true
}

jobs_check() {
  local out
  # 1. The plain path: stdout comes back.
  out=$(api POST /v1/execute '{"language":"python","code":"print(1+1)"}')
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["status"]=="succeeded" and r["stdout"]=="2\n", r' "$out" ||
    fail "print(1+1): $out"
  # 2. Input files (workspace_dir) in, an artifact (artifacts.dir) out: both
  # are bind mounts the engine resolves on the host.
  out=$(api POST /v1/execute '{"language":"python",
    "code":"open(\"/output/result.txt\",\"w\").write(open(\"data.txt\").read().upper())",
    "files":[{"path":"data.txt","content":"from the host\n"}]}')
  local id
  id=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["status"]=="succeeded", r
assert [a["path"] for a in r["artifacts"]]==["result.txt"], r; print(r["id"])' "$out") ||
    fail "files + /output: $out"
  [[ $(api GET "/v1/jobs/$id/artifacts/result.txt") == "FROM THE HOST" ]] || fail "artifact content"
  # 3. A bash job: another runtime image on the same engine.
  # shellcheck disable=SC2016 # $((...)) is for the job's bash
  out=$(api POST /v1/execute '{"language":"bash","code":"echo $((6*7))"}')
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["stdout"]=="42\n", r' "$out" ||
    fail "bash: $out"
  # 4. A persistent volume: an engine volume bound to a dir under
  # volumes.dir (host path again), written by one job, read by the API.
  local vol
  vol=$(api POST /v1/volumes '{"size_bytes":1048576}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') ||
    fail "volume create"
  out=$(api POST /v1/execute "{\"language\":\"python\",\"volume_id\":\"$vol\",
    \"code\":\"open('/output/kept.txt','w').write('kept')\"}")
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["status"]=="succeeded", r' "$out" ||
    fail "job with volume: $out"
  [[ $(api GET "/v1/volumes/$vol/files/kept.txt") == kept ]] || fail "volume file"
  api DELETE "/v1/volumes/$vol" >/dev/null || fail "volume delete"
  # 5. The /output guard sees into the jobs' containers from the service's
  # own (pid: host, SYS_PTRACE): files written after their names were
  # removed still count against the caps.
  out=$(api POST /v1/execute "$(python3 -c 'import json,sys
print(json.dumps({"language": "python", "cache": False, "code": open(sys.argv[1]).read()}))' \
    "$root/tests/hostile/output_unlinked_held.py")")
  python3 -c 'import json,sys; r=json.loads(sys.argv[1])
assert r["status"]=="failed" and r["error"]["code"]=="artifact_too_large", r' "$out" ||
    fail "unlinked files in /output: ${out:0:500}"
}

# The entrypoint's guard on its own, on the first engine: a config path the
# engine would resolve elsewhere (or no bind mount at all) must stop it.
guard_check() {
  local e=$1 msg
  sed "s#^workspace_dir: .*#workspace_dir: /srv/elsewhere#" "$work/coderunner.yaml" >"$work/bad.yaml"
  msg=$(engine_cli "$e" run --rm --network none -e "CODERUNNER_STATE_DIR=$state" -v "$state:$state" \
    -v "$work/bad.yaml:/etc/coderunner/coderunner.yaml:ro" coderunner/coderunner:latest 2>&1) &&
    fail "$e: the entrypoint accepted workspace_dir outside $state"
  [[ $msg == *"is outside $state"* ]] || fail "$e: entrypoint said: $msg"
  msg=$(engine_cli "$e" run --rm --network none -e "CODERUNNER_STATE_DIR=$state" \
    -v "$work/coderunner.yaml:/etc/coderunner/coderunner.yaml:ro" coderunner/coderunner:latest 2>&1) &&
    fail "$e: the entrypoint started without $state mounted"
  [[ $msg == *"is not a mount"* ]] || fail "$e: entrypoint said: $msg"
  sed "/^workspace_dir: /d" "$work/coderunner.yaml" >"$work/bad.yaml"
  msg=$(engine_cli "$e" run --rm --network none -e "CODERUNNER_STATE_DIR=$state" -v "$state:$state" \
    -v "$work/bad.yaml:/etc/coderunner/coderunner.yaml:ro" coderunner/coderunner:latest 2>&1) &&
    fail "$e: the entrypoint accepted a config without workspace_dir"
  [[ $msg == *"set workspace_dir"* ]] || fail "$e: entrypoint said: $msg"
}
guard_check "${engines[0]}"
step "${engines[0]}: the entrypoint refuses a config path outside the state dir or unset, and a missing mount"

for e in "${engines[@]}"; do
  project=coderunner-compose-test-$e
  export CODERUNNER_ENGINE_SOCKET=${sock[$e]}
  if curl -s --max-time 2 -o /dev/null "$url/healthz"; then
    fail "something already listens on 127.0.0.1:$port; set CODERUNNER_COMPOSE_PORT"
  fi
  [[ -z $(leftovers "$e") ]] || fail "$e: leftovers of an earlier run: $(leftovers "$e" | tr '\n' ' ')"
  s=$(date +%s)
  up_engine=$e
  compose "$e" up -d >"$work/$e-up.log" 2>&1 || { cat "$work/$e-up.log" >&2; fail "$e: up"; }
  ok=0
  for _ in $(seq 120); do # ~60 s
    if curl -fsS --max-time 2 -o /dev/null "$url/readyz" 2>/dev/null; then ok=1; break; fi
    sleep 0.5
  done
  ready=$(($(date +%s) - s))
  ctr=$(engine_cli "$e" ps -q --filter "label=com.docker.compose.project=$project")
  if ((ok)); then
    if ! (jobs_check); then ok=0; fi
  else
    echo "compose-test: $e: /readyz did not answer 200 within 60 s" >&2
  fi
  # The image's healthcheck itself: Podman runs it on demand; Docker runs it
  # every interval, so wait for its first verdict.
  if ((ok)); then
    if [[ $e == podman ]]; then
      podman healthcheck run "$ctr" || { echo "compose-test: podman healthcheck failed" >&2; ok=0; }
    else
      health=starting
      for _ in $(seq 40); do
        health=$(engine_cli docker inspect --format '{{.State.Health.Status}}' "$ctr")
        [[ $health == starting ]] || break
        sleep 1
      done
      [[ $health == healthy ]] || { echo "compose-test: docker health is $health" >&2; ok=0; }
    fi
  fi
  jobs_done=$(($(date +%s) - s))
  ((ok)) || engine_cli "$e" logs "$ctr" 2>&1 | tail -n 40 >&2 || true
  # Stop timeout: the service removes its warm pool's containers on SIGTERM.
  compose "$e" down -v -t 30 >"$work/$e-down.log" 2>&1 || { cat "$work/$e-down.log" >&2; ok=0; }
  up_engine=''
  left=$(leftovers "$e")
  if [[ -n $left ]]; then
    echo "compose-test: $e: left behind after down: $(echo "$left" | tr '\n' ' ')" >&2
    remove_leftovers "$e"
    ok=0
  fi
  ((ok)) || fail "$e stack"
  step "$e: up->ready ${ready}s, ->jobs+health $((jobs_done))s, ->down $(($(date +%s) - s))s"
done
((fleet == 0)) || run_fleet
step "all compose stacks passed"
