// pip is told every manylinux tag the image's glibc runs, not only its own.
#include "packages/platform_tags.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace coderunner::packages {
namespace {

bool Has(const std::vector<std::string>& tags, const std::string& tag) {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

TEST(PlatformTagsTest, AGlibcTagAlsoNamesEveryOlderOneAndTheirLegacyNames) {
  const auto tags = ExpandPlatforms({"manylinux_2_36_x86_64", "linux_x86_64"});
  EXPECT_EQ(tags.front(), "manylinux_2_36_x86_64");
  EXPECT_EQ(tags.back(), "linux_x86_64");
  for (const char* t : {"manylinux_2_35_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
                        "manylinux_2_12_x86_64", "manylinux2010_x86_64", "manylinux_2_5_x86_64",
                        "manylinux1_x86_64"}) {
    EXPECT_TRUE(Has(tags, t)) << t;
  }
  EXPECT_FALSE(Has(tags, "manylinux_2_37_x86_64"));
  EXPECT_FALSE(Has(tags, "manylinux_2_4_x86_64"));
  EXPECT_EQ(tags.size(), 32u + 3u + 1u);  // 2_36..2_5, three legacy names, linux.
}

TEST(PlatformTagsTest, OtherTagsPassAsGivenOnceEach) {
  EXPECT_EQ(ExpandPlatforms({"linux_aarch64", "any", "linux_aarch64"}),
            (std::vector<std::string>{"linux_aarch64", "any"}));
  EXPECT_EQ(ExpandPlatforms({"manylinux_2_5_aarch64"}),
            (std::vector<std::string>{"manylinux_2_5_aarch64", "manylinux1_aarch64"}));
  EXPECT_EQ(ExpandPlatforms({"manylinux2014_x86_64"}),
            (std::vector<std::string>{"manylinux2014_x86_64"}));  // pip expands legacy names.
}

}  // namespace
}  // namespace coderunner::packages
