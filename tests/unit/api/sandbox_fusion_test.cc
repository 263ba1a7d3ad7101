#include "api/sandbox_fusion.h"

#include <gtest/gtest.h>

namespace coderunner::api {
namespace {

using nlohmann::json;

TEST(SandboxFusionToJobTest, ARequestIsAJobInCoderunnersTerms) {
  config::Config config = config::DefaultConfig();
  auto job = SandboxFusionToJob({{"code", "x"},
                                 {"language", "nodejs"},
                                 {"stdin", "in"},
                                 {"memory_limit_MB", 64},
                                 {"compile_timeout", 3},
                                 {"files", {{"a.txt", "eA=="}, {"empty", nullptr}}}},
                                config);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(*job, (json{{"language", "javascript"},
                        {"code", "x"},
                        {"stdin", "in"},
                        {"files",
                         {{{"path", "a.txt"}, {"content", "eA=="}, {"encoding", "base64"}},
                          {{"path", "empty"}, {"content", ""}}}},
                        {"limits", {{"timeout_ms", 10000}, {"memory_bytes", 64LL << 20}}}}));
  for (const json& bad : {json{{"code", "x"}, {"language", "cobol"}},
                          json{{"code", "x"}, {"language", "python"}, {"files", {{"a", "%"}}}},
                          json{{"code", "x"}, {"language", "python"}, {"run_timeout", 0}}}) {
    auto refused = SandboxFusionToJob(bad, config);
    ASSERT_FALSE(refused.ok()) << bad.dump();
    EXPECT_EQ(refused.status().reason(), kReasonSandboxFusionInvalid);
  }
}

TEST(SandboxFusionResponseTest, EachEndAsSandboxFusionReportsIt) {
  struct Row {
    json result;
    const char* status;
    json run_status;   // run_result.status, or null for no run_result.
    json return_code;  // run_result.return_code.
  };
  const Row rows[] = {
      {{{"status", "succeeded"}, {"exit_code", 0}, {"stdout", "1\n"}}, "Success", "Finished", 0},
      {{{"status", "failed"}, {"exit_code", 2}}, "Failed", "Finished", 2},
      {{{"status", "failed"}, {"exit_code", 134}, {"signal", "SIGABRT"}}, "Failed", "Finished", -6},
      {{{"status", "timeout"}}, "Failed", "TimeLimitExceeded", nullptr},
      {{{"status", "oom"}}, "Failed", "Finished", -9},
      {{{"status", "error"}, {"error", {{"code", "engine_unavailable"}, {"message", "gone"}}}},
       "SandboxError",
       nullptr,
       nullptr},
      {{{"status", "failed"},
        {"error", {{"code", "compile_error"}, {"message", "did not compile"}}},
        {"compile", {{"status", "failed"}, {"exit_code", 1}, {"output", "e"}}}},
       "Failed",
       nullptr,
       nullptr},
  };
  for (const Row& row : rows) {
    json out = SandboxFusionResponse(row.result);
    EXPECT_EQ(out["status"], row.status) << row.result.dump();
    if (row.run_status.is_null()) {
      EXPECT_EQ(out["run_result"], nullptr) << out.dump();
      continue;
    }
    EXPECT_EQ(out["run_result"]["status"], row.run_status) << out.dump();
    EXPECT_EQ(out["run_result"]["return_code"], row.return_code) << out.dump();
  }
}

}  // namespace
}  // namespace coderunner::api
