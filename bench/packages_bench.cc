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

// Requirements that each resolve to crtiny 1.1 on the bench's index, every
// one a set the service has not seen: pip runs for each.
const std::vector<std::string> kFreshSpellings = {
    "crtiny>=1.1",     "crtiny>1.0",        "crtiny~=1.1",     "crtiny<=1.1,>=1.1",
    "crtiny!=1.0",     "crtiny>=1.0,!=1.0", "crtiny<2,>1.0",   "crtiny===1.1",
    "crtiny>=1.1,<3",  "crtiny>=1.1,<4",    "crtiny>=1.1,<5",  "crtiny>=1.1,<6",
    "crtiny>=1.1,<7",  "crtiny>=1.1,<8",    "crtiny>=1.1,<9",  "crtiny>=1.1,<10",
    "crtiny>=1.1,<11", "crtiny>=1.1,<12",   "crtiny>=1.1,<13", "crtiny>=1.1,<14",
};

// One POST /v1/execute with `requirement` (none if empty); true when it
// printed "2", installed crtiny 1.1, and was `cached` or not as expected.
bool RunWith(httplib::Client& c, const std::string& code, const std::string& requirement,
             bool want_cached, std::string* answer = nullptr) {
  nlohmann::json body = {{"language", "python"}, {"code", code}, {"cache", false}};
  if (!requirement.empty()) body["packages"] = {{"python", {requirement}}};
  auto r = c.Post("/v1/execute", body.dump(), "application/json");
  if (answer != nullptr) *answer = r ? r->body.substr(0, 500) : "no answer";
  if (!r || r->status != 200) return false;
  auto j = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("stdout", "") != "2\n") return false;
  if (requirement.empty()) return !j.contains("packages");
  const auto& installed = j.value("packages", nlohmann::json::object());
  return installed.value("cached", !want_cached) == want_cached &&
         installed.value("python", nlohmann::json::array()).size() == 1;
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

}  // namespace

void PackagesCost(httplib::Client& service, int jobs) {
  printf(
      "\n== packages: %d runs each through the warm pool, interleaved: python print(1+1) without "
      "packages, and with crtiny 1.1 from the bench's index already installed; then %zu first "
      "installs (ms: p50 p95 p99, ratio to the job without packages)\n",
      jobs, kFreshSpellings.size());
  Series plain{"print(1+1), no packages", {}, 0};
  Series cached{"with a cached package", {}, 0};
  Series first{"first install + the job", {}, 0};
  const std::string with_import = "import crtiny\nprint(1+1) # ";
  std::string answer;
  if (!RunWith(service, with_import + "warm-up", "crtiny==1.1", false, &answer)) {
    printf("  not measured: the first install of crtiny==1.1 failed: %s\n", answer.c_str());
    return;
  }
  LetPoolSettle(service);
  for (int i = 0; i < jobs; ++i) {
    const std::string tag = UniqueTag(i);
    Measure(plain, [&] { return RunWith(service, "print(1+1) # " + tag, "", false); });
    LetPoolSettle(service);
    Measure(cached, [&] { return RunWith(service, with_import + tag, "crtiny==1.1", true); });
    LetPoolSettle(service);
  }
  for (size_t i = 0; i < kFreshSpellings.size(); ++i) {
    const std::string code = with_import + UniqueTag(static_cast<int>(i));
    Measure(first, [&] { return RunWith(service, code, kFreshSpellings[i], false); });
    LetPoolSettle(service);
  }
  const double base = Percentile(plain.ms, 0.5);
  for (const Series* s : {&plain, &cached, &first}) PrintSeries(*s, base);
  PrintRatio("cached package / no packages", cached, base, kMaxCachedOverPlain);
  PrintRatio("first install / no packages", first, base, kMaxFirstInstallOverPlain);
}

}  // namespace bench
