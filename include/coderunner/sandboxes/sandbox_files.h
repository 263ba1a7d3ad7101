// SandboxFiles: a sandbox's filesystem as E2B's filesystem API sees it,
// read and changed by short processes in its container, as its uid: every
// path resolves inside the container, never on the host.
#ifndef CODERUNNER_SANDBOXES_SANDBOX_FILES_H_
#define CODERUNNER_SANDBOXES_SANDBOX_FILES_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/execs.h"
#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::sandboxes {

// The reasons SandboxFiles' errors carry.
inline constexpr char kReasonSandboxPathNotFound[] = "sandbox_path_not_found";  // 404.
inline constexpr char kReasonSandboxPathExists[] = "sandbox_path_exists";       // 409.
inline constexpr char kReasonSandboxPathInvalid[] = "sandbox_path_invalid";     // 400.
inline constexpr char kReasonSandboxNoSpace[] = "sandbox_no_space";             // 507.

enum class EntryType { kFile, kDirectory, kSymlink, kOther };

struct EntryInfo {
  std::string name;
  EntryType type = EntryType::kOther;
  std::string path;  // Absolute.
  int64_t size = 0;
  uint32_t mode = 0;        // Permission bits (07777).
  std::string permissions;  // "-rw-r--r--".
  std::string owner;
  std::string group;
  int64_t modified_ms = 0;  // Unix ms.
  std::string symlink_target;
};

// The absolute form of a client's `path`: relative to /home/user, "."
// and ".." resolved lexically, no NUL. InvalidArgument
// "sandbox_path_invalid" for an empty path or one with NUL. Pure.
StatusOr<std::string> SandboxPath(std::string_view path);

// Parses what kEntryFormat printed (fields and entries NUL-terminated).
// Pure.
StatusOr<std::vector<EntryInfo>> ParseEntries(std::string_view printed);

class SandboxFiles {
 public:
  // `execs` must outlive it. `max_read_bytes` bounds a read.
  SandboxFiles(engine::ExecClient& execs, size_t max_read_bytes);

  StatusOr<std::string> Read(const ExecTarget& target, const std::string& path);
  // Writes `data` to `path`, making its parent directories; returns the
  // written file's entry.
  StatusOr<EntryInfo> Write(const ExecTarget& target, const std::string& path,
                            std::string_view data);
  StatusOr<EntryInfo> Stat(const ExecTarget& target, const std::string& path);
  // The entries below directory `path`, `depth` levels deep (>= 1).
  StatusOr<std::vector<EntryInfo>> List(const ExecTarget& target, const std::string& path,
                                        int depth);
  // AlreadyExists "sandbox_path_exists" if something is there.
  StatusOr<EntryInfo> MakeDir(const ExecTarget& target, const std::string& path);
  Status Remove(const ExecTarget& target, const std::string& path);
  StatusOr<EntryInfo> Move(const ExecTarget& target, const std::string& from,
                           const std::string& to);

 private:
  // Runs the shell `script` with `args` ($1...) in the container; a
  // non-zero exit becomes the Status its exit code names.
  StatusOr<std::string> Shell(const ExecTarget& target, const std::string& script,
                              std::vector<std::string> args, size_t max_stdout);

  engine::ExecClient& execs_;
  size_t max_read_bytes_;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_FILES_H_
