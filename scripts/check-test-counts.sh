#!/usr/bin/env bash
# Checks that every ctest label of a configured and built tree registers
# exactly the number of tests tests/expected-test-counts.txt gives it, and
# that no test carries a label the file does not list: no suite can drop
# out silently (a label typo, a TEST_FILTER that matches nothing, a gtest
# discovery that failed, a script no longer registered), nor grow unseen.
# Labels are matched anchored (^label$): integration-docker would also
# match integration-docker-runsc otherwise.
#
#   scripts/check-test-counts.sh [BUILD_DIR]          # check (default: build)
#   scripts/check-test-counts.sh --print [BUILD_DIR]  # the counts, in the file's format
#
# Update the file in the commit that adds or removes tests.
set -euo pipefail
cd "$(dirname "$0")/.."
print=0
if [[ "${1:-}" == --print ]]; then
  print=1
  shift
fi
build=${1:-build}
expected=tests/expected-test-counts.txt

# -FA '.*': count only the tests a label selects, not the fixture setups
# and cleanups ctest adds to them (label fixture, counted once there).
count() {
  (cd "$build" && ctest -N -L "^$1\$" -FA '.*') | awk '/Total Tests:/ {print $3}'
}

labels=$(cd "$build" && ctest --print-labels | awk '/^  / {print $1}')
if ((print)); then
  for label in $labels; do echo "$label $(count "$label")"; done
  exit 0
fi

status=0
declare -A want
while read -r label n; do
  [[ -z "$label" || "$label" == \#* ]] && continue
  want[$label]=$n
  got=$(count "$label")
  echo "ctest label $label: ${got:-0} tests (expected $n)"
  if [[ "${got:-0}" != "$n" ]]; then
    echo "check-test-counts: label $label has ${got:-0} tests, $expected says $n" >&2
    status=1
  fi
done <"$expected"
for label in $labels; do
  if [[ -z "${want[$label]:-}" ]]; then
    echo "check-test-counts: label $label ($(count "$label") tests) is not in $expected" >&2
    status=1
  fi
done
# Every test has exactly one label, so the counts add up to the total.
total=$(cd "$build" && ctest -N | awk '/Total Tests:/ {print $3}')
sum=0
for n in "${want[@]}"; do sum=$((sum + n)); done
if [[ "$total" != "$sum" ]]; then
  echo "check-test-counts: $total tests registered, the labels account for $sum" >&2
  status=1
fi
exit "$status"
