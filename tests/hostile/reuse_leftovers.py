# Attack: container reuse (a tier's container_reuse: the next job of the
# same tenant runs in this container). Leave everything a job can for that
# next job: a daemonized grandchild (fork, setsid, fork) that holds an
# abstract UNIX socket open and keeps writing /tmp/beacon; files in /tmp,
# among them a directory it took every right from and a FIFO; a System V
# shared memory segment and message queue; and /output without its write
# bit (the job owns /output, so it may chmod it). Prints the container's
# identity (init's start time and cgroup) for the probe to compare.
# Contained when reuse_probe.py, run next in the same container, finds none
# of it (see that file).
import ctypes, os, socket, time

IPC_PRIVATE, IPC_CREAT = 0, 0o1000


def identity():
    with open("/proc/1/stat") as f:
        start = f.read().split()[21]
    with open("/proc/self/cgroup") as f:
        group = f.readline().strip()
    return start + "@" + group.replace(" ", "_")


def daemon():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind("\0coderunner-reuse-leftover")
    sock.listen(8)
    n = 0
    while True:
        n += 1
        with open("/tmp/beacon", "w") as f:
            f.write(str(n))
        time.sleep(0.005)


libc = ctypes.CDLL(None, use_errno=True)
print("shm", libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o666) >= 0)
print("msg", libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o666) >= 0)
os.makedirs("/tmp/locked/inner")
open("/tmp/locked/inner/f", "w").write("x")
os.chmod("/tmp/locked/inner", 0)
os.chmod("/tmp/locked", 0)
os.mkfifo("/tmp/fifo")
open("/tmp/plain", "w").write("left")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        daemon()
    os._exit(0)
os.wait()
while not os.path.exists("/tmp/beacon"):
    time.sleep(0.005)
os.chmod("/output", 0o500)
print("container", identity())
print("left", True)
