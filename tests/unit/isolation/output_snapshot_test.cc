// The service's own undo of a volume's run (output_snapshot.h): whatever the
// run left, including below directories it made unreadable to its own uid,
// is removed or cut back, and the disk holds no more than before the run.
#include "coderunner/isolation/output_snapshot.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "unit/isolation/disk_files.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

class OutputSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "the service undoes a run as root";
    char tmpl[] = "/tmp/coderunner-snapshot-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    testing::UnlockDirectories(dir_);
    fs::remove_all(dir_);
  }

 public:
  void Write(const std::string& path, const std::string& content, bool append = false) {
    fs::path p = fs::path(dir_) / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | (append ? std::ios::app : std::ios::trunc)) << content;
  }
  // Every entry below the directory with its size (-1 for a directory).
  std::map<std::string, int64_t> Tree() const {
    std::map<std::string, int64_t> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      out[fs::relative(e.path(), dir_).string()] =
          e.is_directory() ? -1 : static_cast<int64_t>(e.file_size());
    }
    return out;
  }
  int64_t DiskBytes() const {
    int64_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      total += testing::AllocatedBytes(e.path().string());
    }
    return total;
  }
  std::string dir_;
};

TEST_F(OutputSnapshotTest, RollBackReturnsTheTreeToBeforeTheRun) {
  struct Case {
    const char* what;
    std::function<void(OutputSnapshotTest&, const std::string&)> run;
  };
  const Case cases[] = {
      {"new files and directories",
       [](OutputSnapshotTest& t, const std::string&) {
         t.Write("new/deep/f", std::string(50000, 'n'));
         t.Write("g", "g");
       }},
      {"a settled file grown",
       [](OutputSnapshotTest& t, const std::string&) {
         t.Write("keep/old", std::string(100000, 'g'), /*append=*/true);
       }},
      {"blocks preallocated into a settled file",
       [](OutputSnapshotTest&, const std::string& d) {
         testing::MakeFile(d + "/old", 0, 1 << 20);
       }},
      // The attack of issue 28: a directory the job's own uid can read but
      // not search, written through descriptors held open.
      {"a new directory made unsearchable",
       [](OutputSnapshotTest& t, const std::string& d) {
         t.Write("h/a", std::string(200000, 'h'));
         t.Write("h/b", std::string(200000, 'h'));
         ASSERT_EQ(chmod((d + "/h").c_str(), 0400), 0);
       }},
      {"a settled directory locked with new files inside",
       [](OutputSnapshotTest& t, const std::string& d) {
         t.Write("keep/inside", std::string(300000, 'i'));
         ASSERT_EQ(chmod((d + "/keep").c_str(), 0000), 0);
       }},
      {"a settled file replaced by a link",
       [](OutputSnapshotTest&, const std::string& d) {
         fs::remove(d + "/old");
         ASSERT_EQ(symlink("/etc/passwd", (d + "/old").c_str()), 0);
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    testing::UnlockDirectories(dir_);
    for (const auto& e : fs::directory_iterator(dir_)) fs::remove_all(e.path());
    Write("old", std::string(5000, 'o'));
    Write("keep/old", std::string(10, 'k'));
    std::map<std::string, int64_t> before = Tree();
    const int64_t before_bytes = DiskBytes();
    auto snap = OutputSnapshot::Take(dir_, 0);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ(snap->size(), 3u);
    c.run(*this, dir_);
    EXPECT_TRUE(snap->RollBack(dir_).ok());
    testing::UnlockDirectories(dir_);
    std::map<std::string, int64_t> after = Tree();
    // A settled name whose file was replaced is gone (it was not the run's
    // to keep); every other settled entry is back as it was.
    for (const auto& [path, size] : after) {
      ASSERT_TRUE(before.count(path)) << path << " stayed";
      EXPECT_EQ(size, before[path]) << path;
    }
    EXPECT_LE(DiskBytes(), before_bytes);
  }
}

TEST_F(OutputSnapshotTest, ATreeThatCannotBeRecordedWholeIsRefused) {
  for (int i = 0; i < 5; ++i) Write("f" + std::to_string(i), "x");
  auto snap = OutputSnapshot::Take(dir_, 3);
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.status().reason(), kReasonOutputUnreadable);
  EXPECT_FALSE(OutputSnapshot::Take(dir_ + "/missing", 0).ok());
}

}  // namespace
}  // namespace coderunner::isolation
