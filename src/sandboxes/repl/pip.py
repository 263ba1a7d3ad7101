#!/usr/bin/env python3
# pip inside a coderunner sandbox (written into its workspace as
# .coderunner-bin/pip and pip3, first on PATH). `pip install NAME...` asks
# the service, through the sandbox's gateway socket, to install the
# packages from the operator's index under the tenant's policy, outside the
# sandbox; they stay importable for the sandbox's life (docs/packages.md).
# Every other pip command runs the image's own pip, which has no network.
import json
import os
import socket
import sys

GATEWAY = "/workspace/.coderunner-gateway"
# Flags that change nothing here: taken and dropped.
HARMLESS = {
    "-q", "-qq", "--quiet", "-U", "--upgrade", "--user", "--no-cache-dir",
    "--disable-pip-version-check", "--no-input", "--break-system-packages",
    "--progress-bar=off", "--no-color", "--no-warn-script-location",
}
MAX_ANSWER = 1 << 20


def run_image_pip():
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in os.environ.get("PATH", "").split(":") if p and os.path.abspath(p) != here]
    os.environ["PATH"] = ":".join(path)
    name = os.path.basename(sys.argv[0])
    try:
        os.execvp(name, [name] + sys.argv[1:])
    except OSError:
        sys.exit(f"{name}: this sandbox's image has no {name} of its own; "
                 "only `pip install NAME...` is served here")


def fail(message, code=1):
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(code)


def ask(request):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(GATEWAY)
        except OSError as e:
            fail(f"the service's package gateway is not there ({e.strerror}): "
                 "this sandbox takes no packages")
        s.sendall(json.dumps(request).encode() + b"\n")
        s.shutdown(socket.SHUT_WR)
        answer = b""
        while len(answer) < MAX_ANSWER:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    try:
        return json.loads(answer)
    except ValueError:
        fail("the service's package gateway gave no answer")


def main():
    args = sys.argv[1:]
    if not args or args[0] != "install":
        run_image_pip()
    names = []
    for arg in args[1:]:
        if arg in HARMLESS:
            continue
        if arg.startswith("-"):
            fail(f"pip install {arg}: not in a coderunner sandbox, which installs only named "
                 "packages from the operator's index", 2)
        names.append(arg)
    if not names:
        fail("name the packages to install", 2)
    answer = ask({"ecosystem": "python", "packages": names})
    if not answer.get("ok"):
        fail(f"{answer.get('code', 'package_install_failed')}: {answer.get('message', '')}")
    installed = " ".join(f"{p['name']}-{p['version']}" for p in answer.get("packages", []))
    print(f"Successfully installed {installed}")


if __name__ == "__main__":
    main()
