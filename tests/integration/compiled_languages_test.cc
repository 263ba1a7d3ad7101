// C and C++ on a real engine: each job compiles in a container of its own
// under the language's compile limits, then runs under the job's; a
// program that does not compile is a compile_error naming the line and
// never runs; the run keeps the job's policy (the hostile corpus), and a
// compiler that misbehaves is bounded like any job.
#include <map>
#include <set>
#include <string>

#include "engine_fixture.h"
#include "hostile_attacks.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kEchoSumC = R"c(#include <stdio.h>
int main(int argc, char** argv) {
  long long sum = 0, x;
  while (scanf("%lld", &x) == 1) sum += x;
  printf("%s %lld\n", argc > 1 ? argv[1] : "-", sum);
  return 0;
}
)c";

constexpr const char* kEchoSumCpp = R"cpp(#include <iostream>
#include <numeric>
#include <vector>
                                          int main(int argc, char** argv) {
                                            std::vector<long long> xs;
                                            for (long long x; std::cin >> x;) xs.push_back(x);
                                            std::cout << (argc > 1 ? argv[1] : "-") << ' '
                                                      << std::accumulate(xs.begin(), xs.end(), 0LL)
                                                      << '\n';
                                          }
)cpp";

constexpr const char* kEchoSumGo = R"go(package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Split(bufio.ScanWords)
	var sum int64
	for in.Scan() {
		x, _ := strconv.ParseInt(in.Text(), 10, 64)
		sum += x
	}
	name := "-"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	fmt.Println(name, sum)
}
)go";

constexpr const char* kEchoSumJava = R"java(import java.util.Scanner;

public class Main {
  public static void main(String[] args) {
    Scanner in = new Scanner(System.in);
    long sum = 0;
    while (in.hasNextLong()) sum += in.nextLong();
    System.out.println((args.length > 0 ? args[0] : "-") + " " + sum);
  }
}
)java";

constexpr const char* kEchoSumRust = R"rs(use std::io::Read;

fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let sum: i64 = text.split_whitespace().map(|x| x.parse::<i64>().unwrap()).sum();
    let name = std::env::args().nth(1).unwrap_or_else(|| "-".to_string());
    println!("{} {}", name, sum);
}
)rs";

// Only python is pooled (the fixture's warm job); compiled jobs run cold
// or join the pool as they miss.
class CompiledLanguagesTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return "pool: {size: 0}\n"; }
};

// A compiler that misbehaves meets short compile limits here, so the test
// waits seconds, not the default 10.
class CompilerBoundsTest : public EngineTest {
 protected:
  static constexpr int64_t kCompileOutputBytes = 8192;
  static constexpr int64_t kCompileMemoryBytes = 256LL << 20;
  std::string ExtraConfig() const override {
    const std::string limits =
        "compile_timeout_ms: 3000, compile_memory_bytes: " + std::to_string(kCompileMemoryBytes) +
        ", compile_output_bytes: " + std::to_string(kCompileOutputBytes);
    return "pool: {size: 0}\n"
           "languages:\n"
           "  python: {image: coderunner/python:3.11, file: main.py, command: [python3, "
           "\"{file}\"], default: true}\n"
           "  c: {image: coderunner/gcc:12, file: main.c, command: [/workspace/main], compile: "
           "[gcc, -O2, -pipe, -o, /output/main, \"{file}\"], " +
           limits +
           "}\n"
           "  cpp: {image: coderunner/gcc:12, file: main.cpp, command: [/workspace/main], "
           "compile: [g++, -O2, -pipe, -o, /output/main, \"{file}\"], " +
           limits + "}\n";
  }
};

