# Attack: reach the container engine's API socket (or any host socket), which
# would mean full control of the host.
import os, socket
for p in ["/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock",
          "/run/coderunner/docker.sock", "/run/coderunner/podman.sock",
          "/var/run/containerd/containerd.sock", "/run/containerd/containerd.sock"]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p)
        print("REACHED", p)
    except OSError as e:
        print("blocked", p, e.errno)
