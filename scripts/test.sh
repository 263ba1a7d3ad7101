#!/usr/bin/env bash
# Runs the whole test suite, every test once per engine it is about
# (tests/integration/CMakeLists.txt names the scopes): the integration
# tests of what engines do on BOTH engines (Docker Engine and Podman, label
# engine-*), the gVisor ones again under runsc, the fleet and the
# playground in a browser once, the compose deployment on both engines and
# the fleet (PostgreSQL, a node on each engine, HAProxy); the unit tests
# under ASan+UBSan, and every Docker integration test that runs the
# service's own code paths (docker-asan.*: all but the suites whose checks
# happen inside the container, and the cases too slow for the sanitizers)
# against the service built with them; then every fuzzer for a bounded
# time.
# Starts the engines and builds the runtime images if needed (offline).
#
#   scripts/test.sh            # everything
#   SKIP_SANITIZERS=1 scripts/test.sh   # no sanitizer build: unit tests and every Docker test in build/ instead
#   SKIP_FUZZ=1 scripts/test.sh         # skip the bounded fuzzing pass
#   SKIP_COMPOSE=1 scripts/test.sh      # skip the compose stacks
#   FUZZ_SECONDS=60 scripts/test.sh     # fuzz longer (default 4 s a target)
#
# Two builds, each compiling only what runs from it, so that CI fits its
# 25-minute budget on 2 cores:
#   build/      clang, -O0 with line tables only, with the fleet: the
#               service, init, the integration tests (every pass, compose)
#               and the fleet's unit tests (PostgreSQL). clang -O0 compiles
#               the core in about half the time gcc -O1 takes (measured:
#               4.1-5.6 s against 7.8-10.5 s a unity batch), and the tests'
#               own code a fifth faster than gcc -O0; the service spends a
#               few ms of a job's engine-bound ~170 ms. scripts/quickstart.sh
#               builds with clang too, so CI compiles what users compile.
#   build-asan/ clang, -O0 with line tables only (all a sanitizer's report
#               reads), ASan+UBSan (fatal), WITHOUT the fleet
#               (CODERUNNER_FLEET=OFF: no src/fleet/, no libpq), which proves
#               one node builds and passes without it: the service, the
#               unit tests and the fuzzers, no integration tests: build/'s
#               drive its service (CODERUNNER_SANITIZED_SERVICE), and their
#               Docker pass of those suites is their sanitized pass.
#               libFuzzer's coverage instrumentation goes where the fuzzers
#               look (the service's core and the fuzzers), not into the unit
#               tests' own code.
# What needs no CPU of its own overlaps a build: the runtime images are
# built (debootstrap, mostly downloads) while build/ compiles, and the
# compose stacks run while build-asan/ compiles. Tests run four at a time
# (most of an integration test is waiting), the longest first (ctest's
# cost data, seeded from tests/ctest-costs.txt). Each stage prints its
# duration ("== ... took N s"); per-test times are kept in
# build*/test-times/ and the 10 slowest are printed at the end.
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

# ctest in `dir`, four at a time, the longest first, times kept; extra
# arguments select the tests.
run_ctest() {
  local dir=$1
  shift
  mkdir -p "$dir/Testing/Temporary" "$dir/test-times"
  # Cost data from an earlier run here, else the committed one.
  [[ -f $dir/Testing/Temporary/CTestCostData.txt ]] ||
    cp tests/ctest-costs.txt "$dir/Testing/Temporary/CTestCostData.txt"
  if ! (cd "$dir" && ctest --no-tests=error --output-on-failure -j"${ctest_jobs:-4}" --timeout 300 \
    --output-junit "test-times/ctest-$(date +%s).xml" "$@"); then
    # Last, where a log's end names it: what each failed test said.
    scripts/failure-digest.py "$dir"
    return 1
  fi
}

# Unit tests run in the sanitizer build, and the docker-asan.* tests drive
# its service; here only without it.
unit_in_main=OFF sanitized_service=$PWD/build-asan/coderunner
[[ "${SKIP_SANITIZERS:-0}" == 1 ]] && unit_in_main=ON sanitized_service=
stage "build (clang -O0: the service, init, integration tests), with the runtime images built beside it"
# The compiler images start from build.sh's bash root filesystem.
{ images/build.sh --engine podman --engine docker &&
  images/build-compilers.sh --engine podman --engine docker; } >"$logs/images.log" 2>&1 &
images_pid=$!
CC=clang CXX=clang++ cmake -S . -B build $(generator build) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCODERUNNER_TESTS=ON -DCODERUNNER_UNITY_BUILD=ON \
  -DCODERUNNER_UNIT_TESTS=$unit_in_main -DCODERUNNER_SANITIZED_SERVICE="$sanitized_service" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -DNDEBUG" \
  -DCODERUNNER_PODMAN_SOCKET="$podman_sock" -DCODERUNNER_DOCKER_SOCKET="$docker_sock" >/dev/null
