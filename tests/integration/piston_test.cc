// The Piston-compatible API (/api/v2) on a real engine: what Piston clients
// send, and the npm piston-client itself.

#include <filesystem>
#include <string>

#include "engine_fixture.h"
#include "run_command.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

using PistonTest = EngineTest;

json Program(const std::string& language, const std::string& code, json extra = json::object()) {
  extra["language"] = language;
  extra["files"] = json::array({{{"content", code}}});
  return extra;
}

TEST_F(PistonTest, RuntimesListEveryLanguageWithVersionAndAliases) {
  HttpAnswer a = server_->Get("/api/v2/runtimes");
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_TRUE(a.json.is_array()) << a.body;
  std::map<std::string, json> by_language;
  for (const auto& r : a.json) by_language[r["language"]] = r;
  ASSERT_EQ(by_language.size(), 9u) << a.body;
  EXPECT_EQ(by_language["python"]["version"], "3.11.0");
  EXPECT_EQ(by_language["javascript"]["version"], "20.0.0");
  EXPECT_EQ(by_language["javascript"]["runtime"], "node");
  // As Piston names it: TypeScript's version and aliases, no runtime field.
  EXPECT_EQ(by_language["typescript"], json::parse(R"({"language":"typescript","version":"5.0.0",
                            "aliases":["ts","node-ts","tsc","typescript5","ts5"]})"))
      << a.body;
  EXPECT_EQ(by_language["bash"]["aliases"], json::array({"sh"}));
  EXPECT_EQ(server_->Get("/api/v2/piston/runtimes").json, a.json);
}

TEST_F(PistonTest, PackagesAreTheRuntimesInstalledAndCannotBeRemoved) {
  HttpAnswer list = server_->Get("/api/v2/packages");
  ASSERT_EQ(list.status, 200) << list.body;
  ASSERT_EQ(list.json.size(), 9u) << list.body;
  EXPECT_NE(list.body.find(R"("language":"typescript","language_version":"5.0.0")"),
            std::string::npos)
      << list.body;
  for (const auto& p : list.json) EXPECT_EQ(p["installed"], true) << list.body;
  EXPECT_EQ(server_->Get("/api/v2/piston/packages").json, list.json);
  // What a Piston deployment script sends at start: answered as installed.
  HttpAnswer install = server_->Post("/api/v2/packages", R"({"language":"python","version":"*"})");
  EXPECT_EQ(install.status, 200) << install.body;
  EXPECT_EQ(install.json, json::parse(R"({"language":"python","version":"3.11.0"})"));
  HttpAnswer missing = server_->Post("/api/v2/packages", R"({"language":"cobol","version":"*"})");
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_NE(missing.json.value("message", "").find("cobol-*"), std::string::npos) << missing.body;
  HttpAnswer remove = server_->Call("DELETE", "/api/v2/packages", "", R"({"language":"bash"})");
  EXPECT_EQ(remove.status, 422) << remove.body;
  EXPECT_EQ(remove.json["error"]["code"], "package_fixed") << remove.body;
  EXPECT_EQ(server_->Get("/api/v2/runtimes").json.size(), 9u);
}

TEST_F(PistonTest, RunsPythonJavaScriptAndBash) {
  struct Case {
    const char* language;
    const char* code;
    const char* out;
  };
  const Case cases[] = {
      {"python", "print(6*7)", "42\n"},
      {"javascript", "console.log(6*7)", "42\n"},
      {"bash", "echo $((6*7))", "42\n"},
      {"typescript", "const n: number = 6;\nconsole.log(n * 7)", "42\n"},
      {"ts", "enum E { A = 42 }\nconsole.log(E.A)", "42\n"},
      {"py", "print('alias')", "alias\n"},
      {"node", "console.log('alias')", "alias\n"},
      {"sh", "echo alias", "alias\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.language);
    HttpAnswer a = server_->Post("/api/v2/execute", Program(c.language, c.code).dump());
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["run"]["stdout"], c.out);
    EXPECT_EQ(a.json["run"]["stderr"], "");
    EXPECT_EQ(a.json["run"]["output"], c.out);
    EXPECT_EQ(a.json["run"]["code"], 0);
    EXPECT_EQ(a.json["run"]["signal"], nullptr);
    EXPECT_TRUE(a.json["version"].is_string());
  }
}

