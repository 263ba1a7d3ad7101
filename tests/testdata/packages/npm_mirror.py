#!/usr/bin/env python3
# A real, offline npm registry for the integration tests (NpmPackagesTest):
# starts verdaccio (installed by scripts/install-deps.sh from
# tests/npm-mirror/ into /var/cache/coderunner/npm-mirror) on 127.0.0.1 with
# its storage in a test's directory, and publishes a handful of tiny packages
# through verdaccio's real publish API (the same PUT /<name> that
# `npm publish` sends), so that the real npm client can install from it.
#
#   npm_mirror.py start --verdaccio-dir VDIR --dir DIR --port PORT
#       writes DIR/config.yaml, starts verdaccio in its own session (pid in
#       DIR/verdaccio.pid, output in DIR/verdaccio.log), waits for
#       /-/ping, adds a user (token in DIR/token) and publishes the packages
#       below. Prints "npm mirror ready on PORT".
#   npm_mirror.py publish --dir DIR --port PORT --name N --version V
#           [--big-bytes B] [--dep NAME@RANGE]...
#       publishes one more package version.
#   npm_mirror.py tamper --dir DIR --name N --version V
#       rewrites the stored tarball with other bytes (same name), so that a
#       client checking the lock's integrity fails with EINTEGRITY.
#   npm_mirror.py stop --dir DIR
#       kills verdaccio's process group.
#
# Packages published by `start` (CommonJS, "main": "index.js"):
#   crleft 1.0.0, 1.1.0, 2.0.0   left-pad; exports VERSION too
#   crdep 1.0.0                  depends on crleft ^1.0.0
#   crpeer 1.0.0                 peerDependencies crleft ^2.0.0, so
#                                `crleft@1 crpeer@1` is an ERESOLVE conflict
#   crscript 1.0.0               preinstall/install/postinstall scripts that
#                                try the network and leave marker files
#   crbig 1.0.0                  3 MiB of random bytes (blob.bin)
#   @crscope/crscoped 1.0.0      a scoped package
#
# Python 3.11, standard library only.

import argparse
import base64
import gzip
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request

USER = "coderunner"
PASSWORD = "coderunner-test-password"
POSTINSTALL_MARKER = "/tmp/coderunner-npm-postinstall-ran"
# npm packs every entry with this mtime (1985-10-26T08:15:00Z).
NPM_MTIME = 499162500


def die(msg):
    print(f"npm_mirror: {msg}", file=sys.stderr)
    sys.exit(1)


def config_yaml(dir_):
    storage = os.path.join(dir_, "storage")
    htpasswd = os.path.join(dir_, "htpasswd")
    access = "    access: $all\n    publish: $authenticated\n    unpublish: $authenticated\n"
    return (
        f"storage: {json.dumps(storage)}\n"
        "auth:\n"
        "  htpasswd:\n"
        f"    file: {json.dumps(htpasswd)}\n"
        "    max_users: 100\n"
        # A cheap bcrypt: the password only guards a test registry.
        "    rounds: 4\n"
        # No uplinks: offline; only what the harness publishes exists.
        "uplinks: {}\n"
        "packages:\n"
        "  '@*/*':\n" + access +
        "  '**':\n" + access +
        "web:\n"
        "  enable: false\n"
        "publish:\n"
        "  allow_offline: true\n"
        "max_body_size: 20mb\n"
        "log: {type: stdout, format: pretty, level: warn}\n"
    )


