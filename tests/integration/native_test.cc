// code_runner.runtime: native end to end: a real `coderunner serve` whose
// jobs run as host processes (python3 of this machine). The engine under
// test is still pinged; no job uses it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/api/server.h"
#include "run_command.h"
#include "server_process.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

// A native job's end kills every process of its uid (KillNative), so this
// server's uids must be no other server's: ctest runs the docker and podman
// copies of these tests, and the other suites, at the same time, and their
// containers use ranges from 2100065536 up (ServerProcess). Each test
// process takes 64 uids of its own, keyed by its pid (unique among live
// processes), below that range.
std::string NativeYaml() {
  const int64_t uid_first = 1000000000 + static_cast<int64_t>(getpid()) * 64;
  return "code_runner: {runtime: native}\nsecurity: {mode: permissive}\npool: {enabled: false}\n"
         "sandbox: {uid_first: " +
         std::to_string(uid_first) + ", uid_count: 64}\n";
}

// A directory every job uid may write into (for marker files), removed after.
class SharedDir {
 public:
  SharedDir() {
    std::string tmpl = ::testing::TempDir() + "/coderunner-native-it-XXXXXX";
    path_ = mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
    chmod(path_.c_str(), 0777);
  }
  ~SharedDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(NativeStartupTest, RefusesNativeWithoutPermissiveNamingBothKeys) {
  SharedDir dir;
  for (const char* security : {"", "security: {mode: strict}\n"}) {
    SCOPED_TRACE(security);
    std::string config = dir.path() + "/config.yaml";
    std::ofstream(config) << "code_runner: {runtime: native}\n" << security;
    CommandResult r = RunCommand(ServiceBinary() + " serve --config " + config);
    const std::string& out = r.output;
    EXPECT_EQ(r.exit_code, 2) << out;  // kExitStartupFailed.
    EXPECT_NE(out.find("code_runner.runtime: native needs security.mode: permissive"),
              std::string::npos)
        << out;
  }
}

class NativeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(
        NativeYaml(), "", std::map<std::string, std::string>{{"CODERUNNER_LEAK_PROBE", "leaked"}});
    ASSERT_TRUE(server_->started()) << server_->log();
  }
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(NativeTest, WarnsAtStartupAndInReadyz) {
  EXPECT_NE(server_->log().find("code_runner.runtime is native (allowed by security.mode: "
                                "permissive)"),
            std::string::npos)
      << server_->log();
  HttpAnswer ready = server_->Get("/readyz");
  EXPECT_EQ(ready.json.value("runtime", ""), "native") << ready.body;
  EXPECT_NE(ready.json.value("warning", "").find("WITHOUT a container"), std::string::npos);
}

TEST_F(NativeTest, ResultSaysNativeRunsAsNonRootWithACleanEnvironment) {
  HttpAnswer a = server_->Execute(
      "python",
      "import json, os\nprint(json.dumps({'uid': os.getuid(), 'env': sorted(os.environ),"
      " 'cwd': os.getcwd(), 'home': os.environ['HOME'], 'files': os.listdir('.')}))\n");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "succeeded") << a.body;
  EXPECT_EQ(a.json["runtime"], "native");
  json seen = json::parse(a.json["stdout"].get<std::string>());
  EXPECT_NE(seen["uid"], 0);
  EXPECT_EQ(seen["env"], json({"HOME", "LANG", "PATH", "TMPDIR"})) << seen.dump();
  EXPECT_EQ(seen["cwd"], seen["home"]);
  EXPECT_EQ(seen["files"], json({"main.py"}));
  EXPECT_EQ(a.body.find("leaked"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(seen["cwd"].get<std::string>()));
}

