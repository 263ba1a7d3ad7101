// What SandboxFiles decides on the host: the absolute path a client's path
// means inside the sandbox, and the entries `find -printf` printed there.
#include "coderunner/sandboxes/sandbox_files.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::sandboxes {
namespace {

TEST(SandboxPathTest, RelativePathsAreUnderHomeAndDotsResolveLexically) {
  struct Case {
    std::string in;
    bool ok;
    const char* out;
  };
  const Case cases[] = {
      {"a.txt", true, "/home/user/a.txt"},
      {"notes/a.txt", true, "/home/user/notes/a.txt"},
      {"./notes//a.txt/", true, "/home/user/notes/a.txt"},
      {"../../etc/passwd", true, "/etc/passwd"},  // Inside the container: allowed.
      {"/tmp/x", true, "/tmp/x"},
      {"/", true, "/"},
      {"/../..", true, "/"},
      {".", true, "/home/user"},
      {"", false, ""},
      {std::string("a\0b", 3), false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    auto p = SandboxPath(c.in);
    ASSERT_EQ(p.ok(), c.ok);
    if (c.ok) {
      EXPECT_EQ(*p, c.out);
    }
  }
}

TEST(ParseEntriesTest, ReadsEachFieldAndRefusesPartialOutput) {
  const std::string one(
      "f\0"
      "5\0"
      "644\0"
      "-rw-r--r--\0"
      "u\0"
      "g\0"
      "1700000000.25\0"
      "/home/user/a.txt\0"
      "a.txt\0"
      "\0",
      61);
  const std::string link(
      "l\0"
      "4\0"
      "777\0"
      "lrwxrwxrwx\0"
      "u\0"
      "g\0"
      "1\0"
      "/home/user/l\0"
      "l\0"
      "/etc\0",
      45);
  auto entries = ParseEntries(one + link);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 2u);
  const EntryInfo& a = (*entries)[0];
  EXPECT_EQ(a.type, EntryType::kFile);
  EXPECT_EQ(a.size, 5);
  EXPECT_EQ(a.mode, 0644u);
  EXPECT_EQ(a.permissions, "-rw-r--r--");
  EXPECT_EQ(a.modified_ms, 1700000000250);
  EXPECT_EQ(a.path, "/home/user/a.txt");
  EXPECT_EQ(a.name, "a.txt");
  EXPECT_EQ((*entries)[1].type, EntryType::kSymlink);
  EXPECT_EQ((*entries)[1].symlink_target, "/etc");
  EXPECT_TRUE(ParseEntries("")->empty());
  EXPECT_FALSE(ParseEntries(one.substr(0, one.size() - 1)).ok());  // Unterminated.
  EXPECT_FALSE(ParseEntries(one + std::string("f\0", 2)).ok());    // A partial entry.
}

}  // namespace
}  // namespace coderunner::sandboxes
