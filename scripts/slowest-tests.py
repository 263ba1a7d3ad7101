#!/usr/bin/env python3
"""Prints the slowest tests of a run, from the per-test times it kept.

Reads every *.xml below the given directories: ctest's JUnit output
(scripts/test.sh: build*/test-times/) and gtest's XML (the unit shards:
build*/unit-times/). Each test is one line, seconds first.

  scripts/slowest-tests.py [-n 10] DIR...
"""
import argparse
import glob
import os
import xml.etree.ElementTree as ET


def times(path):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return
    for case in root.iter("testcase"):
        try:
            seconds = float(case.get("time", "0"))
        except ValueError:
            continue
        name = case.get("name", "?")
        cls = case.get("classname", "")
        if name.startswith("unit.shard"):
            continue  # A shard's whole time: its tests are in the gtest XML.
        # gtest names a case by suite and name; ctest's whole name is in name.
        yield seconds, (cls + "." + name if cls and not name.startswith(cls) else name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=10)
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    rows = []
    for d in args.dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.xml"))):
            rows.extend((s, n, os.path.relpath(path)) for s, n in times(path))
    rows.sort(reverse=True)
    for seconds, name, source in rows[: args.n]:
        print(f"{seconds:8.1f} s  {name}  ({source})")


if __name__ == "__main__":
    main()
