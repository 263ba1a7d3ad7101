// SandboxProcesses: processes started in sandboxes besides their
// interpreter, as E2B's process API drives them: started, followed while
// they print, fed stdin, signalled, listed.
#ifndef CODERUNNER_SANDBOXES_SANDBOX_PROCESSES_H_
#define CODERUNNER_SANDBOXES_SANDBOX_PROCESSES_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/execs.h"
#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::sandboxes {

// The reasons SandboxProcesses' errors carry.
inline constexpr char kReasonProcessNotFound[] = "process_not_found";        // 404.
inline constexpr char kReasonProcessLimit[] = "sandbox_process_limit";       // 429.
inline constexpr char kReasonProcessStdinClosed[] = "process_stdin_closed";  // 400.
inline constexpr char kReasonProcessStdinFull[] = "process_stdin_full";      // 429.

struct ProcessConfig {
  std::string cmd;
  std::vector<std::string> args;
  std::map<std::string, std::string> envs;  // Over the sandbox's own.
  std::string cwd;                          // "" = /home/user.
  std::optional<std::string> tag;
  bool stdin = false;  // Open for SendInput; otherwise /dev/null.
  // Past this the process is killed (SIGKILL), as E2B's envd kills a
  // command past its request's Connect-Timeout-Ms; 0: never.
  std::chrono::milliseconds timeout{0};
};

struct ProcessInfo {
  int64_t pid = 0;  // In the sandbox's pid namespace.
  ProcessConfig config;
};

// What a follower of a process sees, in order: kStart once, output as it
// comes, kEnd once.
struct ProcessEvent {
  // kKeepalive: nothing happened for a while (a follower may check that
  // its own client is still there).
  enum class Kind { kStart, kStdout, kStderr, kEnd, kKeepalive };
  Kind kind = Kind::kStart;
  int64_t pid = 0;
  std::string data;   // kStdout, kStderr.
  int exit_code = 0;  // kEnd.
  std::string error;  // kEnd: why the process's stream broke ("" if it exited).

  static ProcessEvent Of(Kind kind, int64_t pid, std::string data = "") {
    ProcessEvent e;
    e.kind = kind;
    e.pid = pid;
    e.data = std::move(data);
    return e;
  }
  static ProcessEvent End(int64_t pid, int exit_code, std::string error = "") {
    ProcessEvent e = Of(Kind::kEnd, pid);
    e.exit_code = exit_code;
    e.error = std::move(error);
    return e;
  }
};

// Receives events; returns false to stop following (the process goes on).
using ProcessListener = std::function<bool(const ProcessEvent&)>;

struct ProcessLimits {
  size_t max_per_sandbox = 32;  // Running at once.
  // Output kept per process for a follower that is late or slow (what a
  // slower one misses is skipped): bounds the memory a flood costs.
  size_t replay_bytes = 256 * 1024;
  std::chrono::milliseconds stdin_wait{5000};  // A full stdin pipe's grace.
  std::chrono::milliseconds keepalive{15000};  // A silent process's follower hears this often.
};

// Thread-safe. Each process holds one thread and one engine stream while it
// runs. `execs` must outlive it.
class SandboxProcesses {
 public:
  SandboxProcesses(engine::ExecClient& execs, ProcessLimits limits);
  // Ends every stream (the processes stay in their containers) and joins.
  ~SandboxProcesses();
  SandboxProcesses(const SandboxProcesses&) = delete;
  SandboxProcesses& operator=(const SandboxProcesses&) = delete;

  // Starts `config` in `sandbox_id`'s container and returns its pid once
  // the process runs. ResourceExhausted "sandbox_process_limit" at the cap.
  StatusOr<int64_t> Start(const std::string& sandbox_id, const ExecTarget& target,
                          const ProcessConfig& config);
  // Calls `listener` with the process's events until it ends or the
  // listener declines; `from_start` replays what it printed so far (what
  // replay_bytes kept). NotFound "process_not_found" for an unknown pid.
  Status Follow(const std::string& sandbox_id, int64_t pid, bool from_start,
                const ProcessListener& listener);
  // Writes `data` to the process's stdin (FailedPrecondition
  // "process_stdin_closed" when it has none, or it was closed).
  Status SendInput(const std::string& sandbox_id, int64_t pid, std::string_view data);
  Status CloseInput(const std::string& sandbox_id, int64_t pid);
  // Sends signal `name` ("TERM", "KILL", ...) to the process, from inside
  // its sandbox.
  Status Signal(const std::string& sandbox_id, const ExecTarget& target, int64_t pid,
                const std::string& name);
  // The processes of `sandbox_id` still running.
  std::vector<ProcessInfo> List(const std::string& sandbox_id);
  // A process selected by its tag (NotFound "process_not_found" if none).
  StatusOr<int64_t> PidOfTag(const std::string& sandbox_id, const std::string& tag);
  // The sandbox is gone: drops what is known of its processes.
  void Forget(const std::string& sandbox_id);

 private:
  struct Process;
  std::shared_ptr<Process> Find(const std::string& sandbox_id, int64_t pid);
  void Run(std::shared_ptr<Process> p, std::string exec_id);
  // The process's timeout passed while it ran: kill it from inside its
  // sandbox. Returns what kept it from being killed.
  Status KillPastTimeout(Process& p);
  // `kill -s name pid` run in the target's sandbox; NotFound
  // "process_not_found" when kill finds no such process.
  Status SendFromInside(const ExecTarget& target, int64_t pid, const std::string& name);
  // Takes the ended processes out of processes_ once past their grace, and
  // those of a forgotten sandbox; returns them, to be joined without mu_.
  std::vector<std::shared_ptr<Process>> Reap();     // Requires mu_.
  size_t RunningIn(const std::string& sandbox_id);  // Requires mu_.

  engine::ExecClient& execs_;
  const ProcessLimits limits_;
  std::mutex mu_;
  // sandbox id -> pid -> process.
  std::map<std::string, std::map<int64_t, std::shared_ptr<Process>>> processes_;
  std::map<std::string, size_t> starting_;       // Per sandbox: Start calls not done.
  std::vector<std::shared_ptr<Process>> ended_;  // Threads to join.
  uint64_t next_fifo_ = 0;
  bool stopping_ = false;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_PROCESSES_H_
