// Toolchain parity, proven on public programs: MultiPL-E's HumanEval rows in
// JavaScript, TypeScript, bash, C++ and Java (tests/testdata/multipl-e/, each
// with a model's solution, right or wrong) run on the host with the
// developer's own toolchain (node, tsx, bash, g++ and the JDK with the
// compiled languages' flags: the same versions as the images) and through
// coderunner. Every row's verdict
// (exit 0 or not) must agree; pass rates do not matter. One engine: the
// programs run in the images, whatever engine starts them. Go and Rust are
// compared on programs of our own (ExpectSameEnds). C++ and Java
// rows each compile twice (host and image), a second or more apiece: CI
// takes every 8th row; TypeScript rows each start tsx twice (esbuild and
// two node processes on the host): CI takes every 2nd;
// CODERUNNER_TOOLCHAIN_ALL_ROWS=1 takes them all.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr char kRowsDir[] = CODERUNNER_TESTDATA_DIR "/multipl-e";
// The host's tsx, as images/node/package-lock.json pins it (scripts/install-deps.sh).
constexpr char kHostTsx[] = "/var/cache/coderunner/host-tsx/node_modules/.bin/tsx";
constexpr int kTimeoutS = 10;  // The jobs' default limits.timeout_ms, on both sides.
// The cpp language's compile flags (config/coderunner.yaml), on the host.
constexpr char kHostCpp[] = "sh -c 'g++ -O2 -std=gnu++17 -pipe -o main \"$0\" && exec ./main'";
// The java language's build and run, on the host (libjavatuples-java).
constexpr char kHostJava[] =
    "sh -c 'javac -encoding UTF-8 -cp /usr/share/java/javatuples.jar -d . \"$0\" && "
    "exec java -ea -cp .:/usr/share/java/javatuples.jar Main'";

struct Toolchain {
  const char* language;  // coderunner's.
  const char* rows;      // humaneval-<rows>.jsonl.gz
  const char* file;
  std::string host_command;  // Run in an empty directory holding `file`.
  // Every stride-th row (from the first) unless CODERUNNER_TOOLCHAIN_ALL_ROWS=1.
  size_t stride = 1;
};

struct Row {
  std::string name;
  std::string program;
};

// Every `stride`-th of `rows`, or all of them when asked for.
std::vector<Row> Sampled(std::vector<Row> rows, size_t stride) {
  const char* all = getenv("CODERUNNER_TOOLCHAIN_ALL_ROWS");
  if (stride <= 1 || (all != nullptr && std::string(all) == "1")) return rows;
  std::vector<Row> kept;
  for (size_t i = 0; i < rows.size(); i += stride) kept.push_back(std::move(rows[i]));
  return kept;
}

// The first fenced block of a Markdown answer ("" if none).
std::string FirstFence(const std::string& text) {
  size_t open = text.find("```");
  if (open == std::string::npos) return "";
  size_t body = text.find('\n', open);
  size_t close = body == std::string::npos ? std::string::npos : text.find("```", body + 1);
  if (close == std::string::npos) return "";
  return text.substr(body + 1, close - body - 1);
}

// `solution` cut at each of `stop_tokens` in turn (but "\n\n"), as
// SandboxFusion's stop_token_trim does.
std::string StopTokenTrim(std::string solution, const json& stop_tokens) {
  if (!stop_tokens.is_array()) return solution;
  for (const auto& token : stop_tokens) {
    if (!token.is_string() || token == "\n\n") continue;
    size_t at = solution.find(token.get<std::string>());
    if (at != std::string::npos) solution.resize(at);
  }
  return solution;
}

// The imports SandboxFusion puts before a Java row (IMPORT_HELPER).
constexpr char kJavaImports[] =
    "import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\n"
    "import java.security.*;\nimport java.math.*;\nimport java.io.*;\n"
    "import java.util.stream.*;\n";

