#!/usr/bin/env bash
# The compose stack "fleet" (compose/fleet.yaml): PostgreSQL, node-docker
# and HAProxy on Docker (docker-compose 1.29), node-podman on Podman
# (podman-compose 1.0.3 through compose/podman-hostnet), one shared
# database. Brings it up, waits until HAProxy has both nodes in rotation,
# runs $CODERUNNER_FLEET_JOBS (20) jobs through the balancer, checks each
# one's stdout, that both nodes served some (HAProxy's X-Coderunner-Node
# response header) and that every job is a succeeded row in the shared
# database, reads each job back through the balancer, tears both projects
# down and checks nothing is left (containers, volumes, networks).
#
#   scripts/compose-fleet-test.sh [--build-dir build]
#
# Run by scripts/compose-test.sh (stack "fleet"), which builds the runtime
# images first. Ports: the balancer on 127.0.0.1:$CODERUNNER_COMPOSE_PORT
# (18080), the nodes on 18081 and 18082 (compose/haproxy.cfg), PostgreSQL on
# $CODERUNNER_FLEET_PG_PORT (15432); all host networking.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
port=${CODERUNNER_COMPOSE_PORT:-18080}
pg_port=${CODERUNNER_FLEET_PG_PORT:-15432}
n_jobs=${CODERUNNER_FLEET_JOBS:-20}
project=coderunner-fleet-test

build_dir=build
while (($#)); do
  case $1 in
    --build-dir) build_dir=${2:?--build-dir DIR}; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR]" >&2; exit 2 ;;
  esac
done

t0=$(date +%s)
step() { echo "compose-test: fleet: $* (+$(($(date +%s) - t0))s)"; }
fail() { echo "compose-test: fleet: FAILED: $*" >&2; exit 1; }

declare -A sock
sock[docker]=$(scripts/start-docker.sh | tail -n1)
sock[podman]=$(scripts/start-podman.sh | tail -n1)
export CONTAINERS_CONF=$root/config/engines/containers.conf
s=$(date +%s)
images/build.sh --engine docker --engine podman
images/build-compilers.sh --engine docker --engine podman
images/build-service.sh --build-dir "$build_dir" --engine docker --engine podman
images/build-fleet.sh --engine docker
step "images ready in $(($(date +%s) - s))s"

engine_cli() {
  local e=$1; shift
  if [[ $e == podman ]]; then podman "$@"; else docker -H "unix://${sock[docker]}" "$@"; fi
}
# compose ENGINE ARGS...: that engine's compose tool on compose/fleet.yaml.
compose() {
  local e=$1; shift
  if [[ $e == podman ]]; then
    podman-compose --podman-path "$root/compose/podman-hostnet" -p "$project" -f compose/fleet.yaml "$@"
  else
    DOCKER_HOST="unix://${sock[docker]}" docker-compose -p "$project" -f compose/fleet.yaml "$@"
  fi
}
# ids ENGINE: every container, volume and network of the project or of a
# node's instance on that engine, as "kind id" lines.
ids() {
  local e=$1 f
  for f in "label=com.docker.compose.project=$project" "label=io.coderunner.instance=fleet-test-$e"; do
    engine_cli "$e" ps -aq --filter "$f" | sed 's/^/container /'
    engine_cli "$e" volume ls -q --filter "$f" | sed 's/^/volume /'
  done
  engine_cli "$e" network ls -q --filter "label=com.docker.compose.project=$project" | sed 's/^/network /'
}
remove_leftovers() {
  local e=$1 kind id
  while read -r kind id; do
    case $kind in
      container) engine_cli "$e" rm -f "$id" ;;
      volume) engine_cli "$e" volume rm -f "$id" ;;
      network) engine_cli "$e" network rm "$id" ;;
    esac >/dev/null 2>&1 || true
  done < <(ids "$e")
}

work=$(mktemp -d /var/tmp/coderunner-fleet-test.XXXXXX)
declare -A state
up=0
cleanup() {
  if ((up)); then
    compose podman down -v -t 30 >/dev/null 2>&1 || true
    compose docker down -v -t 30 >/dev/null 2>&1 || true
    remove_leftovers podman
    remove_leftovers docker
  fi
  local d
  for d in "${state[@]}"; do umount -l "$d" 2>/dev/null || true; rm -rf "$d"; done
  rm -rf "$work"
}
trap cleanup EXIT
for e in docker podman; do
  [[ -z $(ids "$e") ]] || fail "$e: leftovers of an earlier run: $(ids "$e" | tr '\n' ' ')"
done
if curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$port/healthz"; then
  fail "something already listens on 127.0.0.1:$port; set CODERUNNER_COMPOSE_PORT"
