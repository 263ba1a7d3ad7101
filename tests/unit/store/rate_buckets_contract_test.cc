// The RateBuckets contract (rate_buckets.h): a shared token bucket per
// tenant, taken exactly once per token across handles (nodes) and threads,
// refilled over time. Runs over every FleetBackends() backend (a single
// node's SQLite store keeps no RateBuckets).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/metrics.h"
#include "coderunner/store/rate_buckets.h"
#include "coderunner/store/shared_rate_limiter.h"
#include "job_store_contract.h"

namespace coderunner::store {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;  // A fixed time, ms since the epoch.

class RateBucketsContractTest : public JobStoreContractFixture {
 protected:
  // The RateBuckets of `store` (default store_).
  RateBuckets& Buckets(JobStore* store = nullptr) {
    RateBuckets* buckets = Parts(store).rate_buckets;
    EXPECT_NE(buckets, nullptr) << GetParam().name << " keeps no RateBuckets";
    return *buckets;
  }
  TokenAnswer MustTake(const std::string& tenant, int per_minute, std::optional<int64_t> at_ms,
                       JobStore* store = nullptr) {
    StatusOr<TokenAnswer> got = Buckets(store).TakeToken(tenant, per_minute, at_ms);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : TokenAnswer{};
  }
  std::unique_ptr<JobStore> MustOpenAgain() {
    auto other = OpenAgain();
    EXPECT_TRUE(other.ok()) << other.status().ToString();
    return other.ok() ? std::move(*other) : nullptr;
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, RateBucketsContractTest, ::testing::ValuesIn(FleetBackends()),
                         BackendName);

TEST_P(RateBucketsContractTest, TwoNodesTakeExactlyPerMinuteBetweenThem) {
  if (!CanReopen()) GTEST_SKIP() << "backend cannot reopen";
  std::unique_ptr<JobStore> other = MustOpenAgain();
  ASSERT_NE(other, nullptr);
  int allowed = 0;
  for (int i = 0; i < 30; ++i) {
    TokenAnswer a = MustTake("acme", 10, kT0, i % 2 == 0 ? store_.get() : other.get());
    if (a.allowed) {
      ++allowed;
      EXPECT_EQ(a.retry_after_s, 0);
    } else {
      EXPECT_EQ(a.retry_after_s, 6) << i;  // 10/min: one token per 6 s.
    }
  }
  EXPECT_EQ(allowed, 10);
  other.reset();
}

TEST_P(RateBucketsContractTest, ConcurrentTakersOnTwoHandlesNeverOverspend) {
  if (!CanReopen()) GTEST_SKIP() << "backend cannot reopen";
  std::unique_ptr<JobStore> other = MustOpenAgain();
  ASSERT_NE(other, nullptr);
  std::atomic<int> allowed{0}, refused{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      RateBuckets& b = Buckets(t % 2 == 0 ? store_.get() : other.get());
      for (int i = 0; i < 10; ++i) {
        StatusOr<TokenAnswer> a = b.TakeToken("acme", 10, kT0);
        if (!a.ok())
          ++failed;
        else if (a->allowed)
          ++allowed;
        else
          ++refused;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(allowed.load(), 10);
  EXPECT_EQ(refused.load(), 30);
  other.reset();
}

struct RefillCase {
  const char* name;
  int per_minute;
  int64_t after_ms;  // After the bucket was emptied at kT0.
  bool allowed;
  int retry_after_s;  // When refused.
};

TEST_P(RateBucketsContractTest, RefillsWithTimePassed) {
  const RefillCase cases[] = {
      {"no time", 6, 0, false, 10},      {"most of one token", 6, 9'000, false, 1},
      {"one token", 6, 10'000, true, 0}, {"time went back", 6, -60'000, false, 10},
      {"fast tier", 600, 100, true, 0},
  };
  for (const RefillCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::string tenant = std::string("t-") + c.name;
    for (int i = 0; i < c.per_minute; ++i) ASSERT_TRUE(MustTake(tenant, c.per_minute, kT0).allowed);
    ASSERT_FALSE(MustTake(tenant, c.per_minute, kT0).allowed);
    TokenAnswer a = MustTake(tenant, c.per_minute, kT0 + c.after_ms);
    EXPECT_EQ(a.allowed, c.allowed);
    EXPECT_EQ(a.retry_after_s, c.retry_after_s);
  }
}

TEST_P(RateBucketsContractTest, NeverHoldsMoreThanPerMinute) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(MustTake("a", 3, kT0).allowed);
  // An hour idle refills to 3, not 180.
  int allowed = 0;
  for (int i = 0; i < 10; ++i) allowed += MustTake("a", 3, kT0 + 3'600'000).allowed ? 1 : 0;
  EXPECT_EQ(allowed, 3);
  // A tier lowered to 1: at most one token, whatever was left.
  EXPECT_TRUE(MustTake("b", 5, kT0).allowed);
  EXPECT_TRUE(MustTake("b", 1, kT0).allowed);
  EXPECT_FALSE(MustTake("b", 1, kT0).allowed);
}

TEST_P(RateBucketsContractTest, TenantsHaveSeparateBuckets) {
  EXPECT_TRUE(MustTake("a", 1, kT0).allowed);
  EXPECT_FALSE(MustTake("a", 1, kT0).allowed);
  EXPECT_TRUE(MustTake("b", 1, kT0).allowed);
}

TEST_P(RateBucketsContractTest, UsesTheDatabaseClockWithoutATime) {
  // 1/min: one token a minute, so this run cannot refill one.
  EXPECT_TRUE(MustTake("a", 1, std::nullopt).allowed);
  for (int i = 0; i < 4; ++i) {
    TokenAnswer a = MustTake("a", 1, std::nullopt);
    EXPECT_FALSE(a.allowed);
    EXPECT_GE(a.retry_after_s, 1);
    EXPECT_LE(a.retry_after_s, 60);
  }
}

TEST_P(RateBucketsContractTest, SharedRateLimiterOverTwoNodesAllowsPerMinuteOnce) {
  if (!CanReopen()) GTEST_SKIP() << "backend cannot reopen";
  std::unique_ptr<JobStore> other = MustOpenAgain();
  ASSERT_NE(other, nullptr);
  MetricsRegistry metrics;
  SharedRateLimiter a(&Buckets(), &metrics), b(&Buckets(other.get()), &metrics);
  int allowed = 0, retry = 0;
  for (int i = 0; i < 30; ++i) {
    retry = 0;
    if ((i % 2 == 0 ? a : b).Allow("acme", 10, &retry))
      ++allowed;
    else
      EXPECT_GE(retry, 1);
  }
  EXPECT_EQ(allowed, 10);
  EXPECT_EQ(a.fallbacks() + b.fallbacks(), 0);
  EXPECT_EQ(metrics.Value(kRateLimitFallbacksMetric), 0);
  other.reset();
}

}  // namespace
}  // namespace coderunner::store
