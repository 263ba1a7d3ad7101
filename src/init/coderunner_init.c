// coderunner-init: PID 1 inside every job container.
//
// The service bind-mounts this static binary read-only into each container
// and makes it the entrypoint, so it works with any image (including
// upstream ones a platform team swaps in) and needs nothing from the image.
// It:
//   - runs the job with exactly the environment given by -e (nothing from
//     the image or the engine leaks in: Docker adds HOSTNAME, images add ENV);
//   - connects the job's stdin to the file given by -i, or /dev/null;
//   - reaps every orphan (it is PID 1) and exits as soon as the job's main
//     process does, which makes the kernel kill everything left in the PID
//     namespace: a daemonized grandchild cannot outlive the job;
//   - installs a seccomp filter in the job (below), so the syscall policy is
//     the same on every engine: Podman's default profile, unlike Docker's,
//     lets an unprivileged job create user and mount namespaces and mount
//     filesystems inside them;
//   - polices the writable output directory given by -o (the job's /output):
//     while the job runs it walks the tree (never following a symlink) every
//     50 ms or so and kills every process of the job as soon as a file is
//     larger than -f bytes, all files together larger than -q bytes, or
//     there are more than -n entries. In volume mode (-r) a run that broke a
//     bound is rolled back: entries it created are removed and files it grew
//     are cut back to their size before the run, so a persistent volume is
//     never left over its quota;
//   - on SIGUSR1 (the service's deadline) kills the job itself and still
//     checks /output before exiting; the service follows up with SIGKILL if
//     that does not happen promptly;
//   - with -c CPU_MS, kills every process of the job (SIGKILL) once they
//     have used CPU_MS of CPU time together. runsc (gVisor 20221219) reports
//     RLIMIT_CPU but never enforces it, so the service asks for this under
//     gVisor; under runc the kernel's RLIMIT_CPU does the job;
//   - with -W FIFO (the warm pool), waits before running anything until the
//     service writes a "go" message to FIFO: "CRGO" + 4-byte little-endian
//     length + NUL-terminated fields: "stdin" or "-" (whether
//     /workspace/.coderunner-stdin is the job's stdin), an end nonce (hex,
//     may be empty), then arguments appended to COMMAND. With a nonce, init
//     ends both streams with a marker carrying it (stdout: the trailer
//     prefix + {"eof":NONCE}; stderr: the trailer with "eof":NONCE), so the
//     service knows the output is complete without waiting for the engine
//     to close the stream (Docker takes ~40 ms after the exit). The job
//     never sees the nonce, so it cannot end its output early. The container is created and started
//     ahead of the job; only its files and this message arrive with the job. Time spent waiting
//     counts toward nothing: the job's clock starts at "go";
//   - writes one metrics trailer line to stderr after the job ends, with
//     CPU time, peak memory and the OOM-kill count read from the container's
//     own cgroup, and what the output directory holds. The engines disagree
//     on OOM (Podman 4.3 reports OOMKilled=false for a memory kill); the
//     cgroup counter does not lie.
//
// Usage: coderunner-init [-i STDIN_FILE | -W FIFO] [-c CPU_MS] [-e KEY=VALUE]...
//                        [-o DIR [-q BYTES] [-f BYTES] [-n COUNT] [-r]] -- COMMAND [ARG]...
// Exit status: the job's exit code, 128+N if signal N killed it, 127 if the
// command could not be executed, 126 on a usage error.
//
// The trailer format is shared with src/sandbox/init_trailer.cc:
//   "\x1e" "coderunner-init " JSON "\n"
// It is informational. The job runs as the same uid and could forge one; a
// forged trailer only misreports that job's own metrics.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output_guard.h"

enum { kMaxEnv = 64, kMaxGoBytes = 60000, kMaxGoArgs = 1024 };

static pid_t g_child = -1;
static volatile sig_atomic_t g_stop = 0;

static void Forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// SIGUSR1 from the service: the job's time is up. Stop it here rather than
// be killed with it, so /output is still checked (and a volume rolled back)
// before the container ends.
static void Stop(int sig) {
  (void)sig;
  g_stop = 1;
}

static long long NowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