fi

# Per node: a state dir (nosuid,nodev, as the service requires) and a
# config from compose/fleet-node-ENGINE.yaml with it, the test's instance,
# the database port and a random key's hash (the same key on both nodes).
key=$(head -c 32 /dev/urandom | base64 | tr -d '/+=')
key_sha=$(printf %s "$key" | sha256sum | cut -d' ' -f1)
for e in docker podman; do
  d=$(mktemp -d "/var/lib/coderunner-fleet-test-$e.XXXXXX")
  state[$e]=$d
  chmod 0755 "$d"
  mount --bind "$d" "$d" && mount -o remount,bind,nosuid,nodev "$d"
  sed -e "s#/var/lib/coderunner-$e/#$d/#" -e "s#^instance: fleet-$e\$#instance: fleet-test-$e#" \
    -e "s#port=15432 #port=$pg_port #" \
    -e "s#^  keys: \[\]\$#  keys: [{tenant: ci, tier: pro, key_sha256: \"$key_sha\"}]#" \
    "compose/fleet-node-$e.yaml" >"$work/node-$e.yaml"
  for want in "$d/workspaces" "instance: fleet-test-$e" "port=$pg_port " "$key_sha"; do
    grep -qF "$want" "$work/node-$e.yaml" || fail "compose/fleet-node-$e.yaml changed shape: no '$want' after substitution"
  done
done
CODERUNNER_FLEET_PG_PASSWORD=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
export CODERUNNER_FLEET_PG_PASSWORD
export CODERUNNER_FLEET_PG_PORT=$pg_port CODERUNNER_FLEET_PORT=$port
export CODERUNNER_DOCKER_SOCKET=${sock[docker]} CODERUNNER_PODMAN_SOCKET=${sock[podman]}
export CODERUNNER_DOCKER_STATE_DIR=${state[docker]} CODERUNNER_PODMAN_STATE_DIR=${state[podman]}
export CODERUNNER_DOCKER_CONFIG_FILE=$work/node-docker.yaml CODERUNNER_PODMAN_CONFIG_FILE=$work/node-podman.yaml
url=http://127.0.0.1:$port

# until SECONDS CMD...: runs CMD every 0.5 s until it succeeds; fails after.
until_ok() {
  local n=$(($1 * 2)); shift
  for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  return 1
}
psql_fleet() {
  engine_cli docker exec -i -u postgres "$pg_ctr" psql -h /run/postgresql -p "$pg_port" -U postgres -d coderunner -tAq "$@"
}

# Up: the database first (the nodes exit until it answers), then the nodes
# on their engines, then the balancer.
s=$(date +%s)
up=1
compose docker up -d postgres >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "up postgres"; }
pg_ctr=$(engine_cli docker ps -q --filter "label=com.docker.compose.project=$project" \
  --filter "label=com.docker.compose.service=postgres")
until_ok 60 engine_cli docker exec "$pg_ctr" pg_isready -q -h 127.0.0.1 -p "$pg_port" ||
  { engine_cli docker logs "$pg_ctr" 2>&1 | tail -n 20 >&2; fail "postgres not ready within 60 s"; }
step "postgres ready in $(($(date +%s) - s))s"
compose docker up -d node-docker haproxy >>"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "up node-docker haproxy"; }
compose podman up -d node-podman >>"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "up node-podman"; }

# Ready: HAProxy answers /readyz and has put BOTH nodes in rotation (each
# one's name came back in X-Coderunner-Node).
declare -A seen=()
both_ready() {
  local node
  node=$(curl -fsS --max-time 2 -o /dev/null -D - "$url/readyz" | tr -d '\r' |
    sed -n 's/^[Xx]-[Cc]oderunner-[Nn]ode: //p')
  [[ -n $node ]] && seen[$node]=1
  [[ -n ${seen[node-docker]:-} && -n ${seen[node-podman]:-} ]]
}
ok=1
for _ in $(seq 180); do both_ready 2>/dev/null && break; sleep 0.5; done
[[ -n ${seen[node-docker]:-} && -n ${seen[node-podman]:-} ]] || {
  echo "compose-test: fleet: the balancer did not have both nodes ready within 90 s (seen: ${!seen[*]})" >&2
  ok=0
}
step "up->both nodes ready through haproxy $(($(date +%s) - s))s"

