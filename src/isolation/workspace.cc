#include "coderunner/isolation/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "coderunner/common/disk_room.h"
#include "coderunner/isolation/file_path.h"
#include "coderunner/isolation/safe_tree.h"

namespace coderunner::isolation {
namespace {

Status ErrnoStatus(const std::string& what, int err) {
  if (err == EEXIST) return AlreadyExistsError(what + ": " + strerror(err), "file_exists");
  if (err == ENOSPC || err == EDQUOT) {
    return ResourceExhaustedError(what + ": " + strerror(err), kReasonDiskFull);
  }
  return InternalError(what + ": " + strerror(err), "workspace_io");
}

Status WriteAll(int fd, std::string_view content, const std::string& what) {
  while (!content.empty()) {
    ssize_t n = write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(what, errno);
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

// Root's, readable by the job's group only: nothing for other host users.
constexpr mode_t kDirMode = 0750;
constexpr mode_t kFileMode = 0640;
constexpr mode_t kProgramMode = 0750;
constexpr int kMaxProgramDepth = 16;  // As WriteFile's default.
// Entries keep their creator as owner: root when the service runs as root
// (containers), the service's own uid otherwise (NativeRunner as non-root).
constexpr uid_t kKeepOwner = static_cast<uid_t>(-1);

}  // namespace

StatusOr<std::unique_ptr<Workspace>> Workspace::Create(const std::string& root,
                                                       const std::string& name, int64_t gid) {
  auto parts = SplitSafeRelativePath(name, 1);
  if (!parts.ok()) return parts.status();
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return InternalError("create workspace root " + root + ": " + ec.message());
  // Only root enters the root: a job's container gets its own workspace
  // bind-mounted, and nobody on the host may read another job's files.
  std::filesystem::permissions(root, std::filesystem::perms::owner_all, ec);
  std::string path = root + "/" + name;
  // umask would otherwise strip the bits the job's uid needs.
  if (mkdir(path.c_str(), 0700) != 0) return ErrnoStatus("create workspace " + path, errno);
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    rmdir(path.c_str());
    return ErrnoStatus("open workspace " + path, err);
  }
  if (fchown(fd, 0, static_cast<gid_t>(gid)) != 0 || fchmod(fd, kDirMode) != 0) {
    int err = errno;
    close(fd);
    rmdir(path.c_str());
    return ErrnoStatus("chown/chmod workspace " + path, err);
  }
  return std::unique_ptr<Workspace>(new Workspace(std::move(path), fd, gid));
}

StatusOr<std::unique_ptr<Workspace>> Workspace::Open(const std::string& root,
                                                     const std::string& name, int64_t gid) {
  auto parts = SplitSafeRelativePath(name, 1);
  if (!parts.ok()) return parts.status();
  std::string path = root + "/" + name;
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return NotFoundError("open workspace " + path + ": " + strerror(errno), "workspace_missing");
  }
  return std::unique_ptr<Workspace>(new Workspace(std::move(path), fd, gid));
}

Workspace::~Workspace() {
  if (keep_) {
    if (dir_fd_ >= 0) close(dir_fd_);
    return;
  }
  Remove();
}

Status Workspace::ReplaceFile(std::string_view relative_path, std::string_view content,
                              int max_depth) {
  CR_RETURN_IF_ERROR(RemoveTreeEntry(path_, relative_path, max_depth));
  return WriteFile(relative_path, content, max_depth);
}

Status Workspace::WriteFile(std::string_view relative_path, std::string_view content,
                            int max_depth) {
  return WriteWithMode(relative_path, content, max_depth, kFileMode);
}

Status Workspace::CreateSymlink(std::string_view name, const std::string& target) {
  if (dir_fd_ < 0) return FailedPreconditionError("workspace already removed");
  CR_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitSafeRelativePath(name, 1));
  if (symlinkat(target.c_str(), dir_fd_, parts[0].c_str()) != 0) {
    return ErrnoStatus("symlink " + parts[0], errno);
  }
  return OkStatus();
}

Status Workspace::ReplaceSymlinkIn(const std::string& dir, std::string_view name,
                                   const std::string& target) {
  CR_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitSafeRelativePath(name, 1));
  int dir_fd = open(dir.c_str(), O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0) return ErrnoStatus("open " + dir, errno);
  const std::string fresh = parts[0] + ".new";
  (void)unlinkat(dir_fd, fresh.c_str(), 0);
  Status out = OkStatus();
  if (symlinkat(target.c_str(), dir_fd, fresh.c_str()) != 0) {
    out = ErrnoStatus("symlink " + fresh, errno);
  } else if (renameat(dir_fd, fresh.c_str(), dir_fd, parts[0].c_str()) != 0) {
    out = ErrnoStatus("rename " + fresh, errno);
    (void)unlinkat(dir_fd, fresh.c_str(), 0);
  }
  close(dir_fd);
  return out;
}

