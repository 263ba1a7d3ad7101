# Attack: start threads until the system gives up (a thread bomb).
# Contained by limits.pids (the pids cgroup under runc, RLIMIT_NPROC inside
# gVisor): thread creation fails with EAGAIN and the container never holds
# more than limits.pids tasks.
# Reports: "started N" (threads started), "errno NAME" (what pthread_create
# returns once Python's threading gave up), "peak_tasks N" (every task in
# the container, PID 1 included, counted in /proc at that point; no thread
# has ended yet, so this is the peak). The threads end after 30 s.
import ctypes, errno, os, threading, time


def tasks():
    n = 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                n += len(os.listdir("/proc/%s/task" % p))
            except OSError:
                pass
    return n


started = 0
try:
    while True:
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        started += 1
except RuntimeError:
    pass
libc = ctypes.CDLL(None, use_errno=True)
tid = ctypes.c_ulong()
# One more, straight through pthread_create, for its error number: a thread
# that runs sleep(30).
sleep = ctypes.cast(libc.sleep, ctypes.c_void_p)
rc = libc.pthread_create(ctypes.byref(tid), None, sleep, ctypes.c_void_p(30))
print("started", started)
print("errno", errno.errorcode.get(rc, str(rc)) if rc else "none")
print("peak_tasks", tasks())
