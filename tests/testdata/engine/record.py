#!/usr/bin/env python3
"""Records real Docker / Podman Engine API answers for the unit tests.

Usage: python3 tests/testdata/engine/record.py [--only runtime|volumes] [docker|podman]...
Needs the engines' sockets (default /run/coderunner/{docker,podman}.sock,
override with CODERUNNER_<ENGINE>_SOCK) and the image coderunner/bash:5.
--only runtime records only the runtime answers (container_*_runtime*);
--only volumes only the /volumes answers (volume_*).
Each answer is written to tests/testdata/engine/<engine>/<name>.json as
  {"request": {"method", "path", "body"}, "status": N, "body": <json or string>}
where "body" is the parsed JSON answer, or the raw text when it is not JSON.
`path` is what coderunner's clients put in HttpRequest::path (below /v1.41).
Every container created here is removed again (DELETE ?force=1).
"""
import http.client
import json
import os
import socket
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
API = "/v1.41"
IMAGE = "coderunner/bash:5"
NAME = "coderunner-rec-{engine}"
MISSING = "coderunner-rec-missing"
# Podman fails to start containers without explicit rlimits on this host.
ULIMITS = [{"Name": "nofile", "Soft": 1024, "Hard": 1024},
           {"Name": "nproc", "Soft": 4096, "Hard": 4096}]
POLICY_WORKSPACE = "/tmp/coderunner-rec-ws"
POLICY_INIT = "/tmp/coderunner-rec-init"
LABELS = {"io.coderunner.managed": "true", "io.coderunner.instance": "rec",
          "io.coderunner.job": "job-rec", "io.coderunner.language": "bash"}


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=60)
        self.sock_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(60)
        self.sock.connect(self.sock_path)


def call(sock, method, path, body=None):
    conn = UnixConnection(sock)
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data is not None else {}
    conn.request(method, API + path, body=data, headers=headers)
    resp = conn.getresponse()
    raw = resp.read().decode("utf-8", "replace")
    conn.close()
    return resp.status, raw


def record(engine, sock, name, method, path, body=None):
    status, raw = call(sock, method, path, body)
    try:
        parsed = json.loads(raw) if raw.strip() else raw
    except ValueError:
        parsed = raw
    req = {"method": method, "path": path}
    if body is not None:
        req["body"] = body
    out = {"request": req, "status": status, "body": parsed}
    os.makedirs(os.path.join(HERE, engine), exist_ok=True)
    with open(os.path.join(HERE, engine, name + ".json"), "w") as f:
        json.dump(out, f, indent=2, sort_keys=False)
        f.write("\n")
    print(f"{engine}: {name}: {method} {path} -> {status}")
    return status, parsed


def percent_encode(s):
    # Same unreserved set as ContainerClient's PercentEncode.
    return urllib.parse.quote(s, safe="-_.~")


VOLUME = "coderunner-rec-vol"
VOLUME_DIR = "/tmp/coderunner-rec-vol"
VOLUME_LABELS = {"io.coderunner.managed": "true", "io.coderunner.instance": "rec",
                 "io.coderunner.tenant": "acme",
                 "io.coderunner.volume": "vol-0123456789abcdef01234567",
                 "io.coderunner.size_bytes": "1048576", "io.coderunner.name": "notes",
                 "io.coderunner.created_at": "1700000000000"}


def record_volumes(engine, sock):
    """The /volumes answers VolumeClient handles, including "in use"."""
    call(sock, "DELETE", f"/volumes/{VOLUME}")
    os.makedirs(VOLUME_DIR, exist_ok=True)
    name = NAME.format(engine=engine) + "-vol"
    try:
        body = {"Name": VOLUME, "Driver": "local", "Labels": VOLUME_LABELS,
                "DriverOpts": {"type": "none", "device": VOLUME_DIR, "o": "bind"}}
        record(engine, sock, "volume_create", "POST", "/volumes/create", body)
        record(engine, sock, "volume_inspect", "GET", f"/volumes/{VOLUME}")
        record(engine, sock, "volume_inspect_missing", "GET", "/volumes/coderunner-rec-missing")
        filters = json.dumps({"label": ["io.coderunner.instance=rec",
                                        "io.coderunner.managed=true",
                                        "io.coderunner.tenant=acme"]},
                             separators=(",", ":"))
        record(engine, sock, "volume_list", "GET", "/volumes?filters=" + percent_encode(filters))
        empty = json.dumps({"label": ["io.coderunner.instance=nobody"]}, separators=(",", ":"))
        record(engine, sock, "volume_list_empty", "GET", "/volumes?filters=" + percent_encode(empty))
        spec = {"Image": IMAGE, "Cmd": ["true"], "Tty": False,
                "HostConfig": {"NetworkMode": "none", "Ulimits": ULIMITS,
                               "Binds": [f"{VOLUME}:/output:rw"]}}
        call(sock, "POST", f"/containers/create?name={name}", spec)
        record(engine, sock, "volume_remove_in_use", "DELETE", f"/volumes/{VOLUME}")
        call(sock, "DELETE", f"/containers/{name}?force=1&v=1")
        record(engine, sock, "volume_remove", "DELETE", f"/volumes/{VOLUME}")
        record(engine, sock, "volume_remove_missing", "DELETE", f"/volumes/{VOLUME}")
    finally:
        call(sock, "DELETE", f"/containers/{name}?force=1&v=1")
        call(sock, "DELETE", f"/volumes/{VOLUME}")


