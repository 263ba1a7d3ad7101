// OutputUsage: what a job's writable /output holds, measured by the service
// on the host as root, where no process of the job can reach the walk.
//
// coderunner-init also walks /output from inside the container, but it runs
// as the job's uid: a job can hide a directory from it (chmod), slow it down
// or end it. This walk cannot be steered that way: root lists and searches
// every directory whatever its mode, nothing is ever followed (openat with
// O_NOFOLLOW from a directory fd, fstatat with AT_SYMLINK_NOFOLLOW), and
// every error but ENOENT (an entry removed since it was listed) marks the
// tree unreadable, which is a broken bound: nothing is ever taken for absent
// because it could not be looked at. Files a job still holds open after
// unlinking them use the disk without being in any tree: OpenOrphans
// (container_processes.h) finds them through the job's processes.
#ifndef CODERUNNER_ISOLATION_OUTPUT_USAGE_H_
#define CODERUNNER_ISOLATION_OUTPUT_USAGE_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace coderunner::isolation {

// The bound an /output broke: the words coderunner-init's trailer uses too
// (src/init/output_guard.h), so both guards report alike.
inline constexpr char kBoundFileTooLarge[] = "file_too_large";
inline constexpr char kBoundTooLarge[] = "too_large";
inline constexpr char kBoundTooManyFiles[] = "too_many_files";
inline constexpr char kBoundTooDeep[] = "too_deep";
inline constexpr char kBoundUnreadable[] = "unreadable";

// Directory levels a walk goes down before it reports kBoundTooDeep: the
// depth coderunner-init walks to (deeper entries are what the collection's
// tighter depth bound removes, not a breach).
inline constexpr int kOutputMaxDepth = 64;

// Bounds on one /output; 0 means unbounded.
struct OutputLimits {
  int64_t max_bytes = 0;       // Every entry's charge together (DiskCharge), bytes.
  int64_t max_file_bytes = 0;  // The charge of one regular file, bytes.
  int64_t max_entries = 0;     // Entries of every kind below the root.
};

struct OutputUsage {
  int64_t used_bytes = 0;   // Sum of DiskCharge over every entry (directories too).
  int64_t file_bytes = 0;   // Sum of the regular files' sizes.
  int64_t entries = 0;      // Every entry below the root (stops past max_entries).
  int64_t largest = 0;      // Largest charge of one regular file.
  int64_t block_bytes = 0;  // The file system's block size (f_frsize); 512 if unknown.
  dev_t device = 0;         // The root's st_dev.
  bool truncated = false;   // More entries than max_entries: the walk stopped.
  bool too_deep = false;    // Directories nested kOutputMaxDepth levels or more.
  bool unreadable = false;  // The root or some entry could not be looked at.
};

// Walks the tree below host directory `dir` (see the file comment) and
// returns what it holds. `on_directory`, when set, is called with each
// directory opened during the walk (the root included), as an fd valid for
// the call only. Stops past limits.max_entries. Thread-safe.
OutputUsage MeasureOutput(const std::string& dir, const OutputLimits& limits,
                          const std::function<void(int dir_fd)>& on_directory = nullptr);

// Regular files that processes hold open after every name of theirs was
// removed (st_nlink 0): disk a job uses without any entry in /output.
struct OrphanUsage {
  int64_t used_bytes = 0;  // Sum of their charges (DiskCharge), each file once.
  int64_t files = 0;
  int64_t largest = 0;
};

// Adds `orphans` to `usage`: their bytes and count, and the largest.
void AddOrphans(const OrphanUsage& orphans, OutputUsage& usage);

// The bound `usage` breaks under `limits`, one of the kBound* words, or ""
// when it keeps every bound. Checked in this order: file_too_large,
// too_large, too_many_files, too_deep, unreadable. Pure.
std::string_view BrokenBound(const OutputLimits& limits, const OutputUsage& usage);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_OUTPUT_USAGE_H_
