// Judging on a real engine: a request with "cases" builds its program once
// and runs each case in a container of its own, with the case's limits,
// comparing each output with the expected one. Each case's verdict comes
// from what the engine and coderunner-init saw (a timeout, a signal), and
// no case finds anything another case left behind.
#include <string>
#include <thread>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

// Doubles its input; loops forever on 0 and dies of SIGSEGV below 0.
constexpr const char* kDoublerCpp = R"cpp(#include <csignal>
#include <iostream>
                                          int main() {
                                            long long n = 0;
                                            std::cin >> n;
                                            if (n == 0)
                                              for (volatile long long i = 0;; ++i) {
                                              }
                                            if (n < 0) std::raise(SIGSEGV);
                                            std::cout << 2 * n << "\n";
                                          }
)cpp";

class JudgeTest : public EngineTest {};

json CaseOf(const std::string& in, const std::string& expected,
            const json& limits = json::object()) {
  json c = {{"stdin", in}, {"expected_output", expected}};
  if (!limits.empty()) c["limits"] = limits;
  return c;
}

// The verdict of each case, in order.
std::vector<std::string> Verdicts(const json& result) {
  std::vector<std::string> out;
  for (const auto& c : result["judge"]["cases"]) out.push_back(c["verdict"]);
  return out;
}

TEST_F(JudgeTest, ACppProgramIsBuiltOnceAndEachCaseGetsItsOwnVerdict) {
  json r = RunUncached(
      "cpp", kDoublerCpp,
      {{"cases", json::array({CaseOf("2\n", "4\n"), CaseOf("3\n", "7\n"),
                              CaseOf("0\n", "0\n", {{"timeout_ms", 1000}, {"cpu_ms", 1000}}),
                              CaseOf("-1\n", "")})}});
  ASSERT_TRUE(r.contains("judge")) << r.dump();
  EXPECT_EQ(Verdicts(r),
            (std::vector<std::string>{"accepted", "wrong_answer", "time_limit", "runtime_error"}))
      << r["judge"].dump();
  EXPECT_EQ(r["judge"]["verdict"], "wrong_answer");
  EXPECT_EQ(r["judge"]["passed"], 1);
  EXPECT_EQ(r["judge"]["total"], 4);
  const json& cases = r["judge"]["cases"];
  EXPECT_EQ(cases[0]["stdout"], "4\n");
  EXPECT_EQ(cases[1]["stdout"], "6\n");
  EXPECT_EQ(cases[2]["status"], "timeout");
  EXPECT_EQ(cases[3]["signal"], "SIGSEGV") << cases[3].dump();
  for (const auto& c : cases) EXPECT_GT(c["metrics"]["memory_peak_bytes"], 0) << c.dump();
  // The job reports the deciding case (the first that failed), and its build.
  EXPECT_EQ(r["status"], "succeeded");
  EXPECT_EQ(r["stdout"], "6\n");
  ASSERT_TRUE(r["compile"].is_object()) << r.dump();
  EXPECT_EQ(r["compile"]["status"], "succeeded");
}

// A case that leaves what it can wherever it can: files in every writable
// place (one in a directory it took its own rights from), a process in a
// session of its own, System V shared memory, a message queue and a
// semaphore set, and a POSIX message queue (refused: nothing could list
// it to clear it). Or ("deep") a tree deeper than init clears. Each case
// says on stderr which container it ran in (its root mount, whose overlay
// directories are the container's own: every container's hostname is
// "sandbox") and its pid, and what it found on stdout.
constexpr const char* kLeaverPy = R"py(import ctypes, hashlib, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
what = sys.stdin.read().strip()
places = ["/tmp/left", "/tmp/locked/left", "/output/left", "/workspace/left"]
root = [l for l in open("/proc/self/mountinfo") if l.split()[4] == "/"]
print("host", hashlib.sha256("".join(root).encode()).hexdigest()[:16], file=sys.stderr)
print("pid", os.getpid(), file=sys.stderr)
if what == "leave":
    os.makedirs("/tmp/locked")
    for p in places:
        try:
            open(p, "w").write("x")
        except OSError:
            pass
    os.chmod("/tmp/locked", 0)
    subprocess.Popen(["sleep", "60"], start_new_session=True)
    print("shm", libc.shmget(0x1234, 4096, 0o1600) >= 0, file=sys.stderr)
    print("msg", libc.msgget(0x1235, 0o1600) >= 0, file=sys.stderr)
    print("sem", libc.semget(0x1236, 1, 0o1600) >= 0, file=sys.stderr)
    q = libc.mq_open(b"/left", os.O_CREAT | os.O_RDWR, 0o600, None)
    print("mq", q, ctypes.get_errno(), file=sys.stderr)
    print("left")
elif what == "deep":
    d = "/tmp"
    for _ in range(70):
        d += "/x"
        os.mkdir(d)
    print("left")
else:
    found = [p for p in places if os.path.lexists(p)]
    found += [d + "/" + n for d in ("/tmp", "/output") if os.path.isdir(d) for n in os.listdir(d)]
    sleepers = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                sleepers += b"sleep" in open("/proc/%s/cmdline" % pid, "rb").read()
            except OSError:
                pass
    ipc = sum(len(open("/proc/sysvipc/" + k).readlines()) - 1 for k in ("shm", "msg", "sem"))
    print("found", sorted(set(found)), "sleepers", sleepers, "ipc", ipc)
)py";