def record_runtime(engine, sock, name):
    """A container that asks for runsc, created (not started), inspected
    through both APIs: Docker names the runtime in HostConfig.Runtime;
    Podman 4.3 says "oci" there, ignores the request and reports the runtime
    it really uses as OCIRuntime of its libpod inspect."""
    spec = {"Image": IMAGE, "Cmd": ["true"], "Labels": LABELS,
            "HostConfig": {"NetworkMode": "none", "Ulimits": ULIMITS, "Runtime": "runsc"}}
    call(sock, "DELETE", f"/containers/{name}-runtime?force=1&v=1")
    try:
        _, rt = record(engine, sock, "container_create_runtime", "POST",
                       f"/containers/create?name={name}-runtime", spec)
        record(engine, sock, "container_inspect_runtime", "GET", f"/containers/{rt['Id']}/json")
        record(engine, sock, "container_inspect_runtime_libpod", "GET",
               f"/libpod/containers/{rt['Id']}/json")
    finally:
        call(sock, "DELETE", f"/containers/{name}-runtime?force=1&v=1")


def main(engines, only=None):
    for engine in engines:
        if only == "volumes":
            sock = os.environ.get(f"CODERUNNER_{engine.upper()}_SOCK",
                                  f"/run/coderunner/{engine}.sock")
            record_volumes(engine, sock)
            continue
        sock = os.environ.get(f"CODERUNNER_{engine.upper()}_SOCK",
                              f"/run/coderunner/{engine}.sock")
        name = NAME.format(engine=engine)
        if only == "runtime":
            record_runtime(engine, sock, name)
            continue
        call(sock, "DELETE", f"/containers/{name}?force=1&v=1")
        try:
            record(engine, sock, "ping", "GET", "/_ping")
            record(engine, sock, "version", "GET", "/version")
            record(engine, sock, "image_inspect", "GET", f"/images/{IMAGE}/json")
            record(engine, sock, "image_inspect_missing", "GET",
                   "/images/coderunner/missing:0/json")
            spec = {"Image": IMAGE, "Cmd": ["bash", "-c", "echo hi; exit 3"],
                    "Labels": LABELS, "Tty": False,
                    "HostConfig": {"NetworkMode": "none", "Ulimits": ULIMITS}}
            _, created = record(engine, sock, "container_create", "POST",
                                f"/containers/create?name={name}", spec)
            cid = created["Id"]
            record(engine, sock, "container_create_conflict", "POST",
                   f"/containers/create?name={name}", spec)
            missing_spec = dict(spec, Image="coderunner/missing:0")
            record(engine, sock, "container_create_missing_image", "POST",
                   f"/containers/create?name={MISSING}", missing_spec)
            call(sock, "DELETE", f"/containers/{MISSING}?force=1&v=1")
            record(engine, sock, "container_start", "POST", f"/containers/{cid}/start")
            record(engine, sock, "container_wait", "POST", f"/containers/{cid}/wait")
            record(engine, sock, "container_inspect_exited", "GET", f"/containers/{cid}/json")
            filters = json.dumps({"label": ["io.coderunner.instance=rec",
                                            "io.coderunner.managed=true"]},
                                 separators=(",", ":"))
            record(engine, sock, "container_list", "GET",
                   "/containers/json?all=1&filters=" + percent_encode(filters))
            record(engine, sock, "container_kill_stopped", "POST",
                   f"/containers/{cid}/kill?signal=KILL")
            record(engine, sock, "container_remove", "DELETE", f"/containers/{cid}?force=1&v=1")
            record(engine, sock, "container_remove_missing", "DELETE",
                   f"/containers/{MISSING}?force=1&v=1")
            record(engine, sock, "container_inspect_missing", "GET",
                   f"/containers/{MISSING}/json")
            # An out-of-memory kill: 6 MiB (the engines' floor), no swap.
            oom_spec = dict(spec, Cmd=["bash", "-c", "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}"],
                            HostConfig=dict(spec["HostConfig"], Memory=6 << 20,
                                            MemorySwap=6 << 20))
            _, oom = record(engine, sock, "container_create_oom", "POST",
                            f"/containers/create?name={name}-oom", oom_spec)
            call(sock, "POST", f"/containers/{oom['Id']}/start")
            call(sock, "POST", f"/containers/{oom['Id']}/wait")
            record(engine, sock, "container_inspect_oom", "GET", f"/containers/{oom['Id']}/json")
            # A container created (not started) from ContainerPolicy's create
            # body, for ContainerPolicy::Verify. policy_create.json is the
            # body BuildCreateBody produced for the job in
            # tests/unit/isolation/container_policy_test.cc (RecordedJob).
            os.makedirs(POLICY_WORKSPACE, exist_ok=True)
            if not os.path.exists(POLICY_INIT):
                with open(POLICY_INIT, "w") as f:
                    f.write("#!/bin/sh\n")
                os.chmod(POLICY_INIT, 0o755)
            with open(os.path.join(HERE, "policy_create.json")) as f:
                policy_spec = json.load(f)
            _, pol = record(engine, sock, "container_create_policy", "POST",
                            f"/containers/create?name={name}-policy", policy_spec)
            record(engine, sock, "container_inspect_policy", "GET",
                   f"/containers/{pol['Id']}/json")
            record_runtime(engine, sock, name)
        finally:
            for n in (name, name + "-oom", name + "-policy", MISSING):
                call(sock, "DELETE", f"/containers/{n}?force=1&v=1")


if __name__ == "__main__":
    args = sys.argv[1:]
    only = None
    if args[:1] == ["--only"]:
        only, args = args[1], args[2:]
    main(args or ["docker", "podman"], only)
