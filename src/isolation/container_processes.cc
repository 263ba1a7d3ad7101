#include "coderunner/isolation/container_processes.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string_view>
#include <utility>

#include "coderunner/isolation/safe_tree.h"

namespace coderunner::isolation {
namespace {

// The shortest id a cgroup path is matched on: every engine's holds the
// full 64 hex characters.
constexpr size_t kMinContainerId = 12;

bool AllDigits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

// The contents of `name` below directory `dir`, at most 64 KiB; "" if it
// cannot be read.
std::string ReadSmall(int dir, const char* name) {
  UniqueFd fd(openat(dir, name, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return "";
  std::string out;
  char buf[4096];
  ssize_t n;
  while (out.size() < 65536 && (n = read(fd.get(), buf, sizeof(buf))) > 0) {
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Field 22 of the process's stat (its start, in clock ticks since boot); 0
// if unreadable. The command (field 2) may hold spaces and parentheses:
// the fields after it follow its last ')'.
uint64_t StartTicks(int pid_dir) {
  const std::string stat = ReadSmall(pid_dir, "stat");
  size_t at = stat.rfind(')');
  if (at == std::string::npos) return 0;
  for (int field = 2; field < 22 && at != std::string::npos; ++field) {
    at = stat.find(' ', at + 1);
  }
  return at == std::string::npos ? 0 : std::strtoull(stat.c_str() + at + 1, nullptr, 10);
}

ino_t PidNamespace(int pid_dir) {
  struct stat st;
  return fstatat(pid_dir, "ns/pid", &st, 0) == 0 ? st.st_ino : 0;
}

// The service's own PID namespace; /proc/self is a symbolic link, so it
// is not opened O_NOFOLLOW as the entries of /proc are.
ino_t OwnPidNamespace() {
  struct stat st;
  return stat("/proc/self/ns/pid", &st) == 0 ? st.st_ino : 0;
}

// Calls `visit(pid, dir)` for every process in /proc, `dir` an fd of
// /proc/<pid> valid for the call.
void ForEachProcess(const std::function<void(int64_t pid, int dir)>& visit) {
  int proc = open("/proc", kTreeDirOpenFlags);
  DIR* d = proc < 0 ? nullptr : fdopendir(proc);
  if (d == nullptr) {
    if (proc >= 0) close(proc);
    return;
  }
  while (struct dirent* e = readdir(d)) {
    if (!AllDigits(e->d_name)) continue;
    UniqueFd pid_dir(openat(dirfd(d), e->d_name, kTreeDirOpenFlags));
    if (pid_dir.valid()) visit(std::strtoll(e->d_name, nullptr, 10), pid_dir.get());
  }
  closedir(d);
}

bool InContainer(int pid_dir, const std::string& container_id) {
  return container_id.size() >= kMinContainerId &&
         ReadSmall(pid_dir, "cgroup").find(container_id) != std::string::npos;
}

// Each orphan's charge (DiskCharge), by device and inode: a file held
// open and mapped by several processes counts once, at its largest.
using OrphanCharges = std::map<std::pair<dev_t, ino_t>, int64_t>;

void Charge(OrphanCharges& charges, dev_t dev, ino_t ino, int64_t charge) {
  int64_t& at = charges[{dev, ino}];
  at = std::max(at, charge);
}

// Adds the orphans the process at `pid_dir` holds open.
void AddHeldOrphans(int pid_dir, dev_t device, int64_t block_bytes, OrphanCharges& charges) {
  int fds = openat(pid_dir, "fd", kTreeDirOpenFlags);
  DIR* d = fds < 0 ? nullptr : fdopendir(fds);
  if (d == nullptr) {
    if (fds >= 0) close(fds);
    return;
  }
  while (struct dirent* e = readdir(d)) {
    if (!AllDigits(e->d_name)) continue;
    struct stat st;
    // Follows the magic link to the open file itself.
    if (fstatat(dirfd(d), e->d_name, &st, 0) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_nlink != 0 || st.st_dev != device) continue;
    Charge(charges, st.st_dev, st.st_ino,
           DiskCharge(st.st_size, static_cast<int64_t>(st.st_blocks) * 512, true, block_bytes));
  }
  closedir(d);
}

// Adds the orphans the process at `pid_dir` maps shared: it can close its
// descriptor and still allocate the file's blocks by writing through the
// mapping. Its size cannot be read without CAP_SYS_ADMIN (map_files), so
// each is charged what its mappings reach (offset + length), the most that
// writing through them can allocate. Private mappings never write the file.
void AddMappedOrphans(int pid_dir, dev_t device, int64_t block_bytes, OrphanCharges& charges) {
  int fd = openat(pid_dir, "maps", O_RDONLY | O_CLOEXEC);
  FILE* maps = fd < 0 ? nullptr : fdopen(fd, "r");
  if (maps == nullptr) {
    if (fd >= 0) close(fd);
    return;
  }
  static constexpr std::string_view kDeleted = " (deleted)";
  char line[4096 + 256];
  while (fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long long start = 0, end = 0, offset = 0, inode = 0;
    unsigned dev_major = 0, dev_minor = 0;
    char perms[8] = {};
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &offset, &dev_major,
               &dev_minor, &inode, &path_at) < 7) {
      continue;
    }
    std::string_view path(line + path_at);
    while (!path.empty() && path.back() == '\n') path.remove_suffix(1);
    if (perms[3] != 's' || inode == 0 || path.size() < kDeleted.size() ||
        path.substr(path.size() - kDeleted.size()) != kDeleted) {
      continue;
    }
    if (makedev(dev_major, dev_minor) != device) continue;
    const int64_t reach = static_cast<int64_t>(offset + (end - start));
    Charge(charges, device, static_cast<ino_t>(inode), DiskCharge(reach, 0, true, block_bytes));
  }
  fclose(maps);
}

// What the container's process at `pid_dir` holds or maps of its orphans.
void AddOrphansOf(int pid_dir, const OrphanQuery& q, OrphanCharges& charges) {
  AddHeldOrphans(pid_dir, q.device, q.block_bytes, charges);
  AddMappedOrphans(pid_dir, q.device, q.block_bytes, charges);
}

}  // namespace

std::optional<ContainerProcesses> FindContainerProcesses(const std::string& container_id) {
  if (container_id.size() < kMinContainerId) return std::nullopt;
  ContainerProcesses found;
  found.container_id = container_id;
  const ino_t own = OwnPidNamespace();
  ForEachProcess([&](int64_t pid, int dir) {
    if (!InContainer(dir, container_id)) return;
    const ino_t ns = PidNamespace(dir);
    if (ns != 0 && ns != own) {
      found.pid_namespace = ns;
    } else if (const uint64_t start = StartTicks(dir); start != 0) {
      found.in_host_namespace.push_back({pid, start});
    }
  });
  if (found.pid_namespace == 0 && found.in_host_namespace.empty()) return std::nullopt;
  return found;
}

int KillProcesses(const ContainerProcesses& processes) {
  int killed = 0;
  auto kill_if_member = [&](int64_t pid, int dir) {
    if (InContainer(dir, processes.container_id) && kill(static_cast<pid_t>(pid), SIGKILL) == 0) {
      ++killed;
    }
  };
  for (const HostProcess& p : processes.in_host_namespace) {
    UniqueFd dir(open(("/proc/" + std::to_string(p.pid)).c_str(), kTreeDirOpenFlags));
    if (dir.valid() && StartTicks(dir.get()) == p.start_ticks) kill_if_member(p.pid, dir.get());
  }
  if (processes.pid_namespace != 0 && processes.pid_namespace != OwnPidNamespace()) {
    ForEachProcess([&](int64_t pid, int dir) {
      if (PidNamespace(dir) == processes.pid_namespace) kill_if_member(pid, dir);
    });
  }
  return killed;
}

int KillContainerProcesses(const std::string& container_id) {
  int killed = 0;
  ForEachProcess([&](int64_t pid, int dir) {
    if (InContainer(dir, container_id) && kill(static_cast<pid_t>(pid), SIGKILL) == 0) ++killed;
  });
  return killed;
}

std::vector<OrphanUsage> OpenOrphans(const std::vector<OrphanQuery>& queries) {
  std::vector<OrphanUsage> out(queries.size());
  std::vector<OrphanCharges> charges(queries.size());
  const ino_t own = OwnPidNamespace();
  std::map<ino_t, size_t> by_namespace;
  for (size_t i = 0; i < queries.size(); ++i) {
    const OrphanQuery& q = queries[i];
    const ino_t ns = q.processes.pid_namespace;
    if (ns != 0 && ns != own) by_namespace.emplace(ns, i);
    for (const HostProcess& p : q.processes.in_host_namespace) {
      UniqueFd dir(open(("/proc/" + std::to_string(p.pid)).c_str(), kTreeDirOpenFlags));
      if (!dir.valid() || StartTicks(dir.get()) != p.start_ticks) continue;
      if (!InContainer(dir.get(), q.processes.container_id)) continue;
      AddOrphansOf(dir.get(), q, charges[i]);
    }
  }
  if (!by_namespace.empty()) {
    ForEachProcess([&](int64_t, int dir) {
      auto it = by_namespace.find(PidNamespace(dir));
      if (it == by_namespace.end()) return;
      const OrphanQuery& q = queries[it->second];
      // A namespace's inode number is used again as soon as it ends: once
      // the container's namespace is gone, another container's may have it.
      if (!InContainer(dir, q.processes.container_id)) return;
      AddOrphansOf(dir, q, charges[it->second]);
    });
  }
  for (size_t i = 0; i < queries.size(); ++i) {
    for (const auto& [file, charge] : charges[i]) {
      out[i].used_bytes += charge;
      out[i].largest = std::max(out[i].largest, charge);
      ++out[i].files;
    }
  }
  return out;
}

}  // namespace coderunner::isolation
