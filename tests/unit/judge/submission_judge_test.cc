#include "coderunner/judge/submission_judge.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace coderunner::judge {
namespace {

namespace fs = std::filesystem;
using isolation::JobSpec;
using isolation::RunResult;
using isolation::RunStatus;

// The compile step's runner: records each step, and leaves `binary` as the
// build in the step's /output (or fails it with `compile`).
class BuildRunner : public isolation::JobRunner {
 public:
  StatusOr<RunResult> Run(const JobSpec& job, const isolation::RunHooks&) override {
    steps.push_back(job);
    if (compile.status == RunStatus::kSucceeded) {
      fs::create_directories(root + "/" + job.id);
      std::ofstream(root + "/" + job.id + "/main", std::ios::binary) << "binary";
    }
    return compile;
  }

  std::string root;
  RunResult compile = Succeeded("");
  std::vector<JobSpec> steps;

  static RunResult Succeeded(std::string out) {
    RunResult r;
    r.status = RunStatus::kSucceeded;
    r.exit_code = 0;
    r.stdout_data = std::move(out);
    r.artifacts.push_back({"main", 6, "", 0});
    return r;
  }
};

JobSpec CppJob() {
  JobSpec job;
  job.id = "job-1";
  job.language.name = "cpp";
  job.language.file = "main.cpp";
  job.language.command = {"/workspace/main"};
  job.language.compile = {"g++", "-o", "/output/main", "{file}"};
  job.code = "int main() {}";
  job.files = {{"lib.h", "#pragma once"}};
  job.limits.timeout_ms = 1000;
  return job;
}

TestCase Case(std::string in, std::string expected, int64_t timeout_ms = 1000) {
  TestCase c;
  c.stdin_data = std::move(in);
  c.expected_output = std::move(expected);
  c.limits.timeout_ms = timeout_ms;
  return c;
}

class SubmissionJudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-judge-XXXXXX";
    root_ = mkdtemp(tmpl);
    build_.root = root_;
  }
  void TearDown() override { fs::remove_all(root_); }

  // Judges `job` against `plan`; each case "prints" what `answer` makes of
  // its stdin, after leaving a file in its /output.
  Judgement JudgeWith(const JobSpec& job, const JudgePlan& plan,
                      const std::function<RunResult(const JobSpec&)>& answer) {
    isolation::CompilingRunner builder(build_, root_);
    SubmissionJudge judge(builder);
    return judge.Judge(job, plan, isolation::RunHooks{}, [&](const JobSpec& c) {
      cases_.push_back(c);
      fs::create_directories(root_ + "/" + c.id);
      std::ofstream(root_ + "/" + c.id + "/left") << "x";
      return answer(c);
    });
  }

  static RunResult Echo(const JobSpec& c) { return BuildRunner::Succeeded(c.stdin_data); }

  std::string root_;
  BuildRunner build_;
  std::vector<JobSpec> cases_;
};

