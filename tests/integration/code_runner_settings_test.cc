// The Code Runner settings (seed 003) on a real server and engine:
// code_runner.enabled: false closes every route that runs code, and
// code_runner.languages allows only the languages it names.
#include <gtest/gtest.h>

#include <string>

#include "engine_fixture.h"
#include "server_process.h"

namespace coderunner::testing {
namespace {

class CodeRunnerDisabledTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return "code_runner: {enabled: false}\n"; }
};

TEST_F(CodeRunnerDisabledTest, EveryRouteThatRunsCodeIs503AndNothingRuns) {
  const std::string piston = R"J({"language":"python","version":"*","files":[{"content":"1"}]})J";
  struct Case {
    const char* path;
    std::string body;
  };
  const Case cases[] = {
      {"/v1/execute", R"J({"code":"print(1)"})J"},
      {"/v1/jobs", R"J({"code":"print(1)"})J"},
      {"/v1/jobs/batch", R"J({"jobs":[{"code":"print(1)"}]})J"},
      {"/v1/jobs/job-0123456789abcdef01234567/replay", ""},
      {"/v1/intents", R"J({"intent":"add 1 and 2"})J"},
      {"/v1/sandboxes", R"J({"language":"python"})J"},
      {"/v1/sandboxes/sbx-0123456789abcdef01234567/execute", R"J({"code":"1"})J"},
      {"/api/v2/execute", piston},
      {"/api/v2/piston/execute", piston},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    HttpAnswer a = server_->Post(c.path, c.body);
    EXPECT_EQ(a.status, 503) << a.body;
    ASSERT_TRUE(a.json.is_object()) << a.body;
    EXPECT_EQ(a.json["error"]["code"], "code_runner_disabled") << a.body;
    EXPECT_NE(a.body.find("code_runner.enabled"), std::string::npos) << a.body;
  }
  // Read-only routes keep working.
  for (const char* path : {"/v1/languages", "/readyz", "/metrics", "/v1/jobs", "/healthz"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(server_->Get(path).status, 200);
  }
  HttpAnswer jobs = server_->Get("/v1/jobs");
  ASSERT_TRUE(jobs.json.contains("jobs")) << jobs.body;
  EXPECT_TRUE(jobs.json["jobs"].empty()) << jobs.body;
  EXPECT_EQ(CountContainers(server_->socket(), server_->instance()), 0);
}

class CodeRunnerAllowlistTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return "code_runner: {languages: [python]}\n"; }
};

TEST_F(CodeRunnerAllowlistTest, OtherLanguagesAre400NamingTheAllowedOnes) {
  HttpAnswer a = server_->Execute("javascript", "console.log(1)");
  EXPECT_EQ(a.status, 400) << a.body;
  std::string msg = a.json["error"]["message"];
  EXPECT_NE(msg.find("python"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("bash"), std::string::npos) << msg;
  HttpAnswer langs = server_->Get("/v1/languages");
  ASSERT_EQ(langs.status, 200) << langs.body;
  ASSERT_EQ(langs.json["languages"].size(), 1u) << langs.body;
  EXPECT_EQ(langs.json["languages"][0]["name"], "python");
  nlohmann::json ok = RunUncached("python", "print(6*7)");
  EXPECT_EQ(ok["stdout"], "42\n");
}

}  // namespace
}  // namespace coderunner::testing
