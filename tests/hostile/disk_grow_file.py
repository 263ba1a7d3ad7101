# Attack: grow one file in /output with real writes, 1 MiB at a time, far
# past the per-file artifact cap and any volume quota (real blocks, size and
# allocation agree).
# Contained when the job is stopped at the first bound it breaks and the
# file is not kept (removed, or a volume rolled back).
import errno, os

n = 0
try:
    with open("/output/grow.bin", "wb") as f:
        while n < 3072:
            f.write(os.urandom(1 << 20))
            f.flush()
            n += 1
except OSError as e:
    print("stopped errno=%s" % errno.errorcode.get(e.errno, e.errno), flush=True)
print("WROTE %d MiB" % n, flush=True)
