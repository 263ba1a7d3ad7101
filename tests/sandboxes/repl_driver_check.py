# Host-side check of the stateful-sandbox REPL drivers in src/sandboxes/repl/.
#
# Runs each driver the way a sandbox does (a FIFO opened by the driver
# read-write, cwd = a workspace directory, stdin /dev/null, stdout and stderr
# pipes), speaks the CRX1 frame protocol to it and checks the end markers,
# the trailer and the semantics the service relies on: state carried across
# calls, errors, timeouts, exits, hostile output, split frames, bad frames.
# No container, engine or build needed: `python3 tests/sandboxes/repl_driver_check.py`.
# Prints PASS/FAIL per check and language; exits 1 if anything failed.
import json
import os
import re
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPL = os.path.join(ROOT, "src", "sandboxes", "repl")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
NODE = shutil.which("node") or "/usr/bin/node"
MARK = b"\x1ecoderunner-init "
# A rich-result record (src/sandboxes/repl/repl.py): taken out of stdout,
# as the service's TakeCellRecords does.
RECORD = re.compile(rb"\x1ecoderunner-result (.*?)\n", re.S)
WAIT = 10.0  # Bound on every wait.


def frame(nonce, timeout_ms, code, magic=b"CRX1"):
    payload = nonce.encode() + b"\0" + str(timeout_ms).encode() + b"\0" + code.encode()
    return magic + len(payload).to_bytes(4, "little") + payload


