// coderunner-init: PID 1 inside every job container.
//
// The service bind-mounts this static binary read-only into each container
// and makes it the entrypoint, so it works with any image (including
// upstream ones a platform team swaps in) and needs nothing from the image.
// It:
//   - protects itself from the job, which runs as the same uid: it makes
//     itself non-dumpable before the job exists (so the job cannot open
//     /proc/1/mem or /proc/1/environ, or use process_vm_*, pidfd_getfd or
//     kcmp on it), installs the seccomp filter of syscall_filter.h on
//     itself (so it is inherited by everything it starts and nothing runs
//     unfiltered; the filter also refuses every signal aimed at PID 1),
//     starts the job in a session and process group of its own, and
//     ignores any signal sent from inside the container;
//   - checks, before the job exists, that the kernel interfaces the service
//     asked the engine to mask or write-protect really are (the paths come
//     in CODERUNNER_MASKED_PATHS and CODERUNNER_READONLY_PATHS), and refuses
//     to run the job otherwise (proc_masks.h);
//   - runs the job with exactly the environment given by -e (nothing from
//     the image or the engine leaks in: Docker adds HOSTNAME, images add ENV);
//   - connects the job's stdin to the file given by -i, or /dev/null;
//   - reaps every orphan (it is PID 1) and exits as soon as the job's main
//     process does, which makes the kernel kill everything left in the PID
//     namespace: a daemonized grandchild cannot outlive the job;
//   - polices the writable output directory given by -o (the job's /output):
//     refuses to run the job unless -o is on a nosuid,nodev mount (-m skips
//     this check, for a runtime whose statvfs cannot show mount flags:
//     gVisor); while the job runs it walks the tree (never following a
//     symlink) every 50 ms or so and kills every process of the job as soon
//     as a file takes more than -f bytes, all entries together more than -q
//     bytes (counted as allocated blocks, a file at least its size: see
//     output_guard.h), or there are more than -n entries. In volume mode
//     (-r) a run that broke a bound is rolled back: entries it created are
//     removed and files it grew (in size or blocks) are cut back to their
//     size before the run, so a persistent volume is never left over its
//     quota;
//   - on SIGUSR1 (the service's deadline) kills the job itself and still
//     checks /output before exiting; the service follows up with SIGKILL if
//     that does not happen promptly;
//   - with -c CPU_MS, kills every process of the job (SIGKILL) once they
//     have used CPU_MS of CPU time together. runsc (gVisor 20221219) reports
//     RLIMIT_CPU but never enforces it, so the service asks for this under
//     gVisor; under runc the kernel's RLIMIT_CPU does the job;
//   - with -W FIFO (the warm pool), waits before running anything until the
//     service writes a "go" message to FIFO (go_message.h). With a nonce,
//     init ends stdout with a marker carrying it (the trailer prefix +
//     {"eof":NONCE}), so the service knows the output is complete without
//     waiting for the engine to close the stream (Docker takes ~40 ms after
//     the exit). The container is created and started ahead of the job;
//     only its files and this message arrive with the job. Time spent
//     waiting counts toward nothing: the job's clock starts at "go";
//   - runs a series of cases (go mode "more", then "last") one after
//     another in one container, each a fresh process: after a case it
//     kills and reaps every process, empties the -t directories (/tmp) and
//     /output, removes System V IPC objects (case_traces.h), and only then
//     writes the case's trailer, whose "reusable" says whether the next go
//     may come. A case's trailer reports its own CPU time and OOM kills,
//     and the largest resident set of its processes as its peak memory;
//   - with -P N (and -W), prestarts the first N words of its command for
//     each job (each case) once the one before is gone: the interpreter,
//     which then waits for its release (prestart.h) at the go;
//   - in go mode "reuse" leaves /output to the service after a job, and
//     empties it before the next job starts (or refuses to start it);
//   - writes one metrics trailer line to stderr after the job ends, with
//     CPU time, peak memory and the OOM-kill count read from the container's
//     own cgroup, and what the output directory holds. The engines disagree
//     on OOM (Podman 4.3 reports OOMKilled=false for a memory kill); the
//     cgroup counter does not lie.
//
// Usage: coderunner-init [-i STDIN_FILE | -W FIFO [-t DIR]... [-P N]] [-c CPU_MS] [-e KEY=VALUE]...
//                        [-o DIR [-q BYTES] [-f BYTES] [-n COUNT] [-r] [-m]] -- COMMAND [ARG]...
//        coderunner-init -x -- COMMAND [ARG]...
// With -x it is not PID 1 but a process the service starts in a running
// sandbox through the engine (a command, a file operation, a signal). Such
// a process is no child of init and would run under the engine's profile
// only: it installs the same filter, then becomes COMMAND (same pid,
// environment, descriptors and directory).
// Environment (init's own; the job never gets it): CODERUNNER_EOF_NONCE, the
// nonce of a cold job's trailer; CODERUNNER_MASKED_PATHS and
// CODERUNNER_READONLY_PATHS, colon-separated; CODERUNNER_REQUIRE_SECCOMP=1,
// refuse to run unless the engine's seccomp profile is in place.
// Exit status: the job's exit code, 128+N if signal N killed it, 127 if the
// command could not be executed, 126 on a usage error or when the policy
// checks fail, 125 on a bad "go" message.
//
// The trailer format is shared with src/isolation/init_trailer.cc:
//   "\x1e" "coderunner-init " JSON "\n"
// Its "eof" field carries the nonce (from the "go" message, or
// CODERUNNER_EOF_NONCE), which the job never sees: the service takes a
// trailer only with the nonce it gave, so a trailer the job prints itself
// changes nothing. "start_error" names what kept the job from starting
// ("policy", "egress", "stdin", "exec", "fork"): a fault of the service or the
// engine, never of the program.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "case_traces.h"
#include "egress_wait.h"
#include "go_fifo.h"
#include "go_message.h"
#include "init_options.h"
#include "job_metrics.h"
#include "job_start.h"
#include "output_guard.h"
#include "prestart.h"
#include "proc_masks.h"
#include "stream_write.h"
#include "syscall_filter.h"

