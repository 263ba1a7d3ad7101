// What an install is asked to run and what came of it (PipZygote::Run), and
// the measures the service takes of it from outside. Private to
// src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_INSTALL_PROCESS_H_
#define CODERUNNER_SRC_PACKAGES_INSTALL_PROCESS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::packages {

struct InstallCommand {
  // kZygotePip and pip's arguments, or an absolute path and its arguments.
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // The whole environment.
  std::string cwd;
  int64_t uid = -1;  // And gid; no supplementary groups.
  // Its stdout and stderr, a file it creates (as `uid`, never following a
  // link) in a directory of its own.
  std::string output_path;
  // Every byte the process writes lands under this directory, which the
  // service measures (allocated blocks) while it runs.
  std::string watched_dir;
  int64_t max_bytes = 0;  // Also its RLIMIT_FSIZE.
  std::chrono::milliseconds timeout{0};
};

struct InstallRun {
  int exit_code = -1;  // -1 when it did not exit on its own.
  bool timed_out = false;
  bool too_large = false;  // watched_dir passed max_bytes, or a write RLIMIT_FSIZE.
  std::string output;      // The last 16 KiB of its stdout and stderr.
};

// Bytes the tree below `dir` takes on disk (isolation::MeasureOutput's
// charge: allocated blocks, a file at least its size), never following a
// symlink; 0 if it is missing.
int64_t TreeBytes(const std::string& dir);

// An installer's own words as an error message quotes them: at most 600
// bytes, "..." after a cut.
std::string QuoteInstallerWords(std::string text);

// The last `max_bytes` of the regular file at `path`, opened without
// following a link (what the install's uid left there is not trusted); ""
// if it is missing or not a regular file.
std::string ReadTail(const std::string& path, int64_t max_bytes);

// Writes `text` to a file at `path` that must not exist yet (a link there is
// not followed), mode 0644, owned by `uid` and its group, or left the
// service's when `uid` is negative (what the install only reads). Internal
// kReasonInstallFailed if it cannot.
Status WriteNewFile(const std::string& path, std::string_view text, int64_t uid);

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_INSTALL_PROCESS_H_
