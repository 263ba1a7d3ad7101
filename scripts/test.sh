#!/usr/bin/env bash
# Runs the whole test suite: build, unit tests, the integration suite on
# BOTH engines (Docker Engine and Podman), the hardening and adversarial
# suites again with every job under gVisor (runsc) on Docker, the compose
# deployment on both engines, then unit and Docker integration tests under
# ASan+UBSan.
# Starts the engines and builds the runtime images if needed (offline).
#
#   scripts/test.sh            # everything
#   SKIP_SANITIZERS=1 scripts/test.sh   # skip the ASan+UBSan pass
#   SKIP_FUZZ=1 scripts/test.sh         # skip the bounded fuzzing pass
#   SKIP_COMPOSE=1 scripts/test.sh      # skip the compose stacks
#
# Needs root (engines) and the packages from scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

echo "== engines"
podman_sock=$(scripts/start-podman.sh | tail -n1)
docker_sock=$(scripts/start-docker.sh | tail -n1)

echo "== runtime images"
images/build.sh --engine podman --engine docker

echo "== build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCODERUNNER_TESTS=ON \
  -DCODERUNNER_PODMAN_SOCKET="$podman_sock" -DCODERUNNER_DOCKER_SOCKET="$docker_sock" >/dev/null
cmake --build build -j"$jobs"

echo "== unit + integration (docker, podman, docker-runsc)"
# Integration tests start real containers; two at a time keeps a 2-core
# machine responsive without serializing everything.
(cd build && ctest --no-tests=error --output-on-failure -j2 --timeout 300)

if [[ "${SKIP_COMPOSE:-0}" != 1 ]]; then
  # The service image from this build, run by docker-compose on Docker and
  # podman-compose on Podman (compose/README.md).
  echo "== compose (docker-compose on docker, podman-compose on podman)"
  scripts/compose-test.sh --build-dir build docker podman
fi

if [[ "${SKIP_SANITIZERS:-0}" != 1 ]]; then
  # The runsc suites run our code on the same paths as the docker ones; under
  # the sanitizers they would only add minutes.
  echo "== ASan + UBSan: unit + integration (docker)"
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCODERUNNER_SANITIZE=ON -DCODERUNNER_TESTS=ON \
    -DCODERUNNER_PODMAN_SOCKET="$podman_sock" -DCODERUNNER_DOCKER_SOCKET="$docker_sock" >/dev/null
  cmake --build build-asan -j"$jobs"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --no-tests=error --output-on-failure -j2 --timeout 300 -L '^(unit|integration-docker)$')
fi
if [[ "${SKIP_FUZZ:-0}" != 1 ]]; then
  # Every target of tests/fuzz/CMakeLists.txt, each seeded with its
  # committed corpus (tests/fuzz/corpus/<name>/). Any crash, leak, timeout
  # or undefined behaviour (built with -fno-sanitize-recover=all) fails the
  # pass; the input that did it is kept in build-fuzz/findings/.
  fuzzers=(execute_request stream_demux file_path intent piston_request init_trailer sse_parser
    go_message proc_masks init_args bounded_json)
  echo "== fuzz (libFuzzer, ${FUZZ_SECONDS:-20} s per target, committed corpus as seeds)"
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCODERUNNER_FUZZ=ON -DCODERUNNER_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build-fuzz -j"$jobs" --target "${fuzzers[@]/%/_fuzzer}"
  mkdir -p build-fuzz/findings
  for f in "${fuzzers[@]}"; do
    work=$(mktemp -d)
    log=build-fuzz/findings/$f.log
    rc=0
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=halt_on_error=1 \
      build-fuzz/tests/fuzz/${f}_fuzzer -max_total_time="${FUZZ_SECONDS:-20}" -max_len=4096 \
      -print_final_stats=0 -artifact_prefix="build-fuzz/findings/$f-" "$work" \
      "tests/fuzz/corpus/$f" >"$log" 2>&1 || rc=$?
    rm -rf "$work"
    grep -E '^Done' "$log" || true
    if ((rc != 0)); then
      tail -n 60 "$log"
      echo "fuzz: ${f}_fuzzer failed (exit $rc); log and input in build-fuzz/findings/" >&2
      exit 1
    fi
  done
fi
echo "== all tests passed"