static pid_t g_child = -1;
static volatile sig_atomic_t g_stop = 0;
static int g_own_namespace = 0;  // PID 1 of a PID namespace (not a test on the host).
static char g_eof_nonce[kMaxGoNonce + 1];
// Per job (or case of a series): the job's CPU time before it started,
// which the CPU watchdog does not count, and the largest resident set of
// any process reaped since, bytes.
static long long g_cpu_base_us = 0;
static long long g_max_rss_bytes = 0;
static int g_reusable = 0;             // The last case was cleared up: the next may run here.
static int g_output_kept = 0;          // Go mode "reuse" left /output: empty it first.
static unsigned g_output_mode = 0700;  // /output's bits before any job.
// The prestarted process waiting for the next go (-P), or none.
static Prestarted g_prestarted = {-1, -1};

// What the trailer reports.
typedef struct {
  int status;  // As from waitpid.
  long long wall_us;
  long long watchdog_cpu_us;  // What the CPU watchdog saw when it stopped the job; -1.
  int stopped;                // The service's stop (SIGUSR1) ended a job still running.
  OutputUsage usage;
  const char* violation;
  int rolled_back;
  const char* start_error;  // NULL when the job started.
  int reusable;             // A series' case left nothing behind: the next may run.
} Outcome;

// A signal counts only when it comes from outside the container's PID
// namespace: the engine, on the service's behalf. Such a sender has no pid
// here (si_pid 0) and the kernel marks the signal SI_USER. The filter
// already refuses the job's kill(1, ...); this is the second line. On the
// host (tests), every signal counts.
static int FromOutside(const siginfo_t* info) {
  return !g_own_namespace || (info->si_code == SI_USER && info->si_pid == 0);
}

static void Forward(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  if (FromOutside(info) && g_child > 0) kill(g_child, sig);
}

// SIGUSR1 from the service: the job's time is up. Stop it here rather than
// be killed with it, so /output is still checked (and a volume rolled back)
// before the container ends.
static void Stop(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  if (FromOutside(info)) g_stop = 1;
}

static void Handle(int sig, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction(sig, &sa, NULL);
}

static long long NowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int IsNonce(const char* s) {
  size_t n = strlen(s);
  return n <= kMaxGoNonce && strspn(s, "0123456789abcdef") == n;
}

// waitpid(-1, st, WNOHANG), noting the reaped process's peak resident set.
static pid_t ReapAny(int* st) {
  struct rusage ru;
  memset(&ru, 0, sizeof(ru));
  pid_t pid = wait4(-1, st, WNOHANG, &ru);
  if (pid > 0 && ru.ru_maxrss * 1024LL > g_max_rss_bytes) g_max_rss_bytes = ru.ru_maxrss * 1024LL;
  return pid;
}

// How long KillAndReapAll waits for a SIGCHLD before it kills again.
enum { kReapPollNs = 1000000 };  // 1 ms

