#include "coderunner/auth/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace coderunner::auth {

bool LocalRateLimiter::Allow(const std::string& tenant, int per_minute, int* retry_after_s,
                             Clock::time_point now) {
  double capacity = std::max(1, per_minute);
  double per_second = capacity / 60.0;
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = buckets_.try_emplace(tenant, Bucket{capacity, now});
  Bucket& b = it->second;
  if (!inserted) {
    double elapsed = std::chrono::duration<double>(now - b.last).count();
    b.tokens = std::min(capacity, b.tokens + std::max(0.0, elapsed) * per_second);
    b.last = now;
  }
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return true;
  }
  *retry_after_s = std::max(1, static_cast<int>(std::ceil((1.0 - b.tokens) / per_second)));
  return false;
}

}  // namespace coderunner::auth
