# Attack: find out whether the job runs as root or holds any capability,
# then try privileged operations (chown, mknod, setuid(0), mount), and use a
# device node if one could be made.
import ctypes
import os
import stat
st = {l.split(":")[0]: l.split(":", 1)[1].strip() for l in open("/proc/self/status")}
print("UID", os.getuid(), os.geteuid(), "GID", os.getgid())
print("CAPS", st["CapEff"], st["CapPrm"], st["CapBnd"], "NNP", st.get("NoNewPrivs"))
# The kernel's own answer (gVisor's /proc/self/status has no NoNewPrivs line).
print("PRCTL_NNP", ctypes.CDLL(None, use_errno=True).prctl(39, 0, 0, 0, 0))  # PR_GET_NO_NEW_PRIVS
for name, fn in [("setuid0", lambda: os.setuid(0)), ("chown", lambda: os.chown("/tmp", 0, 0)),
                 ("mknod", lambda: os.mknod("/tmp/dev", 0o600 | 0o020000, os.makedev(1, 3)))]:
    try:
        fn()
        print("ALLOWED", name)
    except OSError as e:
        print("denied", name, e.errno)
# A node with the numbers of /dev/mem (1:1), if the runtime let one be made,
# must not open onto host memory.
try:
    os.mknod("/tmp/mem", 0o600 | stat.S_IFCHR, os.makedev(1, 1))
except OSError:
    pass
try:
    fd = os.open("/tmp/mem", os.O_RDONLY)
    print("OPENED /dev/mem node:", os.read(fd, 16))
except OSError as e:
    print("denied open-mem", e.errno)
