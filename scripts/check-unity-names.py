#!/usr/bin/env python3
"""Fails when two sources of a unity-built target name a file-private thing alike.

CI compiles the core and the CLI as unity builds (CODERUNNER_UNITY_BUILD: eight
sources to a compiler run), and which files share a run shifts whenever a file
is added. Two files of one C++ namespace that each define, in an anonymous
namespace, a function, constant, type or alias of the same name then collide
in one run and not in another. So every such name is unique within its
namespace across src/ (overloads included: a name, not a signature).

What counts: a definition at the start of a line inside `namespace {`:
functions (a line ending the signature with `{`, or continued below it),
constants (`constexpr ... kName`), types (`struct`, `class`, `enum`) and
aliases (`using Name =`). `using ns::name;` declarations, and one alias
written alike in several files (`using Clock = std::chrono::steady_clock;`),
are legal there and not counted.

  scripts/check-unity-names.py [REPO_ROOT]
"""
import collections
import os
import re
import sys

NAMED_NS = re.compile(r"^namespace ([\w:]+) \{")
TYPE = re.compile(r"^(?:template <[^>]*> )?(?:struct|class|enum class|enum|union) (\w+)\b(?!;)")
ALIAS = re.compile(r"^using (\w+) =")
CONST = re.compile(r"^(?:static )?(?:inline )?(?:constexpr|const) [^=(]*?\b(\w+)(?:\[[^]]*\])?\s*(?:=|\{)")
FUNC = re.compile(r"^(?!return\b|if\b|for\b|while\b|switch\b|else\b|case\b)"
                  r"(?:template <[^>]*> )?[\w:<>,*& ]+?[ *&](~?\w+)\(")


def definitions(path):
    """(namespace, name, line, alias text or None) of each file-private definition."""
    out = []
    named = []
    in_anon = False
    for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
        m = NAMED_NS.match(line)
        if m:
            named.append(m.group(1))
            continue
        if line.startswith("namespace {"):
            in_anon = True
            continue
        if in_anon and line.startswith("}  // namespace") and line.strip() == "}  // namespace":
            in_anon = False
            continue
        if not in_anon or not line[:1].isalpha():
            continue
        code = line.split("//", 1)[0].rstrip()
        if code.endswith(";") and not CONST.match(code) and not ALIAS.match(code):
            continue  # A declaration, a using-declaration.
        for pattern in (TYPE, ALIAS, CONST, FUNC):
            m = pattern.match(code)
            if m:
                name = m.group(1)
                # The same alias twice is one declaration, not a clash.
                alias = code.split("=", 1)[1].strip() if pattern is ALIAS else None
                if not name.isupper() and not name.startswith("CR_"):
                    out.append(("::".join(named), name, n, alias))
                break
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    where = collections.defaultdict(list)
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        for f in sorted(files):
            if f.endswith(".cc"):
                path = os.path.join(dirpath, f)
                for ns, name, n, alias in definitions(path):
                    where[(ns, name)].append((f"{os.path.relpath(path, root)}:{n}", alias))
    clashes = {}
    for key, found in where.items():
        files = {place.split(":")[0] for place, _ in found}
        aliases = {alias for _, alias in found}
        if len(files) > 1 and not (len(aliases) == 1 and None not in aliases):
            clashes[key] = [place for place, _ in found]
    for (ns, name), places in sorted(clashes.items()):
        print(f"{ns}::{name} is file-private in several files (a unity build joins them): "
              + ", ".join(places), file=sys.stderr)
    if clashes:
        print(f"check-unity-names: {len(clashes)} name(s) to make unique", file=sys.stderr)
        return 1
    print(f"check-unity-names: {len(where)} file-private names, each in one file of its namespace")
    return 0


if __name__ == "__main__":
    sys.exit(main())
