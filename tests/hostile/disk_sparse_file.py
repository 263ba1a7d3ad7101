# Attack: a sparse file. Seek 3 GiB into /output/sparse.bin and write one
# byte: st_size says 3 GiB while one block is allocated, the opposite of a
# preallocated file. A bound that counts only blocks would let the job hand
# out a "3 GiB" artifact (and make the service hash 3 GiB of zeros).
# Contained when RLIMIT_FSIZE refuses the write (EFBIG) and a sparse file
# within it still counts its size against the caps, so the job is stopped.
import errno, os

fd = os.open("/output/sparse.bin", os.O_WRONLY | os.O_CREAT, 0o644)
for offset in (3 << 30, 15 << 20, 12 << 20):
    try:
        os.pwrite(fd, b"!", offset)
        print("wrote 1 byte at %d" % offset, flush=True)
        break
    except OSError as e:
        print("at %d errno=%s" % (offset, errno.errorcode.get(e.errno, e.errno)), flush=True)
st = os.fstat(fd)
print("sparse.bin size=%d blocks=%d" % (st.st_size, st.st_blocks), flush=True)
