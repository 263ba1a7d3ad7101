#include "coderunner/auth/long_request_limiter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace coderunner::auth {
namespace {

TEST(LongRequestLimitTest, TierThenServerThenAQuarterOfTheThreads) {
  struct Case {
    const char* name;
    int threads;
    int server_value;
    int tier_value;  // -1: no tier.
    int expected;
  };
  const std::vector<Case> cases = {
      {"default: a quarter of 32 threads", 32, 0, 0, 8},
      {"default with few threads is at least 1", 3, 0, 0, 1},
      {"default with 5 threads", 5, 0, 0, 1},
      {"default with 8 threads", 8, 0, 0, 2},
      {"no tier", 32, 0, -1, 8},
      {"server value", 32, 3, 0, 3},
      {"server value without tier", 32, 3, -1, 3},
      {"tier value wins over server", 32, 3, 5, 5},
      {"tier value wins over default", 32, 0, 2, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    config::Config cfg = config::DefaultConfig();
    cfg.server.threads = c.threads;
    cfg.server.long_requests_per_tenant = c.server_value;
    config::TierConfig tier;
    tier.max_long_requests = std::max(0, c.tier_value);
    EXPECT_EQ(LongRequestLimit(cfg, c.tier_value < 0 ? nullptr : &tier), c.expected);
  }
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
