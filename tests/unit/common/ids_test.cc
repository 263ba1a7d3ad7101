#include "coderunner/common/ids.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace coderunner {
namespace {

TEST(IdsTest, NewIdIsPrefixDashAnd24LowerHex) {
  std::string id = NewId("job");
  ASSERT_EQ(id.size(), 4u + 24u);
  EXPECT_EQ(id.substr(0, 4), "job-");
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 4), std::string::npos);
}

TEST(IdsTest, NewIdDoesNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(seen.insert(NewId("x")).second);
}

TEST(IdsTest, IsIdAcceptsExactlyTheFormNewIdGives) {
  struct Case {
    std::string id;
    bool want;
  };
  const Case cases[] = {
      {NewId("sbx"), true},
      {"sbx-0123456789abcdef01234567", true},
      {"job-0123456789abcdef01234567", false},   // Another prefix.
      {"sbx-0123456789abcdef0123456", false},    // 23 hex digits.
      {"sbx-0123456789abcdef012345678", false},  // 25.
      {"sbx-0123456789ABCDEF01234567", false},   // Upper case.
      {"sbx_0123456789abcdef01234567", false},   // No dash.
      {"sbx-0123456789abcdef0123456/", false},
      {"sbx-../../../../../../metrics", false},
      {"", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    EXPECT_EQ(IsId("sbx", c.id), c.want);
  }
}

}  // namespace
}  // namespace coderunner
