// The service's own measurement of an /output (output_usage.h): everything
// below the root counts whatever modes the job left, nothing is followed,
// and what cannot be looked at is a broken bound, never nothing. Files held
// open after their last name was removed are container_processes_test's.
// Runs as root, as the service does.
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

}  // namespace
}  // namespace coderunner::isolation
