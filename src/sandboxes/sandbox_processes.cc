#include "coderunner/sandboxes/sandbox_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <set>
#include <thread>

#include "coderunner/engine/stream_demux.h"
#include "coderunner/isolation/mechanism.h"
#include "sandbox_exec.h"

namespace coderunner::sandboxes {
namespace {

using Clock = std::chrono::steady_clock;

// How long an ended process stays known (a follower arriving late still
// gets its output and its end).
constexpr auto kEndedGrace = std::chrono::seconds(60);
// How long Start waits for the process to report its pid.
constexpr auto kStartWait = std::chrono::seconds(30);
// How long the engine may take to report an exec ended once its output did.
constexpr auto kExitWait = std::chrono::seconds(5);
constexpr auto kExitPoll = std::chrono::milliseconds(20);
constexpr auto kSignalTimeout = std::chrono::seconds(10);
// The signals E2B's clients send, and the few a shell user expects.
const std::set<std::string> kSignals = {"TERM", "KILL", "INT",  "HUP", "QUIT",
                                        "USR1", "USR2", "STOP", "CONT"};

// The wrapper every process starts under: it reports its pid (the
// process's, after exec) as the first line of stderr, then becomes the
// command with stdin from `stdin_path`.
std::vector<std::string> WrappedCommand(const ProcessConfig& config,
                                        const std::string& stdin_path) {
  std::vector<std::string> command = {
      "/bin/sh", "-c", "printf '%d\\n' \"$$\" >&2; exec \"$@\" < " + stdin_path, "sh", config.cmd};
  command.insert(command.end(), config.args.begin(), config.args.end());
  return command;
}

}  // namespace

struct SandboxProcesses::Process {
  std::string sandbox_id;
  ExecTarget target;  // Where it runs: its timeout's kill goes there.
  ProcessInfo info;
  engine::StreamAbort abort;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<ProcessEvent> events;  // Kept for replay, at most replay_bytes of data.
  uint64_t first_seq = 0;           // Sequence number of events.front().
  size_t kept_bytes = 0;
  bool started = false;  // The pid is known (kStart is in events).
  bool ended = false;    // kEnd is in events.
  Clock::time_point ended_at;
  std::string pid_line;  // Stderr before the pid's newline.
  // Stdout that came before the pid: the engine interleaves the two streams
  // as they come (Podman's can put the program's stdout first).
  std::string early_stdout;
  int stdin_fd = -1;
  std::string fifo_path;  // On the host.

  // Requires mu.
  void Append(ProcessEvent event, size_t replay_bytes) {
    kept_bytes += event.data.size();
    events.push_back(std::move(event));
    while (events.size() > 1 && kept_bytes > replay_bytes) {
      kept_bytes -= events.front().data.size();
      events.pop_front();
      ++first_seq;
    }
    cv.notify_all();
  }
  void CloseStdin() {
    if (stdin_fd >= 0) close(stdin_fd);
    stdin_fd = -1;
    if (!fifo_path.empty()) unlink(fifo_path.c_str());
    fifo_path.clear();
  }
};

SandboxProcesses::SandboxProcesses(engine::ExecClient& execs, ProcessLimits limits)
    : execs_(execs), limits_(limits) {}

SandboxProcesses::~SandboxProcesses() {
  std::vector<std::shared_ptr<Process>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& [sandbox, pids] : processes_) {
      for (auto& [pid, p] : pids) all.push_back(p);
    }
    processes_.clear();
    all.insert(all.end(), ended_.begin(), ended_.end());
    ended_.clear();
  }
  for (auto& p : all) p->abort.Abort();
  for (auto& p : all) {
    if (p->thread.joinable()) p->thread.join();
  }
}

