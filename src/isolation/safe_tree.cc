#include "coderunner/isolation/safe_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>

#include "coderunner/isolation/file_path.h"

namespace coderunner::isolation {
namespace {

std::string Escaped(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 512)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\') {
      out += "\\x";
      out += "0123456789abcdef"[u >> 4];
      out += "0123456789abcdef"[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// Names in `dir`, sorted (a stable listing order), without "." and "..".
std::vector<std::string> Names(int dir) {
  std::vector<std::string> names;
  int fd = dup(dir);
  if (fd < 0) return names;
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    close(fd);
    return names;
  }
  while (struct dirent* e = readdir(d)) {
    std::string_view n(e->d_name);
    if (n != "." && n != "..") names.emplace_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// Removes `name` in `dir`; a directory with everything below it.
bool RemoveAt(int dir, const std::string& name, int depth) {
  struct stat st;
  if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
  if (!S_ISDIR(st.st_mode)) return unlinkat(dir, name.c_str(), 0) == 0 || errno == ENOENT;
  if (depth > 256) return false;
  UniqueFd sub(openat(dir, name.c_str(), kTreeDirOpenFlags));
  if (!sub.valid()) return false;
  // The job may have left its directory read-only; we are root here, but a
  // mode of 0 still blocks nothing for root, so no chmod is needed.
  bool ok = true;
  for (const auto& n : Names(sub.get())) ok = RemoveAt(sub.get(), n, depth + 1) && ok;
  return (unlinkat(dir, name.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT) && ok;
}

struct ListingWalker {
  const TreeWalkOptions& options;
  TreeListing& out;
  // Hard links are removed after the walk: removing one name during it
  // would make its twin look like a single-link file.
  std::vector<std::string> hardlinks;

  void Problem(const std::string& path, const char* reason, int dir, const std::string& name,
               int depth) {
    out.problems.push_back({Escaped(path), reason});
    if (options.remove_problems) RemoveAt(dir, name, depth);
  }

  // Returns false once the entry bound stops the walk.
  bool Walk(int dir, const std::string& prefix, int depth) {
    for (const auto& name : Names(dir)) {
      if (++out.entries > options.max_entries) {
        out.truncated = true;
        return false;
      }
      std::string path = prefix.empty() ? name : prefix + "/" + name;
      struct stat st;
      if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      const int64_t allocated = static_cast<int64_t>(st.st_blocks) * 512;
      out.used_bytes += DiskCharge(st.st_size, allocated, S_ISREG(st.st_mode), out.block_bytes);
      if (S_ISDIR(st.st_mode)) out.directory_bytes += allocated;
      if (S_ISLNK(st.st_mode)) {
        Problem(path, "symlink", dir, name, depth);
      } else if (S_ISDIR(st.st_mode)) {
        if (!SplitSafeRelativePath(path, options.max_depth).ok()) {
          Problem(path, depth + 1 > options.max_depth ? kProblemTooDeep : "bad_name", dir, name,
                  depth);
          continue;
        }
        UniqueFd sub(openat(dir, name.c_str(), kTreeDirOpenFlags));
        if (!sub.valid()) {
          Problem(path, kProblemUnreadable, dir, name, depth);
          continue;
        }
        out.directories.push_back(path);
        if (!Walk(sub.get(), path, depth + 1)) return false;
      } else if (S_ISREG(st.st_mode)) {
        if (!SplitSafeRelativePath(path, options.max_depth).ok()) {
          Problem(path, "bad_name", dir, name, depth);
        } else if (st.st_nlink > 1) {
          // A second name for some inode. Inside a job's own mount it can
          // only point at the job's own files, but we cannot prove where the
          // other name lives, so it is never read.
          out.problems.push_back({Escaped(path), "hardlink"});
          if (options.remove_problems) hardlinks.push_back(path);
        } else {
          out.files.push_back(
              {path, static_cast<int64_t>(st.st_size),
               static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000,
               allocated});
          out.total_bytes += st.st_size;
        }
      } else {
        Problem(path, "special_file", dir, name, depth);
      }
    }
    return true;
  }
};

Status ErrnoError(const std::string& what, int err) {
  if (err == ENOENT) return NotFoundError(what + ": no such directory", "not_found");
  return InternalError(what + ": " + strerror(err), "tree_io");
}

// Opens the directory holding the last component of `parts` below `root`.
StatusOr<UniqueFd> OpenParent(const std::string& root, const std::vector<std::string>& parts) {
  UniqueFd dir(open(root.c_str(), kTreeDirOpenFlags));
  if (!dir.valid()) return ErrnoError("open " + root, errno);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    UniqueFd next(openat(dir.get(), parts[i].c_str(), kTreeDirOpenFlags));
    if (!next.valid()) return NotFoundError("no such file", "file_not_found");
    dir = std::move(next);
  }
  return dir;
}

}  // namespace

int64_t DiskCharge(int64_t size, int64_t allocated_bytes, bool regular_file, int64_t block_bytes) {
  if (!regular_file) return allocated_bytes;
  int64_t rounded = block_bytes > 0 ? (size + block_bytes - 1) / block_bytes * block_bytes : size;
  return std::max(rounded, allocated_bytes);
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.Release();
  }
  return *this;
}

StatusOr<TreeListing> ListTree(const std::string& root, const TreeWalkOptions& options) {
  UniqueFd dir(open(root.c_str(), kTreeDirOpenFlags));
  if (!dir.valid()) return ErrnoError("open " + root, errno);
  TreeListing out;
  struct statvfs vfs;
  if (fstatvfs(dir.get(), &vfs) == 0 && vfs.f_frsize > 0) {
    out.block_bytes = static_cast<int64_t>(vfs.f_frsize);
  }
  ListingWalker walker{options, out, {}};
  walker.Walk(dir.get(), "", 0);
  for (const auto& path : walker.hardlinks) {
    CR_RETURN_IF_ERROR(RemoveTreeEntry(root, path, options.max_depth));
  }
  std::sort(out.files.begin(), out.files.end(),
            [](const TreeFile& a, const TreeFile& b) { return a.path < b.path; });
  return out;
}

StatusOr<UniqueFd> OpenTreeFile(const std::string& root, std::string_view relative, int max_depth) {
  CR_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitSafeRelativePath(relative, max_depth));
  CR_ASSIGN_OR_RETURN(UniqueFd dir, OpenParent(root, parts));
  const char* last = parts.back().c_str();
  struct stat before;
  if (fstatat(dir.get(), last, &before, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(before.st_mode) ||
      before.st_nlink != 1) {
    return NotFoundError("no such file", "file_not_found");
  }
  // O_NONBLOCK: should the entry have become a FIFO since, open must not
  // wait for a writer; the fstat below then rejects it.
  UniqueFd fd(openat(dir.get(), last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
      st.st_ino != before.st_ino || st.st_dev != before.st_dev) {
    return NotFoundError("no such file", "file_not_found");
  }
  int flags = fcntl(fd.get(), F_GETFL);
  if (flags >= 0) fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

Status RemoveTreeEntry(const std::string& root, std::string_view relative, int max_depth) {
  CR_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitSafeRelativePath(relative, max_depth));
  auto dir = OpenParent(root, parts);
  if (!dir.ok()) return dir.status().code() == StatusCode::kNotFound ? OkStatus() : dir.status();
  if (!RemoveAt(dir->get(), parts.back(), 0)) {
    return InternalError("cannot remove " + Escaped(relative), "tree_io");
  }
  return OkStatus();
}

bool RemoveEntryAt(int dir_fd, const std::string& name) { return RemoveAt(dir_fd, name, 0); }

StatusOr<std::string> ReadAllFd(int fd, int64_t max_bytes) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return InternalError(std::string("read: ") + strerror(errno), "tree_io");
    }
    if (n == 0) return out;
    if (static_cast<int64_t>(out.size()) + n > max_bytes) {
      return ResourceExhaustedError("file is larger than " + std::to_string(max_bytes) + " bytes",
                                    "file_too_large");
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace coderunner::isolation
