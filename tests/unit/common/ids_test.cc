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

}  // namespace
}  // namespace coderunner