// A row's program as tests/testdata/multipl-e/README.md defines it.
std::vector<Row> LoadRows(const std::string& rows, bool bash) {
  std::vector<Row> out;
  const std::string cmd = "gzip -dc " + std::string(kRowsDir) + "/humaneval-" + rows + ".jsonl.gz";
  FILE* in = popen(cmd.c_str(), "r");
  if (in == nullptr) return out;
  std::string text;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), in)) > 0;) text.append(buf, n);
  pclose(in);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    json r = json::parse(line);
    std::string solution = FirstFence(r.value("gpt_solution", ""));
    if (bash) {
      // The tests open with the `}` that closes the prompt's function.
      while (!solution.empty() && solution.back() == '\n') solution.pop_back();
      size_t last = solution.rfind('\n');
      if (last != std::string::npos && solution.substr(last + 1) == "}") solution.resize(last);
    }
    // C++ and Java as SandboxFusion builds a row's program
    // (sandbox/datasets/multiple.py): the answer cut at its stop tokens,
    // where the tests take over; Java's class Problem named Main (the java
    // language's class, as SandboxFusion's runner has it too), after the
    // imports MultiPL-E's Java prompts carry.
    if (rows == "cpp" || rows == "java") solution = StopTokenTrim(solution, r["stop_tokens"]);
    std::string program = solution + "\n" + r.value("tests", "");
    if (rows == "java") {
      for (size_t at; (at = program.find("class Problem {")) != std::string::npos;) {
        program.replace(at, 15, "class Main {");
      }
      program = kJavaImports + program;
    }
    out.push_back({r.value("name", ""), program});
  }
  return out;
}

// True when `program` exits 0 under the host's toolchain within the limit.
bool HostPasses(const Toolchain& t, const Row& row, const std::string& scratch) {
  const std::string dir = scratch + "/" + row.name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + t.file) << row.program;
  const std::string cmd = "cd '" + dir + "' && timeout -s KILL " + std::to_string(kTimeoutS) + " " +
                          t.host_command + " " + t.file + " </dev/null >/dev/null 2>&1";
  int rc = std::system(cmd.c_str());
  std::filesystem::remove_all(dir);
  return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

std::vector<bool> HostVerdicts(const Toolchain& t, const std::vector<Row>& rows) {
  std::vector<bool> pass(rows.size());
  char tmpl[] = "/tmp/coderunner-diff-XXXXXX";
  const std::string scratch = mkdtemp(tmpl);
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < rows.size();) pass[i] = HostPasses(t, rows[i], scratch);
    });
  }
  for (auto& th : threads) th.join();
  std::filesystem::remove_all(scratch);
  return pass;
}

class ToolchainDiffTest : public EngineTest {
 public:
  std::string ExtraConfig() const override {
    return "jobs: {max_concurrent: 2, max_queued: 2000}\n"
           "pool: {size: 0, sizes: {javascript: 2, typescript: 2, bash: 2}}\n";
  }

  HttpAnswer ExecuteUncached(const std::string& language, const std::string& code) {
    return server_->Execute(language, code, {{"cache", false}});
  }

  // Each row through coderunner, in batches: true where the job succeeded.
  std::vector<bool> ServiceVerdicts(const Toolchain& t, const std::vector<Row>& rows) {
    std::vector<bool> pass(rows.size());
    constexpr size_t kBatch = 50;  // jobs.max_batch.
    for (size_t from = 0; from < rows.size(); from += kBatch) {
      json jobs = json::array();
      for (size_t i = from; i < std::min(rows.size(), from + kBatch); ++i) {
        jobs.push_back({{"language", t.language}, {"code", rows[i].program}, {"cache", false}});
      }
      HttpAnswer a = server_->Post("/v1/jobs/batch", json{{"jobs", jobs}}.dump());
      EXPECT_EQ(a.status, 202) << a.body;
      json ids = json::array();
      for (const auto& j : a.json["jobs"]) ids.push_back(j.value("id", ""));
      HttpAnswer done =
          server_->Post("/v1/jobs/wait", json{{"ids", ids}, {"timeout_s", 300}}.dump());
      EXPECT_EQ(done.status, 200) << done.body.substr(0, 500);
      for (size_t k = 0; k < done.json["jobs"].size(); ++k) {
        pass[from + k] = done.json["jobs"][k]["status"] == "succeeded";
      }
    }
    return pass;
  }
};