// Reads the first integer in `path`; -1 if unreadable.
static long long ReadNumber(const char* path) {
  FILE* f = fopen(path, "re");
  if (f == NULL) return -1;
  long long v = -1;
  if (fscanf(f, "%lld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

// Reads "key N" from a flat-keyed cgroup file; -1 if absent.
static long long ReadKeyed(const char* path, const char* key) {
  FILE* f = fopen(path, "re");
  if (f == NULL) return -1;
  char name[128];
  long long v;
  long long found = -1;
  while (fscanf(f, "%127s %lld", name, &v) == 2) {
    if (strcmp(name, key) == 0) {
      found = v;
      break;
    }
  }
  fclose(f);
  return found;
}

static long long FirstOf(long long a, long long b) { return a >= 0 ? a : b; }

// CPU time of the whole job so far, in us: every process still in the PID
// namespace (its own time and that of the children it reaped, from
// /proc/PID/stat) plus everything this init has reaped. A process that
// exited but is not reaped yet is briefly missed, which only errs lenient.
static long long JobCpuUs(void) {
  struct rusage ru;
  memset(&ru, 0, sizeof(ru));
  getrusage(RUSAGE_CHILDREN, &ru);
  long long us = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
                 ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
  long ticks_per_s = sysconf(_SC_CLK_TCK);
  if (ticks_per_s <= 0) ticks_per_s = 100;
  DIR* proc = opendir("/proc");
  if (proc == NULL) return us;
  long long ticks = 0;
  struct dirent* e;
  while ((e = readdir(proc)) != NULL) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9' || strcmp(e->d_name, "1") == 0) continue;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%.20s/stat", e->d_name);
    FILE* f = fopen(path, "re");
    if (f == NULL) continue;
    char line[1024];
    size_t n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[n] = '\0';
    // Fields after "(comm)": state, then ... utime stime cutime cstime are
    // fields 14-17 of the whole line, i.e. the 12th-15th after the ')'.
    char* p = strrchr(line, ')');
    if (p == NULL) continue;
    long long v[15];
    int got =
        sscanf(p + 1, " %*c %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld",
               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11],
               &v[12], &v[13]);
    if (got == 14) ticks += v[10] + v[11] + v[12] + v[13];
  }
  closedir(proc);
  return us + ticks * (1000000LL / ticks_per_s);
}

// Denies, with EPERM, what a job never needs and what kernel exploits and
// container escapes are built from: new namespaces (unshare, setns, clone
// with CLONE_NEW*), mounts, ptrace and cross-process memory access, keyrings,
// BPF, perf, userfaultfd, io_uring, module and kexec loading. clone3 gets
// ENOSYS (its flags are in memory a filter cannot read), which makes glibc
// fall back to clone. Other ABIs (i386 via int 0x80, x32) get ENOSYS so the
// list cannot be bypassed by syscall number. Returns 0 on success.
static int InstallSeccomp(void) {
#if defined(__x86_64__)
  enum { kNewNsFlags = 0x7E020000 };  // CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET}.
  static const unsigned kDenied[] = {
      __NR_unshare,
      __NR_setns,
      __NR_mount,
      __NR_umount2,
      __NR_pivot_root,
      __NR_ptrace,
      __NR_process_vm_readv,
      __NR_process_vm_writev,
      __NR_keyctl,
      __NR_add_key,
      __NR_request_key,
      __NR_bpf,
      __NR_perf_event_open,
      __NR_userfaultfd,
      __NR_io_uring_setup,
      __NR_io_uring_enter,
      __NR_io_uring_register,
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
  };
  enum { kN = sizeof(kDenied) / sizeof(kDenied[0]) };
  struct sock_filter f[kN + 16];
  int i = 0;
  f[i++] =
      (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  f[i++] =
      (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);  // x32.
  f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
  f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  // Each denied number jumps to the EPERM return placed after the list.
  for (int k = 0; k < kN; ++k) {
    f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kDenied[k],
                                        (unsigned char)(kN - k + 3), 0);
    ++i;
  }
  // clone: deny when any namespace flag is set in its first argument.
  f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 2);
  f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                        offsetof(struct seccomp_data, args[0]));
  f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kNewNsFlags, 1, 0);
  f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
  struct sock_fprog prog = {(unsigned short)i, f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#else
  return 0;  // Other architectures rely on the engine's seccomp profile.
#endif
}

