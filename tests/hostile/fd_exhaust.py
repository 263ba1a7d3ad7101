# Attack: open file descriptors until the process (and host) runs out.
# Contained at RLIMIT_NOFILE.
import os
fds = []
try:
    while True:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print("stopped at", len(fds), "fds, errno", e.errno)
