# Attack: the confirmed "any tenant can fill the host disk" (issue 15):
# preallocate 3 GiB in /output with fallocate KEEP_SIZE. The file stays
# size 0, so a bound that counts st_size lets 3 GiB of blocks sit under
# artifacts.dir (or in a volume) while the artifact is listed as 0 bytes.
# Contained when the syscall filter refuses fallocate (EOPNOTSUPP, which
# util-linux reports as "keep size mode is unsupported") and, were
# it allowed, when the bounds count allocated blocks: the job is stopped,
# and nothing over a cap is kept on the host.
touch /output/x && fallocate -n -l 3G /output/x 2>&1
echo "fallocate rc=$?"
# What the file holds now: size and 512-byte blocks (find, not stat: the
# statx of coreutils' stat fails with EINVAL on gVisor's gofer files).
find /output/x -printf 'x size=%s blocks=%b\n'
