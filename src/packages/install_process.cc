#include "install_process.h"

#include <fcntl.h>
#include <fts.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace coderunner::packages {
namespace {

using Clock = std::chrono::steady_clock;

// What of the installer's output is kept: its last lines name the failure.
constexpr size_t kKeptOutputBytes = 16 << 10;
// How often the written bytes are measured while it runs.
constexpr auto kWatchEvery = std::chrono::milliseconds(100);

std::vector<char*> CStrings(const std::vector<std::string>& in) {
  std::vector<char*> out;
  for (const auto& s : in) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void BecomeInstaller(const InstallCommand& cmd, char** argv, char** envp, int out_fd) {
  setpgid(0, 0);
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(126);
  syscall(SYS_close_range, 3, ~0U, 0);
  const auto id = static_cast<uid_t>(cmd.uid);
  if (setgroups(0, nullptr) != 0 || setresgid(id, id, id) != 0 || setresuid(id, id, id) != 0) {
    _exit(126);
  }
  umask(022);
  struct rlimit fsize = {static_cast<rlim_t>(cmd.max_bytes), static_cast<rlim_t>(cmd.max_bytes)};
  struct rlimit none = {0, 0};
  if (setrlimit(RLIMIT_FSIZE, &fsize) != 0 || setrlimit(RLIMIT_CORE, &none) != 0) _exit(126);
  if (chdir(cmd.cwd.c_str()) != 0) _exit(126);
  execve(argv[0], argv, envp);
  _exit(127);
}

void Keep(std::string& out, const char* data, size_t n) {
  out.append(data, n);
  if (out.size() > 2 * kKeptOutputBytes) out.erase(0, out.size() - kKeptOutputBytes);
}

}  // namespace

int64_t TreeBytes(const std::string& dir) {
  char* paths[] = {const_cast<char*>(dir.c_str()), nullptr};
  FTS* fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR | FTS_XDEV, nullptr);
  if (fts == nullptr) return 0;
  int64_t total = 0;
  while (FTSENT* e = fts_read(fts)) {
    if (e->fts_info == FTS_DP || e->fts_statp == nullptr) continue;
    const struct stat& st = *e->fts_statp;
    total += std::max<int64_t>(st.st_blocks * 512, S_ISREG(st.st_mode) ? st.st_size : 0);
  }
  fts_close(fts);
  return total;
}

StatusOr<InstallRun> RunInstall(const InstallCommand& cmd) {
  auto argv = CStrings(cmd.argv);
  auto envp = CStrings(cmd.env);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return InternalError("installer: pipe: " + std::string(strerror(errno)),
                         "install_spawn_failed");
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return InternalError("installer: fork: " + std::string(strerror(errno)),
                         "install_spawn_failed");
  }
  if (pid == 0) BecomeInstaller(cmd, argv.data(), envp.data(), pipe_fds[1]);
  close(pipe_fds[1]);
  setpgid(pid, pid);  // Also in the child: whichever runs first.
  InstallRun run;
  const auto deadline = Clock::now() + cmd.timeout;
  auto next_watch = Clock::now() + kWatchEvery;
  bool open_pipe = true;
  while (open_pipe) {
    struct pollfd pfd = {pipe_fds[0], POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(kWatchEvery.count())) > 0) {
      char buf[4096];
      ssize_t n = read(pipe_fds[0], buf, sizeof(buf));
      if (n > 0) Keep(run.output, buf, static_cast<size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) open_pipe = false;
    }
    const auto now = Clock::now();
    if (now >= deadline) run.timed_out = true;
    if (now >= next_watch) {
      next_watch = now + kWatchEvery;
      if (TreeBytes(cmd.watched_dir) > cmd.max_bytes) run.too_large = true;
    }
    if (run.timed_out || run.too_large) break;
  }
  close(pipe_fds[0]);
  // The group goes in every case: nothing it started outlives the install.
  kill(-pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!run.timed_out && !run.too_large && WIFEXITED(wstatus)) run.exit_code = WEXITSTATUS(wstatus);
  if (run.output.size() > kKeptOutputBytes)
    run.output.erase(0, run.output.size() - kKeptOutputBytes);
  if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGXFSZ) run.too_large = true;
  return run;
}

}  // namespace coderunner::packages
