# Attack: hide bytes from the /output guard in a directory its walk cannot
# search. Make /output/h, open five files in it, take away its search
# permission (chmod 0400: readable, not searchable, so fstatat of every
# entry fails with EACCES for the job's own uid), then write 32 MiB into
# each through the descriptors already held. A guard running as the job's
# uid that takes EACCES for "raced away" counts nothing below h.
# Contained when the bound is enforced anyway: the job is stopped (the
# service's own walk runs as root on the host) and nothing over the bound
# stays on the host's disk, during or after the run.
# Prints "WROTE <MiB>" after each MiB, so the answer shows how far it got.
import os, time

os.makedirs("/output/h")
fds = [os.open("/output/h/f%d" % i, os.O_WRONLY | os.O_CREAT, 0o600) for i in range(5)]
os.chmod("/output/h", 0o400)
chunk = b"x" * (1 << 20)
written = 0
for fd in fds:
    for _ in range(32):
        os.write(fd, chunk)
        written += 1
        print("WROTE", written, flush=True)
time.sleep(3)
print("done", flush=True)
