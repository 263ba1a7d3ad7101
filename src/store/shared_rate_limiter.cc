#include "coderunner/store/shared_rate_limiter.h"

#include <spdlog/spdlog.h>

#include <optional>

namespace coderunner::store {

SharedRateLimiter::SharedRateLimiter(RateBuckets* buckets, MetricsRegistry* metrics)
    : buckets_(buckets), metrics_(metrics) {
  metrics_->DeclareCounter(kRateLimitFallbacksMetric,
                           "Requests whose requests_per_minute was decided by this node's own "
                           "buckets because the fleet's shared ones could not be reached.");
}

bool SharedRateLimiter::Allow(const std::string& tenant, int per_minute, int* retry_after_s) {
  StatusOr<TokenAnswer> answer = buckets_->TakeToken(tenant, per_minute, std::nullopt);
  if (answer.ok()) {
    if (failing_.exchange(false)) {
      spdlog::info("rate limits: the shared buckets answer again; limits are fleet-wide");
    }
    if (!answer->allowed) *retry_after_s = answer->retry_after_s;
    return answer->allowed;
  }
  if (!failing_.exchange(true)) {
    spdlog::warn(
        "rate limits: the shared buckets cannot be reached ({}); each node applies "
        "requests_per_minute on its own until they answer",
        answer.status().message());
  }
  fallbacks_.fetch_add(1);
  metrics_->Increment(kRateLimitFallbacksMetric);
  return local_.Allow(tenant, per_minute, retry_after_s);
}

}  // namespace coderunner::store
