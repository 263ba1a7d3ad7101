// See syscall_filter.h.
#define _GNU_SOURCE
#include "syscall_filter.h"

#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

// Syscalls a job never needs and that escapes and kernel exploits are built
// from: refused outright with EPERM.
static const unsigned kDenied[] = {
    __NR_unshare,
    __NR_setns,
    __NR_mount,
    __NR_umount2,
    __NR_pivot_root,
    __NR_ptrace,
    __NR_process_vm_readv,
    __NR_process_vm_writev,
    __NR_pidfd_getfd,
    __NR_pidfd_send_signal,
    __NR_kcmp,
    __NR_keyctl,
    __NR_add_key,
    __NR_request_key,
    __NR_bpf,
    __NR_perf_event_open,
    __NR_userfaultfd,
    __NR_io_uring_setup,
    __NR_io_uring_enter,
    __NR_io_uring_register,
    __NR_fanotify_init,
    __NR_kexec_load,
    __NR_kexec_file_load,
    __NR_init_module,
    __NR_finit_module,
    __NR_delete_module,
    __NR_open_by_handle_at,
    __NR_name_to_handle_at,
    __NR_fsopen,
    __NR_fsconfig,
    __NR_fsmount,
    __NR_fspick,
    __NR_move_mount,
    __NR_open_tree,
    __NR_mount_setattr,
    __NR_quotactl,
    __NR_acct,
    __NR_swapon,
    __NR_swapoff,
    __NR_reboot,
    __NR_syslog,
    __NR_lookup_dcookie,
    // POSIX message queues outlive their processes and cannot be listed
    // from inside the container (case_traces.h): nothing could clear them
    // between the cases of a series.
    __NR_mq_open,
};

// Calls whose first argument (a pid or tgid) must not be 1: signals, and
// every call that changes another process's limits or scheduling. init
// runs as the job's uid, so without this a job could lower init's
// RLIMIT_CPU to 0 (the kernel then kills it mid-check), or starve it with
// SCHED_IDLE, an affinity or a nice value. Those whose second argument (a
// tid) must not be 1 either.
static const unsigned kNotAtInit[] = {
    __NR_kill,
    __NR_tkill,
    __NR_rt_sigqueueinfo,
    __NR_pidfd_open,
    __NR_prlimit64,
    __NR_sched_setparam,
    __NR_sched_setscheduler,
    __NR_sched_setattr,
    __NR_sched_setaffinity,
};
static const unsigned kNotAtInitThread[] = {__NR_tgkill, __NR_rt_tgsigqueueinfo};
// Calls that name their target as (which, who): who must not be 1 (init,
// or its process group, which is 1 as well), and `which` must not pick
// every process of a user (init's uid is the job's).
typedef struct {
  unsigned nr;
  unsigned which_user;
} WhichWho;
static const WhichWho kWhichWho[] = {
    {__NR_setpriority, 2 /* PRIO_USER */},
    {__NR_ioprio_set, 3 /* IOPRIO_WHO_USER */},
};

enum {
  kNewNsFlags = 0x7E020000,  // CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET}.
  kAfVsock = 40,
  kX32Bit = 0x40000000,
  kMaxInsns = 160,
};

// Jump targets that are resolved once the program is complete: the return
// instructions sit at its end in this order.
enum Target { kAllow = 0, kEperm, kEnosys, kEopnotsupp, kTargets };

static const unsigned kReturns[kTargets] = {
    SECCOMP_RET_ALLOW,
    SECCOMP_RET_ERRNO | EPERM,
    SECCOMP_RET_ERRNO | ENOSYS,
    SECCOMP_RET_ERRNO | EOPNOTSUPP,
};

// A filter under construction. Jumps to a Target are recorded with the
// target (+1, 0 meaning "next instruction") and patched in Finish.
typedef struct {
  struct sock_filter insn[kMaxInsns + kTargets];
  unsigned char jt_target[kMaxInsns];  // 0, or Target + 1.
  unsigned char jf_target[kMaxInsns];
  int n;
  int overflow;
} Prog;

static void Emit(Prog* p, struct sock_filter f, int jt, int jf) {
  if (p->n >= kMaxInsns) {
    p->overflow = 1;
    return;
  }
  p->insn[p->n] = f;
  p->jt_target[p->n] = (unsigned char)jt;
  p->jf_target[p->n] = (unsigned char)jf;
  p->n++;
}

static void Load(Prog* p, unsigned offset) {
  Emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset), 0, 0);
}

