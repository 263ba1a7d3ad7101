# Attack: take over PID 1 (coderunner-init), which runs as the job's own uid:
# read and write its memory through /proc/1/mem (the trailer nonce, the
# /output guard, the final kill), read its environment, copy its memory with
# process_vm_readv/writev, steal its file descriptors with pidfd_getfd,
# compare its files with kcmp, and signal it (kill, tkill, tgkill,
# rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, through a pidfd and
# through a /proc/1 directory fd). Contained when every attempt fails; each
# line is "NAME ok" or "NAME <errno name>", and the test checks the exact errno.
import ctypes, errno, os, signal

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def report(name, rc):
    err = ctypes.get_errno()
    print(name, "ok" if rc >= 0 else errno.errorcode.get(err, str(err)), flush=True)


def sys(nr, *args):
    ctypes.set_errno(0)
    return libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])


def try_open(name, path, flags):
    try:
        fd = os.open(path, flags)
    except OSError as e:
        print(name, errno.errorcode[e.errno], flush=True)
        return None
    print(name, "ok", flush=True)
    return fd


# /proc/1/mem read-write: with access, read the ELF header of init's image.
fd = try_open("mem_rw", "/proc/1/mem", os.O_RDWR)
if fd is not None:
    try:
        start = int(open("/proc/1/maps").readline().split("-")[0], 16)
        os.lseek(fd, start, 0)
        print("READ init memory", os.read(fd, 4), flush=True)
    except OSError as e:
        print("mem_read", errno.errorcode[e.errno], flush=True)
try_open("mem_ro", "/proc/1/mem", os.O_RDONLY)
try_open("environ", "/proc/1/environ", os.O_RDONLY)

buf = ctypes.create_string_buffer(64)


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


local = IoVec(ctypes.addressof(buf), 64)
remote = IoVec(0x400000, 64)
report("process_vm_readv", sys(310, 1, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0))
report("process_vm_writev", sys(311, 1, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0))
pidfd = sys(434, 1, 0)  # pidfd_open(1, 0)
report("pidfd_open", pidfd)
# A /proc/1 directory fd stands in for a pidfd where pidfd_open is denied.
procfd = os.open("/proc/1", os.O_RDONLY | os.O_DIRECTORY)
report("pidfd_getfd", sys(438, pidfd if pidfd >= 0 else procfd, 1, 0))
report("pidfd_send_signal", sys(424, pidfd if pidfd >= 0 else procfd, signal.SIGUSR1, 0, 0))
report("pidfd_send_signal_procfd", sys(424, procfd, signal.SIGUSR1, 0, 0))
report("kcmp", sys(312, 1, os.getpid(), 0, 1, 1))  # KCMP_FILE
report("ptrace_attach", sys(101, 16, 1, 0, 0))
for sig in (signal.SIGUSR1, signal.SIGTERM, signal.SIGKILL, signal.SIGSTOP):
    report("kill_" + signal.Signals(sig).name, sys(62, 1, sig))
report("tkill", sys(200, 1, signal.SIGUSR1))
report("tgkill", sys(234, 1, 1, signal.SIGUSR1))
info = ctypes.create_string_buffer(128)
ctypes.memmove(info, (ctypes.c_int * 3)(signal.SIGUSR1, 0, -1), 12)  # si_code SI_QUEUE
report("rt_sigqueueinfo", sys(129, 1, signal.SIGUSR1, ctypes.addressof(info)))
report("rt_tgsigqueueinfo", sys(297, 1, 1, signal.SIGUSR1, ctypes.addressof(info)))
# The job's own process group must not contain PID 1: a signal to the group
# reaches only the job.
signal.signal(signal.SIGUSR1, signal.SIG_IGN)
report("kill_group", sys(62, 0, signal.SIGUSR1))
print("pgid_is_init", os.getpgid(0) == os.getpgid(1), flush=True)
print("still running", flush=True)