static void ExecJob(char** argv, char** envp, const char* stdin_path) {
  int fd = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    dprintf(2, "coderunner-init: open stdin: %s\n", strerror(errno));
    _exit(127);
  }
  if (dup2(fd, 0) < 0) _exit(127);
  // The job, not this init, should be the OOM killer's first choice. Raising
  // one's own score needs no privilege; failure is harmless.
  int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (adj >= 0) {
    if (write(adj, "1000", 4) < 0) { /* best effort */
    }
    close(adj);
  }
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);  // The parent blocks SIGCHLD; the job must not.
  // Fail closed: a job never runs without the filter.
  if (InstallSeccomp() != 0) {
    dprintf(2, "coderunner-init: cannot install the seccomp filter: %s\n", strerror(errno));
    _exit(126);
  }
  // execvpe searches PATH from the caller's environment, not envp, so look
  // the command up in the job's own PATH by hand.
  const char* cmd = argv[0];
  if (strchr(cmd, '/') == NULL) {
    const char* path = "/usr/local/bin:/usr/bin:/bin";
    for (char** e = envp; *e; ++e) {
      if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
    }
    char buf[4096];
    const char* p = path;
    while (*p) {
      const char* end = strchr(p, ':');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      if (len > 0 && len + strlen(cmd) + 2 < sizeof(buf)) {
        memcpy(buf, p, len);
        buf[len] = '/';
        strcpy(buf + len + 1, cmd);
        execve(buf, argv, envp);
      }
      if (!end) break;
      p = end + 1;
    }
    dprintf(2, "coderunner-init: %s: command not found\n", cmd);
    _exit(127);
  }
  execve(cmd, argv, envp);
  dprintf(2, "coderunner-init: exec %s: %s\n", cmd, strerror(errno));
  _exit(127);
}

static long long ParseBytes(const char* s) {
  char* end = NULL;
  long long v = strtoll(s, &end, 10);
  return (end == s || *end != '\0' || v < 0) ? -1 : v;
}

// Kills every process of the job (everything in this PID namespace but
// PID 1: they all run as the job's uid) and reaps them. Records the main
// process's status if it is among them. Outside a container of its own
// (PID != 1, e.g. a test on the host) kill(-1) would reach every process
// the caller may signal, so then only the job's main process is killed.
static void KillAndReapAll(int* main_status, int* main_done) {
  int own_namespace = getpid() == 1;
  for (int round = 0; round < 100; ++round) {
    if (own_namespace) {
      kill(-1, SIGKILL);
    } else if (!*main_done) {
      kill(g_child, SIGKILL);
    }
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, 0)) > 0 || (pid < 0 && errno == EINTR)) {
      if (pid == g_child && !*main_done) {
        *main_status = st;
        *main_done = 1;
      }
    }
    if (errno == ECHILD) return;
  }
}

// Reads exactly `n` bytes from `fd`; 0 on success, -1 on EOF, error or a
// stop request.
static int ReadFull(int fd, char* buf, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, buf, n);
    if (r < 0 && errno == EINTR && !g_stop) continue;
    if (r <= 0) return -1;
    buf += r;
    n -= (size_t)r;
  }
  return 0;
}

// Waits for the warm pool's "go" message on `fifo` (see the header) and
// builds the job's argv: `cmd` (NULL-terminated) followed by the message's
// arguments. Sets *with_stdin. Returns the argv, or NULL (with a message on
// stderr) if the message is malformed or the service asked us to stop.
static char g_eof_nonce[65];

static char** AwaitGo(const char* fifo, char** cmd, int* with_stdin) {
  int fd = open(fifo, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (!g_stop) dprintf(2, "coderunner-init: open %s: %s\n", fifo, strerror(errno));
    return NULL;
  }
  static char msg[kMaxGoBytes + 1];
  char head[8];
  if (ReadFull(fd, head, sizeof(head)) != 0 || memcmp(head, "CRGO", 4) != 0) {
    close(fd);
    if (!g_stop) dprintf(2, "coderunner-init: bad go message\n");
    return NULL;
  }
  size_t len = (size_t)(unsigned char)head[4] | (size_t)(unsigned char)head[5] << 8 |
               (size_t)(unsigned char)head[6] << 16 | (size_t)(unsigned char)head[7] << 24;
  if (len == 0 || len > kMaxGoBytes || ReadFull(fd, msg, len) != 0 || msg[len - 1] != '\0') {
    close(fd);
    if (!g_stop) dprintf(2, "coderunner-init: bad go message\n");
    return NULL;
  }
  close(fd);
  msg[len] = '\0';
  static char* argv[kMaxGoArgs + 64];
  int n = 0;
  for (char** c = cmd; *c != NULL && n < 63; ++c) argv[n++] = *c;
  const char* p = msg;
  const char* end = msg + len;
  *with_stdin = strcmp(p, "stdin") == 0;
  p += strlen(p) + 1;
  if (p >= end) {
    dprintf(2, "coderunner-init: bad go message\n");
    return NULL;
  }
  // The nonce: hex only (it is printed inside JSON without escaping).
  size_t nonce_len = strlen(p);
  if (nonce_len >= sizeof(g_eof_nonce) || strspn(p, "0123456789abcdef") != nonce_len) {
    dprintf(2, "coderunner-init: bad go message\n");
    return NULL;
  }
  memcpy(g_eof_nonce, p, nonce_len + 1);
  p += nonce_len + 1;
  while (p < end) {
    if (n >= kMaxGoArgs + 63) {
      dprintf(2, "coderunner-init: too many arguments\n");
      return NULL;
    }
    argv[n++] = (char*)p;
    p += strlen(p) + 1;
  }
  argv[n] = NULL;
  return argv;
}

