# Probe for container reuse, run right after reuse_leftovers.py by the same
# tenant: it must run in the same container (it prints the identity the
# test compares) and find nothing the job before left. Reports, as
# "NAME VALUE" lines: processes besides itself and init (0), entries in
# /tmp and /output (0), whether it can write /output (True), System V
# shared memory segments and message queues (0 each: header lines only),
# and what connecting to the leftover's abstract socket gives
# (ECONNREFUSED: nobody listens).
import errno, os, socket


def identity():
    with open("/proc/1/stat") as f:
        start = f.read().split()[21]
    with open("/proc/self/cgroup") as f:
        group = f.readline().strip()
    return start + "@" + group.replace(" ", "_")


def ipc_count(kind):
    with open("/proc/sysvipc/" + kind) as f:
        return len(f.readlines()) - 1


me = os.getpid()
print("container", identity())
print("processes", sum(1 for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)))
print("tmp_entries", len(os.listdir("/tmp")))
print("output_entries", len(os.listdir("/output")))
try:
    open("/output/probe", "w").write("x")
    print("output_writable", True)
except OSError as e:
    print("output_writable", errno.errorcode[e.errno])
print("sysv_shm", ipc_count("shm"))
print("sysv_msg", ipc_count("msg"))
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    sock.connect("\0coderunner-reuse-leftover")
    print("abstract_socket", "connected")
except OSError as e:
    print("abstract_socket", errno.errorcode[e.errno])