// Kills every process of the job (everything in this PID namespace but
// PID 1: they all run as the job's uid) and reaps them. Records the main
// process's status if it is among them. Outside a container of its own
// (PID != 1, e.g. a test on the host) kill(-1) would reach every process
// the caller may signal, so then only the job's main process is killed.
// It kills again until no child is left, never waiting blocked: under
// gVisor a process forked while kill(-1) runs can miss the signal (Linux
// makes the two atomic), and a blocking wait would then wait on a process
// nobody killed, until the service's deadline ended the container.
static void KillAndReapAll(int* main_status, int* main_done) {
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  for (;;) {
    if (g_own_namespace) {
      kill(-1, SIGKILL);
    } else if (!*main_done) {
      kill(g_child, SIGKILL);
    }
    int st;
    pid_t pid;
    while ((pid = ReapAny(&st)) > 0 || (pid < 0 && errno == EINTR)) {
      if (pid == g_child && !*main_done) {
        *main_status = st;
        *main_done = 1;
      }
    }
    if (pid < 0) return;  // ECHILD: every job process is gone.
    struct timespec ts = {0, kReapPollNs};
    sigtimedwait(&chld, NULL, &ts);
  }
}

// Runs the job until its main process ends, the service stops it, the CPU
// watchdog fires or /output breaks a bound; then kills and reaps every job
// process and settles /output.
static void Supervise(InitOptions* o, Outcome* r, int can_rollback) {
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  int main_done = 0;
  long long start_us = NowUs();
  long long interval_us = 50000;
  while (!main_done) {
    int st;
    pid_t pid;
    while ((pid = ReapAny(&st)) > 0) {
      if (pid == g_child) {
        r->status = st;
        main_done = 1;
      }
    }
    if (main_done || g_stop) break;
    if (pid < 0 && errno == ECHILD) break;
    if (o->cpu_limit_ms > 0) {
      long long used = JobCpuUs() - g_cpu_base_us;
      if (used >= o->cpu_limit_ms * 1000) {
        r->watchdog_cpu_us = used;
        break;  // KillAndReapAll below stops every job process.
      }
    }
    if (o->out.dir != NULL) {
      long long t = NowUs();
      OutputMeasure(&o->out, &r->usage);
      r->violation = OutputViolation(&o->out, &r->usage);
      if (r->violation != NULL) break;
      // Keep the checks cheap for big trees: at most ~5% of one core.
      long long cost = NowUs() - t;
      interval_us = cost * 20 > 50000 ? (cost * 20 < 1000000 ? cost * 20 : 1000000) : 50000;
    }
    // The CPU watchdog (gVisor) looks every 100 ms at the latest.
    if (o->cpu_limit_ms > 0 && interval_us > 100000) interval_us = 100000;
    struct timespec ts = {interval_us / 1000000, (interval_us % 1000000) * 1000};
    if (o->out.dir != NULL || o->cpu_limit_ms > 0) {
      sigtimedwait(&chld, NULL, &ts);
    } else {
      sigwaitinfo(&chld, NULL);
    }
  }
  r->wall_us = NowUs() - start_us;
  r->stopped = g_stop && !main_done;
  // Nothing the job started may outlive it or keep writing to the output
  // directory while it is checked.
  KillAndReapAll(&r->status, &main_done);
  if (o->out.dir != NULL) {
    OutputMeasure(&o->out, &r->usage);
    if (r->violation == NULL) r->violation = OutputViolation(&o->out, &r->usage);
    if (r->violation != NULL && o->out.rollback) {
      r->rolled_back = can_rollback && OutputRollback(&o->out) == 0;
      OutputMeasure(&o->out, &r->usage);
    }
  }
}

// Every job process is gone: nothing can follow what this writes.
// `case_base`: the container's metrics when a series' case began (NULL for
// a container's one job): the trailer then reports the case's own share.
static void WriteTrailer(const InitOptions* o, const Outcome* r, const JobMetrics* case_base) {
  JobMetrics m;
  ReadJobMetrics(&m);
  if (case_base != NULL) CaseShareOf(case_base, g_max_rss_bytes, &m);
  // A watchdog kill reports at least what the watchdog measured, so that
  // the service reads SIGKILL with cpu_us >= cpu_ms as the CPU limit.
  if (r->watchdog_cpu_us > m.cpu_us) m.cpu_us = r->watchdog_cpu_us;
  int exit_code = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status);
  int sig = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
  if (o->go_fifo != NULL && g_eof_nonce[0] != '\0') {
    (void)WriteLine(1, kStreamLineBytes,
                    "\x1e"
                    "coderunner-init {\"eof\":\"%s\"}\n",
                    g_eof_nonce);
  }
  // The violation and start error are fixed words (no escaping needed).
  (void)WriteLine(
      2, kStreamLineBytes,
      "\x1e"
      "coderunner-init {\"exit_code\":%d,\"signal\":%d,\"wall_us\":%lld,\"cpu_us\":%lld,"
      "\"memory_peak_bytes\":%lld,\"oom_kills\":%lld,\"output_bytes\":%lld,"
      "\"output_used_bytes\":%lld,\"output_entries\":%lld,\"output_violation\":\"%s\","
      "\"output_rolled_back\":%d,\"stopped\":%d,\"start_error\":\"%s\",\"reusable\":%d,"
      "\"eof\":\"%s\"}\n",
      exit_code, sig, r->wall_us, m.cpu_us, m.mem_peak, m.oom_kills, r->usage.bytes, r->usage.used,
      r->usage.entries, r->violation ? r->violation : "", r->rolled_back, r->stopped,
      r->start_error ? r->start_error : "", r->reusable, g_eof_nonce);
}

