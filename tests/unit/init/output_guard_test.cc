// coderunner-init's /output policing (src/init/output_guard.c), exercised
// by running the real static binary on a scratch directory. Outside a PID
// namespace of its own it kills only the job's main process, so these runs
// are safe on the host.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "coderunner/sandbox/init_trailer.h"

extern char** environ;

namespace coderunner::sandbox {
namespace {

namespace fs = std::filesystem;

struct InitRun {
  int status = -1;
  std::string stderr_text;
  std::optional<InitTrailer> trailer;
};

// Runs coderunner-init with `args`, calling `while_running` with its pid
// once it has started, and collects its stderr and exit status.
InitRun RunInit(const std::vector<std::string>& args,
                const std::function<void(pid_t)>& while_running = nullptr) {
  std::vector<std::string> all = {CODERUNNER_INIT_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipefd[2];
  EXPECT_EQ(pipe(pipefd), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipefd[0]);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(pipefd[1]);
  if (while_running) while_running(pid);
  InitRun run;
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) run.stderr_text.append(buf, n);
  close(pipefd[0]);
  waitpid(pid, &run.status, 0);
  run.trailer = ParseInitTrailer(run.stderr_text);
  return run;
}

class OutputGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-guard-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(OutputGuardTest, BoundsStopTheJobWithTheBoundItBroke) {
  struct Case {
    const char* what;
    std::vector<std::string> bounds;
    std::string script;  // $D is the directory. Ends in a long sleep unless stopped.
    std::string violation;
  };
  const Case cases[] = {
      {"within bounds", {"-q", "1000", "-f", "100", "-n", "10"}, "echo hi > $D/a", ""},
      {"one file too large",
       {"-f", "100"},
       "head -c 5000 /dev/zero > $D/a; exec sleep 30",
       "file_too_large"},
      {"all files too large",
       {"-q", "1000"},
       "for i in 1 2 3; do head -c 500 /dev/zero > $D/f$i; done; exec sleep 30",
       "too_large"},
      {"too many entries",
       {"-n", "5"},
       "for i in 1 2 3 4 5 6 7 8 9 10; do touch $D/f$i; done; exec sleep 30",
       "too_many_files"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::vector<std::string> args = {"-e", "D=" + dir_, "-e", "PATH=/usr/bin:/bin", "-o", dir_};
    args.insert(args.end(), c.bounds.begin(), c.bounds.end());
    for (const char* a : {"--", "sh", "-c"}) args.push_back(a);
    args.push_back(c.script);
    InitRun run = RunInit(args);
    ASSERT_TRUE(run.trailer) << run.stderr_text;
    EXPECT_EQ(run.trailer->output_violation, c.violation);
    if (c.violation.empty()) {
      EXPECT_EQ(run.trailer->exit_code, 0);
      EXPECT_EQ(run.trailer->output_bytes, 3);
      EXPECT_EQ(run.trailer->output_entries, 1);
    } else {
      EXPECT_EQ(run.trailer->signal, SIGKILL) << "the job must be stopped, not left to finish";
    }
  }
}

TEST_F(OutputGuardTest, VolumeModeRollsBackTheGrowthOfARunOverQuota) {
  std::ofstream(dir_ + "/old") << std::string(100, 'o');
  std::ofstream(dir_ + "/grow") << std::string(10, 'g');
  InitRun run = RunInit({"-e", "D=" + dir_, "-e", "PATH=/usr/bin:/bin", "-o", dir_, "-q", "1000",
                         "-r", "--", "sh", "-c",
                         "head -c 50 /dev/zero >> $D/grow; mkdir -p $D/new/deeper; "
                         "ln -s /etc/passwd $D/new/link; head -c 2000 /dev/zero > $D/new/big; "
                         "exec sleep 30"});
  ASSERT_TRUE(run.trailer) << run.stderr_text;
  EXPECT_EQ(run.trailer->output_violation, "too_large");
  EXPECT_TRUE(run.trailer->output_rolled_back);
  EXPECT_EQ(run.trailer->output_bytes, 110);
  EXPECT_EQ(fs::file_size(dir_ + "/old"), 100u);
  EXPECT_EQ(fs::file_size(dir_ + "/grow"), 10u);
  EXPECT_FALSE(fs::exists(dir_ + "/new"));
  EXPECT_TRUE(fs::exists("/etc/passwd"));
}

TEST_F(OutputGuardTest, VolumeModeKeepsARunWithinQuota) {
  InitRun run = RunInit({"-e", "D=" + dir_, "-e", "PATH=/usr/bin:/bin", "-o", dir_, "-q", "1000",
                         "-r", "--", "sh", "-c", "echo kept > $D/k"});
  ASSERT_TRUE(run.trailer) << run.stderr_text;
  EXPECT_EQ(run.trailer->output_violation, "");
  EXPECT_FALSE(run.trailer->output_rolled_back);
  EXPECT_TRUE(fs::exists(dir_ + "/k"));
}

TEST_F(OutputGuardTest, Sigusr1StopsTheJobAndStillChecksTheOutput) {
  InitRun run = RunInit({"-e", "D=" + dir_, "-e", "PATH=/usr/bin:/bin", "-o", dir_, "-q", "1000",
                         "-r", "--", "sh", "-c", "echo started > $D/s; exec sleep 30"},
                        [&](pid_t pid) {
                          // The service only signals a job that has started.
                          for (int i = 0; i < 500 && !fs::exists(dir_ + "/s"); ++i) usleep(10000);
                          kill(pid, SIGUSR1);
                        });
  ASSERT_TRUE(run.trailer) << "init must report even when stopped: " << run.stderr_text;
  EXPECT_EQ(run.trailer->signal, SIGKILL);
  EXPECT_EQ(run.trailer->output_violation, "");
  EXPECT_EQ(run.trailer->output_entries, 1);
  EXPECT_TRUE(fs::exists(dir_ + "/s"));
}

TEST_F(OutputGuardTest, BadBoundArgumentsAreAUsageError) {
  for (const char* bad : {"-1", "x", "12abc"}) {
    SCOPED_TRACE(bad);
    InitRun run = RunInit({"-o", dir_, "-q", bad, "--", "true"});
    ASSERT_TRUE(WIFEXITED(run.status));
    EXPECT_EQ(WEXITSTATUS(run.status), 126);
  }
}

}  // namespace
}  // namespace coderunner::sandbox
