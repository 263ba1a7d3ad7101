// Workspace: the per-job host directory bind-mounted read-only at /workspace.
#ifndef CODERUNNER_ISOLATION_WORKSPACE_H_
#define CODERUNNER_ISOLATION_WORKSPACE_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

// Owns <root>/<name> and removes it (recursively, without following
// symlinks) on destruction. All writes go through openat() on a directory fd
// with O_NOFOLLOW|O_EXCL, so nothing planted in the tree, including a
// symlink, is ever followed and no existing file is overwritten.
// Not thread-safe.
class Workspace {
 public:
  // Creates the directory: owned by root with group `gid` (the container's
  // uid, see uid_pool.h), mode 0750, so the job reads it through its group
  // and no other host user can. `root` is created if missing, and made
  // 0700. `name` must be a single safe path component.
  static StatusOr<std::unique_ptr<Workspace>> Create(const std::string& root,
                                                     const std::string& name, int64_t gid);
  // Takes over the existing directory <root>/<name> (a sandbox's, after a
  // restart of the service). NotFound if it is missing or not a directory
  // (a symlink is never followed).
  static StatusOr<std::unique_ptr<Workspace>> Open(const std::string& root, const std::string& name,
                                                   int64_t gid);
  // Removes the tree unless Keep() was called.
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Writes `content` to `relative_path` (validated by SplitSafeRelativePath
  // with `max_depth`), creating parent directories. An existing entry is
  // AlreadyExists. Files are 0640, directories 0750, owned by their creator
  // (root, when the service runs as root) with the workspace's group.
  Status WriteFile(std::string_view relative_path, std::string_view content, int max_depth = 16);

  // WriteFile for a program the job runs: 0750, so the workspace's group
  // (the job) may execute it.
  Status WriteProgram(std::string_view relative_path, std::string_view content);

  // WriteFile, replacing an existing entry at `relative_path` (removed
  // first, never following a symlink).
  Status ReplaceFile(std::string_view relative_path, std::string_view content, int max_depth = 16);

  // Creates a symlink `name` (a single component) to `target`, owned by
  // root: the job follows it in its container, the service never does.
  // An existing entry is AlreadyExists.
  Status CreateSymlink(std::string_view name, const std::string& target);
  // Makes `name` (a single component) in the directory `dir` a symlink to
  // `target`, replacing what was there in one step (a new link renamed over
  // it): a reader in the container sees the old link or the new one.
  // Never follows a link on the host. Thread-safe (no Workspace needed).
  static Status ReplaceSymlinkIn(const std::string& dir, std::string_view name,
                                 const std::string& target);
  // The destructor leaves the directory in place (it outlives this process,
  // e.g. a stateful sandbox's). Remove() still removes it.
  void Keep() { keep_ = true; }

  // Creates a FIFO `name` (a single component) readable by the job's uid
  // and returns a descriptor open on it for reading and writing (so opening
  // it in the container never blocks, and what is written stays buffered
  // while this descriptor is open), non-blocking, close-on-exec. The
  // caller owns the descriptor.
  StatusOr<int> CreateFifo(std::string_view name);

  // Host path of the directory.
  const std::string& path() const { return path_; }

  // Removes the tree now. Idempotent.
  Status Remove();
  // Removes every entry of the directory but `keep` (a single component),
  // never following a link: the workspace of a container that serves
  // another job next (container reuse).
  Status RemoveAllBut(std::string_view keep);

 private:
  Status WriteWithMode(std::string_view relative_path, std::string_view content, int max_depth,
                       mode_t mode);

  Workspace(std::string path, int dir_fd, int64_t gid)
      : path_(std::move(path)), dir_fd_(dir_fd), gid_(gid) {}

  std::string path_;
  int dir_fd_ = -1;
  int64_t gid_;
  bool keep_ = false;
};

// Removes `path` recursively without following symlinks. A missing path is OK.
Status RemoveTree(const std::string& path);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_WORKSPACE_H_
