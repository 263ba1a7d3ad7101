#!/usr/bin/env python3
"""Fails on a file over 500 lines or a function over 80 lines in src/ or include/.

Every .cc, .h and .c file under src/ and include/ is checked:
  - a file may hold at most MAX_FILE_LINES lines;
  - a function may span at most MAX_FUNCTION_LINES lines, from the first line
    of its declaration to its closing brace (lambdas count toward the
    function that holds them).
Functions are found by a heuristic brace matcher, after comments, strings,
character literals and preprocessor lines are blanked: a "{" at namespace or
class scope whose declaration holds a ")" opens a function body (constructor
initializer braces such as `a_{1}` are skipped); namespaces, extern "C",
classes, structs and unions are searched inside; anything else (enums,
initializers) is skipped whole.

Exceptions live in the ```size-exceptions block of ARCHITECTURE.md, one a
line: the path (a file) or path:Function (a function, named as it is
declared, e.g. src/x/y.cc:Foo::Bar), then a one-line justification. An
exception that is no longer needed is an error too, so the list only shrinks.

  scripts/check-sizes.py [REPO_ROOT]
"""
import os
import re
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80

CONTAINER = re.compile(r"^(?:template\s*<.*>\s*)?(?:namespace\b|extern\s*\"\"|"
                       r"(?:class|struct|union)\b)", re.S)
ACCESS = re.compile(r"^\s*(?:public|private|protected)\s*:(?!:)")
CTOR_INIT = re.compile(r"\)\s*(?:noexcept\s*)?:(?!:)")


def blank(text):
    """Comments, strings, char literals and preprocessor lines as spaces.

    Newlines are kept, so offsets map to the same line numbers. A string
    becomes "" followed by spaces (so extern "C" stays recognisable).
    """
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A preprocessor line, with its backslash continuations.
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not _ident(text[i - 1])):
            m = re.match(r'R"([^(\s]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c == '"' or (c == "'" and (i == 0 or not text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + c + " " * (j - i - 2) if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _ident(c):
    return c.isalnum() or c == "_"


def match_brace(code, open_at):
    """Offset of the "}" that closes the "{" at `open_at` (len(code) if none)."""
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code)


def is_function(header):
    """Whether a "{" after `header` opens a function body (or a named lambda)."""
    if ")" not in header:
        return False
    if re.search(r"=\s*\[", header):
        return True
    before = header.split("(", 1)[0]
    return "=" not in re.sub(r"operator\s*\S*=|==|<=|>=|!=", "", before)


def function_name(header):
    """The declared name in a function's declaration, e.g. Foo::Bar."""
    head = header.split("(", 1)[0]
    if "=" in head:  # A lambda bound to a name: auto f = [...]
        head = head.split("=", 1)[0]
    names = re.findall(r"[~\w:]+(?:<[^<>]*>)?", head)
    return names[-1].split("<", 1)[0] if names else "?"


def scan(code, begin, end, line_of, found):
    """Adds (name, first line, lines) of each function in code[begin:end]."""
    header_at = begin
    i = begin
    while i < end:
        c = code[i]
        if c in ";}":
            header_at = i + 1
        elif c == "{":
            header = code[header_at:i]
            stripped = ACCESS.sub("", header).strip()
            close = match_brace(code, i)
            if CONTAINER.match(stripped):
                scan(code, i + 1, close, line_of, found)
            elif is_function(stripped):
                if CTOR_INIT.search(stripped) and re.search(r"\w\s*$", header):
                    i = close + 1  # A member's brace initializer: still the header.
                    continue
                access = ACCESS.match(header)
                decl = header[access.end() if access else 0:]
                first = header_at + len(header) - len(decl.lstrip())
                first_line = line_of(first)
                found.append((function_name(stripped), first_line, line_of(close) - first_line + 1))
            i = close
            header_at = close + 1
        i += 1


def functions(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    code = blank(text)
    starts = [m.start() for m in re.finditer("\n", code)]

    def line_of(offset):
        lo, hi = 0, len(starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if starts[mid] < offset:
                lo = mid + 1
            else:
                hi = mid
        return lo + 1

    found = []
    scan(code, 0, len(code), line_of, found)
    return text.count("\n"), found


def exceptions(root):
    text = open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read()
    m = re.search(r"^```size-exceptions\n(.*?)^```", text, re.S | re.M)
    if not m:
        sys.exit("check-sizes: ARCHITECTURE.md has no ```size-exceptions block")
    allowed = {}
    for line in m.group(1).splitlines():
        if not line.strip():
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            sys.exit(f"check-sizes: exception without a justification: {line}")
        allowed[parts[0]] = False
    return allowed


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    allowed = exceptions(root)
    errors = []
    for top in ("src", "include"):
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith((".h", ".cc", ".c")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                lines, found = functions(path)
                if lines > MAX_FILE_LINES:
                    if rel in allowed:
                        allowed[rel] = True
                    else:
                        errors.append(f"{rel}: {lines} lines (at most {MAX_FILE_LINES}); "
                                      "split it along its concepts")
                for name, first, length in found:
                    if length <= MAX_FUNCTION_LINES:
                        continue
                    key = f"{rel}:{name}"
                    if key in allowed:
                        allowed[key] = True
                    else:
                        errors.append(f"{rel}:{first}: {name} is {length} lines "
                                      f"(at most {MAX_FUNCTION_LINES}); split it into named steps")
    for key, used in allowed.items():
        if not used:
            errors.append(f"ARCHITECTURE.md: size exception {key} is no longer needed; remove it")
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f"check-sizes: files <= {MAX_FILE_LINES} lines, functions <= {MAX_FUNCTION_LINES} "
          f"({len(allowed)} listed exception(s) left)")


if __name__ == "__main__":
    main()
