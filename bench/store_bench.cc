#include "store_bench.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_common.h"

namespace bench {
namespace {

// Issue 19's bound on what PostgreSQL adds to the p50 of print(1+1), ms.
constexpr double kMaxPostgresOverSqliteMs = 3.0;
// Unmeasured runs per service first: the pool's first refill, the store's
// first connections and statements.
constexpr int kWarmUpRuns = 3;

// One POST /v1/execute of print(1+1) with the result cache off; true when it
// ran (not served from the cache) and printed "2".
bool ExecuteUncached(httplib::Client& c) {
  nlohmann::json req{{"language", "python"}, {"code", "print(1+1)"}, {"cache", false}};
  auto r = c.Post("/v1/execute", req.dump(), "application/json");
  if (!r || r->status != 200) return false;
  auto body = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  return body.is_object() && body.value("stdout", "") == "2\n" && !body.value("cached", true);
}

void PrintRow(const Series& s) {
  printf("  %-28s %8.1f %8.1f %8.1f", s.name.c_str(), Percentile(s.ms, 0.5), Percentile(s.ms, 0.9),
         Percentile(s.ms, 0.99));
  if (s.failures > 0) printf("   (%d failed)", s.failures);
  printf("\n");
}

}  // namespace

void StoreLatency(httplib::Client& sqlite, httplib::Client& postgres, int jobs) {
  printf(
      "\n== store: %d interleaved rounds of python print(1+1) through /v1/execute (cache off, warm "
      "pool), store.kind sqlite against postgres, otherwise the same config (ms: p50 p90 p99)\n",
      jobs);
  for (int i = 0; i < kWarmUpRuns; ++i) {
    (void)ExecuteUncached(sqlite);
    LetPoolSettle(sqlite);
    (void)ExecuteUncached(postgres);
    LetPoolSettle(postgres);
  }
  Series lite{"sqlite (data_dir/jobs.db)", {}, 0};
  Series pg{"postgres (Unix socket)", {}, 0};
  for (int i = 0; i < jobs; ++i) {
    // Interleaved, the first of each round alternating, so that both stores
    // see the same machine load and neither always follows the other.
    for (int k = 0; k < 2; ++k) {
      bool pg_turn = (k == 0) == (i % 2 == 1);
      httplib::Client& c = pg_turn ? postgres : sqlite;
      Measure(pg_turn ? pg : lite, [&] { return ExecuteUncached(c); });
      LetPoolSettle(c);
    }
  }
  PrintRow(lite);
  PrintRow(pg);
  double lite50 = Percentile(lite.ms, 0.5), pg50 = Percentile(pg.ms, 0.5);
  double lite90 = Percentile(lite.ms, 0.9), pg90 = Percentile(pg.ms, 0.9);
  if (lite.ms.empty() || pg.ms.empty() || lite50 <= 0 || lite90 <= 0) {
    printf("  postgres - sqlite: not measured (a series is empty)\n");
    return;
  }
  printf("  postgres - sqlite: p50 %+.1f ms (%.3fx), p90 %+.1f ms (%.3fx)\n", pg50 - lite50,
         pg50 / lite50, pg90 - lite90, pg90 / lite90);
  double added = pg50 - lite50;
  printf(
      "  PostgreSQL adds %.1f ms to the p50 of print(1+1) (%.1f against %.1f ms, %.3fx): %s %.0f "
      "ms\n",
      added, pg50, lite50, pg50 / lite50,
      added <= kMaxPostgresOverSqliteMs ? "ok, at most" : "REGRESSION, over",
      kMaxPostgresOverSqliteMs);
}

}  // namespace bench