std::vector<std::shared_ptr<SandboxProcesses::Process>> SandboxProcesses::Reap() {
  std::vector<std::shared_ptr<Process>> done;
  const auto now = Clock::now();
  for (auto& [sandbox, pids] : processes_) {
    for (auto it = pids.begin(); it != pids.end();) {
      std::lock_guard<std::mutex> lock(it->second->mu);
      if (it->second->ended && now - it->second->ended_at > kEndedGrace) {
        done.push_back(it->second);
        it = pids.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::erase_if(processes_, [](const auto& kv) { return kv.second.empty(); });
  done.insert(done.end(), ended_.begin(), ended_.end());
  ended_.clear();
  return done;
}

size_t SandboxProcesses::RunningIn(const std::string& sandbox_id) {
  size_t n = starting_[sandbox_id];
  auto it = processes_.find(sandbox_id);
  if (it == processes_.end()) return n;
  for (const auto& [pid, p] : it->second) {
    std::lock_guard<std::mutex> lock(p->mu);
    if (!p->ended) ++n;
  }
  return n;
}

StatusOr<int64_t> SandboxProcesses::Start(const std::string& sandbox_id, const ExecTarget& target,
                                          const ProcessConfig& config) {
  auto p = std::make_shared<Process>();
  p->sandbox_id = sandbox_id;
  p->target = target;
  p->info.config = config;
  std::string stdin_path = "/dev/null";
  std::vector<std::shared_ptr<Process>> reaped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reaped = Reap();
    if (stopping_) return UnavailableError("the service is stopping");
    if (RunningIn(sandbox_id) >= limits_.max_per_sandbox) {
      return ResourceExhaustedError("sandbox " + sandbox_id + " runs " +
                                        std::to_string(limits_.max_per_sandbox) +
                                        " processes, the most it may",
                                    kReasonProcessLimit);
    }
    ++starting_[sandbox_id];
    if (config.stdin) {
      const std::string name = ".process-stdin-" + std::to_string(++next_fifo_);
      p->fifo_path = target.workspace_dir + "/" + name;
      stdin_path = std::string(isolation::kWorkspaceMount) + "/" + name;
    }
  }
  for (auto& r : reaped) {
    if (r->thread.joinable()) r->thread.join();
  }
  auto started = [&]() -> StatusOr<std::string> {
    if (config.stdin) {
      // The service's end is read-write, so neither open blocks; the
      // process reads the other (the workspace is read-only to it).
      if (mkfifo(p->fifo_path.c_str(), 0644) != 0) {
        return InternalError("mkfifo " + p->fifo_path + ": " + strerror(errno));
      }
      p->stdin_fd = open(p->fifo_path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
      if (p->stdin_fd < 0) return InternalError("open " + p->fifo_path + ": " + strerror(errno));
    }
    std::map<std::string, std::string> envs = target.envs;
    for (const auto& [k, v] : config.envs) envs[k] = v;
    engine::ExecSpec spec{UnderJobFilter(WrappedCommand(config, stdin_path)), target.user,
                          config.cwd.empty() ? std::string(isolation::kHomeMount) : config.cwd,
                          EnvList(envs)};
    return execs_.Create(target.container_id, spec);
  }();
  if (!started.ok()) {
    p->CloseStdin();
    std::lock_guard<std::mutex> lock(mu_);
    --starting_[sandbox_id];
    return started.status();
  }
  p->thread = std::thread([this, p, exec_id = *started] { Run(p, exec_id); });
  bool running;
  {
    std::unique_lock<std::mutex> lock(p->mu);
    p->cv.wait_for(lock, kStartWait, [&] { return p->started || p->ended; });
    running = p->started;
  }
  std::lock_guard<std::mutex> lock(mu_);
  --starting_[sandbox_id];
  if (!running) {
    p->abort.Abort();
    ended_.push_back(p);
    std::lock_guard<std::mutex> plock(p->mu);
    std::string why = p->events.empty() ? "" : p->events.back().error;
    return UnavailableError("the process did not start" + (why.empty() ? "" : ": " + why));
  }
  processes_[sandbox_id][p->info.pid] = p;
  return p->info.pid;
}

void SandboxProcesses::Run(std::shared_ptr<Process> p, std::string exec_id) {
  const size_t replay = limits_.replay_bytes;
  engine::StreamDemuxer demux([&](engine::StreamId stream, std::string_view bytes) {
    std::lock_guard<std::mutex> lock(p->mu);
    if (stream == engine::StreamId::kStdout && !p->started) {
      // Kept for after the start event (within the replay's bound).
      p->early_stdout.append(bytes.substr(0, replay - std::min(replay, p->early_stdout.size())));
      return;
    }
    if (stream == engine::StreamId::kStderr && !p->started) {
      // The wrapper's first line: the pid.
      size_t nl = bytes.find('\n');
      p->pid_line.append(bytes.substr(0, nl));
      if (nl == std::string_view::npos) return;
      p->info.pid = std::atoll(p->pid_line.c_str());
      p->started = true;
      p->Append(ProcessEvent::Of(ProcessEvent::Kind::kStart, p->info.pid), replay);
      if (!p->early_stdout.empty()) {
        p->Append(
            ProcessEvent::Of(ProcessEvent::Kind::kStdout, p->info.pid, std::move(p->early_stdout)),
            replay);
        p->early_stdout.clear();
      }
      bytes.remove_prefix(nl + 1);
      if (bytes.empty()) return;
    }
    ProcessEvent e =
        ProcessEvent::Of(stream == engine::StreamId::kStdout ? ProcessEvent::Kind::kStdout
                                                             : ProcessEvent::Kind::kStderr,
                         p->info.pid, std::string(bytes));
    p->Append(std::move(e), replay);
  });
  Status streamed = execs_.Start(
      exec_id, [&](std::string_view chunk) { return demux.Feed(chunk).ok(); },
      p->info.config.timeout, &p->abort);
  if (streamed.code() == StatusCode::kDeadlineExceeded) streamed = KillPastTimeout(*p);
  ProcessEvent end = ProcessEvent::End(p->info.pid, 0);
  if (!streamed.ok()) end.error = streamed.message();
  // Its output ended; the engine may report the exit a moment later.
  for (auto until = Clock::now() + kExitWait; streamed.ok();) {
    auto state = execs_.Inspect(exec_id);
    if (!state.ok()) {
      end.error = state.status().message();
      break;
    }
    if (!state->running) {
      end.exit_code = state->exit_code;
      break;
    }
    if (Clock::now() >= until) {
      end.error = "the process closed its output but is still running";
      break;
    }
    std::this_thread::sleep_for(kExitPoll);
  }
  if (!end.error.empty()) end.exit_code = -1;
  std::lock_guard<std::mutex> lock(p->mu);
  p->CloseStdin();
  p->ended = true;
  p->ended_at = Clock::now();
  p->Append(std::move(end), replay);
}

Status SandboxProcesses::KillPastTimeout(Process& p) {
  int64_t pid;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    pid = p.info.pid;
  }
  if (pid <= 0) return DeadlineExceededError("the process did not start before its timeout");
  Status killed = SendFromInside(p.target, pid, "KILL");
  // NotFound: it ended meanwhile, and its exit says how.
  return killed.code() == StatusCode::kNotFound ? OkStatus() : killed;
}

std::shared_ptr<SandboxProcesses::Process> SandboxProcesses::Find(const std::string& sandbox_id,
                                                                  int64_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = processes_.find(sandbox_id);
  if (it == processes_.end()) return nullptr;
  auto p = it->second.find(pid);
  return p == it->second.end() ? nullptr : p->second;
}

Status SandboxProcesses::Follow(const std::string& sandbox_id, int64_t pid, bool from_start,
                                const ProcessListener& listener) {
  std::shared_ptr<Process> p = Find(sandbox_id, pid);
  if (p == nullptr) {
    return NotFoundError("no process " + std::to_string(pid), kReasonProcessNotFound);
  }
  std::unique_lock<std::mutex> lock(p->mu);
  uint64_t next = from_start ? p->first_seq : p->first_seq + p->events.size();
  if (!from_start && p->ended) next = p->first_seq + p->events.size() - 1;  // Just its end.
  for (;;) {
    const bool ready = p->cv.wait_for(lock, limits_.keepalive,
                                      [&] { return next < p->first_seq + p->events.size(); });
    ProcessEvent event = ProcessEvent::Of(ProcessEvent::Kind::kKeepalive, pid);
    if (ready) {
      next = std::max(next, p->first_seq);  // What the replay dropped is gone.
      event = p->events[next - p->first_seq];
      ++next;
    }
    lock.unlock();
    const bool more = listener(event);
    if (!more || event.kind == ProcessEvent::Kind::kEnd) return OkStatus();
    lock.lock();
  }
}

Status SandboxProcesses::SendInput(const std::string& sandbox_id, int64_t pid,
                                   std::string_view data) {
  std::shared_ptr<Process> p = Find(sandbox_id, pid);
  if (p == nullptr) {
    return NotFoundError("no process " + std::to_string(pid), kReasonProcessNotFound);
  }
  std::lock_guard<std::mutex> lock(p->mu);
  const auto until = Clock::now() + limits_.stdin_wait;
  while (!data.empty()) {
    if (p->stdin_fd < 0) {
      return FailedPreconditionError("process " + std::to_string(pid) + " has no open stdin",
                                     kReasonProcessStdinClosed);
    }
    ssize_t n = write(p->stdin_fd, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return InternalError("write stdin: " + std::string(strerror(errno)));
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) {
      return ResourceExhaustedError(
          "process " + std::to_string(pid) + " does not read its stdin (the pipe is full)",
          kReasonProcessStdinFull);
    }
    pollfd pfd{p->stdin_fd, POLLOUT, 0};
    poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
  }
  return OkStatus();
}

Status SandboxProcesses::CloseInput(const std::string& sandbox_id, int64_t pid) {
  std::shared_ptr<Process> p = Find(sandbox_id, pid);
  if (p == nullptr) {
    return NotFoundError("no process " + std::to_string(pid), kReasonProcessNotFound);
  }
  std::lock_guard<std::mutex> lock(p->mu);
  p->CloseStdin();
  return OkStatus();
}

Status SandboxProcesses::Signal(const std::string& sandbox_id, const ExecTarget& target,
                                int64_t pid, const std::string& name) {
  if (kSignals.count(name) == 0) return InvalidArgumentError("unknown signal " + name);
  std::shared_ptr<Process> p = Find(sandbox_id, pid);
  if (p == nullptr) {
    return NotFoundError("no process " + std::to_string(pid), kReasonProcessNotFound);
  }
  {
    std::lock_guard<std::mutex> lock(p->mu);
    if (p->ended) return OkStatus();
  }
  return SendFromInside(target, pid, name);
}

Status SandboxProcesses::SendFromInside(const ExecTarget& target, int64_t pid,
                                        const std::string& name) {
  CR_ASSIGN_OR_RETURN(ExecOutput out, RunInSandbox(execs_, target,
                                                   {"/bin/sh", "-c", R"(kill -s "$1" "$2")", "sh",
                                                    name, std::to_string(pid)},
                                                   "/", kExecStderrBytes, kSignalTimeout));
  if (out.exit_code != 0) {
    return NotFoundError("no process " + std::to_string(pid) + ": " + out.stderr_data,
                         kReasonProcessNotFound);
  }
  return OkStatus();
}

std::vector<ProcessInfo> SandboxProcesses::List(const std::string& sandbox_id) {
  std::vector<ProcessInfo> out;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = processes_.find(sandbox_id);
  if (it == processes_.end()) return out;
  for (const auto& [pid, p] : it->second) {
    std::lock_guard<std::mutex> plock(p->mu);
    if (!p->ended) out.push_back(p->info);
  }
  return out;
}

StatusOr<int64_t> SandboxProcesses::PidOfTag(const std::string& sandbox_id,
                                             const std::string& tag) {
  for (const ProcessInfo& info : List(sandbox_id)) {
    if (info.config.tag == tag) return info.pid;
  }
  return NotFoundError("no process tagged " + tag, kReasonProcessNotFound);
}

void SandboxProcesses::Forget(const std::string& sandbox_id) {
  std::vector<std::shared_ptr<Process>> gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = processes_.find(sandbox_id);
    if (it == processes_.end()) return;
    for (auto& [pid, p] : it->second) gone.push_back(p);
    processes_.erase(it);
  }
  for (auto& p : gone) p->abort.Abort();
  for (auto& p : gone) {
    if (p->thread.joinable()) p->thread.join();
  }
}

}  // namespace coderunner::sandboxes
