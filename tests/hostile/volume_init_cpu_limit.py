# Attack: end PID 1 in the middle of its checks, then overfill the volume.
# prlimit(1, RLIMIT_CPU, (0, 0)) makes the kernel kill coderunner-init
# (which runs as the job's uid) as soon as it uses CPU; then 3,000 files of
# 20 KB (60 MiB) go into a 1 MiB volume. With init dead there is no final
# check, no rollback and no trailer.
# Contained when the prlimit is refused (EPERM) and, whatever init does,
# the volume holds no more than its quota after the run (the service
# measures it itself and rolls the run back).
import ctypes, errno, os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
zero = (ctypes.c_ulong * 2)(0, 0)
ctypes.set_errno(0)
rc = libc.syscall(ctypes.c_long(302), ctypes.c_long(1), ctypes.c_long(0),
                  ctypes.c_long(ctypes.addressof(zero)), ctypes.c_long(0))
err = ctypes.get_errno()
print("prlimit_cpu_init", "ok" if rc == 0 else errno.errorcode.get(err, str(err)), flush=True)
data = b"v" * 20000
made = 0
try:
    for i in range(3000):
        with open("/output/f%04d" % i, "wb") as f:
            f.write(data)
        made += 1
finally:
    print("made", made, flush=True)
