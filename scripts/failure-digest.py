#!/usr/bin/env python3
"""Prints what each failed test of the last ctest run in a build dir said.

ctest --output-on-failure prints a failed test's whole output where the test
ended, among hundreds of passing lines; a unit shard's output is thousands
of lines. This digest comes last, so the end of a CI log names the failure:
for each failed ctest test, each failed gtest case from its `[ RUN ]` line
to its `[  FAILED  ]` line, and any sanitizer report; with neither (a crash,
a timeout), the output's last lines.

  scripts/failure-digest.py BUILD_DIR
"""
import re
import sys
from pathlib import Path

MAX_LINES_PER_TEST = 60
TAIL_LINES_WITHOUT_A_CASE = 30
SANITIZER_LINE = re.compile(r"(ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:|SUMMARY: )")
RUN_LINE = re.compile(r"^\[ RUN      \] (\S+)")
FAILED_LINE = re.compile(r"^\[  FAILED  \] (\S+)")
ENTRY_HEADER = re.compile(r"^\d+/\d+ Test: (\S+)$")


def entries(log_text):
    """(name, output lines, passed) for each test in ctest's LastTest.log."""
    name, lines, in_output = None, [], False
    for line in log_text.splitlines():
        header = ENTRY_HEADER.match(line)
        if header:
            name, lines, in_output = header.group(1), [], False
        elif line.startswith("Output:"):
            in_output = True
        elif line == "<end of output>":
            in_output = False
        elif line.startswith("Test Passed.") or line.startswith("Test Failed."):
            if name is not None:
                yield name, lines[1:], line.startswith("Test Passed.")
            name = None
        elif in_output:
            lines.append(line)


def failed_cases(lines):
    """Lines of each failed gtest case, from its RUN line to its FAILED line."""
    picked, current = [], []
    for line in lines:
        if RUN_LINE.match(line):
            current = [line]
        elif FAILED_LINE.match(line) and current:
            picked.extend(current + [line])
            current = []
        elif current:
            current.append(line)
    return picked


def digest(lines):
    picked = failed_cases(lines) + [l for l in lines if SANITIZER_LINE.search(l)]
    if not picked:
        picked = ["(no failed case or sanitizer report; the output's end:)"]
        picked += lines[-TAIL_LINES_WITHOUT_A_CASE:]
    if len(picked) > MAX_LINES_PER_TEST:
        picked = picked[:MAX_LINES_PER_TEST] + [f"... ({len(picked) - MAX_LINES_PER_TEST} more lines)"]
    return picked


def main():
    log = Path(sys.argv[1]) / "Testing" / "Temporary" / "LastTest.log"
    try:
        text = log.read_text(errors="replace")
    except OSError as e:
        print(f"failure-digest: {e}")
        return
    failures = [(n, lines) for n, lines, passed in entries(text) if not passed]
    print(f"== what the {len(failures)} failed test(s) said ({log})")
    for name, lines in failures:
        print(f"--- {name}")
        for line in digest(lines):
            print(f"  {line}")


if __name__ == "__main__":
    main()