// If the accumulator equals `k`, go to `target`; else fall through.
static void IfEqual(Prog* p, unsigned k, enum Target target) {
  Emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0), target + 1, 0);
}

// The low 32 bits of argument `i` (the kernel reads pids and families as
// int, so the high half never matters).
static unsigned ArgLow(int i) { return (unsigned)offsetof(struct seccomp_data, args[i]); }

// Syscall `nr` is refused with EPERM when argument `arg` equals `value`,
// or (with arg2 >= 0) when argument `arg2` equals `value2`. Skips the
// block for any other syscall.
static void DenyArgs(Prog* p, unsigned nr, int arg, unsigned value, int arg2, unsigned value2) {
  int size = arg2 >= 0 ? 5 : 3;  // Instructions in the block after the test.
  Emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, (unsigned char)size), 0,
       0);
  Load(p, ArgLow(arg));
  IfEqual(p, value, kEperm);
  if (arg2 >= 0) {
    Load(p, ArgLow(arg2));
    IfEqual(p, value2, kEperm);
  }
  // No other rule is about this syscall: the accumulator need not hold nr.
  Emit(p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0), kAllow + 1, 0);
}

static void DenyArg(Prog* p, unsigned nr, int arg, unsigned value) {
  DenyArgs(p, nr, arg, value, -1, 0);
}

static void Build(Prog* p) {
  Load(p, (unsigned)offsetof(struct seccomp_data, arch));
  Emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0), 0, 0);
  Emit(p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0), kEnosys + 1, 0);
  Load(p, (unsigned)offsetof(struct seccomp_data, nr));
  Emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, 0, 0), kEnosys + 1, 0);
  IfEqual(p, __NR_clone3, kEnosys);
  IfEqual(p, __NR_fallocate, kEopnotsupp);
  for (size_t k = 0; k < sizeof(kDenied) / sizeof(kDenied[0]); ++k) {
    IfEqual(p, kDenied[k], kEperm);
  }
  for (size_t k = 0; k < sizeof(kNotAtInit) / sizeof(kNotAtInit[0]); ++k) {
    DenyArg(p, kNotAtInit[k], 0, 1);
  }
  for (size_t k = 0; k < sizeof(kNotAtInitThread) / sizeof(kNotAtInitThread[0]); ++k) {
    DenyArgs(p, kNotAtInitThread[k], 0, 1, 1, 1);
  }
  for (size_t k = 0; k < sizeof(kWhichWho) / sizeof(kWhichWho[0]); ++k) {
    DenyArgs(p, kWhichWho[k].nr, 0, kWhichWho[k].which_user, 1, 1);
  }
  DenyArg(p, __NR_socket, 0, kAfVsock);
  DenyArg(p, __NR_socketpair, 0, kAfVsock);
  // clone: refused when any namespace flag is set in its first argument.
  Emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 2), 0, 0);
  Load(p, ArgLow(0));
  Emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kNewNsFlags, 0, 0), kEperm + 1,
       0);
  Emit(p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0), kAllow + 1, 0);
}

// Appends the return instructions and resolves every jump to them. Returns
// -1 if the program does not fit or a jump is out of reach.
static int Finish(Prog* p) {
  if (p->overflow) return -1;
  int first_return = p->n;
  for (int t = 0; t < kTargets; ++t) {
    p->insn[first_return + t] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, kReturns[t]);
  }
  for (int i = 0; i < p->n; ++i) {
    int jt = p->jt_target[i];
    int jf = p->jf_target[i];
    if (jt == 0 && jf == 0) continue;
    if (BPF_OP(p->insn[i].code) == BPF_JA) {
      p->insn[i].k = (unsigned)(first_return + jt - 1 - (i + 1));
      continue;
    }
    if (jt != 0) {
      int off = first_return + jt - 1 - (i + 1);
      if (off > 255) return -1;
      p->insn[i].jt = (unsigned char)off;
    }
    if (jf != 0) {
      int off = first_return + jf - 1 - (i + 1);
      if (off > 255) return -1;
      p->insn[i].jf = (unsigned char)off;
    }
  }
  p->n = first_return + kTargets;
  return 0;
}

int InstallSyscallFilter(void) {
  static Prog p;
  p.n = 0;
  p.overflow = 0;
  Build(&p);
  if (Finish(&p) != 0) {
    errno = E2BIG;
    return -1;
  }
  struct sock_fprog prog = {(unsigned short)p.n, p.insn};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

#else

int InstallSyscallFilter(void) { return 0; }

#endif
