#!/usr/bin/env python3
"""Fails when the docs point nowhere or leave a config key or a route out.

  scripts/check-docs.py [REPO_ROOT]

Exit 1 listing every problem, else one line of counts. Three checks:

1. Links. Every relative link and image in a Markdown file of the repo (git's
   tracked and untracked-but-not-ignored *.md: README.md, ARCHITECTURE.md,
   docs/*.md, images/README.md, ...) must name a file or directory that git
   knows, and its #anchor a heading (or <a id/name>) of the target page.
   Anchors are GitHub's: the heading's text without Markdown, lowercased,
   every character but letters, digits, spaces, '-' and '_' dropped, each
   space turned into '-'; a repeated heading gets -1, -2, ... Links inside
   code (fenced blocks, `spans`) are text, not links. http(s), mailto and
   other schemes are not fetched.

2. Config keys. The keys are read from the code: the rows of the tables in
   src/config/config_sections.cc (`{"key", &Struct::member, ...}` in
   `const Field<...> kXFields[]`), put under the prefix that
   src/config/config_root.cc gives each table (Sub("server", ...,
   ServerFields()), DescribeFields("limits.default", LimitsFields(), ...),
   "tiers." + name -> tiers.<name>, "auth.keys[" + i + "]" -> auth.keys[]),
   plus the keys pushed by hand (`push_back({"code_runner.timeout", ...`) in
   src/config/*.cc. A table no prefix is found for is itself a problem.
   A key is documented when a docs page (README.md or docs/*.md) has,
   outside fenced blocks,
     a. an inline `code span` that starts with its dotted name as a whole
        word: `jobs.max_queued`, `server.listen: 0.0.0.0:8080`; a parameter
        segment may be written <anything> or a concrete name:
        `tiers.<name>.max_queued`, `tiers.free.runtime`,
        `languages.<name>.image`, `auth.keys[].admin`; or
     b. in the first cell of a Markdown table row, a continuation of the
        cell's last full key: `pool.max_per_shape`, `.max_containers`
        documents pool.max_containers, and `languages.<name>.{image,file}`
        documents both keys.
   A bare leaf name in prose (`max_queued`) does not count.

3. Routes. Every method and path of src/api/openapi.json (its unit test
   keeps it equal to the routes the server registers) and every route
   registered in src/api/*.cc with a literal pattern (`.Get("/v1/jobs", ...`,
   a regex group read as {id}, or {path} for (.+)) must appear in a docs page,
   outside fenced blocks, as "METHOD /path" with the path ending there:
   `GET /v1/jobs/{id}/wait?timeout_s=N` documents GET /v1/jobs/{id}/wait. A
   parameter may carry any name in braces.
"""
import json
import os
import re
import subprocess
import sys
import unicodedata



# ---------------------------------------------------------------- markdown