Status Workspace::WriteProgram(std::string_view relative_path, std::string_view content) {
  return WriteWithMode(relative_path, content, kMaxProgramDepth, kProgramMode);
}

Status Workspace::WriteWithMode(std::string_view relative_path, std::string_view content,
                                int max_depth, mode_t mode) {
  if (dir_fd_ < 0) return FailedPreconditionError("workspace already removed");
  CR_ASSIGN_OR_RETURN(std::vector<std::string> parts,
                      SplitSafeRelativePath(relative_path, max_depth));
  int dir = dup(dir_fd_);
  if (dir < 0) return ErrnoStatus("dup workspace fd", errno);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    // mkdirat never follows a symlink in the last component; opening with
    // O_NOFOLLOW|O_DIRECTORY refuses anything that is not a real directory.
    if (mkdirat(dir, parts[i].c_str(), 0700) != 0 && errno != EEXIST) {
      int err = errno;
      close(dir);
      return ErrnoStatus("mkdir " + parts[i], err);
    }
    int next = openat(dir, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    close(dir);
    if (next < 0) return ErrnoStatus("open directory " + parts[i], err);
    if (fchown(next, kKeepOwner, static_cast<gid_t>(gid_)) != 0 || fchmod(next, kDirMode) != 0) {
      err = errno;
      close(next);
      return ErrnoStatus("chown/chmod directory " + parts[i], err);
    }
    dir = next;
  }
  int fd =
      openat(dir, parts.back().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = errno;
  close(dir);
  if (fd < 0) return ErrnoStatus("create " + std::string(relative_path), err);
  Status s = WriteAll(fd, content, "write " + std::string(relative_path));
  if (s.ok() && (fchown(fd, kKeepOwner, static_cast<gid_t>(gid_)) != 0 || fchmod(fd, mode) != 0))
    s = ErrnoStatus("chown/chmod " + std::string(relative_path), errno);
  close(fd);
  return s;
}

StatusOr<int> Workspace::CreateFifo(std::string_view name) {
  if (dir_fd_ < 0) return FailedPreconditionError("workspace already removed");
  CR_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitSafeRelativePath(name, 1));
  const std::string& n = parts.front();
  if (mkfifoat(dir_fd_, n.c_str(), 0600) != 0) return ErrnoStatus("mkfifo " + n, errno);
  // fchmodat: umask must not strip the job's read bit.
  if (fchownat(dir_fd_, n.c_str(), 0, static_cast<gid_t>(gid_), AT_SYMLINK_NOFOLLOW) != 0 ||
      fchmodat(dir_fd_, n.c_str(), kFileMode, 0) != 0) {
    return ErrnoStatus("chown/chmod " + n, errno);
  }
  int fd = openat(dir_fd_, n.c_str(), O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open " + n, errno);
  return fd;
}

Status Workspace::RemoveAllBut(std::string_view keep) {
  if (dir_fd_ < 0) return FailedPreconditionError("workspace " + path_ + " was removed");
  int fd = dup(dir_fd_);
  DIR* dir = fd < 0 ? nullptr : fdopendir(fd);
  if (dir == nullptr) {
    if (fd >= 0) close(fd);
    return ErrnoStatus("read " + path_, errno);
  }
  std::vector<std::string> names;
  rewinddir(dir);
  while (struct dirent* e = readdir(dir)) {
    std::string_view name = e->d_name;
    if (name != "." && name != ".." && name != keep) names.emplace_back(name);
  }
  closedir(dir);
  for (const auto& name : names) CR_RETURN_IF_ERROR(RemoveTreeEntry(path_, name));
  return OkStatus();
}

Status Workspace::Remove() {
  if (dir_fd_ < 0) return OkStatus();
  close(dir_fd_);
  dir_fd_ = -1;
  return RemoveTree(path_);
}

Status RemoveTree(const std::string& path) {
  std::error_code ec;
  // remove_all deletes symlinks themselves, never their targets.
  std::filesystem::remove_all(path, ec);
  if (ec) return InternalError("remove " + path + ": " + ec.message(), "workspace_io");
  return OkStatus();
}

}  // namespace coderunner::isolation
