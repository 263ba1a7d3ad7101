#include "coderunner/isolation/compiling_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "coderunner/common/utf8.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

// Runs nothing: records each job it is handed, and answers the compile
// step with `compile` after `leave` puts files in the step's /output.
class ScriptedRunner : public JobRunner {
 public:
  StatusOr<RunResult> Run(const JobSpec& job, const RunHooks&) override {
    jobs.push_back(job);
    if (job.id.ends_with(kCompileStepSuffix)) {
      if (leave) leave(root + "/" + job.id);
      return compile;
    }
    RunResult r;
    r.status = RunStatus::kSucceeded;
    r.exit_code = 0;
    r.stdout_data = "ran";
    return r;
  }

  std::string root;
  RunResult compile;
  std::function<void(const std::string& dir)> leave;
  std::vector<JobSpec> jobs;
};

JobSpec CppJob() {
  JobSpec job;
  job.id = "job-1";
  job.language.name = "cpp";
  job.language.image = "coderunner/gcc:12";
  job.language.file = "main.cpp";
  job.language.command = {"/workspace/main"};
  job.language.compile = {"g++", "-o", "/output/main", "{file}"};
  job.language.compile_timeout_ms = 7000;
  job.language.compile_memory_bytes = 300 << 20;
  job.language.compile_output_bytes = 4096;
  job.code = "int main() {}";
  job.stdin_data = "input";
  job.args = {"a"};
  job.files = {{"lib.h", "#pragma once"}};
  job.limits.timeout_ms = 1000;
  job.limits.memory_bytes = 64 << 20;
  job.limits.pids = 8;
  job.volume.id = "vol-1";
  return job;
}

RunResult Ended(RunStatus status, int exit_code, std::string stderr_data = "") {
  RunResult r;
  r.status = status;
  r.exit_code = exit_code;
  r.stderr_data = std::move(stderr_data);
  return r;
}

class CompilingRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-compiling-XXXXXX";
    root_ = mkdtemp(tmpl);
    inner_.root = root_;
  }
  void TearDown() override { fs::remove_all(root_); }

  // The compile step leaves `files` ({path, content}) and succeeds.
  void Builds(std::vector<std::pair<std::string, std::string>> files) {
    inner_.compile = Ended(RunStatus::kSucceeded, 0, "a warning");
    for (const auto& [path, content] : files) {
      inner_.compile.artifacts.push_back({path, static_cast<int64_t>(content.size()), "", 0});
    }
    inner_.leave = [files](const std::string& dir) {
      for (const auto& [path, content] : files) {
        fs::create_directories(fs::path(dir + "/" + path).parent_path());
        std::ofstream(dir + "/" + path, std::ios::binary) << content;
      }
    };
  }

  StatusOr<RunResult> Run(const JobSpec& job) {
    CompilingRunner runner(inner_, root_);
    return runner.Run(job, RunHooks{});
  }

  std::string root_;
  ScriptedRunner inner_;
};

TEST(CompileStepOfTest, TheStepHasTheLanguagesCompileLimitsAndNothingOfTheRun) {
  JobSpec job = CppJob();
  JobSpec step = CompileStepOf(job);
  EXPECT_EQ(step.id, "job-1-compile");
  EXPECT_EQ(step.language.command, job.language.compile);
  EXPECT_TRUE(step.language.compile.empty());
  EXPECT_EQ(step.code, job.code);
  ASSERT_EQ(step.files.size(), 1u);
  EXPECT_EQ(step.files[0].path, "lib.h");
  EXPECT_EQ(step.stdin_data, "");
  EXPECT_TRUE(step.args.empty());
  EXPECT_EQ(step.volume.id, "");
  EXPECT_EQ(step.limits.timeout_ms, 7000);
  EXPECT_EQ(step.limits.cpu_ms, 7000);
  EXPECT_EQ(step.limits.memory_bytes, 300 << 20);
  EXPECT_EQ(step.limits.output_bytes, 4096);
  EXPECT_EQ(step.limits.pids, 64);  // At least kCompileStepMinPids.
  EXPECT_EQ(step.limits.tmp_bytes, job.limits.tmp_bytes);
}

