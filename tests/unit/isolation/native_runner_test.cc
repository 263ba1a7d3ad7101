// NativeRunner over real host processes (bash and python3 of this
// machine): environment, directory, identity, rlimits, output caps, and
// that the deadline, a cancel or the program's own exit leave nothing
// running. No timed assertions: a deadline only decides the status.
#include "coderunner/isolation/native_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

LanguageSpec Bash() { return {"bash", "", "main.sh", {"bash", "{file}"}, false, "", {}}; }
LanguageSpec Python() { return {"python", "", "main.py", {"python3", "{file}"}, false, "", {}}; }

// A process that ran is gone, or at most a zombie waiting for its new parent.
bool Gone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = stat.rfind(')');
  return paren == std::string::npos || stat.substr(paren + 2, 1) == "Z";
}

class NativeRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/coderunner-native-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    // Every job uid traverses it; only its own directory opens further.
    ASSERT_EQ(chmod(root_.c_str(), 0711), 0);
    NativeRunnerOptions options;
    options.temp_root = root_;
    options.nofile = 256;
    options.uids = &uids_;
    runner_ = std::make_unique<NativeRunner>(options);
  }
  void TearDown() override { fs::remove_all(root_); }

  JobSpec Job(LanguageSpec lang, std::string code) {
    JobSpec job;
    job.id = "job-" + std::to_string(++n_);
    job.language = std::move(lang);
    job.code = std::move(code);
    job.limits.timeout_ms = 20000;
    return job;
  }
  RunResult Run(const JobSpec& job, const RunHooks& hooks = {}) {
    auto r = runner_->Run(job, hooks);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : RunResult{};
  }

  std::string root_;
  // A native job's end kills every process of its uid, and ctest runs this
  // binary's tests in parallel beside servers whose containers use the
  // default range: each test process takes 16 uids of its own, keyed by its
  // pid (unique among live processes), below the default range (the
  // integration tests' native servers key 64 by pid from 1000000000).
  UidPool uids_{200000000 + static_cast<int64_t>(getpid()) * 16, 16};
  std::unique_ptr<NativeRunner> runner_;
  int n_ = 0;
};

