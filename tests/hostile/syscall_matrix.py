# Attack: the kernel interfaces container escapes and kernel exploits are
# built from, one call each: keyrings, BPF, perf, userfaultfd, io_uring,
# clone3, clone and unshare with namespace flags, setns, the mount API old
# and new (mount, fsopen, open_tree, fsmount, move_mount, fspick,
# mount_setattr), file handles, modules, kexec, syslog, swap, quotas,
# accounting, reboot, fanotify, fallocate (disk blocks without writes,
# with and without KEEP_SIZE), AF_VSOCK sockets, the x32 ABI and the i386
# ABI through int 0x80. Contained when each is refused with exactly the
# errno the seccomp filter of coderunner-init gives (src/init/syscall_filter.h).
# Each line is "NAME ok" or "NAME <errno name>".
import ctypes, errno, mmap, os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
buf = ctypes.create_string_buffer(256)
addr = ctypes.addressof(buf)


def sys(nr, *args):
    ctypes.set_errno(0)
    return libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])


def report(name, rc):
    if rc == 0 and name.startswith("clone"):
        os._exit(0)  # A clone that succeeded: this is the child.
    err = ctypes.get_errno()
    print(name, "ok" if rc >= 0 else errno.errorcode.get(err, str(err)), flush=True)


CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000
SIGCHLD, AT_FDCWD = 17, -100
tmp = b"/tmp\0"
ctypes.memmove(buf, tmp, len(tmp))
cases = [
    ("keyctl", 250, (0, -3, 0)),
    ("add_key", 248, (addr, addr, 0, 0, -3)),
    ("request_key", 249, (addr, addr, 0, 0)),
    ("bpf", 321, (5, addr, 128)),
    ("perf_event_open", 298, (addr, 0, -1, -1, 0)),
    ("userfaultfd", 323, (0,)),
    ("io_uring_setup", 425, (1, addr)),
    ("clone3", 435, (addr, 88)),
    ("clone_newuser", 56, (CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)),
    ("clone_newns", 56, (CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0)),
    ("clone_newpid", 56, (CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0)),
    ("clone_newnet", 56, (CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0)),
    ("unshare_user", 272, (CLONE_NEWUSER,)),
    ("unshare_mnt", 272, (CLONE_NEWNS,)),
    ("setns", 308, (0, 0)),
    ("mount", 165, (addr, addr, addr, 0, 0)),
    ("umount2", 166, (addr, 0)),
    ("pivot_root", 155, (addr, addr)),
    ("fsopen", 430, (addr, 0)),
    ("fsconfig", 431, (-1, 0, 0, 0, 0)),
    ("fsmount", 432, (-1, 0, 0)),
    ("move_mount", 429, (-1, addr, AT_FDCWD, addr, 0)),
    ("fspick", 433, (AT_FDCWD, addr, 0)),
    ("open_tree", 428, (AT_FDCWD, addr, 0)),
    ("mount_setattr", 442, (AT_FDCWD, addr, 0, addr, 32)),
    ("name_to_handle_at", 303, (AT_FDCWD, addr, addr, addr, 0)),
    ("open_by_handle_at", 304, (AT_FDCWD, addr, 0)),
    ("init_module", 175, (addr, 0, addr)),
    ("finit_module", 313, (-1, addr, 0)),
    ("delete_module", 176, (addr, 0)),
    ("kexec_load", 246, (0, 0, 0, 0)),
    ("kexec_file_load", 320, (-1, -1, 0, 0, 0)),
    ("syslog", 103, (3, addr, 16)),
    ("swapon", 167, (addr, 0)),
    ("swapoff", 168, (addr,)),
    ("quotactl", 179, (0, addr, 0, 0)),
    ("acct", 163, (addr,)),
    ("reboot", 169, (0, 0, 0, 0)),
    ("fanotify_init", 300, (0, 0)),
    ("ptrace_traceme", 101, (0, 0, 0, 0)),
    ("socket_vsock", 41, (40, 1, 0)),
    ("socketpair_vsock", 53, (40, 1, 0, addr)),
    ("x32_getpid", 0x40000000 | 39, ()),
]
for name, nr, args in cases:
    report(name, sys(nr, *args))
fd = os.open("/tmp/fallocate", os.O_RDWR | os.O_CREAT, 0o600)
report("fallocate", sys(285, fd, 0, 0, 1 << 20))
report("fallocate_keep_size", sys(285, fd, 1, 0, 1 << 20))
# int 0x80 with eax = 20 (getpid in the i386 table); returns -errno in eax.
code = bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
rc = fn()
print("int80_getpid", "ok" if rc >= 0 else errno.errorcode.get(-rc, str(-rc)), flush=True)
print("done", flush=True)
