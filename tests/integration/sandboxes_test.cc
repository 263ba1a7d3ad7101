// Stateful sandboxes on a real engine: state across calls in every
// language, files, TTL expiry, a service restart with live sandboxes,
// timeouts and OOM inside a call, the hostile programs run inside
// sandboxes, and tenant isolation.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/sha256.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/curl_transport.h"
#include "coderunner/isolation/container_policy.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kAcme = "acme-key-0123456789";        // tier pro
constexpr const char* kInitech = "initech-key-0123456789";  // tier pro
constexpr const char* kGlobex = "globex-key-0123456789";    // tier free

class SandboxesTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml(
        {{"acme", "pro", kAcme}, {"initech", "pro", kInitech}, {"globex", "free", kGlobex}});
  }

  void TearDown() override {
    // Sandboxes outlive the service by design: remove them first.
    if (server_ && server_->started()) {
      for (const char* k : {kAcme, kInitech, kGlobex}) {
        HttpAnswer list = server_->Call("GET", "/v1/sandboxes", k);
        if (!list.json.is_object()) continue;
        for (const auto& s : list.json["sandboxes"]) {
          server_->Call("DELETE", "/v1/sandboxes/" + s["id"].get<std::string>(), k);
        }
      }
      std::error_code ec;
      std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);
    }
    EngineTest::TearDown();
  }

  std::string Create(const std::string& key, const json& body) {
    HttpAnswer a = server_->Call("POST", "/v1/sandboxes", key, body.dump());
    EXPECT_EQ(a.status, 201) << a.body;
    if (a.status == 201) {
      EXPECT_EQ(a.json["state"], "running") << a.body;
      EXPECT_TRUE(a.json.contains("expires_at")) << a.body;
    }
    return a.json.is_object() ? a.json.value("id", "") : "";
  }

  // A volume of `size_bytes` for the tenant of `key`; its id, "" on failure.
  std::string CreateVolume(const std::string& key, int64_t size_bytes) {
    HttpAnswer v =
        server_->Call("POST", "/v1/volumes", key, json{{"size_bytes", size_bytes}}.dump());
    EXPECT_EQ(v.status, 201) << v.body;
    return v.status == 201 ? v.json.value("id", "") : "";
  }

  HttpAnswer Exec(const std::string& key, const std::string& id, const std::string& code,
                  const json& extra = json::object()) {
    json body = extra;
    body["code"] = code;
    return server_->Call("POST", "/v1/sandboxes/" + id + "/execute", key, body.dump());
  }

  // Runs `code` and expects success with `want_stdout`.
  void ExpectOutput(const std::string& id, const std::string& code, const std::string& want) {
    HttpAnswer a = Exec(kAcme, id, code);
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["status"], "succeeded") << a.body;
    EXPECT_EQ(a.json["stdout"], want) << a.body;
    EXPECT_EQ(a.json["state_lost"], false) << a.body;
  }

  // Those of the sandbox's containers that are running.
  int SandboxContainersRunning(const std::string& id) {
    engine::CurlTransport transport(server_->socket());
    engine::ContainerClient containers(transport, std::chrono::seconds(30));
    auto list = containers.List(
        {{isolation::kLabelInstance, server_->instance()}, {isolation::kLabelSandbox, id}});
    if (!list.ok()) return -1;
    return static_cast<int>(std::count_if(list->begin(), list->end(),
                                          [](const auto& c) { return c.state == "running"; }));
  }

  int SandboxContainers(const std::string& id) {
    return CountLabelled(server_->socket(), {{"io.coderunner.instance", server_->instance()},
                                             {"io.coderunner.sandbox", id}});
  }
};

struct StateCase {
  const char* language;
  const char* calls[3];
  const char* want;  // stdout of the third call.
};

class SandboxStateTest : public SandboxesTest, public ::testing::WithParamInterface<StateCase> {};

