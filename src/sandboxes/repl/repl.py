# coderunner stateful-sandbox driver for Python (standard library only).
#
# Runs as `python3 -u /workspace/.coderunner-repl.py FIFO` for the whole life
# of a sandbox, so that variables, functions and imports survive between the
# calls the service sends it.
#
# Protocol. Calls arrive on FIFO, which we open read-write: we are then a
# writer ourselves and never read EOF while the service (the real writer)
# restarts. Each call is one frame:
#   b"CRX1" + uint32 little-endian payload length + payload
#   payload = nonce ([0-9a-f]{8,64}) NUL timeout_ms (ASCII decimal) NUL code
# A bad frame is not recoverable (we would not know where the next one
# starts): we say so on stderr and exit 3; the service restarts the sandbox.
# After each call we write, each with a single write() and nothing after it:
#   stdout: "\x1e" 'coderunner-init {"eof":"NONCE"}\n'
#   stderr: "\x1e" 'coderunner-init {...,"timed_out":T,"eof":"NONCE"}\n'
# the same lines coderunner-init ends a cold job with (plus timed_out), so
# the service parses calls and cold jobs alike. The user's output is passed
# through untouched; the service finds the markers by suffix.
#
# Rich results, as a notebook shows them, go to stdout as records of their
# own, each a single write() of one line:
#   "\x1e" 'coderunner-result ' JSON '\n'
# JSON is {"type":"result","is_main_result":B,"data":{FORMAT:STRING,...}}
# for the value of a cell's last expression (main), a display() call or a
# matplotlib figure (plt.show(), or open at the end of the cell: a PNG),
# or {"type":"error","name":N,"value":V,"traceback":T} for the exception
# that ended the cell (its traceback also goes to stderr, as before).
# FORMATs: text, html, markdown, svg, png and jpeg (base64), latex, json
# (itself JSON text), javascript. The service takes these lines out of
# stdout; anything else on stdout is the user's.
#
# Exit codes follow a cold run: 1 for an uncaught exception or syntax error,
# sys.exit(n) gives n & 0xff (what the process would have returned), 124 and
# timed_out=1 when timeout_ms passed, 130 and timed_out=1 on SIGINT (the
# service's second attempt when our own timer could not fire).
import ast
import base64
import builtins
import importlib.machinery
import json
import os
import re
import resource
import signal
import sys
import time
import traceback
import types

MAX_PAYLOAD = 64 << 20  # Far above any call the service accepts.
RECORD = b"\x1ecoderunner-result "
E2B_HOME = "/home/user"  # The writable home of a sandbox the E2B SDKs made.
# IPython's display protocol: the _repr_*_ methods and the format each gives.
REPR_METHODS = (("html", "_repr_html_"), ("markdown", "_repr_markdown_"),
                ("svg", "_repr_svg_"), ("png", "_repr_png_"), ("jpeg", "_repr_jpeg_"),
                ("latex", "_repr_latex_"), ("json", "_repr_json_"),
                ("javascript", "_repr_javascript_"))
NONCE = re.compile(rb"[0-9a-f]{8,64}")


class _Timeout(BaseException):
    """Raised by SIGALRM. BaseException: `except Exception` must not eat it."""


_in_call = False  # Signals only interrupt user code, never our bookkeeping.
_fired = False


def _on_alarm(signum, frame):
    global _fired
    if _in_call:
        _fired = True
        raise _Timeout()


def _on_sigint(signum, frame):
    # A SIGINT that arrives after the call ended (or between calls) is stale.
    if _in_call:
        raise KeyboardInterrupt()


def fail(msg):
    os.write(2, ("coderunner repl: %s\n" % msg).encode())
    sys.exit(3)


