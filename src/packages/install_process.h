// InstallProcess: runs an installer (pip) on the host as a uid of its own,
// bounded in time and in the bytes it writes. Private to src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_INSTALL_PROCESS_H_
#define CODERUNNER_SRC_PACKAGES_INSTALL_PROCESS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::packages {

struct InstallCommand {
  std::vector<std::string> argv;  // argv[0] is an absolute path.
  std::vector<std::string> env;   // The whole environment.
  std::string cwd;
  int64_t uid = -1;  // And gid; no supplementary groups.
  // Every byte the process writes lands under this directory, which the
  // watch measures (allocated blocks) while it runs.
  std::string watched_dir;
  int64_t max_bytes = 0;
  std::chrono::milliseconds timeout{0};
};

struct InstallRun {
  int exit_code = -1;  // -1 when it did not exit on its own.
  bool timed_out = false;
  bool too_large = false;  // watched_dir passed max_bytes: killed.
  std::string output;      // Its stdout and stderr together, the last 16 KiB.
};

// Starts the command in a process group of its own (stdin /dev/null, umask
// 022, RLIMIT_FSIZE max_bytes, no core), and kills the whole group at the
// timeout or once watched_dir holds more than max_bytes. Blocks until the
// process is reaped. Internal "install_spawn_failed" when it could not be
// started. Thread-safe (fork and exec only; the child calls only
// async-signal-safe functions).
StatusOr<InstallRun> RunInstall(const InstallCommand& command);

// Bytes the tree at `dir` takes on disk (allocated blocks, a file at least
// its size), never following a symlink; 0 if it is missing.
int64_t TreeBytes(const std::string& dir);

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_INSTALL_PROCESS_H_
