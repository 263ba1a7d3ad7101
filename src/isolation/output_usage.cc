#include "coderunner/isolation/output_usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>

#include "coderunner/isolation/safe_tree.h"

namespace coderunner::isolation {
namespace {

constexpr int64_t kUnknownBlockBytes = 512;

bool IsDots(const char* n) { return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == 0)); }

struct UsageWalker {
  const OutputLimits& limits;
  const std::function<void(int)>& on_directory;
  OutputUsage& usage;

  // Counts everything below directory `fd` (taken over), `depth` levels
  // below the root.
  void Directory(int fd, int depth) {
    if (on_directory) on_directory(fd);
    DIR* d = fdopendir(fd);
    if (d == nullptr) {
      close(fd);
      usage.unreadable = true;
      return;
    }
    struct dirent* e;
    for (errno = 0; (e = readdir(d)) != nullptr; errno = 0) {
      if (IsDots(e->d_name)) continue;
      if (!Entry(dirfd(d), e->d_name, depth)) break;
    }
    if (e == nullptr && errno != 0) usage.unreadable = true;
    closedir(d);
  }

  // Counts entry `name` of directory `dir` (and below it). False once the
  // entry bound stops the walk.
  bool Entry(int dir, const char* name, int depth) {
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      // Removed since it was listed: not there. Any other error hides
      // what is there, which is never taken for nothing.
      if (errno != ENOENT) usage.unreadable = true;
      return true;
    }
    if (limits.max_entries > 0 && usage.entries >= limits.max_entries) {
      usage.truncated = true;
      return false;
    }
    ++usage.entries;
    const bool regular = S_ISREG(st.st_mode);
    const int64_t charge = DiskCharge(st.st_size, static_cast<int64_t>(st.st_blocks) * 512, regular,
                                      usage.block_bytes);
    usage.used_bytes += charge;
    if (regular) {
      usage.file_bytes += st.st_size;
      usage.largest = std::max(usage.largest, charge);
      return true;
    }
    if (!S_ISDIR(st.st_mode)) return true;
    if (depth + 1 >= kOutputMaxDepth) {
      usage.too_deep = true;
      return true;
    }
    int sub = openat(dir, name, kTreeDirOpenFlags);
    if (sub < 0) {
      if (errno != ENOENT) usage.unreadable = true;
      return true;
    }
    Directory(sub, depth + 1);
    return !usage.truncated;
  }
};

}  // namespace

OutputUsage MeasureOutput(const std::string& dir, const OutputLimits& limits,
                          const std::function<void(int dir_fd)>& on_directory) {
  OutputUsage usage;
  usage.block_bytes = kUnknownBlockBytes;
  int fd = open(dir.c_str(), kTreeDirOpenFlags);
  if (fd < 0) {
    usage.unreadable = true;
    return usage;
  }
  struct stat root;
  if (fstat(fd, &root) == 0) usage.device = root.st_dev;
  struct statvfs vfs;
  if (fstatvfs(fd, &vfs) == 0 && vfs.f_frsize > 0) {
    usage.block_bytes = static_cast<int64_t>(vfs.f_frsize);
  }
  UsageWalker walker{limits, on_directory, usage};
  walker.Directory(fd, 0);
  return usage;
}

void AddOrphans(const OrphanUsage& orphans, OutputUsage& usage) {
  usage.used_bytes += orphans.used_bytes;
  usage.entries += orphans.files;
  usage.largest = std::max(usage.largest, orphans.largest);
}

std::string_view BrokenBound(const OutputLimits& limits, const OutputUsage& usage) {
  if (limits.max_file_bytes > 0 && usage.largest > limits.max_file_bytes) {
    return kBoundFileTooLarge;
  }
  if (limits.max_bytes > 0 && usage.used_bytes > limits.max_bytes) return kBoundTooLarge;
  if (usage.truncated || (limits.max_entries > 0 && usage.entries > limits.max_entries)) {
    return kBoundTooManyFiles;
  }
  if (usage.too_deep) return kBoundTooDeep;
  if (usage.unreadable) return kBoundUnreadable;
  return "";
}

}  // namespace coderunner::isolation