// Refuses to run anything when the filter cannot be installed, a path the
// engine was asked to mask or write-protect is not, or the output directory
// is not on a nosuid,nodev mount: reported as start_error "policy" with
// exit status 126.
static int SecureSelf(const OutputBounds* out) {
  // Before any job process exists: from here on, a process of the same uid
  // needs CAP_SYS_PTRACE to read or write this one's memory.
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    dprintf(2, "coderunner-init: cannot make itself non-dumpable: %s\n", strerror(errno));
    return -1;
  }
  const char* unmasked =
      CheckProcMasks(getenv("CODERUNNER_MASKED_PATHS"), getenv("CODERUNNER_READONLY_PATHS"));
  if (unmasked != NULL) {
    dprintf(2, "coderunner-init: %s is not masked or read-only as the policy requires\n", unmasked);
    return -1;
  }
  // Before our own filter: whether the engine's profile is in place.
  const char* seccomp = getenv("CODERUNNER_REQUIRE_SECCOMP");
  if (seccomp != NULL && strcmp(seccomp, "1") == 0 && !RunsUnderSeccompFilter()) {
    dprintf(2, "coderunner-init: the engine applied no seccomp profile (seccomp=unconfined?)\n");
    return -1;
  }
  if (out->dir != NULL && OutputCheckMount(out) != 0) {
    dprintf(2, "coderunner-init: %s is not on a nosuid,nodev mount as the policy requires\n",
            out->dir);
    return -1;
  }
  if (InstallSyscallFilter() != 0) {
    dprintf(2, "coderunner-init: cannot install the seccomp filter: %s\n", strerror(errno));
    return -1;
  }
  return 0;
}

// -x: the filter, then the command in this process. 126 when the filter
// cannot be installed, 127 when the command cannot be executed.
static int ExecInPlace(char** command) {
  if (InstallSyscallFilter() != 0) {
    dprintf(2, "coderunner-init: cannot install the seccomp filter: %s\n", strerror(errno));
    return 126;
  }
  execvp(command[0], command);
  dprintf(2, "coderunner-init: %s: %s\n", command[0], strerror(errno));
  return 127;
}

// What a case left (case_traces.h): the -t directories, /output (unless "reuse"
// leaves it to the service), System V IPC objects (as PID 1 only: on the host
// they would be the host's). 0 when all of it is gone.
static int ClearCase(const InitOptions* o, int keep_output) {
  const char* dirs[kMaxScratch + 1];
  int n = 0;
  for (int i = 0; i < o->nscratch; ++i) dirs[n++] = o->scratch[i];
  int failed = ClearDirectories(dirs, n) != 0;
  if (!keep_output && o->out.dir != NULL) {
    failed |= ClearOwnedDirectory(o->out.dir, g_output_mode) != 0;
  }
  if (g_own_namespace) failed |= ClearSysvIpc() != 0;
  return failed ? -1 : 0;
}

// Starts the job `argv` (the prestarted process, else a fork); "policy"
// when /output, left by a "reuse" case, could not be emptied.
static const char* StartCase(InitOptions* o, char** argv) {
  if (g_output_kept) {
    g_output_kept = 0;
    if (o->out.dir != NULL && ClearOwnedDirectory(o->out.dir, g_output_mode) != 0) {
      dprintf(2, "coderunner-init: %s still holds an earlier job's files\n", o->out.dir);
      return "policy";  // The prestarted process dies with the rest.
    }
  }
  if (g_prestarted.pid > 0) return ReleasePrestarted(o, &g_prestarted, argv, &g_child);
  return StartJob(o, argv, &g_child);
}

