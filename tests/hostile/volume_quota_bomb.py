# Attack: write far past a persistent volume's size_bytes so that the
# tenant keeps more than it pays for (or fills the host disk), then keep
# writing from a daemonized child after the main process exits.
# Contained when the job is stopped with volume_quota_exceeded and the
# volume holds no more than before the run afterwards.
import os, time
if os.fork() == 0:
    os.setsid()
    while True:
        with open("/output/daemon.bin", "ab") as f:
            f.write(b"d" * (1 << 20))
        time.sleep(0.001)
with open("/output/bomb.bin", "wb") as f:
    for _ in range(64):
        f.write(b"x" * (1 << 20))
        f.flush()
print("wrote 64 MiB")
