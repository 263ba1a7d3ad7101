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

}  // namespace bench