def read_exact(fd, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:  # Cannot happen while we hold a write end ourselves.
            fail("request channel closed")
        buf += chunk
    return bytes(buf)


def read_frame(fd):
    head = read_exact(fd, 8)
    if head[:4] != b"CRX1":
        fail("bad frame magic %r" % head[:4])
    n = int.from_bytes(head[4:], "little")
    if n > MAX_PAYLOAD:
        fail("frame too large (%d bytes)" % n)
    parts = read_exact(fd, n).split(b"\0", 2)
    if len(parts) != 3 or not NONCE.fullmatch(parts[0]) or not parts[1].isdigit():
        fail("malformed frame")
    return parts[0].decode(), int(parts[1]), parts[2]


def read_number(path, key=None):
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if key is None and words:
                    return int(words[0])
                if len(words) == 2 and words[0] == key:
                    return int(words[1])
    except (OSError, ValueError):
        pass
    return -1


def first_of(*values):
    return next((v for v in values if v >= 0), -1)


def cpu_us():
    # Children count too: subprocesses the user waited for are part of the call.
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return int((s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime) * 1e6)


def user_traceback(exc):
    # Drop our own frames (exec, compile) so the user sees only their cells.
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == _SELF:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def to_stderr(text):
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except Exception:  # The user replaced or closed sys.stderr.
        os.write(2, text.encode("utf-8", "replace"))


def emit(record):
    """Writes one rich-result record to stdout, after the user's output."""
    flush(sys.stdout, sys.__stdout__)
    write_all(1, RECORD + json.dumps(record, ensure_ascii=False).encode("utf-8", "replace") + b"\n")


def formats_of(value):
    """The formats of `value` a notebook would show: text always."""
    data = {}
    for name, method in REPR_METHODS:
        fn = getattr(type(value), method, None)
        if fn is None or isinstance(value, type):
            continue
        try:
            out = fn(value)
        except Exception:
            continue
        if isinstance(out, tuple):  # (data, metadata)
            out = out[0]
        if out is None:
            continue
        if isinstance(out, bytes):
            out = base64.b64encode(out).decode()
        elif name == "json":
            out = json.dumps(out)
        data[name] = str(out)
    try:
        data["text"] = repr(value)
    except Exception as e:
        data["text"] = "<unprintable %s: %s>" % (type(value).__name__, e)
    return data


def display(*values):
    """Shows each value as a result of the cell (not its main one)."""
    for value in values:
        emit({"type": "result", "is_main_result": False, "data": formats_of(value)})


def show_figures(*args, **kwargs):
    """matplotlib's show(): each open figure becomes a PNG result."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for num in plt.get_fignums():
        fig = plt.figure(num)
        buf = __import__("io").BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        data = {"png": base64.b64encode(buf.getvalue()).decode(), "text": repr(fig)}
        emit({"type": "result", "is_main_result": False, "data": data})
    plt.close("all")


class PyplotHook:
    """Makes matplotlib.pyplot's show() ours as pyplot is imported."""

    def find_spec(self, name, path=None, target=None):
        if name != "matplotlib.pyplot":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_hook(module):
            exec_module(module)
            module.show = show_figures

        spec.loader.exec_module = exec_and_hook
        return spec


def split_last_expression(code):
    """The cell as (statements, last expression or None), compiled."""
    tree = ast.parse(code, "<cell>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    return compile(tree, "<cell>", "exec"), last and compile(last, "<cell>", "eval")


def report_error(exc):
    text = user_traceback(exc)
    to_stderr(text)
    emit({"type": "error", "name": type(exc).__name__, "value": str(exc), "traceback": text})


def run_cell(ns, code):
    # Packages installed since the last cell (`pip install` through the
    # service's gateway relinks the workspace's layer) import at once.
    importlib.invalidate_caches()
    statements, last = split_last_expression(code)
    exec(statements, ns)
    if last is not None:
        value = eval(last, ns)
        if value is not None:
            ns["_"] = value
            emit({"type": "result", "is_main_result": True, "data": formats_of(value)})
    show_figures()


def run(ns, code, timeout_ms):
    """Runs one cell; returns (exit_code, timed_out)."""
    global _in_call, _fired
    # User code may have replaced our handlers; a call must always be stoppable.
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGINT, _on_sigint)
    _fired = False
    try:
        try:
            _in_call = True
            if timeout_ms > 0:
                signal.setitimer(signal.ITIMER_REAL, timeout_ms / 1000)
            run_cell(ns, code)
        finally:
            _in_call = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Timeout:
        pass
    except KeyboardInterrupt:
        to_stderr("KeyboardInterrupt: execution interrupted\n")
        return 130, True
    except SystemExit as e:
        if _fired:
            pass
        elif e.code is None:
            return 0, False
        elif isinstance(e.code, int):
            return e.code & 0xFF, False
        else:
            to_stderr("%s\n" % (e.code,))
            return 1, False
    except BaseException as e:
        if not _fired:
            report_error(e)
            return 1, False
    if _fired:  # Also when user code caught our exception and finished.
        to_stderr("TimeoutError: execution exceeded %d ms\n" % timeout_ms)
        return 124, True
    return 0, False


def flush(*streams):
    for s in streams:
        try:
            s.flush()
        except Exception:
            pass


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def main():
    fd = os.open(sys.argv[-1], os.O_RDWR)  # Not inherited by user subprocesses.
    # User code is __main__ (pickle, dataclasses and `import __main__` look
    # there); this module lives on through our functions' globals.
    main_mod = types.ModuleType("__main__")
    main_mod.__builtins__ = builtins
    sys.modules["__main__"] = main_mod
    ns = main_mod.__dict__
    sys.argv = [""]
    if os.access(E2B_HOME, os.W_OK):  # An E2B sandbox: code runs in its home.
        os.chdir(E2B_HOME)
    builtins.display = display
    sys.meta_path.insert(0, PyplotHook())
    signal.signal(signal.SIGINT, _on_sigint)
    while True:
        nonce, timeout_ms, code = read_frame(fd)
        t0, c0 = time.monotonic_ns(), cpu_us()
        exit_code, timed_out = run(ns, code, timeout_ms)
        wall, cpu = (time.monotonic_ns() - t0) // 1000, cpu_us() - c0
        flush(sys.stdout, sys.__stdout__)
        write_all(1, ('\x1ecoderunner-init {"eof":"%s"}\n' % nonce).encode())
        mem = first_of(read_number("/sys/fs/cgroup/memory.peak"),
                       read_number("/sys/fs/cgroup/memory/memory.max_usage_in_bytes"))
        ooms = first_of(read_number("/sys/fs/cgroup/memory.events", "oom_kill"),
                        read_number("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"))
        flush(sys.stderr, sys.__stderr__)
        write_all(2, ('\x1ecoderunner-init {"exit_code":%d,"signal":0,"wall_us":%d,'
                      '"cpu_us":%d,"memory_peak_bytes":%d,"oom_kills":%d,'
                      '"output_bytes":-1,"output_entries":-1,"output_violation":"",'
                      '"output_rolled_back":0,"timed_out":%d,"eof":"%s"}\n'
                      % (exit_code, wall, cpu, mem, ooms, int(timed_out), nonce)).encode())


_SELF = main.__code__.co_filename

if __name__ == "__main__":
    main()
