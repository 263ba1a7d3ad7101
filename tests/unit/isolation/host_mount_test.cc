// EnsureNosuidNodev on real mounts (needs root: skipped otherwise). Every
// mount a case makes is detached at the end.
#include "coderunner/isolation/host_mount.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

unsigned long Flags(const std::string& dir) {
  struct statvfs vfs;
  return statvfs(dir.c_str(), &vfs) == 0 ? vfs.f_flag : 0;
}

class HostMountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting needs root";
    char tmpl[] = "/tmp/coderunner-hostmount-XXXXXX";
    base_ = mkdtemp(tmpl);
    if ((Flags(base_) & (ST_NOSUID | ST_NODEV)) == (ST_NOSUID | ST_NODEV)) {
      GTEST_SKIP() << "/tmp is already nosuid,nodev here";
    }
  }
  void TearDown() override {
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) umount2(it->c_str(), MNT_DETACH);
    if (!base_.empty()) fs::remove_all(base_);
  }

  std::string base_;
  std::vector<std::string> made_;  // Mount points to detach, in order made.
};

TEST_F(HostMountTest, MakesADirectoryNosuidNodevOnceAndKeepsItsOtherFlags) {
  const std::string plain = base_ + "/plain", ro = base_ + "/ro";
  fs::create_directories(plain + "/sub");
  fs::create_directories(ro);
  // A read-only mount must stay read-only.
  ASSERT_EQ(mount(ro.c_str(), ro.c_str(), nullptr, MS_BIND, nullptr), 0);
  made_.push_back(ro);
  ASSERT_EQ(mount(nullptr, ro.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr), 0);
  struct Case {
    std::string dir;
    bool want_mounted;
    bool want_rdonly;
  };
  const Case cases[] = {
      {plain, true, false},
      {plain, false, false},           // Already done: nothing more.
      {plain + "/sub", false, false},  // Below it: inherits it.
      {ro, true, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dir);
    bool mounted = !c.want_mounted;
    Status s = EnsureNosuidNodev(c.dir, &mounted);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (mounted) made_.push_back(c.dir);
    EXPECT_EQ(mounted, c.want_mounted);
    unsigned long f = Flags(c.dir);
    EXPECT_EQ(f & (ST_NOSUID | ST_NODEV), ST_NOSUID | ST_NODEV);
    EXPECT_EQ((f & ST_RDONLY) != 0, c.want_rdonly);
  }
  // What is outside the directory is untouched.
  EXPECT_EQ(Flags(base_) & (ST_NOSUID | ST_NODEV), 0u);
}

TEST_F(HostMountTest, AMissingDirectoryIsRefusedWithTheFix) {
  Status s = EnsureNosuidNodev(base_ + "/missing");
  EXPECT_EQ(s.reason(), "output_mount_unsafe");
  EXPECT_NE(s.message().find("mount -o remount,bind,nosuid,nodev"), std::string::npos);
}

}  // namespace
}  // namespace coderunner::isolation