TEST_F(NativeRunnerTest, RunsProgramsAndReportsHowTheyEnded) {
  struct Case {
    const char* name;
    std::string code;
    std::string stdin_data;
    RunStatus status;
    int exit_code;
    std::string stdout_data;
  };
  const Case cases[] = {
      {"succeeds", "echo hello", "", RunStatus::kSucceeded, 0, "hello\n"},
      {"fails", "echo out; exit 3", "", RunStatus::kFailed, 3, "out\n"},
      {"reads stdin", "cat", "from stdin", RunStatus::kSucceeded, 0, "from stdin"},
      {"no stdin", "cat; echo eof", "", RunStatus::kSucceeded, 0, "eof\n"},
      {"reads its files", "cat data/in.txt", "", RunStatus::kSucceeded, 0, "input"},
      {"args", "echo \"$1-$2\"", "", RunStatus::kSucceeded, 0, "a-b\n"},
      {"killed by signal", "kill -SEGV $$", "", RunStatus::kFailed, 128 + SIGSEGV, ""},
      {"writes its dir", "echo x > f && cat f && mkdir d && ls $TMPDIR | tr '\\n' ' '", "",
       RunStatus::kSucceeded, 0, "x\nd data f main.sh "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    JobSpec job = Job(Bash(), c.code);
    job.stdin_data = c.stdin_data;
    job.files = {{"data/in.txt", "input"}};
    job.args = {"a", "b"};
    RunResult r = Run(job);
    EXPECT_EQ(r.status, c.status) << r.stderr_data << r.error.ToString();
    EXPECT_EQ(r.exit_code, c.exit_code);
    EXPECT_EQ(r.stdout_data, c.stdout_data);
    EXPECT_EQ(r.runtime, kRuntimeNative);
    EXPECT_TRUE(r.image.empty());
  }
}

TEST_F(NativeRunnerTest, EnvironmentHoldsOnlyTheFourVariables) {
  setenv("CODERUNNER_LEAK_CHECK", "secret", 1);
  RunResult r = Run(Job(Bash(), "env -0 | sort -z | tr '\\0' '\\n'; echo END"));
  unsetenv("CODERUNNER_LEAK_CHECK");
  ASSERT_EQ(r.status, RunStatus::kSucceeded) << r.stderr_data;
  std::istringstream lines(r.stdout_data);
  std::vector<std::string> names;
  std::string home, tmpdir, line;
  while (std::getline(lines, line) && line != "END") {
    names.push_back(line.substr(0, line.find('=')));
    if (line.rfind("HOME=", 0) == 0) home = line.substr(5);
    if (line.rfind("TMPDIR=", 0) == 0) tmpdir = line.substr(7);
    if (line.rfind("PATH=", 0) == 0) {
      EXPECT_EQ(line.substr(5), kNativePath);
    }
    if (line.rfind("LANG=", 0) == 0) {
      EXPECT_EQ(line.substr(5), kNativeLang);
    }
  }
  // bash itself exports PWD, SHLVL and _ to env; nothing else may appear.
  std::vector<std::string> want = {"HOME", "LANG", "PATH", "PWD", "SHLVL", "TMPDIR", "_"};
  EXPECT_EQ(names, want) << r.stdout_data;
  EXPECT_EQ(home, tmpdir);
  EXPECT_EQ(home.rfind(root_ + "/coderunner-job-", 0), 0u) << home;
  EXPECT_EQ(r.stdout_data.find("secret"), std::string::npos);
}

TEST_F(NativeRunnerTest, RunsAsItsOwnUidInItsOwnPrivateDirectory) {
  RunResult r = Run(Job(Bash(), "id -u; id -G; stat -c '%u %a' .; ls -A | wc -l"));
  ASSERT_EQ(r.status, RunStatus::kSucceeded) << r.stderr_data;
  std::istringstream out(r.stdout_data);
  int64_t uid = -1, dir_uid = -1;
  std::string groups, mode;
  int entries = -1;
  out >> uid >> groups >> dir_uid >> mode >> entries;
  if (geteuid() == 0) {
    EXPECT_TRUE(uids_.Contains(uid)) << uid;
    EXPECT_EQ(groups, std::to_string(uid));  // No supplementary group.
  } else {
    EXPECT_EQ(uid, static_cast<int64_t>(geteuid()));
  }
  EXPECT_NE(uid, 0);
  EXPECT_EQ(dir_uid, uid);
  EXPECT_EQ(mode, "700");
  EXPECT_EQ(entries, 1);  // main.sh only: stdin was unlinked.
  EXPECT_EQ(uids_.in_use(), 0);
}

TEST_F(NativeRunnerTest, AppliesTheRlimits) {
  if (geteuid() != 0) GTEST_SKIP() << "RLIMIT_NPROC and raised limits need root";
  JobSpec job = Job(Bash(),
                    "ulimit -t; ulimit -v; ulimit -d; ulimit -f; ulimit -n; ulimit -u; "
                    "ulimit -c");
  job.limits.cpu_ms = 2500;
  job.limits.memory_bytes = 300LL << 20;
  job.limits.tmp_bytes = 8LL << 20;
  job.limits.pids = 33;
  RunResult r = Run(job);
  ASSERT_EQ(r.status, RunStatus::kSucceeded) << r.stderr_data;
  // ulimit shows KiB for -v, -d and 1024-byte blocks for -f.
  EXPECT_EQ(r.stdout_data, "3\n307200\n307200\n8192\n256\n33\n0\n");
}

TEST_F(NativeRunnerTest, MemoryLimitFailsALargeAllocation) {
  JobSpec job = Job(Python(), "x = bytearray(1 << 30)\nprint('allocated')\n");
  job.limits.memory_bytes = 256LL << 20;
  RunResult r = Run(job);
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_NE(r.stderr_data.find("MemoryError"), std::string::npos) << r.stderr_data;
  EXPECT_EQ(r.stdout_data, "");
}

TEST_F(NativeRunnerTest, CapsEachStream) {
  JobSpec job = Job(Bash(), "head -c 100000 /dev/zero | tr '\\0' o; head -c 5 /dev/zero >&2");
  job.limits.output_bytes = 1000;
  std::string shown;
  RunHooks hooks;
  hooks.on_output = [&](engine::StreamId s, std::string_view b) {
    if (s == engine::StreamId::kStdout) shown += b;
  };
  RunResult r = Run(job, hooks);
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  EXPECT_EQ(r.stdout_data, std::string(1000, 'o'));
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_data.size(), 5u);
  EXPECT_FALSE(r.stderr_truncated);
  EXPECT_EQ(shown, r.stdout_data);
}

