#include "native_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coderunner/isolation/native_runner.h"

namespace coderunner::isolation {
namespace {

// What the child reports through the exec-error pipe when a step fails.
struct ChildFailure {
  int step;  // Index into kSteps.
  int err;   // errno.
};

constexpr const char* kSteps[] = {"setsid",    "dup2",        "chdir",     "setrlimit",
                                  "setgroups", "setresgid",   "setresuid", "no_new_privs",
                                  "pdeathsig", "close_range", "execve"};
enum Step {
  kSetsid,
  kDup2,
  kChdir,
  kSetrlimit,
  kSetgroups,
  kSetresgid,
  kSetresuid,
  kNoNewPrivs,
  kPdeathsig,
  kCloseRange,
  kExecve
};

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

[[noreturn]] void Fail(int report_fd, Step step) {
  ChildFailure f{step, errno};
  ssize_t n = write(report_fd, &f, sizeof f);
  (void)n;
  _exit(127);
}

// In the child, after fork: only async-signal-safe calls (raw syscalls for
// the credentials: glibc's setuid family would signal threads the child
// does not have). `argv` and `envp` were built before the fork.
[[noreturn]] void RunChild(const NativeLaunch& l, int out_w, int err_w, int report_w, pid_t parent,
                           char* const* argv, char* const* envp) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);  // SIGPIPE was ignored.
  if (setsid() < 0) Fail(report_w, kSetsid);
  if (dup2(l.stdin_fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) Fail(report_w, kDup2);
  if (chdir(l.cwd.c_str()) != 0) Fail(report_w, kChdir);
  for (const NativeRlimit& r : l.rlimits) {
    struct rlimit lim = {r.soft, r.hard};
    if (setrlimit(r.resource, &lim) != 0) Fail(report_w, kSetrlimit);
  }
  if (l.switch_user) {
    if (syscall(SYS_setgroups, 0, nullptr) != 0) Fail(report_w, kSetgroups);
    if (syscall(SYS_setresgid, l.gid, l.gid, l.gid) != 0) Fail(report_w, kSetresgid);
    if (syscall(SYS_setresuid, l.uid, l.uid, l.uid) != 0) Fail(report_w, kSetresuid);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail(report_w, kNoNewPrivs);
  // After the credential change, which clears it.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) Fail(report_w, kPdeathsig);
  if (getppid() != parent) _exit(127);  // The service died already.
  // Everything but 0, 1, 2 closes at exec (the report pipe too, which tells
  // the parent that exec succeeded).
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) Fail(report_w, kCloseRange);
  execve(l.program.c_str(), argv, envp);
  Fail(report_w, kExecve);
}

std::vector<char*> Pointers(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

Status SpawnError(const std::string& what, int err) {
  return InternalError(what + ": " + strerror(err), kReasonNativeSpawnFailed);
}

// Waits for the exec-error pipe: EOF means exec succeeded.
Status AwaitExec(int report_r, pid_t pid, const std::string& program) {
  ChildFailure f{};
  ssize_t n;
  do {
    n = read(report_r, &f, sizeof f);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return OkStatus();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof f) || f.step < 0 || f.step > kExecve) {
    return InternalError("cannot start " + program + ": the child died before exec",
                         kReasonNativeSpawnFailed);
  }
  return SpawnError("cannot start " + program + " (" + kSteps[f.step] + ")", f.err);
}

}  // namespace

StatusOr<NativeChild> SpawnNative(const NativeLaunch& launch) {
  int out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
    int e = errno;
    for (int* p : {out, err, report}) {
      CloseFd(p[0]);
      CloseFd(p[1]);
    }
    return SpawnError("pipe", e);
  }
  std::vector<char*> argv = Pointers(launch.argv);
  std::vector<char*> envp = Pointers(launch.env);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) RunChild(launch, out[1], err[1], report[1], parent, argv.data(), envp.data());
  int fork_err = errno;
  CloseFd(out[1]);
  CloseFd(err[1]);
  CloseFd(report[1]);
  NativeChild child{pid, -1, out[0], err[0]};
  Status started =
      pid < 0 ? SpawnError("fork", fork_err) : AwaitExec(report[0], pid, launch.program);
  CloseFd(report[0]);
  if (started.ok()) {
    child.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (child.pidfd < 0) {
      started = SpawnError("pidfd_open", errno);
      KillNative(pid, -1);
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  if (!started.ok()) {
    CloseFd(child.out_fd);
    CloseFd(child.err_fd);
    return started;
  }
  return child;
}

void KillNative(pid_t pgid, int64_t uid) {
  if (pgid > 0) kill(-pgid, SIGKILL);
  if (uid <= 0) return;
  // kill(-1) as the job's uid reaches exactly that uid's processes (never
  // the caller itself), wherever they moved.
  pid_t reaper = fork();
  if (reaper == 0) {
    if (syscall(SYS_setresuid, uid, uid, uid) != 0) _exit(1);
    // Again until none is left: one pass can miss a child forked meanwhile
    // (RLIMIT_NPROC bounds how many there are).
    for (int pass = 0; pass < 100; ++pass) {
      if (kill(-1, SIGKILL) != 0 && errno == ESRCH) break;
    }
    _exit(0);
  }
  if (reaper > 0) {
    while (waitpid(reaper, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace coderunner::isolation
