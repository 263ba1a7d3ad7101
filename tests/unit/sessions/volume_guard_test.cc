#include "coderunner/sessions/volume_guard.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace coderunner::sessions {
namespace {

namespace fs = std::filesystem;

struct GuardCase {
  const char* name;
  std::vector<std::pair<std::string, std::string>> before;  // Settled files: path, content.
  std::vector<std::pair<std::string, std::string>> writes;  // Written after Settle().
  int64_t quota_bytes;
  int64_t max_files;
  bool want_rolled_back;
  std::set<std::string> want_files;  // What remains.
};

class VolumeGuardTest : public ::testing::TestWithParam<GuardCase> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-volguard-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& path, const std::string& content) {
    fs::path p = fs::path(dir_) / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  }

  std::set<std::string> Files() {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir_).string());
    }
    return out;
  }

  std::string dir_;
};

TEST_P(VolumeGuardTest, RollsBackOnlyWhatBrokeTheQuotaSinceTheLastSettle) {
  const GuardCase& c = GetParam();
  for (const auto& [path, content] : c.before) Write(path, content);
  sandbox::VolumeMount v;
  v.id = "vol-test";
  v.quota_bytes = c.quota_bytes;
  v.max_files = c.max_files;
  VolumeGuard guard(dir_, v);
  guard.Settle();
  for (const auto& [path, content] : c.writes) Write(path, content);
  EXPECT_EQ(guard.RollBackIfOver(), c.want_rolled_back);
  EXPECT_EQ(Files(), c.want_files);
}

const std::string k8(8, 'x');
const std::string k16(16, 'y');

INSTANTIATE_TEST_SUITE_P(
    Cases, VolumeGuardTest,
    ::testing::Values(
        GuardCase{"UnderQuotaKeepsEverything", {{"a", k8}}, {{"b", k8}}, 32, 0, false, {"a", "b"}},
        GuardCase{"ExactlyAtQuotaIsNotOver", {{"a", k8}}, {{"b", k8}}, 16, 0, false, {"a", "b"}},
        GuardCase{"NewFileOverQuotaGoesOldStays", {{"a", k8}}, {{"b", k16}}, 16, 0, true, {"a"}},
        GuardCase{"GrownOldFileGoes", {{"a", k8}, {"b", k8}}, {{"a", k16}}, 20, 0, true, {"b"}},
        GuardCase{"NestedNewFilesGo",
                  {{"keep/x", k8}},
                  {{"deep/er/y", k16}, {"keep/z", k8}},
                  24,
                  0,
                  true,
                  {"keep/x"}},
        GuardCase{"TooManyFilesRollsBackNewOnes",
                  {{"a", "1"}},
                  {{"b", "2"}, {"c", "3"}},
                  1000,
                  2,
                  true,
                  {"a"}},
        GuardCase{
            "FileCountAtBoundIsNotOver", {{"a", "1"}}, {{"b", "2"}}, 1000, 2, false, {"a", "b"}},
        GuardCase{
            "AlreadyOverAtSettleKeepsSettledFiles", {{"a", k16}}, {{"b", "1"}}, 8, 0, true, {"a"}}),
    [](const ::testing::TestParamInfo<GuardCase>& info) { return std::string(info.param.name); });

TEST(VolumeGuardNoSettleTest, WithoutASettleEveryFileCountsAsNew) {
  char tmpl[] = "/tmp/coderunner-volguard-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/a") << std::string(10, 'a');
  sandbox::VolumeMount v;
  v.quota_bytes = 4;
  VolumeGuard guard(dir, v);
  EXPECT_TRUE(guard.RollBackIfOver());
  EXPECT_FALSE(fs::exists(dir + "/a"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace coderunner::sessions