// As Piston answers a compiled language: a compile stage, and no run stage
// when the build failed.
TEST_F(PistonTest, CompiledLanguagesHaveACompileStage) {
  HttpAnswer built = server_->Post(
      "/api/v2/execute",
      Program("c++", "#include <cstdio>\nint main() { std::puts(\"42\"); }\n").dump());
  ASSERT_EQ(built.status, 200) << built.body;
  EXPECT_EQ(built.json["language"], "cpp");
  EXPECT_EQ(built.json["compile"]["code"], 0) << built.body;
  EXPECT_EQ(built.json["run"]["stdout"], "42\n") << built.body;
  HttpAnswer broken =
      server_->Post("/api/v2/execute", Program("gcc", "int main(void) { return x; }\n").dump());
  ASSERT_EQ(broken.status, 200) << broken.body;
  EXPECT_EQ(broken.json["compile"]["code"], 1) << broken.body;
  EXPECT_NE(broken.json["compile"]["stderr"].get<std::string>().find("main.c:1:"),
            std::string::npos)
      << broken.body;
  EXPECT_FALSE(broken.json.contains("run")) << broken.body;
}

TEST_F(PistonTest, BodyWithoutJsonContentTypeIsReadAsJson) {
  for (const char* type : {"text/plain;charset=UTF-8", "application/x-www-form-urlencoded"}) {
    SCOPED_TRACE(type);
    HttpAnswer a = server_->Post("/api/v2/execute", Program("bash", "echo ok").dump(), type);
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["run"]["stdout"], "ok\n");
  }
}

TEST_F(PistonTest, MissingOrStarVersionMeansLatest) {
  for (json version : {json(nullptr), json("*"), json("3.11.0"), json("3")}) {
    SCOPED_TRACE(version.dump());
    json body = Program("python", "import sys; print(sys.version_info[:2])");
    if (!version.is_null()) body["version"] = version;
    HttpAnswer a = server_->Post("/api/v2/execute", body.dump());
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["version"], "3.11.0");
    EXPECT_EQ(a.json["run"]["stdout"], "(3, 11)\n");
  }
}

TEST_F(PistonTest, UnnamedAndMultipleFilesFirstIsTheProgram) {
  json body = {{"language", "python"},
               {"files",
                {{{"name", "prog.py"},
                  {"content", "import helper\nprint(helper.X, open('file2.code').read())"}},
                 {{"name", "helper.py"}, {"content", "X = 'from helper'"}},
                 {{"content", "unnamed"}}}}};
  HttpAnswer a = server_->Post("/api/v2/execute", body.dump());
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["run"]["stdout"], "from helper unnamed\n") << a.body;

  json encoded = {
      {"language", "bash"},
      {"files",
       {{{"content", "Y2F0IGRhdGEuYmluIHwgb2QgLUEgbiAtdCB4MQo="}, {"encoding", "base64"}},
        {{"name", "data.bin"}, {"content", "00ff"}, {"encoding", "hex"}}}}};
  a = server_->Post("/api/v2/execute", encoded.dump());
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["run"]["stdout"], " 00 ff\n") << a.body;
}

TEST_F(PistonTest, ArgsAndStdinReachTheProgram) {
  json body = Program("python", "import sys\nprint(sys.argv[1:], sys.stdin.read())",
                      {{"args", {"1", "2", "3"}}, {"stdin", "piped"}});
  HttpAnswer a = server_->Post("/api/v2/execute", body.dump());
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["run"]["stdout"], "['1', '2', '3'] piped\n");
}

TEST_F(PistonTest, NonZeroExitKeepsCodeAndStderrInOutput) {
  HttpAnswer a =
      server_->Post("/api/v2/execute", Program("bash", "echo out; echo err >&2; exit 4").dump());
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["run"]["code"], 4);
  EXPECT_EQ(a.json["run"]["stderr"], "err\n");
  EXPECT_EQ(a.json["run"]["output"], "out\nerr\n");
}

