#include "coderunner/sandboxes/volume_guard.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "unit/isolation/disk_files.h"

namespace coderunner::sandboxes {
namespace {

namespace fs = std::filesystem;

// After Settle(): content written to a file, or bytes preallocated past
// its end (fallocate KEEP_SIZE, its size unchanged), or a directory made.
struct Change {
  enum Kind { kWrite, kPreallocate, kMkdir } kind;
  std::string path;
  std::string content;  // kWrite.
  off_t bytes = 0;      // kPreallocate.
};

Change W(std::string path, std::string content) {
  return {Change::kWrite, std::move(path), std::move(content), 0};
}
Change P(std::string path, off_t bytes) {
  return {Change::kPreallocate, std::move(path), "", bytes};
}
Change D(std::string path) { return {Change::kMkdir, std::move(path), "", 0}; }

// Quotas count bytes as the disk holds them, in 4 KiB blocks here (ext4 or
// tmpfs /tmp): a file of 1 to 4096 bytes takes 4096, a directory 4096.
struct GuardCase {
  const char* name;
  std::vector<std::pair<std::string, std::string>> before;  // Settled files: path, content.
  std::vector<Change> changes;                              // Made after Settle().
  int64_t quota_bytes;
  int64_t max_files;
  bool want_rolled_back;
  std::set<std::string> want_files;  // What remains.
  std::set<std::string> want_dirs;   // What remains.
  // The watch found the volume over while it was written (a file it saw
  // larger, then cut by the writer's death mid-write).
  bool breached = false;
};

class VolumeGuardTest : public ::testing::TestWithParam<GuardCase> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-volguard-XXXXXX";
    dir_ = mkdtemp(tmpl);
    struct statvfs vfs;
    ASSERT_EQ(statvfs(dir_.c_str(), &vfs), 0);
    if (vfs.f_bsize != 4096) GTEST_SKIP() << "the cases assume 4 KiB blocks";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& path, const std::string& content) {
    fs::path p = fs::path(dir_) / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  }
  void Apply(const Change& c) {
    std::string p = dir_ + "/" + c.path;
    if (c.kind == Change::kWrite) return Write(c.path, c.content);
    if (c.kind == Change::kMkdir) return (void)fs::create_directories(p);
    testing::MakeFile(p, 0, c.bytes);
  }

  std::set<std::string> Entries(bool dirs) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (dirs ? e.is_directory() : e.is_regular_file()) {
        out.insert(fs::relative(e.path(), dir_).string());
      }
    }
    return out;
  }

  // What the entries below the directory hold on disk, as du counts.
  int64_t DiskBytes() const {
    int64_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      total += testing::AllocatedBytes(e.path().string());
    }
    return total;
  }

  std::string dir_;
  int64_t settled_bytes_ = 0;
};

TEST_P(VolumeGuardTest, RollsBackOnlyWhatBrokeTheQuotaSinceTheLastSettle) {
  const GuardCase& c = GetParam();
  for (const auto& [path, content] : c.before) Write(path, content);
  settled_bytes_ = DiskBytes();
  isolation::VolumeMount v;
  v.id = "vol-test";
  v.quota_bytes = c.quota_bytes;
  v.max_files = c.max_files;
  VolumeGuard guard(dir_, v);
  guard.Settle();
  for (const auto& change : c.changes) Apply(change);
  EXPECT_EQ(guard.RollBackIfOver(c.breached), c.want_rolled_back);
  EXPECT_EQ(Entries(false), c.want_files);
  EXPECT_EQ(Entries(true), c.want_dirs);
  // What stays holds no more than before the changes (nothing grown or
  // preallocated since the settle is left on disk).
  if (c.want_rolled_back) {
    EXPECT_LE(DiskBytes(), settled_bytes_);
  }
}

const std::string k8(8, 'x');
const std::string k16(16, 'y');
const std::string k5000(5000, 'z');
constexpr int64_t kBlock = 4096;

