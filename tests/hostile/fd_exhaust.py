# Attack: open file descriptors until the process (and the host) runs out,
# then try to raise the limit.
# Contained at RLIMIT_NOFILE (sandbox.nofile, soft = hard): the open that
# fails says EMFILE, the process never holds more than nofile descriptors,
# and raising the hard limit is refused.
# Reports: "rlimit_nofile SOFT HARD", "max_open N" (descriptors held when
# the open failed, counted in /proc/self/fd), "highest_fd N", "errno NAME"
# and "raise denied" (or RAISED).
import errno, os, resource

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
print("rlimit_nofile", soft, hard)
fds = []
err = "none"
try:
    while True:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    err = errno.errorcode.get(e.errno, str(e.errno))
highest = max(fds)
# Free one so the listing can open its own, which then stands in for it.
os.close(fds.pop())
print("max_open", len(os.listdir("/proc/self/fd")))
print("highest_fd", highest)
print("errno", err)
for fd in fds:
    os.close(fd)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard + 1, hard + 1))
    print("RAISED")
except (ValueError, OSError):
    print("raise denied")