TEST_P(SandboxStateTest, StateCarriesOverThreeCalls) {
  const StateCase& c = GetParam();
  std::string id = Create(kAcme, {{"language", c.language}});
  ASSERT_FALSE(id.empty());
  for (int i = 0; i < 2; ++i) {
    HttpAnswer a = Exec(kAcme, id, c.calls[i]);
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["status"], "succeeded") << a.body;
  }
  ExpectOutput(id, c.calls[2], c.want);
  HttpAnswer got = server_->Call("GET", "/v1/sandboxes/" + id, kAcme);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.json["executions"], 3) << got.body;
  EXPECT_EQ(got.json["language"], c.language);
  EXPECT_EQ(SandboxContainers(id), 1);
}

INSTANTIATE_TEST_SUITE_P(
    Languages, SandboxStateTest,
    ::testing::Values(
        StateCase{
            "python", {"import json\nx = 41", "def f():\n    return x + 1", "print(f())"}, "42\n"},
        StateCase{"javascript",
                  {"var x = 41; let y = 1;", "function f() { return x + y; }", "console.log(f())"},
                  "42\n"},
        StateCase{"typescript",
                  {"interface P { x: number }\nconst p: P = { x: 40 };\nenum E { One = 1 }",
                   "let y: number = 1;\nfunction f<T extends P>(v: T): number { return v.x + y; }",
                   "console.log(f(p) + E.One)"},
                  "42\n"},
        StateCase{"bash", {"x=41", "f() { echo $((x + 1)); }; cd /tmp", "f; pwd"}, "42\n/tmp\n"}),
    [](const ::testing::TestParamInfo<StateCase>& info) { return info.param.language; });

TEST_F(SandboxesTest, ValuesAndErrorsAreReportedAndTheStateSurvivesThem) {
  std::string id = Create(kAcme, {{"language", "python"}});
  ExpectOutput(id, "x = 7", "");
  HttpAnswer v = Exec(kAcme, id, "x * 6");
  ASSERT_EQ(v.status, 200) << v.body;
  EXPECT_EQ(v.json["stdout"], "") << v.body;
  EXPECT_EQ(v.json["results"], json::parse(R"([{"is_main_result":true,"text":"42"}])")) << v.body;
  HttpAnswer a = Exec(kAcme, id, "print('before')\n1/0");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "failed") << a.body;
  EXPECT_EQ(a.json["exit_code"], 1);
  EXPECT_EQ(a.json["stdout"], "before\n");
  EXPECT_NE(a.json["stderr"].get<std::string>().find("ZeroDivisionError"), std::string::npos)
      << a.body;
  EXPECT_EQ(a.json["stderr"].get<std::string>().find("coderunner-repl"), std::string::npos)
      << "the driver's own frames leak into the traceback: " << a.body;
  EXPECT_EQ(a.json["exception"]["name"], "ZeroDivisionError") << a.body;
  EXPECT_EQ(a.json["exception"]["value"], "division by zero") << a.body;
  ExpectOutput(id, "print(x)", "7\n");
}

TEST_F(SandboxesTest, TypeScriptCellsImportAwaitAndSurviveASyntaxError) {
  std::string id = Create(kAcme, {{"language", "ts"}});
  ASSERT_FALSE(id.empty());
  ExpectOutput(id, "import { join } from \"node:path\";\nconst base: string = join(\"a\", \"b\");",
               "");
  ExpectOutput(id, "const n: number = await Promise.resolve(2);\nconsole.log(base, n);", "a/b 2\n");
  HttpAnswer a = Exec(kAcme, id, "console.log(1);\nconst broken = ;");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "failed") << a.body;
  EXPECT_EQ(a.json["stdout"], "") << "nothing of a cell that does not compile runs: " << a.body;
  EXPECT_NE(a.json["stderr"].get<std::string>().find("SyntaxError: cell.ts:2:"), std::string::npos)
      << a.body;
  ExpectOutput(id, "console.log(base, n * 21);", "a/b 42\n");
  // What `tsx main.ts` gives a file: require, __dirname, __filename, module;
  // a cell that exports compiles to `module.exports = ...` and must run.
  ExpectOutput(id,
               "const assert = require(\"node:assert\");\n"
               "export const k: number = 1;\n"
               "assert.strictEqual(module.exports.k, k);\n"
               "console.log(__dirname, require(\"node:path\").basename(__filename), global === "
               "globalThis);",
               "/workspace cell.ts true\n");
}

