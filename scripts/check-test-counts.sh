#!/usr/bin/env bash
# Checks that a configured and built tree registers exactly the tests
# tests/expected-test-counts.txt gives its kind of build, per ctest label,
# and that no test carries a label the file does not list for that build:
# no suite can drop out silently (a label typo, a TEST_FILTER that matches
# nothing, a gtest discovery that failed, a script no longer registered),
# nor grow unseen. Labels are matched anchored (^label$).
#
# The unit tests run as a few shards (label unit: the shards); their gtest
# cases are counted too, from the binary (label unit-cases). The same for
# the fleet's unit tests (labels unit-fleet and unit-fleet-cases).
#
#   scripts/check-test-counts.sh BUILD_DIR main|sanitized          # check
#   scripts/check-test-counts.sh --print BUILD_DIR main|sanitized  # the counts, in the file's format
#
# main is CI's clang build (scripts/test.sh: no unit tests), sanitized its
# clang ASan+UBSan build. Update the file in the commit that adds or
# removes tests.
set -euo pipefail
cd "$(dirname "$0")/.."
print=0
if [[ "${1:-}" == --print ]]; then
  print=1
  shift
fi
build=${1:?build dir}
kind=${2:?main or sanitized}
expected=tests/expected-test-counts.txt

# -FA '.*': count only the tests a label selects, not the fixture setups
# and cleanups ctest adds to them (label fixture, counted once there).
count() {
  if [[ $1 == unit-cases || $1 == unit-fleet-cases ]]; then
    local binary=unit_tests
    [[ $1 == unit-fleet-cases ]] && binary=fleet_unit_tests
    "$build/tests/$binary" --gtest_list_tests | grep -c '^  '
    return
  fi
  (cd "$build" && ctest -N -L "^$1\$" -FA '.*') | awk '/Total Tests:/ {print $3}'
}

labels=$(cd "$build" && ctest --print-labels | awk '/^  / {print $1}')
[[ -x "$build/tests/unit_tests" ]] && labels="$labels unit-cases"
[[ -x "$build/tests/fleet_unit_tests" ]] && labels="$labels unit-fleet-cases"
if ((print)); then
  for label in $labels; do echo "$kind $label $(count "$label")"; done
  exit 0
fi

status=0
declare -A want
while read -r build_kind label n; do
  [[ -z "$build_kind" || "$build_kind" == \#* || "$build_kind" != "$kind" ]] && continue
  want[$label]=$n
  got=$(count "$label")
  echo "ctest label $label: ${got:-0} tests (expected $n)"
  if [[ "${got:-0}" != "$n" ]]; then
    echo "check-test-counts: label $label has ${got:-0} tests, $expected says $n for $kind" >&2
    status=1
  fi
done <"$expected"
for label in $labels; do
  if [[ -z "${want[$label]:-}" ]]; then
    echo "check-test-counts: label $label ($(count "$label") tests) is not in $expected for $kind" >&2
    status=1
  fi
done
# Every test has exactly one label, so the counts add up to the total.
total=$(cd "$build" && ctest -N | awk '/Total Tests:/ {print $3}')
sum=0
for label in "${!want[@]}"; do
  [[ $label == unit-cases || $label == unit-fleet-cases ]] || sum=$((sum + want[$label]))
done
if [[ "$total" != "$sum" ]]; then
  echo "check-test-counts: $total tests registered, the labels account for $sum" >&2
  status=1
fi
exit "$status"
