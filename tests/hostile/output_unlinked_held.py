# Attack: use the disk below /output without any entry there. Open a file
# in /output, remove its name, and keep writing through the descriptor:
# the blocks stay allocated until the last descriptor closes, but no walk
# of the tree can find them. Five such files of 48 MiB each.
# Contained when they are counted anyway (the service looks at the files
# the container's processes hold open): the job is stopped at the total cap
# long before it has written all 240 MiB.
# Prints "WROTE <MiB>" after each MiB, so the answer shows how far it got.
import os, time

chunk = b"u" * (1 << 20)
written = 0
held = []
for i in range(5):
    path = "/output/u%d" % i
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.unlink(path)
    held.append(fd)
    for _ in range(48):
        os.write(fd, chunk)
        written += 1
        print("WROTE", written, flush=True)
        time.sleep(0.002)
time.sleep(3)
print("done", flush=True)