TEST_F(SandboxesTest, FilesGoInAndOutputFilesPersist) {
  std::string id = Create(kAcme, {{"language", "python"}});
  HttpAnswer a = Exec(kAcme, id,
                      "data = open('input/data.csv').read()\n"
                      "open('/output/report.txt', 'w').write(data.upper())\n"
                      "print(len(data))",
                      {{"files", {{{"path", "input/data.csv"}, {"content", "a,b\n1,2\n"}}}}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["stdout"], "8\n") << a.body;
  ASSERT_EQ(a.json["files"].size(), 1u) << a.body;
  EXPECT_EQ(a.json["files"][0]["path"], "report.txt");
  EXPECT_EQ(a.json["files"][0]["size"], 8);
  EXPECT_EQ(a.json["files"][0]["sha256"], Sha256Hex("A,B\n1,2\n"));
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes/" + id + "/files/report.txt", kAcme).body,
            "A,B\n1,2\n");
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes/" + id + "/files/nope.txt", kAcme).status, 404);
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes/" + id + "/files/%2e%2e/x", kAcme).status, 400);
  // A later call sees the file and can add to it; the same input path can
  // be sent again.
  HttpAnswer b = Exec(kAcme, id,
                      "print(open('/output/report.txt').read().count(',') + "
                      "len(open('input/data.csv').read()))",
                      {{"files", {{{"path", "input/data.csv"}, {"content", "x"}}}}});
  EXPECT_EQ(b.json["stdout"], "3\n") << b.body;
  HttpAnswer list = server_->Call("GET", "/v1/sandboxes/" + id + "/files", kAcme);
  EXPECT_EQ(list.json["files"].size(), 1u) << list.body;
  // The workspace stays read-only.
  HttpAnswer ro = Exec(kAcme, id, "open('x.txt', 'w')");
  EXPECT_EQ(ro.json["status"], "failed") << ro.body;
}

TEST_F(SandboxesTest, TtlExpiryRemovesTheContainerAndItsFiles) {
  std::string id = Create(kAcme, {{"language", "bash"}, {"ttl_s", 2}});
  ASSERT_FALSE(id.empty());
  ExpectOutput(id, "echo hi > /output/f; echo ok", "ok\n");
  std::string state;
  for (auto until = std::chrono::steady_clock::now() + 20s;
       std::chrono::steady_clock::now() < until;) {
    state = server_->Call("GET", "/v1/sandboxes/" + id, kAcme).json.value("state", "");
    if (state == "expired") break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_EQ(state, "expired");
  EXPECT_EQ(SandboxContainers(id), 0);
  EXPECT_FALSE(std::filesystem::exists(server_->artifacts_dir() + "/sandboxes/" + id));
  EXPECT_FALSE(std::filesystem::exists(server_->workspace_dir() + "/sandboxes/" + id));
  HttpAnswer a = Exec(kAcme, id, "echo again");
  EXPECT_EQ(a.status, 409) << a.body;
  EXPECT_EQ(a.json["error"]["code"], "sandbox_not_running") << a.body;
  HttpAnswer listed = server_->Call("GET", "/v1/sandboxes?state=expired", kAcme);
  ASSERT_EQ(listed.json["sandboxes"].size(), 1u) << listed.body;
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes?state=running", kAcme).json["sandboxes"].size(),
            0u);
}

