#include "coderunner/auth/rate_limiter.h"

#include <gtest/gtest.h>

namespace coderunner::auth {
namespace {

using Clock = LocalRateLimiter::Clock;

TEST(RateLimiterTest, AllowsABurstOfPerMinuteThenRefusesWithRetryAfter) {
  LocalRateLimiter r;
  Clock::time_point t0 = Clock::now();
  int retry = 0;
  for (int i = 0; i < 60; ++i) EXPECT_TRUE(r.Allow("acme", 60, &retry, t0)) << i;
  EXPECT_FALSE(r.Allow("acme", 60, &retry, t0));
  EXPECT_EQ(retry, 1);  // One token per second at 60/min.
}

TEST(RateLimiterTest, RefillsOverTime) {
  LocalRateLimiter r;
  Clock::time_point t0 = Clock::now();
  int retry = 0;
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(r.Allow("a", 6, &retry, t0));
  EXPECT_FALSE(r.Allow("a", 6, &retry, t0));
  EXPECT_EQ(retry, 10);  // 6/min = one token per 10 s.
  EXPECT_FALSE(r.Allow("a", 6, &retry, t0 + std::chrono::seconds(9)));
  EXPECT_TRUE(r.Allow("a", 6, &retry, t0 + std::chrono::seconds(20)));
}

TEST(RateLimiterTest, TenantsHaveSeparateBuckets) {
  LocalRateLimiter r;
  Clock::time_point t0 = Clock::now();
  int retry = 0;
  ASSERT_TRUE(r.Allow("a", 1, &retry, t0));
  EXPECT_FALSE(r.Allow("a", 1, &retry, t0));
  EXPECT_TRUE(r.Allow("b", 1, &retry, t0));
}

}  // namespace
}  // namespace coderunner::auth