main_targets=(coderunner coderunner-init integration_tests fake_llm_server fleet_unit_tests
  temp_postgres_ctl)
[[ $unit_in_main == ON ]] && main_targets+=(unit_tests)
cmake --build build -j"$jobs" --target "${main_targets[@]}"
await "$images_pid" "runtime images" "$logs/images.log"
# No suite may silently drop out, or grow unseen: each ctest label must
# register exactly the count in tests/expected-test-counts.txt.
[[ $unit_in_main == OFF ]] && scripts/check-test-counts.sh build main

stage "integration: engine (podman, runsc; docker's in-container suites), fleet, browser, the api cases too slow for the sanitizers; the fleet's unit tests"
run_ctest build -LE '^(unit|fixture|toolchain)$' -E '^docker-asan\.'

# Alone: it runs every MultiPL-E row on the host's toolchains as well.
stage "toolchain parity: MultiPL-E rows on the host and through coderunner"
run_ctest build -L '^toolchain$'

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
  stage "build-asan (clang -O0, ASan+UBSan, no fleet: the service, unit tests, fuzzers)$([[ -n $compose_pid ]] && echo ', with compose beside it')"
  CC=clang CXX=clang++ cmake -S . -B build-asan $(generator build-asan) -DCMAKE_BUILD_TYPE=Debug -DCODERUNNER_TESTS=ON \
    -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only \
    -DCODERUNNER_SANITIZE=ON -DCODERUNNER_FUZZ=ON -DCODERUNNER_FLEET=OFF -DCODERUNNER_UNITY_BUILD=ON \
    -DCODERUNNER_PODMAN_SOCKET="$podman_sock" -DCODERUNNER_DOCKER_SOCKET="$docker_sock" >/dev/null
  targets=("${fuzzers[@]/%/_fuzzer}")
  [[ "${SKIP_SANITIZERS:-0}" != 1 ]] && targets+=(unit_tests coderunner)
  cmake --build build-asan -j"$jobs" --target "${targets[@]}"
  [[ "${SKIP_SANITIZERS:-0}" != 1 ]] && scripts/check-test-counts.sh build-asan sanitized
fi
if [[ -n $compose_pid ]]; then
  stage "compose (docker-compose on docker, podman-compose on podman, the fleet on both)"
  await "$compose_pid" "compose" "$logs/compose.log"
  grep -E '^compose-test:' "$logs/compose.log" || true
fi

if [[ "${SKIP_SANITIZERS:-0}" != 1 ]]; then
  stage "ASan + UBSan: unit (shards) beside the docker-asan.* integration tests (build/'s, driving build-asan/'s service)"
  (
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # Two slots for the unit shards (all CPU), four for the integration
    # tests (mostly waiting on their containers; with three, a tenth of the
    # CPU stayed idle once the shards were done).
    ctest_jobs=2 run_ctest build-asan >"$logs/asan-unit.log" 2>&1 &
    unit_pid=$!
    ctest_jobs=4 run_ctest build -R '^docker-asan\.'
    await "$unit_pid" "ASan unit shards" "$logs/asan-unit.log"
    grep -E '(tests passed|Total Test time)' "$logs/asan-unit.log" || true
  )
elif [[ $unit_in_main == ON ]]; then
  stage "unit (shards, unsanitized)"
  run_ctest build -L '^unit$'
fi

if [[ "${SKIP_FUZZ:-0}" != 1 ]]; then
  # Every target of tests/fuzz/CMakeLists.txt, each seeded with its
  # committed corpus (tests/fuzz/corpus/<name>/), two at a time. Any crash,
  # leak, timeout or undefined behaviour (built with
  # -fno-sanitize-recover=all) fails the pass; the input that did it is
  # kept in build-asan/findings/.
  stage "fuzz (libFuzzer, ${FUZZ_SECONDS:-4} s per target, committed corpus as seeds)"
  mkdir -p build-asan/findings
  fuzz_one() {
    local f=$1 work rc=0
    work=$(mktemp -d)
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=halt_on_error=1 \
      build-asan/tests/fuzz/"${f}"_fuzzer -max_total_time="${FUZZ_SECONDS:-4}" -max_len=4096 \
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
echo "== the 10 slowest tests of this run (all times: build*/test-times/)"
python3 scripts/slowest-tests.py build/test-times build-asan/test-times build-asan/unit-times \
  build/unit-times 2>/dev/null || true
echo "== all tests passed in $(($(date +%s) - t0)) s"