TEST_F(SandboxesTest, StateSurvivesARestartOfTheService) {
  std::string py = Create(kAcme, {{"language", "python"}});
  std::string js = Create(kAcme, {{"language", "javascript"}});
  ExpectOutput(py, "secret = 'kept'\nimport math", "");
  ExpectOutput(js, "var counter = 41;", "");
  ASSERT_TRUE(server_->Stop()) << server_->log();
  EXPECT_EQ(SandboxContainers(py), 1) << "the sandbox died with the service";
  auto restarted = std::make_unique<ServerProcess>(*server_);
  ASSERT_TRUE(restarted->started()) << restarted->log();
  server_ = std::move(restarted);
  ExpectOutput(py, "print(secret, math.floor(2.5))", "kept 2\n");
  ExpectOutput(js, "console.log(++counter)", "42\n");
  HttpAnswer got = server_->Call("GET", "/v1/sandboxes/" + py, kAcme);
  EXPECT_EQ(got.json["state"], "running") << got.body;
  EXPECT_EQ(got.json["restarts"], 0) << got.body;
}

// Issue 30: the service is killed in the middle of a call and restarted
// before the call's program ends. The driver finishes that call, then
// takes the next one: the next call's answer holds its own output only,
// none of the interrupted call's, nor its end markers.
TEST_F(SandboxesTest, ACallInterruptedByAServiceCrashNeverLeaksIntoTheNextCall) {
  std::string py = Create(kAcme, {{"language", "python"}});
  const std::string started = server_->artifacts_dir() + "/sandboxes/" + py + "/started";
  const std::string interrupted =
      "import sys, time\n"
      "print('interrupted call, before', flush=True)\n"
      "print('interrupted stderr', file=sys.stderr, flush=True)\n"
      "open('/output/started', 'w').close()\n"
      "time.sleep(3)\n"
      "print('interrupted call, after')\n";
  std::thread call([&] { (void)Exec(kAcme, py, interrupted); });
  for (int i = 0; i < 2000 && !std::filesystem::exists(started); ++i) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(std::filesystem::exists(started)) << "the call never ran";
  server_->Kill9();
  call.join();
  auto restarted = std::make_unique<ServerProcess>(*server_);
  ASSERT_TRUE(restarted->started()) << restarted->log();
  server_ = std::move(restarted);
  HttpAnswer a = Exec(kAcme, py, "import sys\nprint('next')\nprint('next err', file=sys.stderr)");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "succeeded") << a.body;
  EXPECT_EQ(a.json["stdout"], "next\n") << a.body;
  EXPECT_EQ(a.json["stderr"], "next err\n") << a.body;
}

