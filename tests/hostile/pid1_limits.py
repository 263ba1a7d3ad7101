# Attack: reach PID 1 (coderunner-init, which runs as the job's own uid)
# through the calls that change another process's limits and scheduling:
# prlimit (RLIMIT_CPU 0 makes the kernel kill init in the middle of its
# checks; RLIMIT_NOFILE 5 blinds it), SCHED_IDLE, its affinity, its nice
# value and its I/O priority, by pid, by process group (init's is 1) and
# by user (init's uid is the job's). Contained when every call aimed at
# PID 1 or at a whole user fails with EPERM, the same calls on the job
# itself still work ("ok"), and init's limits read afterwards are as
# before. Each line is "NAME ok" or "NAME <errno name>".
import ctypes, errno, os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def sys(nr, *args):
    ctypes.set_errno(0)
    return libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])


def report(name, rc):
    err = ctypes.get_errno()
    print(name, "ok" if rc >= 0 else errno.errorcode.get(err, str(err)), flush=True)


def init_limit(name):
    try:
        lines = open("/proc/1/limits").readlines()
    except OSError:
        return "unreadable"  # gVisor has no /proc/<pid>/limits.
    for line in lines:
        if line.startswith(name):
            return " ".join(line[len(name):].split()[:2])
    return "?"


before = (init_limit("Max cpu time"), init_limit("Max open files"))
limits = (ctypes.c_ulong * 2)(0, 0)
five = (ctypes.c_ulong * 2)(5, 5)
cpuset = (ctypes.c_ulong * 16)(1)
param = (ctypes.c_int * 1)(0)
attr = (ctypes.c_uint32 * 14)(56, 5)  # size 56, SCHED_IDLE.
SCHED_IDLE, PRIO_PROCESS, PRIO_PGRP, PRIO_USER = 5, 0, 1, 2
IOPRIO_WHO_PROCESS, IOPRIO_WHO_PGRP, IOPRIO_WHO_USER = 1, 2, 3
idle_io = 3 << 13  # IOPRIO_CLASS_IDLE.
for who, pid in (("init", 1), ("self", 0)):
    report("prlimit_cpu_" + who, sys(302, pid, 0, ctypes.addressof(limits) if who == "init" else 0, 0))
    report("prlimit_nofile_" + who, sys(302, pid, 7, ctypes.addressof(five) if who == "init" else 0, 0))
    report("sched_setaffinity_" + who, sys(203, pid, ctypes.sizeof(cpuset), ctypes.addressof(cpuset)))
    report("sched_setscheduler_" + who, sys(144, pid, SCHED_IDLE, ctypes.addressof(param)))
    report("sched_setparam_" + who, sys(142, pid, ctypes.addressof(param)))
    report("sched_setattr_" + who, sys(314, pid, ctypes.addressof(attr), 0))
    report("setpriority_" + who, sys(141, PRIO_PROCESS, pid, 19))
    report("ioprio_set_" + who, sys(251, IOPRIO_WHO_PROCESS, pid, idle_io))
report("setpriority_pgrp_init", sys(141, PRIO_PGRP, 1, 19))
report("setpriority_user", sys(141, PRIO_USER, 0, 19))
report("ioprio_set_pgrp_init", sys(251, IOPRIO_WHO_PGRP, 1, idle_io))
report("ioprio_set_user", sys(251, IOPRIO_WHO_USER, 0, idle_io))
after = (init_limit("Max cpu time"), init_limit("Max open files"))
if "unreadable" in before:
    print("init_limits unreadable")
else:
    print("init_limits", "unchanged" if before == after else "CHANGED %s -> %s" % (before, after))
print("done", flush=True)
