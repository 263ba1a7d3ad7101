#include "coderunner/isolation/native_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "coderunner/isolation/capped_output.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/isolation/workspace.h"
#include "native_process.h"

namespace coderunner::isolation {
namespace {

using Clock = std::chrono::steady_clock;

// Runtimes that reserve far more address space than they use (V8's code
// range and pointer cage): they do not start under RLIMIT_AS.
constexpr std::string_view kV8Runtimes[] = {"node", "nodejs", "tsx"};

int64_t MsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

Status NativeError(const std::string& what) {
  return InternalError(what, kReasonNativeSpawnFailed);
}

// A descriptor closed when the last holder lets go (the cancel callback may
// outlive Run's own use of it).
struct SharedFd {
  int fd = -1;
  ~SharedFd() {
    if (fd >= 0) close(fd);
  }
};

// `name` looked up in kNativePath unless it holds a '/'.
std::optional<std::string> FindExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::string_view dirs(kNativePath);
  while (!dirs.empty()) {
    size_t colon = dirs.find(':');
    std::string candidate = std::string(dirs.substr(0, colon)) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return std::nullopt;
}

bool IsV8Runtime(const std::string& program) {
  std::string_view base(program);
  base = base.substr(base.rfind('/') + 1);
  return std::find(std::begin(kV8Runtimes), std::end(kV8Runtimes), base) != std::end(kV8Runtimes);
}

// The job's rlimits (see native_runner.h). Without root no hard limit can
// be raised: each is clamped to the service's own.
std::vector<NativeRlimit> RlimitsFor(const Limits& l, int64_t nofile, bool as_root, bool v8) {
  auto r = [](int resource, int64_t soft, int64_t hard) {
    return NativeRlimit{resource, static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)};
  };
  int64_t cpu_s = (l.cpu_ms + 999) / 1000;
  std::vector<NativeRlimit> out = {
      r(RLIMIT_CPU, cpu_s, cpu_s + 1),
      r(RLIMIT_DATA, l.memory_bytes, l.memory_bytes),
      r(RLIMIT_FSIZE, l.tmp_bytes, l.tmp_bytes),
      r(RLIMIT_NOFILE, nofile, nofile),
      r(RLIMIT_CORE, 0, 0),
  };
  if (!v8) out.push_back(r(RLIMIT_AS, l.memory_bytes, l.memory_bytes));
  if (as_root) out.push_back(r(RLIMIT_NPROC, l.pids, l.pids));
  if (!as_root) {
    for (NativeRlimit& lim : out) {
      struct rlimit cur = {};
      if (getrlimit(lim.resource, &cur) != 0 || cur.rlim_max == RLIM_INFINITY) continue;
      lim.hard = std::min(lim.hard, cur.rlim_max);
      lim.soft = std::min(lim.soft, lim.hard);
    }
  }
  return out;
}

// The job's directory, files and process description, before it starts.
struct NativeSetup {
  UidLease lease;  // Empty when the service is not root.
  std::unique_ptr<Workspace> dir;
  NativeLaunch launch;
  int64_t kill_uid = -1;  // The job's own uid, when every process of it may be killed.
  ~NativeSetup() {
    if (launch.stdin_fd >= 0) close(launch.stdin_fd);
  }
};

// mkdtemp under `root`, as a Workspace (removed with it); the job's
// program, input files and stdin written into it; then handed to the job's
// uid, mode 0700.
Status MakeDirectory(const std::string& root, const JobSpec& job, NativeSetup& s) {
  std::string tmpl = root + "/coderunner-" + job.id + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    return NativeError("cannot create a directory in " + root + ": " + strerror(errno));
  }
  auto dir = Workspace::Open(root, tmpl.substr(root.size() + 1), s.launch.gid);
  if (!dir.ok()) {
    rmdir(tmpl.c_str());
    return dir.status();
  }
  s.dir = std::move(*dir);
  CR_RETURN_IF_ERROR(s.dir->WriteFile(job.language.file, job.code));
  for (const InputFile& f : job.files) {
    CR_RETURN_IF_ERROR(f.executable ? s.dir->WriteProgram(f.path, f.content)
                                    : s.dir->WriteFile(f.path, f.content));
  }
  std::string stdin_path = tmpl + "/" + std::string(kStdinFile);
  if (!job.stdin_data.empty()) {
    CR_RETURN_IF_ERROR(s.dir->WriteFile(kStdinFile, job.stdin_data));
    s.launch.stdin_fd = open(stdin_path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    unlink(stdin_path.c_str());
  } else {
    s.launch.stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  if (s.launch.stdin_fd < 0) return NativeError("open stdin: " + std::string(strerror(errno)));
  int fd = open(tmpl.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  bool handed = fd >= 0 && fchown(fd, s.launch.uid, s.launch.gid) == 0 && fchmod(fd, 0700) == 0;
  int err = errno;
  if (fd >= 0) close(fd);
  if (!handed) return NativeError("hand " + tmpl + " to the job's uid: " + strerror(err));
  s.launch.cwd = tmpl;
  return OkStatus();
}

// The command line and environment of `job` in directory `dir`.
Status BuildCommand(const JobSpec& job, const std::string& dir, NativeLaunch& launch) {
  if (job.language.command.empty()) return NativeError("language has no command");
  std::string program_file = dir + "/" + job.language.file;
  for (const auto& part : job.language.command) {
    launch.argv.push_back(part == "{file}" ? program_file : part);
  }
  for (const auto& arg : job.args) launch.argv.push_back(arg);
  std::optional<std::string> exe = FindExecutable(launch.argv.front());
  if (!exe) {
    return NativeError(launch.argv.front() + " not found in " + std::string(kNativePath) +
                       " on this host");
  }
  launch.program = *exe;
  launch.env = {std::string("PATH=") + kNativePath, "HOME=" + dir,
                std::string("LANG=") + kNativeLang, "TMPDIR=" + dir};
  return OkStatus();
}

// How the process's run went, as the supervising loop saw it.
struct Watched {
  bool timed_out = false;
  bool cancelled = false;
  int wait_status = 0;
  struct rusage usage = {};
  Clock::time_point start;
  Clock::time_point end;
};

// One output pipe and its capped copy.
struct Stream {
  int fd;
  engine::StreamId id;
  CappedOutput kept;
  int64_t shown = 0;
};

// Reads what `s` has; closes it at EOF. Only bytes within `cap` are shown.
void ReadStream(Stream& s, int64_t cap, const RunHooks& hooks) {
  std::array<char, 64 << 10> buf;
  ssize_t n = read(s.fd, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close(s.fd);
    s.fd = -1;
    return;
  }
  std::string_view chunk(buf.data(), static_cast<size_t>(n));
  s.kept.Append(chunk);
  int64_t room = std::max<int64_t>(0, cap - s.shown);
  std::string_view visible = chunk.substr(0, static_cast<size_t>(std::min<int64_t>(room, n)));
  s.shown += static_cast<int64_t>(visible.size());
  if (hooks.on_output && !visible.empty()) hooks.on_output(s.id, visible);
}

// Runs the poll loop until the process exited and its pipes closed (or the
// drain grace passed), killing it at the deadline or on cancel.
Watched Supervise(const JobSpec& job, const RunHooks& hooks, NativeChild& child, Stream* streams,
                  int64_t kill_uid, std::chrono::milliseconds drain_grace) {
  Watched w;
  w.start = Clock::now();
  auto wake = std::make_shared<SharedFd>();
  wake->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (hooks.cancel != nullptr) {
    hooks.cancel->OnCancel([wake] {
      uint64_t one = 1;
      ssize_t n = write(wake->fd, &one, sizeof one);
      (void)n;
    });
  }
  const Clock::time_point deadline = w.start + std::chrono::milliseconds(job.limits.timeout_ms);
  std::optional<Clock::time_point> drain_until;
  bool killed = false;
  auto kill_all = [&] {
    KillNative(child.pid, kill_uid);
    killed = true;
  };
  for (;;) {
    if (drain_until && streams[0].fd < 0 && streams[1].fd < 0) break;
    Clock::time_point now = Clock::now();
    if (drain_until && now >= *drain_until) break;
    if (!killed && now >= deadline) {
      w.timed_out = true;
      kill_all();
    }
    Clock::time_point until = drain_until ? *drain_until : killed ? now + drain_grace : deadline;
    int timeout = static_cast<int>(std::clamp<int64_t>(MsBetween(now, until) + 1, 0, 60000));
    struct pollfd fds[4] = {{streams[0].fd, POLLIN, 0},
                            {streams[1].fd, POLLIN, 0},
                            {drain_until ? -1 : child.pidfd, POLLIN, 0},
                            {wake->fd, POLLIN, 0}};
    if (poll(fds, 4, timeout) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents != 0) ReadStream(streams[i], job.limits.output_bytes, hooks);
    }
    if ((fds[3].revents & POLLIN) != 0 && !killed && !drain_until) {
      w.cancelled = true;
      kill_all();
    }
    if ((fds[2].revents & POLLIN) != 0) {
      w.end = Clock::now();
      // Before the reap, so the group id cannot have been reused: nothing
      // the program started outlives it.
      KillNative(child.pid, kill_uid);
      while (wait4(child.pid, &w.wait_status, 0, &w.usage) < 0 && errno == EINTR) {
      }
      drain_until = Clock::now() + drain_grace;
    }
  }
  if (hooks.cancel != nullptr) hooks.cancel->OnCancel(nullptr);
  if (!drain_until) {  // poll failed: end it the hard way.
    KillNative(child.pid, kill_uid);
    while (wait4(child.pid, &w.wait_status, 0, &w.usage) < 0 && errno == EINTR) {
    }
    w.end = Clock::now();
  }
  return w;
}

RunResult ResultOf(const JobSpec& job, const Watched& w, Stream* streams) {
  RunResult r;
  r.runtime = kRuntimeNative;
  r.metrics.run_ms = MsBetween(w.start, w.end);
  auto tv_ms = [](const timeval& tv) { return tv.tv_sec * 1000 + tv.tv_usec / 1000; };
  r.metrics.cpu_ms = tv_ms(w.usage.ru_utime) + tv_ms(w.usage.ru_stime);
  r.metrics.memory_peak_bytes = static_cast<int64_t>(w.usage.ru_maxrss) * 1024;
  r.stdout_truncated = streams[0].kept.truncated();
  r.stderr_truncated = streams[1].kept.truncated();
  r.stdout_data = streams[0].kept.TakeKept();
  r.stderr_data = streams[1].kept.TakeKept();
  if (WIFEXITED(w.wait_status)) {
    r.exit_code = WEXITSTATUS(w.wait_status);
  } else if (WIFSIGNALED(w.wait_status)) {
    r.signal = WTERMSIG(w.wait_status);
    r.exit_code = 128 + r.signal;
  }
  bool cpu_exceeded = r.signal == SIGXCPU || (r.signal == SIGKILL && !w.timed_out && !w.cancelled &&
                                              r.metrics.cpu_ms >= job.limits.cpu_ms);
  if (w.cancelled) {
    r.status = RunStatus::kCancelled;
  } else if (w.timed_out || cpu_exceeded) {
    r.status = RunStatus::kTimeout;
  } else {
    r.status = r.exit_code == 0 ? RunStatus::kSucceeded : RunStatus::kFailed;
  }
  return r;
}

}  // namespace

NativeRunner::NativeRunner(NativeRunnerOptions options) : options_(std::move(options)) {
  if (options_.uids == nullptr) {
    own_uids_ = std::make_unique<UidPool>(kDefaultFirstJobUid, kDefaultJobUidCount);
  }
  uids_ = options_.uids != nullptr ? options_.uids : own_uids_.get();
}

NativeRunner::~NativeRunner() = default;

StatusOr<RunResult> NativeRunner::Run(const JobSpec& job, const RunHooks& hooks) {
  const Clock::time_point t0 = Clock::now();
  auto fail = [&](Status why) {
    RunResult r;
    r.status = RunStatus::kError;
    r.runtime = kRuntimeNative;
    r.error = std::move(why);
    r.metrics.wall_ms = MsBetween(t0, Clock::now());
    return r;
  };
  NativeSetup s;
  const bool as_root = geteuid() == 0;
  if (as_root) {
    auto lease = uids_->Lease();
    if (!lease.ok()) return fail(lease.status());
    s.lease = std::move(*lease);
    s.launch.switch_user = true;
    s.launch.uid = static_cast<uid_t>(s.lease.uid());
    s.launch.gid = static_cast<gid_t>(s.lease.uid());
    s.kill_uid = s.lease.uid();
  } else {
    s.launch.uid = geteuid();
    s.launch.gid = getegid();
  }
  Status ready = MakeDirectory(options_.temp_root, job, s);
  if (ready.ok()) ready = BuildCommand(job, s.launch.cwd, s.launch);
  if (!ready.ok()) return fail(ready);
  s.launch.rlimits =
      RlimitsFor(job.limits, options_.nofile, as_root, IsV8Runtime(s.launch.program));
  auto child = SpawnNative(s.launch);
  if (!child.ok()) return fail(child.status());
  size_t cap = static_cast<size_t>(job.limits.output_bytes);
  Stream streams[2] = {{child->out_fd, engine::StreamId::kStdout, CappedOutput(cap)},
                       {child->err_fd, engine::StreamId::kStderr, CappedOutput(cap)}};
  Watched w = Supervise(job, hooks, *child, streams, s.kill_uid, options_.drain_grace);
  close(child->pidfd);
  for (Stream& st : streams) {
    if (st.fd >= 0) close(st.fd);
  }
  RunResult r = ResultOf(job, w, streams);
  Status removed = s.dir->Remove();
  if (!removed.ok()) spdlog::warn("job {}: {}", job.id, removed.ToString());
  r.metrics.wall_ms = MsBetween(t0, Clock::now());
  return r;
}

}  // namespace coderunner::isolation