def http(method, url, body=None, token=None, timeout=30):
    data = None
    headers = {"Accept": "application/json"}
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def make_tgz(files):
    """files: {relative path: bytes}. npm's layout: every entry under
    package/, gzip."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(files):
            data = files[path]
            info = tarfile.TarInfo("package/" + path)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = NPM_MTIME
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=6) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def package_files(name, version, deps=None, peer_deps=None, big_bytes=0):
    """The files of one test package, package.json included."""
    manifest = {
        "name": name,
        "version": version,
        "description": f"coderunner test package {name}",
        "main": "index.js",
        "license": "MIT",
    }
    if deps:
        manifest["dependencies"] = dict(deps)
    if peer_deps:
        manifest["peerDependencies"] = dict(peer_deps)
    files = {}
    base = name.rsplit("/", 1)[-1]
    if base == "crleft":
        files["index.js"] = (
            "module.exports = (s, n) => String(s).padStart(n);\n"
            f"module.exports.VERSION = {json.dumps(version)};\n"
        )
    elif base == "crdep":
        files["index.js"] = (
            'module.exports = (s) => "[" + require("crleft")(s, 5) + "]";\n')
    elif base == "crscript":
        manifest["scripts"] = {
            "preinstall": "node postinstall.js",
            "install": "node postinstall.js",
            "postinstall": "node postinstall.js",
        }
        files["index.js"] = 'module.exports = "crscript";\n'
        files["postinstall.js"] = (
            "// Tries the network and leaves markers: a sandbox that lets this\n"
            "// script run at all is visible from outside.\n"
            'const fs = require("fs");\n'
            'const http = require("http");\n'
            'const path = require("path");\n'
            "const mark = (f) => { try { fs.writeFileSync(f, new Date().toISOString() + \"\\n\"); } catch (e) {} };\n"
            f"mark({json.dumps(POSTINSTALL_MARKER)});\n"
            'mark(path.join(__dirname, "ran-postinstall"));\n'
            "const poke = (u) => { try { http.get(u, (r) => r.resume()).on(\"error\", () => {}).setTimeout(2000, function () { this.destroy(); }); } catch (e) {} };\n"
            'poke("http://127.0.0.1:9/");\n'
            "if (process.env.CR_CANARY_URL) poke(process.env.CR_CANARY_URL);\n"
        )
    elif base == "crscoped":
        files["index.js"] = 'module.exports = "scoped";\n'
    elif big_bytes or base == "crbig":
        n = big_bytes or 3 * 1024 * 1024
        files["blob.bin"] = os.urandom(n)
        files["index.js"] = (
            'module.exports = require("fs").statSync(require("path").join(__dirname, "blob.bin")).size;\n')
    else:
        files["index.js"] = f"module.exports = {json.dumps(name + '@' + version)};\n"
    if big_bytes and "blob.bin" not in files:
        files["blob.bin"] = os.urandom(big_bytes)
    files = {p: (d.encode() if isinstance(d, str) else d) for p, d in files.items()}
    files["package.json"] = (json.dumps(manifest, indent=2) + "\n").encode()
    return manifest, files


def publish(port, token, name, version, deps=None, peer_deps=None, big_bytes=0):
    manifest, files = package_files(name, version, deps, peer_deps, big_bytes)
    tgz = make_tgz(files)
    base = name.rsplit("/", 1)[-1]
    tarball_file = f"{base}-{version}.tgz"
    registry = f"http://127.0.0.1:{port}"
    manifest = dict(manifest)
    manifest["_id"] = f"{name}@{version}"
    manifest["dist"] = {
        "shasum": hashlib.sha1(tgz).hexdigest(),
        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode(),
        "tarball": f"{registry}/{name}/-/{tarball_file}",
    }
    body = {
        "_id": name,
        "name": name,
        "description": manifest["description"],
        "dist-tags": {"latest": version},
        "versions": {version: manifest},
        "access": None,
        "_attachments": {
            # npm names the attachment `${name}-${version}.tgz`.
            f"{name}-{version}.tgz": {
                "content_type": "application/octet-stream",
                "data": base64.b64encode(tgz).decode(),
                "length": len(tgz),
            }
        },
    }
    url = f"{registry}/{urllib.parse.quote(name, safe='@')}"
    status, resp = http("PUT", url, body, token)
    if status not in (200, 201):
        die(f"publishing {name}@{version} failed: HTTP {status}: {resp[:500]!r}")


def add_user(port):
    url = f"http://127.0.0.1:{port}/-/user/org.couchdb.user:{USER}"
    body = {
        "_id": f"org.couchdb.user:{USER}",
        "name": USER,
        "password": PASSWORD,
        "type": "user",
        "roles": [],
        "date": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
    }
    status, resp = http("PUT", url, body)
    if status not in (200, 201):
        die(f"adding user failed: HTTP {status}: {resp[:500]!r}")
    token = json.loads(resp).get("token")
    if not token:
        die(f"adding user gave no token: {resp[:500]!r}")
    return token


def read_pid(dir_):
    try:
        with open(os.path.join(dir_, "verdaccio.pid")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def stop(dir_):
    pid = read_pid(dir_)
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    # Reap it if it is our child (start failing half-way).
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    os.unlink(os.path.join(dir_, "verdaccio.pid"))


def log_tail(dir_):
    try:
        with open(os.path.join(dir_, "verdaccio.log"), errors="replace") as f:
            return f.read()[-2000:]
    except OSError:
        return ""


def cmd_start(args):
    dir_ = os.path.abspath(args.dir)
    bin_ = os.path.join(args.verdaccio_dir, "node_modules/verdaccio/bin/verdaccio")
    if not os.path.exists(bin_):
        die(f"{bin_} is missing: run scripts/install-deps.sh")
    node = shutil.which("node")
    if not node:
        die("node is not on PATH")
    os.makedirs(dir_, exist_ok=True)
    stop(dir_)  # a verdaccio left over in this directory
    # The ping below would happily answer from another server on the port.
    # SO_REUSEADDR, as node sets it: only a listener makes the bind fail,
    # not the TIME_WAIT left by an earlier verdaccio on the same port.
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", args.port))
        except OSError as e:
            die(f"port {args.port} on 127.0.0.1 is taken: {e}")
    for f in ("storage", "htpasswd", "token"):
        p = os.path.join(dir_, f)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.unlink(p)
    conf = os.path.join(dir_, "config.yaml")
    with open(conf, "w") as f:
        f.write(config_yaml(dir_))
    with open(os.path.join(dir_, "verdaccio.log"), "wb") as log:
        proc = subprocess.Popen(
            [node, bin_, "--config", conf, "--listen", f"127.0.0.1:{args.port}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            cwd=dir_, start_new_session=True)
    with open(os.path.join(dir_, "verdaccio.pid"), "w") as f:
        f.write(f"{proc.pid}\n")
    ping = f"http://127.0.0.1:{args.port}/-/ping"
    deadline = time.monotonic() + 20
    while True:
        if proc.poll() is not None:
            stop(dir_)
            die(f"verdaccio exited with {proc.returncode}:\n{log_tail(dir_)}")
        try:
            with urllib.request.urlopen(ping, timeout=1) as resp:
                if resp.status == 200:
                    break
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            stop(dir_)
            die(f"verdaccio did not answer {ping} within 20 s:\n{log_tail(dir_)}")
        time.sleep(0.02)
    try:
        token = add_user(args.port)
        with open(os.path.join(dir_, "token"), "w") as f:
            f.write(token + "\n")
        # 2.0.0 before 1.1.0, so that "latest" (the last published) is
        # 1.1.0: `npm install crleft` means 1.x.
        for version in ("1.0.0", "2.0.0", "1.1.0"):
            publish(args.port, token, "crleft", version)
        publish(args.port, token, "crdep", "1.0.0", deps={"crleft": "^1.0.0"})
        publish(args.port, token, "crpeer", "1.0.0", peer_deps={"crleft": "^2.0.0"})
        publish(args.port, token, "crscript", "1.0.0")
        publish(args.port, token, "crbig", "1.0.0")
        publish(args.port, token, "@crscope/crscoped", "1.0.0")
    except SystemExit:
        stop(dir_)
        raise
    except Exception as e:  # noqa: BLE001 - any failure must stop verdaccio
        stop(dir_)
        die(f"{type(e).__name__}: {e}")
    print(f"npm mirror ready on {args.port}", flush=True)


def parse_dep(spec):
    name, sep, rng = spec.rpartition("@")
    if not sep or not name:
        die(f"--dep wants NAME@RANGE, not {spec!r}")
    return name, rng


def cmd_publish(args):
    try:
        with open(os.path.join(args.dir, "token")) as f:
            token = f.read().strip()
    except OSError as e:
        die(f"no token (was start run with this --dir?): {e}")
    deps = dict(parse_dep(d) for d in args.dep or [])
    publish(args.port, token, args.name, args.version, deps=deps, big_bytes=args.big_bytes)


def cmd_tamper(args):
    base = args.name.rsplit("/", 1)[-1]
    path = os.path.join(args.dir, "storage", args.name, f"{base}-{args.version}.tgz")
    if not os.path.exists(path):
        die(f"{path} is missing")
    with tarfile.open(path, "r:gz") as tar:
        files = {m.name.removeprefix("package/"): tar.extractfile(m).read()
                 for m in tar.getmembers() if m.isfile()}
    files["index.js"] = files.get("index.js", b"") + b"// tampered\n"
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(make_tgz(files))
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description="A local verdaccio npm registry for tests.")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start")
    s.add_argument("--verdaccio-dir", required=True)
    s.add_argument("--dir", required=True)
    s.add_argument("--port", type=int, required=True)
    s = sub.add_parser("publish")
    s.add_argument("--dir", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--name", required=True)
    s.add_argument("--version", required=True)
    s.add_argument("--big-bytes", type=int, default=0)
    s.add_argument("--dep", action="append")
    s = sub.add_parser("tamper")
    s.add_argument("--dir", required=True)
    s.add_argument("--name", required=True)
    s.add_argument("--version", required=True)
    s = sub.add_parser("stop")
    s.add_argument("--dir", required=True)
    args = p.parse_args()
    if args.cmd == "start":
        cmd_start(args)
    elif args.cmd == "publish":
        cmd_publish(args)
    elif args.cmd == "tamper":
        cmd_tamper(args)
    elif args.cmd == "stop":
        stop(args.dir)


if __name__ == "__main__":
    main()
