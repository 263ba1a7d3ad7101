// The code_runner.enabled gate: which requests run code.
#include "api/code_runner_gate.h"

#include <gtest/gtest.h>

namespace coderunner::api {
namespace {

TEST(CodeRunnerGateTest, RoutesThatRunCode) {
  struct Case {
    const char* method;
    const char* path;
    bool runs_code;
  };
  const Case cases[] = {
      {"POST", "/v1/execute", true},
      {"POST", "/v1/jobs", true},
      {"POST", "/v1/jobs/batch", true},
      {"POST", "/v1/jobs/job-0123456789abcdef01234567/replay", true},
      {"POST", "/v1/intents", true},
      {"POST", "/v1/sandboxes", true},
      {"POST", "/v1/sandboxes/sbx-0123456789abcdef01234567/execute", true},
      {"POST", "/api/v2/execute", true},
      {"POST", "/api/v2/piston/execute", true},
      {"GET", "/v1/jobs", false},
      {"GET", "/v1/jobs/job-0123456789abcdef01234567", false},
      {"GET", "/v1/jobs/job-0123456789abcdef01234567/wait", false},
      {"DELETE", "/v1/jobs/job-0123456789abcdef01234567", false},
      {"DELETE", "/v1/sandboxes/sbx-0123456789abcdef01234567", false},
      {"GET", "/v1/languages", false},
      {"GET", "/readyz", false},
      {"GET", "/metrics", false},
      {"GET", "/v1/agents", false},
      {"POST", "/v1/volumes", false},
      {"POST", "/api/v2/packages", false},
      {"GET", "/api/v2/runtimes", false},
      {"POST", "/v1/execute/extra", false},
      {"POST", "/v1/executes", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.method) + " " + c.path);
    EXPECT_EQ(RunsCode(c.method, c.path), c.runs_code);
  }
}

TEST(CodeRunnerGateTest, RefusalIs503NamingTheKey) {
  Status s = CodeRunnerDisabledError();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.reason(), "code_runner_disabled");
  EXPECT_NE(s.message().find("code_runner.enabled"), std::string::npos);
}

}  // namespace
}  // namespace coderunner::api
