// PipZygote: the host's pip, imported once in a process of its own (the
// zygote, src/packages/pip_zygote.py, compiled in), which forks one child
// per install. The child drops to the install's uid before it touches
// anything an index sent; the service bounds it from outside as before:
// its time, the bytes under its staging directory, its whole process
// group. An install then costs pip's work, not pip's 0.2 s of imports.
// Private to src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_PIP_ZYGOTE_H_
#define CODERUNNER_SRC_PACKAGES_PIP_ZYGOTE_H_

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "coderunner/common/status.h"
#include "install_process.h"

namespace coderunner::packages {

// The zygote's source (src/packages/pip_zygote.py), compiled in.
std::string_view PipZygoteScript();

// argv[0] of an InstallCommand that runs pip's main in the zygote's child
// (with argv[1:]); any other argv[0] is an absolute path the child execs.
inline constexpr char kZygotePip[] = "pip";

class PipZygote {
 public:
  // Starts `python` (absolute) -I on the zygote's source, as this process's
  // user, in a process group of its own, and waits for it to have pip
  // imported. Internal "install_spawn_failed" if it does not say so within
  // a few seconds (no pip for that Python, say).
  static StatusOr<std::unique_ptr<PipZygote>> Start(const std::string& python);
  // Closes its stdin: it kills what it started and exits; reaped here.
  ~PipZygote();
  PipZygote(const PipZygote&) = delete;
  PipZygote& operator=(const PipZygote&) = delete;

  // Runs `command` as command.uid in a child of the zygote, its stdout and
  // stderr into command.output_path (which must not exist), killing its
  // group at command.timeout or once command.watched_dir passes
  // command.max_bytes. Blocks until the child is reaped. Internal
  // "install_spawn_failed" if the zygote is gone. Thread-safe: installs
  // run side by side.
  StatusOr<InstallRun> Run(const InstallCommand& command);
  // True once the zygote exited or was killed: start another.
  bool gone();

 private:
  struct Pending {
    pid_t pid = -1;
    bool done = false;
    int exit_code = -1;
    int signal = 0;
  };

  PipZygote(pid_t pid, int to_zygote, int from_zygote);
  void ReadLoop();  // The reader thread: the zygote's answers.
  void Answer(std::string_view line);
  // Waits (requires lock on mu_) for `id`'s child to end, killing its group
  // once a bound is broken; fills `run`.
  void Supervise(std::unique_lock<std::mutex>& lock, int64_t id, const InstallCommand& command,
                 InstallRun& run);

  const pid_t pid_;
  const int to_zygote_;    // Its stdin.
  const int from_zygote_;  // Its stdout.
  std::mutex write_mu_;    // One request line at a time.
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, Pending> pending_;  // Guarded by mu_.
  int64_t next_id_ = 1;                 // Guarded by mu_.
  bool gone_ = false;                   // Guarded by mu_: the zygote's stdout ended.
  bool ready_ = false;                  // Guarded by mu_.
  std::thread reader_;
};

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_PIP_ZYGOTE_H_
