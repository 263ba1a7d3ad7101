// Processes laid out as a container's, for tests of the /output guard's
// look at them (container_processes.h): a cgroup named like a container,
// and a process holding a file whose name is gone, in a PID namespace of
// its own (as runc's) or in the test's (as gVisor's sandbox). Root only.
#ifndef CODERUNNER_TESTS_UNIT_ISOLATION_CONTAINER_FIXTURES_H_
#define CODERUNNER_TESTS_UNIT_ISOLATION_CONTAINER_FIXTURES_H_

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace coderunner::isolation {

inline std::string Hex16(uint64_t v) {
  char buf[17];
  snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// A cgroup named like a container (a 64-hex id), as every engine names a
// container's: FindContainerProcesses takes a process for a container's only when its
// cgroup says so. Under the pids hierarchy (cgroup v1) or the unified one.
class TestCgroup {
 public:
  TestCgroup() {
    for (const char* root : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}) {
      if (!std::filesystem::exists(std::string(root) + "/cgroup.procs")) continue;
      root_ = root;
      dir_ = root_ + "/" + id_;
      if (mkdir(dir_.c_str(), 0755) == 0) return;
    }
    dir_.clear();
  }
  ~TestCgroup() {
    if (dir_.empty()) return;
    std::ifstream procs(dir_ + "/cgroup.procs");
    for (std::string pid; std::getline(procs, pid);) {
      std::ofstream(root_ + "/cgroup.procs") << pid;
    }
    rmdir(dir_.c_str());
  }
  bool ok() const { return !dir_.empty(); }
  const std::string& id() const { return id_; }
  // Moves `pid` into it; "" on success, else why not.
  std::string Add(pid_t pid) {
    int fd = open((dir_ + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    const std::string text = std::to_string(pid);
    const bool ok = fd >= 0 && write(fd, text.data(), text.size()) == ssize_t(text.size());
    const std::string why = ok ? "" : std::string(strerror(errno));
    if (fd >= 0) close(fd);
    return why;
  }

 private:
  static inline int made_ = 0;  // Two in one second still differ.
  std::string id_ = std::string(48, 'c') + Hex16(static_cast<uint64_t>(getpid()) << 32 ^
                                                 static_cast<uint64_t>(time(nullptr)) << 8 ^
                                                 static_cast<uint64_t>(++made_));
  std::string root_;
  std::string dir_;
};

// Reads exactly `n` bytes, through signals; false at end of file or error.
inline bool ReadFully(int fd, void* buf, size_t n) {
  char* at = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t got = read(fd, at, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    at += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

// Forks a process that opens `path`, writes `mib` MiB, removes the name and
// keeps the file open (or only mapped: Holding::kMapped) until killed, in a PID namespace of its
// own (as a runc container's processes are) or in this one (as gVisor's sandbox is). Returns its
// pid here once the file is written, -1 on failure. How a holder keeps its file after removing its
// name.
enum class Holding { kOpen, kMapped };

inline pid_t StartHolder(const std::string& path, int mib, bool own_namespace,
                         Holding how = Holding::kOpen) {
  // Two pipes: the holder may be ready before its parent has told its pid.
  int pid_pipe[2], ready[2];
  if (pipe(pid_pipe) != 0) return -1;
  if (pipe(ready) != 0) return -1;
  pid_t outer = fork();
  if (outer < 0) return -1;
  if (outer == 0) {
    // The child of an unshare(CLONE_NEWPID) is PID 1 of a new namespace;
    // its pid here is what fork returns on this side.
    if (own_namespace && unshare(CLONE_NEWPID) != 0) _exit(2);
    pid_t inner = fork();
    if (inner != 0) {
      (void)!write(pid_pipe[1], &inner, sizeof(inner));
      _exit(inner > 0 ? 0 : 3);
    }
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (how == Holding::kMapped) {
      // Sized, mapped shared, closed and unlinked; then written through
      // the mapping alone.
      const size_t bytes = static_cast<size_t>(mib) << 20;
      if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) _exit(4);
      void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (at == MAP_FAILED) _exit(5);
      close(fd);
      unlink(path.c_str());
      memset(at, 'o', bytes);
    } else {
      std::string chunk(1 << 20, 'o');
      for (int i = 0; i < mib; ++i) (void)!write(fd, chunk.data(), chunk.size());
      unlink(path.c_str());
    }
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  close(pid_pipe[1]);
  close(ready[1]);
  pid_t holder = -1;
  char c;
  bool ok = ReadFully(pid_pipe[0], &holder, sizeof(holder)) && ReadFully(ready[0], &c, 1);
  close(pid_pipe[0]);
  close(ready[0]);
  int st = 0;
  while (waitpid(outer, &st, 0) < 0 && errno == EINTR) {
  }
  if (!ok) {
    ADD_FAILURE() << "holder did not start: its parent ended with "
                  << (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st))
                  << " (2: unshare failed, 3: fork failed)";
  }
  return ok ? holder : -1;
}

// Whatever fails, a holder goes: one left paused keeps this test binary's
// output open, and ctest waits for it.
struct Reaper {
  pid_t pid;  // <= 0 once reaped: kill(-1) would reach every process.
  ~Reaper() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_TESTS_UNIT_ISOLATION_CONTAINER_FIXTURES_H_
