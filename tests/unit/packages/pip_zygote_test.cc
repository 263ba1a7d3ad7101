// An install runs in a child of the pip zygote, bounded from outside: its
// uid, its time and the bytes it writes, and nothing it started outlives
// it. The zygote is the real one, on the host's Python and pip.
#include "packages/pip_zygote.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace coderunner::packages {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kUid = 65534;

class PipZygoteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) return;
    auto z = PipZygote::Start("/usr/bin/python3");
    ASSERT_TRUE(z.ok()) << z.status().ToString();
    zygote_ = z->release();
  }
  static void TearDownTestSuite() {
    delete zygote_;
    zygote_ = nullptr;
  }
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
    cmd.env = {{"PATH", "/usr/bin:/bin"}};
    cmd.cwd = dir_;
    cmd.uid = kUid;
    cmd.output_path = dir_ + "/out.log";
    cmd.watched_dir = dir_;
    cmd.max_bytes = 1 << 20;
    cmd.timeout = std::chrono::milliseconds(20000);
    return cmd;
  }
  static PipZygote* zygote_;
  std::string dir_;
};

PipZygote* PipZygoteTest::zygote_ = nullptr;

TEST_F(PipZygoteTest, AnInstallRunsAsItsUidWithNoGroupsAClearUmaskAndOnlyItsEnvironment) {
  auto run = zygote_->Run(Shell("id -u; id -G; umask; env | sort; echo to-stderr >&2; exit 3"));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_EQ(run->output, "65534\n65534\n0022\nPATH=/usr/bin:/bin\nPWD=" + dir_ + "\nto-stderr\n");
}

TEST_F(PipZygoteTest, PipItselfRunsInTheChild) {
  InstallCommand cmd = Shell("");
  cmd.argv = {kZygotePip, "--version"};
  auto run = zygote_->Run(cmd);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->exit_code, 0) << run->output;
  EXPECT_EQ(run->output.rfind("pip ", 0), 0u) << run->output;
}

TEST_F(PipZygoteTest, TheTimeoutKillsTheWholeGroup) {
  InstallCommand cmd = Shell("sleep 60 & echo $! > pid; wait");
  cmd.timeout = std::chrono::milliseconds(500);
  auto run = zygote_->Run(cmd);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->timed_out);
  EXPECT_EQ(run->exit_code, -1);
  std::ifstream in(dir_ + "/pid");
  pid_t sleeper = 0;
  in >> sleeper;
  ASSERT_GT(sleeper, 0);
  // Gone, or a zombie about to be reaped: never still sleeping. (Killed,
  // it may still be on its way out, running: seen under the sanitizers.)
  auto state_of = [&] {
    std::ifstream stat("/proc/" + std::to_string(sleeper) + "/stat");
    std::string pid, comm, state;
    stat >> pid >> comm >> state;
    return state;
  };
  std::string state = state_of();
  for (int i = 0; i < 500 && state == "R"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    state = state_of();
  }
  EXPECT_TRUE(state.empty() || state == "Z") << state;
}

TEST_F(PipZygoteTest, WritingPastTheBoundEndsIt) {
  // One file past RLIMIT_FSIZE: the write fails (SIGXFSZ ignored) or kills.
  auto one = zygote_->Run(Shell("trap '' XFSZ; head -c 3000000 /dev/zero > big; echo rc=$?"));
  ASSERT_TRUE(one.ok());
  EXPECT_LE(fs::file_size(dir_ + "/big"), uintmax_t{1} << 20);
  // Many files under the bound each: the service's watch ends it.
  fs::remove(dir_ + "/out.log");
  auto many =
      zygote_->Run(Shell("i=0; while [ $i -lt 400 ]; do head -c 65536 /dev/urandom > f$i; "
                         "i=$((i+1)); done; sleep 30"));
  ASSERT_TRUE(many.ok());
  EXPECT_TRUE(many->too_large);
  EXPECT_FALSE(many->timed_out);
}

TEST_F(PipZygoteTest, AnInstallThatEndsPastTheBoundBeforeAnyWatchIsTooLarge) {
  // Two files under the bound each, together over it, written and done
  // long before the watch's first look (an npm install of one big
  // package: its tarball in the cache, and unpacked).
  auto run = zygote_->Run(
      Shell("head -c 700000 /dev/urandom > a; head -c 700000 /dev/urandom > b; exit 0"));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->too_large);
  EXPECT_EQ(run->exit_code, -1);
}

TEST_F(PipZygoteTest, InstallsRunSideBySide) {
  std::vector<std::thread> threads;
  std::vector<int> codes(4, -2);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      InstallCommand cmd = Shell("sleep 0.3; exit " + std::to_string(10 + i));
      cmd.output_path = dir_ + "/out" + std::to_string(i) + ".log";
      auto run = zygote_->Run(cmd);
      codes[i] = run.ok() ? run->exit_code : -3;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(codes, (std::vector<int>{10, 11, 12, 13}));
}

TEST_F(PipZygoteTest, WhatTheInstallLeftIsReadWithoutFollowingLinks) {
  std::ofstream(dir_ + "/a") << std::string(10000, 'x');
  fs::create_symlink("/etc/hostname", dir_ + "/link");
  EXPECT_EQ(ReadTail(dir_ + "/link", 100), "");
  EXPECT_EQ(ReadTail(dir_ + "/a", 3), "xxx");
  const int64_t bytes = TreeBytes(dir_);
  EXPECT_GE(bytes, 10000);
  EXPECT_LT(bytes, 1 << 20);
  EXPECT_EQ(TreeBytes(dir_ + "/missing"), 0);
}

}  // namespace
}  // namespace coderunner::packages