TEST_F(SubmissionJudgeTest, BuildsOnceAndRunsEachCaseAsAJobOfItsOwn) {
  JudgePlan plan;
  plan.cases = {Case("1\n", "1\n", 500), Case("2\n", "3\n", 700), Case("3\n", "3\n")};
  plan.cases[1].args = {"-v"};
  plan.cases[1].files = {{"in.txt", "data"}};
  Judgement j = JudgeWith(CppJob(), plan, Echo);
  ASSERT_EQ(build_.steps.size(), 1u);
  EXPECT_EQ(build_.steps[0].id, "job-1-compile");
  ASSERT_EQ(cases_.size(), 3u);
  for (size_t i = 0; i < cases_.size(); ++i) {
    SCOPED_TRACE(i);
    const JobSpec& c = cases_[i];
    EXPECT_EQ(c.id, CaseJobId("job-1", i + 1));
    EXPECT_TRUE(c.language.compile.empty()) << "a case never compiles again";
    EXPECT_EQ(c.stdin_data, plan.cases[i].stdin_data);
    EXPECT_EQ(c.args, plan.cases[i].args);
    EXPECT_EQ(c.limits.timeout_ms, plan.cases[i].limits.timeout_ms);
    // The program's own file, the build (a program), and the case's own.
    std::vector<std::string> paths;
    for (const auto& f : c.files) paths.push_back(f.path + (f.executable ? "*" : ""));
    std::vector<std::string> want = {"lib.h", "main*"};
    if (i == 1) want.push_back("in.txt");
    EXPECT_EQ(paths, want);
    EXPECT_FALSE(fs::exists(root_ + "/" + c.id)) << "a case's /output outlived it";
  }
  ASSERT_EQ(j.cases.size(), 3u);
  EXPECT_EQ(j.cases[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(j.cases[1].verdict, Verdict::kWrongAnswer);
  EXPECT_EQ(j.cases[2].verdict, Verdict::kAccepted);
  EXPECT_EQ(j.verdict, Verdict::kWrongAnswer);
  EXPECT_EQ(j.result.stdout_data, "2\n") << "the deciding case is the first that failed";
  ASSERT_TRUE(j.result.compile.has_value());
  EXPECT_EQ(j.result.compile->status, RunStatus::kSucceeded);
}

TEST_F(SubmissionJudgeTest, StoppingAtTheFirstFailureSkipsTheRest) {
  struct Row {
    bool stop;
    size_t ran;
    std::vector<Verdict> want;
  };
  for (const Row& row :
       {Row{false, 3, {Verdict::kWrongAnswer, Verdict::kAccepted, Verdict::kWrongAnswer}},
        Row{true, 1, {Verdict::kWrongAnswer, Verdict::kSkipped, Verdict::kSkipped}}}) {
    SCOPED_TRACE(row.stop);
    cases_.clear();
    JudgePlan plan;
    plan.cases = {Case("a", "b"), Case("c", "c"), Case("d", "e")};
    plan.stop_at_first_failure = row.stop;
    Judgement j = JudgeWith(CppJob(), plan, Echo);
    EXPECT_EQ(cases_.size(), row.ran);
    ASSERT_EQ(j.cases.size(), row.want.size());
    for (size_t i = 0; i < row.want.size(); ++i) {
      EXPECT_EQ(VerdictName(j.cases[i].verdict), VerdictName(row.want[i])) << i;
    }
    EXPECT_EQ(j.verdict, Verdict::kWrongAnswer);
  }
}

TEST_F(SubmissionJudgeTest, AProgramThatDoesNotBuildRunsNoCase) {
  RunResult failed;
  failed.status = RunStatus::kFailed;
  failed.exit_code = 1;
  failed.stderr_data = "main.cpp:1: error: expected ';'";
  build_.compile = failed;
  JudgePlan plan;
  plan.cases = {Case("1", "1"), Case("2", "2")};
  Judgement j = JudgeWith(CppJob(), plan, Echo);
  EXPECT_TRUE(cases_.empty());
  EXPECT_EQ(j.verdict, Verdict::kCompileError);
  ASSERT_EQ(j.cases.size(), 2u);
  for (const CaseReport& c : j.cases) EXPECT_EQ(c.verdict, Verdict::kSkipped);
  EXPECT_EQ(j.result.error.reason(), isolation::kReasonCompileError);
  ASSERT_TRUE(j.result.compile.has_value());
  EXPECT_NE(j.result.compile->output.find("expected ';'"), std::string::npos);
}

TEST_F(SubmissionJudgeTest, ACaseTheServiceCouldNotFinishEndsTheJudging) {
  for (RunStatus status : {RunStatus::kCancelled, RunStatus::kError}) {
    SCOPED_TRACE(isolation::RunStatusName(status));
    cases_.clear();
    JudgePlan plan;
    plan.cases = {Case("1", "1"), Case("2", "2"), Case("3", "3")};
    Judgement j = JudgeWith(CppJob(), plan, [&](const JobSpec& c) {
      if (c.stdin_data != "2") return Echo(c);
      RunResult r;
      r.status = status;
      return r;
    });
    EXPECT_EQ(cases_.size(), 2u);
    ASSERT_EQ(j.cases.size(), 3u);
    EXPECT_EQ(j.cases[1].verdict, Verdict::kInternalError);
    EXPECT_EQ(j.cases[2].verdict, Verdict::kSkipped);
    EXPECT_EQ(j.verdict, Verdict::kInternalError);
    EXPECT_EQ(j.result.status, status) << "the job ends as the case did";
  }
}

TEST_F(SubmissionJudgeTest, EachCaseIsJudgedOnItsWholeOutputAndKeepsAPart) {
  const std::string big(kCaseOutputKeptBytes + 100, 'x');
  JudgePlan plan;
  plan.cases = {Case(big, big), Case("short", "short")};
  Judgement j = JudgeWith(CppJob(), plan, Echo);
  ASSERT_EQ(j.cases.size(), 2u);
  EXPECT_EQ(j.cases[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(j.cases[0].result.stdout_data.size(), kCaseOutputKeptBytes);
  EXPECT_TRUE(j.cases[0].output_shortened);
  EXPECT_FALSE(j.cases[1].output_shortened);
  EXPECT_EQ(j.verdict, Verdict::kAccepted);
  EXPECT_EQ(j.result.stdout_data, "short") << "all accepted: the last case decides";
}

TEST_F(SubmissionJudgeTest, AnInterpretedProgramRunsItsCasesWithoutABuild) {
  JobSpec job = CppJob();
  job.language.name = "python";
  job.language.compile.clear();
  JudgePlan plan;
  plan.cases = {Case("1 2", "1 2")};
  Judgement j = JudgeWith(job, plan, Echo);
  EXPECT_TRUE(build_.steps.empty());
  ASSERT_EQ(cases_.size(), 1u);
  ASSERT_EQ(cases_[0].files.size(), 1u);
  EXPECT_EQ(cases_[0].files[0].path, "lib.h");
  EXPECT_EQ(j.verdict, Verdict::kAccepted);
  EXPECT_FALSE(j.result.compile.has_value());
}

// A series runner that runs the first `runs` cases (echoing their stdin)
// and then cannot go on, as a container whose case left what init could
// not clear.
struct FakeSeries {
  size_t runs = 0;
  int calls = 0;
  std::vector<isolation::SeriesCase> asked;
  std::vector<std::string> program_files;

  size_t operator()(const JobSpec& program, const std::vector<isolation::SeriesCase>& cases,
                    const isolation::SeriesGoOn& go_on) {
    ++calls;
    asked = cases;
    for (const auto& f : program.files) program_files.push_back(f.path);
    size_t ran = 0;
    while (ran < cases.size() && ran < runs) {
      ++ran;
      if (!go_on(BuildRunner::Succeeded(cases[ran - 1].stdin_data))) break;
    }
    return ran;
  }
};

TEST_F(SubmissionJudgeTest, CasesRunAsASeriesWhereTheRunnerCanAndOneByOneAfter) {
  struct Row {
    const char* name;
    std::vector<TestCase> cases;
    size_t series_runs;
    bool stop_at_first_failure;
    int series_calls;   // 0: the series was not even asked.
    size_t one_by_one;  // Cases run each as a job of its own.
    std::vector<Verdict> want;
  };
  const Verdict kA = Verdict::kAccepted, kW = Verdict::kWrongAnswer, kS = Verdict::kSkipped;
  const std::vector<TestCase> three = {Case("1", "1"), Case("2", "2"), Case("3", "x")};
  std::vector<TestCase> with_files = three;
  with_files[2].files = {{"in.txt", "data"}};
  const Row rows[] = {
      {"all in the series", three, 3, false, 1, 0, {kA, kA, kW}},
      {"the series could not go on after one", three, 1, false, 1, 2, {kA, kA, kW}},
      {"the series ran none", three, 0, false, 1, 3, {kA, kA, kW}},
      {"a failure stops the series and skips the rest",
       {Case("1", "x"), Case("2", "2"), Case("3", "3")},
       3,
       true,
       1,
       0,
       {kW, kS, kS}},
      {"a case with files of its own: no series", with_files, 3, false, 0, 3, {kA, kA, kW}},
      {"one case: no series", {Case("1", "1")}, 3, false, 0, 1, {kA}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    cases_.clear();
    JudgePlan plan;
    plan.cases = row.cases;
    plan.stop_at_first_failure = row.stop_at_first_failure;
    FakeSeries series;
    series.runs = row.series_runs;
    isolation::CompilingRunner builder(build_, root_);
    SubmissionJudge judge(builder);
    Judgement j = judge.Judge(
        CppJob(), plan, isolation::RunHooks{},
        [&](const JobSpec& c) {
          cases_.push_back(c);
          return Echo(c);
        },
        std::ref(series));
    EXPECT_EQ(series.calls, row.series_calls);
    EXPECT_EQ(cases_.size(), row.one_by_one);
    std::vector<Verdict> got;
    for (const CaseReport& c : j.cases) got.push_back(c.verdict);
    EXPECT_EQ(got, row.want);
    if (series.calls == 0) continue;
    // Every case, with its own id, stdin and limits; the program with its build.
    ASSERT_EQ(series.asked.size(), row.cases.size());
    for (size_t i = 0; i < series.asked.size(); ++i) {
      EXPECT_EQ(series.asked[i].id, CaseJobId("job-1", i + 1));
      EXPECT_EQ(series.asked[i].stdin_data, row.cases[i].stdin_data);
      EXPECT_EQ(series.asked[i].limits.timeout_ms, row.cases[i].limits.timeout_ms);
    }
    EXPECT_EQ(series.program_files, (std::vector<std::string>{"lib.h", "main"}));
    // The ones after the series are the next cases, in order.
    for (size_t k = 0; k < cases_.size(); ++k) {
      EXPECT_EQ(cases_[k].id, CaseJobId("job-1", row.series_runs + k + 1));
    }
  }
}

}  // namespace
}  // namespace coderunner::judge
