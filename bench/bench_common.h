// Helpers shared by service_bench's sections: timing series, percentiles,
// one job through POST /v1/execute, and the warm pool's settling.
#ifndef CODERUNNER_BENCH_BENCH_COMMON_H_
#define CODERUNNER_BENCH_BENCH_COMMON_H_

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

inline double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Wall-clock now, epoch ms: comparable with the records' timestamps (the
// server shares the machine's clock).
inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Parses a record's "2026-11-21T13:41:54.123Z" into epoch ms; 0 if it is
// not one.
inline int64_t ParseRfc3339(const std::string& s) {
  struct tm tm = {};
  int ms = 0;
  if (sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
             &tm.tm_min, &tm.tm_sec, &ms) != 7) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

// One measured series: the times of the runs that succeeded, in ms.
struct Series {
  std::string name;
  std::vector<double> ms;
  int failures = 0;
};

// "  name  p50 p95 p99   ratio-to-base_p50x   (N failed)"; no ratio when
// base_p50 is 0.
inline void PrintSeries(const Series& s, double base_p50) {
  double p50 = Percentile(s.ms, 0.5);
  printf("  %-28s %8.1f %8.1f %8.1f", s.name.c_str(), p50, Percentile(s.ms, 0.95),
         Percentile(s.ms, 0.99));
  if (base_p50 > 0) printf("   %6.2fx", p50 / base_p50);
  if (s.failures > 0) printf("   (%d failed)", s.failures);
  printf("\n");
}

// One POST /v1/execute of `code`; true when it printed exactly `want`.
inline bool ExecutePrints(httplib::Client& c, const std::string& language, const std::string& code,
                          const std::string& want) {
  auto r = c.Post("/v1/execute", nlohmann::json{{"language", language}, {"code", code}}.dump(),
                  "application/json");
  if (!r || r->status != 200) return false;
  auto body = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  return body.is_object() && body.value("stdout", "") == want;
}

// One POST /v1/execute of `code`; true when it printed "2".
inline bool ExecuteTwo(httplib::Client& c, const std::string& language, const std::string& code) {
  return ExecutePrints(c, language, code, "2\n");
}

// Times one run of `run` into `s`.
template <typename F>
void Measure(Series& s, F run) {
  auto t0 = Clock::now();
  bool ok = run();
  double ms = Ms(Clock::now() - t0);
  ok ? s.ms.push_back(ms) : (void)++s.failures;
}

// A distinct suffix per run (a comment in the language) defeats the result
// cache.
inline std::string UniqueTag(int i) {
  return std::to_string(i) + "-" + std::to_string(Clock::now().time_since_epoch().count());
}

// The value of an unlabelled metric line `name <v>` (or the sum over its
// labelled lines), from /metrics; -1 when absent.
inline double MetricSum(httplib::Client& c, const std::string& name) {
  auto r = c.Get("/metrics");
  if (!r || r->status != 200) return -1;
  std::istringstream in(r->body);
  std::string line;
  double sum = -1;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) != 0) continue;
    char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != ' ' && next != '{') continue;
    sum = std::max(sum, 0.0) + std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

// After a pooled job the service refills its pool and removes the used
// container in the background. Letting that finish (bounded at 2 s) keeps
// its CPU out of the baselines measured next, which would otherwise look
// slower than they are.
inline void LetPoolSettle(httplib::Client& c) {
  auto deadline = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < deadline && MetricSum(c, "coderunner_pool_filling") > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

}  // namespace bench

#endif  // CODERUNNER_BENCH_BENCH_COMMON_H_
