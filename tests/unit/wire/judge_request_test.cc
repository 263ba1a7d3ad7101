#include "coderunner/wire/judge_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "coderunner/wire/execute_request.h"
#include "coderunner/wire/judgement_json.h"

namespace coderunner::wire {
namespace {

using ::testing::HasSubstr;

TEST(ParseJudgeFieldsTest, ARequestWithCasesCarriesThemWithTheirInputsAndRule) {
  auto r = ParseExecuteRequest(R"({"language":"cpp","code":"c","limits":{"timeout_ms":2000},
      "cases":[{"stdin":"1 2\n","expected_output":"3\n"},
               {"args":["-v"],"files":[{"path":"in.txt","content":"x"}],
                "limits":{"timeout_ms":500},"expected_output":"y"}],
      "compare":{"mode":"numbers","abs_tolerance":0.01},"stop_at_first_failure":true})",
                               {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->judge.has_value());
  const JudgeRequest& j = *r->judge;
  ASSERT_EQ(j.cases.size(), 2u);
  EXPECT_EQ(j.cases[0].stdin_data, "1 2\n");
  EXPECT_EQ(j.cases[0].expected_output, "3\n");
  EXPECT_FALSE(j.cases[0].limits.timeout_ms.has_value());
  EXPECT_EQ(j.cases[1].args, std::vector<std::string>{"-v"});
  ASSERT_EQ(j.cases[1].files.size(), 1u);
  EXPECT_EQ(j.cases[1].files[0].path, "in.txt");
  EXPECT_EQ(j.cases[1].limits.timeout_ms, 500);
  EXPECT_EQ(j.rule.mode, judge::MatchMode::kNumbers);
  EXPECT_DOUBLE_EQ(j.rule.abs_tolerance, 0.01);
  EXPECT_TRUE(j.stop_at_first_failure);
}

TEST(ParseJudgeFieldsTest, ARequestWithoutCasesIsNotJudged) {
  auto r = ParseExecuteRequest(R"({"code":"c","cases":null})", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->judge.has_value());
}

TEST(ParseJudgeFieldsTest, BadJudgingFieldsAreInvalidRequestNamingTheField) {
  RequestCaps caps;
  caps.max_cases = 2;
  struct Row {
    const char* body;
    const char* names;
  };
  const Row rows[] = {
      {R"({"code":"c","cases":[]})", "cases"},
      {R"({"code":"c","cases":{}})", "cases"},
      {R"({"code":"c","cases":[{"expected_output":""},{"expected_output":""},
          {"expected_output":""}]})",
       "more than 2"},
      {R"({"code":"c","cases":[1]})", "cases[0]"},
      {R"({"code":"c","cases":[{"stdin":"x"}]})", "cases[0].expected_output"},
      {R"({"code":"c","cases":[{"expected_output":3}]})", "cases[0].expected_output"},
      {R"({"code":"c","cases":[{"expected_output":"","code":"y"}]})", "cases[0].code"},
      {R"({"code":"c","cases":[{"expected_output":"","args":[1]}]})", "cases[0]: args"},
      {R"({"code":"c","cases":[{"expected_output":"","files":[{"path":"../x"}]}]})", "cases[0]"},
      {R"({"code":"c","cases":[{"expected_output":"","limits":{"timeout_ms":"1"}}]})",
       "limits.timeout_ms"},
      {R"({"code":"c","compare":{"mode":"exact"}})", "compare"},
      {R"({"code":"c","stop_at_first_failure":true})", "stop_at_first_failure"},
      {R"({"code":"c","cases":[{"expected_output":""}],"compare":{"mode":"fuzzy"}})",
       "compare.mode"},
      {R"({"code":"c","cases":[{"expected_output":""}],"compare":{"abs_tolerance":-1}})",
       "compare.abs_tolerance"},
      {R"({"code":"c","cases":[{"expected_output":""}],"compare":{"ulp":1}})", "compare.ulp"},
      {R"({"code":"c","cases":[{"expected_output":""}],"stop_at_first_failure":1})",
       "stop_at_first_failure"},
      {R"({"code":"c","cases":[{"expected_output":""}],"volume_id":"vol-1"})", "volume_id"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.body);
    auto r = ParseExecuteRequest(row.body, caps);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(row.names));
  }
}