// The value of line `key` a case printed on stderr ("" if none).
std::string StderrField(const json& c, const std::string& key) {
  const std::string err = c.value("stderr", std::string());
  size_t at = err.find(key + " ");
  if (at == std::string::npos) return "";
  at += key.size() + 1;
  return err.substr(at, err.find('\n', at) - at);
}
// Which container a case ran in.
std::string HostOf(const json& c) { return StderrField(c, "host"); }

TEST_F(JudgeTest, NoCaseFindsWhatAnotherCaseLeftBehind) {
  json r = RunUncached(
      "python", kLeaverPy,
      {{"cases", json::array({CaseOf("leave", "left"), CaseOf("look", "found [] sleepers 0 ipc 0"),
                              CaseOf("look", "found [] sleepers 0 ipc 0")})}});
  EXPECT_EQ(Verdicts(r), (std::vector<std::string>{"accepted", "accepted", "accepted"}))
      << r.dump();
  const json& cases = r["judge"]["cases"];
  ASSERT_EQ(cases.size(), 3u) << r.dump();
  // They ran in one container, one after another: what the first left
  // was cleared, not merely out of reach in another container.
  EXPECT_NE(HostOf(cases[0]), "");
  EXPECT_EQ(HostOf(cases[1]), HostOf(cases[0])) << r.dump();
  EXPECT_EQ(HostOf(cases[2]), HostOf(cases[0])) << r.dump();
  // Pids go on counting in the one PID namespace.
  EXPECT_GT(std::stoi(StderrField(cases[1], "pid")), std::stoi(StderrField(cases[0], "pid")));
  const std::string left = cases[0]["stderr"];
  for (const char* made : {"shm True", "msg True", "sem True"}) {
    EXPECT_NE(left.find(made), std::string::npos) << made << " in " << left;
  }
  EXPECT_NE(left.find("mq -1 1\n"), std::string::npos) << "mq_open must fail with EPERM: " << left;
}

TEST_F(JudgeTest, ACaseInitCannotClearAfterSendsTheRestToFreshContainers) {
  json r = RunUncached(
      "python", kLeaverPy,
      {{"cases", json::array({CaseOf("deep", "left"), CaseOf("look", "found [] sleepers 0 ipc 0"),
                              CaseOf("look", "found [] sleepers 0 ipc 0")})}});
  EXPECT_EQ(Verdicts(r), (std::vector<std::string>{"accepted", "accepted", "accepted"}))
      << r.dump();
  const json& cases = r["judge"]["cases"];
  ASSERT_EQ(cases.size(), 3u) << r.dump();
  EXPECT_NE(HostOf(cases[0]), "");
  EXPECT_NE(HostOf(cases[1]), HostOf(cases[0])) << r.dump();
  EXPECT_NE(HostOf(cases[2]), HostOf(cases[1])) << "after the series, each case runs alone";
}

TEST_F(JudgeTest, AProgramThatDoesNotCompileRunsNoCase) {
  json r = RunUncached("c", "int main(void) { return 0 }\n",
                       {{"cases", json::array({CaseOf("", ""), CaseOf("", "")})}});
  EXPECT_EQ(r["judge"]["verdict"], "compile_error") << r.dump();
  EXPECT_EQ(Verdicts(r), (std::vector<std::string>{"skipped", "skipped"}));
  EXPECT_EQ(r["error"]["code"], "compile_error");
  EXPECT_NE(r["compile"]["output"].get<std::string>().find("error"), std::string::npos)
      << r["compile"].dump();
}

TEST_F(JudgeTest, OutputsCompareByTheRuleAskedAndJudgingStopsAtTheFirstFailure) {
  const std::string program = "import sys\nprint('  '.join(sys.stdin.read().split()))\n";
  json cases = json::array(
      {CaseOf("1 2", "1 2"), CaseOf("3.0000001", "3"), CaseOf("x", "y"), CaseOf("4", "4")});
  json tokens = RunUncached("python", program,
                            {{"cases", cases},
                             {"compare", {{"mode", "numbers"}, {"abs_tolerance", 1e-3}}},
                             {"stop_at_first_failure", true}});
  EXPECT_EQ(Verdicts(tokens),
            (std::vector<std::string>{"accepted", "accepted", "wrong_answer", "skipped"}))
      << tokens.dump();
  json exact = RunUncached("python", program, {{"cases", cases}, {"compare", {{"mode", "exact"}}}});
  EXPECT_EQ(Verdicts(exact), (std::vector<std::string>{"wrong_answer", "wrong_answer",
                                                       "wrong_answer", "wrong_answer"}))
      << exact.dump();
}

TEST_F(JudgeTest, ABatchOfSubmissionsIsJudgedEach) {
  json right = {{"language", "python"},
                {"code", "print(int(input()) + 1)"},
                {"cases", json::array({CaseOf("1", "2"), CaseOf("41", "42")})}};
  json wrong = right;
  wrong["code"] = "print(int(input()))";
  HttpAnswer batch = server_->Post("/v1/jobs/batch", json{{"jobs", {right, wrong}}}.dump());
  ASSERT_EQ(batch.status, 202) << batch.body;
  ASSERT_EQ(batch.json["jobs"].size(), 2u);
  std::vector<std::string> verdicts;
  for (const auto& j : batch.json["jobs"]) {
    const std::string id = j["id"];
    json rec = json::object();
    for (int i = 0; i < 30 && !(rec.contains("result") && rec["result"].is_object()); ++i) {
      rec = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=10").json;
    }
    ASSERT_TRUE(rec["result"].is_object()) << rec.dump();
    verdicts.push_back(rec["result"]["judge"]["verdict"]);
  }
  EXPECT_EQ(verdicts, (std::vector<std::string>{"accepted", "wrong_answer"}));
}

}  // namespace
}  // namespace coderunner::testing
