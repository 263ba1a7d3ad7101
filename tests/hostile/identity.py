# Attack: find out whether the job runs as root or holds any capability,
# then try privileged operations (chown, mknod, setuid(0), mount).
import os
st = {l.split(":")[0]: l.split(":", 1)[1].strip() for l in open("/proc/self/status")}
print("UID", os.getuid(), os.geteuid(), "GID", os.getgid())
print("CAPS", st["CapEff"], st["CapPrm"], st["CapBnd"], "NNP", st.get("NoNewPrivs"))
for name, fn in [("setuid0", lambda: os.setuid(0)), ("chown", lambda: os.chown("/tmp", 0, 0)),
                 ("mknod", lambda: os.mknod("/tmp/dev", 0o600 | 0o020000, os.makedev(1, 3)))]:
    try:
        fn()
        print("ALLOWED", name)
    except OSError as e:
        print("denied", name, e.errno)
