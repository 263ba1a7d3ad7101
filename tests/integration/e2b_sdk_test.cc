// The official E2B SDK against a live service (E2bSdkTest): npm `e2b`,
// pinned by tests/e2b/package-lock.json, runs tests/e2b/sdk_check.mjs
// (node --test) unchanged but for E2B_API_URL, E2B_SANDBOX_URL and
// E2B_API_KEY: sandboxes' lifecycle, commands (streamed, in the background
// with stdin, killed), files, another tenant's key refused, and the
// sandbox's containment. On each engine: processes and files are engine
// execs.
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "engine_fixture.h"
#include "run_command.h"

namespace coderunner::testing {
namespace {

constexpr char kAcmeKey[] = "e2b_0123456789abcdef0123456789abcdef";
constexpr char kGlobexKey[] = "e2b_fedcba9876543210fedcba9876543210";
// The sandboxes' /home/user, small enough to fill in a test.
constexpr int64_t kHomeBytes = 8 << 20;

class E2bSdkTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "pro", kAcmeKey}, {"globex", "pro", kGlobexKey}}) +
           "e2b: {home_bytes: " + std::to_string(kHomeBytes) + "}\n";
  }

  void SetUp() override {
    EngineTest::SetUp();
    clients_ = CODERUNNER_E2B_CLIENTS_DIR;
    if (const char* env = getenv("CODERUNNER_E2B_CLIENTS_DIR"); env != nullptr && *env != '\0') {
      clients_ = env;
    }
    ASSERT_TRUE(std::filesystem::exists(clients_ + "/node_modules/e2b/dist/index.mjs"))
        << "the E2B SDKs are not installed in " << clients_ << "; install them with: cp "
        << CODERUNNER_E2B_TESTS_DIR << "/package*.json " << clients_ << " && (cd " << clients_
        << " && npm ci) (scripts/install-deps.sh does this)";
  }

  void TearDown() override {
    // Sandboxes outlive the service by design, and their directory with
    // them: empty once the checks deleted their sandboxes.
    if (server_ && server_->started()) {
      std::error_code ec;
      std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);
    }
    EngineTest::TearDown();
  }

  std::string clients_;
};

// Runs one of tests/e2b's node --test scripts against the server; every
// check must pass and none be skipped.
void ExpectScriptPasses(const std::string& script, int port, const std::string& clients) {
  const std::string base = "http://127.0.0.1:" + std::to_string(port) + "/e2b";
  CommandResult r = RunCommand(
      "E2B_API_URL='" + base + "' E2B_SANDBOX_URL='" + base + "' E2B_API_KEY='" + kAcmeKey +
      "' E2B_OTHER_API_KEY='" + kGlobexKey + "' E2B_HOME_BYTES=" + std::to_string(kHomeBytes) +
      " CODERUNNER_E2B_CLIENTS_DIR='" + clients +
      "' node --test --test-reporter=spec '" CODERUNNER_E2B_TESTS_DIR "/" + script + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\u2139 fail 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\u2139 skipped 0"), std::string::npos) << r.output;
}

TEST_F(E2bSdkTest, TheOfficialSdkRunsUnchanged) {
  ExpectScriptPasses("sdk_check.mjs", server_->port(), clients_);
}

TEST_F(E2bSdkTest, TheOfficialCodeInterpreterSdkRunsUnchanged) {
  ExpectScriptPasses("code_interpreter_check.mjs", server_->port(), clients_);
}

}  // namespace
}  // namespace coderunner::testing