TEST(OwningJobIdTest, AStepBelongsToItsJob) {
  const struct {
    const char* step_id;
    const char* job_id;
  } table[] = {
      {"job-1-compile", "job-1"},                  // The compile step of job-1.
      {"job-1", "job-1"},                          // The job itself.
      {"-compile", "-compile"},                    // Only the suffix: no job to own it.
      {"job-1-compile-compile", "job-1-compile"},  // One step, one suffix.
      {"", ""},
  };
  for (const auto& row : table) EXPECT_EQ(OwningJobId(row.step_id), row.job_id) << row.step_id;
  EXPECT_EQ(OwningJobId(CompileStepOf(CppJob()).id), CppJob().id);
}

TEST_F(CompilingRunnerTest, AnInterpretedLanguagePassesStraightThrough) {
  JobSpec job = CppJob();
  job.language.compile.clear();
  auto r = Run(job);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(inner_.jobs.size(), 1u);
  EXPECT_EQ(inner_.jobs[0].id, "job-1");
  EXPECT_FALSE(r->compile.has_value());
}

TEST_F(CompilingRunnerTest, TheBuildRunsWithTheJobsOwnLimitsAsAnExecutable) {
  Builds({{"main",
           "\x7f"
           "ELF binary"}});
  auto r = Run(CppJob());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(inner_.jobs.size(), 2u);
  const JobSpec& run = inner_.jobs[1];
  EXPECT_EQ(run.id, "job-1");
  EXPECT_EQ(run.limits.timeout_ms, 1000);
  EXPECT_EQ(run.limits.memory_bytes, 64 << 20);
  EXPECT_EQ(run.stdin_data, "input");
  EXPECT_EQ(run.volume.id, "vol-1");
  ASSERT_EQ(run.files.size(), 2u);
  EXPECT_EQ(run.files[1].path, "main");
  EXPECT_EQ(run.files[1].content,
            "\x7f"
            "ELF binary");
  EXPECT_TRUE(run.files[1].executable);
  EXPECT_FALSE(run.files[0].executable);
  EXPECT_EQ(r->status, RunStatus::kSucceeded);
  ASSERT_TRUE(r->compile.has_value());
  EXPECT_EQ(r->compile->status, RunStatus::kSucceeded);
  EXPECT_EQ(r->compile->output, "a warning");
  EXPECT_FALSE(fs::exists(root_ + "/job-1-compile")) << "the step's /output stays behind";
}

