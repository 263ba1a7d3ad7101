#!/usr/bin/env python3
"""Fails on a Status reason compared with a string literal in src/ or include/.

A reason that code tests for is a named constant (kReason...), declared in the
public header of the module that produces it, so that the producer and every
caller that tests for it spell it once. Tests may compare literals: they check
what an API client sees.

  scripts/check-reasons.py [REPO_ROOT]
"""
import os
import re
import sys

COMPARED = re.compile(r'reason(\(\))?\s*[!=]=\s*"|"[a-z0-9_]+"\s*[!=]=\s*[\w.>()-]*reason\b')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    errors = []
    for top in ("src", "include"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, f)
                for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                    code = line.split("//", 1)[0]
                    if COMPARED.search(code):
                        errors.append(f"{os.path.relpath(path, root)}:{n}: a reason compared with "
                                      "a string literal; use the producer's named kReason constant")
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check-reasons: {len(errors)} literal comparison(s)", file=sys.stderr)
        return 1
    print("check-reasons: every compared reason is a named constant")
    return 0


if __name__ == "__main__":
    sys.exit(main())
