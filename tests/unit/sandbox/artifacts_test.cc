#include "coderunner/sandbox/artifacts.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "coderunner/common/sha256.h"

namespace coderunner::sandbox {
namespace {

namespace fs = std::filesystem;

class ArtifactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-artifacts-XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string Dir() {
    auto d = CreateOutputDir(root_, "job-1", kUid);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : "";
  }
  static void Write(const std::string& path, const std::string& content) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << content;
  }

  static constexpr int64_t kUid = 2100000007;
  std::string root_;
};

TEST_F(ArtifactsTest, OutputDirIsPrivateToTheJobUidAndReplacesLeftovers) {
  std::string d = Dir();
  Write(d + "/old", "from an earlier attempt");
  d = Dir();
  struct stat st;
  ASSERT_EQ(lstat(d.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, static_cast<uid_t>(kUid));
  EXPECT_EQ(st.st_gid, static_cast<gid_t>(kUid));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(fs::is_empty(d));
  EXPECT_FALSE(CreateOutputDir(root_, "../escape", kUid).ok());
}

TEST_F(ArtifactsTest, KeptFilesAreHashedAndHandedToRoot) {
  std::string d = Dir();
  Write(d + "/b/data.bin", std::string(70000, 'z'));  // More than one read chunk.
  Write(d + "/a.txt", "hello");
  ASSERT_EQ(chmod((d + "/a.txt").c_str(), 04777), 0);
  auto set = CollectArtifacts(d, {});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->files.size(), 2u);
  EXPECT_EQ(set->files[0].path, "a.txt");
  EXPECT_EQ(set->files[0].sha256, Sha256Hex("hello"));
  EXPECT_EQ(set->files[1].path, "b/data.bin");
  EXPECT_EQ(set->files[1].sha256, Sha256Hex(std::string(70000, 'z')));
  EXPECT_EQ(set->total_bytes, 70005);
  struct stat st;
  ASSERT_EQ(lstat((d + "/a.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0600u);  // The setuid bit the job set is gone; root's alone.
  ASSERT_EQ(lstat(d.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(ArtifactsTest, CapsAreAppliedInPathOrderAndWhatIsDroppedIsRemoved) {
  struct Case {
    const char* what;
    ArtifactCaps caps;
    std::vector<std::string> kept;
    std::vector<std::string> reasons;
  };
  ArtifactCaps per_file;
  per_file.max_file_bytes = 10;
  ArtifactCaps total;
  total.max_total_bytes = 12;
  ArtifactCaps count;
  count.max_files = 2;
  const Case cases[] = {
      {"per file", per_file, {"a", "c"}, {"file_too_large"}},
      {"total", total, {"a", "b"}, {"total_too_large"}},
      {"count", count, {"a", "b"}, {"too_many_files"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string d = Dir();
    Write(d + "/a", std::string(5, 'a'));
    Write(d + "/b", std::string(7, 'b'));
    Write(d + "/c", std::string(3, 'c'));
    if (std::string(c.what) == "per file") Write(d + "/b", std::string(11, 'b'));
    auto set = CollectArtifacts(d, c.caps);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    std::vector<std::string> kept;
    for (const auto& f : set->files) kept.push_back(f.path);
    EXPECT_EQ(kept, c.kept);
    std::vector<std::string> reasons;
    for (const auto& p : set->skipped) reasons.push_back(p.reason);
    EXPECT_EQ(reasons, c.reasons);
    std::vector<std::string> on_disk;
    for (const auto& e : fs::directory_iterator(d)) on_disk.push_back(e.path().filename());
    std::sort(on_disk.begin(), on_disk.end());
    EXPECT_EQ(on_disk, c.kept);
  }
}

TEST_F(ArtifactsTest, NothingKeptRemovesTheDirectory) {
  std::string d = Dir();
  fs::create_symlink("/etc/passwd", d + "/link");
  auto set = CollectArtifacts(d, {});
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->files.empty());
  ASSERT_EQ(set->skipped.size(), 1u);
  EXPECT_EQ(set->skipped[0].reason, "symlink");
  EXPECT_FALSE(fs::exists(d));
  EXPECT_TRUE(fs::exists("/etc/passwd"));
}

}  // namespace
}  // namespace coderunner::sandbox