TEST_F(SandboxesTest, ATimeoutInterruptsOnlyTheCallWhereTheInterpreterCan) {
  std::string py = Create(kAcme, {{"language", "python"}});
  ExpectOutput(py, "x = 5", "");
  HttpAnswer a = Exec(kAcme, py, "while True:\n    pass", {{"timeout_ms", 500}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "timeout") << a.body;
  EXPECT_EQ(a.json["state_lost"], false) << a.body;
  ExpectOutput(py, "print(x)", "5\n");

  std::string js = Create(kAcme, {{"language", "javascript"}});
  ExpectOutput(js, "var x = 6;", "");
  HttpAnswer b = Exec(kAcme, js, "while (true) {}", {{"timeout_ms", 500}});
  EXPECT_EQ(b.json["status"], "timeout") << b.body;
  EXPECT_EQ(b.json["state_lost"], false) << b.body;
  ExpectOutput(js, "console.log(x)", "6\n");

  // Bash cannot interrupt itself: the sandbox is replaced, and says so.
  std::string sh = Create(kAcme, {{"language", "bash"}});
  ExpectOutput(sh, "x=7", "");
  HttpAnswer c = Exec(kAcme, sh, "sleep 30", {{"timeout_ms", 500}});
  ASSERT_EQ(c.status, 200) << c.body;
  EXPECT_EQ(c.json["status"], "timeout") << c.body;
  EXPECT_EQ(c.json["state_lost"], true) << c.body;
  EXPECT_TRUE(c.json.contains("notice")) << c.body;
  HttpAnswer d = Exec(kAcme, sh, "echo \"x=${x:-unset}\"");
  EXPECT_EQ(d.json["stdout"], "x=unset\n") << d.body;
  EXPECT_EQ(d.json["status"], "succeeded") << d.body;
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes/" + sh, kAcme).json["restarts"], 1);
  EXPECT_EQ(SandboxContainers(sh), 1);
}

TEST_F(SandboxesTest, OomIsReportedAndTheSandboxComesBack) {
  std::string id =
      Create(kAcme, {{"language", "python"}, {"limits", {{"memory_bytes", 64 << 20}}}});
  ExpectOutput(id, "x = 1", "");
  HttpAnswer a =
      Exec(kAcme, id, "b = bytearray(512 << 20)\nprint('survived')", {{"timeout_ms", 10000}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "oom") << a.body;
  EXPECT_EQ(a.json["state_lost"], true) << a.body;
  ExpectOutput(id, "print('back')", "back\n");
}

// Files whose sizes sum to exactly the 100 MiB cap, inside a directory:
// only the directory's block puts /output over, so init's guard stops the
// call, and the service must count as the guard does (directories too) to
// empty /output before the replacement container starts on it. Counting
// file sizes alone left the tree, init stopped every new container at once
// and the sandbox was stopped for good (a CI flake of the test below).
TEST_F(SandboxesTest, AnOutputOverTheCapOnlyByItsDirectoriesIsEmptiedForTheNextContainer) {
  std::string id = Create(kAcme, {{"language", "bash"}});
  HttpAnswer a = Exec(kAcme, id,
                      "mkdir /output/d\n"
                      "for i in $(seq 1 25); do head -c 4194304 /dev/zero > /output/d/f$i; done\n"
                      "sleep 5\necho not stopped",
                      {{"timeout_ms", 15000}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["state_lost"], true) << a.body;
  EXPECT_EQ(a.json["stdout"], "") << a.body;
  HttpAnswer b = Exec(kAcme, id, "ls -A /output | wc -l; echo $((6*7))");
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_EQ(b.json["stdout"], "0\n42\n") << b.body;
  HttpAnswer got = server_->Call("GET", "/v1/sandboxes/" + id, kAcme);
  EXPECT_EQ(got.json["state"], "running") << got.body;
  EXPECT_EQ(got.json["restarts"], 1) << got.body;
  EXPECT_EQ(SandboxContainers(id), 1);
}

TEST_F(SandboxesTest, HostileProgramsAreContainedInsideSandboxes) {
  // Four sandboxes run their programs side by side, each in turn: two
  // python ones (every other python program), a javascript and a bash one.
  struct Stream {
    std::string ext;
    std::string ok_code;
    std::string id;
    std::vector<std::string> files;
  };
  std::vector<Stream> streams = {{".py", "print(6*7)", "", {}},
                                 {".py", "print(6*7)", "", {}},
                                 {".js", "console.log(6*7)", "", {}},
                                 {".sh", "echo $((6*7))", "", {}}};
  const std::map<std::string, std::string> language_of = {
      {".py", "python"}, {".js", "javascript"}, {".sh", "bash"}};
  for (Stream& st : streams) st.id = Create(kAcme, {{"language", language_of.at(st.ext)}});
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(CODERUNNER_HOSTILE_DIR)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  int python_seen = 0;
  for (const std::string& name : names) {
    std::string ext = std::filesystem::path(name).extension().string();
    if (ext == ".py") {
      streams[python_seen++ % 2].files.push_back(name);
    } else if (ext == ".js" || ext == ".sh") {
      streams[ext == ".js" ? 2 : 3].files.push_back(name);
    }
  }
  std::atomic<int> ran{0};
  auto run = [&](const Stream& st) {
    for (const std::string& name : st.files) {
      HttpAnswer a = Exec(kAcme, st.id, HostileProgram(name), {{"timeout_ms", 3000}});
      EXPECT_EQ(a.status, 200) << name << ": " << a.body.substr(0, 500);
      EXPECT_TRUE(a.json.is_object() && a.json["stdout"].get<std::string>().size() <= (8u << 20))
          << name;
      // The sandbox (possibly replaced) still serves, and says when it was.
      // A process the attack left behind may end the container just as this
      // call starts: that answer says state_lost, and the next one is served.
      // A callback an earlier program scheduled (fork_bomb.js reports from
      // its spawn's error callback) may print during a later call of the
      // same REPL, as in Node's own: this call's answer comes last.
      HttpAnswer next = Exec(kAcme, st.id, st.ok_code, {{"timeout_ms", 10000}});
      auto served = [](const HttpAnswer& h) {
        const std::string out = h.json.is_object() ? h.json.value("stdout", "") : "";
        return out.size() >= 3 && out.compare(out.size() - 3, 3, "42\n") == 0;
      };
      if (next.json.is_object() && next.json.value("state_lost", false) && !served(next)) {
        next = Exec(kAcme, st.id, st.ok_code, {{"timeout_ms", 10000}});
      }
      EXPECT_EQ(next.status, 200) << name << ": " << next.body.substr(0, 500);
      EXPECT_TRUE(served(next)) << name << ": " << next.body.substr(0, 500);
      ++ran;
    }
  };
  std::vector<std::thread> threads;
  for (const Stream& st : streams) threads.emplace_back(run, std::cref(st));
  for (std::thread& t : threads) t.join();
  EXPECT_GE(ran.load(), 30);
  for (const Stream& st : streams) EXPECT_EQ(SandboxContainers(st.id), 1) << st.ext;
  // And ordinary jobs are unaffected.
  HttpAnswer job = server_->Call("POST", "/v1/execute", kAcme,
                                 R"j({"language":"python","code":"print(6*7)","cache":false})j");
  EXPECT_EQ(job.json["stdout"], "42\n") << job.body;
  EXPECT_EQ(job.json["cached"], false) << job.body;
}

TEST_F(SandboxesTest, APersistentVolumeIsOutputAndOutlivesTheSandbox) {
  std::string vol = CreateVolume(kAcme, 1048576);
  ASSERT_FALSE(vol.empty());
  std::string id = Create(kAcme, {{"language", "python"}, {"volume_id", vol}});
  ASSERT_FALSE(id.empty());
  HttpAnswer a = Exec(kAcme, id, "open('/output/notes.txt', 'w').write('kept')\nprint('ok')");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["stdout"], "ok\n") << a.body;
  ASSERT_EQ(a.json["files"].size(), 1u) << a.body;
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes/" + id + "/files/notes.txt", kAcme).body, "kept");
  // The engine refuses to delete a volume a live sandbox mounts.
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + vol, kAcme).status, 409);
  // Over the volume's quota: that call's writes are rolled back, earlier
  // calls' files stay.
  HttpAnswer big =
      Exec(kAcme, id, "open('/output/big', 'wb').write(b'x' * (4 << 20))", {{"timeout_ms", 10000}});
  EXPECT_EQ(big.status, 200) << big.body;
  EXPECT_EQ(big.json["status"], "failed") << big.body;
  EXPECT_EQ(big.json["error"]["code"], "volume_quota_exceeded") << big.body;
  // The sandbox goes on (replaced if coderunner-init caught the write first).
  HttpAnswer after = Exec(kAcme, id, "import os\nprint(sorted(os.listdir('/output')))");
  if (after.json.value("state_lost", false)) {
    after = Exec(kAcme, id, "import os\nprint(sorted(os.listdir('/output')))");
  }
  EXPECT_EQ(after.json["stdout"], "['notes.txt']\n") << after.body;
  ASSERT_EQ(server_->Call("DELETE", "/v1/sandboxes/" + id, kAcme).status, 200);
  // The files stay in the volume.
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + vol + "/files/notes.txt", kAcme).body, "kept");
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + vol + "/files/big", kAcme).status, 404);
  // Another tenant's volume is 404; a tier without volumes is 403.
  HttpAnswer other =
      server_->Call("POST", "/v1/sandboxes", kInitech, json{{"volume_id", vol}}.dump());
  EXPECT_EQ(other.status, 404) << other.body;
  HttpAnswer free =
      server_->Call("POST", "/v1/sandboxes", kGlobex, json{{"volume_id", vol}}.dump());
  EXPECT_EQ(free.status, 403) << free.body;
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + vol, kAcme).status, 200);
}

