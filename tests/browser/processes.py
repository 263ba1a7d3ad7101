"""The processes a browser test runs against: a real `coderunner serve` on a
real engine, and the fake LLM (tests/fake_llm) standing in for the model.

Mirrors tests/integration/server_process.cc: a temp directory for every
state directory, a free port (listen 127.0.0.1:0, read back from the log),
the engine socket and coderunner-init from the environment ctest sets
(tests/browser/CMakeLists.txt), and a host uid range of the server's own.
"""
import ctypes
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

# Seconds to wait for a start (startup sweeps the engine, checks images).
START_BUDGET_S = 90
STOP_BUDGET_S = 20


def required_env(name):
    """The value of an environment variable ctest sets; fails naming it."""
    value = os.environ.get(name, "")
    if not value:
        raise RuntimeError(f"{name} is not set: run the browser tests through ctest "
                           "(ctest -L browser) or set it by hand")
    return value


def required_binary(name):
    """The built binary an environment variable names; fails saying how to build it."""
    path = required_env(name)
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"{name}={path} is not built: "
                           "ninja -C build coderunner coderunner-init fake_llm_server")
    return path


def uid_range(index):
    """(uid_first, uid_count) of this process's `index`th server (0 or 1).

    A job's end kills every process of its uid, and ctest runs the docker and
    podman copies of each module, the integration suites (a range per server
    from 2100065536 up) and the native tests (1000000000 + pid * 64) at the same
    time: each browser test process takes 128 uids keyed by its pid (unique
    among live processes), 64 per server, in a region of its own.
    """
    return 1300000000 + os.getpid() * 128 + 64 * index, 64


def die_with_parent(sig):
    """A Popen preexec_fn: the child gets `sig` when this process dies, so a
    test killed by ctest's timeout leaves no server, fake LLM or driver."""
    def arm():
        ctypes.CDLL(None, use_errno=True).prctl(1, int(sig))  # PR_SET_PDEATHSIG
    return arm


def http(method, url, body=None, headers=None, timeout=30):
    """(status, headers as a lower-case dict, body bytes); never raises on HTTP status."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return res.status, {k.lower(): v for k, v in res.headers.items()}, res.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


class FakeLlm:
    """tests/fake_llm/fake_llm_server on a free port. Not thread-safe."""

    def __init__(self):
        binary = required_binary("CODERUNNER_FAKE_LLM_BINARY")
        self.proc = subprocess.Popen([binary, "--port", "0"], stdout=subprocess.PIPE, text=True,
                                     preexec_fn=die_with_parent(signal.SIGKILL))
        line = self.proc.stdout.readline()
        m = re.match(r"listening on (\d+)", line)
        if not m:
            self.stop()
            raise RuntimeError(f"fake llm server did not start: {line!r}")
        self.port = int(m.group(1))

    @property
    def base_url(self):
        """What goes into llm.base_url."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, replies):
        """Appends scripted replies (see tests/fake_llm/fake_llm_server.cc)."""
        status, _, body = http("POST", f"http://127.0.0.1:{self.port}/_script",
                               {"replies": replies})
        if status != 200:
            raise RuntimeError(f"fake llm /_script: {status} {body!r}")

    def reset(self):
        """Forgets the replies and requests so far."""
        http("POST", f"http://127.0.0.1:{self.port}/_reset", {})

    def requests(self):
        """Every chat request so far: [{"authorization", "body"}]."""
        _, _, body = http("GET", f"http://127.0.0.1:{self.port}/_requests")
        return json.loads(body)

    def stop(self):
        # SIGKILL: a reply sleeping in its delay must not hold the test.
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


# Replies for FakeLlm.script, each taken only by the prompt holding its
# marker (the prompts' own wording, src/intent/prompts.cc), as in
# tests/integration/fake_llm.h.
def code_reply(language, code):
    return {"match": "Language: ", "content": fenced(language, code)}


def fix_reply(language, code):
    return {"match": "minimal fix", "content": fenced(language, code)}


def format_reply(text):
    return {"match": "Raw output", "content": text}


def fenced(language, code):
    return f"Here is the program:\n\n```{language}\n{code}\n```\n"


def sha256_hex(text):
    return hashlib.sha256(text.encode()).hexdigest()


