#include "pip_zygote.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace coderunner::packages {
namespace {

using Clock = std::chrono::steady_clock;

// How long the zygote may take to import pip, and a child to be forked.
constexpr auto kStartBound = std::chrono::seconds(20);
// How often the written bytes are measured while an install runs.
constexpr auto kWatchEvery = std::chrono::milliseconds(100);
// What of an install's output is kept: its last lines name the failure.
constexpr int64_t kKeptOutputBytes = 16 << 10;
// A killed group is reaped by the zygote within this, or taken as lost.
constexpr auto kReapBound = std::chrono::seconds(10);
// The zygote's answers are short; a longer line is not one.
constexpr size_t kMaxAnswerBytes = 4096;
// The child's exit code when it could not become the install's process.
constexpr int kSetupFailed = 126;

Status SpawnFailed(const std::string& why) {
  return InternalError("pip zygote: " + why, "install_spawn_failed");
}

void KillGroup(pid_t pid) {
  if (pid <= 0) return;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);  // Before the child's own setpgid, the group is not there yet.
}

}  // namespace

StatusOr<std::unique_ptr<PipZygote>> PipZygote::Start(const std::string& python) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return SpawnFailed(std::string("pipe: ") + strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return SpawnFailed(std::string("pipe: ") + strerror(errno));
  }
  const std::string script(PipZygoteScript());
  const char* argv[] = {python.c_str(), "-I", "-c", script.c_str(), nullptr};
  const char* envp[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", nullptr};
  pid_t pid = fork();
  if (pid == 0) {
    // Async-signal-safe calls only: the service has threads.
    setpgid(0, 0);
    if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0) _exit(kSetupFailed);
    syscall(SYS_close_range, 3, ~0U, 0);
    execve(argv[0], const_cast<char**>(argv), const_cast<char**>(envp));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (pid < 0) {
    close(in[1]);
    close(out[0]);
    return SpawnFailed(std::string("fork: ") + strerror(errno));
  }
  std::unique_ptr<PipZygote> z(new PipZygote(pid, in[1], out[0]));
  std::unique_lock lock(z->mu_);
  if (!z->cv_.wait_for(lock, kStartBound, [&] { return z->ready_ || z->gone_; }) || !z->ready_) {
    return SpawnFailed(python + " -I could not import pip (is python3-pip installed?)");
  }
  return z;
}

PipZygote::PipZygote(pid_t pid, int to_zygote, int from_zygote)
    : pid_(pid), to_zygote_(to_zygote), from_zygote_(from_zygote) {
  reader_ = std::thread([this] { ReadLoop(); });
}

PipZygote::~PipZygote() {
  close(to_zygote_);  // It kills its children and exits...
  {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, kReapBound, [&] { return gone_; });
  }
  KillGroup(pid_);  // ...or is made to.
  if (reader_.joinable()) reader_.join();
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  close(from_zygote_);
}

bool PipZygote::gone() {
  {
    std::lock_guard lock(mu_);
    if (gone_) return true;
  }
  // Dead but its stdout's end not read yet: a zombie (reaped only here, in
  // the destructor).
  std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t close_paren = line.rfind(')');
  return close_paren == std::string::npos || close_paren + 2 >= line.size() ||
         line[close_paren + 2] == 'Z' || line[close_paren + 2] == 'X';
}

void PipZygote::ReadLoop() {
  std::string buffer;
  char chunk[4096];
  while (true) {
    ssize_t n = read(from_zygote_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
    for (size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
      Answer(std::string_view(buffer).substr(0, nl));
      buffer.erase(0, nl + 1);
    }
    if (buffer.size() > kMaxAnswerBytes) break;  // Not the zygote speaking.
  }
  std::lock_guard lock(mu_);
  gone_ = true;
  cv_.notify_all();
}

void PipZygote::Answer(std::string_view line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  std::lock_guard lock(mu_);
  if (j.value("ready", false)) ready_ = true;
  auto id = j.find("id");
  if (id != j.end() && id->is_number_integer()) {
    auto it = pending_.find(id->get<int64_t>());
    if (it != pending_.end()) {
      Pending& p = it->second;
      if (j.contains("pid")) p.pid = j.value("pid", -1);
      if (j.contains("exit")) {
        p.exit_code = j.value("exit", -1);
        p.done = true;
      }
      if (j.contains("signal")) {
        p.signal = j.value("signal", 0);
        p.done = true;
      }
    }
  }
  cv_.notify_all();
}

StatusOr<InstallRun> PipZygote::Run(const InstallCommand& command) {
  nlohmann::json request = {{"argv", command.argv},
                            {"env", command.env},
                            {"cwd", command.cwd},
                            {"uid", command.uid},
                            {"max_bytes", command.max_bytes},
                            {"output", command.output_path}};
  std::unique_lock lock(mu_);
  if (gone_) return SpawnFailed("it is no longer running");
  const int64_t id = next_id_++;
  pending_[id] = Pending{};
  request["id"] = id;
  const std::string line = request.dump() + "\n";
  lock.unlock();
  bool written;
  {
    std::lock_guard write_lock(write_mu_);
    written = write(to_zygote_, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  }
  lock.lock();
  InstallRun run;
  if (written) Supervise(lock, id, command, run);
  const Pending p = pending_[id];
  pending_.erase(id);
  lock.unlock();
  if (!written || !p.done) {
    KillGroup(p.pid);
    return SpawnFailed(written ? "it went away during an install" : "it does not take requests");
  }
  if (p.exit_code == kSetupFailed) {
    return SpawnFailed("the install could not start as uid " + std::to_string(command.uid));
  }
  // An install that ended between two looks is measured once more: what
  // it left is what would become the layer.
  if (!run.timed_out && TreeBytes(command.watched_dir) > command.max_bytes) run.too_large = true;
  if (!run.timed_out && !run.too_large && p.signal == 0) run.exit_code = p.exit_code;
  if (p.signal == SIGXFSZ) run.too_large = true;
  run.output = ReadTail(command.output_path, kKeptOutputBytes);
  return run;
}

void PipZygote::Supervise(std::unique_lock<std::mutex>& lock, int64_t id,
                          const InstallCommand& command, InstallRun& run) {
  const auto deadline = Clock::now() + command.timeout;
  Clock::time_point killed_at{};
  while (true) {
    cv_.wait_for(lock, kWatchEvery, [&] { return pending_[id].done || gone_; });
    const Pending& p = pending_[id];
    if (p.done || gone_) return;
    const auto now = Clock::now();
    if (killed_at != Clock::time_point{}) {
      if (now - killed_at > kReapBound) return;
      continue;
    }
    if (p.pid < 0) {
      if (now > deadline + kStartBound) return;  // Never forked: the zygote is stuck.
      continue;
    }
    if (now >= deadline) run.timed_out = true;
    if (!run.timed_out) {
      lock.unlock();
      const bool over = TreeBytes(command.watched_dir) > command.max_bytes;
      lock.lock();
      run.too_large = over;
      if (!over) continue;
    }
    // The whole group goes: nothing it started outlives the install.
    KillGroup(pending_[id].pid);
    killed_at = now;
  }
}

}  // namespace coderunner::packages