TEST_F(SandboxesTest, AVolumeOverfilledBetweenCallsIsRolledBackAndTheSandboxGoesOn) {
  std::string vol = CreateVolume(kAcme, 1048576);
  ASSERT_FALSE(vol.empty());
  std::string id = Create(kAcme, {{"language", "python"}, {"volume_id", vol}});
  ASSERT_FALSE(id.empty());
  // A thread the call leaves behind breaks the quota after the call ended:
  // coderunner-init stops the container, and nothing of the call is there
  // to roll back.
  HttpAnswer a = Exec(kAcme, id,
                      "open('/output/notes.txt', 'w').write('kept')\n"
                      "import threading, time\n"
                      "def late():\n"
                      "    time.sleep(0.3)\n"
                      "    open('/output/late', 'wb').write(b'x' * (4 << 20))\n"
                      "threading.Thread(target=late).start()\n"
                      "print('ok')");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["stdout"], "ok\n") << a.body;
  // The late write breaks the quota and coderunner-init stops the container.
  EXPECT_TRUE(Eventually([&] { return SandboxContainersRunning(id) == 0; }));
  const char* list = "import os\nprint(sorted(os.listdir('/output')))";
  HttpAnswer after = Exec(kAcme, id, list);
  ASSERT_EQ(after.status, 200) << after.body;
  EXPECT_EQ(after.json["state_lost"], true) << after.body;
  EXPECT_EQ(after.json["status"], "succeeded") << after.body;
  EXPECT_EQ(after.json["stdout"], "['notes.txt']\n") << after.body;
  EXPECT_GE(server_->Call("GET", "/v1/sandboxes/" + id, kAcme).json.value("restarts", 0), 1);
  ASSERT_EQ(server_->Call("DELETE", "/v1/sandboxes/" + id, kAcme).status, 200);
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + vol, kAcme).status, 200);
}

