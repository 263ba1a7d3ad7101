#include "coderunner/auth/long_request_limiter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace coderunner::auth {
namespace {

TEST(LongRequestLimitTest, TierThenServerThenWhatTheTenantMayQueue) {
  struct Case {
    const char* name;
    int server_value;
    int tier_value;  // -1: no tier.
    int tier_queued;
    int expected;
  };
  const std::vector<Case> cases = {
      // Issue 30: a quarter of 32 threads (8) refused 12 of 16 parallel
      // waits of one local user.
      {"default: the tier's max_queued", 0, 0, 500, 500},
      {"default without a tier: jobs.max_queued", 0, -1, 500, 1000},
      {"at least 1", 0, 0, 0, 1},
      {"server value", 3, 0, 500, 3},
      {"server value without tier", 3, -1, 500, 3},
      {"tier value wins over server", 3, 5, 500, 5},
      {"tier value wins over default", 0, 2, 500, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    config::Config cfg = config::DefaultConfig();
    cfg.server.long_requests_per_tenant = c.server_value;
    config::TierConfig tier;
    tier.max_long_requests = std::max(0, c.tier_value);
    tier.max_queued = c.tier_queued;
    EXPECT_EQ(LongRequestLimit(cfg, c.tier_value < 0 ? nullptr : &tier), c.expected);
  }
}

TEST(LongRequestLimitTest, AllTenantsTogetherLeaveTheKeptThreads) {
  config::Config cfg = config::DefaultConfig();
  cfg.server.threads = 32;
  cfg.server.max_threads = 2048;
  EXPECT_EQ(TotalLongRequestLimit(cfg), 2016);
  cfg.server.max_threads = 32;
  EXPECT_EQ(TotalLongRequestLimit(cfg), 1);
  LongRequestLimiter limiter(nullptr, 3);
  auto a1 = limiter.TryAcquire("a", 10);
  auto a2 = limiter.TryAcquire("a", 10);
  auto b1 = limiter.TryAcquire("b", 10);
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(limiter.TryAcquire("c", 10), nullptr) << "past the total";
  EXPECT_EQ(limiter.held("c"), 0);
  a1.reset();
  EXPECT_NE(limiter.TryAcquire("c", 10), nullptr);
}

TEST(LongRequestLimiterTest, EachTenantHoldsAtMostItsLimit) {
  MetricsRegistry metrics;
  LongRequestLimiter limiter(&metrics);
  std::vector<std::unique_ptr<LongRequestLimiter::Lease>> a;
  for (int i = 0; i < 2; ++i) {
    a.push_back(limiter.TryAcquire("a", 2));
    ASSERT_NE(a.back(), nullptr);
  }
  EXPECT_EQ(limiter.TryAcquire("a", 2), nullptr);
  // Another tenant is not affected by a's requests.
  auto b = limiter.TryAcquire("b", 2);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(limiter.held("a"), 2);
  EXPECT_EQ(limiter.held("b"), 1);
  EXPECT_EQ(limiter.total(), 3);
  EXPECT_EQ(metrics.Value("coderunner_long_requests"), 3);
  // A released slot is free again.
  a.pop_back();
  EXPECT_EQ(limiter.held("a"), 1);
  EXPECT_NE(limiter.TryAcquire("a", 2), nullptr);  // Released at once.
  a.clear();
  b.reset();
  EXPECT_EQ(limiter.total(), 0);
  EXPECT_EQ(limiter.held("a"), 0);
  EXPECT_EQ(metrics.Value("coderunner_long_requests"), 0);
}

TEST(LongRequestLimiterTest, ALimitBelowOneActsAsOne) {
  LongRequestLimiter limiter;
  auto first = limiter.TryAcquire("a", 0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(limiter.TryAcquire("a", 0), nullptr);
}

TEST(LongRequestLimiterTest, AMovedLeaseReleasesOnce) {
  LongRequestLimiter limiter;
  auto lease = limiter.TryAcquire("a", 5);
  ASSERT_NE(lease, nullptr);
  {
    LongRequestLimiter::Lease moved(std::move(*lease));
    EXPECT_EQ(limiter.held("a"), 1);
  }
  EXPECT_EQ(limiter.held("a"), 0);
  lease.reset();
  EXPECT_EQ(limiter.held("a"), 0);
  EXPECT_EQ(limiter.total(), 0);
}

}  // namespace
}  // namespace coderunner::auth