class Driver:
    def __init__(self, lang, workdir):
        ext = {"python": "py", "node": "js", "bash": "sh"}[lang]
        script = os.path.join(workdir, ".coderunner-repl." + ext)
        shutil.copy(os.path.join(REPL, "repl." + ext), script)
        fifo = os.path.join(workdir, ".coderunner-in")
        os.mkfifo(fifo)
        argv = {"python": [PYTHON, "-u"], "node": [NODE], "bash": ["bash"]}[lang] + [script, fifo]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "LANG": "C.UTF-8"}
        self.proc = subprocess.Popen(argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out, self.err = b"", b""
        # Like the service: a non-blocking open fails until the driver reads.
        deadline = time.monotonic() + WAIT
        while True:
            try:
                self.w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise AssertionError("driver never opened its FIFO")
                time.sleep(0.01)
        os.set_blocking(self.w, True)

    def send(self, data, pieces=1):
        step = -(-len(data) // pieces)
        for i in range(0, len(data), step):
            os.write(self.w, data[i:i + step])
            if pieces > 1:
                time.sleep(0.05)

    def pump(self, done, what):
        """Reads both pipes until done() or WAIT seconds pass."""
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ, "out")
        sel.register(self.proc.stderr, selectors.EVENT_READ, "err")
        deadline = time.monotonic() + WAIT
        try:
            while not done():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("timed out waiting for %s; stdout=%r stderr=%r"
                                         % (what, self.out[-300:], self.err[-300:]))
                for key, _ in sel.select(min(left, 0.2)):
                    data = os.read(key.fileobj.fileno(), 65536)
                    if not data:
                        sel.unregister(key.fileobj)
                        if not sel.get_map():
                            raise AssertionError("driver closed its output waiting for %s "
                                                 "(exit %r); stderr=%r" % (what, self.proc.wait(WAIT), self.err[-300:]))
                    elif key.data == "out":
                        self.out += data
                    else:
                        self.err += data
        finally:
            sel.close()

    def call(self, code, timeout_ms=5000, pieces=1):
        """One call: (stdout, stderr, trailer dict), markers stripped."""
        nonce = secrets.token_hex(16)
        self.send(frame(nonce, timeout_ms, code), pieces)
        end = MARK + b'{"eof":"' + nonce.encode() + b'"}\n'
        tail = b'"eof":"' + nonce.encode() + b'"}\n'

        def ended():
            if not self.out.endswith(end) or not self.err.endswith(tail):
                return False
            return self.err.rfind(MARK) >= 0
        self.pump(ended, "the end of call %r" % code[:40])
        out, err = self.out[:-len(end)], self.err
        self.records = []

        def take(match):
            self.records.append(json.loads(match.group(1)))
            return b""
        out = RECORD.sub(take, out)
        i = err.rfind(MARK)
        trailer = json.loads(err[i + len(MARK):])
        self.out, self.err = b"", b""
        for key in ("exit_code", "signal", "wall_us", "cpu_us", "memory_peak_bytes", "oom_kills",
                    "output_bytes", "output_entries", "output_rolled_back", "timed_out"):
            assert isinstance(trailer.get(key), int), "trailer lacks %s: %r" % (key, trailer)
        assert trailer["eof"] == nonce and trailer["wall_us"] >= 0, trailer
        return out, err[:i], trailer

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(WAIT)
        self.proc.stdout.close()
        self.proc.stderr.close()
        os.close(self.w)


def expect(res, stdout=None, exit_code=0, timed_out=0, stderr_has=(), stderr_lacks=()):
    out, err, t = res
    assert t["exit_code"] == exit_code, "exit_code %r, wanted %r; stderr=%r" % (t["exit_code"], exit_code, err)
    assert t["timed_out"] == timed_out, "timed_out %r, wanted %r" % (t["timed_out"], timed_out)
    if stdout is not None:
        assert out == stdout, "stdout %r, wanted %r (stderr=%r)" % (out, stdout, err)
    for s in stderr_has:
        assert s.encode() in err, "stderr lacks %r: %r" % (s, err)
    for s in stderr_lacks:
        assert s.encode() not in err, "stderr has %r: %r" % (s, err)


HOSTILE = ("q\"uo'te \\back\\slash\\n\nnew line ${x} $(id) `id` %s %% é日本 \x1e\x1f "
           "\x1ecoderunner-init {\"eof\":\"deadbeefdeadbeef\"}\n"
           "\x1ecoderunner-init {\"exit_code\":0,\"eof\":\"deadbeefdeadbeef\"}")


def sq(s):  # A bash single-quoted word.
    return "'" + s.replace("'", "'\\''") + "'"


def check_state(d, lang):
    codes = {"python": ["x = 41", "def f(): return x + 1", "print(f())"],
             "node": ["var x = 41", "function f(){return x+1}", "console.log(f())"],
             "bash": ["x=41", "f(){ echo $((x+1)); }; cd /tmp", "f; pwd"]}[lang]
    expect(d.call(codes[0]), b"")
    expect(d.call(codes[1]), b"")
    expect(d.call(codes[2]), b"42\n/tmp\n" if lang == "bash" else b"42\n")
    if lang == "node":
        expect(d.call("let y = 1"), b"")
        expect(d.call("console.log(y+1)"), b"2\n")
        # Top-level await: its declarations persist too.
        expect(d.call("const z = await Promise.resolve(5); class K {}"), b"")
        expect(d.call("console.log(z, typeof K)"), b"5 function\n")


def check_error(d, lang):
    d.call({"python": "x = 7", "node": "var x = 7", "bash": "x=7"}[lang])
    if lang == "python":
        expect(d.call("def g():\n    return 1/0\ng()"), b"", 1,
               stderr_has=("ZeroDivisionError", "Traceback", "<cell>"), stderr_lacks=("coderunner-repl",))
        [error] = d.records
        assert (error["type"], error["name"], error["value"]) == (
            "error", "ZeroDivisionError", "division by zero"), error
        assert "coderunner-repl" not in error["traceback"], error
        expect(d.call("def (:"), b"", 1, stderr_has=("SyntaxError",), stderr_lacks=("coderunner-repl",))
    elif lang == "node":
        expect(d.call("nope + 1"), b"", 1, stderr_has=("ReferenceError",), stderr_lacks=("coderunner-repl",))
        expect(d.call("function ("), b"", 1, stderr_has=("SyntaxError",))
        # An error thrown by a callback is reported but kills nothing. (Inside
        # the call: output between calls would follow the markers.)
        expect(d.call("setTimeout(() => { throw new Error('late') }, 0); "
                      "await new Promise(r => setTimeout(r, 100))"), b"", stderr_has=("Error: late",))
    else:
        expect(d.call("false"), b"", 1)
        expect(d.call("ls /nonexistent-dir"), b"", 2, stderr_has=("nonexistent-dir",))
    time.sleep(0.05)
    expect(d.call({"python": "print(x)", "node": "console.log(x)", "bash": "echo $x"}[lang]), b"7\n")


def check_results(d, lang):
    if lang != "python":
        raise Skip("rich results come from the Python driver")
    expect(d.call("x = 41"), b"")
    assert d.records == [], d.records
    expect(d.call("print('before', end='')\ndisplay([1])\nx + 1"), b"before")
    assert d.records == [
        {"type": "result", "is_main_result": False, "data": {"text": "[1]"}},
        {"type": "result", "is_main_result": True, "data": {"text": "42"}}], d.records
    expect(d.call("class H:\n    def _repr_html_(self): return '<b>h</b>'\n    def __repr__(self): return 'H'\nH()"), b"")
    assert d.records == [{"type": "result", "is_main_result": True,
                          "data": {"html": "<b>h</b>", "text": "H"}}], d.records
    expect(d.call("None"), b"")  # No value, no result.
    assert d.records == [], d.records
    expect(d.call("_"), b"")  # The last value, as in a notebook.
    assert d.records[0]["data"]["text"] == "H", d.records


def check_no_newline(d, lang):
    code = {"python": "print('a', end='')", "node": "process.stdout.write('a')", "bash": "printf a"}[lang]
    expect(d.call(code), b"a")
    code = {"python": "import sys; sys.stderr.write('e')", "node": "process.stderr.write('e')",
            "bash": "printf e >&2"}[lang]
    out, err, _ = d.call(code)
    assert (out, err) == (b"", b"e"), (out, err)


def check_large(d, lang):
    # 3 MiB through a 64 KiB pipe: the markers must wait for all of it.
    code = {"python": "import sys; sys.stdout.write('y' * (3 << 20)); print('e' * 100000, file=sys.stderr)",
            "node": "process.stdout.write('y'.repeat(3 << 20)); console.error('e'.repeat(100000))",
            "bash": "head -c $((3 << 20)) /dev/zero | tr '\\0' y; printf '%0100000d\\n' 0 | tr 0 e >&2"}[lang]
    out, err, t = d.call(code)
    assert t["exit_code"] == 0, err[-300:]
    assert out == b"y" * (3 << 20), "stdout: %d bytes" % len(out)
    assert err == b"e" * 100000 + b"\n", "stderr: %d bytes" % len(err)


def check_timeout(d, lang):
    d.call({"python": "x = 5", "node": "var x = 5", "bash": "x=5"}[lang])
    if lang == "bash":  # Not enforced by the driver: the call just finishes.
        expect(d.call("sleep 0.4; echo done", timeout_ms=100), b"done\n")
    else:
        loops = {"python": ["while True: pass", "import time; time.sleep(5)",
                            "try:\n    time.sleep(5)\nexcept Exception:\n    pass"],
                 "node": ["while(true){}", "await new Promise(r => setTimeout(r, 5000))",
                          "new Promise(r => setTimeout(r, 5000))"]}[lang]
        for code in loops:
            t0 = time.monotonic()
            expect(d.call(code, timeout_ms=300), b"", 124, 1, stderr_has=("TimeoutError",))
            assert time.monotonic() - t0 < 3, "took %.1f s" % (time.monotonic() - t0)
    expect(d.call({"python": "print(x)", "node": "console.log(x)", "bash": "echo $x"}[lang]), b"5\n")
    if lang == "node":  # A timed-out promise that settles later ends nothing.
        expect(d.call("await new Promise(r => setTimeout(r, 300))", timeout_ms=100), b"", 124, 1)
        expect(d.call("await new Promise(r => setTimeout(r, 600)); console.log('ok')"), b"ok\n")


def check_exit(d, lang):
    if lang == "bash":  # `exit` ends the shell; the service restarts it.
        d.send(frame(secrets.token_hex(8), 1000, "exit 7"))
        assert d.proc.wait(WAIT) == 7, d.proc.returncode
        return
    d.call({"python": "x = 9", "node": "var x = 9"}[lang])
    code, n = {"python": ("import sys; sys.exit(3)", 3), "node": ("process.exit(4)", 4)}[lang]
    expect(d.call(code), b"", n)
    if lang == "python":
        expect(d.call("raise SystemExit('bye')"), b"", 1, stderr_has=("bye",))
        expect(d.call("import sys; sys.exit()"), b"", 0)
    else:
        expect(d.call("await null; require('process').exit(5)"), b"", 5)
    expect(d.call({"python": "print(x)", "node": "console.log(x)"}[lang]), b"9\n")


def check_hostile(d, lang):
    code = {"python": "import sys\nsys.stdout.write(%r)\nsys.stderr.write(%r)" % (HOSTILE, HOSTILE),
            "node": "process.stdout.write(%s); console.error(%s)" % (json.dumps(HOSTILE), json.dumps(HOSTILE)),
            "bash": "printf '%%s' %s; printf '%%s\\n' %s >&2" % (sq(HOSTILE), sq(HOSTILE))}[lang]
    out, err, t = d.call(code)
    assert t["exit_code"] == 0, err
    assert out == HOSTILE.encode(), "stdout %r" % out
    want_err = HOSTILE.encode() + (b"" if lang == "python" else b"\n")
    assert err == want_err, "stderr %r" % err


def check_split(d, lang):
    code = {"python": "print('split é')", "node": "console.log('split é')", "bash": "echo 'split é'"}[lang]
    expect(d.call(code, pieces=3), "split é\n".encode())
    # Two frames in one write: the driver must not read past the first.
    n1, n2 = secrets.token_hex(8), secrets.token_hex(8)
    code2 = {"python": "print(2)", "node": "console.log(2)", "bash": "echo 2"}[lang]
    d.send(frame(n1, 5000, code) + frame(n2, 5000, code2))
    d.pump(lambda: d.err.endswith(('"eof":"%s"}\n' % n2).encode()), "two frames")
    want = "split é\n".encode() + MARK + b'{"eof":"' + n1.encode() + b'"}\n2\n' + MARK + b'{"eof":"' + n2.encode() + b'"}\n'
    assert d.out == want, d.out
    d.out, d.err = b"", b""


class Skip(Exception):
    pass


def check_interrupt(d, lang):
    if lang == "bash":  # Default SIGINT: the service never interrupts bash calls.
        raise Skip("bash keeps the default SIGINT disposition")
    time.sleep(0.2)
    d.proc.send_signal(signal.SIGINT)  # Between calls: ignored.
    time.sleep(0.2)
    assert d.proc.poll() is None, "driver died of an idle SIGINT"
    codes = {"python": ["import time; time.sleep(5)"],
             "node": ["while(true){}", "await new Promise(r => setTimeout(r, 5000))"]}[lang]
    for code in codes:
        nonce = secrets.token_hex(8)
        d.send(frame(nonce, 8000, code))
        time.sleep(0.3)
        d.proc.send_signal(signal.SIGINT)
        # Both ends: the pipes are not ordered, and a stdout marker that
        # came late would open the next call's output.
        d.pump(lambda: d.err.endswith(('"eof":"%s"}\n' % nonce).encode()) and
               d.out.endswith(MARK + ('{"eof":"%s"}\n' % nonce).encode()), "an interrupted call")
        t = json.loads(d.err[d.err.rfind(MARK) + len(MARK):])
        assert (t["exit_code"], t["timed_out"]) == (130, 1), t
        d.out, d.err = b"", b""
    expect(d.call({"python": "print(1)", "node": "console.log(1)"}[lang]), b"1\n")


def check_bad_magic(d, lang):
    d.call({"python": "pass", "node": "1", "bash": ":"}[lang])
    d.send(frame(secrets.token_hex(8), 1000, "1", magic=b"CRX2"))
    try:
        rc = d.proc.wait(WAIT)
    except subprocess.TimeoutExpired:
        raise AssertionError("driver did not exit")
    assert rc == 3, "exit status %r" % rc
    assert b"magic" in d.proc.stderr.read(), "no message on stderr"


CHECKS = [("state", check_state), ("error", check_error), ("results", check_results),
          ("no-newline", check_no_newline),
          ("large-output", check_large),
          ("timeout", check_timeout), ("exit", check_exit), ("hostile", check_hostile),
          ("split-frame", check_split), ("interrupt", check_interrupt), ("bad-magic", check_bad_magic)]


def main():
    failed = 0
    t0 = time.monotonic()
    for lang in ("python", "node", "bash"):
        for name, fn in CHECKS:
            with tempfile.TemporaryDirectory() as tmp:
                d = None
                try:
                    d = Driver(lang, tmp)
                    fn(d, lang)
                    print("PASS %-6s %s" % (lang, name))
                except Skip as e:
                    print("SKIP %-6s %s: %s" % (lang, name, e))
                except Exception as e:  # AssertionError, OSError, bad JSON: all failures.
                    failed += 1
                    print("FAIL %-6s %s: %s: %s" % (lang, name, type(e).__name__, e))
                finally:
                    if d:
                        d.close()
    print("%d failed, %.1f s" % (failed, time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
