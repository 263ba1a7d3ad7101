// The installer's process is bounded from outside: its uid, its time and
// the bytes it writes, and nothing it started outlives it.
#include "packages/install_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace coderunner::packages {
namespace {

namespace fs = std::filesystem;

class InstallProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to change uid";
    char tmpl[] = "/tmp/coderunner-install-XXXXXX";
    dir_ = mkdtemp(tmpl);
    ASSERT_EQ(chown(dir_.c_str(), kUid, kUid), 0);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  InstallCommand Shell(const std::string& script) const {
    InstallCommand cmd;
    cmd.argv = {"/bin/sh", "-c", script};
    cmd.env = {"PATH=/usr/bin:/bin"};
    cmd.cwd = dir_;
    cmd.uid = kUid;
    cmd.watched_dir = dir_;
    cmd.max_bytes = 1 << 20;
    cmd.timeout = std::chrono::milliseconds(20000);
    return cmd;
  }
  static constexpr int64_t kUid = 65534;
  std::string dir_;
};

TEST_F(InstallProcessTest, ItRunsAsItsUidWithNoGroupsAndAClearUmask) {
  auto run = RunInstall(Shell("id -u; id -G; umask; echo to-stderr >&2; exit 3"));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_EQ(run->output, "65534\n65534\n0022\nto-stderr\n");
}

TEST_F(InstallProcessTest, TheTimeoutKillsTheWholeGroup) {
  // A child that would outlive the shell, in the same group.
  auto run = RunInstall([&] {
    InstallCommand cmd = Shell("sleep 60 & echo $! > pid; wait");
    cmd.timeout = std::chrono::milliseconds(500);
    return cmd;
  }());
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->timed_out);
  EXPECT_EQ(run->exit_code, -1);
  std::ifstream in(dir_ + "/pid");
  pid_t sleeper = 0;
  in >> sleeper;
  ASSERT_GT(sleeper, 0);
  // Gone, or a zombie about to be reaped by init: never still sleeping.
  std::ifstream stat("/proc/" + std::to_string(sleeper) + "/stat");
  std::string pid, comm, state;
  stat >> pid >> comm >> state;
  EXPECT_TRUE(state.empty() || state == "Z") << state;
}

TEST_F(InstallProcessTest, WritingPastTheBoundEndsIt) {
  // One file past RLIMIT_FSIZE: the write fails (SIGXFSZ ignored) or kills.
  auto one = RunInstall(Shell("trap '' XFSZ; head -c 3000000 /dev/zero > big; echo rc=$?"));
  ASSERT_TRUE(one.ok());
  EXPECT_LE(fs::file_size(dir_ + "/big"), uintmax_t{1} << 20);
  // Many files under the bound each: the watch ends it.
  auto many =
      RunInstall(Shell("i=0; while [ $i -lt 400 ]; do head -c 65536 /dev/urandom > f$i; "
                       "i=$((i+1)); done; sleep 30"));
  ASSERT_TRUE(many.ok());
  EXPECT_TRUE(many->too_large);
  EXPECT_FALSE(many->timed_out);
}

TEST_F(InstallProcessTest, TreeBytesCountsAllocatedBlocksWithoutFollowingLinks) {
  std::ofstream(dir_ + "/a") << std::string(10000, 'x');
  fs::create_symlink("/usr", dir_ + "/link");
  const int64_t bytes = TreeBytes(dir_);
  EXPECT_GE(bytes, 10000);
  EXPECT_LT(bytes, 1 << 20);
  EXPECT_EQ(TreeBytes(dir_ + "/missing"), 0);
}

}  // namespace
}  // namespace coderunner::packages
