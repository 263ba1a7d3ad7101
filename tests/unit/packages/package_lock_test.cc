// The lock a result records is what a replay reads back: the same entries,
// and nothing that could reach pip as anything but a name, a version and
// a hash.
#include <gtest/gtest.h>

#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {
namespace {

using nlohmann::json;

const std::string kSha(64, 'a');

TEST(PackageLockTest, ALockReadsBackAsItWasRecordedSortedByName) {
  const std::vector<LockedPackage> lock = {{"crtiny", "1.1", kSha, "", ""},
                                           {"crdepends", "2.0", kSha, "", ""}};
  auto back = ParseLock(Ecosystem::kPython, LockToJson(lock));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, (std::vector<LockedPackage>{lock[1], lock[0]}));
  EXPECT_TRUE(ParseLock(Ecosystem::kPython, nullptr)->empty());  // No pins.
}

TEST(PackageLockTest, AnEntryThatIsNotANameAVersionAndAHashIsRefused) {
  const json kBad[] = {
      json::object(),
      json::array({"crtiny==1.1"}),
      json::array({{{"name", "crtiny"}, {"version", "1.1"}}}),
      json::array({{{"name", "crtiny"}, {"version", "1.1"}, {"sha256", "ABC"}}}),
      json::array({{{"name", "crtiny"}, {"version", "1.1"}, {"sha256", std::string(64, 'A')}}}),
      json::array({{{"name", "--index-url"}, {"version", "1"}, {"sha256", kSha}}}),
      json::array({{{"name", "crtiny"}, {"version", "1 --hash=x"}, {"sha256", kSha}}}),
      json::array({{{"name", "crtiny"}, {"version", "1.1\n-r /etc/passwd"}, {"sha256", kSha}}}),
  };
  for (const auto& bad : kBad) {
    SCOPED_TRACE(bad.dump());
    auto lock = ParseLock(Ecosystem::kPython, bad);
    ASSERT_FALSE(lock.ok());
    EXPECT_EQ(lock.status().reason(), kReasonInvalidPackage);
  }
}

}  // namespace
}  // namespace coderunner::packages