// The program forks a child that would write a marker later; the deadline
// (or the program's own exit) kills the whole process group first.
TEST_F(NativeTest, EndOfTheJobKillsItsProcessGroup) {
  struct Case {
    const char* name;
    const char* tail;  // What the parent does after forking.
    const char* status;
  };
  const Case cases[] = {
      {"timeout", "time.sleep(60)\n", "timeout"},
      {"exit", "sys.exit(0)\n", "succeeded"},
  };
  SharedDir dir;
  // What one case saw: the answer, and the child's /proc/<pid>/stat read
  // right after it.
  struct Seen {
    HttpAnswer answer;
    pid_t child = -1;
    std::string stat;
  };
  auto run = [&](const Case& c) {
    std::string code =
        "import os, sys, time\npid = os.fork()\nif pid == 0:\n    time.sleep(3)\n"
        "    open('" +
        dir.path() + "/" + c.name +
        "', 'w').write('late')\n    os._exit(0)\n"
        "print(pid, flush=True)\n" +
        c.tail;
    Seen seen;
    seen.answer = server_->Execute("python", code, {{"limits", {{"timeout_ms", 1500}}}});
    if (seen.answer.status != 200 || !seen.answer.json["stdout"].is_string()) return seen;
    seen.child = std::atoi(seen.answer.json["stdout"].get<std::string>().c_str());
    std::ifstream stat("/proc/" + std::to_string(seen.child) + "/stat");
    seen.stat.assign(std::istreambuf_iterator<char>(stat), std::istreambuf_iterator<char>());
    return seen;
  };
  // Both cases at once (each job runs as a uid of its own): one wait for
  // the markers, not one per case.
  std::vector<std::future<Seen>> running;
  for (const Case& c : cases) running.push_back(std::async(std::launch::async, run, c));
  std::vector<Seen> seen;
  for (auto& r : running) seen.push_back(r.get());
  for (size_t i = 0; i < seen.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    const HttpAnswer& a = seen[i].answer;
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["status"], cases[i].status) << a.body;
    ASSERT_GT(seen[i].child, 1) << a.body;
    // Gone, or a zombie its new parent has not reaped yet.
    EXPECT_TRUE(seen[i].stat.empty() || seen[i].stat.find(") Z ") != std::string::npos)
        << seen[i].stat;
  }
  // Past the moment either child would have written its marker (each forked
  // before its answer came).
  std::this_thread::sleep_for(std::chrono::seconds(4));
  for (const Case& c : cases) {
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/" + c.name)) << c.name;
  }
}

TEST_F(NativeTest, MemoryLimitFailsALargeAllocation) {
  HttpAnswer a = server_->Execute("python", "x = bytearray(1 << 30)\nprint('allocated')\n",
                                  {{"limits", {{"memory_bytes", 256 << 20}}}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "failed") << a.body;
  EXPECT_NE(a.json["stderr"].get<std::string>().find("MemoryError"), std::string::npos);
  EXPECT_EQ(a.json["stdout"], "");
}

TEST_F(NativeTest, OutputIsCappedAndFlagged) {
  HttpAnswer a = server_->Execute("python", "import sys\nsys.stdout.write('x' * (100 << 20))\n",
                                  {{"limits", {{"output_bytes", 65536}}}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "succeeded") << a.json["stderr"];
  EXPECT_EQ(a.json["stdout"], std::string(65536, 'x'));
  EXPECT_EQ(a.json["stdout_truncated"], true);
  EXPECT_EQ(a.json["runtime"], "native");
}

TEST_F(NativeTest, SandboxesAndVolumesAnswer503) {
  for (const char* path : {"/v1/sandboxes", "/v1/volumes"}) {
    SCOPED_TRACE(path);
    HttpAnswer created = server_->Post(path, R"({"language": "python", "size_bytes": 1048576})");
    EXPECT_EQ(created.status, 503) << created.body;
    EXPECT_EQ(created.json["error"]["code"], api::kReasonNativeRuntime);
    HttpAnswer listed = server_->Get(path);
    EXPECT_EQ(listed.status, 503) << listed.body;
  }
}

}  // namespace
}  // namespace coderunner::testing
