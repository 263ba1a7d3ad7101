#include "packages_bench.h"

#include <cstdio>
#include <string>
#include <vector>

#include "bench_common.h"

namespace bench {
namespace {

// The bounds, against the same job without packages.
constexpr double kMaxCachedOverPlain = 1.2;
constexpr double kMaxFirstInstallOverPlain = 10.0;

// One ecosystem's runs: a job in `language` that prints 2, with and without
// `package` loaded, and requirements that each resolve to the same
// version, every one a set the service has not seen: the installer runs
// for each.
struct EcosystemRuns {
  const char* key;  // "python", "npm".
  const char* language;
  const char* plain;      // print(1+1), before a comment with a unique tag.
  const char* with_load;  // The same, loading the package first.
  const char* pinned;     // The cached set.
  std::vector<std::string> fresh;
};

const EcosystemRuns kEcosystems[] = {
    {"python",
     "python",
     "print(1+1) # ",
     "import crtiny\nprint(1+1) # ",
     "crtiny==1.1",
     {"crtiny>=1.1",     "crtiny>1.0",        "crtiny~=1.1",     "crtiny<=1.1,>=1.1",
      "crtiny!=1.0",     "crtiny>=1.0,!=1.0", "crtiny<2,>1.0",   "crtiny===1.1",
      "crtiny>=1.1,<3",  "crtiny>=1.1,<4",    "crtiny>=1.1,<5",  "crtiny>=1.1,<6",
      "crtiny>=1.1,<7",  "crtiny>=1.1,<8",    "crtiny>=1.1,<9",  "crtiny>=1.1,<10",
      "crtiny>=1.1,<11", "crtiny>=1.1,<12",   "crtiny>=1.1,<13", "crtiny>=1.1,<14"}},
    {"npm",
     "javascript",
     "console.log(1+1) // ",
     "require('crleft');\nconsole.log(1+1) // ",
     "crleft@1.1.0",
     {"crleft@1",         "crleft@1.1",      "crleft@~1.1",
      "crleft@^1.1",      "crleft@>=1.1 <2", "crleft@1.x",
      "crleft@>1.0.0 <2", "crleft@1.1.x",    "crleft@>=1.1.0 <1.2",
      "crleft@^1.0.1",    "crleft@<2",       "crleft@>=1 <3",
      "crleft@>=1 <4",    "crleft@>=1 <5",   "crleft@>=1 <6",
      "crleft@>=1 <7",    "crleft@>=1 <8",   "crleft@>=1 <9",
      "crleft@>=1 <10",   "crleft@>=1 <11"}},
};

// One POST /v1/execute with `requirement` (none if empty); true when it
// printed "2", installed one package, and was `cached` or not as expected.
bool RunWith(httplib::Client& c, const EcosystemRuns& e, const std::string& code,
             const std::string& requirement, bool want_cached, std::string* answer = nullptr) {
  nlohmann::json body = {{"language", e.language}, {"code", code}, {"cache", false}};
  if (!requirement.empty()) body["packages"] = {{e.key, {requirement}}};
  auto r = c.Post("/v1/execute", body.dump(), "application/json");
  if (answer != nullptr) *answer = r ? r->body.substr(0, 500) : "no answer";
  if (!r || r->status != 200) return false;
  auto j = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("stdout", "") != "2\n") return false;
  if (requirement.empty()) return !j.contains("packages");
  const auto& installed = j.value("packages", nlohmann::json::object());
  return installed.value("cached", !want_cached) == want_cached &&
         installed.value(e.key, nlohmann::json::array()).size() == 1;
}

void PrintRatio(const char* what, const Series& s, double base, double bound) {
  if (s.ms.empty() || base <= 0) {
    printf("  %s: not measured\n", what);
    return;
  }
  double ratio = Percentile(s.ms, 0.5) / base;
  printf("  %s p50: %.2fx (%s: at most %.1fx)\n", what, ratio, ratio <= bound ? "ok" : "REGRESSION",
         bound);
}

void EcosystemCost(httplib::Client& service, const EcosystemRuns& e, int jobs) {
  printf(
      "\n== packages (%s): %d runs each through the warm pool, interleaved: %s print(1+1) "
      "without packages, and with %s from the bench's mirror already installed; then %zu first "
      "installs (ms: p50 p95 p99, ratio to the job without packages)\n",
      e.key, jobs, e.language, e.pinned, e.fresh.size());
  Series plain{"print(1+1), no packages", {}, 0};
  Series cached{"with a cached package", {}, 0};
  Series first{"first install + the job", {}, 0};
  std::string answer;
  if (!RunWith(service, e, std::string(e.with_load) + "warm-up", e.pinned, false, &answer)) {
    printf("  not measured: the first install of %s failed: %s\n", e.pinned, answer.c_str());
    return;
  }
  LetPoolSettle(service);
  for (int i = 0; i < jobs; ++i) {
    const std::string tag = UniqueTag(i);
    Measure(plain, [&] { return RunWith(service, e, e.plain + tag, "", false); });
    LetPoolSettle(service);
    Measure(cached, [&] { return RunWith(service, e, e.with_load + tag, e.pinned, true); });
    LetPoolSettle(service);
  }
  for (size_t i = 0; i < e.fresh.size(); ++i) {
    const std::string code = e.with_load + UniqueTag(static_cast<int>(i));
    Measure(first, [&] { return RunWith(service, e, code, e.fresh[i], false); });
    LetPoolSettle(service);
  }
  const double base = Percentile(plain.ms, 0.5);
  for (const Series* s : {&plain, &cached, &first}) PrintSeries(*s, base);
  PrintRatio("cached package / no packages", cached, base, kMaxCachedOverPlain);
  PrintRatio("first install / no packages", first, base, kMaxFirstInstallOverPlain);
}

}  // namespace

void PackagesCost(httplib::Client& service, int jobs) {
  for (const auto& e : kEcosystems) EcosystemCost(service, e, jobs);
}

}  // namespace bench
