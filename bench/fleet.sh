# bench/run.sh's fleet section (issue 19, "no coordination tax"), sourced by
# it after its config, derive, pg_node and cleanup: HumanEval's throughput
# through one node alone against two nodes behind HAProxy, on this machine.
#
# Same machine, so the same total workers: the node alone runs
# jobs.max_concurrent = W (CONCURRENCY, or one per core), each of the two
# nodes max(1, W/2). Otherwise every node has the bench's config (warm pool
# on, its defaults per node) and store.kind postgres on the cluster of
# run.sh: the node alone on database fleet1; the two on fleet2
# (FLEET_SHARED_DB=1, the default: the real test, one shared queue), or on
# fleet2a and fleet2b (FLEET_SHARED_DB=0: two independent nodes, which checks
# the harness alone; HAProxy then sends a job's later requests to the node
# that accepted it, by the id in the 202's body, or retries a 404 on the
# other node).
fleet_port=18192 solo_port=18191 fleet_a_port=18190 fleet_b_port=18189 fleet_dbs=()
if [[ $sections == *fleet* && -x $pgbin/initdb ]]; then
  command -v haproxy >/dev/null || { echo "bench: the fleet section needs haproxy (scripts/install-deps.sh)" >&2; exit 1; }
  workers=${CONCURRENCY:-0}
  ((workers > 0)) || workers=$(nproc)
  half=$((workers / 2 > 0 ? workers / 2 : 1))
  shared=${FLEET_SHARED_DB:-1}
  pg_node fleet-solo $solo_port bench-fleet-solo fleet1 "$workers"
  if [[ $shared == 1 ]]; then
    fleet_dbs=(fleet1 fleet2)
    pg_node fleet-a $fleet_a_port bench-fleet-a fleet2 "$half" "${FLEET_NODE_CONFIG:-}"
    pg_node fleet-b $fleet_b_port bench-fleet-b fleet2 "$half" "${FLEET_NODE_CONFIG:-}"
    label="two nodes of $half workers on one database (FLEET_SHARED_DB=1)"
  else
    fleet_dbs=(fleet1 fleet2a fleet2b)
    pg_node fleet-a $fleet_a_port bench-fleet-a fleet2a "$half" "${FLEET_NODE_CONFIG:-}"
    pg_node fleet-b $fleet_b_port bench-fleet-b fleet2b "$half" "${FLEET_NODE_CONFIG:-}"
    label="two independent nodes of $half workers, one database each (FLEET_SHARED_DB=0)"
  fi
  label="$label, behind haproxy; the node alone has $workers workers"
  fleet_args=(--solo-server "http://127.0.0.1:$solo_port" --fleet-server
    "http://127.0.0.1:$fleet_port" --fleet-rounds "${FLEET_ROUNDS:-3}" --fleet-label "$label")
  {
    cat <<HAP
global
  maxconn 4096
defaults
  mode http
  timeout connect 5s
  # A client waits up to 300 s on GET /v1/jobs/{id}/wait.
  timeout client 610s
  timeout server 610s
frontend fleet
  bind 127.0.0.1:$fleet_port
  default_backend nodes
backend nodes
  balance roundrobin
  option httpchk GET /readyz
HAP
    if [[ $shared != 1 ]]; then
      cat <<'HAP'
  # Independent nodes: a job's id (in the 202's body) sticks to its node.
  # The store rules may run before the body is there (about 1 job in 5
  # here), so a 404 is also retried on the other node.
  stick-table type string len 64 size 100k expire 1h
  http-response wait-for-body time 1s if { status 202 }
  stick store-response res.body,json_query('$.id') if { status 202 }
  stick match path,field(4,/)
  retry-on 404
  retries 3
  option redispatch 1
HAP
    fi
    echo "  server a 127.0.0.1:$fleet_a_port check inter 1s"
    echo "  server b 127.0.0.1:$fleet_b_port check inter 1s"
  } >"$dir/haproxy.cfg"
fi

# Runs HAProxy in the foreground as a child (killed by cleanup) once the
# nodes answer /readyz, and waits until it answers too.
start_balancer() {
  [[ -f $dir/haproxy.cfg ]] || return 0
  local p name
  # A node that did not come up would leave the other one alone behind the
  # balancer: a figure for the wrong setup.
  for name in fleet-solo:$solo_port fleet-a:$fleet_a_port fleet-b:$fleet_b_port; do
    p=${name#*:} name=${name%:*}
    if ! curl -fsS "http://127.0.0.1:$p/readyz" >/dev/null 2>&1; then
      echo "bench: the fleet node $name (:$p) is not ready; its log:" >&2
      tail -n 20 "$dir/$name.log" >&2
      return 1
    fi
  done
  haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do
    curl -fsS "http://127.0.0.1:$fleet_port/readyz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "bench: haproxy does not answer on $fleet_port" >&2
  cat "$dir/haproxy.log" >&2
  return 1
}

# Evidence of where the fleet's jobs went: the jobs each node finished (its
# coderunner_jobs_total), and the rows of each database by status and owner.
fleet_evidence() {
  local db p
  ((${#fleet_dbs[@]})) || return 0
  for p in $solo_port $fleet_a_port $fleet_b_port; do
    echo "  node on :$p finished $(curl -fsS "http://127.0.0.1:$p/metrics" |
      awk '/^coderunner_jobs_total[ {]/ {s += $NF} END {print s + 0}') jobs"
  done
  for db in "${fleet_dbs[@]}"; do
    echo "  fleet database $db: $(psql -d "$db" -tAc \
      "SELECT string_agg(n || ' ' || s, ', ') FROM (SELECT status || coalesce(nullif(' owner ' || owner, ' owner '), '') AS s, count(*) AS n FROM jobs GROUP BY 1) t") "
  done
}
