# Attack: fill /tmp, the only writable place, to exhaust host memory/disk.
# Contained when writes fail at the tmpfs size cap (64 MiB by default).
import os
written = 0
chunk = b"x" * (1 << 20)
try:
    with open("/tmp/fill", "wb") as f:
        while written < (1 << 30):
            f.write(chunk)
            f.flush()
            written += len(chunk)
except OSError as e:
    print("stopped", e.errno)
print("WRITTEN", written)
