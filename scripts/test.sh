#!/usr/bin/env bash
# Runs the whole test suite: build, unit tests, the integration suite on
# BOTH engines (Docker Engine and Podman), the hardening and adversarial
# suites again with every job under gVisor (runsc) on Docker, the compose
# deployment on both engines and the fleet (PostgreSQL, a node on each
# engine, HAProxy), then unit and Docker integration tests under
# ASan+UBSan, then every fuzzer for a bounded time.
# Starts the engines and builds the runtime images if needed (offline).
#
#   scripts/test.sh            # everything
#   SKIP_SANITIZERS=1 scripts/test.sh   # skip the ASan+UBSan tests
#   SKIP_FUZZ=1 scripts/test.sh         # skip the bounded fuzzing pass
#   SKIP_COMPOSE=1 scripts/test.sh      # skip the compose stacks
#   FUZZ_SECONDS=60 scripts/test.sh     # fuzz longer (default 20 s a target)
#
# Two builds, so that CI fits its 40-minute budget on 2 cores:
#   build/      gcc, -O1 with line tables (-g1): the main pass and compose.
#               -O1 -g1 compiles the test files about 40 % faster than
#               RelWithDebInfo's -O2 -g; backtraces keep file and line.
#   build-asan/ clang, -O0, ASan+UBSan (fatal) plus libFuzzer's coverage
#               instrumentation: the sanitizer tests AND the fuzzers.
# What needs no CPU of its own overlaps a build: the runtime images are
# built (debootstrap, mostly downloads) while build/ compiles, and the
# compose stacks run while build-asan/ compiles. Each stage prints its
# duration ("== ... took N s").
#
# Needs root (engines) and the packages from scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
logs=$(mktemp -d /tmp/coderunner-test-logs.XXXXXX)
stage_start=$(date +%s)
stage_name=
stage() {
  local now
  now=$(date +%s)
  [[ -n $stage_name ]] && echo "== $stage_name took $((now - stage_start)) s"
  stage_name=$1 stage_start=$now
  [[ -n $stage_name ]] && echo "== $stage_name"
  return 0
}
# Waits for a background step; on failure shows its log and stops.
await() {
  local pid=$1 name=$2 log=$3
  if ! wait "$pid"; then
    tail -n 80 "$log"
    echo "test.sh: $name failed (log: $log)" >&2
    exit 1
  fi
  echo "test.sh: $name done (log: $log)"
}
# Ninja for a fresh build dir; an existing one keeps its generator.
generator() { [[ -f $1/CMakeCache.txt ]] || echo "-GNinja"; }
t0=$(date +%s)

stage "engines"
podman_sock=$(scripts/start-podman.sh | tail -n1)
docker_sock=$(scripts/start-docker.sh | tail -n1)

stage "build (gcc -O1 -g1), with the runtime images built beside it"
images/build.sh --engine podman --engine docker >"$logs/images.log" 2>&1 &
images_pid=$!
cmake -S . -B build $(generator build) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCODERUNNER_TESTS=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DCODERUNNER_PODMAN_SOCKET="$podman_sock" -DCODERUNNER_DOCKER_SOCKET="$docker_sock" >/dev/null
cmake --build build -j"$jobs" --target unit_tests integration_tests coderunner coderunner-init
await "$images_pid" "runtime images" "$logs/images.log"
# No suite may silently drop out, or grow unseen: each ctest label must
# register exactly the count in tests/expected-test-counts.txt.
scripts/check-test-counts.sh build

stage "unit + integration (docker, podman, docker-runsc)"
# Integration tests mostly wait (on containers, timers, their servers):
# at two at a time a 2-core machine was busy about half the time, at four
# about 90 % (measured: Docker's 228 in 233 s at -j2, 148 s at -j4).
(cd build && ctest --no-tests=error --output-on-failure -j4 --timeout 300)