int main(int argc, char** argv) {
  char* envp[kMaxEnv + 1];
  int nenv = 0;
  const char* stdin_path = NULL;
  const char* go_fifo = NULL;
  OutputBounds out;
  memset(&out, 0, sizeof(out));
  long long cpu_limit_ms = 0;  // 0: no watchdog.
  int i = 1;
  for (; i < argc; ++i) {
    const char* a = argv[i];
    int has_value = i + 1 < argc;
    if (strcmp(a, "--") == 0) {
      ++i;
      break;
    } else if (strcmp(a, "-i") == 0 && has_value) {
      stdin_path = argv[++i];
    } else if (strcmp(a, "-W") == 0 && has_value) {
      go_fifo = argv[++i];
    } else if (strcmp(a, "-c") == 0 && has_value && ParseBytes(argv[i + 1]) >= 0) {
      cpu_limit_ms = ParseBytes(argv[++i]);
    } else if (strcmp(a, "-e") == 0 && has_value && nenv < kMaxEnv) {
      envp[nenv++] = argv[++i];
    } else if (strcmp(a, "-o") == 0 && has_value) {
      out.dir = argv[++i];
    } else if ((strcmp(a, "-q") == 0 || strcmp(a, "-f") == 0 || strcmp(a, "-n") == 0) &&
               has_value && ParseBytes(argv[i + 1]) >= 0) {
      long long v = ParseBytes(argv[++i]);
      if (a[1] == 'q') out.max_bytes = v;
      if (a[1] == 'f') out.max_file_bytes = v;
      if (a[1] == 'n') out.max_entries = v;
    } else if (strcmp(a, "-r") == 0) {
      out.rollback = 1;
    } else {
      dprintf(2,
              "coderunner-init: usage: [-i FILE | -W FIFO] [-c CPU_MS] [-e K=V]... "
              "[-o DIR [-q N] [-f N] [-n N] [-r]] -- CMD [ARG]...\n");
      return 126;
    }
  }
  envp[nenv] = NULL;
  if (i >= argc) {
    dprintf(2, "coderunner-init: no command\n");
    return 126;
  }
  char** job_argv = argv + i;
  // A stop (SIGUSR1) while waiting for "go" ends the wait.
  struct sigaction stop_sa;
  memset(&stop_sa, 0, sizeof(stop_sa));
  stop_sa.sa_handler = Stop;
  sigaction(SIGUSR1, &stop_sa, NULL);
  if (go_fifo != NULL) {
    int with_stdin = 0;
    job_argv = AwaitGo(go_fifo, argv + i, &with_stdin);
    if (job_argv == NULL) return 125;
    stdin_path = with_stdin ? "/workspace/.coderunner-stdin" : NULL;
  }
  int can_rollback = out.dir != NULL && out.rollback && OutputSnapshot(&out) == 0;

  // SIGCHLD stays blocked so the wait below can also wake on a timer to
  // check the output directory; the job gets an empty mask back.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);

  long long start_us = NowUs();
  g_child = fork();
  if (g_child < 0) {
    dprintf(2, "coderunner-init: fork: %s\n", strerror(errno));
    return 127;
  }
  if (g_child == 0) ExecJob(job_argv, envp, stdin_path);

  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = Forward;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sigaction(SIGQUIT, &sa, NULL);
  sa.sa_handler = Stop;
  sigaction(SIGUSR1, &sa, NULL);

  int status = 0;
  int main_done = 0;
  const char* violation = NULL;
  long long watchdog_cpu_us = -1;  // What the CPU watchdog saw when it stopped the job.
  OutputUsage usage;
  memset(&usage, 0, sizeof(usage));
  long long interval_us = 50000;
  while (!main_done) {
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
      if (pid == g_child) {
        status = st;
        main_done = 1;
      }
    }
    if (main_done || g_stop) break;
    if (pid < 0 && errno == ECHILD) break;
    if (cpu_limit_ms > 0) {
      long long used = JobCpuUs();
      if (used >= cpu_limit_ms * 1000) {
        watchdog_cpu_us = used;
        break;  // KillAndReapAll below stops every job process.
      }
    }
    if (out.dir != NULL) {
      long long t = NowUs();
      OutputMeasure(&out, &usage);
      violation = OutputViolation(&out, &usage);
      if (violation != NULL) break;
      // Keep the checks cheap for big trees: at most ~5% of one core.
      long long cost = NowUs() - t;
      interval_us = cost * 20 > 50000 ? (cost * 20 < 1000000 ? cost * 20 : 1000000) : 50000;
    }
    // The CPU watchdog (gVisor) looks every 100 ms at the latest.
    if (cpu_limit_ms > 0 && interval_us > 100000) interval_us = 100000;
    struct timespec ts = {interval_us / 1000000, (interval_us % 1000000) * 1000};
    if (out.dir != NULL || cpu_limit_ms > 0) {
      sigtimedwait(&chld, NULL, &ts);
    } else {
      sigwaitinfo(&chld, NULL);
    }
  }
  long long wall_us = NowUs() - start_us;
  // Nothing the job started may outlive it or keep writing to the output
  // directory while it is checked.
  KillAndReapAll(&status, &main_done);
  int rolled_back = 0;
  if (out.dir != NULL) {
    OutputMeasure(&out, &usage);
    if (violation == NULL) violation = OutputViolation(&out, &usage);
    if (violation != NULL && out.rollback) {
      rolled_back = can_rollback && OutputRollback(&out) == 0;
      OutputMeasure(&out, &usage);
    }
  }

  struct rusage ru;
  memset(&ru, 0, sizeof(ru));
  getrusage(RUSAGE_CHILDREN, &ru);
  long long rusage_cpu_us = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
                            ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
  // cgroup v2 first, then the v1 layouts Docker and Podman mount.
  long long cpu_us = ReadKeyed("/sys/fs/cgroup/cpu.stat", "usage_usec");
  if (cpu_us < 0) {
    long long ns = FirstOf(ReadNumber("/sys/fs/cgroup/cpuacct/cpuacct.usage"),
                           ReadNumber("/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage"));
    cpu_us = ns >= 0 ? ns / 1000 : rusage_cpu_us;
  }
  // A watchdog kill reports at least what the watchdog measured, so that
  // the service reads SIGKILL with cpu_us >= cpu_ms as the CPU limit.
  if (watchdog_cpu_us > cpu_us) cpu_us = watchdog_cpu_us;
  long long mem_peak = FirstOf(ReadNumber("/sys/fs/cgroup/memory.peak"),
                               ReadNumber("/sys/fs/cgroup/memory/memory.max_usage_in_bytes"));
  if (mem_peak < 0) mem_peak = (long long)ru.ru_maxrss * 1024LL;
  long long oom_kills = FirstOf(ReadKeyed("/sys/fs/cgroup/memory.events", "oom_kill"),
                                ReadKeyed("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"));

  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  // Every job process is gone: nothing can follow these markers.
  if (g_eof_nonce[0] != '\0') {
    dprintf(1,
            "\x1e"
            "coderunner-init {\"eof\":\"%s\"}\n",
            g_eof_nonce);
  }
  // The violation is one of a fixed set of words (no escaping needed).
  dprintf(2,
          "\x1e"
          "coderunner-init {\"exit_code\":%d,\"signal\":%d,\"wall_us\":%lld,\"cpu_us\":%lld,"
          "\"memory_peak_bytes\":%lld,\"oom_kills\":%lld,\"output_bytes\":%lld,"
          "\"output_entries\":%lld,\"output_violation\":\"%s\",\"output_rolled_back\":%d,"
          "\"eof\":\"%s\"}\n",
          exit_code, sig, wall_us, cpu_us, mem_peak, oom_kills, usage.bytes, usage.entries,
          violation ? violation : "", rolled_back, g_eof_nonce);
  return exit_code;
}
