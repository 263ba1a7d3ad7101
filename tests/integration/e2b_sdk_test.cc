// The official E2B SDK against a live service (E2bSdkTest): npm `e2b`,
// pinned by tests/e2b/package-lock.json, runs tests/e2b/sdk_check.mjs
// (node --test) unchanged but for E2B_API_URL, E2B_SANDBOX_URL and
// E2B_API_KEY: sandboxes' lifecycle, commands (streamed, in the background
// with stdin, killed), files, another tenant's key refused, and the
// sandbox's containment; and the hostile corpus through commands.run. On
// each engine: processes and files are engine execs.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine_fixture.h"
#include "hostile_attacks.h"
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
           "e2b: {home_bytes: " + std::to_string(kHomeBytes) + "}\n" +
           "sandbox: {nofile: " + std::to_string(kHostileNofile) + "}\n";
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

// The environment that points tests/e2b's scripts at the server.
std::string SdkEnvironment(int port, const std::string& clients) {
  const std::string base = "http://127.0.0.1:" + std::to_string(port) + "/e2b";
  return "E2B_API_URL='" + base + "' E2B_SANDBOX_URL='" + base + "' E2B_API_KEY='" + kAcmeKey +
         "' E2B_OTHER_API_KEY='" + kGlobexKey + "' E2B_HOME_BYTES=" + std::to_string(kHomeBytes) +
         " CODERUNNER_E2B_CLIENTS_DIR='" + clients + "' ";
}

// Runs one of tests/e2b's node --test scripts against the server; every
// check must pass and none be skipped.
void ExpectScriptPasses(const std::string& script, int port, const std::string& clients) {
  CommandResult r =
      RunCommand(SdkEnvironment(port, clients) + "node --test --test-reporter=spec '" +
                 CODERUNNER_E2B_TESTS_DIR "/" + script + "'");
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

// The attacks a sandbox's commands are judged by: the jobs' own
// (Attacks()) but for those about a job's output cap or its /workspace,
// and the PID 1 and syscall matrices, which a command must meet exactly
// as a job does, though it is no child of the sandbox's init.
std::vector<Attack> SandboxAttacks() {
  // A command's output streams to its caller as E2B's does, uncapped (the
  // service keeps at most replay_bytes of it: SandboxProcessesTest); a
  // sandbox's code is not in /workspace; and its interpreter shares the
  // commands' uid, so kill(-1) reaches it (pid1_takeover.py covers PID 1).
  const std::set<std::string> not_here = {"huge_line.py", "binary_output.sh", "write_workspace.js",
                                          "kill_init.sh"};
  std::vector<Attack> attacks;
  for (Attack& a : Attacks()) {
    if (!not_here.count(a.file)) attacks.push_back(std::move(a));
  }
  const bool gvisor = RuntimeUnderTest() == "runsc";
  attacks.push_back(
      {"syscall_matrix.py",
       "python",
       nlohmann::json::object(),
       {"succeeded"},
       {"\ndone\n"},
       {},
       [gvisor](const nlohmann::json& r) { ExpectExactly(r, SyscallFilterWant(gvisor)); }});
  attacks.push_back(
      {"pid1_takeover.py",
       "python",
       nlohmann::json::object(),
       {"succeeded"},
       {},
       {"READ init memory"},
       [gvisor](const nlohmann::json& r) { ExpectExactly(r, Pid1TakeoverWant(gvisor)); }});
  return attacks;
}

// The interpreter each language's programs run under in its template.
std::string RunnerOf(const std::string& language) {
  if (language == "python") return "python3";
  if (language == "javascript") return "node";
  return language;  // bash.
}

// A line of hostile_run.mjs as a job's answer: the status a job would
// have ended with, its output and exit code, the sandbox's limits.
nlohmann::json AsAnswer(const nlohmann::json& line) {
  nlohmann::json r = {{"stdout", line.value("stdout", "")},
                      {"stderr", line.value("stderr", "")},
                      {"exit_code", line.value("exit_code", nlohmann::json())},
                      {"limits", line.value("limits", nlohmann::json())}};
  const nlohmann::json error = line.value("error", nlohmann::json());
  if (error.is_object() && error.value("name", "") == "TimeoutError") {
    r["status"] = "timeout";
  } else {
    r["status"] = line.value("exit_code", nlohmann::json()) == 0 ? "succeeded" : "failed";
  }
  return r;
}

TEST_F(E2bSdkTest, TheHostileCorpusThroughCommandsRunIsContained) {
  std::vector<Attack> attacks = SandboxAttacks();
  nlohmann::json plan = nlohmann::json::array();
  for (const Attack& a : attacks) {
    plan.push_back({{"file", a.file},
                    {"path", std::string(CODERUNNER_HOSTILE_DIR) + "/" + a.file},
                    {"template", a.language},
                    {"run", RunnerOf(a.language)},
                    {"timeout_ms", a.limits.value("timeout_ms", 10000)}});
  }
  const std::string plan_path = server_->workspace_dir() + "/hostile-plan.json";
  std::ofstream(plan_path) << plan.dump();
  CommandResult run =
      RunCommand(SdkEnvironment(server_->port(), clients_) +
                 "node '" CODERUNNER_E2B_TESTS_DIR "/hostile_run.mjs' '" + plan_path + "'");
  std::filesystem::remove(plan_path);
  ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
  std::map<std::string, nlohmann::json> lines;
  std::istringstream in(run.output);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("{", 0) != 0) continue;  // Node's own warnings.
    nlohmann::json line = nlohmann::json::parse(l);
    lines[line.value("file", "")] = line;
  }
  for (const Attack& a : attacks) {
    SCOPED_TRACE(a.file);
    ASSERT_TRUE(lines.count(a.file)) << run.output.substr(0, 4000);
    const nlohmann::json& line = lines[a.file];
    ExpectAttackContained(a, AsAnswer(line));
    // Past its timeoutMs a command is killed, as E2B's envd kills it, not
    // just left behind by its caller.
    if (a.statuses == std::set<std::string>{"timeout"}) {
      EXPECT_EQ(line["left"], nlohmann::json::array()) << line.dump();
    }
    EXPECT_EQ(line["killed"], true) << line.dump();
  }
  EXPECT_EQ(lines["(after)"].value("stdout", ""), "ok\n") << run.output.substr(0, 4000);
}

}  // namespace
}  // namespace coderunner::testing
