// The command-line client end to end: the built `coderunner` binary run as
// a child process against a real service (ServerProcess) on the engine
// under test, its stdout, stderr and exit code checked separately.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"
#include "fake_llm.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

struct CliOptions {
  std::string stdin_data;
  std::map<std::string, std::string> env;  // Set (or, with value "\x01", removed).
  bool stderr_tty = false;                 // stderr on a pseudo-terminal.
  // Called with the child's pid on another thread while it runs.
  std::function<void(pid_t)> while_running;
};

// Runs the built CLI with `args` and everything it prints. The child gets
// a clean CODERUNNER_* environment plus `options.env`.
CliResult RunCli(const std::vector<std::string>& args, const CliOptions& options = {}) {
  CliResult result;
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return result;
  int tty_slave = -1;
  if (options.stderr_tty) {
    if (openpty(&err[0], &tty_slave, nullptr, nullptr, nullptr) != 0) return result;
    err[1] = tty_slave;
  } else if (pipe2(err, O_CLOEXEC) != 0) {
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    if (kv.rfind("CODERUNNER_URL=", 0) == 0 || kv.rfind("CODERUNNER_API_KEY=", 0) == 0) continue;
    env.push_back(kv);
  }
  for (const auto& [k, v] : options.env) env.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_s = {ServiceBinary()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    return result;
  }
  std::thread writer([fd = in[1], data = options.stdin_data] {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = write(fd, data.data() + done, data.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fd);
  });
  std::thread meddler([&options, pid] {
    if (options.while_running) options.while_running(pid);
  });
  // Both streams at once, so neither pipe fills up and blocks the child.
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (open_fds > 0 && std::chrono::steady_clock::now() < deadline) {
    if (poll(fds, 2, 1000) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[65536];
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        // EOF on a pipe; EIO on a pty master once the child has gone.
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (open_fds > 0) kill(pid, SIGKILL);
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  writer.join();
  meddler.join();
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// Options with one field set (designated initializers would warn about
// the others under -Wextra).
CliOptions Stdin(std::string data) {
  CliOptions o;
  o.stdin_data = std::move(data);
  return o;
}
CliOptions Env(std::map<std::string, std::string> env) {
  CliOptions o;
  o.env = std::move(env);
  return o;
}
CliOptions StderrOnTty() {
  CliOptions o;
  o.stderr_tty = true;
  return o;
}

std::string Describe(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

// A directory of scratch files for one test, removed after it.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/cr-cli-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class CliTest : public EngineTest {
 protected:
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  CliResult Cli(const std::vector<std::string>& args, CliOptions options = {}) {
    if (options.env.count("CODERUNNER_URL") == 0) options.env["CODERUNNER_URL"] = Url();
    return RunCli(args, options);
  }

  ScratchDir dir_;
};

TEST_F(CliTest, RunPrintsTheProgramsStdoutAndStderrByteForByte) {
  std::string prog = dir_.Write("both.py",
                                "import sys\nsys.stdout.buffer.write(b'out \\xff\\x00 bytes\\n')\n"
                                "sys.stdout.flush()\nsys.stderr.write('err line\\n')\n");
  CliResult r = Cli({"run", prog});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, std::string("out \xff\0 bytes\n", 13)) << Describe(r);
  EXPECT_EQ(r.err, "err line\n");
}

TEST_F(CliTest, RunReadsTheProgramFromStdinWithDash) {
  CliResult r = Cli({"run", "--lang", "python", "-"}, Stdin("print(6 * 7)\n"));
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "42\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(CliTest, RunFromStdinWithoutLangIsAUsageError) {
  CliResult r = Cli({"run", "-"}, Stdin("print(1)\n"));
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("pass --lang"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

TEST_F(CliTest, RunGivesTheJobStdinFromAFileOrFromOurs) {
  std::string prog =
      dir_.Write("upper.py", "import sys\nprint(sys.stdin.read().upper(), end='')\n");
  std::string input = dir_.Write("in.txt", "hello\nworld\n");
  CliResult r = Cli({"run", "--stdin", input, prog});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "HELLO\nWORLD\n");
  r = Cli({"run", prog, "--stdin", "-"}, Stdin("piped"));
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "PIPED");
  // Without --stdin the job's stdin is empty, whatever ours holds.
  r = Cli({"run", prog}, Stdin("ignored"));
  EXPECT_EQ(r.out, "") << Describe(r);
}

TEST_F(CliTest, RunAttachesFilesInTheJobsWorkingDirectory) {
  std::string data = dir_.Write("data.csv", "x,y\n1,2\n");
  std::string bin = dir_.Write("blob.bin", std::string("\x00\x01\xfe\xff", 4));
  std::string prog = dir_.Write("show.sh", "cat data.csv; od -An -tx1 blob.bin | tr -d ' \\n'\n");
  CliResult r = Cli({"run", "--file", data, "--file", bin, prog});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "x,y\n1,2\n0001feff") << Describe(r);
}

TEST_F(CliTest, RunLanguageComesFromTheExtension) {
  struct Case {
    const char* name;
    const char* code;
  } cases[] = {{"a.py", "print('py')"},
               {"a.js", "console.log('js')"},
               {"a.mjs", "console.log('mjs')"},
               {"a.sh", "echo sh"},
               {"a.bash", "echo bash"}};
  for (const auto& c : cases) {
    CliResult r = Cli({"run", dir_.Write(c.name, c.code)});
    std::string want = std::string(c.name).substr(2) + "\n";
    EXPECT_EQ(r.exit_code, 0) << c.name << " " << Describe(r);
    EXPECT_EQ(r.out, want) << c.name;
  }
  CliResult r = Cli({"run", dir_.Write("a.rb", "puts 1")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("cannot tell the language"), std::string::npos) << r.err;
}

TEST_F(CliTest, JudgePrintsAVerdictPerCaseInNaturalOrderAndExitsByTheVerdict) {
  std::string prog = dir_.Write("sum.py", "print(sum(map(int, input().split())))\n");
  ScratchDir cases;
  cases.Write("1.in", "1 2\n");
  cases.Write("1.out", "3\n");
  cases.Write("2.in", "2 2\n");
  cases.Write("2.out", "4\n");
  cases.Write("10.in", "5 5\n");
  cases.Write("10.ans", "10\n");
  CliResult r = Cli({"judge", prog, cases.path()});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  size_t one = r.out.find("1   accepted"), two = r.out.find("2   accepted"),
         ten = r.out.find("10  accepted");
  EXPECT_TRUE(one != std::string::npos && two != std::string::npos && ten != std::string::npos &&
              one < two && two < ten)
      << r.out;
  EXPECT_NE(r.out.find("accepted: 3 of 3 cases accepted"), std::string::npos) << r.out;
  cases.Write("2.out", "5\n");
  r = Cli({"judge", "--stop", prog, cases.path()});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.out.find("2   wrong_answer"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10  skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("wrong_answer: 1 of 3 cases accepted"), std::string::npos) << r.out;
  r = Cli({"judge", dir_.Write("bad.c", "int main(void) { return 0 }\n"), cases.path()});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("error"), std::string::npos) << "the compiler's messages: " << r.err;
  EXPECT_NE(r.out.find("compile_error: 0 of 3"), std::string::npos) << r.out;
}

TEST_F(CliTest, RunExitCodeMirrorsTheJob) {
  struct Case {
    const char* file;
    const char* code;
    int want;
  } cases[] = {
      {"exit3.py", "import sys\nsys.exit(3)", 3},
      {"exit0.sh", "exit 0", 0},
      {"segv.sh", "kill -SEGV $$", 128 + SIGSEGV},
      {"throw.js", "throw new Error('x')", 1},
  };
  for (const auto& c : cases) {
    CliResult r = Cli({"run", dir_.Write(c.file, c.code)});
    EXPECT_EQ(r.exit_code, c.want) << c.file << " " << Describe(r);
  }
}

TEST_F(CliTest, RunPassesArguments) {
  std::string prog = dir_.Write("args.py", "import sys\nprint(sys.argv[1:])");
  CliResult r = Cli({"run", "--arg", "a b", prog, "--", "c", "--d"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "['a b', 'c', '--d']\n");
}

TEST_F(CliTest, RunTimeoutExitsWith124) {
  std::string prog = dir_.Write("sleep.py",
                                "import time\nprint('started', flush=True)\n"
                                "time.sleep(30)\n");
  CliResult r = Cli({"run", "--timeout", "1500", prog});
  EXPECT_EQ(r.exit_code, 124) << Describe(r);
  EXPECT_EQ(r.out, "started\n");
}

TEST_F(CliTest, InterruptCancelsTheRunningJob) {
  std::string prog =
      dir_.Write("long.py", "import time\nprint('started', flush=True)\ntime.sleep(60)\n");
  CliOptions options;
  // Interrupted once its job runs (it would run for 60 s).
  options.while_running = [this](pid_t pid) {
    EXPECT_TRUE(Eventually([&] {
      HttpAnswer running = server_->Get("/v1/jobs?status=running");
      return running.json.is_object() && running.json["jobs"].size() == 1;
    }));
    kill(pid, SIGINT);
  };
  CliResult r = Cli({"run", prog}, options);
  EXPECT_EQ(r.exit_code, 130) << Describe(r);
  EXPECT_NE(r.err.find("interrupted: job job-"), std::string::npos) << r.err;
  HttpAnswer list = server_->Get("/v1/jobs");
  ASSERT_EQ(list.json["jobs"].size(), 1u) << list.body;
  std::string id = list.json["jobs"][0]["id"];
  HttpAnswer done = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=60");
  EXPECT_EQ(done.json["status"], "cancelled") << done.body;
}

TEST_F(CliTest, RunJsonPrintsTheWholeRecord) {
  std::string prog = dir_.Write("hi.py", "print('hi')");
  CliResult r = Cli({"run", "--json", prog});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  json rec = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(rec.is_object()) << r.out;
  EXPECT_EQ(rec["status"], "succeeded");
  EXPECT_EQ(rec["language"], "python");
  EXPECT_EQ(rec["result"]["stdout"], "hi\n");
  EXPECT_EQ(rec["result"]["exit_code"], 0);
  EXPECT_EQ(rec["id"].get<std::string>().rfind("job-", 0), 0u);
  EXPECT_EQ(r.err, "");
}

TEST_F(CliTest, ServiceErrorsArePrintedAndExit125) {
  std::string prog = dir_.Write("hi.py", "print('hi')");
  // Far above any configured maximum: the service refuses it.
  CliResult r = Cli({"run", "--timeout", "999999999", prog});
  EXPECT_EQ(r.exit_code, 125) << Describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("coderunner: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("timeout_ms"), std::string::npos) << r.err;
}

TEST_F(CliTest, UnknownServerIsAClearErrorWithExit125) {
  std::string prog = dir_.Write("hi.py", "print('hi')");
  CliResult r = Cli({"run", prog}, Env({{"CODERUNNER_URL", "http://127.0.0.1:1"}}));
  EXPECT_EQ(r.exit_code, 125) << Describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("cannot reach coderunner at http://127.0.0.1:1"), std::string::npos)
      << r.err;
  // --server wins over the environment.
  r = Cli({"run", "--server", Url(), prog}, Env({{"CODERUNNER_URL", "http://127.0.0.1:1"}}));
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "hi\n");
}

TEST_F(CliTest, HelpListsEverySubcommandAndBadUsageExits2) {
  CliResult r = Cli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub : {"serve", "run", "judge", "intent", "sandbox"}) {
    EXPECT_NE(r.out.find(sub), std::string::npos) << sub << " missing from " << r.out;
  }
  for (const char* sub : {"serve", "run", "judge", "intent", "sandbox"}) {
    CliResult h = Cli({sub, "--help"});
    EXPECT_EQ(h.exit_code, 0) << sub << " " << Describe(h);
    EXPECT_NE(h.out.find(std::string("coderunner ") + sub), std::string::npos) << h.out;
  }
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"frobnicate"},
                                              {"run", "--nope", "x.py"},
                                              {"sandbox", "start"},
                                              {"intent"}}) {
    CliResult b = Cli(bad);
    EXPECT_EQ(b.exit_code, 2) << bad[0] << " " << Describe(b);
    EXPECT_EQ(b.err.find('\n'), b.err.size() - 1) << "one line: " << b.err;
  }
}

