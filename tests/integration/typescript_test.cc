// TypeScript on a real engine: main.ts runs as tsx runs it (CommonJS with
// require and import) and, with top-level await, as an ES module (types,
// enums, generics, import.meta), a syntax error is a failed job naming
// main.ts and the line, async jobs and the warm pool serve it.
#include <algorithm>
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

// Every feature issue 17 names, printed line by line.
constexpr const char* kFeatures = R"ts(import type { Stats } from "node:fs";
import { join } from "node:path";
import * as os from "node:os";

interface Point { x: number; y: number }
enum Color { Red, Green = 5 }
const enum Size { Small = 1 }
type Pair<T> = [T, T];

function first<T>(items: T[]): T | undefined { return items[0]; }
class Box<T> {
  constructor(private readonly value: T) {}
  get(): T { return this.value; }
}

const p: Point = { x: 1, y: 2 };
const pair: Pair<string> = ["a", "b"];
let stats: Stats | undefined;
console.log(p.x + p.y, first<number>([7, 8]), new Box("boxed").get(), pair.join(""));
console.log(Color.Green, Color[5], Size.Small, stats === undefined);
const answer: number = await Promise.resolve(42);
console.log("await", answer);
console.log("meta", import.meta.url);
console.log(join("a", "b"), typeof os.cpus);
)ts";

constexpr const char* kFeaturesOut =
    "3 7 boxed ab\n"
    "5 Green 1 true\n"
    "await 42\n"
    "meta file:///workspace/main.ts\n"
    "a/b function\n";

class TypeScriptTest : public EngineTest {
 protected:
  // Only typescript is pooled, one container, so the pool test knows what
  // to wait for (and the other tests start no idle containers they ignore).
  std::string ExtraConfig() const override {
    return "pool: {size: 0, sizes: {typescript: 1}, max_idle_s: 600}\n";
  }

  // A sample of /metrics; -1 if absent.
  double Metric(const std::string& sample) const {
    HttpAnswer m = server_->Get("/metrics");
    size_t at = m.body.find("\n" + sample + " ");
    if (at == std::string::npos) return -1;
    return std::stod(m.body.substr(at + sample.size() + 2));
  }
};

TEST_F(TypeScriptTest, FeaturesRunAsAnEsModuleUnderTheNameAndTheAlias) {
  for (const char* language : {"typescript", "ts"}) {
    SCOPED_TRACE(language);
    json r = RunUncached(language, kFeatures);
    EXPECT_EQ(r["status"], "succeeded") << r.dump();
    EXPECT_EQ(r["language"], "typescript");
    EXPECT_EQ(r["stdout"], kFeaturesOut) << r.dump();
    EXPECT_EQ(r["stderr"], "") << r.dump();
  }
}

// As `tsx main.ts` runs it (no package.json: CommonJS): require, module,
// __dirname and import syntax together, which MultiPL-E's rows rely on
// (`const assert = require('node:assert')`).
TEST_F(TypeScriptTest, RequireImportAndDirnameWorkAsUnderTsx) {
  json r = RunUncached("typescript",
                       "const assert = require('node:assert');\n"
                       "import { join } from 'node:path';\n"
                       "const n: number[] = [1, 2];\n"
                       "assert.deepEqual(n, [1, 2]);\n"
                       "console.log(typeof require, typeof module, __dirname, join('a', 'b'),\n"
                       "            require.main === module, process.argv.length);\n");
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["stdout"], "function object /workspace a/b true 2\n") << r.dump();
  EXPECT_EQ(r["stderr"], "") << r.dump();
}

TEST_F(TypeScriptTest, JavaScriptStaysCommonJs) {
  json r = RunUncached("javascript", "console.log(typeof require, typeof module.exports)");
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["stdout"], "function object\n") << r.dump();
}

TEST_F(TypeScriptTest, SyntaxErrorIsAFailedJobNamingMainTsAndTheLine) {
  json r = RunUncached("typescript", "const a: number = 1;\nconsole.log(a);\nconst b = ;\n");
  EXPECT_EQ(r["status"], "failed") << r.dump();
  EXPECT_NE(r["exit_code"], 0) << r.dump();
  EXPECT_EQ(r["stdout"], "") << r.dump();
  const std::string err = r.value("stderr", "");
  EXPECT_NE(err.find("/workspace/main.ts:3:"), std::string::npos) << err;
  EXPECT_NE(err.find("ERROR: Unexpected \";\""), std::string::npos) << err;
}

TEST_F(TypeScriptTest, ThrownErrorNamesTheTypeScriptLine) {
  json r = RunUncached("typescript",
                       "interface A { n: number }\n"
                       "function f(a: A): never {\n"
                       "  throw new Error(`bad ${a.n}`);\n"
                       "}\n"
                       "f({ n: 3 });\n");
  EXPECT_EQ(r["status"], "failed") << r.dump();
  const std::string err = r.value("stderr", "");
  EXPECT_NE(err.find("Error: bad 3"), std::string::npos) << err;
  EXPECT_NE(err.find("/workspace/main.ts:3:"), std::string::npos) << err;
}

TEST_F(TypeScriptTest, AnAsyncJobRunsTypeScript) {
  HttpAnswer a = server_->Post(
      "/v1/jobs",
      json{{"language", "typescript"},
           {"code", "const n: number = await Promise.resolve(6);\nconsole.log(n * 7);\n"}}
          .dump());
  ASSERT_EQ(a.status, 202) << a.body;
  const std::string id = a.json.value("id", "");
  ASSERT_FALSE(id.empty()) << a.body;
  json rec;
  ASSERT_TRUE(Eventually([&] {
    HttpAnswer w = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=10");
    rec = w.json;
    return w.status == 200;
  })) << rec.dump();
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
  EXPECT_EQ(rec["result"]["language"], "typescript") << rec.dump();
  EXPECT_EQ(rec["result"]["stdout"], "42\n") << rec.dump();
}

TEST_F(TypeScriptTest, TheWarmPoolServesTypeScript) {
  const std::string idle = R"(coderunner_pool_idle{language="typescript"})";
  const std::string hits = R"(coderunner_pool_hits_total{language="typescript"})";
  ASSERT_TRUE(Eventually([&] { return Metric(idle) >= 1; })) << server_->Get("/metrics").body;
  const double before = std::max(0.0, Metric(hits));
  json r = RunUncached("typescript", kFeatures);
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["stdout"], kFeaturesOut) << r.dump();
  EXPECT_GE(Metric(hits), before + 1) << server_->Get("/metrics").body;
}

}  // namespace
}  // namespace coderunner::testing
