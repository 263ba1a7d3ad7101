#include "judge_bench.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"

namespace bench {
namespace {

using nlohmann::json;

// Issue 35's bound: a judged case costs at most this share of a job.
constexpr double kMaxCaseOverJob = 0.10;
// The most entries POST /v1/jobs/batch takes.
constexpr int kMaxBatch = 50;

constexpr const char* kSumCpp =
    "#include <iostream>\n"
    "int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << \"\\n\"; }\n";

std::string Input(int i) { return std::to_string(i) + " " + std::to_string(2 * i) + "\n"; }
std::string Answer(int i) { return std::to_string(3 * i) + "\n"; }

// The judged request: one build, `cases` cases; true when all accepted.
bool JudgeOnce(httplib::Client& c, int cases, const std::string& tag) {
  json list = json::array();
  for (int i = 0; i < cases; ++i)
    list.push_back({{"stdin", Input(i)}, {"expected_output", Answer(i)}});
  json body = {{"language", "cpp"},
               {"code", std::string(kSumCpp) + "// " + tag},
               {"cases", list},
               {"cache", false}};
  auto r = c.Post("/v1/execute", body.dump(), "application/json");
  if (!r || r->status != 200) return false;
  json out = json::parse(r->body, nullptr, false);
  return out.is_object() && out.contains("judge") && out["judge"].value("passed", 0) == cases;
}

// `jobs` jobs of the same program, one input each, at once (in batches of
// the most /v1/jobs/batch takes); true when every one printed its answer.
bool SeparateJobs(httplib::Client& c, int jobs, const std::string& tag) {
  std::vector<std::string> ids;
  for (int first = 0; first < jobs; first += kMaxBatch) {
    json list = json::array();
    for (int i = first; i < std::min(jobs, first + kMaxBatch); ++i) {
      list.push_back({{"language", "cpp"},
                      {"code", std::string(kSumCpp) + "// " + tag + "-" + std::to_string(i)},
                      {"stdin", Input(i)},
                      {"cache", false}});
    }
    auto r = c.Post("/v1/jobs/batch", json{{"jobs", list}}.dump(), "application/json");
    if (!r || r->status != 202) return false;
    json accepted = json::parse(r->body, nullptr, false);
    if (!accepted.is_object() || accepted["jobs"].size() != list.size()) return false;
    for (const json& a : accepted["jobs"]) ids.push_back(a.value("id", ""));
  }
  for (int i = 0; i < jobs; ++i) {
    const std::string& id = ids[i];
    json rec;
    for (int tries = 0; tries < 60 && !(rec.is_object() && rec.contains("result")); ++tries) {
      auto w = c.Get("/v1/jobs/" + id + "/wait?timeout_s=10");
      if (w) rec = json::parse(w->body, nullptr, false);
    }
    if (!rec.is_object() || !rec.contains("result") ||
        rec["result"].value("stdout", "") != Answer(i)) {
      return false;
    }
  }
  return true;
}

// What a HumanEval submission in judging form ends with: it reads k on
// stdin and runs the test's check, on the entry point, with only its k-th
// top-level assert and every other statement.
constexpr const char* kAssertHarness = R"py(
import ast as _ast, sys as _sys
_k = int(_sys.stdin.read().strip() or 0)
_tree = _ast.parse(_TEST)
for _node in _tree.body:
    if isinstance(_node, _ast.FunctionDef) and _node.name == "check":
        _asserts = [s for s in _node.body if isinstance(s, _ast.Assert)]
        _keep = _asserts[_k] if _k < len(_asserts) else None
        _node.body = [s for s in _node.body if not isinstance(s, _ast.Assert) or s is _keep]
        _node.body = _node.body or [_ast.Pass()]
_ast.fix_missing_locations(_tree)
exec(compile(_tree, "<test>", "exec"), globals())
)py";

// The top-level asserts of `test`'s check: its lines opening with exactly
// four spaces and "assert" (HumanEval's formatting; Python's ast agrees on
// all 164).
int TopLevelAsserts(const std::string& test) {
  int n = 0;
  size_t at = 0;
  while (at < test.size()) {
    size_t end = test.find('\n', at);
    if (end == std::string::npos) end = test.size();
    const std::string line = test.substr(at, end - at);
    n += line.rfind("    assert", 0) == 0;
    at = end + 1;
  }
  return n;
}

// Problem `p` as a judged request: a case per top-level assert (one that
// runs them all when there is none), each expecting no output.
json JudgedProblem(const Problem& p, const std::string& salt) {
  json cases = json::array();
  const int asserts = std::max(1, TopLevelAsserts(p.test));
  for (int k = 0; k < asserts; ++k) {
    cases.push_back({{"stdin", std::to_string(k)}, {"expected_output", ""}});
  }
  const std::string code = p.solution + "\n_TEST = " + json(p.test).dump() + "\n" + kAssertHarness +
                           "check(" + p.entry_point + ")\n# " + salt + "\n";
  return {{"language", "python"}, {"code", code}, {"cases", cases}, {"cache", false}};
}

}  // namespace

