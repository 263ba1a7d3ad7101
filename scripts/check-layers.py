#!/usr/bin/env python3
"""Fails on any include that points up the layer order of ARCHITECTURE.md.

Every file under src/<module>/ and include/coderunner/<module>/ (and
src/main.cc, module "main") may include "coderunner/<other>/..." only when
<other> is at or below <module> in the ```layers block, or when the edge is
listed in the ```exceptions block. An exception no longer used is an error
too, so the list only shrinks. Modules without a coderunner include (src/init,
C) need no entry.

It also keeps include/ the modules' public face: every header in
include/coderunner/<module>/ must be included by another module, or by a
public header that is (a header only its own module uses sits beside its .cc
in src/<module>/), and no file in src/ or include/ may reach into another
directory with "../".

And it keeps the fleet out of one node: only the paths of the ```fleet-only
block (a directory ends with "/") may include "coderunner/fleet/..." or
libpq's header, so that a build without the fleet (CODERUNNER_FLEET off)
needs neither.

  scripts/check-layers.py [REPO_ROOT]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"coderunner/([A-Za-z0-9_]+)/([A-Za-z0-9_./]+)"')
RELATIVE = re.compile(r'^\s*#\s*include\s+"[^"]*\.\./')
FLEET_ONLY = re.compile(r'^\s*#\s*include\s+["<](coderunner/fleet/|libpq-fe\.h|postgresql/)')


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


def private_headers_in_include(root, includers):
    """Headers in include/coderunner/ that no other module reaches."""
    inc_root = os.path.join(root, "include", "coderunner")
    headers = sorted(f"{m}/{h}" for m in os.listdir(inc_root)
                     for h in os.listdir(os.path.join(inc_root, m)) if h.endswith(".h"))
    public = {h for h in headers
              if any(mod != h.split("/")[0] for mod, _ in includers.get(h, ()))}
    grew = True
    while grew:  # a header a public header includes is public too
        grew = False
        for h in headers:
            if h not in public and any(
                    p.startswith("include/coderunner/") and p[len("include/coderunner/"):] in public
                    for _, p in includers.get(h, ())):
                public.add(h)
                grew = True
    return [f"include/coderunner/{h}: only its own module uses it; move it beside its .cc "
            f"in src/{h.split('/')[0]}/" for h in headers if h not in public]


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
    fleet_only = [l.split()[0] for l in block(text, "fleet-only")]
    errors = []
    includers = {}  # "module/header.h" -> {(including module, including path)}
    for top in ("src", os.path.join("include", "coderunner")):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cc", ".c")):
                    continue
                path = os.path.join(dirpath, f)
                mod = module_of(root, path)
                for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                    where = f"{os.path.relpath(path, root)}:{n}"
                    rel = os.path.relpath(path, root)
                    if FLEET_ONLY.match(line) and not any(
                            rel == p or (p.endswith("/") and rel.startswith(p)) for p in fleet_only):
                        errors.append(f"{where}: the fleet (or libpq) outside the fleet-only paths "
                                      "of ARCHITECTURE.md; one node must build without it")
                    if RELATIVE.match(line):
                        errors.append(f"{where}: a relative include; include another module only "
                                      "through its public header in include/coderunner/")
                    inc = INCLUDE.match(line)
                    if not inc:
                        continue
                    dep = inc.group(1)
                    includers.setdefault(f"{dep}/{inc.group(2)}", set()).add(
                        (mod, os.path.relpath(path, root)))
                    if mod not in level:
                        errors.append(f"{where}: module '{mod}' is not in the layer order")
                    elif dep not in level:
                        errors.append(f"{where}: includes undeclared module '{dep}'")
                    elif level[dep] > level[mod]:
                        if (mod, dep) in allowed:
                            allowed[(mod, dep)] += 1
                        else:
                            errors.append(f"{where}: {mod} includes {dep}, which is above it")
    errors += private_headers_in_include(root, includers)
    for (mod, dep), uses in allowed.items():
        if uses == 0:
            errors.append(f"ARCHITECTURE.md: exception '{mod} -> {dep}' is no longer used; remove it")
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check-layers: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    used = sum(1 for v in allowed.values() if v)
    print(f"check-layers: {len(order)} layers, every include points down "
          f"({used} listed exception(s) left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
