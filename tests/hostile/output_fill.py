# Attack: fill /output, the per-job artifact directory on the host's disk,
# until the host disk is full (Piston: runaway disk fill).
# Contained when coderunner-init stops the job at the artifact total cap
# (100 MiB by default) and the service keeps no more than the cap.
import os
chunk = b"x" * (1 << 20)
n = 0
try:
    while n < 2000:  # 2000 files of 4 MiB: far past any cap.
        with open("/output/fill-%04d" % n, "wb") as f:
            for _ in range(4):
                f.write(chunk)
        n += 1
except OSError as e:
    print("stopped", e.errno)
print("WROTE", n, "files")