void JudgeCost(httplib::Client& service, int cases) {
  printf(
      "\n== judge: a C++ sum over %d cases judged in one request, against %d separate jobs of "
      "it (each compiles; submitted at once)\n",
      cases, cases);
  const std::string tag = UniqueTag(0);
  auto t0 = Clock::now();
  const bool judged = JudgeOnce(service, cases, tag);
  const double judged_ms = Ms(Clock::now() - t0);
  LetPoolSettle(service);
  t0 = Clock::now();
  const bool separate = SeparateJobs(service, cases, tag);
  const double separate_ms = Ms(Clock::now() - t0);
  printf("  judged:   %8.0f ms in all, %7.1f ms a case%s\n", judged_ms, judged_ms / cases,
         judged ? "" : "   (NOT all accepted)");
  printf("  separate: %8.0f ms in all, %7.1f ms a job%s\n", separate_ms, separate_ms / cases,
         separate ? "" : "   (NOT all right)");
  const double ratio = judged_ms / separate_ms;
  printf("  judged case / separate job: %.3fx (%s: at most %.2fx)\n", ratio,
         ratio <= kMaxCaseOverJob ? "ok" : "ABOVE", kMaxCaseOverJob);
}

void HumanEvalJudged(httplib::Client& service, const std::vector<Problem>& problems) {
  if (problems.empty()) {
    printf("\n== judge: HumanEval judged: skipped (no --humaneval file)\n");
    return;
  }
  int cases = 0;
  for (const Problem& p : problems) cases += std::max(1, TopLevelAsserts(p.test));
  printf(
      "\n== judge: HumanEval judged, %zu submissions (%d cases: their checks' asserts) at once, "
      "against one job per problem\n",
      problems.size(), cases);
  const std::string salt = UniqueTag(1);
  auto t0 = Clock::now();
  std::vector<std::string> ids;
  for (size_t first = 0; first < problems.size(); first += kMaxBatch) {
    json list = json::array();
    for (size_t i = first; i < std::min(problems.size(), first + kMaxBatch); ++i) {
      list.push_back(JudgedProblem(problems[i], salt));
    }
    auto r = service.Post("/v1/jobs/batch", json{{"jobs", list}}.dump(), "application/json");
    json accepted = r && r->status == 202 ? json::parse(r->body, nullptr, false) : json();
    for (size_t k = 0; k < list.size(); ++k) {
      ids.push_back(accepted.is_object() && k < accepted["jobs"].size()
                        ? accepted["jobs"][k].value("id", "")
                        : "");
    }
  }
  int accepted = 0;
  std::vector<std::string> failed;
  for (size_t i = 0; i < ids.size(); ++i) {
    json rec;
    for (int tries = 0;
         !ids[i].empty() && tries < 60 && !(rec.is_object() && rec.contains("result")); ++tries) {
      auto w = service.Get("/v1/jobs/" + ids[i] + "/wait?timeout_s=10");
      if (w) rec = json::parse(w->body, nullptr, false);
    }
    const bool ok = rec.is_object() && rec.contains("result") && rec["result"].is_object() &&
                    rec["result"].contains("judge") &&
                    rec["result"]["judge"].value("verdict", "") == "accepted";
    ok ? (void)++accepted : failed.push_back(problems[i].id);
  }
  const double judged_s = Ms(Clock::now() - t0) / 1000.0;
  LetPoolSettle(service);
  HumanEvalRun jobs = RunHumanEval(service, problems);
  printf("  judged:         %7.2f s  accepted %d/%zu  (%.1f ms a case)\n", judged_s, accepted,
         problems.size(), judged_s * 1000.0 / cases);
  for (const auto& f : failed) printf("    not accepted: %s\n", f.c_str());
  printf("  job a problem:  %7.2f s  passed %d/%zu\n", jobs.wall_s, jobs.passed, problems.size());
  printf("  judged / job a problem: %.2fx the wall time, %.1fx the programs run\n",
         judged_s / jobs.wall_s, static_cast<double>(cases) / problems.size());
}

}  // namespace bench