def md_files(root):
    """Every Markdown file git knows (tracked or untracked, not ignored)."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            check=True, capture_output=True).stdout.decode("utf-8")
        known = sorted({p for p in out.split("\0") if p and os.path.exists(os.path.join(root, p))})
    except (OSError, subprocess.CalledProcessError):
        known = []
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and d != "node_modules"]
            for f in files:
                known.append(os.path.relpath(os.path.join(dirpath, f), root))
        known.sort()
    return [p for p in known if p.endswith(".md")], known


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)
                continue
            if m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
                continue
        if fence is None:
            yield n, line


def code_spans(line):
    """(start, end, content) of each `code span` of a line."""
    spans, i = [], 0
    while True:
        m = re.compile(r"`+").search(line, i)
        if not m:
            return spans
        ticks = m.group(0)
        close = re.compile(r"(?<!`)" + ticks + r"(?!`)").search(line, m.end())
        if not close:
            i = m.end()
            continue
        spans.append((m.start(), close.end(), line[m.end():close.start()].strip()))
        i = close.end()


def heading_text(raw):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    return text.replace("`", "")


def slug(text):
    out = []
    for ch in heading_text(text).strip().lower():
        if ch in "-_ " or unicodedata.category(ch)[0] in "LN":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors(text):
    seen, result = {}, set()
    for _, line in prose_lines(text):
        for m in re.finditer(r"<a\s+[^>]*(?:id|name)=\"([^\"]+)\"", line):
            result.add(m.group(1))
        m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    return result


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")


def links(text):
    """(line number, target) of every link outside code."""
    for n, line in prose_lines(text):
        m = REF_DEF.match(line)
        if m:
            yield n, m.group(1)
            continue
        spans = code_spans(line)
        for m in LINK.finditer(line):
            if any(s <= m.start() < e for s, e, _ in spans):
                continue
            yield n, m.group(1)


def check_links(root, pages, known):
    known_set = set(known)
    known_dirs = {os.path.dirname(p) for p in known}
    for p in list(known_dirs):
        while p:
            p = os.path.dirname(p)
            known_dirs.add(p)
    texts = {p: open(os.path.join(root, p), encoding="utf-8").read() for p in pages}
    anchor_cache = {}
    problems, count = [], 0
    for page in pages:
        for n, target in links(texts[page]):
            if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                continue
            count += 1
            path, _, anchor = target.partition("#")
            if path:
                rel = os.path.normpath(os.path.join(os.path.dirname(page), path))
                if rel.startswith(".."):
                    problems.append(f"{page}:{n}: link {target} leaves the repository")
                    continue
                is_dir = rel in known_dirs or rel == "."
                if rel not in known_set and not is_dir:
                    problems.append(f"{page}:{n}: link {target}: no file {rel} in the repository")
                    continue
            else:
                rel = page
            if not anchor:
                continue
            if not rel.endswith(".md"):
                problems.append(f"{page}:{n}: link {target}: anchor into a file that is not Markdown")
                continue
            if rel not in anchor_cache:
                text = texts.get(rel) or open(os.path.join(root, rel), encoding="utf-8").read()
                anchor_cache[rel] = anchors(text)
            if anchor not in anchor_cache[rel]:
                problems.append(f"{page}:{n}: link {target}: no heading #{anchor} in {rel}")
    return problems, count


# ---------------------------------------------------------------- config keys


def split_args(text):
    """Top-level comma-separated arguments of a call's text."""
    args, depth, cur, quote = [], 0, [], False
    for i, ch in enumerate(text):
        if quote:
            cur.append(ch)
            if ch == '"' and text[i - 1] != "\\":
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    args.append("".join(cur).strip())
    return args


def call_text(text, open_paren):
    depth, i = 1, open_paren + 1
    while i < len(text) and depth:
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
        i += 1
    return text[open_paren + 1:i - 1]


def prefix_of(expr):
    """A prefix expression as a key path: literals kept, anything else a
    parameter; None when it holds no literal (a variable)."""
    expr = re.sub(r"^std::string\((.*)\)$", r"\1", expr.strip())
    parts = [p.strip() for p in expr.split("+")]
    if not any(p.startswith('"') for p in parts):
        return None
    out = "".join(p.strip('"') if p.startswith('"') else "<name>" for p in parts)
    return out.replace("[<name>]", "[]")


def config_keys(root):
    src = os.path.join(root, "src", "config")
    sections = open(os.path.join(src, "config_sections.cc"), encoding="utf-8").read()
    tables = {}  # kServerFields -> [keys]
    for m in re.finditer(r"const Field<[\w:]+> (k\w+Fields)\[\] = \{(.*?)\n\};", sections, re.S):
        tables[m.group(1)] = re.findall(r"^\s*\{\"([a-z0-9_]+)\",", m.group(2), re.M)
    accessor = dict(re.findall(r"(\w+Fields)\(\) \{ return (k\w+Fields); \}", sections))
    prefixes = {}  # kServerFields -> {"server"}
    keys, problems = set(), []
    for f in sorted(os.listdir(src)):
        if not f.endswith(".cc") or f == "config_sections.cc":
            continue
        text = open(os.path.join(src, f), encoding="utf-8").read()
        for m in re.finditer(r"\b(Sub|DescribeFields|ReadSection)\(", text):
            args = split_args(call_text(text, m.end() - 1))
            fields = [i for i, a in enumerate(args) if re.fullmatch(r"\w+Fields\(\)", a)]
            if not fields:
                continue
            table = accessor.get(args[fields[0]][:-2])
            where = 1 if m.group(1) == "ReadSection" else 0
            prefix = prefix_of(args[where]) if len(args) > where else None
            if table and prefix is not None:
                prefixes.setdefault(table, set()).add(prefix)
        for m in re.finditer(r"push_back\(\s*\{\s*\"([a-z][a-z0-9_.\[\]]*)\"", text):
            keys.add(m.group(1))
    for table, leaves in sorted(tables.items()):
        if table not in prefixes:
            problems.append(f"src/config/config_sections.cc: table {table} is under no section "
                            "this script can find in src/config/*.cc: teach scripts/check-docs.py")
            continue
        for prefix in prefixes[table]:
            for leaf in leaves:
                keys.add(f"{prefix}.{leaf}" if prefix else leaf)
    if len(keys) < 80:
        problems.append(f"src/config: only {len(keys)} config keys found: the tables' shape "
                        "changed; teach scripts/check-docs.py")
    return keys, problems