// Whatever ends the job, nothing it started survives it: the deadline, a
// cancel, or the program's own exit (its background children are killed).
TEST_F(NativeRunnerTest, NothingItStartedSurvivesIt) {
  struct Case {
    const char* name;
    std::string code;
    int64_t timeout_ms;
    bool cancel;
    RunStatus status;
  };
  const Case cases[] = {
      {"deadline", "sleep 60 & echo $!; sleep 60", 300, false, RunStatus::kTimeout},
      {"cancel", "sleep 60 & echo $!; sleep 60", 60000, true, RunStatus::kCancelled},
      {"exits", "sleep 60 & echo $!; exit 0", 60000, false, RunStatus::kSucceeded},
      {"left the group", "setsid sleep 60 & sleep 0.2; pgrep -n -u $(id -u) sleep; exit 0", 60000,
       false, RunStatus::kSucceeded},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    if (std::string(c.name) == "left the group" && geteuid() != 0) continue;  // Needs a uid.
    JobSpec job = Job(Bash(), c.code);
    job.limits.timeout_ms = c.timeout_ms;
    CancelToken token;
    RunHooks hooks;
    hooks.cancel = &token;
    hooks.on_output = [&](engine::StreamId, std::string_view) {
      if (c.cancel) token.Cancel();
    };
    RunResult r = Run(job, hooks);
    EXPECT_EQ(r.status, c.status) << r.stderr_data;
    pid_t child = static_cast<pid_t>(std::atoi(r.stdout_data.c_str()));
    ASSERT_GT(child, 1) << r.stdout_data;
    EXPECT_TRUE(Gone(child)) << child;
    EXPECT_TRUE(fs::is_empty(root_)) << "the job's directory was not removed";
  }
}

TEST_F(NativeRunnerTest, CpuLimitEndsAsTimeout) {
  JobSpec job = Job(Bash(), "while :; do :; done");
  job.limits.cpu_ms = 1000;
  RunResult r = Run(job);
  EXPECT_EQ(r.status, RunStatus::kTimeout);
  // The kernel's SIGXCPU proves the CPU limit ended it, not the wall clock
  // (20 s here). The CPU the job is charged (its exact run time) can trail
  // the tick-sampled count RLIMIT_CPU is checked against: on a loaded machine
  // by well over 10% (863 ms for a 1 s limit in CI), so it is only bounded
  // loosely.
  EXPECT_EQ(r.signal, SIGXCPU);
  EXPECT_GE(r.metrics.cpu_ms, job.limits.cpu_ms / 2);
}

TEST_F(NativeRunnerTest, ProgramThatCannotStartIsAnError) {
  struct Case {
    const char* name;
    std::vector<std::string> command;
  };
  const Case cases[] = {
      {"not in PATH", {"no-such-interpreter-xyz", "{file}"}},
      {"not executable", {"/etc/passwd", "{file}"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    LanguageSpec lang = Bash();
    lang.command = c.command;
    RunResult r = Run(Job(lang, "true"));
    EXPECT_EQ(r.status, RunStatus::kError);
    EXPECT_EQ(r.error.reason(), kReasonNativeSpawnFailed) << r.error.ToString();
    EXPECT_EQ(r.runtime, kRuntimeNative);
    EXPECT_TRUE(fs::is_empty(root_));
  }
}

}  // namespace
}  // namespace coderunner::isolation
