# coderunner's pip zygote (src/packages/pip_zygote.cc starts it, compiled in):
# pip imported once, then one forked child per install, so that an install
# does not pay pip's 0.2 s of imports. It runs as root and reads requests
# only from the service (its stdin); a child drops to the install's uid
# before it touches anything an index sent.
#
# Request, one JSON line on stdin:
#   {"id": N, "argv": [...], "env": {...}, "cwd": DIR, "uid": U,
#    "max_bytes": B, "output": FILE}
# argv[0] "pip" runs pip's main with argv[1:] in the child; any other argv
# is exec'd (an absolute path). FILE, created by the child as U, gets its
# stdout and stderr. Answers, one JSON line each on stdout:
#   {"ready": true}                  once, after the imports
#   {"id": N, "pid": P}              the child, leader of its own group
#   {"id": N, "exit": C}             it exited with C, or
#   {"id": N, "signal": S}           was killed by signal S
# The zygote exits when its stdin closes (the service is gone).
import json
import os
import resource
import select
import signal
import sys
import traceback

from pip._internal.cli.main import main as pip_main

# What an install uses, imported now rather than in each child (measured:
# the modules an install of a pure-Python wheel imports that pip's main
# does not; pkg_resources alone is a third of pip's import time).
import argparse  # noqa: F401,E402
import importlib.metadata  # noqa: F401,E402
import netrc  # noqa: F401,E402

import pip._internal.commands.install  # noqa: F401,E402
import pip._internal.index.package_finder  # noqa: F401,E402
import pip._internal.metadata.importlib  # noqa: F401,E402
import pip._internal.metadata.pkg_resources  # noqa: F401,E402
import pip._internal.network.session as pip_session  # noqa: E402
import pip._internal.operations.install.wheel  # noqa: F401,E402
import pip._internal.resolution.resolvelib.resolver  # noqa: F401,E402
import pip._vendor.distro  # noqa: F401,E402
import pip._vendor.pkg_resources  # noqa: F401,E402

# pip's User-Agent runs three programs (rustc --version among them) for
# every session; it is the same string for every install, so it is made
# once, here.
_USER_AGENT = pip_session.user_agent()
pip_session.user_agent = lambda: _USER_AGENT

SETUP_FAILED = 126  # The child could not become the install's process.


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def become(req):
    os.setpgid(0, 0)
    uid = int(req["uid"])
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    os.umask(0o022)
    limit = int(req["max_bytes"])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.chdir(req["cwd"])
    out = os.open(req["output"], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.closerange(3, 65536)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(req["env"])


def child(req):
    try:
        become(req)
    except BaseException:
        os._exit(SETUP_FAILED)
    # Whatever happens below, this process ends here: it never returns to
    # the zygote's loop.
    code = 1
    try:
        argv = req["argv"]
        if argv[0] != "pip":
            os.execve(argv[0], argv, req["env"])
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        code = pip_main(argv[1:])
    except SystemExit as e:
        code = 0 if e.code is None else e.code
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)


def start(req, children):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        child(req)
    try:
        os.setpgid(pid, pid)  # Also in the child: whichever runs first.
    except OSError:
        pass
    children[pid] = req["id"]
    send({"id": req["id"], "pid": pid})


def reap(children):
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        rid = children.pop(pid, None)
        if rid is None:
            continue
        if os.WIFSIGNALED(status):
            send({"id": rid, "signal": os.WTERMSIG(status)})
        else:
            send({"id": rid, "exit": os.WEXITSTATUS(status)})


def main():
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children = {}
    pending = b""
    send({"ready": True})
    while True:
        try:
            readable, _, _ = select.select([0, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in readable:
            try:
                while os.read(wake_r, 4096):
                    pass
            except BlockingIOError:
                pass
            reap(children)
        if 0 in readable:
            data = os.read(0, 65536)
            if not data:
                for pid in children:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
                return
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                start(json.loads(line), children)


main()
