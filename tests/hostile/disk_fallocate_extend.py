# Attack: allocate 3 GiB in /output with fallocate(2) in its size-extending
# mode, then with posix_fallocate(3), which glibc emulates by writing one
# byte per block when the syscall is refused, so blocks get allocated one
# write at a time.
# Contained when fallocate(2) is refused (EOPNOTSUPP from the syscall
# filter), RLIMIT_FSIZE ends the emulation (EFBIG), and the bounds, which
# count allocated blocks, stop the job before anything over a cap is kept.
import ctypes, errno, os

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
GIB3 = 3 << 30

fd = os.open("/output/extend.bin", os.O_WRONLY | os.O_CREAT, 0o644)
rc = libc.fallocate(fd, 0, 0, GIB3)
err = ctypes.get_errno() if rc != 0 else 0
print("fallocate mode=0 rc=%d errno=%d (%s)" % (rc, err, os.strerror(err)), flush=True)
try:
    os.posix_fallocate(fd, 0, GIB3)
    print("posix_fallocate ok", flush=True)
except OSError as e:
    print("posix_fallocate errno=%s" % errno.errorcode.get(e.errno, e.errno), flush=True)
st = os.fstat(fd)
print("extend.bin size=%d blocks=%d" % (st.st_size, st.st_blocks), flush=True)
