// The service's own measurement of an /output (output_usage.h): everything
// below the root counts whatever modes the job left, nothing is followed,
// and what cannot be looked at is a broken bound, never nothing. Files held
// open after their last name was removed count too (OpenOrphans). Runs as
// root, as the service does.
#include "coderunner/isolation/output_usage.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "unit/isolation/disk_files.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

class OutputUsageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "the service walks /output as root";
    char tmpl[] = "/tmp/coderunner-usage-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    // Modes a case left must not stop the clean-up.
    testing::UnlockDirectories(dir_);
    fs::remove_all(dir_);
  }
  void Write(const std::string& path, size_t bytes) {
    fs::path p = fs::path(dir_) / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << std::string(bytes, 'x');
  }
  std::string dir_;
};

// A job makes /output/h, fills it, then takes away some of its permissions
// (the attack of issue 28 was chmod 0400 with descriptors held open). As
// root the walk still counts every entry and every byte below it.
TEST_F(OutputUsageTest, EveryModeOfAHiddenDirectoryIsWalkedThrough) {
  for (mode_t mode : {0000, 0100, 0200, 0300, 0400, 0500, 0600, 0700}) {
    SCOPED_TRACE(mode);
    fs::remove_all(dir_ + "/h");
    Write("h/a", 100000);
    Write("h/deeper/b", 200000);
    ASSERT_EQ(chmod((dir_ + "/h/deeper").c_str(), mode), 0);
    ASSERT_EQ(chmod((dir_ + "/h").c_str(), mode), 0);
    OutputUsage u = MeasureOutput(dir_, {});
    EXPECT_FALSE(u.unreadable);
    EXPECT_EQ(u.entries, 4);  // h, h/a, h/deeper, h/deeper/b.
    EXPECT_EQ(u.file_bytes, 300000);
    EXPECT_GE(u.used_bytes, 300000);
    EXPECT_EQ(BrokenBound({250000, 0, 0}, u), kBoundTooLarge);
    chmod((dir_ + "/h").c_str(), 0700);
    chmod((dir_ + "/h/deeper").c_str(), 0700);
  }
}

TEST_F(OutputUsageTest, BoundsAreCheckedInOrder) {
  struct Case {
    const char* what;
    OutputLimits limits;
    OutputUsage usage;
    std::string_view want;
  };
  auto usage = [](int64_t used, int64_t entries, int64_t largest, bool deep, bool unreadable) {
    OutputUsage u;
    u.used_bytes = used;
    u.entries = entries;
    u.largest = largest;
    u.too_deep = deep;
    u.unreadable = unreadable;
    return u;
  };
  const Case cases[] = {
      {"within", {100, 50, 10}, usage(100, 10, 50, false, false), ""},
      {"unbounded", {0, 0, 0}, usage(1 << 30, 1 << 20, 1 << 30, false, false), ""},
      {"one file", {100, 50, 10}, usage(60, 1, 51, false, false), kBoundFileTooLarge},
      {"all files", {100, 50, 10}, usage(101, 3, 40, false, false), kBoundTooLarge},
      {"entries", {100, 50, 10}, usage(20, 11, 2, false, false), kBoundTooManyFiles},
      {"depth", {100, 50, 10}, usage(20, 5, 2, true, false), kBoundTooDeep},
      {"unreadable", {100, 50, 10}, usage(0, 0, 0, false, true), kBoundUnreadable},
      {"file before total", {100, 50, 10}, usage(500, 3, 400, true, true), kBoundFileTooLarge},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(BrokenBound(c.limits, c.usage), c.want);
  }
}

TEST_F(OutputUsageTest, AWalkStopsPastTheEntryBoundAndAtTheDepthBound) {
  for (int i = 0; i < 20; ++i) Write("f" + std::to_string(i), 1);
  OutputUsage many = MeasureOutput(dir_, {0, 0, 10});
  EXPECT_TRUE(many.truncated);
  EXPECT_EQ(many.entries, 10);
  EXPECT_EQ(BrokenBound({0, 0, 10}, many), kBoundTooManyFiles);

  fs::remove_all(dir_);
  fs::create_directories(dir_);
  std::string deep = dir_;
  for (int i = 0; i < kOutputMaxDepth + 2; ++i) deep += "/d";
  fs::create_directories(deep);
  EXPECT_TRUE(MeasureOutput(dir_, {}).too_deep);
}

