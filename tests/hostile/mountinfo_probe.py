# Attack: read /proc/1/environ, /proc/self/mountinfo and /proc/1/cmdline for
# secrets and host paths, the first step of a host-path attack.
for p in ["/proc/1/environ", "/proc/self/environ", "/proc/1/cmdline", "/proc/self/mountinfo"]:
    try:
        print(p, open(p, "rb").read()[:4000])
    except OSError as e:
        print(p, "unreadable", e.errno)
