#include "data_bench.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_common.h"
#include "coderunner/engine/curl_transport.h"

namespace bench {

// The issue's bound on the data image's print(1+1) p50 against the slim one.
constexpr double kMaxDataOverSlim = 1.10;
// Issue 38's bounds on the data stack's import through the pool (a
// prestarted interpreter that loaded it): its p50, and against print(1+1).
constexpr double kMaxImportMs = 60;
constexpr double kMaxImportOverHello = 2.0;
// Issue 31's bound on a TypeScript hello's p50 against a JavaScript one.
constexpr double kMaxTypeScriptOverJavaScript = 1.50;

namespace {

std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char ch : s) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.') {
      out += static_cast<char>(ch);
    } else {
      char buf[4];
      snprintf(buf, sizeof(buf), "%%%02X", ch);
      out += buf;
    }
  }
  return out;
}

// What the warm pool of the service on `socket` (instance "bench") holds
// idle: its containers' memory as the engine's stats give it (the cgroup's
// usage, page cache included), per language, and for those whose
// prestarted interpreter loads the preload apart.
void PoolMemory(const std::string& socket) {
  coderunner::engine::CurlTransport t(socket);
  const std::string filter = R"({"label":["io.coderunner.instance=bench","io.coderunner.pool"]})";
  auto listed = t.Do({"GET", "/containers/json?filters=" + UrlEncode(filter), ""});
  if (!listed.ok() || listed->status != 200) {
    printf("  pool memory: not measured (%s)\n", listed.ok() ? listed->body.c_str() : "no engine");
    return;
  }
  std::map<std::string, std::pair<int, double>> by_kind;  // count, MiB
  for (const auto& c : nlohmann::json::parse(listed->body)) {
    const std::string id = c.value("Id", "");
    auto stats = t.Do({"GET", "/containers/" + id + "/stats?stream=false", ""});
    if (!stats.ok() || stats->status != 200) continue;
    auto js = nlohmann::json::parse(stats->body);
    const double mib = js["memory_stats"].value("usage", 0.0) / (1 << 20);
    std::string kind = c["Labels"].value("io.coderunner.language", "?");
    if (c.value("Command", "").find("pandas") != std::string::npos) kind += " (preloaded)";
    auto& [n, sum] = by_kind[kind];
    ++n;
    sum += mib;
  }
  double total = 0;
  int count = 0;
  for (const auto& [kind, v] : by_kind) {
    printf("  pool idle: %-24s %2d containers  %7.1f MiB  (%.1f MiB each)\n", kind.c_str(), v.first,
           v.second, v.second / v.first);
    total += v.second;
    count += v.first;
  }
  printf("  pool idle: all                      %2d containers  %7.1f MiB\n", count, total);
}

}  // namespace

void DataLatency(httplib::Client& service, httplib::Client* slim, int jobs,
                 const std::string& socket) {
  printf(
      "\n== data: %d sequential runs each through the warm pool: python print(1+1) on the data "
      "and the slim image (interleaved), python `import pandas, numpy, matplotlib`, javascript and "
      "typescript "
      "console.log(\"hi\") (interleaved) (ms: p50 p95 p99, ratio to print(1+1) on the data "
      "image)\n",
      jobs);
  Series data{"python print(1+1), data img", {}, 0};
  Series slim_two{"python print(1+1), slim img", {}, 0};
  Series imports{"import pandas,numpy,mpl", {}, 0};
  Series js{"javascript hello", {}, 0};
  Series ts{"typescript hello", {}, 0};
  for (int i = 0; i < jobs; ++i) {
    // Interleaved, so that both images see the same machine load.
    std::string tag = " # " + UniqueTag(i);
    Measure(data, [&] { return ExecuteTwo(service, "python", "print(1+1)" + tag); });
    LetPoolSettle(service);
    if (slim != nullptr) {
      Measure(slim_two, [&] { return ExecuteTwo(*slim, "python", "print(1+1)" + tag); });
      LetPoolSettle(*slim);
    }
  }
  for (int i = 0; i < jobs; ++i) {
    std::string code = "import pandas, numpy, matplotlib\nprint(1+1) # " + UniqueTag(i);
    Measure(imports, [&] { return ExecuteTwo(service, "python", code); });
    LetPoolSettle(service);
  }
  for (int i = 0; i < jobs; ++i) {
    std::string code = "console.log(\"hi\") // " + UniqueTag(i);
    Measure(js, [&] { return ExecutePrints(service, "javascript", code, "hi\n"); });
    LetPoolSettle(service);
    Measure(ts, [&] { return ExecutePrints(service, "typescript", code, "hi\n"); });
    LetPoolSettle(service);
  }
  double base = Percentile(data.ms, 0.5);
  for (const Series* s : {&data, &slim_two, &imports, &js, &ts}) {
    if (!s->ms.empty() || s->failures > 0) PrintSeries(*s, base);
  }
  if (!imports.ms.empty() && base > 0) {
    const double p50 = Percentile(imports.ms, 0.5);
    const bool ok = p50 <= kMaxImportMs && p50 / base <= kMaxImportOverHello;
    printf(
        "  import pandas,numpy,mpl p50: %.1f ms, %.2fx print(1+1) (%s: at most %.0f ms and "
        "%.1fx)\n",
        p50, p50 / base, ok ? "ok" : "REGRESSION", kMaxImportMs, kMaxImportOverHello);
  }
  if (!socket.empty()) PoolMemory(socket);
  if (!js.ms.empty() && !ts.ms.empty()) {
    double ratio = Percentile(ts.ms, 0.5) / Percentile(js.ms, 0.5);
    printf("  typescript / javascript hello p50: %.3fx (%s: at most %.2fx)\n", ratio,
           ratio <= kMaxTypeScriptOverJavaScript ? "ok" : "REGRESSION",
           kMaxTypeScriptOverJavaScript);
  }
  if (!slim_two.ms.empty() && base > 0) {
    double ratio = base / Percentile(slim_two.ms, 0.5);
    printf("  data / slim image print(1+1) p50: %.3fx (%s: at most %.2fx)\n", ratio,
           ratio <= kMaxDataOverSlim ? "ok" : "REGRESSION", kMaxDataOverSlim);
  } else {
    printf("  data / slim image ratio: not measured (no --slim-server)\n");
  }
}

}  // namespace bench