std::vector<Change> OneByteFiles(int n) {
  std::vector<Change> out;
  for (int i = 0; i < n; ++i) out.push_back(W("f" + std::to_string(i), "1"));
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, VolumeGuardTest,
    ::testing::Values(
        GuardCase{"UnderQuotaKeepsEverything",
                  {{"a", k8}},
                  {W("b", k8)},
                  8 * kBlock,
                  0,
                  false,
                  {"a", "b"},
                  {}},
        GuardCase{"WhatTheWatchFoundOverGoesEvenIfItFitsNow",
                  {{"a", k8}},
                  {W("b", k8), D("d")},
                  8 * kBlock,
                  0,
                  true,
                  {"a"},
                  {},
                  true},
        GuardCase{"ExactlyAtQuotaIsNotOver",
                  {{"a", k8}},
                  {W("b", k8)},
                  2 * kBlock,
                  0,
                  false,
                  {"a", "b"},
                  {}},
        GuardCase{
            "NewFileOverQuotaGoesOldStays", {{"a", k8}}, {W("b", k16)}, kBlock, 0, true, {"a"}, {}},
        // A settled file that grew is cut back to its size then (its
        // earlier bytes stay; only the run's growth goes).
        GuardCase{"GrownOldFileIsCutBack",
                  {{"a", k8}, {"b", k8}},
                  {W("a", k5000)},
                  10000,
                  0,
                  true,
                  {"a", "b"},
                  {}},
        GuardCase{"NestedNewFilesAndDirectoriesGo",
                  {{"keep/x", k8}},
                  {W("deep/er/y", k16), W("keep/z", k8)},
                  4 * kBlock,
                  0,
                  true,
                  {"keep/x"},
                  {"keep"}},
        GuardCase{"TooManyFilesRollsBackNewOnes",
                  {{"a", "1"}},
                  {W("b", "2"), W("c", "3")},
                  1 << 20,
                  2,
                  true,
                  {"a"},
                  {}},
        // coderunner-init's -n counts every entry, directories too: a
        // tree only it finds over would stop each new container at once.
        GuardCase{"DirectoriesCountAsEntries",
                  {{"a", "1"}},
                  {D("d1"), D("d2")},
                  1 << 20,
                  2,
                  true,
                  {"a"},
                  {}},
        GuardCase{"FileCountAtBoundIsNotOver",
                  {{"a", "1"}},
                  {W("b", "2")},
                  1 << 20,
                  2,
                  false,
                  {"a", "b"},
                  {}},
        GuardCase{"AlreadyOverAtSettleKeepsSettledFiles",
                  {{"a", k16}},
                  {W("b", "1")},
                  8,
                  0,
                  true,
                  {"a"},
                  {}},
        // fallocate -n into a new file: size 0, 256 KiB on disk.
        GuardCase{"PreallocatedNewFileGoes",
                  {{"a", k8}},
                  {P("p", 256 << 10)},
                  16 * kBlock,
                  0,
                  true,
                  {"a"},
                  {}},
        // The same into a settled file (its size and mtime may not change):
        // the file is cut back to its size, which frees those blocks.
        GuardCase{"BlocksPreallocatedIntoAnOldFileAreFreed",
                  {{"a", k8}, {"b", k8}},
                  {P("a", 256 << 10)},
                  16 * kBlock,
                  0,
                  true,
                  {"a", "b"},
                  {}},
        // 40 bytes by size, 40 blocks on disk.
        GuardCase{
            "OneByteFilesCountABlockEach", {}, OneByteFiles(40), 16 * kBlock, 0, true, {}, {}},
        GuardCase{"NewEmptyDirectoriesCountAndGo",
                  {{"a", k8}},
                  {D("d1"), D("d2"), D("d3/d4"), D("d5")},
                  4 * kBlock,
                  0,
                  true,
                  {"a"},
                  {}}),
    [](const ::testing::TestParamInfo<GuardCase>& info) { return std::string(info.param.name); });

TEST(VolumeGuardNoSettleTest, WithoutASettleEveryFileCountsAsNew) {
  char tmpl[] = "/tmp/coderunner-volguard-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/a") << std::string(10, 'a');
  isolation::VolumeMount v;
  v.quota_bytes = 4;
  VolumeGuard guard(dir, v);
  EXPECT_TRUE(guard.RollBackIfOver(false));
  EXPECT_FALSE(fs::exists(dir + "/a"));
  fs::remove_all(dir);
}

// A process a call left behind may write between the call's end and the
// settle that follows it (a loaded host): what it wrote over the quota is
// not the state to return to, and the rollback that follows removes it.
TEST_F(VolumeGuardTest, AVolumeOverItsQuotaIsNeverSettled) {
  Write("a", k8);
  isolation::VolumeMount v;
  v.id = "vol-test";
  v.quota_bytes = 2 * kBlock;
  VolumeGuard guard(dir_, v);
  guard.Settle();
  Write("late", k5000 + k5000);  // Three blocks: over the quota.
  guard.Settle();
  EXPECT_TRUE(guard.RollBackIfOver(false));
  EXPECT_EQ(Entries(false), std::set<std::string>{"a"});
  // Within the quota again, the volume settles as before.
  Write("b", k8);
  guard.Settle();
  EXPECT_FALSE(guard.RollBackIfOver(false));
  EXPECT_EQ(Entries(false), (std::set<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace coderunner::sandboxes
