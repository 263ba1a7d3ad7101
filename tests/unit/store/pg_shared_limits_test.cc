// The fleet's shared limits on a real PostgreSQL: the bounded insert leaves
// no advisory lock behind and stores exactly what it admitted, and what it
// and a shared token cost per call next to a plain Insert (p50 printed as
// FIGURE lines; no timed assertion).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "coderunner/store/pg_job_store.h"
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
  EXPECT_EQ(QueryInt(*conninfo, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"), 0);
  EXPECT_EQ(pg.InsertWithin(MakeJob("one-more", 0, "bounded"), bounds).reason(),
            kReasonTierQueueFull);
  EXPECT_EQ(QueryInt(*conninfo, "SELECT count(*) FROM rate_buckets"), 1);
  store->reset();
  EXPECT_TRUE(SharedPostgres().DropDatabase(*conninfo).ok());
}

}  // namespace
}  // namespace coderunner::store