# run_job I: print(I*I+1) through the balancer; writes "node id" to
# $work/r.I after checking the status and stdout. One file per job: four
# writers sharing one output file can interleave their pieces (a CI run
# read "node-podmannode-docker job-..." and " job-..." back).
run_job() {
  local i=$1 out
  out=$(curl -fsS --max-time 60 -D "$work/h.$i" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' \
    --data-binary "{\"language\":\"python\",\"code\":\"print($i*$i+1)\"}" "$url/v1/execute") ||
    { echo "job $i: HTTP error" >&2; return 1; }
  local node
  node=$(tr -d '\r' <"$work/h.$i" | sed -n 's/^[Xx]-[Cc]oderunner-[Nn]ode: //p')
  [[ -n $node ]] || { echo "job $i: no X-Coderunner-Node header" >&2; return 1; }
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); i=int(sys.argv[2])
assert r["status"]=="succeeded" and r["stdout"]==f"{i*i+1}\n", r
print(sys.argv[3], r["id"])' "$out" "$i" "$node" >"$work/r.$i" || { echo "job $i: $out" >&2; return 1; }
}
export -f run_job
export key url work
jobs_check() {
  local results node id
  # Four at a time: both nodes get concurrent work.
  seq "$n_jobs" | xargs -P4 -I{} bash -c 'run_job {}' ||
    { echo "compose-test: fleet: a job failed" >&2; return 1; }
  cat "$work"/r.* >"$work/results"
  (($(wc -l <"$work/results") == n_jobs)) || { echo "compose-test: fleet: $(wc -l <"$work/results") of $n_jobs results" >&2; return 1; }
  # Both nodes ran some (round robin: about half each).
  results=$(cut -d' ' -f1 "$work/results" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')
  for node in node-docker node-podman; do
    grep -q "^$node " "$work/results" || { echo "compose-test: fleet: $node served none: $results" >&2; return 1; }
  done
  step "$n_jobs jobs through haproxy, all succeeded with their stdout; served: $results"
  # Both wrote to the shared database: every job is a succeeded row.
  local list rows
  list=$(cut -d' ' -f2 "$work/results" | sed "s/.*/'&'/" | paste -sd,)
  rows=$(psql_fleet -c "SELECT count(*) FROM jobs WHERE status = 'succeeded' AND id IN ($list)")
  ((rows == n_jobs)) || { echo "compose-test: fleet: $rows succeeded rows in PostgreSQL, want $n_jobs" >&2; return 1; }
  # And either node reads any job back: GET through the balancer, which
  # alternates, so some reads land on the node that did not run the job.
  local cross=0 out reader
  while read -r node id; do
    if ! out=$(curl -fsS --max-time 10 -D "$work/h.get" -H "Authorization: Bearer $key" "$url/v1/jobs/$id") ||
      ! python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["status"]=="succeeded", r' "$out"; then
      echo "compose-test: fleet: GET $id (ran on $node) through the balancer: $out" >&2
      return 1
    fi
    reader=$(tr -d '\r' <"$work/h.get" | sed -n 's/^[Xx]-[Cc]oderunner-[Nn]ode: //p')
    [[ $reader == "$node" ]] || cross=$((cross + 1))
  done <"$work/results"
  ((cross > 0)) || { echo "compose-test: fleet: no job was read back by the other node" >&2; return 1; }
  step "PostgreSQL holds $rows succeeded rows; every job reads back through the balancer ($cross by the other node)"
}
if ((ok)); then
  jobs_check || ok=0
fi
jobs_done=$(($(date +%s) - s))
if ((!ok)); then
  for svc in postgres node-docker haproxy; do
    echo "--- $svc" >&2
    engine_cli docker logs "$(engine_cli docker ps -aq --filter "label=com.docker.compose.project=$project" \
      --filter "label=com.docker.compose.service=$svc")" 2>&1 | tail -n 20 >&2 || true
  done
  echo "--- node-podman" >&2
  engine_cli podman logs "$(engine_cli podman ps -aq --filter "label=com.docker.compose.project=$project")" 2>&1 |
    tail -n 20 >&2 || true
fi

# Down: each node removes its warm pool on SIGTERM; -v drops the volumes.
d=$(date +%s)
compose podman down -v -t 30 >"$work/down.log" 2>&1 || { cat "$work/down.log" >&2; ok=0; }
step "podman down $(($(date +%s) - d))s"
d=$(date +%s)
compose docker down -v -t 30 >>"$work/down.log" 2>&1 || { cat "$work/down.log" >&2; ok=0; }
step "docker down $(($(date +%s) - d))s"
up=0
for e in docker podman; do
  left=$(ids "$e")
  if [[ -n $left ]]; then
    echo "compose-test: fleet: $e: left behind after down: $(echo "$left" | tr '\n' ' ')" >&2
    remove_leftovers "$e"
    ok=0
  fi
done
((ok)) || fail "fleet stack"
step "up->jobs ${jobs_done}s, ->down $(($(date +%s) - s))s; nothing left on either engine"