// Nothing is followed: a symlink to a big tree costs its own inode only,
// and a FIFO is never opened (the walk would block on it).
TEST_F(OutputUsageTest, LinksAndSpecialFilesAreCountedNotFollowed) {
  ASSERT_EQ(symlink("/usr", (dir_ + "/usr").c_str()), 0);
  ASSERT_EQ(mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  OutputUsage u = MeasureOutput(dir_, {});
  EXPECT_EQ(u.entries, 2);
  EXPECT_EQ(u.file_bytes, 0);
  EXPECT_LT(u.used_bytes, 64 << 10);
  EXPECT_FALSE(u.unreadable);
}

TEST_F(OutputUsageTest, AMissingRootIsUnreadable) {
  OutputUsage u = MeasureOutput(dir_ + "/gone", {});
  EXPECT_TRUE(u.unreadable);
  EXPECT_EQ(BrokenBound({}, u), kBoundUnreadable);
}

TEST_F(OutputUsageTest, SparseAndPreallocatedFilesCountForTheLargerFigure) {
  testing::MakeFile(dir_ + "/sparse", 8 << 20, 0);
  testing::MakeFile(dir_ + "/prealloc", 0, 4 << 20);
  OutputUsage u = MeasureOutput(dir_, {});
  EXPECT_GE(u.used_bytes, (8 << 20) + (4 << 20));
  EXPECT_GE(u.largest, 8 << 20);
}

std::string Hex16(uint64_t v) {
  char buf[17];
  snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// A cgroup named like a container (a 64-hex id), as every engine names a
// container's: ProcessesOf takes a process for a container's only when its
// cgroup says so. Under the pids hierarchy (cgroup v1) or the unified one.
class TestCgroup {
 public:
  TestCgroup() {
    for (const char* root : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}) {
      if (!fs::exists(std::string(root) + "/cgroup.procs")) continue;
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
  std::string id_ = std::string(48, 'c') + Hex16(static_cast<uint64_t>(getpid()) << 20 ^
                                                 static_cast<uint64_t>(time(nullptr)));
  std::string root_;
  std::string dir_;
};

// Forks a process that opens `path`, writes `mib` MiB, removes the name and
// keeps the file open until killed, in a PID namespace of its own (as a
// runc container's processes are) or in this one (as gVisor's sandbox is).
// Returns its pid here once the file is written, -1 on failure.
pid_t StartHolder(const std::string& path, int mib, bool own_namespace) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  pid_t outer = fork();
  if (outer < 0) return -1;
  if (outer == 0) {
    // The child of an unshare(CLONE_NEWPID) is PID 1 of a new namespace;
    // its pid here is what fork returns on this side.
    if (own_namespace && unshare(CLONE_NEWPID) != 0) _exit(2);
    pid_t inner = fork();
    if (inner != 0) {
      (void)!write(ready[1], &inner, sizeof(inner));
      _exit(inner > 0 ? 0 : 3);
    }
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    std::string chunk(1 << 20, 'o');
    for (int i = 0; i < mib; ++i) (void)!write(fd, chunk.data(), chunk.size());
    unlink(path.c_str());
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  pid_t holder = -1;
  char c;
  bool ok = read(ready[0], &holder, sizeof(holder)) == sizeof(holder) && read(ready[0], &c, 1) == 1;
  close(ready[0]);
  int st;
  waitpid(outer, &st, 0);
  return ok ? holder : -1;
}

// A process a container's processes started opens a file below the
// directory, writes it, removes its name and keeps it open: no walk sees
// it, OpenOrphans does, once ProcessesOf has found the container's
// processes, whichever way the runtime lays them out.
TEST_F(OutputUsageTest, FilesHeldOpenAfterUnlinkAreFoundThroughTheirProcesses) {
  // The holder's parent exits at once: adopt it here, to reap it.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  for (bool own_namespace : {true, false}) {
    SCOPED_TRACE(own_namespace ? "runc: a PID namespace of its own" : "gVisor: one process");
    TestCgroup cgroup;
    if (!cgroup.ok()) GTEST_SKIP() << "no cgroup to put the holder in";
    const pid_t holder = StartHolder(dir_ + "/held", 3, own_namespace);
    ASSERT_GT(holder, 0);
    // Whatever fails below, the holder goes: a process left paused keeps
    // this test binary's output open, and ctest waits for it.
    struct Reaper {
      pid_t pid;
      ~Reaper() {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    } reaper{holder};
    const OutputUsage tree = MeasureOutput(dir_, {});
    EXPECT_EQ(tree.entries, 0);
    // Not the container's while its cgroup does not say so.
    EXPECT_EQ(ProcessesOf(holder, cgroup.id()).pid, 0);
    ASSERT_EQ(cgroup.Add(holder), "");
    const ContainerProcesses p = ProcessesOf(holder, cgroup.id());
    EXPECT_EQ(p.pid, holder);
    EXPECT_GT(p.start_ticks, 0u);
    EXPECT_EQ(p.pid_namespace != 0, own_namespace);
    std::vector<OrphanUsage> found = OpenOrphans({{p, tree.device, tree.block_bytes}});
    ContainerProcesses stale = p;
    stale.start_ticks += 1;
    // A pid whose process is not the one named is never looked at, nor killed.
    EXPECT_EQ(OpenOrphans({{stale, tree.device, tree.block_bytes}})[0].files,
              own_namespace ? 1 : 0);
    EXPECT_FALSE(KillContainerProcesses(stale));
    EXPECT_TRUE(KillContainerProcesses(p));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].files, 1);
    EXPECT_GE(found[0].used_bytes, 3 << 20);
    EXPECT_GE(found[0].largest, 3 << 20);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace coderunner::isolation
