// syscall_filter: the seccomp filter coderunner-init installs on itself
// before the job exists, so that init and everything it starts run under it
// on every engine and image (Podman's default profile, unlike Docker's, lets
// a job create user namespaces and mount filesystems in them).
//
// What it refuses, and with which errno (the suite checks each one):
//   - EPERM: new namespaces (unshare, setns, clone with a CLONE_NEW* flag),
//     mounts and the new mount API (fsopen, open_tree, ...), ptrace and
//     cross-process memory (process_vm_readv/writev), file descriptors of
//     other processes (pidfd_getfd, kcmp), keyrings, BPF, perf,
//     userfaultfd, io_uring, fanotify, module and kexec loading, quotas,
//     swap, reboot, syslog; every signal aimed at PID 1 (kill, tkill,
//     tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open of PID 1);
//     every change of PID 1's limits or scheduling (prlimit64,
//     sched_setparam, sched_setscheduler, sched_setattr, sched_setaffinity
//     of pid 1; setpriority and ioprio_set of process or group 1, or of a
//     whole user: PRIO_USER, IOPRIO_WHO_USER, which would reach init, whose
//     uid is the job's); and
//     pidfd_send_signal (a /proc/1 directory fd works as a pidfd, so no
//     target can be told apart); sockets of the AF_VSOCK family (a channel
//     to the host under VM-based runtimes).
//   - EOPNOTSUPP: fallocate. It allocates disk blocks without writing them
//     (FALLOC_FL_KEEP_SIZE even past RLIMIT_FSIZE), gigabytes in one call,
//     faster than any poll of /output could react. glibc's posix_fallocate
//     then falls back to writing, which RLIMIT_FSIZE and the /output guard
//     bound.
//   - ENOSYS: clone3 (its flags sit in memory a filter cannot read; glibc
//     falls back to clone), and every call of another ABI (i386 int 0x80,
//     x32), so the list cannot be bypassed by syscall number.
#ifndef CODERUNNER_INIT_SYSCALL_FILTER_H_
#define CODERUNNER_INIT_SYSCALL_FILTER_H_

// Sets no_new_privs and installs the filter on the calling thread; it is
// inherited by every child. Returns 0, or -1 with errno set. On
// architectures other than x86_64 it installs nothing and returns 0 (the
// engine's profile applies).
int InstallSyscallFilter(void);

#endif  // CODERUNNER_INIT_SYSCALL_FILTER_H_
