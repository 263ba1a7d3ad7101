// The service's own files in an install's staging directory are written
// once: never over a file or through a link the install's uid left there.
#include "packages/install_process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace coderunner::packages {
namespace {

namespace fs = std::filesystem;

TEST(WriteNewFileTest, WritesANewFileOnlyAndOwnsItAsAsked) {
  char tmpl[] = "/tmp/coderunner-write-new-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/target") << "kept";
  fs::create_symlink(dir + "/target", dir + "/link");
  std::ofstream(dir + "/existing") << "kept";
  const struct {
    const char* name;
    int64_t uid;
    bool ok;
  } kCases[] = {
      {"fresh", 12345, true},   // Owned by the install's uid.
      {"root", -1, true},       // Left the service's.
      {"existing", -1, false},  // Never overwritten.
      {"link", 12345, false},   // Never followed.
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    Status written = WriteNewFile(dir + "/" + c.name, "text", c.uid);
    EXPECT_EQ(written.ok(), c.ok) << written.ToString();
    if (!c.ok) {
      EXPECT_EQ(written.reason(), "package_install_failed");
      continue;
    }
    struct stat st {};
    ASSERT_EQ(stat((dir + "/" + c.name).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);
    EXPECT_EQ(st.st_uid, c.uid < 0 ? getuid() : static_cast<uid_t>(c.uid));
  }
  std::stringstream target, existing;
  target << std::ifstream(dir + "/target").rdbuf();
  existing << std::ifstream(dir + "/existing").rdbuf();
  EXPECT_EQ(target.str(), "kept");
  EXPECT_EQ(existing.str(), "kept");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace coderunner::packages
