// SharedRateLimiter: the tiers' requests_per_minute over a fleet, one token
// bucket per tenant in the shared database (RateBuckets), so that a tenant
// behind a balancer over N nodes gets its limit once, not N times.
#ifndef CODERUNNER_STORE_SHARED_RATE_LIMITER_H_
#define CODERUNNER_STORE_SHARED_RATE_LIMITER_H_

#include <atomic>
#include <string>

#include "coderunner/auth/rate_limiter.h"
#include "coderunner/common/metrics.h"
#include "coderunner/store/rate_buckets.h"

namespace coderunner::store {

// The counter of requests decided by the node's own buckets because the
// shared ones could not be reached.
inline constexpr const char* kRateLimitFallbacksMetric = "coderunner_rate_limit_fallbacks_total";

// Thread-safe. Each Allow is one RateBuckets::TakeToken (one statement, the
// database's clock). When that fails (the store is unreachable or errs) it
// fails OPEN to per-node limits: the request is decided by a
// LocalRateLimiter of this node, kRateLimitFallbacksMetric is incremented,
// and a warning is logged once per outage (and an info line when the shared
// buckets answer again). Refusing every request while the database is down
// would stop the API even for calls that need no store.
class SharedRateLimiter : public auth::RateLimiter {
 public:
  // `buckets` and `metrics` are borrowed and must outlive this limiter.
  // Declares kRateLimitFallbacksMetric on `metrics`.
  SharedRateLimiter(RateBuckets* buckets, MetricsRegistry* metrics);

  bool Allow(const std::string& tenant, int per_minute, int* retry_after_s) override;

  // Requests decided locally so far (tests; the metric shows the same).
  int64_t fallbacks() const { return fallbacks_.load(); }

 private:
  RateBuckets* const buckets_;
  MetricsRegistry* const metrics_;
  auth::LocalRateLimiter local_;
  std::atomic<bool> failing_{false};  // The last TakeToken failed.
  std::atomic<int64_t> fallbacks_{0};
};

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_SHARED_RATE_LIMITER_H_
