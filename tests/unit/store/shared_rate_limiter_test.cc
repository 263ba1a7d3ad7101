// SharedRateLimiter's fallback: while the shared buckets fail, the node's
// own buckets decide (fail open to per-node limits) and every such request
// is counted; the shared answer wins again once the buckets answer.
#include "coderunner/store/shared_rate_limiter.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "coderunner/store/job_store.h"

namespace coderunner::store {
namespace {

// RateBuckets that fail while `down`, else answer `answer`.
class ScriptedBuckets : public RateBuckets {
 public:
  StatusOr<TokenAnswer> TakeToken(const std::string&, int, std::optional<int64_t>) override {
    ++calls;
    if (down) return UnavailableError("connection refused", kReasonStoreUnavailable);
    return answer;
  }
  bool down = false;
  TokenAnswer answer{true, 0};
  int calls = 0;
};

TEST(SharedRateLimiterTest, FallsBackToTheNodesOwnBucketsWhileTheStoreIsDown) {
  ScriptedBuckets buckets;
  buckets.down = true;
  MetricsRegistry metrics;
  SharedRateLimiter limiter(&buckets, &metrics);
  int retry = 0, allowed = 0;
  for (int i = 0; i < 5; ++i) allowed += limiter.Allow("acme", 3, &retry) ? 1 : 0;
  EXPECT_EQ(allowed, 3);  // The local bucket of 3.
  EXPECT_GE(retry, 1);
  EXPECT_EQ(buckets.calls, 5);
  EXPECT_EQ(limiter.fallbacks(), 5);
  EXPECT_EQ(metrics.Value(kRateLimitFallbacksMetric), 5);
}

TEST(SharedRateLimiterTest, TheSharedAnswerDecidesWhenTheStoreAnswers) {
  struct Case {
    TokenAnswer answer;
    bool allowed;
    int retry_after_s;
  };
  const Case cases[] = {{{true, 0}, true, -1}, {{false, 7}, false, 7}};
  for (const Case& c : cases) {
    ScriptedBuckets buckets;
    buckets.answer = c.answer;
    MetricsRegistry metrics;
    SharedRateLimiter limiter(&buckets, &metrics);
    int retry = -1;
    EXPECT_EQ(limiter.Allow("acme", 1, &retry), c.allowed);
    EXPECT_EQ(retry, c.retry_after_s);
    EXPECT_EQ(limiter.fallbacks(), 0);
  }
}

TEST(SharedRateLimiterTest, RecoversWhenTheStoreComesBack) {
  ScriptedBuckets buckets;
  MetricsRegistry metrics;
  SharedRateLimiter limiter(&buckets, &metrics);
  int retry = 0;
  buckets.down = true;
  EXPECT_TRUE(limiter.Allow("acme", 1, &retry));
  buckets.down = false;
  buckets.answer = TokenAnswer{false, 4};
  EXPECT_FALSE(limiter.Allow("acme", 1, &retry));
  EXPECT_EQ(retry, 4);
  EXPECT_EQ(limiter.fallbacks(), 1);
}

TEST(TokenAnswerOfTest, RetryAfterIsTheDeficitsRefillTime) {
  struct Case {
    bool allowed;
    double tokens_left;
    int per_minute;
    int retry_after_s;
  };
  const Case cases[] = {
      {true, 0.0, 10, 0},   {false, 0.0, 10, 6}, {false, 0.5, 10, 3},
      {false, 0.99, 60, 1}, {false, 0.0, 0, 60}, {false, 0.0, 6000, 1},
  };
  for (const Case& c : cases) {
    TokenAnswer a = TokenAnswerOf(c.allowed, c.tokens_left, c.per_minute);
    EXPECT_EQ(a.allowed, c.allowed);
    EXPECT_EQ(a.retry_after_s, c.retry_after_s) << c.tokens_left << " of " << c.per_minute;
  }
}

}  // namespace
}  // namespace coderunner::store
