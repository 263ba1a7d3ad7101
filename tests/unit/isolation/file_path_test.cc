#include "coderunner/isolation/file_path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::isolation {
namespace {

using namespace std::string_literals;

TEST(FilePathTest, AcceptsSafeRelativePaths) {
  struct Case {
    std::string path;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"main.py", {"main.py"}},
      {"data/input.txt", {"data", "input.txt"}},
      {"a/b/c/d", {"a", "b", "c", "d"}},
      {".hidden", {".hidden"}},
      {"...", {"..."}},
      {"..a", {"..a"}},
      {"a..", {"a.."}},
      {"dir/.coderunner-not-reserved-when-nested", {"dir", ".coderunner-not-reserved-when-nested"}},
      {"coderunner", {"coderunner"}},
      {"sp ace", {"sp ace"}},
      {"ünïcødé/文件.txt", {"ünïcødé", "文件.txt"}},
      {std::string(255, 'x'), {std::string(255, 'x')}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    auto parts = SplitSafeRelativePath(c.path, 16);
    ASSERT_TRUE(parts.ok()) << parts.status().ToString();
    EXPECT_EQ(*parts, c.parts);
  }
}

TEST(FilePathTest, RejectsHostilePaths) {
  std::string deep17;
  for (int i = 0; i < 17; ++i) deep17 += (i ? "/d" : "d");
  std::string long_total;  // 1025 bytes in components of 100.
  while (long_total.size() < 1025) long_total += std::string(99, 'a') + "/";
  long_total.resize(1025);
  if (long_total.back() == '/') long_total.back() = 'a';
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"empty", ""},
      {"absolute", "/etc/passwd"},
      {"root", "/"},
      {"dot-dot", ".."},
      {"dot-dot prefix", "../x"},
      {"dot-dot inside", "a/../../x"},
      {"dot-dot at end", "a/.."},
      {"dot", "."},
      {"dot component", "a/./b"},
      {"leading dot slash", "./a"},
      {"empty component", "a//b"},
      {"trailing slash", "a/"},
      {"NUL", "a\0b"s},
      {"NUL at end", "a\0"s},
      {"newline", "a\nb"},
      {"tab", "a\tb"},
      {"escape", "a\x1b[0m"},
      {"DEL", "a\x7f"},
      {"backslash", "a\\b"},
      {"windows traversal", "..\\..\\x"},
      {"too deep", deep17},
      {"component too long", std::string(256, 'x')},
      {"too long overall", long_total},
  };
  for (const auto& [name, path] : cases) {
    SCOPED_TRACE(name);
    auto parts = SplitSafeRelativePath(path, 16);
    ASSERT_FALSE(parts.ok());
    EXPECT_EQ(parts.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parts.status().reason(), "invalid_path");
  }
}

TEST(FilePathTest, ReservedNamesAreOnlyTheFirstComponentsDotCoderunnerPrefix) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {".coderunner", true},        {".coderunner-stdin", true}, {".coderunner-x/file", true},
      {".coderunnerish", true},     {"coderunner", false},       {"x.coderunner", false},
      {"dir/.coderunner-x", false}, {".Coderunner", false},      {"main.py", false},
  };
  for (const auto& [path, reserved] : cases) {
    SCOPED_TRACE(path);
    EXPECT_EQ(IsReservedPath(path), reserved);
    // Reservation is a separate check: the service itself writes such files
    // through the same path validation.
    EXPECT_TRUE(SplitSafeRelativePath(path, 16).ok());
  }
}

TEST(FilePathTest, DepthLimitIsInclusive) {
  EXPECT_TRUE(SplitSafeRelativePath("a/b/c", 3).ok());
  EXPECT_FALSE(SplitSafeRelativePath("a/b/c/d", 3).ok());
  EXPECT_TRUE(SplitSafeRelativePath("a", 1).ok());
  EXPECT_FALSE(SplitSafeRelativePath("a/b", 1).ok());
}

TEST(FilePathTest, LengthLimitIsInclusiveAt1024) {
  std::string path;
  while (path.size() < 1024) path += std::string(200, 'a') + "/";
  path.resize(1024);
  ASSERT_NE(path.back(), '/');
  EXPECT_TRUE(SplitSafeRelativePath(path, 16).ok());
  EXPECT_FALSE(SplitSafeRelativePath(path + "a", 16).ok());
}

TEST(FilePathTest, ErrorMessageEscapesControlBytesAndIsBounded) {
  auto parts = SplitSafeRelativePath("a\x01\n" + std::string(500, 'z'), 16);
  ASSERT_FALSE(parts.ok());
  const std::string& msg = parts.status().message();
  EXPECT_NE(msg.find("\\x01\\x0a"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_LT(msg.size(), 200u);
}

}  // namespace
}  // namespace coderunner::isolation
