#include "data_bench.h"

#include <cstdio>
#include <string>

#include "bench_common.h"

namespace bench {

// The bound on the data image's print(1+1) p50 against the slim one.
constexpr double kMaxDataOverSlim = 1.10;
// Issue 31's bound on a TypeScript hello's p50 against a JavaScript one.
constexpr double kMaxTypeScriptOverJavaScript = 1.50;

void DataLatency(httplib::Client& service, httplib::Client* slim, int jobs) {
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