TEST_F(CompilingRunnerTest, AFailedBuildEndsTheJobUnrunWithTheCompilersMessages) {
  struct Case {
    const char* name;
    RunResult step;
    const char* headline;
  };
  RunResult signalled = Ended(RunStatus::kFailed, 128 + SIGSEGV, "internal compiler error");
  signalled.signal = SIGSEGV;
  const Case cases[] = {
      {"exit code", Ended(RunStatus::kFailed, 1, "main.cpp:3:5: error: 'x' was not declared"),
       "the program did not compile (exit code 1):\nmain.cpp:3:5: error"},
      {"signal", signalled, "signal 11 ended the compiler"},
      {"its time", Ended(RunStatus::kTimeout, -1), "ran past its 7000 ms"},
      {"its memory", Ended(RunStatus::kOom, -1), "ran out of its 314572800 bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    inner_.jobs.clear();
    inner_.compile = c.step;
    auto r = Run(CppJob());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(inner_.jobs.size(), 1u) << "the program ran";
    EXPECT_EQ(r->status, RunStatus::kFailed);
    EXPECT_EQ(r->error.reason(), kReasonCompileError);
    EXPECT_NE(r->error.message().find(c.headline), std::string::npos) << r->error.message();
    ASSERT_TRUE(r->compile.has_value());
    EXPECT_EQ(r->compile->status, c.step.status);
    EXPECT_EQ(r->compile->output, c.step.stderr_data);
  }
}

// GCC quotes names in ‘’: the first 2 KiB of its messages, in the error's
// message, end where a character does, never inside one.
TEST_F(CompilingRunnerTest, TheMessagesQuotedInTheErrorEndWhereACharacterEnds) {
  struct Case {
    const char* name;
    std::string output;
    std::string quoted;  // What the message ends with.
  };
  const std::string quote = "\xE2\x80\x98";
  const Case cases[] = {
      {"a quote across the cut", std::string(2047, 'a') + quote + "x", std::string(2047, 'a')},
      {"a quote just before it", std::string(2045, 'a') + quote + "x",
       std::string(2045, 'a') + quote},
      {"all of it shorter", "e: " + quote + "x", "e: " + quote + "x"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    inner_.jobs.clear();
    inner_.compile = Ended(RunStatus::kFailed, 1, c.output);
    auto r = Run(CppJob());
    ASSERT_TRUE(r.ok());
    const std::string& message = r->error.message();
    ASSERT_GE(message.size(), c.quoted.size());
    EXPECT_EQ(message.substr(message.size() - c.quoted.size()), c.quoted);
    EXPECT_TRUE(IsValidUtf8(message));
    EXPECT_EQ(r->compile->output, c.output) << "the whole output stays in the result";
  }
}

TEST_F(CompilingRunnerTest, ABuildThatIsNotPlainFilesIsNotRun) {
  struct Case {
    const char* name;
    std::function<void(const std::string&)> leave;
    std::vector<Artifact> listed;
    std::vector<TreeProblem> skipped;
    const char* why;
  };
  const Case cases[] = {
      {"nothing", [](const std::string&) {}, {}, {}, "wrote nothing into /output"},
      {"a symlink to a host file",
       [](const std::string& dir) {
         fs::create_directories(dir);
         fs::create_symlink("/etc/shadow", dir + "/main");
       },
       {{"main", 10, "", 0}},
       {},
       "no such file"},
      {"more than the caps keep",
       [](const std::string& dir) { fs::create_directories(dir); },
       {},
       {{"main", "too_large"}},
       "main: too_large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    inner_.jobs.clear();
    inner_.compile = Ended(RunStatus::kSucceeded, 0);
    inner_.compile.artifacts = c.listed;
    inner_.compile.artifacts_skipped = c.skipped;
    inner_.leave = c.leave;
    auto r = Run(CppJob());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(inner_.jobs.size(), 1u) << "the program ran";
    EXPECT_EQ(r->status, RunStatus::kFailed);
    EXPECT_EQ(r->error.reason(), kReasonCompileError);
    EXPECT_NE(r->error.message().find(c.why), std::string::npos) << r->error.message();
    EXPECT_FALSE(fs::exists(root_ + "/job-1-compile"));
  }
}

TEST_F(CompilingRunnerTest, ACancelledOrFailingStepEndsAsItselfAndNothingRuns) {
  for (RunStatus status : {RunStatus::kCancelled, RunStatus::kError}) {
    SCOPED_TRACE(RunStatusName(status));
    inner_.jobs.clear();
    inner_.compile = Ended(status, -1);
    auto r = Run(CppJob());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(inner_.jobs.size(), 1u);
    EXPECT_EQ(r->status, status);
  }
}

TEST_F(CompilingRunnerTest, WithoutAnArtifactsDirACompiledLanguageCannotRun) {
  CompilingRunner runner(inner_, "");
  auto r = runner.Run(CppJob(), RunHooks{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(inner_.jobs.empty());
  EXPECT_EQ(r->status, RunStatus::kError);
  EXPECT_EQ(r->error.reason(), "compile_unavailable");
}

}  // namespace
}  // namespace coderunner::isolation