TEST_F(PistonTest, RunTimeoutKillsWithSigkill) {
  json body = Program("python", "import time\nprint('start', flush=True)\ntime.sleep(30)",
                      {{"run_timeout", 1000}, {"run_memory_limit", -1}});
  HttpAnswer a = server_->Post("/api/v2/execute", body.dump());
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["run"]["signal"], "SIGKILL") << a.body;
  EXPECT_EQ(a.json["run"]["code"], nullptr);
  // Killed (SIGKILL, no exit code) after it started: only run_timeout
  // could, the program would sleep 30 s and exit 0.
  EXPECT_EQ(a.json["run"]["stdout"], "start\n");
}

TEST_F(PistonTest, ErrorsAnswerPistonsMessage) {
  struct Case {
    const char* name;
    std::string body;
    int status;
    const char* message;
  };
  const Case cases[] = {
      {"UnknownLanguage", Program("cobol", "x").dump(), 400, "cobol-* runtime is unknown"},
      {"UnknownVersion", Program("python", "x", {{"version", "2.7.18"}}).dump(), 400,
       "python-2.7.18 runtime is unknown"},
      {"NoFiles", R"j({"language":"python"})j", 400, "files is required"},
      {"NotJson", "language=python", 400, "malformed JSON"},
      {"BodyOverTheLimit", std::string(3 << 20, ' '), 413, "request body exceeds the limit"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    HttpAnswer a = server_->Post("/api/v2/execute", c.body);
    EXPECT_EQ(a.status, c.status) << a.body;
    ASSERT_TRUE(a.json.contains("message")) << a.body;
    EXPECT_NE(a.json["message"].get<std::string>().find(c.message), std::string::npos) << a.body;
    EXPECT_EQ(a.json["error"]["message"], a.json["message"]);
  }
}

class PistonAuthTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "free", "piston-test-key"}});
  }
};

TEST_F(PistonAuthTest, ApiKeysModeTakesTheKeyAsABearerHeader) {
  HttpAnswer anonymous = server_->Post("/api/v2/execute", Program("bash", "echo hi").dump());
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  EXPECT_TRUE(anonymous.json["message"].is_string()) << anonymous.body;
  EXPECT_EQ(server_->Call("GET", "/api/v2/runtimes", "").status, 401);

  HttpAnswer keyed = server_->Call("POST", "/api/v2/execute", "piston-test-key",
                                   Program("bash", "echo hi", {{"run_timeout", 999999}}).dump());
  ASSERT_EQ(keyed.status, 200) << keyed.body;
  EXPECT_EQ(keyed.json["run"]["stdout"], "hi\n");
  EXPECT_EQ(server_->Call("GET", "/api/v2/runtimes", "piston-test-key").status, 200);
}

// The unchanged npm piston-client (pinned in scripts/install-deps.sh) run by
// tests/piston/piston_client_check.js against a live server.
using PistonClientTest = EngineTest;

TEST_F(PistonClientTest, NpmPistonClientRunsPythonJavaScriptAndBash) {
  std::string dir = CODERUNNER_PISTON_CLIENT_DIR;
  if (const char* env = getenv("CODERUNNER_PISTON_CLIENT_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  }
  std::string modules = dir + "/node_modules";
  ASSERT_TRUE(std::filesystem::exists(modules + "/piston-client/index.js"))
      << "the npm piston-client is not installed in " << dir
      << "; install it with: npm install --prefix " << dir
      << " piston-client@1.0.2 (scripts/install-deps.sh does this)";
  ASSERT_EQ(system("command -v node > /dev/null"), 0)
      << "node is not installed (apt-get install nodejs)";
  CommandResult r = RunCommand("NODE_PATH='" + modules +
                               "' node '" CODERUNNER_PISTON_CHECK_SCRIPT "' http://127.0.0.1:" +
                               std::to_string(server_->port()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("all piston-client checks passed"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace coderunner::testing
