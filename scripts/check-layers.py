#!/usr/bin/env python3
"""Fails on any include that points up the layer order of ARCHITECTURE.md.

Every file under src/<module>/ and include/coderunner/<module>/ (and
src/main.cc, module "main") may include "coderunner/<other>/..." only when
<other> is at or below <module> in the ```layers block, or when the edge is
listed in the ```exceptions block. An exception no longer used is an error
too, so the list only shrinks. Modules without a coderunner include (src/init,
C) need no entry.

  scripts/check-layers.py [REPO_ROOT]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"coderunner/([A-Za-z0-9_]+)/')


def block(text, name):
    m = re.search(r"^```" + name + r"\n(.*?)^```", text, re.S | re.M)
    if not m:
        sys.exit(f"check-layers: ARCHITECTURE.md has no ```{name} block")
    return [l for l in m.group(1).splitlines() if l.strip()]


def module_of(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "src":
        return "main" if rel[1] == "main.cc" else rel[1]
    return rel[2]  # include/coderunner/<module>/...


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    text = open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read()
    order = [l.split()[0] for l in block(text, "layers")]
    level = {m: i for i, m in enumerate(order)}
    allowed = {}
    for l in block(text, "exceptions"):
        m = re.match(r"(\w+)\s*->\s*(\w+)", l)
        if not m:
            sys.exit(f"check-layers: bad exception line: {l}")
        allowed[(m.group(1), m.group(2))] = 0
    errors = []
    for top in ("src", os.path.join("include", "coderunner")):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cc", ".c")):
                    continue
                path = os.path.join(dirpath, f)
                mod = module_of(root, path)
                for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                    inc = INCLUDE.match(line)
                    if not inc:
                        continue
                    dep = inc.group(1)
                    where = f"{os.path.relpath(path, root)}:{n}"
                    if mod not in level:
                        errors.append(f"{where}: module '{mod}' is not in the layer order")
                    elif dep not in level:
                        errors.append(f"{where}: includes undeclared module '{dep}'")
                    elif level[dep] > level[mod]:
                        if (mod, dep) in allowed:
                            allowed[(mod, dep)] += 1
                        else:
                            errors.append(f"{where}: {mod} includes {dep}, which is above it")
    for (mod, dep), uses in allowed.items():
        if uses == 0:
            errors.append(f"ARCHITECTURE.md: exception '{mod} -> {dep}' is no longer used; remove it")
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check-layers: {len(errors)} include(s) against the layer order", file=sys.stderr)
        return 1
    used = sum(1 for v in allowed.values() if v)
    print(f"check-layers: {len(order)} layers, every include points down "
          f"({used} listed exception(s) left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