TEST_F(SandboxesTest, AnotherTenantsSandboxIs404AndTierCapsHold) {
  std::string id = Create(kAcme, {{"language", "python"}});
  const std::string base = "/v1/sandboxes/" + id;
  EXPECT_EQ(server_->Call("GET", base, kInitech).status, 404);
  EXPECT_EQ(Exec(kInitech, id, "print(1)").status, 404);
  EXPECT_EQ(server_->Call("GET", base + "/files", kInitech).status, 404);
  EXPECT_EQ(server_->Call("DELETE", base, kInitech).status, 404);
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes", kInitech).json["sandboxes"].size(), 0u);
  EXPECT_EQ(server_->Call("GET", base, "").status, 401);

  // Tier free: at most 2 live sandboxes, TTL at most a day.
  Create(kGlobex, {{"language", "bash"}});
  Create(kGlobex, {{"language", "bash"}});
  HttpAnswer third = server_->Call("POST", "/v1/sandboxes", kGlobex, R"({"language":"bash"})");
  EXPECT_EQ(third.status, 429) << third.body;
  EXPECT_EQ(third.json["error"]["code"], "sandbox_limit") << third.body;
  EXPECT_NE(third.body.find("free"), std::string::npos) << third.body;
  HttpAnswer ttl = server_->Call("POST", "/v1/sandboxes", kAcme, R"({"ttl_s":99999999})");
  EXPECT_EQ(ttl.status, 422) << ttl.body;

  HttpAnswer del = server_->Call("DELETE", base, kAcme);
  EXPECT_EQ(del.status, 200) << del.body;
  EXPECT_EQ(SandboxContainers(id), 0);
  EXPECT_EQ(server_->Call("GET", base, kAcme).status, 404);
}

}  // namespace
}  // namespace coderunner::testing
