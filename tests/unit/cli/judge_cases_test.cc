// `coderunner judge`: its command line, and how it finds the cases of a
// directory.
#include "cli/judge_cases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/args.h"

namespace coderunner::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(ParseJudgeArgsTest, EveryOptionLandsInItsField) {
  auto r = ParseJudgeArgs({"--lang", "cpp", "--compare", "numbers", "--tolerance", "1e-4", "--stop",
                           "--timeout", "500", "--memory", "1048576", "a.cc", "cases"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->language, "cpp");
  EXPECT_EQ(r->compare, "numbers");
  EXPECT_DOUBLE_EQ(*r->tolerance, 1e-4);
  EXPECT_TRUE(r->stop);
  EXPECT_EQ(r->timeout_ms, 500);
  EXPECT_EQ(r->memory_bytes, 1048576);
  EXPECT_EQ(r->source, "a.cc");
  EXPECT_EQ(r->cases_dir, "cases");
}

TEST(ParseJudgeArgsTest, BadCommandLinesAreUsageErrorsNamingWhatIsWrong) {
  struct Row {
    std::vector<std::string> argv;
    const char* names;
  };
  const Row rows[] = {
      {{}, "directory of cases"},
      {{"a.py"}, "directory of cases"},
      {{"a.py", "cases", "extra"}, "extra"},
      {{"--tolerance", "-1", "a.py", "cases"}, "--tolerance"},
      {{"--tolerance", "x", "a.py", "cases"}, "--tolerance"},
      {{"--timeout", "0", "a.py", "cases"}, "--timeout"},
      {{"--frobnicate", "a.py", "cases"}, "--frobnicate"},
  };
  for (const Row& row : rows) {
    auto r = ParseJudgeArgs(row.argv);
    ASSERT_FALSE(r.ok()) << ::testing::PrintToString(row.argv);
    EXPECT_EQ(r.status().reason(), "usage");
    EXPECT_THAT(r.status().message(), HasSubstr(row.names));
  }
}

TEST(NaturalLessTest, DigitRunsCompareAsNumbers) {
  std::vector<std::string> names = {"10", "2", "1", "a10", "a9", "b", "02", "a"};
  std::sort(names.begin(), names.end(), NaturalLess);
  EXPECT_EQ(names, (std::vector<std::string>{"1", "02", "2", "10", "a", "a9", "a10", "b"}));
}

class FindCasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-cases-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name) { std::ofstream(dir_ + "/" + name) << name; }
  std::string dir_;
};

TEST_F(FindCasesTest, EachExpectedOutputIsACaseWithItsInputIfAny) {
  for (const char* f : {"10.in", "10.out", "2.in", "2.ans", "empty.out", "notes.txt"}) Write(f);
  fs::create_directory(dir_ + "/sub.out");
  auto cases = FindCases(dir_);
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  ASSERT_EQ(cases->size(), 3u);
  EXPECT_EQ((*cases)[0].name, "2");
  EXPECT_EQ((*cases)[0].input, dir_ + "/2.in");
  EXPECT_EQ((*cases)[0].expected, dir_ + "/2.ans");
  EXPECT_EQ((*cases)[1].name, "10");
  EXPECT_EQ((*cases)[2].name, "empty");
  EXPECT_EQ((*cases)[2].input, "");
}

TEST_F(FindCasesTest, ADirectoryThatCannotBeJudgedSaysWhy) {
  struct Row {
    std::vector<const char*> files;
    const char* names;
  };
  const Row rows[] = {
      {{}, "no cases"},
      {{"1.in"}, "has no 1.out"},
      {{"1.out", "1.ans"}, "both"},
  };
  for (const Row& row : rows) {
    fs::remove_all(dir_);
    fs::create_directory(dir_);
    for (const char* f : row.files) Write(f);
    auto cases = FindCases(dir_);
    ASSERT_FALSE(cases.ok()) << row.names;
    EXPECT_EQ(cases.status().reason(), "usage");
    EXPECT_THAT(cases.status().message(), HasSubstr(row.names));
  }
  auto missing = FindCases(dir_ + "/nowhere");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot read"));
}

}  // namespace
}  // namespace coderunner::cli
