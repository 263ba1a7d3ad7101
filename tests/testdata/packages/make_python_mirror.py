#!/usr/bin/env python3
"""Builds a PEP 503 "simple" package index of small wheels, for the tests of
packages from a mirror (tests/integration/packages_test.cc).

Usage: make_python_mirror.py DIR [--newer] [--tamper]

--newer adds crtiny 1.2 (what a range then resolves to); --tamper builds
crtiny 1.1 with other bytes (a file changed under its name). Run again
over DIR, either changes the index in place, as a mirror's update would.

DIR/simple/index.html lists every project; DIR/simple/<name>/index.html
links each of its wheels under DIR/files/ with a #sha256= fragment, as
PEP 503 asks. Served as static files, DIR is a mirror as a directory of
wheels behind any web server is. Every wheel is built here from the
sources below, so the index is the same on every machine (fixed
timestamps), and no package index is needed to make it.
"""
import base64
import hashlib
import os
import sys
import zipfile

# name -> version -> (modules {path: text}, requires)
PROJECTS = {
    # Pure Python, two versions.
    "crtiny": {
        "1.0": ({"crtiny/__init__.py": "VERSION = '1.0'\n"
                 "def greet(who):\n    return 'hello ' + who\n"}, []),
        "1.1": ({"crtiny/__init__.py": "VERSION = '1.1'\n"
                 "def greet(who):\n    return 'hello, ' + who + '!'\n"}, []),
    },
    # One dependency, with a range.
    "crdepends": {
        "2.0": ({"crdepends/__init__.py": "import crtiny\n"
                 "def shout(who):\n    return crtiny.greet(who).upper()\n"},
                ["crtiny>=1.1"]),
    },
    # Needs the crtiny crdepends cannot have: both together conflict.
    "crpinned": {
        "1.0": ({"crpinned/__init__.py": "import crtiny\n"}, ["crtiny==1.0"]),
    },
    # Depends on a name the tests' policy refuses.
    "crsneaky": {
        "1.0": ({"crsneaky/__init__.py": "import crrefused\n"}, ["crrefused"]),
    },
    "crrefused": {
        "1.0": ({"crrefused/__init__.py": "SECRET = 1\n"}, []),
    },
    # Tagged as a CPython 3.11 binary for glibc 2.17 (manylinux2014), as
    # most compiled wheels are: only a Python told every manylinux tag up to
    # its glibc's takes it.
    "crnative": {
        "1.0": ({"crnative/__init__.py": "KIND = 'native'\n"}, []),
    },
    # 3 MiB that do not compress: over the tests' installed-bytes bound.
    "crbig": {
        "1.0": ({"crbig/__init__.py": "", "crbig/blob.bin": None}, []),
    },
}

BIG_BYTES = 3 << 20
# Wheel tags other than pure Python's.
TAGS = {"crnative": "cp311-cp311-manylinux_2_17_x86_64"}
EPOCH = (2020, 1, 1, 0, 0, 0)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def wheel_bytes(name, version, modules, requires):
    tag = TAGS.get(name, "py3-none-any")
    entries = []
    for path, text in sorted(modules.items()):
        if text is None:
            data = hashlib.shake_256(path.encode()).digest(BIG_BYTES)
        else:
            data = text.encode()
        entries.append((path, data))
    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    entries.append((f"{info}/METADATA", metadata.encode()))
    purelib = "true" if tag == "py3-none-any" else "false"
    entries.append((f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: coderunner-tests\n"
                                      f"Root-Is-Purelib: {purelib}\nTag: {tag}\n").encode()))
    record = "".join(f"{p},{record_hash(d)},{len(d)}\n" for p, d in entries)
    record += f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode()))
    out_path = os.path.join(OUT, "files", f"{name}-{version}-{tag}.whl")
    with zipfile.ZipFile(out_path, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in entries:
            z.writestr(zipfile.ZipInfo(path, EPOCH), data)
    with open(out_path, "rb") as f:
        return os.path.basename(out_path), hashlib.sha256(f.read()).hexdigest()


def page(title, links):
    body = "".join(f'<a href="{href}">{text}</a><br/>\n' for href, text in links)
    return f"<!DOCTYPE html>\n<html><head><title>{title}</title></head><body>\n{body}</body></html>\n"


def main():
    os.makedirs(os.path.join(OUT, "files"), exist_ok=True)
    for name, versions in PROJECTS.items():
        links = []
        for version, (modules, requires) in versions.items():
            file_name, sha = wheel_bytes(name, version, modules, requires)
            links.append((f"../../files/{file_name}#sha256={sha}", file_name))
        os.makedirs(os.path.join(OUT, "simple", name), exist_ok=True)
        with open(os.path.join(OUT, "simple", name, "index.html"), "w") as f:
            f.write(page(f"Links for {name}", links))
    with open(os.path.join(OUT, "simple", "index.html"), "w") as f:
        f.write(page("Simple index", [(f"{n}/", n) for n in PROJECTS]))


if __name__ == "__main__":
    OUT = sys.argv[1]
    if "--newer" in sys.argv:
        PROJECTS["crtiny"]["1.2"] = ({"crtiny/__init__.py": "VERSION = '1.2'\n"}, [])
    if "--tamper" in sys.argv:
        PROJECTS["crtiny"]["1.1"] = ({"crtiny/__init__.py": "VERSION = 'tampered'\n"}, [])
    main()