class CliSandboxTest : public CliTest {
 protected:
  void TearDown() override {
    // Sandboxes outlive the service by design: remove any a failed test left.
    if (server_ && server_->started()) {
      HttpAnswer list = server_->Get("/v1/sandboxes");
      if (list.json.is_object()) {
        for (const auto& s : list.json["sandboxes"]) {
          server_->Delete("/v1/sandboxes/" + s["id"].get<std::string>());
        }
      }
      std::error_code ec;
      std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);
    }
    CliTest::TearDown();
  }
};

TEST_F(CliSandboxTest, KeepsStateAcrossExecsUntilRemoved) {
  CliResult created = Cli({"sandbox", "create", "--lang", "python", "--ttl", "600"});
  ASSERT_EQ(created.exit_code, 0) << Describe(created);
  std::string id = created.out.substr(0, created.out.find('\n'));
  ASSERT_EQ(id.rfind("sbx-", 0), 0u) << created.out;
  CliResult r = Cli({"sandbox", "exec", id, "-c", "x = 41"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "");
  r = Cli({"sandbox", "exec", id, dir_.Write("next.py", "print(x + 1)")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "42\n");
  r = Cli({"sandbox", "exec", id, "-"},
          Stdin("import sys\nprint('bye', file=sys.stderr)\nsys.exit(4)"));
  EXPECT_EQ(r.exit_code, 4) << Describe(r);
  EXPECT_EQ(r.err, "bye\n");
  r = Cli({"sandbox", "ls"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find(id + "  running  python"), std::string::npos) << r.out;
  r = Cli({"sandbox", "rm", id});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, id + "\n");
  r = Cli({"sandbox", "exec", id, "-c", "print(x)"});
  EXPECT_EQ(r.exit_code, 125) << Describe(r);
  EXPECT_NE(r.err.find(id), std::string::npos) << r.err;
}

constexpr const char* kCliKey = "cli-key-0123456789";

class CliAuthTest : public CliTest {
 protected:
  std::string ExtraConfig() const override { return ApiKeysYaml({{"acme", "pro", kCliKey}}); }
};

TEST_F(CliAuthTest, ApiKeyComesFromTheEnvironment) {
  std::string prog = dir_.Write("hi.py", "print('hi')");
  CliResult r = Cli({"run", prog}, Env({{"CODERUNNER_API_KEY", kCliKey}}));
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "hi\n");
  r = Cli({"run", prog});
  EXPECT_EQ(r.exit_code, 125) << Describe(r);
  EXPECT_NE(r.err.find("missing API key"), std::string::npos) << r.err;
  r = Cli({"run", prog}, Env({{"CODERUNNER_API_KEY", "wrong-key-0123456789"}}));
  EXPECT_EQ(r.exit_code, 125) << Describe(r);
  EXPECT_NE(r.err.find("invalid API key"), std::string::npos) << r.err;
}

class CliIntentTest : public CliTest {
 protected:
  void SetUp() override {
    llm_ = std::make_unique<FakeLlm>();
    ASSERT_TRUE(llm_->started()) << "fake llm server did not start";
    CliTest::SetUp();
  }
  std::string ExtraConfig() const override {
    return "llm: {base_url: \"" + llm_->base_url() + "\", model: fake-model, timeout_ms: 10000}\n";
  }
  void ScriptAddition() {
    json code = CodeReply("```python\nprint(a + b)\n```\n");
    code["delay_ms"] = 500;
    llm_->Script({code, FormatReply("Result: 2")});
  }
  std::unique_ptr<FakeLlm> llm_;
};

TEST_F(CliIntentTest, PrintsOnlyTheAnswerWithoutATerminal) {
  ScriptAddition();
  CliResult r = Cli({"intent", "add 2 numbers together", "--input", "a=1", "--input", "b=1"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "Result: 2\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(CliIntentTest, JsonRecordShowsTheFourStagesAndTypedInputs) {
  ScriptAddition();
  CliResult r =
      Cli({"intent", "add 2 numbers together", "--input", "a=1", "--input", "b=1", "--json"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  json rec = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(rec.is_object()) << r.out;
  EXPECT_EQ(rec["answer"], "Result: 2");
  EXPECT_EQ(rec["result"]["stdout"], "2\n");
  ASSERT_EQ(rec["stages"].size(), 4u);
  for (const auto& s : rec["stages"]) EXPECT_EQ(s["status"], "succeeded") << s.dump();
  // The model was told a is an integer: "1" went up as JSON 1.
  std::string prompt;
  for (size_t i = 0; i < llm_->Requests().size(); ++i) {
    std::string m = llm_->LastUserMessage(i);
    if (m.find("Language: ") != std::string::npos) prompt = m;
  }
  EXPECT_NE(prompt.find("- a: integer"), std::string::npos) << prompt;
}

TEST_F(CliIntentTest, ShowsTheStagesOnATerminal) {
  ScriptAddition();
  CliResult r =
      Cli({"intent", "add 2 numbers together", "--input", "a=1", "--input", "b=1"}, StderrOnTty());
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "Result: 2\n");
  const char* stages[] = {"[1/4] discover_agent: succeeded", "[2/4] generate_code: succeeded",
                          "[3/4] execute: succeeded", "[4/4] format_result: succeeded"};
  for (const char* s : stages) EXPECT_NE(r.err.find(s), std::string::npos) << s << "\n" << r.err;
}

TEST_F(CliIntentTest, FailedIntentPrintsTheErrorAndFails) {
  // Nothing scripted: the model answers every call with HTTP 500.
  CliResult r = Cli({"intent", "add 2 numbers together", "--input", "a=1", "--input", "b=1"});
  EXPECT_NE(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("coderunner: intent job-"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace coderunner::testing
