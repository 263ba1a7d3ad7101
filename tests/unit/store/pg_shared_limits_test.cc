// The fleet's shared limits on a real PostgreSQL: the bounded insert leaves
// no advisory lock behind and stores exactly what it admitted, and what it
// and a shared token cost per call next to a plain Insert (p50 printed as
// FIGURE lines; no timed assertion); the shared rate limiter falls back to
// the node's own buckets while the server is down, and back once it is up.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "coderunner/common/metrics.h"
#include "coderunner/store/postgres/pg_job_store.h"
#include "coderunner/store/shared_rate_limiter.h"
#include "job_store_contract.h"
#include "pg/temp_postgres.h"
#include "unit/store/pg_query_int.h"

namespace coderunner::store {
namespace {

using coderunner::testing::SharedPostgres;
using Clock = std::chrono::steady_clock;

constexpr int kCalls = 200;

double P50Us(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

// `call(i)` kCalls times; its p50 in microseconds. Every call must succeed.
template <typename Call>
double TimeP50(Call call) {
  std::vector<double> us;
  for (int i = 0; i < kCalls; ++i) {
    Clock::time_point start = Clock::now();
    Status s = call(i);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return P50Us(us);
}

TEST(PgSharedLimitsTest, BoundedInsertCostAndNoLockLeft) {
  auto conninfo = SharedPostgres().CreateDatabase();
  ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
  PgStoreOptions options;
  options.conninfo = *conninfo;
  auto store = PgJobStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  PgJobStore& pg = **store;
  const QueueBounds bounds{kCalls, 0, 2 * kCalls + 1};

  double plain = TimeP50(
      [&](int i) { return pg.Insert({MakeJob("plain-" + std::to_string(i), i, "plain")}); });
  double bounded = TimeP50([&](int i) {
    return pg.InsertWithin(MakeJob("bounded-" + std::to_string(i), i, "bounded"), bounds);
  });
  double token =
      TimeP50([&](int) { return pg.TakeToken("acme", 1'000'000, std::nullopt).status(); });
  std::printf("FIGURE pg_insert_p50_us plain=%.0f bounded=%.0f added=%.0f take_token=%.0f\n", plain,
              bounded, bounded - plain, token);

  EXPECT_EQ(QueryInt(*conninfo, "SELECT count(*) FROM jobs WHERE status = 'queued'"), 2 * kCalls);
  // pg_locks is the whole server's, which the other shards' tests share:
  // only this test's database counts.
  EXPECT_EQ(QueryInt(*conninfo,
                     "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = "
                     "(SELECT oid FROM pg_database WHERE datname = current_database())"),
            0);
  EXPECT_EQ(pg.InsertWithin(MakeJob("one-more", 0, "bounded"), bounds).reason(),
            kReasonTierQueueFull);
  EXPECT_EQ(QueryInt(*conninfo, "SELECT count(*) FROM rate_buckets"), 1);
  store->reset();
  EXPECT_TRUE(SharedPostgres().DropDatabase(*conninfo).ok());
}

TEST(PgSharedLimitsTest, RateLimiterFallsBackWhileTheServerIsDown) {
  auto pg = coderunner::testing::TempPostgres::Start();
  ASSERT_TRUE(pg.ok()) << pg.status().message();
  PgStoreOptions options;
  options.conninfo = (*pg)->Conninfo();
  options.connect_timeout_ms = 1000;
  auto store = PgJobStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  MetricsRegistry metrics;
  SharedRateLimiter limiter(store->get(), &metrics);
  int retry = 0;
  EXPECT_TRUE(limiter.Allow("acme", 2, &retry));  // Shared: 1 of 2 left in the table.
  ASSERT_TRUE((*pg)->Stop().ok());
  // The node's own bucket of 2, fresh: two pass, the third is refused.
  EXPECT_TRUE(limiter.Allow("acme", 2, &retry));
  EXPECT_TRUE(limiter.Allow("acme", 2, &retry));
  EXPECT_FALSE(limiter.Allow("acme", 2, &retry));
  EXPECT_EQ(limiter.fallbacks(), 3);
  EXPECT_EQ(metrics.Value(kRateLimitFallbacksMetric), 3);
  ASSERT_TRUE((*pg)->StartAgain().ok());
  // The shared bucket again: its last token, then refused.
  EXPECT_TRUE(limiter.Allow("acme", 2, &retry));
  EXPECT_FALSE(limiter.Allow("acme", 2, &retry));
  EXPECT_GE(retry, 1);
  EXPECT_EQ(limiter.fallbacks(), 3);
  EXPECT_EQ(QueryInt((*pg)->Conninfo(), "SELECT count(*) FROM rate_buckets"), 1);
  store->reset();
}

}  // namespace
}  // namespace coderunner::store
