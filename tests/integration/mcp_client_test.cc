// Real MCP clients against a live service (McpClientTest): the official
// TypeScript SDK over both transports (tests/mcp/sdk_client_check.mjs) and
// the protocol's conformance runner, pinned by tests/mcp/package-lock.json.
// The transport's edges are McpTest (mcp_test.cc).
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "engine_fixture.h"
#include "run_command.h"

namespace coderunner::testing {
namespace {

constexpr char kAcmeKey[] = "mcp-client-acme-key-0123456789";
constexpr char kGlobexKey[] = "mcp-client-globex-key-0123456789";

// The real clients, pinned by tests/mcp/package-lock.json and installed by
// scripts/install-deps.sh (npm ci) in CODERUNNER_MCP_CLIENTS_DIR, against
// a live server with two tenants.
class McpClientTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "pro", kAcmeKey}, {"globex", "pro", kGlobexKey}});
  }

  void TearDown() override {
    // Sandboxes outlive the service by design, and their directory with
    // them: empty once the check deleted its sandbox (remove leaves a
    // directory that is not).
    if (server_ && server_->started()) {
      std::error_code ec;
      std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);
    }
    EngineTest::TearDown();
  }

  void SetUp() override {
    EngineTest::SetUp();
    clients_ = CODERUNNER_MCP_CLIENTS_DIR;
    if (const char* env = getenv("CODERUNNER_MCP_CLIENTS_DIR"); env != nullptr && *env != '\0') {
      clients_ = env;
    }
    for (const char* package : {"sdk/package.json", "conformance/dist/index.js"}) {
      ASSERT_TRUE(
          std::filesystem::exists(clients_ + "/node_modules/@modelcontextprotocol/" + package))
          << "the MCP clients are not installed in " << clients_ << "; install them with: cp "
          << CODERUNNER_MCP_TESTS_DIR << "/package*.json " << clients_ << " && (cd " << clients_
          << " && npm ci) (scripts/install-deps.sh does this)";
    }
    ASSERT_EQ(system("command -v node > /dev/null"), 0)
        << "node is not installed (apt-get install nodejs)";
  }

  std::string Url(const ServerProcess& server) const {
    return "http://127.0.0.1:" + std::to_string(server.port());
  }

  // tests/mcp/sdk_client_check.mjs over `transport`: every check passes.
  void ExpectSdkChecksPass(const std::string& transport) {
    CommandResult r =
        RunCommand("CODERUNNER_MCP_CLIENTS_DIR='" + clients_ +
                   "' node '" CODERUNNER_MCP_TESTS_DIR "/sdk_client_check.mjs' --transport " +
                   transport + " --server " + Url(*server_) + " --key " + kAcmeKey +
                   " --other-key " + kGlobexKey + " --coderunner '" + ServiceBinary() + "'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("\"failed\":[]"), std::string::npos) << r.output;
  }

  // The conformance runner's `server` command on every scenario of
  // `server`'s /mcp (or only `scenario`), against tests/mcp's baseline.
  CommandResult Conformance(const ServerProcess& server, const std::string& scenario = "") const {
    const std::string mcp = CODERUNNER_MCP_TESTS_DIR;
    return RunCommand("node --import '" + mcp + "/conformance-shim/shim.mjs' '" + clients_ +
                      "/node_modules/@modelcontextprotocol/conformance/dist/index.js' server " +
                      (scenario.empty() ? "--suite all" : "--scenario " + scenario) + " --url " +
                      Url(server) + "/mcp --expected-failures '" + mcp +
                      "/expected-failures.yaml'");
  }

  std::string clients_;
};

TEST_F(McpClientTest, OfficialSdkOverStreamableHttp) { ExpectSdkChecksPass("http"); }

TEST_F(McpClientTest, OfficialSdkOverStdioThroughTheCli) { ExpectSdkChecksPass("stdio"); }

// The runner's own client sends no key, so it runs against servers of its
// own in auth mode none (without a warm pool: it runs no code). Each of its
// scenarios is a new SDK client, all as the one tenant of auth mode none,
// within a few seconds, and each leaves without DELETE (its GET stream
// still open): more than the 16 sessions a tenant holds by default, so the
// run also proves that a new session ends the least recently used quiet
// one rather than locking the tenant out.
constexpr char kConformanceServer[] = "pool: {size: 0}\n";

TEST_F(McpClientTest, ConformanceRunnerPassesEveryScenarioButTheReferenceFixtures) {
  ServerProcess guarded(kConformanceServer);
  ASSERT_TRUE(guarded.started()) << guarded.log();
  CommandResult pass = Conformance(guarded);
  EXPECT_EQ(pass.exit_code, 0) << pass.output;
  EXPECT_NE(pass.output.find("Baseline check passed"), std::string::npos) << pass.output;
  EXPECT_TRUE(guarded.Stop()) << guarded.log();

  // The gate works: a server that lets any Host in fails a generic
  // scenario, and the runner says so.
  ServerProcess loose(std::string(kConformanceServer) + "mcp: {allowed_hosts: [\"*\"]}\n");
  ASSERT_TRUE(loose.started()) << loose.log();
  CommandResult fail = Conformance(loose, "dns-rebinding-protection");
  EXPECT_NE(fail.exit_code, 0) << fail.output;
  EXPECT_NE(fail.output.find("Unexpected failures"), std::string::npos) << fail.output;
  EXPECT_TRUE(loose.Stop()) << loose.log();
}

}  // namespace
}  // namespace coderunner::testing