// One language's rows, each on the host and through coderunner: every
// verdict must agree.
void ExpectAgreement(ToolchainDiffTest& test, const Toolchain& t) {
  ASSERT_TRUE(std::filesystem::exists(kHostTsx)) << "run scripts/install-deps.sh";
  std::vector<Row> all = LoadRows(t.rows, std::string(t.rows) == "sh");
  ASSERT_GT(all.size(), 150u) << "rows of " << t.rows << " not found in " << kRowsDir;
  const std::vector<Row> rows = Sampled(std::move(all), t.stride);
  std::vector<bool> host = HostVerdicts(t, rows);
  std::vector<bool> service = test.ServiceVerdicts(t, rows);
  // A row that disagrees runs once more on both sides, alone, and that run
  // decides: a loaded machine (ctest -j4 in CI) can fail one host run of a
  // program that passes in 0.3 s; a real difference stays a difference.
  for (size_t i = 0; i < rows.size(); ++i) {
    if (host[i] == service[i]) continue;
    host[i] = HostVerdicts(t, {rows[i]})[0];
    service[i] = test.ServiceVerdicts(t, {rows[i]})[0];
    std::cout << "[  RERUN   ] " << rows[i].name << std::endl;
  }
  int host_pass = 0, service_pass = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    host_pass += host[i];
    service_pass += service[i];
    EXPECT_EQ(service[i], host[i]) << rows[i].name << ": host " << (host[i] ? "passes" : "fails")
                                   << ", coderunner " << (service[i] ? "passes" : "fails");
  }
  std::cout << "[  FIGURE  ] multipl_e_" << t.rows << ": host passes " << host_pass
            << ", coderunner " << service_pass << " of " << rows.size() << std::endl;
}

// One test per language, so each stays well within ctest's timeout and
// they spread over its parallel slots.
TEST_F(ToolchainDiffTest, JavaScriptRowsEndAsUnderNode) {
  ExpectAgreement(*this, {"javascript", "js", "main.js", "node"});
}

TEST_F(ToolchainDiffTest, TypeScriptRowsEndAsUnderTsx) {
  ExpectAgreement(*this, {"typescript", "ts", "main.ts", kHostTsx, 2});
}

TEST_F(ToolchainDiffTest, BashRowsEndAsUnderBash) {
  ExpectAgreement(*this, {"bash", "sh", "main.sh", "bash"});
}

TEST_F(ToolchainDiffTest, CppRowsEndAsUnderTheHostsGpp) {
  ExpectAgreement(*this, {"cpp", "cpp", "main.cpp", kHostCpp, 8});
}

TEST_F(ToolchainDiffTest, JavaRowsEndAsUnderTheHostsJdk) {
  ExpectAgreement(*this, {"java", "java", "Main.java", kHostJava, 8});
}

// Programs of our own in Go and Rust (tests/testdata/compiled-diff/): each
// built with the language's own flags by the host's Debian toolchain (the
// images' versions) and through coderunner; how each ends must be the same.
constexpr char kCompiledDiffDir[] = CODERUNNER_TESTDATA_DIR "/compiled-diff";

struct Build {
  const char* language;  // coderunner's, and the directory of its programs.
  const char* file;      // The language's program file.
  const char* version;   // `host_build`'s toolchain must say this of itself...
  const char* version_command;
  const char* host_build;  // sh -c: builds ./main from "$0".
};

