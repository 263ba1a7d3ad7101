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
#include <sys/stat.h>
#include <sys/wait.h>
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

// A process in a PID namespace of its own (as a container's are) opens a
// file below the directory, writes it, removes its name and keeps it open:
// no walk sees it, OpenOrphans does.
TEST_F(OutputUsageTest, FilesHeldOpenAfterUnlinkAreFoundThroughTheirProcesses) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const std::string path = dir_ + "/held";
  pid_t outer = fork();
  ASSERT_GE(outer, 0);
  if (outer == 0) {
    // The child of an unshare(CLONE_NEWPID) is PID 1 of a new namespace;
    // its pid here is what fork returns to this side.
    if (unshare(CLONE_NEWPID) != 0) _exit(2);
    pid_t inner = fork();
    if (inner != 0) {
      (void)!write(ready[1], &inner, sizeof(inner));
      _exit(inner > 0 ? 0 : 3);
    }
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    std::string chunk(1 << 20, 'o');
    for (int i = 0; i < 3; ++i) (void)!write(fd, chunk.data(), chunk.size());
    unlink(path.c_str());
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  pid_t holder = -1;
  char c;
  ASSERT_EQ(read(ready[0], &holder, sizeof(holder)), static_cast<ssize_t>(sizeof(holder)));
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  int st;
  waitpid(outer, &st, 0);
  ASSERT_GT(holder, 0);
  OutputUsage tree = MeasureOutput(dir_, {});
  EXPECT_EQ(tree.entries, 0);
  // The holder is in a PID namespace of its own: its whole namespace counts.
  const ContainerProcesses in_namespace = ProcessesOf(holder);
  ASSERT_NE(in_namespace.pid_namespace, 0u);
  std::vector<OrphanUsage> found = OpenOrphans({{in_namespace, tree.device, tree.block_bytes}});
  kill(holder, SIGKILL);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].files, 1);
  EXPECT_GE(found[0].used_bytes, 3 << 20);
  EXPECT_GE(found[0].largest, 3 << 20);
  // A process in the service's own PID namespace (as gVisor's sandbox is)
  // counts alone, and only while it is the process that was named.
  ContainerProcesses self = ProcessesOf(getpid());
  EXPECT_EQ(self.pid_namespace, 0u);
  EXPECT_EQ(self.pid, getpid());
  EXPECT_GT(self.start_ticks, 0u);
  EXPECT_EQ(OpenOrphans({{self, tree.device, tree.block_bytes}})[0].files, 0);
  ContainerProcesses stale = self;
  stale.start_ticks += 1;
  EXPECT_EQ(OpenOrphans({{stale, tree.device, tree.block_bytes}})[0].files, 0);
}

// The same through the service's own PID namespace: one process, gVisor's
// way. This test process holds the unlinked file itself.
TEST_F(OutputUsageTest, AProcessOfTheServicesOwnNamespaceCountsAlone) {
  const std::string path = dir_ + "/mine";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  std::string chunk(2 << 20, 'm');
  ASSERT_EQ(write(fd, chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
  ASSERT_EQ(unlink(path.c_str()), 0);
  OutputUsage tree = MeasureOutput(dir_, {});
  std::vector<OrphanUsage> found =
      OpenOrphans({{ProcessesOf(getpid()), tree.device, tree.block_bytes}});
  close(fd);
  EXPECT_EQ(found[0].files, 1);
  EXPECT_GE(found[0].used_bytes, 2 << 20);
}

}  // namespace
}  // namespace coderunner::isolation
