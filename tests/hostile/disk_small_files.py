# Attack: many one-byte files in /output. Each holds 1 byte but takes a
# whole block (4 KiB on ext4): 2000 of them are 2 KB by size and 8 MB on
# disk, so a bound that sums sizes never fires (and 2000 stays under a
# volume's entry cap, so only the byte bound can stop it there).
# Contained when the bounds count allocated blocks (a volume's quota) and
# entries (the artifact entry cap): the job is stopped, and nothing over a
# cap is kept.
import errno, os

n = 0
try:
    for i in range(2000):
        with open("/output/s%05d" % i, "wb") as f:
            f.write(b"1")
        n += 1
except OSError as e:
    print("stopped errno=%s" % errno.errorcode.get(e.errno, e.errno), flush=True)
print("MADE %d" % n, flush=True)
