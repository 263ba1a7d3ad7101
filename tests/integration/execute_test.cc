// POST /v1/execute on a real engine: languages, stdin, args, files, limits,
// metrics and the response shape.
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using ExecuteTest = EngineTest;

TEST_F(ExecuteTest, RunsEveryLanguage) {
  struct Case {
    const char* language;
    const char* code;
    const char* stdout_text;
  };
  const Case cases[] = {
      {"python", "print(1+1)", "2\n"},
      {"javascript", "console.log(1+1)", "2\n"},
      {"bash", "echo $((1+1))", "2\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.language);
    HttpAnswer a = server_->Execute(c.language, c.code);
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["status"], "succeeded") << a.body;
    EXPECT_EQ(a.json["exit_code"], 0);
    EXPECT_EQ(a.json["stdout"], c.stdout_text);
    EXPECT_EQ(a.json["language"], c.language);
    EXPECT_EQ(a.json["error"], nullptr);
    EXPECT_TRUE(a.json["image_digest"].get<std::string>().rfind("sha256:", 0) == 0) << a.body;
    EXPECT_EQ(a.json["code_sha256"].get<std::string>().size(), 64u);
    for (const char* m : {"wall_ms", "run_ms", "cpu_ms", "memory_peak_bytes"}) {
      EXPECT_TRUE(a.json["metrics"][m].is_number_integer()) << m;
    }
    EXPECT_GT(a.json["metrics"]["memory_peak_bytes"].get<int64_t>(), 0) << a.body;
  }
}

TEST_F(ExecuteTest, DefaultLanguageIsPython) {
  HttpAnswer a =
      server_->Post("/v1/execute", R"J({"code":"import sys; print(sys.version_info[0])"})J");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["language"], "python");
  EXPECT_EQ(a.json["stdout"], "3\n");
}

TEST_F(ExecuteTest, StdinArgsAndFilesReachTheProgram) {
  nlohmann::json extra = {
      {"stdin", "line one\nline two\n"},
      {"args", {"alpha", "with space", "$(not expanded)"}},
      {"files",
       {{{"path", "data.csv"}, {"content", "a,b\n1,2\n"}},
        {{"path", "nested/dir/blob.bin"}, {"content", "AAEC/w=="}, {"encoding", "base64"}}}}};
  std::string code =
      "import sys\n"
      "print(sys.stdin.read().splitlines())\n"
      "print(sys.argv[1:])\n"
      "print(open('data.csv').read().split())\n"
      "print(list(open('/workspace/nested/dir/blob.bin','rb').read()))\n";
  HttpAnswer a = server_->Execute("python", code, extra);
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "succeeded") << a.body;
  EXPECT_EQ(a.json["stdout"],
            "['line one', 'line two']\n['alpha', 'with space', '$(not expanded)']\n"
            "['a,b', '1,2']\n[0, 1, 2, 255]\n");
}

TEST_F(ExecuteTest, NonZeroExitIsFailedWithStderr) {
  HttpAnswer a =
      server_->Execute("python", "import sys\nprint('oops', file=sys.stderr)\nsys.exit(3)");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "failed");
  EXPECT_EQ(a.json["exit_code"], 3);
  EXPECT_EQ(a.json["stderr"], "oops\n");
  EXPECT_EQ(a.json["signal"], nullptr);
}

TEST_F(ExecuteTest, SignalDeathReportsTheSignal) {
  HttpAnswer a = server_->Execute("bash", "kill -SEGV $$");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "failed") << a.body;
  EXPECT_EQ(a.json["signal"], "SIGSEGV") << a.body;
  EXPECT_EQ(a.json["exit_code"], 128 + 11);
}

TEST_F(ExecuteTest, OutputCapIsConfigurablePerRequest) {
  nlohmann::json r =
      RunUncached("python", "print('x'*5000)", {{"limits", {{"output_bytes", 100}}}});
  EXPECT_EQ(r["stdout"].get<std::string>(), std::string(100, 'x'));
  EXPECT_EQ(r["stdout_truncated"], true);
  EXPECT_EQ(r["stderr_truncated"], false);
}

TEST_F(ExecuteTest, StdoutAndStderrAreDemultiplexed) {
  HttpAnswer a = server_->Execute("bash", "for i in 1 2 3; do echo out$i; echo err$i >&2; done");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["stdout"], "out1\nout2\nout3\n");
  EXPECT_EQ(a.json["stderr"], "err1\nerr2\nerr3\n");
}

TEST_F(ExecuteTest, DaemonizedChildDiesWithTheJob) {
  // setsid + double fork: the grandchild must not outlive the job (it would
  // hold the output open and the wall clock would end the job as timeout,
  // not as succeeded). tests/hostile/double_fork.py proves it dead.
  nlohmann::json r =
      RunUncached("bash", "setsid bash -c 'sleep 300 & disown' & sleep 0.2; echo parent done",
                  {{"limits", {{"timeout_ms", 20000}}}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["stdout"], "parent done\n") << r.dump();
}

TEST_F(ExecuteTest, LanguagesListsImagesWithDigests) {
  HttpAnswer a = server_->Get("/v1/languages");
  ASSERT_EQ(a.status, 200) << a.body;
  // python, javascript, typescript, bash, c, cpp, go, java, rust
  ASSERT_EQ(a.json["languages"].size(), 9u);
  for (const auto& l : a.json["languages"]) {
    EXPECT_TRUE(l["image_digest"].is_string()) << l.dump();
    EXPECT_EQ(l["default"], l["name"] == "python");
  }
  EXPECT_EQ(server_->Get("/healthz").status, 200);
  EXPECT_EQ(server_->Get("/readyz").status, 200);
}

}  // namespace
}  // namespace coderunner::testing
