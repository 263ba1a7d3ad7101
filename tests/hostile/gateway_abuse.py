# Attack: a sandbox's program turns on the service's package gateway (the
# Unix socket in its workspace its pip shim talks to). It holds connections
# open without a word, sends a line larger than the gateway takes, sends
# JSON nested past its depth, names an ecosystem and options the service
# never installs, and asks for a package its tier refuses, all at once.
# Contained when every abuse gets its refusal (invalid_request,
# sandbox_busy, invalid_package, package_refused) or the socket closed,
# and a real `pip install` afterwards still works: the gateway is neither
# blinded nor held.
import json
import socket
import threading
import time

GATEWAY = "/workspace/.coderunner-gateway"


def ask(payload, timeout=20):
    """The code of the gateway's answer ("ok" for none), or what happened."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            # Blocking: a full backlog makes it wait its turn, not fail.
            s.connect(GATEWAY)
        except OSError as e:
            return type(e).__name__
        s.settimeout(timeout)
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # Refused before all of it was read: the answer may be there.
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except OSError:
            pass
    if not data:
        return "closed"
    try:
        return json.loads(data.split(b"\n")[0]).get("code", "ok")
    except ValueError:
        return "garbled"


# Silent connections: each holds the gateway for at most its read timeout.
silent = []
for _ in range(8):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(GATEWAY)
        silent.append(s)
    except OSError:
        pass
print("SILENT", len(silent))
results = {}


def run(name, payload):
    results[name] = ask(payload)


cases = {
    "HUGE": b'{"ecosystem": "python", "packages": ["' + b"a" * (1 << 20) + b'"]}\n',
    "DEEP": b"[" * 100000 + b"]" * 100000 + b"\n",
    "ECOSYSTEM": b'{"ecosystem": "cargo", "packages": ["serde"]}\n',
    "OPTION": b'{"ecosystem": "python", "packages": ["--index-url=http://evil/"]}\n',
    "REFUSED": b'{"ecosystem": "python", "packages": ["crrefused"]}\n',
}
threads = [threading.Thread(target=run, args=item) for item in cases.items()]
for t in threads:
    t.start()
for t in threads:
    t.join()
for s in silent:
    s.close()
for name in cases:
    print(name, results[name])


def ask_when_free(payload):
    """ask(), again while the gateway says another request is in service
    (the last silent one, until the gateway has read its end)."""
    for _ in range(400):
        code = ask(payload)
        if code not in ("sandbox_busy", "BlockingIOError"):
            return code
        time.sleep(0.05)
    return code


# Once the silent ones are gone, one at a time, each is answered.
for name, payload in cases.items():
    print("AGAIN_" + name, ask_when_free(payload))
print("INSTALL", ask_when_free(b'{"ecosystem": "python", "packages": ["crtiny==1.0"]}\n'))