def doc_pages(root):
    pages = ["README.md"]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        pages += sorted(os.path.join("docs", f) for f in os.listdir(docs) if f.endswith(".md"))
    return pages


def expand_braces(name):
    m = re.search(r"\{([^{}]*)\}", name)
    if not m:
        return [name]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(name[:m.start()] + alt.strip() + name[m.end():])
    return out


def documented_names(texts):
    """Code spans outside fences (a), and the names table first cells
    continue (b)."""
    spans, continued = [], set()
    for text in texts:
        for _, line in prose_lines(text):
            found = code_spans(line)
            spans += [c for _, _, c in found]
            if not line.lstrip().startswith("|"):
                continue
            first_cell = re.split(r"(?<!\\)\|", line.strip())[1]
            last = None
            for _, _, c in code_spans(first_cell):
                for name in expand_braces(c):
                    if name.startswith(".") and last:
                        continued.add(last.rsplit(".", 1)[0] + name)
                    elif "." in name:
                        last = name
                        continued.add(name)
    return spans, continued


def key_pattern(key):
    parts = []
    for seg in key.split("."):
        if seg == "<name>":
            parts.append(r"(?:<[^>]+>|[A-Za-z0-9_-]+)")
        elif seg.endswith("[]"):
            parts.append(re.escape(seg[:-2]) + r"\[[A-Za-z0-9_]*\]")
        else:
            parts.append(re.escape(seg))
    return re.compile(r"^" + r"\.".join(parts) + r"(?!\w)", re.M)


def check_keys(root, texts):
    keys, problems = config_keys(root)
    spans, continued = documented_names(texts)
    blob = "\n".join(spans + sorted(continued))
    for key in sorted(keys):
        if not key_pattern(key).search(blob):
            problems.append(f"config key {key} is documented on no page (README.md, docs/*.md)")
    return problems, len(keys)


# ---------------------------------------------------------------- routes


def openapi_path(pattern):
    return re.sub(r"\([^)]*\)", lambda g: "{path}" if g.group(0) in ("(.+)", "(.*)") else "{id}",
                  pattern)


def routes(root):
    found = set()
    spec = json.load(open(os.path.join(root, "src", "api", "openapi.json"), encoding="utf-8"))
    for path, item in spec.get("paths", {}).items():
        for method in item:
            if method in ("get", "post", "put", "patch", "delete", "head", "options"):
                found.add((method.upper(), path))
    api = os.path.join(root, "src", "api")
    for f in sorted(os.listdir(api)):
        if f.endswith(".cc"):
            text = open(os.path.join(api, f), encoding="utf-8").read()
            for m in re.finditer(r"\.(Get|Post|Delete|Put|Patch)\(\s*\"(/[^\"]*)\"\s*,", text):
                found.add((m.group(1).upper(), openapi_path(m.group(2))))
    return found


def route_pattern(method, path):
    body = re.sub(r"\\\{[^}]*\\\}", r"\\{[^}/]+\\}", re.escape(path))
    return re.compile(r"(?<![A-Z])" + method + r" " + body + r"(?![\w/{}.-])")


def check_routes(root, texts):
    problems = []
    prose = "\n".join(line for text in texts for _, line in prose_lines(text))
    found = routes(root)
    for method, path in sorted(found, key=lambda r: (r[1], r[0])):
        if not route_pattern(method, path).search(prose):
            problems.append(f"route {method} {path} is documented on no page "
                            "(README.md, docs/*.md)")
    return problems, len(found)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                           else os.path.join(os.path.dirname(__file__), ".."))
    pages, known = md_files(root)
    problems, link_count = check_links(root, pages, known)
    texts = [open(os.path.join(root, p), encoding="utf-8").read() for p in doc_pages(root)]
    key_problems, key_count = check_keys(root, texts)
    route_problems, route_count = check_routes(root, texts)
    problems += key_problems + route_problems
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-docs: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-docs: {link_count} links in {len(pages)} Markdown files resolve; "
          f"{key_count} config keys and {route_count} routes are documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
