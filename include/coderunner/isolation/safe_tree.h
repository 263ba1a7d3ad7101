// SafeTree: reading a directory tree that untrusted code wrote (a job's
// /output, a persistent volume) from the host, as the service, without ever
// being steered by it.
//
// Judge0's CVE-2024-28185/28189 came from a privileged worker following a
// symlink a job had planted. Every function here walks component by
// component with openat(O_NOFOLLOW) from a directory fd, checks types with
// fstatat(AT_SYMLINK_NOFOLLOW), opens files O_NONBLOCK (a FIFO can never
// block us) and re-checks the opened fd with fstat. Symlinks, FIFOs,
// sockets, devices and hard-linked files are never read: they are reported
// and, where asked, removed. Nothing here changes ownership of anything.
// All functions are thread-safe (no shared state).
#ifndef CODERUNNER_ISOLATION_SAFE_TREE_H_
#define CODERUNNER_ISOLATION_SAFE_TREE_H_

#include <fcntl.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

// How a directory of a tree a job wrote is opened: never through a link.
inline constexpr int kTreeDirOpenFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// TreeProblem::reason of an entry deeper than TreeOptions::max_depth.
inline constexpr char kProblemTooDeep[] = "too_deep";
// TreeProblem::reason of a directory that could not be opened.
inline constexpr char kProblemUnreadable[] = "unreadable";

// An owned file descriptor, closed on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Gives up ownership.
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// What an entry costs on disk against a cap, bytes: its allocated bytes
// (st_blocks * 512), and for a regular file at least its size rounded up to
// `block_bytes` (the file system's block size; ignored if <= 0). So neither
// a file preallocated past its end (size 0, gigabytes allocated) nor a
// sparse one (a huge size, nothing allocated) can hide behind the other
// figure, and a one-byte file costs a block. The same rule as
// coderunner-init's OutputCharge. Pure.
int64_t DiskCharge(int64_t size, int64_t allocated_bytes, bool regular_file, int64_t block_bytes);

// A regular file found in a tree.
struct TreeFile {
  std::string path;  // Relative, '/'-separated, valid per SplitSafeRelativePath.
  int64_t size = 0;
  int64_t modified_ms = 0;      // mtime, Unix epoch ms (job-controlled: informational).
  int64_t allocated_bytes = 0;  // st_blocks * 512: what it holds on disk, as du counts.
};

// An entry that is not listed, and why: "symlink", "special_file",
// "hardlink", "bad_name", "too_deep", "unreadable".
struct TreeProblem {
  std::string path;  // As found, control bytes escaped; may be partial.
  std::string reason;
};

struct TreeListing {
  std::vector<TreeFile> files;           // Sorted by path.
  std::vector<std::string> directories;  // Walked directories' paths, in walk order.
  std::vector<TreeProblem> problems;     // In walk order.
  int64_t total_bytes = 0;               // Sum of files[].size.
  // Sum of DiskCharge over everything seen (files, directories, problems).
  int64_t used_bytes = 0;
  int64_t directory_bytes = 0;  // Allocated bytes of the directories seen.
  int64_t block_bytes = 512;    // The root's file system block size (statvfs f_frsize).
  int64_t entries = 0;          // Everything seen, directories included.
  bool truncated = false;       // Stopped at max_entries.
};

struct TreeWalkOptions {
  int max_depth = 16;           // Directory levels below the root.
  int64_t max_entries = 10000;  // Stop (truncated) after this many entries.
  // Remove what is not listed (symlinks, special files, hard links, bad
  // names, too-deep subtrees). Only for trees nobody writes any more.
  bool remove_problems = false;
};

// Lists the regular files below `root` (a host directory). NotFound if
// `root` does not exist; Internal for other I/O errors on the root itself.
// Problems below the root are reported in the listing, never as errors.
StatusOr<TreeListing> ListTree(const std::string& root, const TreeWalkOptions& options);

// Opens the regular file at `relative` (validated with SplitSafeRelativePath
// and `max_depth`) below `root` for reading. A missing file, a symlink in
// any component, anything but a single-link regular file: NotFound (reason
// "file_not_found"), so nothing about the tree leaks. Bad paths:
// InvalidArgument "invalid_path". The caller owns the returned fd.
StatusOr<UniqueFd> OpenTreeFile(const std::string& root, std::string_view relative,
                                int max_depth = 16);

// Removes the entry at `relative` below `root` (a directory recursively),
// never following a symlink. A missing entry is OK.
Status RemoveTreeEntry(const std::string& root, std::string_view relative, int max_depth = 16);

// Removes entry `name` of the open directory `dir_fd` (a directory with
// everything below it), never following a symlink. A missing entry is
// success. Returns false if something could not be removed.
bool RemoveEntryAt(int dir_fd, const std::string& name);

// Reads all of `fd` from its current offset, at most `max_bytes` (more is
// ResourceExhausted "file_too_large").
StatusOr<std::string> ReadAllFd(int fd, int64_t max_bytes);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_SAFE_TREE_H_