// Runs one job, or one case of a series (`series`), to its end, and writes
// its trailer. A case another follows (`more`) is cleared up after first;
// g_reusable says whether that worked. Returns the job's exit status.
static int RunJob(InitOptions* o, char** argv, int series, int more, int keep_output) {
  Outcome r;
  memset(&r, 0, sizeof(r));
  r.watchdog_cpu_us = -1;
  // A prestarted process ran before its job: like a series' case, the job
  // reports only what happened since its go.
  const int own_share = series || g_prestarted.pid > 0;
  JobMetrics base;
  if (own_share) ReadJobMetrics(&base);
  g_max_rss_bytes = 0;
  g_cpu_base_us = own_share ? JobCpuUs() : 0;
  int can_rollback = o->out.dir != NULL && o->out.rollback && OutputSnapshot(&o->out) == 0;
  r.start_error = StartCase(o, argv);
  if (g_prestarted.release_fd >= 0) close(g_prestarted.release_fd);
  g_prestarted.release_fd = -1;
  g_prestarted.pid = -1;
  if (r.start_error != NULL) {
    int done = 0;
    KillAndReapAll(&r.status, &done);
  } else {
    Supervise(o, &r, can_rollback);
  }
  g_reusable = more && ClearCase(o, keep_output) == 0;
  g_output_kept = g_reusable && keep_output;
  r.reusable = g_reusable;
  WriteTrailer(o, &r, own_share ? &base : NULL);
  return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status);
}

int main(int argc, char** argv) {
  InitOptions o;
  if (ParseInitOptions(argc, argv, &o) != 0) return 126;
  if (o.exec_in_place) return ExecInPlace(o.command);
  g_own_namespace = getpid() == 1;
  const char* nonce = getenv("CODERUNNER_EOF_NONCE");
  if (nonce != NULL && IsNonce(nonce)) memcpy(g_eof_nonce, nonce, strlen(nonce) + 1);
  Outcome r;
  memset(&r, 0, sizeof(r));
  r.watchdog_cpu_us = -1;
  int secured = SecureSelf(&o.out);
  // Nothing in the environment block is needed any more: wipe it, nonce
  // included. gVisor lets a process of the same uid read /proc/1/environ
  // even when init is non-dumpable.
  extern char** environ;
  for (char** e = environ; *e != NULL; ++e) memset(*e, 0, strlen(*e));
  if (secured != 0) {
    r.start_error = "policy";
    r.status = 126 << 8;
    WriteTrailer(&o, &r, NULL);
    return 126;
  }
  // A stop (SIGUSR1) while waiting for the first "go" ends the wait.
  Handle(SIGUSR1, Stop);
  // SIGCHLD stays blocked so the wait can also wake on a timer to check the
  // output directory; the job gets an empty mask back.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  static const int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  for (size_t k = 0; k < sizeof(kForwarded) / sizeof(kForwarded[0]); ++k) {
    Handle(kForwarded[k], Forward);
  }
  if (o.egress_port > 0 && AwaitEgressProxy(o.egress_port, &g_stop) != 0) {
    r.start_error = "egress";
    r.status = 126 << 8;
    WriteTrailer(&o, &r, NULL);
    return 126;
  }
  if (o.go_fifo == NULL) return RunJob(&o, o.command, 0, 0, 0);
  struct stat out_st;
  if (o.out.dir != NULL && stat(o.out.dir, &out_st) == 0) g_output_mode = out_st.st_mode & 07777;
  // A release written to a prestarted process that died must not end init.
  signal(SIGPIPE, SIG_IGN);
  char** job_command = o.command + o.prestart_words;
  for (int between_cases = 0;; between_cases = 1) {
    // Each job (each case) gets a process prestarted for it alone, after
    // everything of the case before is gone.
    if (o.prestart_words > 0) StartPrestart(&o, PrestartArgv(&o), &g_prestarted);
    const GoMessage* go = AwaitGo(o.go_fifo, between_cases, &g_stop);
    if (go == NULL) return 125;
    memcpy(g_eof_nonce, go->nonce, sizeof(g_eof_nonce));
    o.stdin_path = go->with_stdin ? "/workspace/.coderunner-stdin" : NULL;
    if (!go->series) return RunJob(&o, JobArgv(job_command, go), 0, 0, 0);
    // A stop the service sent as the last case ended on its own was
    // handled by now (the signal was pending before this go was written).
    g_stop = 0;
    const int more = go->more;
    int status = RunJob(&o, JobArgv(job_command, go), 1, more, go->keep_output);
    if (!more || !g_reusable) return status;
  }
}