def api_keys_yaml(keys):
    """An auth section for {key: tenant}, every tenant on the pro tier."""
    lines = ["auth:", "  mode: api_keys", "  keys:"]
    for key, tenant in keys.items():
        lines.append(f'    - {{tenant: {tenant}, tier: pro, key_sha256: "{sha256_hex(key)}"}}')
    return "\n".join(lines) + "\n"


def _umount_detached(path):
    """The service bind-mounts its artifacts and volumes dirs onto themselves
    (nosuid, nodev: isolation/host_mount.h); the mounts outlive it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.umount2(path.encode(), 2)  # MNT_DETACH; EINVAL when not a mount.


# Sections a server gets unless its extra_yaml has its own (a second key of
# the same name would not be an error: YAML readers keep one of them).
DEFAULT_SECTIONS = (
    ("auth", "auth: {mode: none}\n"),
    # Small: the machine is shared with other suites.
    ("pool", "pool: {size: 1, max_containers: 4}\n"),
    # The result cache off: every run really runs.
    ("jobs", "jobs: {cache_ttl_s: 0}\n"),
)


class Server:
    """A `coderunner serve` with a generated config; stop() removes everything.

    extra_yaml: config sections appended (auth, llm, ui, ...); without an
    `auth:` section the server runs with auth none. `index` picks this
    process's uid sub-range (uid_range). DEFAULT_SECTIONS fill in the rest.
    """

    def __init__(self, extra_yaml="", index=0):
        self.dir = tempfile.mkdtemp(prefix="coderunner-browser-")
        self.log_path = os.path.join(self.dir, "server.log")
        self.proc = None
        self.port = 0
        uid_first, uid_count = uid_range(index)
        socket = required_env("CODERUNNER_TEST_ENGINE_SOCKET")
        init = required_binary("CODERUNNER_INIT_BINARY")
        config = (
            "server: {listen: 127.0.0.1:0}\n"
            f"engine: {{socket: {socket}}}\n"
            f"sandbox: {{init_path: {init}, uid_first: {uid_first}, uid_count: {uid_count}}}\n"
            f"workspace_dir: {self.dir}/workspaces\n"
            f"artifacts: {{dir: {self.dir}/artifacts}}\n"
            f"volumes: {{dir: {self.dir}/volumes}}\n"
            f"data_dir: {self.dir}/data\n"
            f"instance: browser-{secrets.token_hex(6)}\n"
            + "".join(section for key, section in DEFAULT_SECTIONS
                      if not re.search(rf"^{key}:", extra_yaml, re.M))
            + extra_yaml)
        self.config_path = os.path.join(self.dir, "config.yaml")
        with open(self.config_path, "w") as f:
            f.write(config)
        try:
            self._start()
        except Exception:
            self.stop()
            raise

    def _start(self):
        binary = required_binary("CODERUNNER_BINARY")
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen([binary, "serve", "--config", self.config_path],
                                         stdout=log, stderr=subprocess.STDOUT,
                                         preexec_fn=die_with_parent(signal.SIGTERM))
        deadline = time.monotonic() + START_BUDGET_S
        while time.monotonic() < deadline and not self.port:
            m = re.search(r"\(port (\d+)\)", self.log())
            if m:
                self.port = int(m.group(1))
            elif self.proc.poll() is not None:
                raise RuntimeError(f"coderunner exited with {self.proc.returncode}:\n"
                                   + self.log_tail())
            else:
                time.sleep(0.05)
        if not self.port:
            raise RuntimeError("coderunner did not print its port:\n" + self.log_tail())
        status = 0
        while time.monotonic() < deadline:
            status, _, body = http("GET", self.url("/readyz"))
            if status == 200:
                return
            time.sleep(0.2)
        raise RuntimeError(f"/readyz answered {status}:\n" + self.log_tail())

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def api(self, method, path, body=None, key=None):
        """(status, headers, parsed JSON or None) of one API call."""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        status, hdrs, raw = http(method, self.url(path), body, headers)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return status, hdrs, parsed

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def log_tail(self, lines=60):
        return "\n".join(self.log().splitlines()[-lines:])

    def stop(self):
        """SIGTERM (then SIGKILL), unmounts, removes the temp dir. Idempotent."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_BUDGET_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.dir and os.path.isdir(self.dir):
            for sub in ("artifacts", "volumes"):
                _umount_detached(os.path.join(self.dir, sub))
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = ""
