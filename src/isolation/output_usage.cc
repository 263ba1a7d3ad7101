#include "coderunner/isolation/output_usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "coderunner/isolation/safe_tree.h"

namespace coderunner::isolation {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr int64_t kUnknownBlockBytes = 512;

bool IsDots(const char* n) { return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == 0)); }

bool AllDigits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

struct Walker {
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
    int sub = openat(dir, name, kDirFlags);
    if (sub < 0) {
      if (errno != ENOENT) usage.unreadable = true;
      return true;
    }
    Directory(sub, depth + 1);
    return !usage.truncated;
  }
};

// Adds the orphans process `pid_dir` (an fd of /proc/<pid>) holds open.
void AddHeldOrphans(int pid_dir, dev_t device, int64_t block_bytes,
                    std::set<std::pair<dev_t, ino_t>>& seen, OrphanUsage& out) {
  int fds = openat(pid_dir, "fd", kDirFlags);
  if (fds < 0) return;
  DIR* d = fdopendir(fds);
  if (d == nullptr) {
    close(fds);
    return;
  }
  while (struct dirent* e = readdir(d)) {
    if (IsDots(e->d_name)) continue;
    struct stat st;
    // Follows the magic link to the open file itself.
    if (fstatat(dirfd(d), e->d_name, &st, 0) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_nlink != 0 || st.st_dev != device) continue;
    if (!seen.insert({st.st_dev, st.st_ino}).second) continue;
    const int64_t charge =
        DiskCharge(st.st_size, static_cast<int64_t>(st.st_blocks) * 512, true, block_bytes);
    out.used_bytes += charge;
    out.largest = std::max(out.largest, charge);
    ++out.files;
  }
  closedir(d);
}

// The inode of host process `pid`'s PID namespace; 0 if unreadable.
ino_t PidNamespaceOf(int64_t pid) {
  if (pid <= 0) return 0;
  struct stat st;
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/pid";
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Field 22 of /proc/<pid>/stat: when the process started, in clock ticks
// since boot; 0 if it cannot be read. The command (field 2) may hold
// spaces and parentheses: the fields after it follow its last ')'.
uint64_t StartTicks(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

// Whether /proc/<pid>/cgroup names `container_id` (at least 12 hex
// characters, as every engine's cgroup path holds the full id).
bool InCgroupOf(int64_t pid, const std::string& container_id) {
  if (container_id.size() < 12) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(container_id) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

OutputUsage MeasureOutput(const std::string& dir, const OutputLimits& limits,
                          const std::function<void(int dir_fd)>& on_directory) {
  OutputUsage usage;
  usage.block_bytes = kUnknownBlockBytes;
  int fd = open(dir.c_str(), kDirFlags);
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
  Walker walker{limits, on_directory, usage};
  walker.Directory(fd, 0);
  return usage;
}

ContainerProcesses ProcessesOf(int64_t pid, const std::string& container_id) {
  ContainerProcesses p;
  const ino_t ns = PidNamespaceOf(pid);
  const uint64_t start = StartTicks(pid);
  if (ns == 0 || start == 0 || !InCgroupOf(pid, container_id)) return p;
  p.pid = pid;
  p.start_ticks = start;
  if (ns != PidNamespaceOf(getpid())) p.pid_namespace = ns;
  return p;
}

bool KillContainerProcesses(const ContainerProcesses& processes) {
  if (processes.pid <= 0 || StartTicks(processes.pid) != processes.start_ticks) return false;
  return kill(static_cast<pid_t>(processes.pid), SIGKILL) == 0;
}

std::vector<OrphanUsage> OpenOrphans(const std::vector<OrphanQuery>& queries) {
  std::vector<OrphanUsage> out(queries.size());
  std::vector<std::set<std::pair<dev_t, ino_t>>> seen(queries.size());
  const ino_t own = PidNamespaceOf(getpid());
  std::map<ino_t, size_t> by_namespace;
  for (size_t i = 0; i < queries.size(); ++i) {
    const OrphanQuery& q = queries[i];
    const ContainerProcesses& p = q.processes;
    if (p.pid_namespace != 0 && p.pid_namespace != own) by_namespace.emplace(p.pid_namespace, i);
    if (p.pid_namespace != 0 || p.pid <= 0 || StartTicks(p.pid) != p.start_ticks) continue;
    UniqueFd one(open(("/proc/" + std::to_string(p.pid)).c_str(), kDirFlags));
    if (one.valid()) AddHeldOrphans(one.get(), q.device, q.block_bytes, seen[i], out[i]);
  }
  if (by_namespace.empty()) return out;
  int proc = open("/proc", kDirFlags);
  DIR* d = proc < 0 ? nullptr : fdopendir(proc);
  if (d == nullptr) {
    if (proc >= 0) close(proc);
    return out;
  }
  while (struct dirent* e = readdir(d)) {
    if (!AllDigits(e->d_name)) continue;
    UniqueFd pid_dir(openat(dirfd(d), e->d_name, kDirFlags));
    struct stat ns;
    if (!pid_dir.valid() || fstatat(pid_dir.get(), "ns/pid", &ns, 0) != 0) continue;
    auto it = by_namespace.find(ns.st_ino);
    if (it == by_namespace.end()) continue;
    const OrphanQuery& q = queries[it->second];
    AddHeldOrphans(pid_dir.get(), q.device, q.block_bytes, seen[it->second], out[it->second]);
  }
  closedir(d);
  return out;
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