void ExpectBuilt(const json& r) {
  ASSERT_TRUE(r.contains("compile")) << r.dump();
  EXPECT_EQ(r["compile"]["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["compile"]["exit_code"], 0) << r.dump();
}

TEST_F(CompiledLanguagesTest, EachLanguageBuildsThenRunsWithItsStdinAndArgs) {
  struct Case {
    const char* language;
    const char* code;
    const char* name;
  };
  const Case cases[] = {{"c", kEchoSumC, "c"},          {"cpp", kEchoSumCpp, "cpp"},
                        {"c++", kEchoSumCpp, "cpp"},    {"go", kEchoSumGo, "go"},
                        {"java", kEchoSumJava, "java"}, {"rust", kEchoSumRust, "rust"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.language);
    json r = RunUncached(c.language, c.code, {{"stdin", "1 2 3\n40\n"}, {"args", {"total"}}});
    EXPECT_EQ(r["status"], "succeeded") << r.dump();
    EXPECT_EQ(r["language"], c.name);
    EXPECT_EQ(r["stdout"], "total 46\n") << r.dump();
    EXPECT_EQ(r["exit_code"], 0);
    ExpectBuilt(r);
  }
  HttpAnswer langs = server_->Get("/v1/languages");
  ASSERT_EQ(langs.status, 200) << langs.body;
  for (const json& l : langs.json["languages"]) {
    SCOPED_TRACE(l.dump());
    // Each compiled language's compiler, and the start of its version.
    const std::map<std::string, std::pair<std::string, std::string>> kCompilers = {
        {"c", {"gcc", "12.2.0"}},
        {"cpp", {"g++", "12.2.0"}},
        {"go", {"env", "1.19."}},
        {"java", {"javac", "17."}},
        {"rust", {"rustc", "1.63.0"}}};
    auto compiler = kCompilers.find(l["name"].get<std::string>());
    if (compiler == kCompilers.end()) {
      EXPECT_TRUE(l["compile"].is_null());
      continue;
    }
    EXPECT_EQ(l["version"].get<std::string>().rfind(compiler->second.second, 0), 0u);
    EXPECT_EQ(l["compile"]["command"][0], compiler->second.first);
    EXPECT_EQ(l["compile"]["timeout_ms"], 10000);
  }
}

TEST_F(CompiledLanguagesTest, ACompileErrorNamesTheLineAndTheProgramNeverRuns) {
  // Each with `missing` undeclared on line 3, and where its compiler says so.
  const char* kBroken[][3] = {
      {"c", "#include <stdio.h>\nint main(void) {\n  printf(\"%d\\n\", missing);\n}\n",
       "/workspace/main.c:3:"},
      {"cpp", "#include <cstdio>\nint main() {\n  std::puts(missing);\n}\n",
       "/workspace/main.cpp:3:"},
      {"go", "package main\n\nfunc main() { println(missing) }\n", "main.go:3:"},
      {"java",
       "public class Main {\n  public static void main(String[] a) {\n    missing();\n  }\n}\n",
       "/workspace/Main.java:3:"},
      {"rust", "fn main() {\n    let x = 1;\n    println!(\"{}\", missing);\n}\n",
       "/workspace/main.rs:3:"},
  };
  for (const auto& [language, code, where] : kBroken) {
    SCOPED_TRACE(language);
    json r = RunUncached(language, code);
    EXPECT_EQ(r["status"], "failed") << r.dump();
    EXPECT_TRUE(r["exit_code"].is_null()) << r.dump();
    EXPECT_EQ(r["stdout"], "");
    EXPECT_EQ(r["error"]["code"], "compile_error") << r.dump();
    EXPECT_NE(r["compile"]["output"].get<std::string>().find(where), std::string::npos) << r.dump();
    EXPECT_NE(r["error"]["message"].get<std::string>().find(where), std::string::npos) << r.dump();
    EXPECT_EQ(r["compile"]["status"], "failed");
    EXPECT_GT(r["compile"]["exit_code"].get<int>(), 0);  // go build's is 2.
  }
}

// The kernel charges the last allocations of a task it is killing for
// memory even past memory.max (an OOM victim's charges are forced), so a
// multi-threaded runtime's peak may pass the limit by a few pages as it
// dies: 4 KiB over for Go's in CI. Anything near a MiB over is no kill.
constexpr int64_t kOomVictimSlackBytes = 1 << 20;

// The hostile corpus, compiled: the run is held by the job's own limits
// (the compile step's larger ones never reach it).
TEST_F(CompiledLanguagesTest, TheRunIsHeldByTheJobsLimits) {
  json bomb = RunHostile("c", "fork_bomb.c", {{"limits", BombLimits()}});
  ExpectBuilt(bomb);
  EXPECT_EQ(StdoutFields(bomb)["errno"], "EAGAIN") << bomb.dump();
  EXPECT_LE(ReportedInt(bomb, "peak_tasks"), bomb["limits"]["pids"].get<int64_t>());

  const int64_t memory = 64LL << 20;
  json oom = RunHostile("cpp", "memory_bomb.cpp", {{"limits", {{"memory_bytes", memory}}}});
  ExpectBuilt(oom);
  EXPECT_EQ(oom["status"], "oom") << oom.dump().substr(0, 2000);
  EXPECT_LE(oom["metrics"]["memory_peak_bytes"].get<int64_t>(), memory + kOomVictimSlackBytes);

  const int64_t tmp = 16LL << 20;
  json disk = RunHostile("c", "fill_disk.c", {{"limits", {{"tmp_bytes", tmp}}}});
  ExpectBuilt(disk);
  auto fields = StdoutFields(disk);
  EXPECT_TRUE(fields["stopped"] == "ENOSPC" || fields["stopped"] == "EFBIG") << disk.dump();
  EXPECT_LE(ReportedInt(disk, "written"), tmp);

  // Each toolchain's runtime meets the same bounds: Go's memory, Rust's
  // and the JVM's threads.
  json go_oom = RunHostile("go", "memory_bomb.go", {{"limits", {{"memory_bytes", memory}}}});
  ExpectBuilt(go_oom);
  EXPECT_EQ(go_oom["status"], "oom") << go_oom.dump().substr(0, 2000);
  EXPECT_LE(go_oom["metrics"]["memory_peak_bytes"].get<int64_t>(), memory + kOomVictimSlackBytes);
  for (const auto& [language, file] :
       {std::pair{"rust", "thread_bomb.rs"}, std::pair{"java", "ThreadBomb.java"}}) {
    SCOPED_TRACE(file);
    json threads = RunHostile(language, file, {{"limits", BombLimits()}});
    ExpectBuilt(threads);
    EXPECT_EQ(StdoutFields(threads)["errno"], "EAGAIN") << threads.dump().substr(0, 2000);
    EXPECT_LE(ReportedInt(threads, "peak_tasks"), threads["limits"]["pids"].get<int64_t>());
  }

  const int64_t cap = 64LL << 10;
  json flood = RunHostile("c", "output_flood.c", {{"limits", {{"output_bytes", cap}}}});
  ExpectBuilt(flood);
  EXPECT_EQ(flood["stdout_truncated"], true);
  EXPECT_LE(static_cast<int64_t>(flood["stdout"].get<std::string>().size()), cap);
}

TEST_F(CompilerBoundsTest, AMisbehavingCompilerIsBoundedAndTheProgramNeverRuns) {
  struct Case {
    const char* language;
    const char* file;
    std::set<std::string> statuses;
    bool floods;  // Prints more than compile_output_bytes.
  };
  const Case cases[] = {
      {"c", "compiler_reads_random.c", {"timeout", "oom"}, false},
      {"cpp", "template_bomb.cpp", {"timeout", "oom"}, false},
      {"cpp", "compiler_error_flood.cpp", {"failed"}, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    json r = RunHostile(c.language, c.file);
    EXPECT_EQ(r["status"], "failed") << r.dump().substr(0, 2000);
    EXPECT_EQ(r["error"]["code"], "compile_error");
    EXPECT_TRUE(r["exit_code"].is_null());
    const json& step = r["compile"];
    EXPECT_TRUE(c.statuses.count(step["status"].get<std::string>())) << step.dump().substr(0, 2000);
    EXPECT_LE(step["metrics"]["memory_peak_bytes"].get<int64_t>(),
              kCompileMemoryBytes + kOomVictimSlackBytes);
    EXPECT_LE(static_cast<int64_t>(step["output"].get<std::string>().size()),
              2 * kCompileOutputBytes);
    if (c.floods) {
      EXPECT_EQ(step["output_truncated"], true);
    }
  }
}

}  // namespace
}  // namespace coderunner::testing