class BuildJudgePlanTest : public ::testing::Test {
 protected:
  StatusOr<judge::JudgePlan> Plan(const std::string& body) {
    auto r = ParseExecuteRequest(body, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return r.status();
    auto job = BuildJobSpec(*r, config_, "job-1");
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    if (!job.ok()) return job.status();
    return BuildJudgePlan(*r, *job, config_, nullptr);
  }
  config::Config config_ = config::DefaultConfig();
};

TEST_F(BuildJudgePlanTest, EachCaseHasTheJobsLimitsWithItsOwnOverrides) {
  auto plan = Plan(R"({"code":"c","limits":{"timeout_ms":2000,"pids":9},
      "cases":[{"expected_output":"a"},{"limits":{"timeout_ms":300},"expected_output":"b"}]})");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->cases.size(), 2u);
  EXPECT_EQ(plan->cases[0].limits.timeout_ms, 2000);
  EXPECT_EQ(plan->cases[0].limits.pids, 9);
  EXPECT_EQ(plan->cases[1].limits.timeout_ms, 300);
  EXPECT_EQ(plan->cases[1].limits.pids, 9);
  EXPECT_EQ(plan->cases[1].expected_output, "b");
}

TEST_F(BuildJudgePlanTest, ACaseMayNotAskMoreThanItsRequestCouldNorShadowItsFiles) {
  struct Row {
    std::string body;
    const char* reason;
  };
  const std::string too_long = std::to_string(config::DefaultConfig().max_limits.timeout_ms + 1);
  const Row rows[] = {
      {R"({"code":"c","cases":[{"expected_output":"","limits":{"timeout_ms":)" + too_long + "}}]}",
       "limit_exceeded"},
      {R"({"code":"c","cases":[{"expected_output":"","files":[{"path":"main.py"}]}]})",
       "invalid_path"},
      {R"({"code":"c","files":[{"path":"a"}],
           "cases":[{"expected_output":"","files":[{"path":"a"}]}]})",
       "invalid_path"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.body);
    auto plan = Plan(row.body);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().reason(), row.reason);
    EXPECT_THAT(plan.status().message(), HasSubstr("cases[0]"));
  }
}

TEST(JudgementToJsonTest, VerdictsCountsAndEachCaseAsItRan) {
  judge::Judgement j;
  j.verdict = judge::Verdict::kRuntimeError;
  judge::CaseReport ok;
  ok.verdict = judge::Verdict::kAccepted;
  ok.result.status = isolation::RunStatus::kSucceeded;
  ok.result.exit_code = 0;
  ok.result.stdout_data = "3\n";
  ok.result.metrics.run_ms = 4;
  judge::CaseReport crashed;
  crashed.verdict = judge::Verdict::kRuntimeError;
  crashed.result.status = isolation::RunStatus::kFailed;
  crashed.result.exit_code = 139;
  crashed.result.signal = 11;
  j.cases = {ok, crashed, judge::CaseReport{}};
  nlohmann::json out = JudgementToJson(j, OutputEncoding::kUtf8);
  EXPECT_EQ(out["verdict"], "runtime_error");
  EXPECT_EQ(out["passed"], 1);
  EXPECT_EQ(out["total"], 3);
  ASSERT_EQ(out["cases"].size(), 3u);
  EXPECT_EQ(out["cases"][0]["verdict"], "accepted");
  EXPECT_EQ(out["cases"][0]["stdout"], "3\n");
  EXPECT_EQ(out["cases"][0]["metrics"]["run_ms"], 4);
  EXPECT_EQ(out["cases"][1]["signal"], "SIGSEGV");
  EXPECT_EQ(out["cases"][2], (nlohmann::json{{"verdict", "skipped"}}));
  nlohmann::json b64 = JudgementToJson(j, OutputEncoding::kBase64);
  EXPECT_EQ(b64["cases"][0]["stdout"], "Mwo=");
}

}  // namespace
}  // namespace coderunner::wire