// Runs `command`; its exit status, 128+N for signal N, -1 if it could not.
int ExitOf(const std::string& command) {
  int rc = std::system(command.c_str());
  if (rc == -1) return -1;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

// How `program` ends on the host: "compile_error", or "exit N".
std::string HostEnd(const Build& b, const std::filesystem::path& program) {
  char tmpl[] = "/tmp/coderunner-compiled-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::filesystem::copy_file(program, dir + "/" + b.file);
  const std::string in = "cd '" + dir + "' && ";
  std::string end;
  if (ExitOf(in + "sh -c '" + b.host_build + "' " + b.file + " >/dev/null 2>&1") != 0) {
    end = "compile_error";
  } else {
    end = "exit " + std::to_string(ExitOf(in + "timeout -s KILL " + std::to_string(kTimeoutS) +
                                          " ./main </dev/null >/dev/null 2>&1"));
  }
  std::filesystem::remove_all(dir);
  return end;
}

// Every program of `b.language` ends the same on the host and here.
void ExpectSameEnds(ToolchainDiffTest& test, const Build& b) {
  ASSERT_EQ(ExitOf(std::string(b.version_command) + " 2>&1 | grep -q '" + b.version + "'"), 0)
      << b.version_command << " is not " << b.version << ": run scripts/install-deps.sh";
  int programs = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(kCompiledDiffDir) + "/" + b.language)) {
    ++programs;
    std::ifstream in(e.path());
    const std::string code((std::istreambuf_iterator<char>(in)), {});
    HttpAnswer a = test.ExecuteUncached(b.language, code);
    ASSERT_EQ(a.status, 200) << a.body;
    const std::string here =
        a.json["error"].is_object() && a.json["error"].value("code", "") == "compile_error"
            ? "compile_error"
            : "exit " + a.json["exit_code"].dump();
    EXPECT_EQ(here, HostEnd(b, e.path())) << e.path().filename() << ": " << a.body.substr(0, 600);
  }
  EXPECT_GE(programs, 10) << "programs of " << b.language << " not found";
}

TEST_F(ToolchainDiffTest, GoProgramsEndAsUnderTheHostsGo) {
  ExpectSameEnds(*this, {"go", "main.go", "go1.19", "/usr/bin/go version",
                         "env CGO_ENABLED=0 /usr/bin/go build -o main \"$0\""});
}

TEST_F(ToolchainDiffTest, RustProgramsEndAsUnderTheHostsRustc) {
  ExpectSameEnds(*this, {"rust", "main.rs", "rustc 1.63", "/usr/bin/rustc --version",
                         "/usr/bin/rustc -O --edition 2021 -C strip=debuginfo -o main \"$0\""});
}

// The tools a generated bash script reaches for are in the bash image, and
// GET /v1/languages says so.
TEST_F(ToolchainDiffTest, TheBashImageHoldsTheToolsGeneratedScriptsReachFor) {
  HttpAnswer r = server_->Execute("bash",
                                  "echo '2^10' | bc\n"
                                  "echo '3 4 * p' | dc\n"
                                  "echo '{\"a\":[1,2]}' | jq -c .a\n"
                                  "echo 'x y' | gawk '{print $2}'\n"
                                  "diff <(echo a) <(echo a) && echo same\n"
                                  "seq 3 | xargs echo | sed 's/ /,/g' | grep -c 1,2,3\n");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json["stdout"], "1024\n12\n[1,2]\ny\nsame\n1\n") << r.body;
  EXPECT_EQ(r.json["stderr"], "") << r.body;
  HttpAnswer languages = server_->Get("/v1/languages");
  ASSERT_EQ(languages.status, 200) << languages.body;
  json packages;
  for (const auto& l : languages.json["languages"]) {
    if (l["name"] == "bash") packages = l["packages"];
  }
  for (const char* tool :
       {"coreutils", "findutils", "grep", "sed", "gawk", "bc", "dc", "jq", "diffutils"}) {
    EXPECT_TRUE(packages.contains(tool)) << tool << " not listed: " << packages.dump();
  }
}

}  // namespace
}  // namespace coderunner::testing