compose_pid=
if [[ "${SKIP_COMPOSE:-0}" != 1 ]]; then
  # The service image from this build, run by docker-compose on Docker and
  # podman-compose on Podman (compose/README.md), then the fleet stack
  # (compose/fleet.yaml), beside the next build.
  scripts/compose-test.sh --build-dir build docker podman fleet >"$logs/compose.log" 2>&1 &
  compose_pid=$!
fi

fuzzers=(execute_request stream_demux file_path intent piston_request init_trailer sse_parser
  go_message proc_masks init_args bounded_json job_notice)
if [[ "${SKIP_SANITIZERS:-0}" != 1 || "${SKIP_FUZZ:-0}" != 1 ]]; then
  stage "build-asan (clang -O0, ASan+UBSan, fuzzers)$([[ -n $compose_pid ]] && echo ', with compose beside it')"
  CC=clang CXX=clang++ cmake -S . -B build-asan $(generator build-asan) -DCMAKE_BUILD_TYPE=Debug -DCODERUNNER_TESTS=ON \
    -DCODERUNNER_SANITIZE=ON -DCODERUNNER_FUZZ=ON \
    -DCODERUNNER_PODMAN_SOCKET="$podman_sock" -DCODERUNNER_DOCKER_SOCKET="$docker_sock" >/dev/null
  targets=("${fuzzers[@]/%/_fuzzer}")
  [[ "${SKIP_SANITIZERS:-0}" != 1 ]] && targets+=(unit_tests integration_tests)
  cmake --build build-asan -j"$jobs" --target "${targets[@]}"
fi
if [[ -n $compose_pid ]]; then
  stage "compose (docker-compose on docker, podman-compose on podman, the fleet on both)"
  await "$compose_pid" "compose" "$logs/compose.log"
  grep -E '^compose-test:' "$logs/compose.log" || true
fi

if [[ "${SKIP_SANITIZERS:-0}" != 1 ]]; then
  # The runsc suites run our code on the same paths as the docker ones; under
  # the sanitizers they would only add minutes. So would the fleet's 1,000
  # jobs: the other PgFleetTest cases run the same code under ASan.
  stage "ASan + UBSan: unit + integration (docker)"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --no-tests=error --output-on-failure -j4 --timeout 300 -L '^(unit|integration-docker)$' \
      -E 'PgFleetTest\.AThousandJobs')
fi

if [[ "${SKIP_FUZZ:-0}" != 1 ]]; then
  # Every target of tests/fuzz/CMakeLists.txt, each seeded with its
  # committed corpus (tests/fuzz/corpus/<name>/), two at a time. Any crash,
  # leak, timeout or undefined behaviour (built with
  # -fno-sanitize-recover=all) fails the pass; the input that did it is
  # kept in build-asan/findings/.
  stage "fuzz (libFuzzer, ${FUZZ_SECONDS:-20} s per target, committed corpus as seeds)"
  mkdir -p build-asan/findings
  fuzz_one() {
    local f=$1 work rc=0
    work=$(mktemp -d)
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=halt_on_error=1 \
      build-asan/tests/fuzz/"${f}"_fuzzer -max_total_time="${FUZZ_SECONDS:-20}" -max_len=4096 \
      -print_final_stats=0 -artifact_prefix="build-asan/findings/$f-" "$work" \
      "tests/fuzz/corpus/$f" >"build-asan/findings/$f.log" 2>&1 || rc=$?
    rm -rf "$work"
    return "$rc"
  }
  for ((i = 0; i < ${#fuzzers[@]}; i += 2)); do
    pids=()
    for f in "${fuzzers[@]:i:2}"; do
      fuzz_one "$f" &
      pids+=("$!:$f")
    done
    for p in "${pids[@]}"; do
      f=${p#*:}
      log=build-asan/findings/$f.log
      if ! wait "${p%%:*}"; then
        tail -n 60 "$log"
        echo "fuzz: ${f}_fuzzer failed; log and input in build-asan/findings/" >&2
        exit 1
      fi
      echo "$f: $(grep -E '^Done' "$log" || echo 'ran')"
    done
  done
fi
stage ""
echo "== all tests passed in $(($(date +%s) - t0)) s"
